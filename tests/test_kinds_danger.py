"""Several Adventurers facing one Danger, through the services and the pages (KIN-6, KIN-8):
the GM opens it for the ticked Adventurers with the Danger's level, each rolls their own
Challenge sealed from their own phone, the exact odds come first, the results together after,
and the whole is one history entry. Every step out of turn is refused and changes nothing."""

from __future__ import annotations

import html
import itertools
import re
from fractions import Fraction
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.urls import reverse

from rolls.campaigns import services as campaigns
from rolls.contests import services
from rolls.contests.sides import Side
from rolls.live import feed
from rolls.models import Contest, ContestSide, LogEntry, Roll
from rolls.systems import RulesError
from rolls.systems.base import percent
from tabletop.models import Character, Membership
from tests import factories
from tests.contest_sockets import assert_sealed, table_sockets
from tests.dice import Script, ScriptedDice
from tests.factories import logged_in

FACE = re.compile(r'data-face="\d"')
HX = {"HTTP_HX_REQUEST": "true"}
# Action + Athletics on a new sheet: 2 + 1 = three dice.
CLIMB = {"skill": "0", "field": "", "level": "basic", "net": 0, "danger": False}


class Party:
    """A kinds table: Ada (the player's), Bo (a second player's), Cy (a third's)."""

    def __init__(self) -> None:
        self.table = factories.table("kinds", character_name="Ada", sheet=factories.sheet_of("kinds"))
        self.second = factories.user("second")
        factories.member(self.table.campaign, self.second, name="Second")
        self.bo = self._character(self.second, "Bo")
        self.third = factories.user("third")
        factories.member(self.table.campaign, self.third, name="Third")
        self.cy = self._character(self.third, "Cy")

    def _character(self, owner: Any, name: str) -> Character:
        return campaigns.character_create(
            campaign=self.table.campaign, owner=owner, name=name, sheet=factories.sheet_of("kinds", name)
        )

    @property
    def ada(self) -> Character:
        return self.table.character


@pytest.fixture
def party(db: None) -> Party:
    return Party()


def danger(party: Party, *characters: Character, level: str = "Basic", **data: Any) -> Contest:
    return services.contest_open(
        campaign=party.table.campaign,
        opener=party.table.gm,
        sides=[Side(character, {**CLIMB, **data}) for character in characters],
        intent="the rope bridge",
        kind=Contest.Kind.DANGER,
        setup={"level": level},
    )


def side(contest: Contest, position: int) -> ContestSide:
    return contest.sides.get(position=position)


def roll(contest: Contest, position: int, *faces: int) -> Roll:
    chosen = side(contest, position)
    assert chosen.character is not None
    return services.contest_roll(
        side=chosen, user=chosen.character.owner, rng=ScriptedDice(*faces), is_gm=False
    )


def seen_by(user: Any, party: Party) -> str:
    membership = Membership.objects.get(campaign=party.table.campaign, user=user)
    text, _ = feed.render_since(membership, 0)
    return text


def test_kin_8_each_rolls_their_own_challenge_and_the_results_are_read_together(party: Party) -> None:
    contest = danger(party, party.ada, party.bo, party.cy, level="Critical")
    assert all(s.data["level"] == "critical" and s.data["danger"] for s in contest.sides.all())
    first = roll(contest, 0, 4, 4, 4)  # three of a kind: Critical, passes
    # Side by side, not against one another: the card names no opponent.
    assert first.target_id is None and first.target_name == ""
    roll(contest, 1, 2, 2, 5)  # a pair falls short of Critical: an Accident
    assert Contest.objects.get().state == Contest.State.OPEN  # Cy still to roll: nothing read
    assert [s.winner for s in services.standings(contest)] == [False, False, False]
    roll(contest, 2, 1, 2, 3)  # nothing: an Accident
    assert Contest.objects.get().state == Contest.State.REVEALED
    assert [s.winner for s in services.standings(contest)] == [True, False, False]
    closed = services.contest_close(contest=contest, gm=party.table.gm)
    assert closed.verdict == "The Critical Danger: Ada passes; an Accident for Bo and Cy."


def test_kin_6_everyone_passing_is_said_so(party: Party) -> None:
    contest = danger(party, party.ada, party.bo)
    roll(contest, 0, 6, 6, 1)
    roll(contest, 1, 3, 3, 3)
    closed = services.contest_close(contest=contest, gm=party.table.gm)
    assert closed.verdict == "The Basic Danger: everyone passes (Ada and Bo)."


