"""A contested `sets` roll through the pages (SET-4): the GM's console opens it, each phone
rolls, sees what to do now with the exact odds, bids from its own dice in secret, and the
panel of every other page shows only that a bid was made until both are in."""

from __future__ import annotations

import html
import itertools
from collections import Counter
from fractions import Fraction
from typing import Any

import pytest
from django.urls import reverse

from rolls.models import Contest
from rolls.systems.base import percent
from tests.dice import Script
from tests.factories import logged_in
from tests.test_contest_views import HX, page, panel_of
from tests.test_contests_sets import Pair

SIDE_FIELDS = {
    "stat": "Finesse",
    "bar": "opposed",
    "face": "rolled",
    "side": "attacker",
    "bonus": "0",
    "penalty": "0",
}


@pytest.fixture
def pair(db: None) -> Pair:
    return Pair()


def best(faces: tuple[int, ...]) -> tuple[int, int]:
    """Every set together, by hand: (Size, Face), (0, 0) for no set."""
    sets = {face: n for face, n in Counter(faces).items() if n >= 2}
    if not sets:
        return (0, 0)
    return (max(sets.values()) + len(sets) - 1, min(sets))


def attacker_wins(mine: tuple[int, int], theirs: tuple[int, int]) -> bool:
    return mine >= theirs  # Size, then Face; ties (and no set against no set) to the attacker


def chance_to_win(mine: int, theirs: int) -> Fraction:
    """SET-4 by brute force over every face, each side bidding its best set, ties to the attacker."""
    wins = total = 0
    for a in itertools.product(range(1, 7), repeat=mine):
        for b in itertools.product(range(1, 7), repeat=theirs):
            total += 1
            wins += attacker_wins(best(a), best(b))
    return Fraction(wins, total)


def bid_chance(bid: tuple[int, int], theirs: int, *, attacker: bool) -> Fraction:
    wins = total = 0
    for b in itertools.product(range(1, 7), repeat=theirs):
        total += 1
        wins += attacker_wins(bid, best(b)) if attacker else not attacker_wins(best(b), bid)
    return Fraction(wins, total)


def open_duel(pair: Pair) -> Any:
    data: dict[str, str] = {"first": str(pair.ada.pk), "second": str(pair.bo.pk), "intent": "A duel"}
    for character in (pair.ada, pair.bo):
        data |= {f"s{character.pk}-{key}": value for key, value in SIDE_FIELDS.items()}
    return logged_in(pair.table.gm).post(
        reverse("rolls:contest-create", args=[pair.table.campaign.pk]), data, **HX
    )


def act(pair: Pair, user: Any, position: int, action: str, **fields: Any) -> Any:
    contest = Contest.objects.get()
    side = contest.sides.get(position=position)
    verb = "contest-roll" if action == "roll" else "contest-act"
    url = reverse(f"rolls:{verb}", args=[pair.table.campaign.pk, contest.pk, side.pk])
    data = fields if action == "roll" else {"action": action, **fields}
    return logged_in(user).post(url, data, **HX)


def phone(pair: Pair, user: Any, character: Any) -> str:
    return panel_of(page(logged_in(user), "rolls:character", pair.table.campaign.pk, character.pk))


