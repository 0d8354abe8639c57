"""A contest's verdict freezes its rolls, in every system (issue 42): once the GM has settled a
contest, or called it off, no follow-up on a side's roll is accepted, through the test client,
after a reload: every button a side (or the GM, or the other side's player) was offered before
the verdict is gone from every page, and posting it anyway is refused with a clear message,
nothing spent and nothing written. Each contest is played through the services with scripted
dice, then the screens are asked as the players would."""

from __future__ import annotations

import html
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from django.db import connection
from django.forms.models import model_to_dict
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from rolls import registry
from rolls.contests import services as contests
from rolls.contests.sides import Side
from rolls.models import Contest, LogEntry, Roll
from rolls.play import services as play
from rolls.sight.cards import build_card
from tabletop.models import Character, Membership
from tests.dice import ScriptedDice
from tests.factories import logged_in
from tests.test_contests import ROLL as STARS_ROLL
from tests.test_contests import Pair as StarsPair
from tests.test_contests_sets import Pair as SetsPair
from tests.test_contests_sets import bid as sets_bid
from tests.test_contests_sets import duel as sets_duel
from tests.test_contests_sets import roll as sets_roll
from tests.test_doubles_contests import PLAIN, Duel, an_action, contribute, opposed, roll_both
from tests.test_kinds_danger import Party, danger
from tests.test_kinds_danger import roll as danger_roll
from tests.test_sixes_contests import Kids, versus
from tests.test_sixes_contests import roll as kid_roll
from tests.test_sixes_plan import plan
from tests.test_sixes_plan import roll as part_roll

HTMX = {"HTTP_HX_REQUEST": "true"}


@dataclass(frozen=True)
class Offer:
    """A follow-up a member was offered on a contest's roll before the verdict."""

    user: Any
    roll: Roll
    action: str
    params: dict[str, Any]


def _default(param: Any) -> Any:
    if param.text:
        return "x"
    if param.multiple:
        return [str(param.choices[0])] if param.choices else []
    if param.choices:
        return param.choices[0]
    return param.minimum


def offers(contest: Contest) -> list[Offer]:
    """Every follow-up button each member of the table sees on each side's roll now, at every
    place a card is acted on."""
    found = []
    rolls = [side.roll for side in contest.sides.select_related("roll") if side.roll is not None]
    for membership in Membership.objects.filter(campaign_id=contest.campaign_id).select_related("user"):
        for roll in rolls:
            roll = Roll.objects.select_related("character", "target", "campaign").get(pk=roll.pk)
            entry = roll.entries.order_by("-seq").first()
            assert entry is not None
            for place in ("result", "against", "gm"):
                card = build_card(roll, entry.state or {}, entry.seq, place=place, membership=membership)
                for button in card.follow_ups:
                    params = {p.name: _default(p) for p in button.follow_up.params}
                    found.append(Offer(membership.user, roll, button.action, params))
    return found


def steps(contest: Contest) -> list[tuple[Any, int, str]]:
    """Every contest step (besides rolling) a side may take now: (its player, side, action)."""
    adapter = registry.table(contest.system)
    sides = list(contest.sides.select_related("roll", "character").order_by("position"))
    found = []
    for side in sides:
        for step in adapter.contest_steps(contest, side, sides):
            user = side.character.owner if side.character is not None else contest.opened_by
            found.append((user, side.pk, step.action))
    return found


def snapshot(contest: Contest) -> tuple[int, list[dict[str, Any]]]:
    """The log's length and every character's sheet and spendings: what a refusal leaves."""
    characters = Character.objects.filter(campaign_id=contest.campaign_id).order_by("pk")
    return LogEntry.objects.filter(campaign_id=contest.campaign_id).count(), [
        model_to_dict(character) for character in characters
    ]


def pages(contest: Contest) -> Iterable[str]:
    """Every page a member of the table reloads: the campaign page, each character's roll
    screen, each contest roll's own page, the GM's console."""
    campaign = contest.campaign_id
    rolls = [side.roll_id for side in contest.sides.all() if side.roll_id is not None]
    for membership in Membership.objects.filter(campaign_id=campaign).select_related("user"):
        client = logged_in(membership.user)
        urls = [reverse("rolls:campaign", args=[campaign])]
        if membership.is_gm:
            urls.append(reverse("rolls:session", args=[campaign]))
        for character in Character.objects.filter(campaign_id=campaign):
            if membership.is_gm or character.owner_id == membership.user_id:
                urls.append(reverse("rolls:character", args=[campaign, character.pk]))
        urls += [reverse("rolls:roll", args=[campaign, roll]) for roll in rolls]
        for url in urls:
            response = client.get(url)
            assert response.status_code == 200, url
            yield html.unescape(response.content.decode())


def follow_up_urls(contest: Contest) -> list[str]:
    return [
        reverse("rolls:follow-up", args=[contest.campaign_id, side.roll_id])
        for side in contest.sides.all()
        if side.roll_id is not None
    ]


