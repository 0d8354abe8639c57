"""The dice seal in a real browser: the TV shows the session's seed hash from the start, the
phone's script sends its own random value with each roll (a phone without script leaves it to
the server), and once the GM ends the session the history shows the seed, whole."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from rolls.models import LogEntry
from tabletop.models import PlaySession
from tests.browser.conftest import Browsers, Shot
from tests.browser.flows import (
    create_character,
    join,
    join_with_character,
    open_table,
    roll,
    roll_id,
    wait_live,
)


@pytest.mark.browser
def test_the_seal_is_shown_the_phone_adds_its_value_and_the_seed_comes_out_at_the_end(
    browsers: Browsers, shot: Shot
) -> None:
    gm = browsers.gm()
    link = open_table(gm)
    session = PlaySession.objects.get()
    short = session.seed_hash[:12]
    expect(gm.locator("#session-status .seal")).to_contain_text(short)

    tv = browsers.display()
    tv.goto(gm.locator("#display-url").get_attribute("href") or "")
    wait_live(tv)
    expect(tv.locator("#display-status .seal")).to_contain_text(short)
    expect(tv.locator("#display-status .seal code")).to_have_attribute("title", re.compile(session.seed_hash))

    ada = join_with_character(browsers.phone(), link, "Ada", "Ada Lind")
    card = roll(ada.page)
    entry = LogEntry.objects.get(roll_id=roll_id(card), action="roll")
    assert entry.dice is not None and entry.dice["client_from"] == "browser"
    assert re.fullmatch(r"[0-9a-f]{32}", entry.dice["client"])
    expect(tv.locator(".display-feed .card")).to_have_count(1)
    shot(tv, "dice-seal-display-1920", full_page=False)

    bo = browsers.phone_without_script()
    join(bo, link, "Bo")
    create_character(bo, "Bo Berg")
    bo.get_by_role("button", name="Roll", exact=True).click()
    expect(bo.locator("#result .card")).to_be_visible()
    last = LogEntry.objects.filter(kind="roll").order_by("-seq").first()
    assert last is not None and last.dice is not None and last.dice["client_from"] == "server"

    gm.once("dialog", lambda dialog: dialog.accept())
    gm.get_by_role("button", name="End session 1").click()
    expect(gm.locator("#session-status")).to_contain_text("No session running")
    session.refresh_from_db()
    history = ada.page
    history.goto(reverse("rolls:history", args=[session.campaign_id]))
    seal = history.locator("details.dice-seal").first
    expect(seal.locator("summary")).to_contain_text(short)
    expect(seal.locator("summary")).to_contain_text("seed revealed")
    seal.locator("summary").click()
    expect(seal).to_contain_text(session.seed)
    expect(history.locator(".event-session-end .seal")).to_contain_text(session.seed[:12])
    shot(history, "dice-seal-history-360")
    history.set_viewport_size({"width": 1920, "height": 1080})
    shot(history, "dice-seal-history-1920", full_page=False)