def test_set_4_the_phone_shows_what_to_do_with_exact_odds_and_bids_stay_sealed(
    pair: Pair, dice: Script
) -> None:
    assert open_duel(pair).status_code == 200
    mine = phone(pair, pair.table.player, pair.ada)
    expected = chance_to_win(3, 3)
    assert "Ada's chance to win" in mine and f"(exact: {expected})" in mine
    assert "attacks: wins a tie" in mine and "Roll Finesse" in mine

    dice(4, 4, 2)
    assert act(pair, pair.table.player, 0, "roll").status_code == 200
    mine = phone(pair, pair.table.player, pair.ada)
    # What to do now: bid, with each bid's exact chance against Bo's three sealed dice.
    assert "Now choose your bid, in secret" in mine
    assert (
        f'Bid 2x4 <small class="odds-tag">wins {percent(bid_chance((2, 4), 3, attacker=True))}</small>'
        in mine
    )

    dice(1, 2, 3)
    act(pair, pair.second, 1, "roll")
    theirs = phone(pair, pair.second, pair.bo)
    assert "No two dice match: you have no set" in theirs
    assert (
        f"Your chance to win with no set: <b>{percent(bid_chance((0, 0), 3, attacker=False))}</b>" in theirs
    )

    assert act(pair, pair.table.player, 0, "bid", dice=["0", "1"]).status_code == 200
    # Ada and the GM see the sealed bid; Bo and the display only that a bid was made.
    assert "bid 2x4, sealed" in phone(pair, pair.table.player, pair.ada)
    gm = panel_of(page(logged_in(pair.table.gm), "rolls:session", pair.table.campaign.pk))
    assert "bid 2x4, sealed" in gm
    theirs = phone(pair, pair.second, pair.bo)
    assert "2x4" not in theirs and "has bid, sealed" in theirs

    # Refused with a message next to the button, nothing changed: twice, the other side's.
    again = act(pair, pair.table.player, 0, "bid", dice=["0", "1"])
    assert again.status_code == 422 and "not a step this side may take" in again.content.decode()
    other = act(pair, pair.table.player, 1, "no_set")
    assert other.status_code == 422 and "Only Bo's player" in html.unescape(other.content.decode())

    assert act(pair, pair.second, 1, "no_set").status_code == 200
    contest = Contest.objects.get()
    assert contest.state == Contest.State.REVEALED
    theirs = html.unescape(phone(pair, pair.second, pair.bo))
    assert "Bid 2x4 wins against none" in theirs and "No set loses to 2x4" in theirs


def test_a_bid_without_htmx_redirects_with_a_message(pair: Pair, dice: Script) -> None:
    open_duel(pair)
    dice(4, 4, 2)
    act(pair, pair.table.player, 0, "roll")
    contest = Contest.objects.get()
    side = contest.sides.get(position=0)
    url = reverse("rolls:contest-act", args=[pair.table.campaign.pk, contest.pk, side.pk])
    answer = logged_in(pair.table.player).post(url, {"action": "bid", "dice": ["0", "2"]})
    assert answer.status_code == 302
    assert "bid" not in Contest.objects.get().sides.get(position=0).extra


def test_set_10_critical_hits_in_turn_on_the_phones_and_the_display(pair: Pair, dice: Script) -> None:
    SIDE_FIELDS["bonus"] = "2"
    try:
        assert open_duel(pair).status_code == 200
    finally:
        SIDE_FIELDS["bonus"] = "0"
    dice(4, 4, 6, 6, 1)
    act(pair, pair.table.player, 0, "roll")
    dice(3, 3, 5, 5, 1)
    act(pair, pair.second, 1, "roll")
    act(pair, pair.table.player, 0, "bid", dice=["0", "1"])
    act(pair, pair.second, 1, "bid", dice=["0", "1"])
    # Ada won: her phone offers a critical hit from her unspent set; Bo's phone only says so.
    mine = phone(pair, pair.table.player, pair.ada)
    assert "Spend a critical hit" in mine and 'name="dice" value="2"' in mine
    theirs = phone(pair, pair.second, pair.bo)
    assert "Won: spends critical hits first" in theirs and "Spend a critical hit" not in theirs
    early = act(pair, pair.second, 1, "let_through")
    assert early.status_code == 422 and "not a step this side may take" in early.content.decode()

    assert act(pair, pair.table.player, 0, "critical_hit", dice=["2", "3"]).status_code == 200
    assert act(pair, pair.table.player, 0, "hits_done").status_code == 200
    theirs = phone(pair, pair.second, pair.bo)
    assert (
        "Answer the critical hit 2x6" in theirs
        and 'Critical hit 2x6: <span class="muted">to answer' in theirs
    )
    assert act(pair, pair.second, 1, "critical_answer", dice=["2", "3"]).status_code == 200

    display = page(logged_in(pair.second), "rolls:display", pair.table.campaign.display_token)
    panel = html.unescape(panel_of(display))
    assert "Critical hit 2x6 against 2x5: <b>one more damage</b>" in panel
    assert "Critical hits: 1 more damage (1 of 1 got through)." in panel
    assert "<form" not in display and "<button" not in display
    # The history draws the sets spent on each roll and the steps' lines.
    history = html.unescape(page(logged_in(pair.second), "rolls:history", pair.table.campaign.pk))
    assert "Critical hit: spent 2x6" in history and "Against a critical hit: spent 2x5" in history


