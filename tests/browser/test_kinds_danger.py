"""One Danger faced together (KIN-6, KIN-8) at a real table: the Fortune Master ticks Indy and
Marion on the console with a Critical Danger, each phone shows the exact odds and rolls its own
Challenge, the TV and the other phone see only who has rolled until both have, then every
screen shows both results together: Indy passes, Marion meets an Accident."""

from __future__ import annotations

from fractions import Fraction

import pytest
from playwright.sync_api import expect

from rolls.systems.base import percent
from rolls.systems.kinds import passing_odds
from rolls.systems.kinds import system as kinds
from tests.browser.conftest import Browsers, Shot
from tests.browser.flows import (
    assert_fits_phone,
    contest,
    contest_table,
    contest_tools,
    settle,
)
from tests.browser.test_kinds_table import create_adventurer, create_kinds_campaign
from tests.factories import Script


@pytest.mark.browser
def test_kin_8_two_adventurers_face_one_danger_from_their_phones(
    browsers: Browsers, dice: Script, shot: Shot
) -> None:
    gm, tv, (indy, marion) = contest_table(
        browsers,
        create_kinds_campaign,
        "Temple Run",
        create_adventurer,
        (("Alice", "Indy"), ("Bruno", "Marion")),
    )

    tools = contest_tools(gm)
    tools.get_by_label("The Danger's Challenge").select_option("Critical")
    tools.get_by_role("checkbox", name="Indy", exact=True).check()
    tools.get_by_role("checkbox", name="Marion", exact=True).check()
    tools.get_by_label("Indy's advantage or disadvantage").select_option("2")
    tools.get_by_label("What is at stake?").fill("The collapsing rope bridge")
    shot(gm, "kinds-danger-console-form")
    tools.get_by_role("button", name="Open it").click()
    expect(contest(gm)).to_contain_text("One Danger: Indy, Marion")

    # The exact odds before the dice: Indy five dice, Marion three, a Critical needs a three.
    five = kinds.parse_request({"dice": 5, "level": "critical"})
    three = kinds.parse_request({"dice": 3, "level": "critical"})
    both = passing_odds({"Indy": five, "Marion": three})
    assert both[2] == kinds.chance(five) * Fraction(6, 216)
    for page in (indy, marion, tv):
        expect(contest(page)).to_contain_text(
            f"Chance to pass: Indy {percent(kinds.chance(five))}, Marion {percent(kinds.chance(three))}."
        )
        expect(contest(page)).to_contain_text(f"Everyone passes: {percent(both[2])} (exact: {both[2]})")
    assert_fits_phone(indy)
    shot(indy, "kinds-danger-phone-to-roll", full_page=False)

    dice(4, 4, 4, 1, 2)
    contest(indy).get_by_role("button", name="Roll Action + Athletics").click()
    expect(contest(indy)).to_contain_text("rolled, sealed")
    expect(contest(tv)).to_contain_text("rolled, sealed")
    expect(tv.locator("#feed [data-face]")).to_have_count(0)
    expect(marion.locator("#feed [data-face]")).to_have_count(0)
    shot(tv, "kinds-danger-tv-sealed", full_page=False)

    dice(5, 5, 2)
    contest(marion).get_by_role("button", name="Roll Action + Athletics").click()
    for page in (tv, indy, marion, gm):
        expect(contest(page)).to_contain_text("The Critical Danger: Indy passes; an Accident for Marion.")
        expect(contest(page)).to_contain_text("Critical Success: passes the Critical Challenge")
        expect(contest(page)).to_contain_text(
            "Basic Success falls short of the Critical Challenge: an Accident"
        )
    expect(tv.locator("#feed [data-face]").first).to_be_visible()
    expect(contest(tv).locator(".pill.success")).to_have_text("passes")
    expect(tv.locator("#feed")).not_to_contain_text("against Indy")
    assert_fits_phone(marion)
    shot(tv, "kinds-danger-tv-revealed", full_page=False)
    shot(marion, "kinds-danger-phone-revealed", full_page=False)

    settle(gm)
    expect(gm.locator("#contests-panel")).to_be_hidden()
    expect(tv.locator("#contests-panel")).to_be_hidden()
