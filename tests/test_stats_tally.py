"""The statistics' tallies (``rolls.stats.tally``) kept by the services: random evenings played
through the real services (rolls, follow-ups, secret and blind rolls, voids, reveals, a
contest, a rename, a player leaving with their character), after which every page's figures
from the tallies equal those added up from the rows, for every scope and both readers, and
the kept tallies equal the ones counted again from the rows."""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import pytest
from django.db.models import Count, Max, Q, Sum

from rolls import demo
from rolls.campaigns import services as campaigns
from rolls.contests import services
from rolls.contests.sides import Side
from rolls.history import marks
from rolls.models import FollowUpTally, Roll, RollTally, Visibility
from rolls.stats import summary, tally
from rolls.stats.record import FACE_FIELDS
from tabletop.models import Character, Membership, PlaySession

pytestmark = pytest.mark.django_db


def from_rows(scope: summary.Scope, membership: Membership) -> summary.Summary:
    """A page's figures added up from every roll and follow-up row (how the pages counted
    before the tallies): the reference."""
    rolls = summary.rolls_in(scope, membership)
    sums = tally.roll_sums_sql()
    groups = [
        dict(row)
        for row in rolls.values("character_id", "pool", "outcome")
        .annotate(
            name=Max("character_name"),
            **{f"sum_{name}" if name in FACE_FIELDS else name: each for name, each in sums.items()},
        )
        .order_by()
    ]
    uses = summary.uses_in(scope, membership, rolls)
    by_action = [
        dict(row)
        for row in uses.values("action")
        .annotate(
            uses=Count("id"),
            converted=Count("id", filter=Q(converted=True)),
            conditions=Count("id", filter=~Q(condition="")),
            **{f"{name}_spent": Sum(name) for name, _ in summary.SPENT_NAMES},
        )
        .order_by("-uses", "action")
    ]
    return summary.assembled(scope, groups, by_action)


def rounded(value: Any) -> Any:
    """Floats to 9 places, inside any structure: sums kept by adding and taking away differ
    from sums made at once in the last bits."""
    if isinstance(value, float):
        return round(value, 9)
    if isinstance(value, dict):
        return {key: rounded(each) for key, each in value.items()}
    if isinstance(value, list | tuple):
        return [rounded(each) for each in value]
    return value


def scopes(campaign: Any) -> list[summary.Scope]:
    sessions = list(PlaySession.objects.filter(campaign=campaign))
    characters = list(Character.objects.filter(campaign=campaign))
    found = [summary.Scope(campaign)]
    found += [summary.Scope(campaign, session=session) for session in sessions]
    for character in characters:
        found.append(summary.Scope(campaign, character=character))
        found += [summary.Scope(campaign, session=session, character=character) for session in sessions]
    return found


def tally_rows(campaign_id: int) -> dict[tuple[Any, ...], list[Any]]:
    """The campaign's tallies, the rows that count something, with ids of characters gone
    counted as "no sheet" (as the pages read them)."""
    present = set(Character.objects.filter(campaign_id=campaign_id).values_list("pk", flat=True))
    found: dict[tuple[Any, ...], list[Any]] = {}
    for model, key, sums in (
        (RollTally, tally.ROLL_KEY, tally.ROLL_SUMS),
        (FollowUpTally, tally.USE_KEY, tally.USE_SUMS),
    ):
        for row in model.objects.filter(campaign_id=campaign_id).values(*key, *sums):
            for field in ("character_pk", "payer_pk"):
                if field in row and row[field] not in present:
                    row[field] = 0
            into = found.setdefault((model.__name__, *(row[name] for name in key)), [0] * len(sums))
            for index, name in enumerate(sums):
                into[index] += row[name]
    return {key: rounded(sums) for key, sums in found.items() if any(rounded(sums))}


