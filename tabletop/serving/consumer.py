"""The sockets' consumers: their database calls, and the one private name the app keeps.

``database(function)`` runs the call on the sockets' database thread, as Channels' documented
``database_sync_to_async`` does, and keeps that thread's connection open across calls, where
Channels' closes it around each as ``CONN_MAX_AGE`` says: with psycopg's pool
(``CONN_MAX_AGE`` 0, as Django requires for it) that was a connection taken from the pool,
checked with a round trip, and given back, for every read a socket makes (``bench/load.py
--config production``: 58% of a core for the server before this branch, 68% with Channels'
wrapper). The connection is closed (given back) only when a call leaves it inside a
transaction (``transaction.get_autocommit()``) or fails with a database error, so that the next
call opens a good one. All of it documented: ``sync_to_async``, ``connections.all()``,
``connection.close()``, ``transaction.get_autocommit()``, ``django.db.Error``.

``KeptConnectionDispatch`` is the only place where the app relies on a library's internals, kept
for what it saves: Channels' ``AsyncConsumer.dispatch`` closes old connections before every
message a consumer handles (``aclose_old_connections()``, a trip to the sockets' database thread
per socket and message), and ``AsyncWebsocketConsumer.websocket_disconnect`` once more after
``disconnect()``. Every database call of our consumers goes through ``database()``, which
looks after the connection itself, so the trips look after nothing. ``bench/connect_cpu.py --connects
600 --batches 3``, 2026-12-06: 1.84 ms of CPU per connect without the mixin, 1.48-1.50
with it; and one trip less per socket for each broadcast a table's sockets receive.
What it relies on (Channels 4.3): that ``dispatch`` does nothing but find the handler
(``get_handler_name``), close old connections and call it, and that
``websocket_disconnect`` does nothing but leave the class's groups, call ``disconnect()``,
close old connections and stop. ``tests/test_serving_switches.py`` reads both in the installed
Channels and fails when either does anything else: revisit this module then (no pin holds
Channels back). With ``FAST_PATH["consumer"]`` off, Channels' own run.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from asgiref.sync import sync_to_async
from asgiref.typing import WebSocketDisconnectEvent
from channels.consumer import get_handler_name
from channels.db import database_sync_to_async
from channels.exceptions import StopConsumer
from django.db import Error, connections, transaction

from tabletop.serving import enabled


def _kept(function: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(function)
    def call(*args: Any, **kwargs: Any) -> Any:
        try:
            return function(*args, **kwargs)
        except Error:  # django.db's: the driver's errors, InterfaceError included
            _close_all()  # perhaps broken: the next call opens a new one
            raise
        finally:
            for connection in connections.all(initialized_only=True):
                if not transaction.get_autocommit(using=connection.alias):
                    connection.close()  # left in a transaction: start the next call clean

    return call


def _close_all() -> None:
    for connection in connections.all(initialized_only=True):
        connection.close()


def database(function: Callable[..., Any]) -> Callable[..., Any]:
    """``function`` as a coroutine function on the sockets' database thread, its connection
    kept; Channels' own ``database_sync_to_async`` with ``FAST_PATH["consumer"]`` off."""
    if enabled("consumer"):
        return sync_to_async(_kept(function), thread_sensitive=True)
    return database_sync_to_async(function)


class KeptConnectionDispatch:
    """A consumer mixin: Channels' ``dispatch`` without its close of old connections before
    every message, and ``AsyncWebsocketConsumer.websocket_disconnect`` without the one after
    ``disconnect()`` (every database call of the consumer goes through ``database()``, which
    looks after that connection itself). Put it before Channels' consumer class."""

    async def websocket_disconnect(self, message: WebSocketDisconnectEvent) -> None:
        if not enabled("consumer"):
            await super().websocket_disconnect(message)  # type: ignore[misc]
            return
        # Channels' own steps but the last close: leave the class's groups, disconnect(), stop.
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
