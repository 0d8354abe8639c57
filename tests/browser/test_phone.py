"""The player's phone at 360 x 740, for each of the five systems: one roll fits one screen,
the result shows where the player looks without the page jumping, a refusal shows next to
what was tapped, and what the GM changes follows live."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.conf import settings
from django.db import connection
from django.test import Client
from playwright.sync_api import Page, expect

from rolls import campaigns
from tests import factories
from tests.browser.conftest import Browsers, Shot
from tests.browser.flows import assert_fits_phone, wait_live
from tests.factories import Table

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SYSTEMS = ["sixes", "kinds", "doubles", "sets", "stars"]


def _in_thread[T](function: Callable[..., T], *args: object, **kwargs: object) -> T:
    """Database work off this thread: Playwright keeps an event loop running here, and the
    services broadcast through async_to_sync, which refuses to run beside one."""

    def run() -> T:
        try:
            return function(*args, **kwargs)
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(run).result()


def _table(system: str) -> Table:
    return factories.table(system, sheet=None if system == "sixes" else factories.sheet_of(system))


def _sign_in(page: Page, user: object, base: str) -> None:
    client = Client()
    client.force_login(user)  # type: ignore[arg-type]
    cookie = client.cookies[settings.SESSION_COOKIE_NAME].value
    page.context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "value": cookie, "url": base}])


def _roll_screen(browsers: Browsers, table: Table) -> Page:
    phone = browsers.phone()
    _sign_in(phone, table.player, browsers.base_url)
    phone.goto(table.character.get_absolute_url())
    wait_live(phone)
    return phone


@pytest.mark.parametrize("system", SYSTEMS)
def test_the_roll_screen_shots(system: str, browsers: Browsers, shot: Shot, dice: factories.Script) -> None:
    table = _in_thread(_table, system)
    phone = _roll_screen(browsers, table)
    shot(phone, f"phone-{system}-roll", full_page=False)
    shot(phone, f"phone-{system}-roll-full")
    dice(then=6)
    phone.locator("#roll-form button[type=submit]").click()
    expect(phone.locator("#result .card")).to_be_visible()
    phone.wait_for_timeout(600)
    shot(phone, f"phone-{system}-result", full_page=False)
    assert_fits_phone(phone)
