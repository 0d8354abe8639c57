"""Doubles flows through the pages (issue 14): an opposed roll opened on the GM's console and
rolled from two phones, its standoff and its Complication (DBL-7, DBL-9); an extended action
opened by the GM and rolled for by the party until it ends (DBL-13)."""

from __future__ import annotations

import html
from fractions import Fraction
from typing import Any

import pytest
from django.urls import reverse

from rolls.models import Contest, LogEntry, Roll
from rolls.systems import doubles
from rolls.systems.base import percent
from tabletop.models import Character
from tests.dice import Script
from tests.factories import logged_in
from tests.test_contest_views import FACE, HX, page, panel_of
from tests.test_doubles_contests import Duel


@pytest.fixture
def duel(db: None) -> Duel:
    return Duel()


def open_duel(duel: Duel, **mara: Any) -> Any:
    data = {"first": str(duel.mara.pk), "second": str(duel.bram.pk), "intent": "Arm wrestling", **mara}
    return logged_in(duel.table.gm).post(
        reverse("rolls:contest-create", args=[duel.table.campaign.pk]), data, **HX
    )


def roll_side(duel: Duel, user: Any, position: int) -> Any:
    contest = Contest.objects.get()
    side = contest.sides.get(position=position)
    url = reverse("rolls:contest-roll", args=[duel.table.campaign.pk, contest.pk, side.pk])
    return logged_in(user).post(url, {}, **HX)


def two_dice_against_two() -> Fraction:
    """DBL-4, DBL-5, DBL-7 by brute force: the chance that two dice beat two dice."""

    def result(a: int, b: int) -> int:
        return a + b if a == b and a != 1 else max(a, b)

    faces = [(a, b) for a in range(1, 7) for b in range(1, 7)]
    wins = sum(result(*x) > result(*y) for x in faces for y in faces)
    return Fraction(wins, len(faces) ** 2)


def test_dbl_7_the_phone_shows_the_exact_odds_then_a_standoff_after_the_reveal(
    duel: Duel, dice: Script
) -> None:
    assert open_duel(duel).status_code == 200
    phone = panel_of(
        page(logged_in(duel.table.player), "rolls:character", duel.table.campaign.pk, duel.mara.pk)
    )
    expected = two_dice_against_two()
    assert f"Mara's chance to win: <b>{percent(expected)}</b>" in phone and f"(exact: {expected})" in phone
    dice(3, 3)
    assert roll_side(duel, duel.table.player, 0).status_code == 200
    other = page(logged_in(duel.second), "rolls:campaign", duel.table.campaign.pk)
    assert not FACE.search(other) and "rolled, sealed" in panel_of(other)
    # Bram's player cannot roll Mara's side, nor Mara's player twice.
    assert roll_side(duel, duel.second, 0).status_code == 422
    twice = roll_side(duel, duel.table.player, 0)
    assert twice.status_code == 422 and "has rolled already" in twice.content.decode()
    dice(6, 2)
    assert roll_side(duel, duel.second, 1).status_code == 200
    panel = panel_of(page(logged_in(duel.second), "rolls:campaign", duel.table.campaign.pk))
    assert "Standoff at 6: neither Mara nor Bram beats the other." in panel
    display = page(logged_in(duel.table.gm), "rolls:display", duel.table.campaign.display_token)
    assert "Standoff at 6" in panel_of(display)


