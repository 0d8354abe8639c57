"""Extended Trouble (SIX-20) at a real table: the GM opens a plan with a part for Ada and one
for Bo; the TV and both phones show the parts and the plan's exact chance; each phone rolls
only its own part, sealed until both are in; then every screen shows how each part went and
the plan's outcome, and the GM settles it."""

from __future__ import annotations

from fractions import Fraction

import pytest
from playwright.sync_api import expect

from rolls.systems.base import percent
from tests.browser.conftest import SHOTS, Browsers, Shot
from tests.browser.flows import (
    assert_fits_phone,
    contest,
    contest_tools,
    join_with_character,
    open_display,
    open_table,
    settle,
)
from tests.factories import Script

tracker = contest


@pytest.mark.browser
def test_six_20_a_plan_in_two_parts_tracked_on_every_screen(
    browsers: Browsers, dice: Script, shot: Shot
) -> None:
    gm = browsers.gm()
    link = open_table(gm)
    tv = open_display(browsers, gm)
    ada = join_with_character(browsers.phone(), link, "Alice", "Ada", body=3).page
    bo = join_with_character(browsers.phone(), link, "Bob", "Bo", body=2).page

    tools = contest_tools(gm)
    # Kid versus kid comes first: no kid's need nor threat is asked (SIX-18); a group Trouble
    # asks the threat but has the group's need (SIX-17); a plan asks both for each part.
    need = tools.locator('.call-row [name$="-need"]').first
    threat = tools.locator('.call-row [name$="-threat"]').first
    expect(need).to_be_hidden()
    expect(threat).to_be_hidden()
    tools.get_by_label("What kind").select_option("group")
    expect(need).to_be_hidden()
    expect(threat).to_be_visible()
    tools.get_by_label("What kind").select_option("plan")
    expect(need).to_be_visible()
    expect(threat).to_be_visible()
    tools.get_by_role("checkbox", name="Ada", exact=True).check()
    tools.get_by_role("checkbox", name="Bo", exact=True).check()
    tools.get_by_label("Ada's roll").select_option("Body")
    tools.get_by_label("Bo's roll").select_option("Body")
    tools.locator("#contest-setup-parts").fill("pick the lock; keep watch")
    tools.get_by_label("What is at stake?").fill("Get the tablet back")
    tools.screenshot(path=SHOTS / "sixes-plan-console-form.png")
    tools.get_by_role("button", name="Open the contest").click()
    expect(tracker(gm)).to_contain_text("Extended Trouble: Ada, Bo")

    # Ada's three dice and Bo's two, one six each needed: the plan needs both.
    chance = (1 - Fraction(5, 6) ** 3) * (1 - Fraction(5, 6) ** 2)
    for page in (tv, ada, bo):
        expect(tracker(page)).to_contain_text("Part: pick the lock")
        expect(tracker(page)).to_contain_text(
            f"Chance the plan succeeds: {percent(chance)} (exact: {chance})"
        )
    expect(tracker(ada).get_by_role("button", name="Roll Body")).to_have_count(1)
    expect(tracker(bo).get_by_role("button", name="Roll Body")).to_have_count(1)
    assert_fits_phone(ada)
    shot(ada, "sixes-plan-phone-to-roll", full_page=False)
    shot(tv, "sixes-plan-tv-open")

    dice(6, 1, 1)
    tracker(ada).get_by_role("button", name="Roll Body").click()
    expect(tracker(tv)).to_contain_text("1 of 2 parts rolled")
    expect(tracker(bo)).to_contain_text("rolled, sealed")
    expect(tv.locator("#feed [data-face]")).to_have_count(0)
    expect(bo.locator("#feed [data-face]")).to_have_count(0)

    dice(6, 2)
    tracker(bo).get_by_role("button", name="Roll Body").click()
    for page in (tv, ada, bo, gm):
        expect(tracker(page)).to_contain_text(
            "Revealed: the plan succeeds (parts that worked: 2 of the 2 needed)"
        )
    expect(tracker(tv).locator(".pill.success", has_text="part succeeds")).to_have_count(2)
    expect(tv.locator("#feed")).not_to_contain_text("against")
    shot(tv, "sixes-plan-tv-revealed")
    shot(bo, "sixes-plan-phone-revealed", full_page=False)
    assert_fits_phone(bo)

    settle(gm, tracker(gm))
    expect(tv.locator("#contests-panel")).to_be_hidden()
    expect(ada.locator("#feed")).to_contain_text(
        "The plan to Get the tablet back: succeeds (parts that worked: 2 of the 2 needed)."
    )
