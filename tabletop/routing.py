from __future__ import annotations

from typing import TYPE_CHECKING

from django.urls import path

from rolls.live.consumers import TableConsumer
from rolls.live.display_consumer import DisplayConsumer
from rolls.live.overlay_consumer import OverlayConsumer

if TYPE_CHECKING:
    from channels.routing import URLRouter, _ExtendedURLPattern

# django-stubs' path() takes views only; Channels routes ASGI applications with it, and its
# URLRouter wants the patterns typed as its own.
websocket_urlpatterns: list[_ExtendedURLPattern | URLRouter] = [
    path("ws/c/<int:campaign_id>/", TableConsumer.as_asgi()),  # type: ignore[arg-type, list-item]
    # The table display, by its own link's token (rolls/live/display_consumer.py).
    path("ws/display/<str:token>/", DisplayConsumer.as_asgi()),  # type: ignore[arg-type, list-item]
    # The stream overlay, by its own link's token (rolls/live/overlay_consumer.py).
    path("ws/overlay/<str:token>/", OverlayConsumer.as_asgi()),  # type: ignore[arg-type, list-item]
]