def assert_tallies_match_rows(campaign: Any) -> None:
    campaign.refresh_from_db()
    readers = list(Membership.objects.filter(campaign=campaign))
    assert any(m.is_gm for m in readers) and any(not m.is_gm for m in readers)
    checked = 0
    for scope in scopes(campaign):
        for membership in readers:
            kept = summary._summary(scope, membership)
            assert rounded(dataclasses.asdict(kept)) == rounded(
                dataclasses.asdict(from_rows(scope, membership))
            )
            checked += 1
    assert checked > 10
    kept_rows = tally_rows(campaign.pk)
    tally.rebuild(campaign.pk)
    assert kept_rows == tally_rows(campaign.pk)


def play(system: str, seed: int) -> demo.Played:
    """A demo campaign (rolls, follow-ups, calls, secret NPC rolls, blind rolls, a reveal and a
    void a session), then the GM's marks at random over all of it."""
    played = demo.create(
        demo.Plan(system=system, rolls=70, sessions=3, characters=3, seed=seed, passwords=False)
    )
    rng = random.Random(seed)
    rolls = list(Roll.objects.filter(campaign=played.campaign).order_by("pk"))
    for roll in rng.sample(rolls, 8):
        roll.refresh_from_db()
        if roll.visibility != Visibility.PUBLIC and not roll.revealed and rng.random() < 0.6:
            marks.roll_reveal(roll=roll, gm=played.gm.user)
        elif not roll.voided:
            marks.roll_void(roll=roll, gm=played.gm.user)
    return played


@pytest.mark.parametrize(("system", "seed"), [("sixes", 3), ("stars", 5), ("doubles", 7), ("sets", 11)])
def test_the_kept_tallies_equal_the_rows_after_random_evenings(system: str, seed: int) -> None:
    played = play(system, seed)
    assert played.follow_ups and (played.secret_rolls or played.blind_rolls)
    assert Roll.objects.filter(campaign=played.campaign, voided=True).exists()
    assert_tallies_match_rows(played.campaign)


def test_a_rename_and_a_player_leaving_keep_the_figures_of_the_rows() -> None:
    played = play("sixes", 13)
    campaign, gm = played.campaign, played.gm.user
    first, second = played.characters[:2]
    first.refresh_from_db()  # the sheet as the evening left it (a push may have checked Broken)
    campaigns.character_update(
        character=first, actor=played.players[0].user, name="Ana Renamed", sheet=first.sheet
    )
    # The renamed character rolls on in a new session: two names on one sheet.
    session = demo._Session(played, random.Random(1), 99)
    session.play(12)
    # The second player leaves: their character's rolls are now rolls without a sheet.
    gone = Roll.objects.filter(character=second).first()
    membership = Membership.objects.get(campaign=campaign, user=played.players[1].user)
    campaigns.member_remove(campaign=campaign, actor=gm, membership=membership)
    assert gone is not None
    marks.roll_void(roll=Roll.objects.get(pk=gone.pk), gm=gm)  # after it left
    assert Roll.objects.filter(campaign=campaign, character_name="Ana Renamed").exists()
    assert_tallies_match_rows(campaign)


def test_a_contest_reveal_moves_its_rolls_to_the_tables_figures() -> None:
    played = play("stars", 17)
    campaign, gm = played.campaign, played.gm.user
    if campaign.open_session() is None:
        campaigns.session_start(campaign=campaign, actor=gm)
    dave = played.characters[0]
    contest = services.contest_open(
        campaign=campaign,
        opener=gm,
        sides=[
            Side(dave, {"stat": "Agility", "skill": "", "advantage": "none"}),
            Side(None, {"dice": 2}, name="The guard"),
        ],
        intent="sneak past",
    )
    rng = random.Random(2)
    services.contest_roll(
        side=contest.sides.get(position=0), user=played.players[0].user, rng=rng, is_gm=False
    )
    assert_tallies_match_rows(campaign)  # sealed: the GM's figures count it, the table's not
    services.contest_roll(side=contest.sides.get(position=1), user=gm, rng=rng, is_gm=True)
    assert Roll.objects.filter(contest_side__contest=contest, revealed=True).count() == 2
    assert_tallies_match_rows(campaign)
