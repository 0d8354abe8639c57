"""The sockets' database calls, keeping the socket thread's connection open.

Channels runs the sockets' database calls one at a time on one long-lived thread and closes
its connection around each (``database_sync_to_async``), and once more before every message a
consumer handles (``AsyncConsumer.dispatch``). Opening and closing cost more than the reads
themselves (SQLite: a checkpoint of the WAL whenever the last connection closes; PostgreSQL: a
new backend process), and the close before each message is one more trip to that thread per
socket and message. Here the thread keeps its connection, as ``CONN_MAX_AGE`` would, and drops
it only when it is broken or was left in a transaction.

Private to Channels, read here: that ``dispatch`` does nothing but find the handler, close old
connections and call it (``channels.consumer.AsyncConsumer.dispatch``, Channels 4.3), and that
``AsyncWebsocketConsumer.websocket_disconnect`` does nothing but leave the class's groups, call
``disconnect()``, close old connections and stop.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from asgiref.sync import SyncToAsync
from asgiref.typing import WebSocketDisconnectEvent
from channels.consumer import get_handler_name
from channels.db import database_sync_to_async
from channels.exceptions import StopConsumer
from django.db import connections

from tabletop.serving import enabled


def _close_if_broken() -> None:
    for connection in connections.all(initialized_only=True):
        if connection.connection is None:
            continue
        if (
            connection.in_atomic_block
            or connection.get_autocommit() != connection.settings_dict["AUTOCOMMIT"]
        ):
            connection.close()
        elif connection.errors_occurred:
            if connection.is_usable():
                connection.errors_occurred = False
            else:
                connection.close()


class _Database(SyncToAsync):
    """``database_sync_to_async`` without its close of the connection around every call."""

    def thread_handler(self, *args: Any, **kwargs: Any) -> Any:
        try:
            return super().thread_handler(*args, **kwargs)
        finally:
            _close_if_broken()


def database(function: Callable[..., Any]) -> Callable[..., Any]:
    """``function`` as a coroutine function on the sockets' database thread: this room's
    version, or Channels' own ``database_sync_to_async`` with ``FAST_PATH["consumer"]`` off."""
    if enabled("consumer"):
        return _Database(function, thread_sensitive=True)
    return database_sync_to_async(function)


class KeptConnectionDispatch:
    """A consumer mixin: Channels' ``dispatch`` without its close of old connections before
    every message, and ``AsyncWebsocketConsumer.websocket_disconnect`` without the one after
    ``disconnect()`` (every database call of the consumer goes through ``database()``, which
    looks after that connection itself). Put it before Channels' consumer class."""

    async def websocket_disconnect(self, message: WebSocketDisconnectEvent) -> None:
        # Channels' closes old connections after ``disconnect()``: one more trip to the
        # sockets' database thread for every socket that closes, to look at a connection this
        # room keeps anyway (bench/connect_cpu.py: 0.1-0.2 ms of a connect's CPU). The rest is
        # Channels' own: leave the class's groups, ``disconnect()``, stop.
        if not enabled("consumer"):
            await super().websocket_disconnect(message)  # type: ignore[misc]
            return
        for group in self.groups:  # type: ignore[attr-defined]
            await self.channel_layer.group_discard(group, self.channel_name)  # type: ignore[attr-defined]
        await self.disconnect(message["code"])  # type: ignore[attr-defined]
        raise StopConsumer()

    async def dispatch(self, message: dict[str, Any]) -> None:
        if not enabled("consumer"):
            await super().dispatch(message)  # type: ignore[misc]
            return
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)
