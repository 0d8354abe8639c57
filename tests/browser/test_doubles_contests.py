"""A doubles opposed roll (DBL-7) at a real table: the GM opens it on the console between two
players' characters, each phone rolls its own side with the exact odds in view, neither the
other phone nor the TV sees a die before both have rolled, and equal results are a standoff on
every screen."""

from __future__ import annotations

import re
from fractions import Fraction

import pytest
from playwright.sync_api import expect

from rolls import registry
from rolls.systems.base import percent
from tests.browser.conftest import Browsers, Shot
from tests.browser.flows import (
    assert_fits_phone,
    contest,
    contest_table,
    contest_tools,
    settle,
)
from tests.browser.test_doubles_table import create_doubles_campaign, create_hero
from tests.factories import Script


@pytest.mark.browser
def test_dbl_7_an_opposed_roll_between_two_phones_is_sealed_then_a_standoff(
    browsers: Browsers, dice: Script, shot: Shot
) -> None:
    gm, tv, (mara, bram) = contest_table(
        browsers, create_doubles_campaign, "Night Shift", create_hero, (("Alice", "Mara"), ("Bob", "Bram"))
    )

    tools = contest_tools(gm)
    tools.get_by_label("First side (a tie goes to it)").select_option(label="Mara")
    tools.get_by_label("Second side").select_option(label="Bram")
    tools.get_by_label("What is at stake?").fill("Arm wrestling")
    # Each side's Abilities and Weaknesses are tick boxes, none ticked to start (issue 43).
    for who in ("Mara", "Bram"):
        tools.get_by_role("group", name=f"{who}'s abilities that apply").get_by_label("Athletics").check()
        tools.get_by_role("group", name=f"{who}'s weaknesses in the way").get_by_label("Reckless").check()
    shot(gm, "doubles-console-contest-form")
    tools.get_by_role("button", name="Open the contest").click()
    expect(contest(gm)).to_contain_text("Mara against Bram")

    doubles = registry.engine("doubles")
    two = doubles.parse_request({"dice": 2})  # Athletics (+1) and Reckless (-1), as ticked
    expect(contest(mara)).to_contain_text(
        f"Mara's chance to win: {percent(doubles.contest(two, two)['win'])}"
    )
    expect(contest(mara)).to_contain_text("a tie")
    assert_fits_phone(mara)
    shot(mara, "doubles-contest-phone-to-roll", full_page=False)

    dice(3, 3)
    contest(mara).get_by_role("button", name=re.compile(r"^Roll Athletics")).click()
    expect(contest(mara)).to_contain_text("rolled, sealed")
    expect(contest(tv)).to_contain_text("rolled, sealed")
    expect(tv.locator("#feed [data-face]")).to_have_count(0)
    expect(bram.locator("#feed [data-face]")).to_have_count(0)
    shot(tv, "doubles-contest-tv-sealed")

    dice(6, 2)
    contest(bram).get_by_role("button", name=re.compile(r"^Roll Athletics")).click()
    for page in (tv, mara, bram, gm):
        expect(contest(page)).to_contain_text("Standoff at 6: neither Mara nor Bram beats the other.")
    expect(tv.locator("#feed [data-face]").first).to_be_visible()
    shot(tv, "doubles-contest-tv-standoff")
    shot(bram, "doubles-contest-phone-standoff", full_page=False)

    # After the reveal each phone shows its chance to win beside each follow-up (DBL-10,
    # DBL-11). Mara's 3-3 (6) against Bram's 6: one drama die wins only as a third 3 (9);
    # a 6 is one more 6, still a standoff. Bram's 6-2: only a second 6 (12) wins.
    for phone in (mara, bram):
        odds = contest(phone).locator(".contest-options")
        expect(odds).to_contain_text(f"Buy 1 drama die: {percent(Fraction(1, 6))} to win")
        expect(odds).to_contain_text("Ask for a miracle, if the GM approves: 100% to win")
        expect(odds.get_by_text("Buy 1 drama die")).to_be_visible()
        assert_fits_phone(phone)
    expect(contest(tv).locator(".contest-options")).to_have_count(0)
    shot(mara, "doubles-contest-phone-odds-after-the-reveal", full_page=False)
    settle(gm)
    expect(tv.locator("#contests-panel")).to_be_hidden()
    expect(mara.locator("#feed")).to_contain_text("Standoff at 6")