def test_dbl_7_dbl_10_dbl_11_after_the_reveal_the_phone_shows_the_chance_to_win_beside_each_follow_up(
    duel: Duel, dice: Script
) -> None:
    open_duel(duel)
    dice(4, 2)
    roll_side(duel, duel.table.player, 0)
    dice(5, 1)
    roll_side(duel, duel.second, 1)
    campaign = duel.table.campaign.pk
    states = [roll.current_state() for roll in Roll.objects.order_by("id")]
    mine = panel_of(page(logged_in(duel.table.player), "rolls:character", campaign, duel.mara.pk))
    # 4-2 against 5: one drama die wins as a 6 or a pair of fours (8): 2 in 6. Every count
    # Mara's 30 Endurance buys has its own line.
    chances = doubles.contest_drama_chances(states, 0, 6)
    assert chances[1] == Fraction(2, 6)
    for count in range(1, 7):
        noun = "die" if count == 1 else "dice"
        assert f"Buy {count} drama {noun}: <b>{percent(chances[count])}</b> to win" in mine
    assert "Buy 7 drama dice" not in mine
    assert "Ask for a miracle, if the GM approves: <b>100%</b> to win" in mine
    # Bram's phone has his own figures, winning 5 to 4 already: a drama die cannot lose it.
    theirs = panel_of(page(logged_in(duel.second), "rolls:campaign", campaign))
    assert "Buy 1 drama die: <b>100%</b> to win" in theirs and "Buy 1 drama die: <b>33%</b>" not in theirs
    assert "Approve the miracle" not in mine + theirs  # the GM's, not a player's

    # Before each follow-up: a drama die showing 1 changes nothing but what is left to buy.
    roll = Roll.objects.get(character=duel.mara)
    dice(1)
    bought = logged_in(duel.table.player).post(
        reverse("rolls:follow-up", args=[campaign, roll.pk]), {"action": "drama", "count": "1"}, **HX
    )
    assert bought.status_code == 200
    mine = panel_of(page(logged_in(duel.table.player), "rolls:character", campaign, duel.mara.pk))
    again = doubles.contest_drama_chances([Roll.objects.get(pk=roll.pk).current_state(), states[1]], 0, 5)
    assert f"Buy 1 drama die: <b>{percent(again[1])}</b> to win" in mine
    assert "Buy 5 drama dice" in mine and "Buy 6 drama dice" not in mine


def test_dbl_9_the_amazing_pc_inflicts_a_complication_from_the_panel_once_nothing_can_change(
    duel: Duel, dice: Script
) -> None:
    open_duel(duel, **{f"s{duel.mara.pk}-abilities": ["Fighting", "Athletics"]})
    dice(5, 5, 5, 2, 1)
    roll_side(duel, duel.table.player, 0)
    dice(6, 1)
    roll_side(duel, duel.second, 1)
    contest = Contest.objects.get()
    # DBL-9: while Bram's Endurance could still buy drama dice, the Complication waits.
    mine = page(logged_in(duel.table.player), "rolls:campaign", duel.table.campaign.pk)
    assert "Inflict a Complication" not in panel_of(mine)
    Character.objects.filter(pk__in=[duel.mara.pk, duel.bram.pk]).update(endurance=0)
    mine = page(logged_in(duel.table.player), "rolls:campaign", duel.table.campaign.pk)
    assert "Inflict a Complication" in panel_of(mine)
    assert "Inflict a Complication" not in panel_of(
        page(logged_in(duel.second), "rolls:campaign", duel.table.campaign.pk)
    )
    side = contest.sides.get(position=0)
    url = reverse("rolls:contest-act", args=[duel.table.campaign.pk, contest.pk, side.pk])
    refused = logged_in(duel.second).post(url, {"action": "complication", "complication": "x"}, **HX)
    assert refused.status_code == 422 and "Only Mara's player" in html.unescape(refused.content.decode())
    done = logged_in(duel.table.player).post(url, {"action": "complication", "complication": "a limp"}, **HX)
    assert done.status_code == 200
    assert "Mara inflicts a Complication on Bram: a limp." in html.unescape(done.content.decode())
    assert LogEntry.objects.filter(action="contest-step").count() == 1