def frozen_after(contest: Contest, verdict: Callable[[Contest], object], refusal: str) -> None:
    """What each member may do on the contest's rolls now, then ``verdict``; after it, a reload
    offers none of it and every post of it is refused with ``refusal``, changing nothing."""
    offered = offers(contest)
    stepped = steps(contest)
    urls = follow_up_urls(contest)
    before = "".join(pages(contest))
    assert offered or stepped, "the test needs something to try"
    assert not offered or any(f'action="{url}"' in before for url in urls), "a button to lose"
    verdict(contest)
    after = "".join(pages(contest))
    for url in urls:
        assert f'action="{url}"' not in after
    settled = snapshot(contest)
    clients: dict[int, Client] = {}
    for offer in offered:
        client = clients.setdefault(offer.user.pk, logged_in(offer.user))
        url = reverse("rolls:follow-up", args=[contest.campaign_id, offer.roll.pk])
        response = client.post(url, {"action": offer.action, "place": "result", **offer.params}, **HTMX)
        assert response.status_code < 500
        assert refusal in html.unescape(response.content.decode()), (offer.action, response.content)
        assert snapshot(contest) == settled, offer.action
    for user, side_id, action in stepped:
        client = clients.setdefault(user.pk, logged_in(user))
        url = reverse("rolls:contest-act", args=[contest.campaign_id, contest.pk, side_id])
        response = client.post(url, {"action": action}, **HTMX)
        assert response.status_code < 500
        assert snapshot(contest) == settled, action


def settle(gm: Any) -> Callable[[Contest], object]:
    def settled(contest: Contest) -> object:
        closed = contests.contest_close(contest=contest, gm=gm)
        # The log's last word on the contest is the verdict stored with it, and stays so.
        end = LogEntry.objects.filter(campaign_id=contest.campaign_id, action="contest-end").last()
        assert end is not None and end.text == closed.verdict
        return closed

    return settled


def call_off(gm: Any) -> Callable[[Contest], object]:
    return lambda contest: contests.contest_cancel(contest=contest, gm=gm)


SETTLED = "The GM settled this contest"
CALLED_OFF = "The GM called this contest off"


def test_six_18_a_settled_kid_versus_kid_takes_no_push_luck_or_pride_on_either_side(db: None) -> None:
    kids = Kids()
    contest = versus(kids, kids.olle, kids.kim)
    kid_roll(kids, contest, 0, 6, 2, 1)
    kid_roll(kids, contest, 1, 3, 2, 1)
    frozen_after(contest, settle(kids.table.gm), SETTLED)


def test_six_20_a_settled_plan_takes_no_follow_up_on_any_part(db: None) -> None:
    kids = Kids()
    contest = plan(kids, kids.olle, kids.kim, parts="sneak in; grab it")
    part_roll(kids, contest, 0, 6, 2, 1)
    part_roll(kids, contest, 1, 3, 2, 1)
    frozen_after(contest, settle(kids.table.gm), SETTLED)


def test_kin_8_a_settled_danger_takes_no_step(db: None) -> None:
    party = Party()
    contest = danger(party, party.ada, party.bo)
    danger_roll(contest, 0, 6, 6, 5)
    danger_roll(contest, 1, 1, 1, 2)
    stepped = steps(contest)
    settled = settle(party.table.gm)(contest)
    assert settled
    before = snapshot(contest)
    for user, side_id, action in stepped:
        url = reverse("rolls:contest-act", args=[contest.campaign_id, contest.pk, side_id])
        assert logged_in(user).post(url, {"action": action}, **HTMX).status_code < 500
    assert snapshot(contest) == before
    # Kinds has no follow-ups: nothing on any page to take back.
    assert not offers(contest)


def test_dbl_7_a_settled_opposed_roll_takes_no_drama_dice_on_either_side(db: None) -> None:
    duel = Duel()
    contest = opposed(duel)
    roll_both(duel, contest, (4, 2), (5, 1))
    frozen_after(contest, settle(duel.table.gm), SETTLED)


def test_dbl_13_a_settled_extended_action_takes_no_drama_dice(db: None) -> None:
    duel = Duel()
    contest = an_action(duel, successes=2, failures=2)
    contribute(duel, contest, "mara", 3, 2)
    contribute(duel, contest, "bram", 6, 6)
    frozen_after(contest, settle(duel.table.gm), SETTLED)


def test_set_4_a_duel_settled_before_the_bids_takes_no_bid(db: None) -> None:
    pair = SetsPair()
    contest = sets_duel(pair)
    sets_roll(contest, 0, pair.table.player, 4, 4, 2)
    sets_roll(contest, 1, pair.second, 6, 6, 1)
    # Sealed bids are the duel's only moves after rolling (SET-4): Ada has bid, Bo not yet.
    sets_bid(contest, 0, pair.table.player, [0, 1])
    frozen_after(contest, settle(pair.table.gm), SETTLED)


