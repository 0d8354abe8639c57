#!/usr/bin/env python3
"""Follow a Tabletop table's feed and print each event as one line of JSON (docs/feed.md).

Standard library only. It resumes where it stopped: after a dropped connection (or a server
restart) it connects again with ``Last-Event-ID``, so no event is lost and none comes twice;
with ``--state FILE`` it also remembers the last event across runs.

    TABLETOP_FEED_KEY=ttf_... python3 docs/feed_client.py https://dice.example.org/api/feed/3/events

It stops for good when the key is refused (401, 403) or revoked, and after ``--count`` events.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import IO


class Stop(Exception):
    """The server refused the key, or revoked it: reconnecting would not help."""


def sse_events(stream: IO[bytes]) -> Iterator[dict[str, str]]:
    """The events of a server-sent events stream, as their fields (``id``, ``event``, ``data``,
    ``retry``); comments (the keep-alives) are skipped."""
    fields: dict[str, str] = {}
    for raw in stream:
        line = raw.decode("utf-8").rstrip("\r\n")
        if not line:
            if fields:
                yield fields
            fields = {}
            continue
        if line.startswith(":"):
            continue
        name, _colon, value = line.partition(":")
        value = value.removeprefix(" ")
        fields[name] = fields[name] + "\n" + value if name == "data" and name in fields else value


class Feed:
    """One table's feed, followed from the event after ``last_id`` (None: from now on)."""

    def __init__(self, url: str, key: str, last_id: str | None) -> None:
        self.url, self.key, self.last_id = url, key, last_id
        self.retry = 3.0  # seconds before reconnecting; the server says how long (``retry:``)

    def events(self, timeout: float) -> Iterator[dict[str, object]]:
        """One connection's events. Raises Stop when the key no longer works."""
        headers = {"Authorization": f"Bearer {self.key}", "Accept": "text/event-stream"}
        if self.last_id is not None:
            headers["Last-Event-ID"] = self.last_id
        request = urllib.request.Request(self.url, headers=headers)
        try:
            response = urllib.request.urlopen(request, timeout=timeout)
        except urllib.error.HTTPError as error:
            if error.code in (400, 401, 403):
                raise Stop(f"{error.code}: {error.read().decode('utf-8', 'replace')}") from error
            raise
        with response:
            for fields in sse_events(response):
                if fields.get("event") == "revoked":
                    raise Stop("the key was revoked")
                if fields.get("retry", "").isdecimal():
                    self.retry = int(fields["retry"]) / 1000
                if "data" in fields and "id" in fields:
                    event = json.loads(fields["data"])
                    self.last_id = fields["id"]  # sent again as Last-Event-ID on reconnecting
                    yield event


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("url", help="the feed's address: https://HOST/api/feed/CAMPAIGN/events")
    parser.add_argument("--key", default=os.environ.get("TABLETOP_FEED_KEY", ""), help="or TABLETOP_FEED_KEY")
    parser.add_argument("--after", type=int, help="start after this sequence number (0: the whole log)")
    parser.add_argument("--state", type=Path, help="a file that keeps the last event's number across runs")
    parser.add_argument("--count", type=int, default=0, help="stop after this many events (0: never)")
    options = parser.parse_args()
    if not options.key:
        parser.error("a key is needed: --key or TABLETOP_FEED_KEY")
    last_id: str | None = None
    if options.state is not None and options.state.exists():
        last_id = options.state.read_text().strip() or None
    elif options.after is not None:
        last_id = str(options.after)
    feed = Feed(options.url, options.key, last_id)
    seen = 0
    while True:
        try:
            # Longer than the server's keep-alive (15 s): silence this long means a dead connection.
            for event in feed.events(timeout=45):
                print(json.dumps(event, ensure_ascii=False), flush=True)
                if options.state is not None and feed.last_id is not None:
                    options.state.write_text(feed.last_id)
                seen += 1
                if options.count and seen >= options.count:
                    return 0
            print("the stream ended; reconnecting", file=sys.stderr)
        except Stop as stop:
            print(f"stopped: {stop}", file=sys.stderr)
            return 1
        except OSError as error:  # refused, reset, timed out (URLError is one)
            print(f"connection lost ({error}); reconnecting after event {feed.last_id}", file=sys.stderr)
        except KeyboardInterrupt:
            return 0
        time.sleep(feed.retry)


if __name__ == "__main__":
    sys.exit(main())
