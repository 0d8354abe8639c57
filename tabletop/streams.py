"""Long streams apart from the request threads.

The app's HTTP requests run on a request thread or two (``tabletop/serving/request_threads.py``),
each one request at a time: a stream that stays open for an evening (the feed for other tools,
``rolls.bridges.stream``) would hold one for all that time. ``LongStreams`` hands the requests
under a few path prefixes to Django's own ASGI handler instead, which runs an async view on the
event loop and sends its async iterator as it yields, noticing when the client leaves; every
other request goes on to the application it wraps."""

from __future__ import annotations

from typing import Any

# The paths of the streams: the feed for other tools (rolls/urls.py).
STREAM_PREFIXES = ("/api/feed/",)


class LongStreams:
    def __init__(self, default: Any, streams: Any, prefixes: tuple[str, ...] = STREAM_PREFIXES) -> None:
        self.default = default
        self.streams = streams
        self.prefixes = prefixes

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        path = scope.get("path", "")
        root = scope.get("root_path", "")
        if root and path.startswith(root):
            path = path[len(root) :]
        if scope["type"] == "http" and path.startswith(self.prefixes):
            await self.streams(scope, receive, send)
        else:
            await self.default(scope, receive, send)