@pytest.mark.browser
def test_dbl_9_after_the_gms_settle_the_amazing_pc_names_the_complication_on_her_phone(
    browsers: Browsers, dice: Script, shot: Shot
) -> None:
    """DBL-9: Mara's three fives (15) against Bram's 6. Bram could still buy drama dice, so no
    Complication yet; the GM settles, Bram's card offers no more drama dice, and Mara names the
    Complication on her phone; both phones read it."""
    gm, _, (mara, bram) = contest_table(
        browsers, create_doubles_campaign, "Night Shift", create_hero, (("Alice", "Mara"), ("Bob", "Bram"))
    )
    tools = contest_tools(gm)
    tools.get_by_label("First side (a tie goes to it)").select_option(label="Mara")
    tools.get_by_label("Second side").select_option(label="Bram")
    group = tools.get_by_role("group", name="Mara's abilities that apply")
    group.get_by_label("Athletics").check()
    group.get_by_label("Fighting").check()
    tools.get_by_role("button", name="Open the contest").click()
    expect(contest(mara)).to_contain_text("Mara against Bram")

    dice(5, 5, 5, 2)
    contest(mara).get_by_role("button", name=re.compile(r"^Roll Athletics \+ Fighting")).click()
    expect(contest(mara)).to_contain_text("rolled, sealed")
    dice(6, 1)
    contest(bram).get_by_role("button", name=re.compile(r"^Roll Two dice")).click()
    expect(contest(mara)).to_contain_text("Mara may inflict a Complication on Bram")
    expect(contest(mara).get_by_role("button", name="Inflict a Complication")).to_have_count(0)

    settle(gm)
    expect(contest(mara)).to_contain_text("Settled by the GM")
    expect(bram.locator("#feed").get_by_role("button", name=re.compile("Buy drama dice"))).to_have_count(0)
    expect(contest(bram).get_by_role("button", name="Inflict a Complication")).to_have_count(0)
    contest(mara).get_by_label("The Complication for Bram").fill("a sprained wrist")
    assert_fits_phone(mara)
    shot(mara, "doubles-complication-after-the-settle", full_page=False)
    contest(mara).get_by_role("button", name="Inflict a Complication").click()
    expect(mara.locator("#contests-panel .contest")).to_have_count(0)
    shot(mara, "doubles-complication-named")
    # The log's line on both phones (the TV draws the cards alone).
    for page in (mara, bram):
        expect(page.locator("body")).to_contain_text(
            "Mara inflicts a Complication on Bram: a sprained wrist."
        )
    # DBL-8: Mara's amazing card asks how the scene changes.
    expect(mara.locator(".scene-prompt").first).to_contain_text("Amazing Success: Mara gets more than")


@pytest.mark.browser
def test_dbl_9_the_gm_dismisses_a_complication_the_amazing_pc_never_names(
    browsers: Browsers, dice: Script, shot: Shot
) -> None:
    """DBL-9: after the settle Mara may name the Complication or decline it; she does neither,
    so the GM taps "No Complication" on the console: logged, and the contest leaves every
    panel. Bram is offered neither button."""
    gm, _, (mara, bram) = contest_table(
        browsers, create_doubles_campaign, "Night Shift", create_hero, (("Alice", "Mara"), ("Bob", "Bram"))
    )
    tools = contest_tools(gm)
    tools.get_by_label("First side (a tie goes to it)").select_option(label="Mara")
    tools.get_by_label("Second side").select_option(label="Bram")
    group = tools.get_by_role("group", name="Mara's abilities that apply")
    group.get_by_label("Athletics").check()
    group.get_by_label("Fighting").check()
    tools.get_by_role("button", name="Open the contest").click()
    dice(5, 5, 5, 2)
    contest(mara).get_by_role("button", name=re.compile(r"^Roll Athletics \+ Fighting")).click()
    expect(contest(mara)).to_contain_text("rolled, sealed")
    dice(6, 1)
    contest(bram).get_by_role("button", name=re.compile(r"^Roll Two dice")).click()
    settle(gm)
    expect(contest(mara).get_by_role("button", name="No Complication")).to_be_visible()
    expect(contest(bram).get_by_role("button", name="No Complication")).to_have_count(0)
    assert_fits_phone(mara)
    shot(mara, "doubles-no-complication-phone", full_page=False)
    button = contest(gm).get_by_role("button", name="No Complication")
    button.scroll_into_view_if_needed()
    expect(contest(gm).get_by_role("button", name="Inflict a Complication")).to_have_count(0)
    shot(gm, "doubles-no-complication-console", full_page=False)
    button.click()
    for page in (gm, mara, bram):
        expect(page.locator("#contests-panel .contest")).to_have_count(0)
    expect(mara.locator("body")).to_contain_text("No Complication: Mara inflicts none on Bram.")
