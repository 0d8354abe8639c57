"""The bare Channels baseline: what Django + Channels + uvicorn cost with nothing of ours.

One Django view rolls dice with ``random.SystemRandom`` and group-sends the result; one
consumer joins its table's group and forwards what it is sent. No database, no sessions, no
middleware, no templates: ``bench/load.py`` drives it with the same phones, the same rate and
the same channel layer as the app, so the ratio between the two is what the app adds.

Served by uvicorn as ``bench.baseline:application``. The channel layer comes from the
environment, as in the app: ``REDIS_URL`` selects channels-redis with the app's options;
otherwise ``BENCH_CHANNEL_LAYER`` (the backend the app is configured with, which load.py
passes in), or Channels' in-memory layer.
"""

from __future__ import annotations

import itertools
import os
import random
import threading

import django
from django.conf import settings

if redis_url := os.environ.get("REDIS_URL", "").strip():
    LAYER = {
        "BACKEND": "channels_redis.core.RedisChannelLayer",
        "CONFIG": {"hosts": [redis_url], "capacity": 1000, "expiry": 30},
    }
else:
    LAYER = {"BACKEND": os.environ.get("BENCH_CHANNEL_LAYER") or "channels.layers.InMemoryChannelLayer"}

if not settings.configured:
    settings.configure(
        DEBUG=False,
        SECRET_KEY="bench-baseline",
        ALLOWED_HOSTS=["127.0.0.1", "localhost"],
        ROOT_URLCONF=__name__,
        INSTALLED_APPS=["channels"],
        MIDDLEWARE=[],
        DATABASES={},
        CHANNEL_LAYERS={"default": LAYER},
        USE_TZ=True,
        FORWARDED_ALLOW_IPS="127.0.0.1",  # read by the options of ``manage.py serve``
    )
    django.setup()

from asgiref.sync import async_to_sync
from channels.generic.websocket import AsyncWebsocketConsumer
from channels.layers import get_channel_layer
from channels.routing import ProtocolTypeRouter, URLRouter
from django.core.asgi import get_asgi_application
from django.http import HttpRequest, HttpResponse, HttpResponseNotAllowed
from django.urls import path

RNG = random.SystemRandom()
# Sequence numbers unique across worker processes: a counter, then the process id.
_counter = itertools.count(1)
_lock = threading.Lock()
_WORKER = os.getpid() % 100_000


def _next_seq() -> int:
    with _lock:
        return next(_counter) * 100_000 + _WORKER


def roll(request: HttpRequest, table: int) -> HttpResponse:
    if request.method != "POST":
        return HttpResponseNotAllowed(["POST"])
    dice = [RNG.randint(1, 6) for _ in range(5)]
    seq = _next_seq()
    # Shaped as the app's feed card, which is what the bench's listeners count (harness.SEQ).
    html = f'<li id="feed-roll-{seq}" class="card" data-seq="{seq}">{" ".join(map(str, dice))} ({dice.count(6)} sixes)</li>'
    layer = get_channel_layer()
    async_to_sync(layer.group_send)(f"table-{table}", {"type": "table.entry", "html": html})  # type: ignore[union-attr]
    return HttpResponse(html)


class TableConsumer(AsyncWebsocketConsumer):
    async def connect(self) -> None:
        self.group = f"table-{int(self.scope['url_route']['kwargs']['table'])}"
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()

    async def disconnect(self, code: int) -> None:
        await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        """The phones send ``{"since": N}``; the baseline keeps no log and ignores it."""

    async def table_entry(self, event: dict[str, str]) -> None:
        await self.send(text_data=event["html"])


urlpatterns = [path("t/<int:table>/roll/", roll)]

application = ProtocolTypeRouter(
    {
        "http": get_asgi_application(),
        "websocket": URLRouter([path("ws/t/<int:table>/", TableConsumer.as_asgi())]),
    }
)