def contest_form(pair: Pair) -> str:
    text = page(logged_in(pair.table.gm), "rolls:session", pair.table.campaign.pk)
    start = text.index('id="contest-form"')
    return text[start : text.index("</form>", start)]


def test_set_4_the_console_form_asks_no_bar_nor_side_and_blocks_nothing_in_the_browser(
    pair: Pair, dice: Script
) -> None:
    form = contest_form(pair)
    # A contest bids against the other side, the first side attacking: no Bar, no Face, no
    # attacker/defender, for a character or for someone without a sheet.
    prefix = f"s{pair.ada.pk}-"
    assert f'name="{prefix}stat"' in form and f'name="{prefix}bonus"' in form
    for name in (f"{prefix}bar", f"{prefix}face", f"{prefix}side", "npc-flag_bar_0", "npc-flag_defender"):
        assert f'name="{name}"' not in form
    assert 'name="npc-flag_dice"' in form
    # Nothing required in the browser: the side without a sheet may be left empty when both
    # sides are characters.
    assert " required" not in form
    data = {
        "first": str(pair.ada.pk),
        "second": str(pair.bo.pk),
        "intent": "A duel",
        "npc-name": "",
        "npc-flag_dice": "",
    }
    for character in (pair.ada, pair.bo):
        data |= {
            f"s{character.pk}-stat": "Finesse",
            f"s{character.pk}-bonus": "0",
            f"s{character.pk}-penalty": "0",
        }
    url = reverse("rolls:contest-create", args=[pair.table.campaign.pk])
    assert logged_in(pair.table.gm).post(url, data, **HX).status_code == 200
    contest = Contest.objects.get()
    assert [side.data["bar"] for side in contest.sides.order_by("position")] == ["opposed", "opposed"]
    # The server still checks the side without a sheet when it is chosen.
    refused = logged_in(pair.table.gm).post(url, {**data, "second": "npc"}, **HX)
    assert refused.status_code == 422 and "For the side without a sheet" in html.unescape(
        refused.content.decode()
    )
    # A Bar or a defender sent anyway is ignored: the guard is a plain opposed side.
    opened = logged_in(pair.table.gm).post(
        url,
        {
            **data,
            "second": "npc",
            "npc-name": "The guard",
            "npc-flag_dice": "4",
            "npc-flag_bar_0": "master",
            "npc-flag_bar_1": "6",
            "npc-flag_defender": "on",
        },
        **HX,
    )
    assert opened.status_code == 200
    guard = Contest.objects.order_by("-pk").first().sides.get(position=1)
    # The flag is ignored: the role is the GM's choice of attacker, the first side by default.
    assert guard.data["bar_size"] is None and guard.data["attacker"] is False


def test_set_4_the_panel_and_the_verdict_say_the_bids_in_the_same_words(pair: Pair, dice: Script) -> None:
    """SET-4: once both bids are revealed, every panel's line says who bid what and who wins,
    in the words the GM's verdict then keeps (one hook, ``TableAdapter.contest_verdict``)."""
    assert open_duel(pair).status_code == 200
    dice(4, 4, 1)
    act(pair, pair.table.player, 0, "roll")
    dice(3, 3, 1)
    act(pair, pair.second, 1, "roll")
    act(pair, pair.table.player, 0, "bid", dice=["0", "1"])
    act(pair, pair.second, 1, "bid", dice=["0", "1"])
    words = "Ada (attacking) bid 2x4, Bo bid 2x3. Ada wins: equal Sizes, the higher Face wins."
    display = html.unescape(page(logged_in(pair.second), "rolls:display", pair.table.campaign.display_token))
    assert f'<p class="contest-phase">Revealed: {words} Follow-ups' in display
    contest = Contest.objects.get()
    url = reverse("rolls:contest-close", args=[pair.table.campaign.pk, contest.pk])
    assert logged_in(pair.table.gm).post(url, {}, **HX).status_code == 200
    assert Contest.objects.get().verdict == words


