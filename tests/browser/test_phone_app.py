"""The phone as an app, in Chromium at 360 x 740: the roll screen keeps the screen on while a
session runs and lets go when the GM ends it, and the service worker keeps the page shell and
never a campaign page. 127.0.0.1 is a secure context, so the wake lock is the browser's own."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from rolls.campaigns import services
from tests import factories
from tests.browser.conftest import Browsers, Shot
from tests.browser.flows import in_thread, roll, sign_in, wait_live
from tests.factories import Table

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Keeps every lock the page is given, so the test can ask the browser's own sentinel whether
# it was released (the page keeps only the one it holds).
KEEP_LOCKS = """
(() => {
  if (!("wakeLock" in navigator)) return;
  const request = navigator.wakeLock.request.bind(navigator.wakeLock);
  window.__locks = [];
  navigator.wakeLock.request = (type) => request(type).then((lock) => { window.__locks.push(lock); return lock; });
})();
"""
# The switch that lets the worker register on http:// (static/js/app.js), for this test only.
WORKER_ON_HTTP = 'localStorage.setItem("tabletop-worker-on-http", "1");'


def _roll_screen(browsers: Browsers, table: Table, *scripts: str) -> Page:
    phone = browsers.phone()
    for script in scripts:
        phone.context.add_init_script(script)
    sign_in(phone, table.player, browsers.base_url)
    phone.goto(table.character.get_absolute_url())
    wait_live(phone)
    return phone


def _locks(phone: Page) -> list[bool]:
    """Each lock the page was given, True once released."""
    released: list[bool] = phone.evaluate("window.__locks.map((lock) => lock.released)")
    return released


def test_the_roll_screen_keeps_the_screen_on_until_the_gm_ends_the_session(
    browsers: Browsers, docs_shot: Shot
) -> None:
    table = in_thread(factories.table)
    phone = _roll_screen(browsers, table, KEEP_LOCKS)
    html = phone.locator("html")

    expect(html).to_have_attribute("data-wake-lock", "on")
    expect(phone.locator("#wake-lock")).to_be_visible()
    expect(phone.locator("#wake-lock")).to_have_text("Screen stays on")
    assert _locks(phone) == [False]
    docs_shot(phone, "phone-install", full_page=False)

    in_thread(lambda: services.session_end(campaign=table.campaign, actor=table.gm))
    expect(phone.locator("#session-status")).to_contain_text("No session running")
    expect(html).to_have_attribute("data-wake-lock", "off")
    expect(phone.locator("#wake-lock")).to_be_hidden()
    assert _locks(phone) == [True]

    # The next session takes a new lock, live again.
    in_thread(lambda: services.session_start(campaign=table.campaign, actor=table.gm))
    expect(phone.locator("#session-status")).to_contain_text("Session 2 is on")
    expect(html).to_have_attribute("data-wake-lock", "on")
    assert _locks(phone) == [True, False]


def test_the_lock_is_taken_again_when_the_page_comes_back(browsers: Browsers) -> None:
    """A hidden page loses its lock (the browser releases it); visible again, the page asks anew.
    Headless Chromium never hides a page, so the test says it did, as a phone's browser would."""
    table = in_thread(factories.table)
    phone = _roll_screen(browsers, table, KEEP_LOCKS)
    html = phone.locator("html")
    expect(html).to_have_attribute("data-wake-lock", "on")

    phone.evaluate("""async () => {
      Object.defineProperty(document, "visibilityState", { value: "hidden", configurable: true });
      await window.__locks[0].release();
      document.dispatchEvent(new Event("visibilitychange"));
    }""")
    expect(html).to_have_attribute("data-wake-lock", "off")
    phone.evaluate("""() => {
      delete document.visibilityState;
      document.dispatchEvent(new Event("visibilitychange"));
    }""")
    expect(html).to_have_attribute("data-wake-lock", "on")
    assert _locks(phone) == [True, False]


def test_no_lock_is_asked_for_while_no_session_runs(browsers: Browsers) -> None:
    table = in_thread(factories.table)
    in_thread(lambda: services.session_end(campaign=table.campaign, actor=table.gm))
    phone = _roll_screen(browsers, table, KEEP_LOCKS)
    expect(phone.locator("html")).to_have_attribute("data-wake-lock", "off")
    assert _locks(phone) == []
    expect(phone.locator("#wake-lock")).to_be_hidden()


def test_without_https_or_the_switch_no_worker_is_registered(browsers: Browsers) -> None:
    table = in_thread(factories.table)
    phone = _roll_screen(browsers, table)
    phone.wait_for_load_state("load")
    assert phone.evaluate("navigator.serviceWorker.getRegistrations().then((all) => all.length)") == 0


def test_the_worker_keeps_the_shell_and_never_a_campaign_page(
    browsers: Browsers, dice: factories.Script, shot: Shot
) -> None:
    table = in_thread(factories.table)
    phone = _roll_screen(browsers, table, WORKER_ON_HTTP)
    # Not wait_for_function: its polling evaluates a string, which the page's CSP refuses.
    phone.evaluate("""() => new Promise((resolve) => {
      if (navigator.serviceWorker.controller) return resolve(true);
      navigator.serviceWorker.addEventListener("controllerchange", () => resolve(true));
    })""")
    url = phone.url

    # A roll and a page of the history with the worker in charge: neither is kept.
    dice(6, then=1)
    roll(phone)
    phone.goto(f"/c/{table.campaign.pk}/history/")
    phone.go_back()
    wait_live(phone)
    kept: list[str] = phone.evaluate("""async () => {
      const names = await caches.keys();
      const urls = [];
      for (const name of names) {
        for (const request of await (await caches.open(name)).keys()) urls.push(new URL(request.url).pathname);
      }
      return urls;
    }""")
    assert kept and "/offline/" in kept, kept
    assert all(path.startswith("/static/") or path == "/offline/" for path in kept), kept

    # The campaign page comes from the server each time: a roll made elsewhere is on it.
    other = in_thread(lambda: factories.a_roll("sixes", table.character, table.player))
    answer = phone.goto(url)
    assert answer is not None and answer.ok
    expect(phone.locator(f'#feed [data-roll="{other.pk}"]')).to_have_count(1)

    # Offline, the roll screen is not there to show: the offline page is, styled from the shell.
    phone.context.set_offline(True)
    browsers.ignore(r"net::ERR_INTERNET_DISCONNECTED|Failed to load resource")
    phone.goto(url)
    expect(phone.get_by_role("heading", level=1)).to_have_text("The table needs a connection")
    expect(phone.locator("#roll-form")).to_have_count(0)
    background = phone.evaluate("getComputedStyle(document.body).backgroundImage")
    assert "radial-gradient" in background, background
    shot(phone, "phone-offline", full_page=False)
    # Nor is a partial the page asks for.
    odds = f"/c/{table.campaign.pk}/characters/{table.character.pk}/odds/"
    assert phone.evaluate(f"fetch({odds!r}).then(() => 'answered', () => 'failed')") == "failed"

    # Back online, "Try again" opens the roll screen itself.
    phone.context.set_offline(False)
    phone.get_by_role("link", name="Try again").click()
    expect(phone.get_by_role("heading", level=1)).to_have_text(table.character.name)
    assert re.search(r"/c/\d+/characters/\d+/$", phone.url)