def test_dbl_13_the_gm_opens_an_extended_action_and_the_party_rolls_until_it_ends(
    duel: Duel, dice: Script
) -> None:
    campaign = duel.table.campaign.pk
    gm = logged_in(duel.table.gm)
    console = page(gm, "rolls:session", campaign)
    assert "Open the extended action" in console
    bad = gm.post(
        reverse("rolls:extended-create", args=[campaign]),
        {"dn": "7", "successes": "2", "failures": "1"},
        **HX,
    )
    assert bad.status_code == 422 and not Contest.objects.exists()
    made = gm.post(
        reverse("rolls:extended-create", args=[campaign]),
        {"dn": "6", "successes": "2", "failures": "1", "intent": "Climb the tower"},
        **HX,
    )
    assert made.status_code == 200
    contest = Contest.objects.get()
    phone = panel_of(page(logged_in(duel.table.player), "rolls:campaign", campaign))
    assert "Roll Mara for it" in phone and "Roll Bram for it" not in phone
    # Two dice against Challenging (6), two successes before one failure: P(success)^2.
    per_roll = Fraction(3, 36)  # only a pair of fours, fives or sixes (8, 10, 12) beats 6
    assert f"(exact: {per_roll**2})" in phone

    def roll(user: Any, character: Any, *faces: int) -> Any:
        dice(*faces)
        url = reverse("rolls:extended-roll", args=[campaign, contest.pk, character.pk])
        return logged_in(user).post(url, {}, **HX)

    assert roll(duel.second, duel.mara, 6, 6).status_code == 403  # not Bram's player's character
    assert roll(duel.table.player, duel.mara, 5, 5).status_code == 200
    assert roll(duel.second, duel.bram, 6, 6).status_code == 200
    panel = panel_of(page(logged_in(duel.second), "rolls:campaign", campaign))
    assert "2 / 2" in panel and "Won: the GM settles it" in panel and "Roll Bram for it" not in panel
    late = roll(duel.table.player, duel.mara, 6, 6)
    assert late.status_code == 422 and "is won" in late.content.decode()
    gm.post(reverse("rolls:contest-close", args=[campaign, contest.pk]), {}, **HX)
    assert Contest.objects.get().verdict == "The extended action is won: 2 of 2 successes, 0 of 1 failures."
    assert Roll.objects.count() == 2


def test_dbl_9_after_the_gms_settle_the_panel_offers_the_complication_to_the_amazing_pc_alone(
    duel: Duel, dice: Script
) -> None:
    """DBL-9: Bram could still buy drama dice, so the Complication waits; the GM settles, the
    follow-ups end, and Mara's panel offers the step (Bram's does not) until she names it."""
    open_duel(duel, **{f"s{duel.mara.pk}-abilities": ["Fighting", "Athletics"]})
    dice(5, 5, 5, 2, 1)
    roll_side(duel, duel.table.player, 0)
    dice(6, 1)
    roll_side(duel, duel.second, 1)
    contest = Contest.objects.get()
    campaign = duel.table.campaign.pk
    assert "Inflict a Complication" not in panel_of(
        page(logged_in(duel.table.player), "rolls:campaign", campaign)
    )
    bram_phone = reverse("rolls:character", args=[campaign, duel.bram.pk])
    assert "Buy drama dice" in logged_in(duel.second).get(bram_phone).content.decode()
    gm = logged_in(duel.table.gm)
    assert gm.post(reverse("rolls:contest-close", args=[campaign, contest.pk]), {}, **HX).status_code == 200
    # The settle ends the follow-ups: Bram's card offers no more drama dice.
    assert "Buy drama dice" not in logged_in(duel.second).get(bram_phone).content.decode()
    mine = panel_of(page(logged_in(duel.table.player), "rolls:campaign", campaign))
    assert "Inflict a Complication" in mine and "Settled by the GM" in mine and "The rolls are final." in mine
    assert "Inflict a Complication" not in panel_of(page(logged_in(duel.second), "rolls:campaign", campaign))
    side = contest.sides.get(position=0)
    url = reverse("rolls:contest-act", args=[campaign, contest.pk, side.pk])
    done = logged_in(duel.table.player).post(url, {"action": "complication", "complication": "a limp"}, **HX)
    assert done.status_code == 200
    contest.refresh_from_db()
    assert contest.verdict.endswith("Mara inflicts a Complication on Bram: a limp.")
    # Named: the settled contest leaves the panel, and a second try is refused.
    assert "Inflict a Complication" not in panel_of(
        page(logged_in(duel.table.player), "rolls:campaign", campaign)
    )
    again = logged_in(duel.table.player).post(url, {"action": "complication", "complication": "x"}, **HX)
    assert again.status_code == 422


def settled_with_amazing_mara(duel: Duel, dice: Script) -> Contest:
    """Mara rolls an Amazing Success, Bram an ordinary result, and the GM settles it."""
    open_duel(duel, **{f"s{duel.mara.pk}-abilities": ["Fighting", "Athletics"]})
    dice(5, 5, 5, 2, 1)
    roll_side(duel, duel.table.player, 0)
    dice(6, 1)
    roll_side(duel, duel.second, 1)
    contest = Contest.objects.get()
    close = reverse("rolls:contest-close", args=[duel.table.campaign.pk, contest.pk])
    assert logged_in(duel.table.gm).post(close, {}, **HX).status_code == 200
    return contest


