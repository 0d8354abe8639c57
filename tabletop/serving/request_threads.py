"""An ASGI front for Django's WSGI handler: each request's work on a long-lived thread (one, or a few).

Stock Django under ASGI gives every request a new thread (a ``ThreadSensitiveContext`` of its
own), and goes back and forth between that thread and the event loop several times a request:
the middleware here is synchronous, so the chain runs on the thread, comes back to the loop
for the async inner handler, and goes out again for the view. A new thread also means a new
database connection each time, since Django keeps one per thread: for SQLite, a connect, the
PRAGMAs and some thirty SQL functions registered, then a WAL checkpoint at close.
bench/load.py measured that as a large part of a roll's cost.

Here the request goes to Django's WSGI application (``WSGIHandler``, what the documented
``get_wsgi_application()`` returns):
its handler runs the middleware chain and the view as Django runs them under WSGI, in one
call, with its signals (``request_started``, and ``request_finished`` when the response is
closed), its error handlers and its persistent connections (``CONN_MAX_AGE``,
``CONN_HEALTH_CHECKS``). This module only translates between the two published interfaces,
ASGI's HTTP scope and messages and PEP 3333's environ and ``start_response``, and runs that one
call on a thread lent by the standard library's ``loop.run_in_executor``:

- the request's body is read on the event loop before a thread is taken;
- the call, and for a response already in memory its ``close()``, happen in one trip to the
  thread; a stream (a static file, an export) is read from the thread a chunk at a time and
  closed there after it is sent, or when the client leaves;
- the thread is one of ``REQUEST_THREADS`` long-lived threads (one by default: see the
  settings), lent to one request at a time, so its database connection outlives the request
  (``CONN_MAX_AGE``; PostgreSQL takes its connections from psycopg's pool instead).

While it works on a request, the thread knows the event loop that lent it
(``serving_loop()``): a broadcast is handed to that loop, which sends it in turn, without the
thread waiting for it (``rolls.live.publish``).

Admission (``MAX_CONCURRENT_WRITES``) is counted here, where requests queue for a thread: a
POST over the cap gets a thread of its own at once (the loop's default executor; its database
connection is closed after it), marked in its environ, and ``tabletop.serving.admission``
answers it with the 503 "busy" page without waiting behind the queue it would have joined.

``tabletop/asgi.py`` serves with it while ``FAST_PATH["request_threads"]`` is on, and with
Django's own ASGI handler otherwise.
"""

from __future__ import annotations

import asyncio
import logging
import sys
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Executor, ThreadPoolExecutor
from tempfile import SpooledTemporaryFile
from typing import IO, Any

from django.conf import settings
from django.core.handlers.wsgi import WSGIHandler
from django.db import connections

logger = logging.getLogger(__name__)

# Set in the environ (request.META) of a write request that came over the cap (read by
# tabletop.serving.admission).
OVER_CAPACITY = "tabletop.over_capacity"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "TRACE"})

_serving = threading.local()


def serving_loop() -> asyncio.AbstractEventLoop | None:
    """The event loop that lent this thread the request it works on; None elsewhere (a socket's
    database thread, a management command, a test calling a service)."""
    return getattr(_serving, "loop", None)


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


class _ClientGone(Exception):
    """The client disconnected before its request's body was whole."""


def _latin1(text: str) -> str:
    # PEP 3333: the environ's strings are bytes decoded as ISO-8859-1; Django decodes them back.
    return text.encode("utf-8").decode("iso-8859-1")


def environ_of(scope: dict[str, Any], body: IO[bytes], size: int) -> dict[str, Any]:
    """The WSGI environ of an ASGI HTTP request whose body is ``body`` (``size`` bytes)."""
    root = scope.get("root_path", "")
    path = scope["path"]
    if root and path.startswith(root):
        path = path[len(root) :]
    server = scope.get("server") or ("localhost", 80)
    environ: dict[str, Any] = {
        "REQUEST_METHOD": scope["method"],
        "SCRIPT_NAME": _latin1(root),
        "PATH_INFO": _latin1(path),
        "QUERY_STRING": scope.get("query_string", b"").decode("iso-8859-1"),
        "SERVER_NAME": str(server[0]),
        "SERVER_PORT": str(server[1] or 80),
        "SERVER_PROTOCOL": f"HTTP/{scope.get('http_version', '1.1')}",
        # The body read whole: its length, whatever the request said (chunked, say).
        "CONTENT_LENGTH": str(size),
        "wsgi.version": (1, 0),
        "wsgi.url_scheme": scope.get("scheme", "http"),
        "wsgi.input": body,
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": True,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
    }
    if client := scope.get("client"):
        environ["REMOTE_ADDR"], environ["REMOTE_PORT"] = str(client[0]), str(client[1])
    for raw_name, raw_value in scope.get("headers", ()):
        name = raw_name.decode("iso-8859-1").upper().replace("-", "_")
        value = raw_value.decode("iso-8859-1")
        if name == "CONTENT_LENGTH":
            continue
        key = name if name == "CONTENT_TYPE" else f"HTTP_{name}"
        if key in environ:  # a header sent twice: one value, as HTTP folds them
            environ[key] += ("; " if key == "HTTP_COOKIE" else ",") + value
        else:
            environ[key] = value
    return environ


