"""Issue 42: a phone that loses the network. What it tapped offline says so and is not sent
(nor sent twice later); "Offline"/"Reconnecting…" stays in view; and when the network comes
back the page reconnects by itself (the browser's "online" event) and catches up at once."""

from __future__ import annotations

import time
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import Browsers, Shot
from tests.browser.flows import drop_socket, join_with_character, open_table, roll, roll_id, wait_live
from tests.browser.test_phone import _in_thread

pytestmark = pytest.mark.browser

OFFLINE = "You are offline: this was not sent."
NO_ANSWER = "No answer came back. Tap again: it will not be done twice."


def _rolls_of(name: str) -> int:
    from rolls.models import Roll

    return Roll.objects.filter(character_name=name).count()


def _ignore_offline_noise(browsers: Browsers) -> None:
    # Offline, the page's reconnect attempts fail, and the browser and htmx say so.
    browsers.ignore(r"ERR_INTERNET_DISCONNECTED")
    browsers.ignore(r"^\[object Event\]$")
    browsers.ignore(r"htmx:sendError")


def test_a_phone_offline_for_20_seconds_catches_up_within_3_seconds_of_the_network(
    browsers: Browsers,
) -> None:
    _ignore_offline_noise(browsers)
    gm = browsers.gm()
    link = open_table(gm)
    ada = join_with_character(browsers.phone(), link, "Alice", "Ada")
    bo = join_with_character(browsers.phone(), link, "Bruno", "Bo")

    # Bo's phone leaves the network, and its socket dies with it.
    bo.page.context.set_offline(True)
    drop_socket(bo.page)
    gone = time.monotonic()
    # The state is in view wherever the page is scrolled.
    bo.page.mouse.wheel(0, 2000)
    status = bo.page.locator("#live-status")
    expect(status).to_have_text("Offline: waiting for the network…")
    box = status.bounding_box()
    assert box is not None and 0 <= box["y"] and box["y"] + box["height"] <= 740, box

    # Meanwhile Ada rolls, three times.
    missed = [roll_id(roll(ada.page)) for _ in range(3)]
    for rolled in missed:
        expect(gm.locator(f"#feed-roll-{rolled}")).to_be_visible()
    bo.page.wait_for_timeout(max(0, 20_000 - (time.monotonic() - gone) * 1000))
    expect(bo.page.locator(f"#feed-roll-{missed[0]}")).to_have_count(0)

    # Back in the network: no tap, no reload; the page hears it and catches up.
    bo.page.context.set_offline(False)
    back = time.monotonic()
    for rolled in missed:
        expect(bo.page.locator(f"#feed-roll-{rolled}")).to_have_count(1, timeout=3000)
    assert time.monotonic() - back < 3, time.monotonic() - back
    expect(status).to_have_attribute("data-state", "live")


def test_a_tap_made_offline_says_so_and_is_not_sent_then_or_later(browsers: Browsers, shot: Shot) -> None:
    _ignore_offline_noise(browsers)
    gm = browsers.gm()
    link = open_table(gm)
    bo = join_with_character(browsers.phone(), link, "Bruno", "Bo")
    page = bo.page

    page.context.set_offline(True)
    button = page.locator("#roll-form .roll-button")
    button.click()
    alert = page.locator("#roll-form [data-refusal] [role=alert]")
    expect(alert).to_have_text(OFFLINE)
    box = alert.bounding_box()
    assert box is not None and 0 <= box["y"] and box["y"] + box["height"] <= 740, box
    shot(page, "offline-tap", full_page=False)
    button.click()  # and again, impatient
    expect(alert).to_have_count(1)
    assert _in_thread(_rolls_of, "Bo") == 0

    # Back online: nothing was kept to send by itself; the next tap rolls once.
    page.context.set_offline(False)
    wait_live(page)
    page.wait_for_timeout(500)
    assert _in_thread(_rolls_of, "Bo") == 0
    button.click()
    expect(page.locator("#result .card")).to_be_visible()
    expect(alert).to_have_count(0)
    page.wait_for_timeout(500)
    assert _in_thread(_rolls_of, "Bo") == 1


def test_a_request_lost_on_the_way_says_so_and_its_button_waits_while_it_travels(
    browsers: Browsers,
) -> None:
    """The browser thinks it is online, but the request never arrives (htmx:sendError)."""
    _ignore_offline_noise(browsers)
    browsers.ignore(r"net::ERR_FAILED")
    browsers.ignore(r"^htmx:afterRequest")  # htmx logs the failed request it then reports
    gm = browsers.gm()
    link = open_table(gm)
    bo = join_with_character(browsers.phone(), link, "Bruno", "Bo")
    page = bo.page
    page.route("**/roll/", lambda route: route.abort())
    page.locator("#roll-form .roll-button").click()
    expect(page.locator("#roll-form [data-refusal] [role=alert]")).to_have_text(NO_ANSWER)
    expect(page.locator("#roll-form .roll-button")).to_be_enabled()
    assert _in_thread(_rolls_of, "Bo") == 0

    # A slow answer: the button is disabled while the roll travels, so a second tap is not a
    # second roll.
    page.unroute("**/roll/")
    # The request is held, not slept on: a sleep in the handler runs on the thread that then
    # checks the button, so the answer could arrive before the check began.
    held: list[Any] = []
    page.route("**/roll/", lambda route: held.append(route))
    page.locator("#roll-form .roll-button").click()
    for _ in range(250):  # the route's handler runs while Playwright waits: at most 5 s
        if held:
            break
        page.wait_for_timeout(20)
    assert held, "the roll never left the phone"
    expect(page.locator("#roll-form .roll-button")).to_be_disabled()
    held[0].continue_()
    expect(page.locator("#result .card")).to_be_visible()
    expect(page.locator("#roll-form .roll-button")).to_be_enabled()
    assert _in_thread(_rolls_of, "Bo") == 1


def test_a_roll_whose_answer_is_lost_is_not_rolled_again_by_the_second_tap(browsers: Browsers) -> None:
    """The roll reaches the server, the network drops before its answer: the second tap
    carries the same one-time key and gets the first roll back (rolls/log/resent.py)."""
    _ignore_offline_noise(browsers)
    browsers.ignore(r"net::ERR_FAILED")
    browsers.ignore(r"^htmx:afterRequest")
    gm = browsers.gm()
    link = open_table(gm)
    bo = join_with_character(browsers.phone(), link, "Bruno", "Bo")
    page = bo.page

    def answer_lost(route: Any) -> None:
        route.fetch()  # the server gets the roll and answers ...
        route.abort()  # ... and the answer never reaches the phone

    page.route("**/roll/", answer_lost)
    button = page.locator("#roll-form .roll-button")
    button.click()
    expect(page.locator("#roll-form [data-refusal] [role=alert]")).to_have_text(NO_ANSWER)
    assert _in_thread(_rolls_of, "Bo") == 1

    page.unroute("**/roll/")
    button.click()
    card = page.locator("#result .card")
    expect(card).to_be_visible()
    assert _in_thread(_rolls_of, "Bo") == 1
    # The card the phone shows is that one roll, which the GM's feed shows once too.
    rolled = roll_id(card)
    expect(gm.locator(f"#feed-roll-{rolled}")).to_have_count(1)
    expect(page.locator("#roll-form [data-refusal] [role=alert]")).to_have_count(0)

    # The key ends with the answer: the next tap is a new roll.
    button.click()
    expect(page.locator("#result .card")).not_to_have_attribute("id", f"result-roll-{rolled}")
    page.wait_for_timeout(300)
    assert _in_thread(_rolls_of, "Bo") == 2
