from __future__ import annotations

from django.urls import path

from rolls.consumers import TableConsumer

websocket_urlpatterns = [path("ws/c/<int:campaign_id>/", TableConsumer.as_asgi())]