def stars_contest(pair: StarsPair) -> Contest:
    contest = contests.contest_open(
        campaign=pair.table.campaign,
        opener=pair.table.gm,
        sides=[Side(pair.dave, STARS_ROLL), Side(pair.eve, STARS_ROLL)],
        intent="the last rope",
    )
    for position, user in ((0, pair.table.player), (1, pair.second)):
        contests.contest_roll(
            side=contest.sides.get(position=position), user=user, rng=ScriptedDice(1, 2, 3), is_gm=False
        )
    return contest


def test_str_9_a_settled_contest_takes_no_luck_for_or_against_either_side(db: None) -> None:
    pair = StarsPair()
    frozen_after(stars_contest(pair), settle(pair.table.gm), SETTLED)


def test_str_9_a_contest_called_off_takes_no_luck_for_or_against_either_side(db: None) -> None:
    pair = StarsPair()
    frozen_after(stars_contest(pair), call_off(pair.table.gm), CALLED_OFF)


def test_dbl_13_an_extended_action_called_off_takes_no_drama_dice(db: None) -> None:
    duel = Duel()
    contest = an_action(duel, successes=3, failures=3)
    contribute(duel, contest, "mara", 3, 2)
    frozen_after(contest, call_off(duel.table.gm), CALLED_OFF)


def test_a_frozen_verdict_is_the_logs_last_word(db: None) -> None:
    """After the refusals, the stored verdict and the log's contest-end still agree (the old
    behaviour: "Kim wins, 1 to 0" stayed after Ann pushed to three sixes)."""
    kids = Kids()
    contest = versus(kids, kids.olle, kids.kim)
    kid_roll(kids, contest, 0, 6, 2, 1)
    kid_roll(kids, contest, 1, 3, 2, 1)
    closed = contests.contest_close(contest=contest, gm=kids.table.gm)
    olle = contest.sides.get(position=0).roll
    client = logged_in(kids.table.player)
    url = reverse("rolls:follow-up", args=[contest.campaign_id, olle.pk])
    client.post(url, {"action": "push", "place": "result"}, **HTMX)
    assert Contest.objects.get(pk=contest.pk).verdict == closed.verdict
    assert (
        LogEntry.objects.filter(roll=olle).count()
        == 1 + LogEntry.objects.filter(roll=olle, action="contest-reveal").count()
    )


def test_dbl_13_a_settled_extended_actions_cards_say_the_verdict(db: None) -> None:
    """DBL-13: each roll of an extended action is an open roll; once the GM settles the action,
    every card of it (on the roller's screen and in the table's feed) says how the action
    ended, as a settled contest's sealed sides do, not only how that one roll went."""
    duel = Duel()
    contest = an_action(duel, successes=2, failures=2)
    contribute(duel, contest, "mara", 3, 2)
    contribute(duel, contest, "bram", 6, 6)
    rolls = [side.roll for side in contest.sides.select_related("roll") if side.roll is not None]
    assert rolls

    def lines() -> list[str]:
        found = []
        for roll in rolls:
            roll = Roll.objects.select_related("character", "target", "campaign").get(pk=roll.pk)
            entry = roll.entries.order_by("-seq").first()
            assert entry is not None
            for place in ("result", "feed"):
                found.append(build_card(roll, entry.state or {}, entry.seq, place=place).verdict_line)
        return found

    assert set(lines()) == {""}
    closed = contests.contest_close(contest=contest, gm=duel.table.gm)
    assert closed.verdict.startswith("The extended action ")
    assert set(lines()) == {f"Settled: {closed.verdict}"}


def test_a_plain_doubles_roll_reads_no_contest_and_an_extended_rolls_card_reads_its_verdict(db: None) -> None:
    """Only a roll made for a contest or a flow (``Roll.contested``) has its contest read: a
    plain doubles roll's cards, buttons included, cost no read of the contest tables, where
    every doubles roll once paid four (an open roll may be an extended action's)."""
    duel = Duel()
    plain = play.roll_create(
        character=duel.mara,
        roller=duel.table.player,
        data={**PLAIN, "dn": "6"},
        helper=None,
        intent="",
        rng=ScriptedDice(3, 2),
    )
    membership = Membership.objects.get(campaign=duel.table.campaign, user=duel.table.player)
    with CaptureQueriesContext(connection) as queries:
        card = build_card(plain, plain.current_state(), 1, place="result", membership=membership, latest=True)
    assert card.follow_ups  # drama dice on offer: the buttons were asked for
    assert not [query for query in queries if "rolls_contest" in query["sql"]]
    assert not plain.contested

    action = an_action(duel, successes=1, failures=1)
    rolled = contribute(duel, action, "mara", 5, 5)  # 10 beats 6: the action is won
    assert rolled.contested
    contests.contest_close(contest=action, gm=duel.table.gm)
    card = build_card(rolled, rolled.current_state(), 1, place="feed")
    assert card.verdict_line.startswith("Settled: The extended action is won")
