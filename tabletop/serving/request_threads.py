"""Django's ASGI handler, with each request's work on a long-lived thread (one, or a few).

Stock Django under ASGI gives every request a new thread (a ``ThreadSensitiveContext`` of its
own), and goes back and forth between that thread and the event loop several times a request:
the middleware here is synchronous, so the chain runs on the thread, comes back to the loop
for the async inner handler, and goes out again for the view. A new thread also means a new
database connection each time, since Django keeps one per thread: for SQLite, a connect, the
PRAGMAs and some thirty SQL functions registered, then a WAL checkpoint at close.
bench/load.py measured that as a large part of a roll's cost.

This handler keeps Django's request handling as it is (signals, middleware, error handlers,
streaming) and changes three things:

- The middleware chain and the view run as Django runs them under WSGI: synchronously, in one
  call on the request's thread.
- That call also sends ``request_started`` and, for a response already in memory, closes it
  (``request_finished``): stock Django makes a trip to the thread for each of the three.
  A stream (a static file) is closed after it is sent, as Django does.
- The thread is one of ``REQUEST_THREADS`` long-lived threads (one by default: see the
  settings), lent to one request at a time, so its database connection outlives the request
  (``CONN_MAX_AGE``; PostgreSQL takes its connections from psycopg's pool instead).

While it works on a request, the thread knows the event loop that lent it
(``serving_loop()``): a broadcast is handed to that loop, which sends it in turn, without the
thread waiting for it (``rolls.live.publish``).

Admission (``MAX_CONCURRENT_WRITES``) is counted here, where requests queue for a thread: a
POST over the cap gets a thread of its own at once, and ``tabletop.serving.admission`` answers it with
the 503 "busy" page without waiting behind the queue it would have joined.

``tabletop/asgi.py`` serves with it while ``FAST_PATH["request_threads"]`` is on, and with
Django's own handler otherwise.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections import deque
from concurrent.futures import Executor, ThreadPoolExecutor
from contextlib import closing
from typing import IO, Any, cast

from asgiref.sync import ThreadSensitiveContext, sync_to_async
from django.conf import settings
from django.core import signals
from django.core.exceptions import RequestAborted
from django.core.handlers.asgi import ASGIHandler, get_script_prefix
from django.db import connections
from django.http import FileResponse
from django.http.response import HttpResponseBase
from django.urls import set_script_prefix

logger = logging.getLogger(__name__)

# Set in the scope of a write request that came over the cap (read by tabletop.serving.admission).
OVER_CAPACITY = "tabletop.over_capacity"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "TRACE"})

_serving = threading.local()


def serving_loop() -> asyncio.AbstractEventLoop | None:
    """The event loop that lent this thread the request it works on; None elsewhere (a socket's
    database thread, a management command, a test calling a service)."""
    return getattr(_serving, "loop", None)


class _Sent(Exception):
    """A stream went out whole (ends the task group that listens for a disconnect)."""


class Threads:
    """Long-lived single-thread executors, lent to one request at a time, first come first
    served. Used from one event loop (a server process runs one)."""

    def __init__(self, count: int) -> None:
        self.idle: list[Executor] = [
            ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"request-{n}") for n in range(count)
        ]
        self.waiting: deque[asyncio.Future[Executor]] = deque()

    async def borrow(self) -> Executor:
        if self.idle and not self.waiting:
            return self.idle.pop()
        future: asyncio.Future[Executor] = asyncio.get_running_loop().create_future()
        self.waiting.append(future)
        try:
            return await future
        except asyncio.CancelledError:
            # Lent to this request as it was cancelled: pass it on.
            if future.done() and not future.cancelled():
                self.give_back(future.result())
            raise

    def give_back(self, executor: Executor) -> None:
        while self.waiting:
            future = self.waiting.popleft()
            if not future.done():
                future.set_result(executor)
                return
        self.idle.append(executor)


class RequestThreadsHandler(ASGIHandler):
    def __init__(self, threads: int | None = None, max_writes: int | None = None) -> None:
        super().__init__()
        self.threads = Threads(threads if threads is not None else settings.REQUEST_THREADS)
        self.max_writes = max_writes if max_writes is not None else settings.MAX_CONCURRENT_WRITES
        self.writes = 0  # write requests in the process: working, or waiting for a thread

    def load_middleware(self, is_async: bool = False) -> None:
        # The synchronous chain, as under WSGI: one trip to the request's thread runs it all.
        super().load_middleware(is_async=False)

    async def handle(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        """``ASGIHandler.handle``, with the request's synchronous work in one trip to its thread."""
        try:
            body_file = await self.read_body(receive)
        except RequestAborted:
            return
        with closing(body_file):
            set_script_prefix(get_script_prefix(scope))
            respond = sync_to_async(self._respond, thread_sensitive=True)
            response = await respond(scope, body_file, asyncio.get_running_loop())
            if not response.streaming:
                await self.send_response(response, send)  # closed on the thread already
                return
            if isinstance(response, FileResponse):
                response.block_size = self.chunk_size
            # As Django sends a stream: stop when the client leaves, then close it.
            try:
                try:
                    async with asyncio.TaskGroup() as group:
                        group.create_task(self.listen_for_disconnect(receive))
                        await self.send_response(response, send)
                        raise _Sent
                except* (_Sent, RequestAborted):
                    pass
            except BaseExceptionGroup as errors:  # as Django: a lone error raised as itself
                if len(errors.exceptions) == 1:
                    raise errors.exceptions[0] from None
                raise
            finally:
                await sync_to_async(response.close, thread_sensitive=True)()

    def _respond(
        self, scope: dict[str, Any], body_file: IO[bytes], loop: asyncio.AbstractEventLoop
    ) -> HttpResponseBase:
        _serving.loop = loop
        try:
            signals.request_started.send(sender=self.__class__, scope=scope)
            request, response = self.create_request(scope, body_file)
            if request is not None:
                response = self.get_response(request)
            response = cast(HttpResponseBase, response)  # create_request's own response when no request
            response._handler_class = self.__class__  # type: ignore[attr-defined]  # the signal's sender
            if not response.streaming:
                try:
                    response.close()  # request_finished, here rather than after one more trip
                except Exception:  # the answer is whole: it goes out, as it would after sending
                    logger.exception("closing the response to %s failed", scope.get("path"))
            return response
        finally:
            _serving.loop = None

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            raise ValueError(f"Django can only handle ASGI/HTTP connections, not {scope['type']}.")
        write = scope["method"] not in SAFE_METHODS
        if write and self.writes >= self.max_writes:
            # Refused at once, on a thread of its own, rather than after the queue it would join.
            async with ThreadSensitiveContext():
                try:
                    await self.handle({**scope, OVER_CAPACITY: True}, receive, send)
                finally:
                    # The thread ends here: its connection (if the page opened one) with it.
                    await sync_to_async(connections.close_all, thread_sensitive=True)()
            return
        self.writes += write
        try:
            executor = await self.threads.borrow()
            try:
                async with ThreadSensitiveContext(executor=executor):
                    await self.handle(scope, receive, send)
            finally:
                self.threads.give_back(executor)
        finally:
            self.writes -= write
