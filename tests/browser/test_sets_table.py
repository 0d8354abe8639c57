"""A short `sets` scene in real browsers: the Judge opens the table on a laptop, two players
join from their phones, pick a derived stat, a Bar and its Face and step the bonus dice while
the odds follow, roll, and every screen follows live. One player bids a pair out of two sets
against the Bar, then spends the other set on a critical effect."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Locator, Page, expect

from rolls import registry
from rolls.systems.base import percent
from tests.browser.conftest import Browsers, Shot
from tests.browser.flows import (
    assert_fits_phone,
    gm_roll,
    join,
    join_link,
    roll,
    roll_id,
    sign_up,
    start_session,
    wait_live,
)
from tests.factories import Script

SETS = registry.engine("sets")


def chance(**request: object) -> str:
    """What the roll form should print: the engine's exact chance, as the app formats it."""
    return percent(SETS.chance(SETS.parse_request(request)))


def create_sets_campaign(page: Page, name: str) -> None:
    page.get_by_label("Campaign name").fill(name)
    page.get_by_role("radio", name=re.compile(r"^Sets")).check()
    page.get_by_label("Your name as GM").fill("Judge Ines")
    page.get_by_role("button", name="Create and open the session page").click()
    expect(page).to_have_url(re.compile(r"/c/\d+/session/$"))
    expect(page.get_by_role("button", name="New Adventure")).to_be_visible()
    expect(page.get_by_role("button", name="Long rest")).to_have_count(0)


def create_hero(page: Page, name: str, **stats: int) -> None:
    """The sets sheet form: the defaults, but for the stats given (``stat_2_dice=4``)."""
    page.locator("#id_name").fill(name)
    for field, value in stats.items():
        page.locator(f"#id_{field}").fill(str(value))
    page.get_by_role("button", name="Create character").click()
    expect(page).to_have_url(re.compile(r"/c/\d+/characters/\d+/$"))
    expect(page.get_by_role("heading", level=1)).to_have_text(name)
    wait_live(page)


def pick(card: Locator, action: str, *indices: int) -> None:
    """Tick the dice (by their place on the card) in a follow-up's die picker (a bid's is
    folded under its one-tap bids)."""
    form = card.locator(f".follow-up-{action}")
    if action == "bid":
        card.get_by_text("Pick the dice yourself").click()
    for index in indices:
        form.locator(f"input[name=dice][value='{index}']").check()


