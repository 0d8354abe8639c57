"""The production configuration for real: two server processes sharing PostgreSQL and Redis.

These run in the second pass of `manage.py runtests` under CI=true (TEST_PRODUCTION=1, with
DATABASE_URL and REDIS_URL set); on the embedded default they are skipped, since that
configuration is one process by design.
"""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import httpx
import pytest
import websockets
from django.conf import settings
from django.db import connection
from django.test import Client
from django.urls import reverse

from tests.conftest import PRODUCTION
from tests.factories import Table
from tests.servers import free_port, server_process

pytestmark = [
    pytest.mark.production,
    pytest.mark.skipif(not PRODUCTION, reason="needs PostgreSQL + Redis (TEST_PRODUCTION=1)"),
]
SEQ = re.compile(r'data-seq="(\d+)"')


def test_it_runs_on_postgresql_and_redis() -> None:
    assert settings.DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql"
    assert settings.CHANNEL_LAYERS["default"]["BACKEND"] == "channels_redis.core.RedisChannelLayer"


def _cookies(table: Table) -> dict[str, str]:
    client = Client()
    client.force_login(table.player)
    return {"sessionid": client.cookies["sessionid"].value}


def _roll(base: str, table: Table, cookies: dict[str, str]) -> int:
    """Roll through the real HTTP endpoint of one server; returns the new roll's id."""
    with httpx.Client(base_url=f"http://{base}", cookies=cookies) as http:
        page = http.get(reverse("rolls:character", args=[table.campaign.pk, table.character.pk]))
        assert page.status_code == 200
        token = http.cookies["csrftoken"]
        response = http.post(
            reverse("rolls:roll-create", args=[table.campaign.pk, table.character.pk]),
            data={"trait": "skill-0", "need": 3},
            headers={"X-CSRFToken": token, "HX-Request": "true", "Referer": f"http://{base}/"},
        )
        assert response.status_code == 200, response.text
        return int(re.search(r'data-roll="(\d+)"', response.text).group(1))  # type: ignore[union-attr]


def _push(base: str, table: Table, cookies: dict[str, str], roll_id: int) -> None:
    with httpx.Client(base_url=f"http://{base}", cookies=cookies) as http:
        http.get(reverse("rolls:character", args=[table.campaign.pk, table.character.pk]))
        response = http.post(
            reverse("rolls:follow-up", args=[table.campaign.pk, roll_id]),
            data={"action": "push", "condition": "Scared", "description": "Olle grits his teeth"},
            headers={
                "X-CSRFToken": http.cookies["csrftoken"],
                "HX-Request": "true",
                "Referer": f"http://{base}/",
            },
        )
        assert response.status_code in (200, 422), response.text


def _last_seq(table: Table) -> int:
    try:
        return int(table.campaign.log.order_by("-seq").values_list("seq", flat=True).first() or 0)
    finally:
        connection.close()  # this runs in a worker thread: leave no session open on the test database


async def _collect(base: str, table: Table, cookies: dict[str, str], since: int, until: int) -> list[int]:
    """Sequence numbers a socket on ``base`` receives after ``since``, up to ``until``."""
    url = f"ws://{base}/ws/c/{table.campaign.pk}/"
    headers = {"Cookie": f"sessionid={cookies['sessionid']}", "Origin": f"http://{base}"}
    seen: list[int] = []
    async with websockets.connect(url, additional_headers=headers) as socket:
        await socket.send(json.dumps({"since": since}))
        while not seen or seen[-1] < until:
            message = await asyncio.wait_for(socket.recv(), timeout=10)
            seen += [int(s) for s in SEQ.findall(str(message))]
    return seen


@pytest.mark.django_db(transaction=True)
def test_a_socket_on_one_server_receives_in_order_what_is_posted_to_the_other(
    table: Table, tmp_path: Path
) -> None:
    cookies = _cookies(table)
    with server_process(free_port(), tmp_path) as first, server_process(free_port(), tmp_path) as second:
        start = table.campaign.log.order_by("-seq").values_list("seq", flat=True).first() or 0

        async def scenario() -> list[int]:
            url = f"ws://{first}/ws/c/{table.campaign.pk}/"
            headers = {"Cookie": f"sessionid={cookies['sessionid']}", "Origin": f"http://{first}"}
            seen: list[int] = []
            async with websockets.connect(url, additional_headers=headers) as socket:
                await socket.send(json.dumps({"since": start}))
                await asyncio.sleep(0.3)
                loop = asyncio.get_running_loop()
                for _ in range(3):
                    roll_id = await loop.run_in_executor(None, _roll, second, table, cookies)
                    await loop.run_in_executor(None, _push, second, table, cookies, roll_id)
                last = await loop.run_in_executor(None, _last_seq, table)
                while not seen or seen[-1] < last:
                    message = await asyncio.wait_for(socket.recv(), timeout=10)
                    seen += [int(s) for s in SEQ.findall(str(message))]
            return seen

        seen = asyncio.run(scenario())
        expected = list(
            table.campaign.log.filter(seq__gt=start).order_by("seq").values_list("seq", flat=True)
        )
        assert len(expected) >= 3
        # Every entry once, in order (a card's markup may repeat its seq for the result panel).
        assert sorted(set(seen)) == expected
        assert seen == sorted(seen)

        # A socket reconnecting to either server catches up from where it was.
        middle = expected[len(expected) // 2]
        for base in (first, second):
            caught = asyncio.run(_collect(base, table, cookies, middle, expected[-1]))
            assert sorted(set(caught)) == [s for s in expected if s > middle]