def test_kin_8_a_danger_is_opened_by_the_gm_for_two_or_more_with_a_known_level(party: Party) -> None:
    with pytest.raises(RulesError, match="Only the GM opens that"):
        services.contest_open(
            campaign=party.table.campaign,
            opener=party.table.player,
            sides=[Side(party.ada, CLIMB), Side(party.bo, CLIMB)],
            intent="",
            kind=Contest.Kind.DANGER,
            setup={"level": "Basic"},
        )
    with pytest.raises(RulesError, match="two Adventurers or more"):
        danger(party, party.ada)
    with pytest.raises(RulesError, match="Choose the Danger's Challenge"):
        danger(party, party.ada, party.bo, level="Legendary")
    with pytest.raises(RulesError, match="no contested rolls"):
        services.contest_open(
            campaign=party.table.campaign,
            opener=party.table.gm,
            sides=[Side(party.ada, CLIMB), Side(party.bo, CLIMB)],
            intent="",
        )
    assert not Contest.objects.exists()


def test_kin_8_each_rolls_only_their_own_side_once_and_only_while_open(party: Party) -> None:
    contest = danger(party, party.ada, party.bo)
    with pytest.raises(RulesError, match="Only Bo's player rolls Bo's side"):
        services.contest_roll(
            side=side(contest, 1), user=party.table.player, rng=ScriptedDice(1, 2, 3), is_gm=False
        )
    roll(contest, 0, 1, 2, 3)
    with pytest.raises(RulesError, match="rolled already"):
        roll(contest, 0, 1, 2, 3)
    services.contest_close(contest=contest, gm=party.table.gm)
    with pytest.raises(RulesError, match="This contest is over"):
        roll(contest, 1, 1, 2, 3)
    assert Roll.objects.count() == 1


def test_kin_8_a_player_who_went_away_did_not_roll_when_the_gm_closes(party: Party) -> None:
    contest = danger(party, party.ada, party.bo, party.cy)
    roll(contest, 0, 5, 5, 1)
    closed = services.contest_close(contest=contest, gm=party.table.gm)
    assert closed.verdict == "The Basic Danger: Ada passes; Bo and Cy did not roll."
    assert Roll.objects.get().revealed


def test_kin_8_a_sealed_challenge_reaches_nobody_else_before_everyone_rolled(party: Party) -> None:
    contest = danger(party, party.ada, party.bo)
    roll(contest, 0, 6, 6, 2)
    assert 'data-face="6"' in seen_by(party.table.player, party)
    assert 'data-face="6"' in seen_by(party.table.gm, party)
    for other in (party.second, party.third):
        assert not FACE.search(seen_by(other, party))
    roll(contest, 1, 1, 2, 3)
    assert 'data-face="6"' in seen_by(party.third, party)


def test_kin_8_the_whole_danger_is_one_history_entry(party: Party) -> None:
    contest = danger(party, party.ada, party.bo)
    roll(contest, 0, 6, 6, 2)
    roll(contest, 1, 1, 2, 3)
    services.contest_close(contest=contest, gm=party.table.gm)
    named = [e for e in LogEntry.objects.order_by("seq") if (e.state or {}).get("contest") == contest.pk]
    assert [e.action for e in named] == ["contest-open", "contest-end"]
    text = html.unescape(
        logged_in(party.third).get(reverse("rolls:history", args=[party.table.campaign.pk])).content.decode()
    )
    assert text.count(f'id="contest-entry-{contest.pk}-title"') == 1
    assert "The Basic Danger: Ada passes; an Accident for Bo." in text
    assert "One Danger: Ada, Bo" in text
    own = html.unescape(
        logged_in(party.third)
        .get(reverse("rolls:contest", args=[party.table.campaign.pk, contest.pk]))
        .content.decode()
    )
    assert "<h1>One Danger: Ada, Bo</h1>" in own
    assert own.count("data-roll=") >= 2 and "Ada passes" in own


# -- the pages ----------------------------------------------------------------------------------


def open_from_console(party: Party, *ticked: Character, **extra: Any) -> Any:
    data: dict[str, Any] = {
        "kind": "danger",
        "setup-level": "Critical",
        "sides": [str(c.pk) for c in ticked],
        "intent": "The rope bridge",
    }
    for character in ticked:
        data[f"s{character.pk}-trait"] = "skill-0"
        data[f"s{character.pk}-net"] = "0"
    data.update(extra)
    return logged_in(party.table.gm).post(
        reverse("rolls:contest-create", args=[party.table.campaign.pk]), data, **HX
    )


def three_of_a_kind(dice: int) -> Fraction:
    """By brute force over every face: the chance some face shows three times or more."""
    rolls = list(itertools.product(range(1, 7), repeat=dice))
    hits = sum(1 for faces in rolls if max(faces.count(face) for face in range(1, 7)) >= 3)
    return Fraction(hits, len(rolls))


def panel_of(text: str) -> str:
    return html.unescape(text).split('id="contests-panel"')[1].split("</section>")[0]


