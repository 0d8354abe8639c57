"""The roll history on a phone: every roll of the campaign, newest first, grouped by play
session, readable at 360 px."""

from __future__ import annotations

import random
import re

import pytest
from playwright.sync_api import expect

import rolls.log.randomness
from tests.browser.conftest import Browsers, Shot
from tests.browser.flows import assert_fits_phone, join_with_character, open_table, roll, roll_id


@pytest.mark.browser
def test_history_lists_rolls_by_session_on_a_phone(
    browsers: Browsers, monkeypatch: pytest.MonkeyPatch, shot: Shot
) -> None:
    monkeypatch.setattr(rolls.log.randomness, "RNG", random.Random(7))
    gm = browsers.gm()
    link = open_table(gm)
    ada = join_with_character(browsers.phone(), link, "Alice", "Ada")
    phone = ada.page
    ada.page.get_by_label("What do you try?").fill("Pick the lock")
    first = roll_id(roll(phone))

    # The GM ends the session (once confirmed); the phone hears it and refuses to roll, saying why.
    gm.once("dialog", lambda dialog: dialog.accept())
    gm.get_by_role("button", name="End session 1").click()
    expect(gm.locator("#session-status")).to_contain_text("No session running")
    expect(phone.locator("#session-status")).to_contain_text("No session running")
    phone.get_by_role("button", name="Roll", exact=True).click()
    expect(phone.locator("#roll-form [data-refusal]")).to_contain_text(
        "The GM has not started a play session yet."
    )
    expect(phone.locator("#result .card")).to_have_attribute("data-roll", str(first))

    # Session 2: two more rolls.
    gm.get_by_role("button", name="Start a play session").click()
    expect(gm.locator("#session-status")).to_contain_text("Session 2 is on")
    expect(phone.locator("#session-status")).to_contain_text("Session 2 is on")
    second = roll_id(roll(phone))
    third = roll_id(roll(phone))

    phone.get_by_role("link", name="Whole history").click()
    expect(phone).to_have_url(re.compile(r"/c/\d+/history/$"))
    expect(phone.get_by_role("heading", level=1)).to_have_text("History")
    heads = phone.locator("h2.session-head")
    expect(heads).to_have_count(2)
    expect(heads.nth(0)).to_contain_text("Session 2")
    expect(heads.nth(1)).to_contain_text("Session 1")
    groups = phone.locator("ol.history")
    expect(groups).to_have_count(2)
    expect(groups.nth(0).locator(".card")).to_have_count(2)
    expect(groups.nth(0).locator(".card").nth(0)).to_have_id(f"history-roll-{third}")
    expect(groups.nth(0).locator(".card").nth(1)).to_have_id(f"history-roll-{second}")
    expect(groups.nth(1).locator(".card")).to_have_count(1)
    old = groups.nth(1).locator(f"#history-roll-{first}")
    expect(old).to_contain_text("Ada")
    expect(old).to_contain_text("Pick the lock")
    expect(old.locator(".die")).to_have_count(3)
    # History shows what happened; it offers nothing to press.
    expect(phone.locator(".follow-ups")).to_have_count(0)
    assert_fits_phone(phone)
    shot(phone, "phone-history")

    # Filtered to one character (the filters fold away on a phone), still grouped.
    phone.get_by_text("Filters", exact=True).click()
    phone.get_by_label("Character").select_option(label="Ada")
    phone.get_by_role("button", name="Show").click()
    expect(phone).to_have_url(re.compile(r"character=\d+"))
    expect(phone.locator("ol.history .card")).to_have_count(3)
