"""The history page's check of the log's hash chain, on a phone: one button, the verdict in
words next to it; and the export of the campaign or of one play session beside it."""

from __future__ import annotations

import random
import re

import pytest
from playwright.sync_api import expect

import rolls.log.randomness
from tests.browser.conftest import Browsers, Shot
from tests.browser.flows import assert_fits_phone, join_with_character, open_table, roll


@pytest.mark.browser
def test_a_phone_checks_the_log_from_the_history(
    browsers: Browsers, monkeypatch: pytest.MonkeyPatch, shot: Shot
) -> None:
    monkeypatch.setattr(rolls.log.randomness, "RNG", random.Random(7))
    gm = browsers.gm()
    link = open_table(gm)
    phone = join_with_character(browsers.phone(), link, "Alice", "Ada").page
    roll(phone)
    phone.get_by_role("link", name="Whole history").click()
    expect(phone).to_have_url(re.compile(r"/c/\d+/history/$"))

    button = phone.get_by_role("button", name="Check that the log is unchanged")
    expect(button).to_be_in_viewport()
    button.click()

    verdict = phone.locator("#log-tools [role=status]")
    expect(verdict).to_contain_text(
        re.compile(r"The log of The Loop is intact: its \d+ entries match their hashes\.")
    )
    expect(verdict).to_be_in_viewport()
    expect(phone).to_have_url(re.compile(r"/c/\d+/history/$"))  # answered in place
    with phone.expect_download() as download:
        phone.get_by_role("button", name="JSON").click()
    assert re.fullmatch(r"campaign-\d+\.json", download.value.suggested_filename)
    with phone.expect_download() as download:
        phone.get_by_label("Export").select_option(label="Session 1")
        phone.get_by_role("button", name="CSV").click()
    assert re.fullmatch(r"campaign-\d+-session-1\.csv", download.value.suggested_filename)
    assert download.value.path().read_text().startswith("seq,time,session,character,roll,action,die,face")
    assert_fits_phone(phone)
    shot(phone, "log-check-phone", full_page=False)

    gm.set_viewport_size({"width": 1920, "height": 1080})
    gm.goto(phone.url)
    gm.get_by_role("button", name="Check that the log is unchanged").click()
    expect(gm.locator("#log-tools [role=status]")).to_contain_text("is intact")
    shot(gm, "log-check-desktop", full_page=False)