@pytest.mark.browser
def test_a_sets_scene_with_a_bid_and_a_critical_on_two_phones_and_the_gm_screen(
    browsers: Browsers, dice: Script, shot: Shot
) -> None:
    # Wil's five dice 4 4 5 5 2 against the Apprentice Bar 2x3; Bo's three dice 6 6 1, then
    # the Face of his Bar, rolled by the server: 5.
    dice(4, 4, 5, 5, 2, 6, 6, 1, 5)

    gm = browsers.gm()
    sign_up(gm)
    create_sets_campaign(gm, "Red Moon")
    start_session(gm)
    wait_live(gm)
    link = join_link(gm)

    wil = browsers.phone()
    join(wil, link, "Alice")
    assert_fits_phone(wil)
    shot(wil, "sets-phone-new-character")
    create_hero(wil, "Wilcott", stat_2_dice=4)  # Insight 4
    bo = browsers.phone()
    join(bo, link, "Bruno")
    create_hero(bo, "Bo")

    # The odds follow the stat, the Bar and its Face, and the bonus dice.
    odds = wil.locator("#odds")
    chance_now = odds.locator(".odds-chance b")
    expect(odds).to_contain_text("Might: 3 dice")
    expect(odds).to_contain_text("the Apprentice Bar (Size 2, Face rolled)")
    expect(chance_now).to_have_text(chance(dice=3, bar_size=2, bar_face="rolled"))
    wil.get_by_role("radio", name=re.compile(r"^Insight")).check()
    expect(odds).to_contain_text("Insight: 4 dice")
    expect(chance_now).to_have_text(chance(dice=4, bar_size=2, bar_face="rolled"))
    wil.get_by_role("radio", name=re.compile(r"^Journeyman")).check()
    wil.get_by_role("radio", name="3", exact=True).check()
    expect(odds).to_contain_text("the Journeyman Bar (3x3)")
    expect(chance_now).to_have_text(chance(dice=4, bar_size=3, bar_face=3))
    wil.get_by_role("radio", name=re.compile(r"^Opposed")).check()
    expect(odds).to_contain_text("Opposed, as the attacker")
    expect(wil.get_by_role("radio", name="3", exact=True)).to_be_hidden()  # no Bar, no Face
    wil.get_by_role("radio", name=re.compile(r"^Apprentice")).check()
    wil.get_by_role("button", name="Bonus dice: one more").click()
    expect(odds).to_contain_text("Insight: 5 dice")
    expect(chance_now).to_have_text(chance(dice=5, bar_size=2, bar_face=3))
    assert_fits_phone(wil)
    shot(wil, "sets-phone-roll-form")

    # Wilcott rolls: two pairs. He alone is offered the bid.
    wil.get_by_label("What do you try?").fill("Find the clue at the scene")
    card = roll(wil)
    expect(card).to_contain_text("Rolled 5 dice against the Apprentice Bar 2x3")
    expect(card).to_contain_text("Best bid 3x4 against the Apprentice Bar 2x3")
    wil_roll = roll_id(card)
    expect(card.locator(".follow-up-bid button")).to_contain_text("0% -> 100%")
    on_gm = gm.locator(f"#feed-roll-{wil_roll}")
    expect(on_gm).to_contain_text("Insight")
    expect(on_gm).to_contain_text("Find the clue at the scene")
    expect(bo.locator(f"#feed-roll-{wil_roll}")).to_contain_text("Best bid 3x4")
    expect(bo.locator(f"#feed-roll-{wil_roll} .follow-ups")).to_have_count(0)

    # Bo rolls Might against a Bar whose Face the server rolls; everyone sees it.
    bo_card = roll(bo)
    expect(bo_card).to_contain_text("The Bar's Face was rolled: 5.")
    expect(bo_card).to_contain_text("Best bid 2x6 against the Apprentice Bar 2x5")
    bo_roll = roll_id(bo_card)
    expect(gm.locator(f"#feed-roll-{bo_roll}")).to_contain_text("Best bid 2x6")
    expect(wil.locator(f"#feed-roll-{bo_roll}")).to_contain_text("Bo")

    # Wilcott bids only the 4s: part of what he rolled, and enough for the Bar.
    pick(card, "bid", 0, 1)
    card.locator(".follow-up-bid").get_by_role("button", name=re.compile(r"^Bid a set")).click()
    result = wil.locator(f"#result #result-roll-{wil_roll}")
    expect(result).to_contain_text("Bid 2x4 meets the Apprentice Bar 2x3")
    expect(result.locator(".follow-up-bid")).to_have_count(0)
    expect(result.locator(".follow-up-flinch")).to_have_count(0)
    expect(on_gm).to_contain_text("Bid 2x4 meets the Apprentice Bar 2x3")

    # The 5s are left over: a critical effect that gives a bonus die later.
    effect = result.locator(".follow-up-critical_effect")
    pick(result, "critical_effect", 2, 3)
    effect.get_by_label("Effect on a later roll").select_option("bonus")
    effect.get_by_role("button", name=re.compile(r"^Critical effect")).click()
    expect(result).to_contain_text("Critical effect: spent 2x5")
    expect(result).to_contain_text("Critical effect with 2x5 (a one-die bonus on a later roll).")
    expect(result.locator(".follow-ups")).to_have_count(0)
    expect(on_gm).to_contain_text("Critical effect with 2x5")
    expect(bo.locator(f"#feed-roll-{wil_roll}")).to_contain_text("Critical effect with 2x5")
    expect(gm.locator(f"#feed-roll-{wil_roll}")).to_have_count(1)

    assert_fits_phone(wil)
    assert_fits_phone(bo)
    shot(gm, "sets-gm-session")
    shot(wil, "sets-phone-result")