def test_kin_6_the_console_opens_it_and_every_screen_shows_the_exact_odds_first(party: Party) -> None:
    console = html.unescape(
        logged_in(party.table.gm)
        .get(reverse("rolls:session", args=[party.table.campaign.pk]))
        .content.decode()
    )
    assert "One Danger: each rolls their own Challenge" in console
    assert 'value="contest"' not in console.split('id="contest-kind"')[1].split("</select>")[0]
    answer = open_from_console(party, party.ada, party.bo, **{f"s{party.ada.pk}-net": "2"})
    assert answer.status_code == 200
    contest = Contest.objects.get()
    assert contest.kind == Contest.Kind.DANGER and contest.setup == {"level": "critical"}
    # Ada: three dice and two Advantages make five; Bo: three. A Critical needs three of a kind.
    ada, bo = three_of_a_kind(5), three_of_a_kind(3)
    assert bo == Fraction(6, 216)
    everyone, nobody = ada * bo, (1 - ada) * (1 - bo)
    phone = panel_of(
        logged_in(party.table.player)
        .get(reverse("rolls:character", args=[party.table.campaign.pk, party.ada.pk]))
        .content.decode()
    )
    assert "One Danger: Ada, Bo" in phone
    assert f"Chance to pass: Ada {percent(ada)}, Bo {percent(bo)}." in phone
    assert (
        f"Everyone passes: {percent(everyone)} (exact: {everyone}); nobody: {percent(nobody)} (exact: {nobody})."
        in phone
    )
    assert "Roll Action + Athletics" in phone


def test_kin_8_the_console_refuses_bad_input_without_opening_anything(party: Party) -> None:
    url = reverse("rolls:contest-create", args=[party.table.campaign.pk])
    gm = logged_in(party.table.gm)
    for data in (
        {
            "kind": "danger",
            "setup-level": "Basic",
            "sides": [str(party.ada.pk)],
            f"s{party.ada.pk}-trait": "skill-0",
        },
        {"kind": "danger", "setup-level": "Mythic", "sides": [str(party.ada.pk), str(party.bo.pk)]},
        {"kind": "contest", "sides": [str(party.ada.pk), str(party.bo.pk)]},
        {"kind": "danger", "sides": ["999999", "x"]},
        {"kind": "danger", "sides": [str(party.ada.pk), "npc"], "setup-level": "Basic"},
    ):
        response = gm.post(url, data, **HX)
        assert response.status_code in (200, 422), data
        assert not Contest.objects.exists(), data


def test_kin_8_each_phone_rolls_and_the_display_shows_the_results_together(
    party: Party, dice: Script
) -> None:
    open_from_console(party, party.ada, party.bo)
    contest = Contest.objects.get()
    dice(3, 3, 3)
    url = reverse("rolls:contest-roll", args=[party.table.campaign.pk, contest.pk, side(contest, 0).pk])
    assert logged_in(party.table.player).post(url, {}, **HX).status_code == 200
    display_url = reverse("rolls:display", args=[party.table.campaign.display_token])
    sealed = panel_of(logged_in(party.table.outsider).get(display_url).content.decode())
    assert "rolled, sealed" in sealed and not FACE.search(sealed)
    dice(1, 2, 4)
    url = reverse("rolls:contest-roll", args=[party.table.campaign.pk, contest.pk, side(contest, 1).pk])
    assert logged_in(party.second).post(url, {}, **HX).status_code == 200
    shown = panel_of(logged_in(party.table.outsider).get(display_url).content.decode())
    assert "Critical Success: passes the Critical Challenge" in shown
    assert "No Success: an Accident" in shown
    assert "Revealed: The Critical Danger: Ada passes; an Accident for Bo." in shown


@pytest.mark.django_db(transaction=True)
async def test_kin_8_the_bytes_of_other_sockets_hold_no_sealed_die() -> None:
    party = await database_sync_to_async(Party)()
    members = {"bo": party.second, "cy": party.third, "gm": party.table.gm, "ada": party.table.player}
    async with table_sockets(party.table.campaign, members) as sockets:
        contest = await database_sync_to_async(danger)(party, party.ada, party.bo)
        await database_sync_to_async(roll)(contest, 0, 6, 6, 5)
        received = await sockets.received(2)
        assert_sealed(
            received, secrets=[FACE], kept_from=["bo", "cy"], seen_by=["ada", "gm"], seen=['data-face="6"']
        )
        assert "rolled, sealed" in received["bo"] and "rolled, sealed" in received["cy"]

        await database_sync_to_async(roll)(contest, 1, 1, 2, 3)
        revealed = (await sockets.received(5, "cy"))["cy"]
        assert 'data-face="6"' in revealed and "an Accident for Bo" in revealed
