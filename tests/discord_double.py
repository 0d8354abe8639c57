"""A stand-in for Discord's webhook API: a real HTTP server on a thread of the test process,
answering as Discord does and noting every message it takes.

- ``POST /api/webhooks/<id>/<token>``: 204, or 200 with the message under ``?wait=true``;
  ``X-RateLimit-Limit``, ``-Remaining`` and ``-Reset-After`` on every answer, from a bucket of
  ``limit`` posts per ``window`` seconds. A post into an empty bucket is answered 429 with
  ``retry_after`` (body and ``Retry-After``) and not taken.
- ``script``: answers given first, one per post, before the usual ones: ``(429, 0.3)`` (a 429
  with that ``retry_after``), ``404``, ``401``, ``500``. None of them takes the message.
- ``hang``: every post is read and never answered (a server that does not answer in time);
  nothing is taken.
- ``gone``: webhook ids that answer 404 (the webhook was deleted).
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

PATH = re.compile(r"/api(?:/v\d+)?/webhooks/(?P<id>\d+)/(?P<token>[A-Za-z0-9_-]+)/?(?:\?(?P<query>.*))?")


@dataclass
class Taken:
    webhook: str  # the webhook's id
    body: dict[str, Any]
    at: float

    @property
    def embed(self) -> dict[str, Any]:
        return dict(self.body["embeds"][0])


@dataclass
class Double:
    limit: int = 5
    window: float = 1.0
    taken: list[Taken] = field(default_factory=list)
    answers: list[int] = field(default_factory=list)  # every status sent, in order
    script: deque[Any] = field(default_factory=deque)
    gone: set[str] = field(default_factory=set)
    hang: bool = False
    limited: int = 0  # 429s sent because the bucket was empty
    _bucket: deque[float] = field(default_factory=deque)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _release: threading.Event = field(default_factory=threading.Event)
    server: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        assert self.server is not None
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}"

    def to(self, webhook: str) -> list[Taken]:
        with self._lock:
            return [t for t in self.taken if t.webhook == webhook]

    def start(self) -> Double:
        double = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                found = PATH.fullmatch(self.path)
                if found is None:
                    self._send(404, {"message": "404: Not Found", "code": 0})
                    return
                if double.hang:
                    double._release.wait(30)  # never answered in time: the client gives up first
                    return
                webhook = found["id"]
                status, body, headers = double._answer(webhook, raw, found["query"] or "")
                self._send(status, body, headers)

            def _send(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
                data = b"" if body is None else json.dumps(body).encode()
                self.send_response(status)
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                if body is not None:
                    self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        self._release.set()
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()

    def _answer(self, webhook: str, raw: bytes, query: str) -> tuple[int, Any, dict[str, str]]:
        with self._lock:
            now = time.monotonic()
            while self._bucket and self._bucket[0] <= now - self.window:
                self._bucket.popleft()
            if self.script:
                scripted = self.script.popleft()
                if isinstance(scripted, tuple):  # (429, retry_after)
                    status, wait = scripted
                    self.answers.append(status)
                    return (
                        status,
                        {"message": "You are being rate limited.", "retry_after": wait, "global": False},
                        {},
                    )
                self.answers.append(scripted)
                return scripted, {"message": "Unknown Webhook", "code": 10015}, {}
            if webhook in self.gone:
                self.answers.append(404)
                return 404, {"message": "Unknown Webhook", "code": 10015}, {}
            reset = self.window - (now - self._bucket[0]) if self._bucket else self.window
            if len(self._bucket) >= self.limit:
                self.limited += 1
                self.answers.append(429)
                headers = {"Retry-After": f"{reset:.3f}", "X-RateLimit-Remaining": "0"}
                return (
                    429,
                    {"message": "You are being rate limited.", "retry_after": reset, "global": False},
                    headers,
                )
            self._bucket.append(now)
            body = json.loads(raw)
            self.taken.append(Taken(webhook, body, now))
            headers = {
                "X-RateLimit-Limit": str(self.limit),
                "X-RateLimit-Remaining": str(self.limit - len(self._bucket)),
                "X-RateLimit-Reset-After": f"{reset:.3f}",
            }
            if "wait=true" in query:
                self.answers.append(200)
                return 200, {"id": str(len(self.taken)), "embeds": body.get("embeds", [])}, headers
            self.answers.append(204)
            return 204, None, headers
