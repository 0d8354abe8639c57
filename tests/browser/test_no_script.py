"""A phone without JavaScript plays: it joins, rolls and pushes with plain forms, each answered
with a whole page (the CSRF token in every form), and sees each result."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import Browsers, Shot
from tests.browser.flows import assert_fits_phone, create_character, join, open_table
from tests.factories import Script


@pytest.mark.browser
def test_six_11_a_phone_without_javascript_rolls_and_pushes(
    browsers: Browsers, dice: Script, shot: Shot
) -> None:
    link = open_table(browsers.gm())
    phone = browsers.phone_without_script()
    join(phone, link, "Ada")
    screen = create_character(phone, "Ada", body=3, sneak=0)
    expect(phone.locator("#live-status")).to_have_text("Connecting…")  # no socket without script

    # Body, one success needed: 4 3 3 fails, so the push is offered.
    phone.get_by_role("radio", name=re.compile(r"^Body")).check()
    phone.get_by_label("What do you try?").fill("Climb the fence")
    dice(4, 3, 3)
    phone.get_by_role("button", name="Roll", exact=True).click()

    expect(phone).to_have_url(screen + "#result")
    result = phone.locator("#result .card")
    expect(result).to_contain_text("Climb the fence")
    expect(result).to_contain_text("Failure")
    shot(phone, "no-script-rolled", full_page=False)

    result.get_by_label("Condition to check").select_option("Scared")
    dice(6, 4, 3)  # a push rerolls every die but the sixes: all three
    result.locator(".follow-up-push button").click()

    expect(phone).to_have_url(re.compile(r"#result-roll-\d+$"))
    expect(result).to_contain_text("Pushed, checking Scared")
    expect(result).to_contain_text("Success")
    expect(result.locator(".follow-up-push")).to_have_count(0)
    assert_fits_phone(phone)
    shot(phone, "no-script-pushed", full_page=False)
