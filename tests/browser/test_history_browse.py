"""Browsing the history on a phone at 360x740: filter it, open a roll's own page, and come back
with the back button to the same filters."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

import rolls.log.randomness
from tests.browser.conftest import Browsers, Shot
from tests.browser.flows import assert_fits_phone, join_with_character, open_table, roll, roll_id
from tests.dice import ScriptedDice


@pytest.mark.browser
def test_a_phone_filters_the_history_opens_a_roll_and_comes_back(
    browsers: Browsers, monkeypatch: pytest.MonkeyPatch, shot: Shot
) -> None:
    # The first roll has a six (a success); every die after it is a one.
    monkeypatch.setattr(rolls.log.randomness, "RNG", ScriptedDice(6, then=1))
    gm = browsers.gm()
    link = open_table(gm)
    ada = join_with_character(browsers.phone(), link, "Alice", "Ada")
    phone = ada.page
    phone.get_by_label("What do you try?").fill("Pick the lock")
    hit = roll_id(roll(phone))
    roll(phone)
    roll(phone)

    phone.get_by_role("link", name="Whole history").click()
    expect(phone.locator("ol.history .card")).to_have_count(3)
    # The evening's events are there too, drawn apart from the rolls.
    expect(phone.locator("ol.history .event-session-start")).to_have_count(1)

    # The filters fold away on a phone; opened, they filter by outcome.
    phone.get_by_text("Filters", exact=True).click()
    phone.get_by_label("Outcome").select_option(label="Success")
    assert_fits_phone(phone)
    shot(phone, "phone-history-filters-open")
    phone.get_by_role("button", name="Show").click()
    expect(phone).to_have_url(re.compile(r"outcome=success"))
    cards = phone.locator("ol.history .card")
    expect(cards).to_have_count(1)
    expect(cards.first).to_have_id(f"history-roll-{hit}")
    expect(phone.locator("ol.history .event")).to_have_count(0)
    # Folded again, it says what it filters on.
    expect(phone.locator(".filter-summary")).to_have_text("Outcome: Success")
    assert_fits_phone(phone)
    shot(phone, "phone-history-filtered", full_page=False)

    # The card's number opens the roll's own page: its chain, step by step, with the odds.
    cards.first.locator(".roll-link").click()
    expect(phone).to_have_url(re.compile(rf"/rolls/{hit}/$"))
    expect(phone.get_by_role("heading", level=1)).to_contain_text("Roll #")
    steps = phone.locator(".roll-steps li")
    expect(steps).to_have_count(1)
    expect(steps.first).to_contain_text("Alice")
    expect(steps.first).to_contain_text("Chance of success:")
    expect(phone.locator(".card")).to_contain_text("Pick the lock")
    expect(phone.get_by_text("Your note")).to_have_count(0)  # the GM's alone
    assert_fits_phone(phone)
    shot(phone, "phone-roll-page", full_page=False)

    # Back: the same filters, the same one roll.
    phone.go_back()
    expect(phone).to_have_url(re.compile(r"outcome=success"))
    expect(phone.get_by_label("Outcome")).to_have_value("success")
    expect(phone.locator("ol.history .card")).to_have_count(1)


@pytest.mark.browser
def test_the_gm_voids_a_roll_from_its_page_and_the_phone_sees_it_struck(
    browsers: Browsers, monkeypatch: pytest.MonkeyPatch, shot: Shot
) -> None:
    monkeypatch.setattr(rolls.log.randomness, "RNG", ScriptedDice(6, then=1))
    gm = browsers.gm()
    link = open_table(gm)
    ada = join_with_character(browsers.phone(), link, "Alice", "Ada")
    phone = ada.page
    mistake = roll_id(roll(phone))
    feed_card = phone.locator(f"#feed-roll-{mistake}")
    expect(feed_card).to_be_visible()

    # The GM opens the roll from its card on the session page, notes it and voids it.
    gm.locator(f"#feed-roll-{mistake} .roll-link").click()
    expect(gm).to_have_url(re.compile(rf"/rolls/{mistake}/$"))
    gm.get_by_label("Your note (only you see it)").fill("Rolled Body; meant Heart.")
    gm.get_by_role("button", name="Keep the note").click()
    expect(gm.get_by_label("Your note (only you see it)")).to_have_value("Rolled Body; meant Heart.")
    gm.get_by_role("button", name="Void this roll").click()
    expect(gm.locator(".card .pill.void")).to_have_text("voided")
    expect(gm.get_by_role("button", name="Void this roll")).to_have_count(0)
    expect(gm.locator(".roll-steps")).to_contain_text("The GM voided Ada's roll (Body).")
    shot(gm, "gm-roll-page-voided")
    # The GM's history offers the secret filter; the void is one of its events.
    gm.get_by_role("link", name="History").click()
    gm.get_by_text("Filters", exact=True).click()
    expect(gm.get_by_label("Secret or blind")).to_be_visible()
    expect(gm.locator("ol.history .event-roll-void")).to_have_count(1)
    shot(gm, "gm-history-filters")

    # The phone's open page: the same card, struck through, without a reload.
    expect(feed_card).to_have_class(re.compile(r"\bvoided\b"))
    expect(feed_card.locator(".pill.void")).to_have_text("voided")
    phone.set_viewport_size({"width": 360, "height": 740})
    phone.goto(f"/c/{phone.url.split('/c/')[1].split('/')[0]}/history/")
    expect(phone.locator(f"#history-roll-{mistake}")).to_have_class(re.compile(r"\bvoided\b"))
    expect(phone.locator("ol.history .event-roll-void")).to_contain_text("The GM voided")
    assert_fits_phone(phone)
    shot(phone, "phone-history-voided", full_page=False)