@pytest.mark.parametrize("who", ["player", "gm"])
def test_dbl_9_no_complication_declined_by_the_pc_or_dismissed_by_the_gm_is_logged_and_the_contest_leaves_the_panel(
    duel: Duel, dice: Script, who: str
) -> None:
    """DBL-9: inflicting the Complication is the amazing PC's choice: "No Complication" on her
    phone, or the GM's dismissal on the console, is logged once and the settled contest leaves
    every panel. Bram, who rolled no Amazing Success, may not decline it for her."""
    contest = settled_with_amazing_mara(duel, dice)
    campaign = duel.table.campaign.pk
    gm_console = panel_of(page(logged_in(duel.table.gm), "rolls:session", campaign))
    assert "No Complication" in gm_console and "Inflict a Complication" not in gm_console
    assert "No Complication" in panel_of(page(logged_in(duel.table.player), "rolls:campaign", campaign))
    side = contest.sides.get(position=0)
    url = reverse("rolls:contest-act", args=[campaign, contest.pk, side.pk])
    refused = logged_in(duel.second).post(url, {"action": "no_complication"}, **HX)
    assert refused.status_code == 422
    user = duel.table.player if who == "player" else duel.table.gm
    assert logged_in(user).post(url, {"action": "no_complication"}, **HX).status_code == 200
    assert LogEntry.objects.filter(text="No Complication: Mara inflicts none on Bram.").count() == 1
    contest.refresh_from_db()
    assert contest.verdict.endswith("Amazing Success: Mara inflicts no Complication on Bram.")
    for viewer, name in ((duel.table.player, "rolls:campaign"), (duel.table.gm, "rolls:session")):
        assert f'id="contest-{contest.pk}"' not in panel_of(page(logged_in(viewer), name, campaign))
    # Once only: neither a Complication nor a second refusal after it.
    late = logged_in(duel.table.player).post(url, {"action": "complication", "complication": "a limp"}, **HX)
    assert late.status_code == 422


def cli_contest(net: int, other: int) -> dict[str, str]:
    import json
    from io import StringIO

    from django.core.management import call_command

    out = StringIO()
    call_command(
        "odds", "doubles", "--dice", str(net), "--against", "--dice", str(other), "--json", stdout=out
    )
    exact: dict[str, str] = json.loads(out.getvalue())["contest_exact"]
    return exact


@pytest.mark.parametrize("mara_first", [True, False])
def test_dbl_7_the_phones_show_the_odds_the_command_line_prints_for_either_side(
    duel: Duel, mara_first: bool
) -> None:
    """DBL-7, DBL-15: each phone's chance to win, and of a standoff, is ``manage.py odds doubles
    --dice A --against --dice B`` with its own pool first, whichever side the GM listed first."""
    from rolls import registry

    order = [duel.mara, duel.bram] if mara_first else [duel.bram, duel.mara]
    data = {
        "first": str(order[0].pk),
        "second": str(order[1].pk),
        "intent": "Arm wrestling",
        f"s{duel.mara.pk}-abilities": ["Fighting", "Athletics"],
    }
    url = reverse("rolls:contest-create", args=[duel.table.campaign.pk])
    assert logged_in(duel.table.gm).post(url, data, **HX).status_code == 200
    contest = Contest.objects.get()
    nets = {}
    for character in (duel.mara, duel.bram):
        request, _ = registry.table("doubles").pool(character, contest.sides.get(character=character).data)
        nets[character.name] = registry.engine("doubles").parse_request(request).net
    assert nets == {"Mara": 5, "Bram": 2}
    for name, user, other in (("Mara", duel.table.player, "Bram"), ("Bram", duel.second, "Mara")):
        exact = cli_contest(nets[name], nets[other])
        phone = panel_of(page(logged_in(user), "rolls:campaign", duel.table.campaign.pk))
        assert f"{name}'s chance to win: <b>{percent(Fraction(exact['win']))}</b>" in phone
        assert f"a tie: {percent(Fraction(exact['tie']))}" in phone and f"(exact: {exact['win']})" in phone
