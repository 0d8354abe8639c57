"""The statistics on a phone at 360x740: opened from the history, a chart with its table beside
it, and a value read from that table (the accessible source of the chart)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

import rolls.log.randomness
from tests.browser.conftest import Browsers, Shot
from tests.browser.flows import assert_fits_phone, join_with_character, open_table, roll
from tests.dice import ScriptedDice


@pytest.mark.browser
def test_a_phone_opens_the_statistics_from_the_history_and_reads_a_chart(
    browsers: Browsers, monkeypatch: pytest.MonkeyPatch, shot: Shot
) -> None:
    # Every die shows a six: each roll of the evening is a success.
    monkeypatch.setattr(rolls.log.randomness, "RNG", ScriptedDice(then=6))
    gm = browsers.gm()
    link = open_table(gm)
    ada = join_with_character(browsers.phone(), link, "Alice", "Ada")
    phone = ada.page
    for _ in range(3):
        roll(phone)

    phone.get_by_role("link", name="Whole history").click()
    phone.get_by_role("link", name="Statistics", exact=True).click()
    expect(phone).to_have_url(re.compile(r"/stats/$"))
    expect(phone.get_by_role("heading", level=1)).to_contain_text("Statistics")
    # The chart is drawn for the eye; its table says the same to a screen reader.
    expect(phone.locator("svg.chart").first).to_have_attribute("aria-hidden", "true")
    faces = phone.locator("#faces-table")
    expect(faces.get_by_role("row", name=re.compile(r"^6 "))).to_contain_text("100%")
    pools = phone.locator("#pools-table tbody tr")
    expect(pools.first).to_contain_text("100%")
    expect(phone.locator("[data-verdict]")).to_contain_text("too few rolls to tell")
    assert_fits_phone(phone)
    shot(phone, "phone-statistics")

    # The session's recap, from the session's line of the history.
    phone.go_back()
    phone.locator(".session-links").get_by_role("link", name="recap").first.click()
    expect(phone.get_by_role("heading", level=1)).to_contain_text("the recap")
    expect(phone.locator("#who-table")).to_contain_text("Ada")
    assert_fits_phone(phone)
    shot(phone, "phone-recap")

    # The GM's big screen: each chart beside its table.
    gm.set_viewport_size({"width": 1920, "height": 1080})
    gm.goto(re.sub(r"/sessions/\d+/recap/$", "/stats/", phone.url))
    expect(gm.locator("#faces-table")).to_be_visible()
    shot(gm, "big-screen-statistics")
    gm.goto(phone.url)
    shot(gm, "big-screen-recap")
