"""A server restart in the middle of a session: no committed roll is lost, and the page
reconnects by itself and goes on receiving rolls live."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
from django.conf import settings
from django.db import connection
from django.test import Client
from django.urls import reverse
from playwright.sync_api import Browser, expect

from rolls.models import Roll
from tests import factories
from tests.browser.conftest import PHONE
from tests.factories import Table
from tests.servers import free_port, server_process

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _session_cookie(table: Table) -> str:
    client = Client()
    client.force_login(table.player)
    return client.cookies[settings.SESSION_COOKIE_NAME].value


def _roll_over_http(base: str, table: Table, cookie: str) -> int:
    """A roll posted to the server as the phone would, outside the browser."""
    with httpx.Client(base_url=f"http://{base}", cookies={settings.SESSION_COOKIE_NAME: cookie}) as http:
        http.get(reverse("rolls:character", args=[table.campaign.pk, table.character.pk]))
        response = http.post(
            reverse("rolls:roll-create", args=[table.campaign.pk, table.character.pk]),
            data={"trait": "Body", "need": 1},
            headers={"X-CSRFToken": http.cookies["csrftoken"], "HX-Request": "true"},
        )
        assert response.status_code == 200, response.text
    return int(Roll.objects.order_by("-id").values_list("id", flat=True)[0])


def _in_thread[T](function: Callable[..., T], *args: object) -> T:
    """Database work off this thread: Playwright keeps an event loop running here, and the
    services broadcast through async_to_sync, which refuses to run beside one."""

    def run() -> T:
        try:
            return function(*args)
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(run).result()


def test_a_restart_loses_no_roll_and_the_page_reconnects_by_itself(
    transactional_db: None, chromium: Browser, tmp_path: Path
) -> None:
    table = _in_thread(factories.table)
    port = free_port()
    cookie = _in_thread(_session_cookie, table)
    context = chromium.new_context(**PHONE)  # type: ignore[arg-type]
    context.add_cookies(
        [{"name": settings.SESSION_COOKIE_NAME, "value": cookie, "url": f"http://127.0.0.1:{port}"}]
    )
    page = context.new_page()
    status = page.locator("#live-status")
    try:
        with server_process(port, tmp_path) as base:
            page.goto(
                f"http://{base}" + reverse("rolls:character", args=[table.campaign.pk, table.character.pk])
            )
            expect(status).to_have_attribute("data-state", "live", timeout=15_000)
            before = _in_thread(_roll_over_http, base, table, cookie)
            expect(page.locator(f"#feed-roll-{before}")).to_be_visible(timeout=10_000)

        # The server is gone: the page says so, and the roll it had committed is still there.
        expect(status).to_have_attribute("data-state", "offline", timeout=15_000)
        assert _in_thread(lambda: Roll.objects.filter(pk=before).exists())

        with server_process(port, tmp_path) as base:
            expect(status).to_have_attribute("data-state", "live", timeout=30_000)
            after = _in_thread(_roll_over_http, base, table, cookie)
            expect(page.locator(f"#feed-roll-{after}")).to_be_visible(timeout=10_000)
            expect(page.locator(f"#feed-roll-{before}")).to_have_count(1)
    finally:
        context.close()