@pytest.mark.browser
def test_set_3_a_blind_roll_is_bid_unseen_from_the_phone(
    browsers: Browsers, dice: Script, shot: Shot
) -> None:
    """SET-3 on a blind roll: the phone never shows the dice, yet its player bids (the
    strongest bid, unseen); the Judge, who finds the roll waiting on the session page, sees
    the dice, the bid and the verdict."""
    dice(4, 4, 3, 3, 6)  # Insight 5 against the Apprentice Bar 2x3: the best bid is 3x3

    gm = browsers.gm()
    sign_up(gm)
    create_sets_campaign(gm, "Blind Moon")
    start_session(gm)
    wait_live(gm)
    wil = browsers.phone()
    join(wil, join_link(gm), "Alice")
    create_hero(wil, "Wilcott", stat_2_dice=5)  # Insight 5
    wil.get_by_role("radio", name=re.compile(r"^Insight")).check()
    wil.get_by_role("radio", name="3", exact=True).check()
    wil.get_by_label("Roll blind: only the GM sees the result").check()

    card = roll(wil)
    expect(card).to_contain_text("Wilcott rolled blind: only the GM sees the result.")
    expect(card.locator("[data-face]")).to_have_count(0)
    bid = card.get_by_role("button", name="Bid your best set, unseen")
    expect(bid).to_be_visible()
    assert_fits_phone(wil)
    shot(wil, "sets-phone-blind-roll")
    wil_roll = roll_id(card)
    # The Judge finds it waiting on the session page, and could bid it there instead.
    # (One tap for the best bid, the dice picker folded under it.)
    expect(gm.locator(f"#gm-roll-{wil_roll} .bids button").first).to_be_visible()
    shot(gm, "sets-gm-blind-roll-waiting")

    bid.click()

    result = wil.locator(f"#result #result-roll-{wil_roll}")
    expect(result.get_by_role("button", name="Bid your best set, unseen")).to_have_count(0)
    expect(result.locator("[data-face]")).to_have_count(0)
    on_gm = gm.locator(f"#feed-roll-{wil_roll}")
    expect(on_gm).to_contain_text("Bid 3x3, unseen (a blind roll)")
    expect(on_gm).to_contain_text("Bid 3x3 meets the Apprentice Bar 2x3")
    expect(wil.locator(f"#feed-roll-{wil_roll}")).not_to_contain_text("3x3")
    expect(gm.locator(f"#gm-roll-{wil_roll}")).to_have_count(0)  # nothing left to settle


@pytest.mark.browser
def test_the_judges_own_rolls_wait_on_the_console_newest_on_top_each_once(
    browsers: Browsers, dice: Script, shot: Shot
) -> None:
    """SET-4: the Judge's opposed pair waits on the console with its bid. The socket draws the panel
    whole for the first roll, then puts each new one on top of the panel it drew; the answer
    to the tap puts it there too, and the card is there once, whichever comes first."""
    gm = browsers.gm()
    sign_up(gm)
    create_sets_campaign(gm, "Grey Tower")
    # Starting the session reloads the page (htmx's client redirect), but the old page's socket
    # shows "Session 1 is on" and "live" before it goes: wait for the new page and its own
    # socket, as a person waits for the reload, or the first tap can land on a page going away.
    with gm.expect_navigation():
        start_session(gm)
    wait_live(gm)
    panel = gm.locator("#gm-panel")
    names = []
    for number, faces in enumerate(((5, 5, 2), (4, 4, 1), (3, 3, 6)), start=1):
        dice(*faces)
        gm_roll(gm, f"Guard {number}", "Hold the gate")
        expect(gm.locator("#feed")).to_contain_text(f"Guard {number}")
        names.insert(0, f"Guard {number}")
        cards = panel.locator(".card")
        expect(cards).to_have_count(number)
        expect(cards.locator(".who")).to_have_text(names)
        expect(cards.first.locator(".follow-up-bid")).to_have_count(1)
    ids = cards.evaluate_all("items => items.map(item => item.id)")
    assert len(set(ids)) == len(ids) == 3
    shot(gm, "sets-console-waiting")


@pytest.mark.browser
def test_set_11_a_helper_waits_for_the_judges_one_tap_call_on_the_console(
    browsers: Browsers, dice: Script, shot: Shot
) -> None:
    """SET-11: Wilcott counts a helper; his roll waits, the Judge's console gets the one-tap
    call live, and "No help" strikes the helper's die on the phone before anyone bids."""
    dice(4, 4, 1, 6, 3)  # Might 3, the helper's die last, then the Bar's Face
    gm = browsers.gm()
    sign_up(gm)
    create_sets_campaign(gm, "Helping Hands")
    with gm.expect_navigation():
        start_session(gm)
    wait_live(gm)
    link = join_link(gm)
    wil = browsers.phone()
    join(wil, link, "Alice")
    create_hero(wil, "Wilcott")
    wil.get_by_role("button", name="Significant helpers: one more").click()
    wil.get_by_role("button", name="Roll", exact=True).click()
    result = wil.locator("#result .card")
    expect(result).to_contain_text("Waiting for the Judge: does the help count (+1 die)?")
    expect(result.locator(".follow-up-bid")).to_have_count(0)
    strike = gm.locator("#gm-panel").get_by_role("button", name="No help: strike 1 die")
    expect(strike).to_be_visible()
    shot(gm, "sets-console-help-call", full_page=False)
    strike.click()
    expect(result).to_contain_text("The Judge strikes the help")
    expect(result.get_by_role("button", name=re.compile(r"^Bid 2x4"))).to_be_visible()
    expect(gm.locator("#gm-panel").get_by_role("button", name="No help: strike 1 die")).to_have_count(0)
    assert_fits_phone(wil)
    shot(wil, "sets-phone-help-struck", full_page=False)