def cli_contest(*args: str) -> dict[str, Fraction]:
    import io
    import json

    from django.core.management import call_command

    out = io.StringIO()
    call_command("odds", "sets", *args, "--json", stdout=out)
    return {key: Fraction(value) for key, value in json.loads(out.getvalue())["contest_exact"].items()}


def test_set_4_the_gm_names_the_second_side_attacker_and_the_phones_odds_match_the_command_line(
    pair: Pair, dice: Script
) -> None:
    """SET-4: the GM's form names Bo (second) the attacker: Ada's phone says she defends, and
    both phones' odds are ``manage.py odds`` for the same sides, in either order; Bo's bid
    chances count ties for him."""
    data: dict[str, str] = {
        "first": str(pair.ada.pk),
        "second": str(pair.bo.pk),
        "attacker": "second",
        "intent": "",
    }
    data |= {f"s{pair.ada.pk}-{key}": value for key, value in {**SIDE_FIELDS, "bonus": "2"}.items()}
    data |= {f"s{pair.bo.pk}-{key}": value for key, value in SIDE_FIELDS.items()}
    url = reverse("rolls:contest-create", args=[pair.table.campaign.pk])
    assert logged_in(pair.table.gm).post(url, data, **HX).status_code == 200
    ada, bo = phone(pair, pair.table.player, pair.ada), phone(pair, pair.second, pair.bo)
    assert "defends" in ada and "attacks: wins a tie" in bo
    one_way = cli_contest("--dice", "5", "--defender", "--against", "--dice", "3")
    other_way = cli_contest("--dice", "3", "--against", "--dice", "5", "--defender")
    assert one_way["win"] == other_way["lose"] and one_way["win"] + one_way["lose"] == 1
    assert f"(exact: {one_way['win']})" in ada
    assert f"(exact: {other_way['win']})" in bo
    dice(4, 4, 2)
    act(pair, pair.second, 1, "roll")
    bo = phone(pair, pair.second, pair.bo)
    assert (
        f'Bid 2x4 <small class="odds-tag">wins {percent(bid_chance((2, 4), 5, attacker=True))}</small>' in bo
    )


def test_set_4_a_bad_attacker_is_refused_and_opens_nothing(pair: Pair) -> None:
    data: dict[str, str] = {"first": str(pair.ada.pk), "second": str(pair.bo.pk), "attacker": "both"}
    for character in (pair.ada, pair.bo):
        data |= {f"s{character.pk}-{key}": value for key, value in SIDE_FIELDS.items()}
    url = reverse("rolls:contest-create", args=[pair.table.campaign.pk])
    refused = logged_in(pair.table.gm).post(url, data, **HX)
    assert refused.status_code == 422 and "Choose which side attacks" in html.unescape(
        refused.content.decode()
    )
    assert not Contest.objects.exists()


def test_set_4_only_the_gm_names_the_attacker(pair: Pair) -> None:
    """SET-4: a player's POST to name the attacker is refused and changes nothing; the GM's
    names it, and after the reveal it is refused with a message."""
    assert open_duel(pair).status_code == 200
    contest = Contest.objects.get()
    url = reverse("rolls:contest-attacker", args=[pair.table.campaign.pk, contest.pk])
    assert logged_in(pair.table.player).post(url, {"position": "1"}, **HX).status_code == 403
    assert [s.extra["attacking"] for s in contest.sides.order_by("position")] == [True, False]
    bad = logged_in(pair.table.gm).post(url, {"position": "7"}, **HX)
    assert bad.status_code == 422 and "Choose which side attacks" in html.unescape(bad.content.decode())
    assert logged_in(pair.table.gm).post(url, {"position": "1"}, **HX).status_code == 200
    assert [s.extra["attacking"] for s in contest.sides.order_by("position")] == [False, True]