class _Answer:
    """What the WSGI call gave: status, headers, and the body in memory or as a stream."""

    def __init__(self) -> None:
        self.status = 500
        self.headers: list[tuple[bytes, bytes]] = []
        self.body = b""
        self.stream: Iterator[bytes] | None = None
        self.close: Callable[[], None] | None = None

    def start_response(
        self, status: str, headers: list[tuple[str, str]], exc_info: Any = None, /
    ) -> Callable[[bytes], object]:
        self.status = int(status.split(" ", 1)[0])
        self.headers = [(name.lower().encode("latin-1"), value.encode("latin-1")) for name, value in headers]
        return self._write

    def _write(self, data: bytes) -> None:
        # PEP 3333's imperative write(), which Django's handler never calls.
        raise NotImplementedError("write() is not supported: return the body")


class RequestThreadsHandler:
    """The ASGI application of HTTP requests: Django's WSGI handler on long-lived threads."""

    def __init__(self, threads: int | None = None, max_writes: int | None = None) -> None:
        # What get_wsgi_application() returns, without its django.setup(): the app is set up
        # already (tabletop/asgi.py), and setting up again would configure logging anew.
        self.wsgi = WSGIHandler()
        self.threads = Threads(threads if threads is not None else settings.REQUEST_THREADS)
        self.max_writes = max_writes if max_writes is not None else settings.MAX_CONCURRENT_WRITES
        self.writes = 0  # write requests in the process: working, or waiting for a thread

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            raise ValueError(f"Django can only handle ASGI/HTTP connections, not {scope['type']}.")
        try:
            body, size = await self._read_body(receive)
        except _ClientGone:
            return
        with body:
            environ = environ_of(scope, body, size)
            loop = asyncio.get_running_loop()
            write = scope["method"] not in SAFE_METHODS
            if write and self.writes >= self.max_writes:
                # Refused at once, on a thread of its own, rather than after the queue it would join.
                environ[OVER_CAPACITY] = True
                await self._serve(None, environ, loop, receive, send)
                return
            self.writes += write
            try:
                executor = await self.threads.borrow()
                try:
                    await self._serve(executor, environ, loop, receive, send)
                finally:
                    self.threads.give_back(executor)
            finally:
                self.writes -= write

    async def _read_body(self, receive: Any) -> tuple[IO[bytes], int]:
        body: IO[bytes] = SpooledTemporaryFile(
            max_size=settings.FILE_UPLOAD_MAX_MEMORY_SIZE, mode="w+b"
        )  # closed by the caller
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                body.close()
                raise _ClientGone
            chunk = message.get("body", b"")
            body.write(chunk)
            size += len(chunk)
            if not message.get("more_body", False):
                break
        body.seek(0)
        return body, size

    async def _serve(
        self,
        executor: Executor | None,
        environ: dict[str, Any],
        loop: asyncio.AbstractEventLoop,
        receive: Any,
        send: Any,
    ) -> None:
        alone = executor is None  # an over-the-cap answer's thread, not kept
        answer = await loop.run_in_executor(executor, self._respond, environ, loop, alone)
        headers = {"type": "http.response.start", "status": answer.status, "headers": answer.headers}
        if answer.stream is None:
            await send(headers)
            await send({"type": "http.response.body", "body": answer.body})
            return
        # As Django sends a stream: chunk by chunk, stopped when the client leaves, then closed
        # on the thread (request_finished).
        stream = answer.stream
        gone = asyncio.ensure_future(_disconnected(receive))
        try:
            await send(headers)
            while True:
                chunk = await loop.run_in_executor(executor, next, stream, None)
                if chunk is None or gone.done():
                    break
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
            if not gone.done():
                await send({"type": "http.response.body", "body": b""})
        finally:
            gone.cancel()
            if answer.close is not None:
                await loop.run_in_executor(executor, self._close, answer.close, environ, alone)

    def _respond(self, environ: dict[str, Any], loop: asyncio.AbstractEventLoop, alone: bool) -> _Answer:
        _serving.loop = loop
        answer = _Answer()
        try:
            result: Iterable[bytes] = self.wsgi(environ, answer.start_response)
            close = getattr(result, "close", None)
            if getattr(result, "streaming", True):
                answer.stream, answer.close = iter(result), close
                return answer
            answer.body = b"".join(result)
            if close is not None:
                self._close(
                    close, environ, alone=False
                )  # request_finished, here rather than after one more trip
            return answer
        finally:
            _serving.loop = None
            if alone and answer.stream is None:
                connections.close_all()  # the thread is not kept: nor is its connection

    @staticmethod
    def _close(close: Callable[[], None], environ: dict[str, Any], alone: bool) -> None:
        try:
            close()
        except Exception:  # the answer is whole: it goes out, as it would after sending
            logger.exception("closing the response to %s failed", environ.get("PATH_INFO"))
        finally:
            if alone:
                connections.close_all()


async def _disconnected(receive: Any) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass
