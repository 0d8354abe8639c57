"""What every contest's socket test checks: no sealed die (or sealed bid) reaches another phone
or the table display before the reveal, in the bytes those sockets receive.

``table_sockets`` opens a socket for each member named (and the display's, given its token),
brings each up to the log's newest entry, and closes them all however the test ends;
``Sockets.received`` reads what each got up to a later entry; ``assert_sealed`` fails when a
secret is in the bytes of a socket it is kept from, and also when it is missing from the
sockets that may see it: a check that passes because nothing was sent proves nothing.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Iterable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from tabletop.models import Campaign
from tests.test_consumers import frames_until, open_socket, sync, up_to
from tests.test_display import open_display

# Any die drawn on a card: the faces of a sealed roll are the secret of every contest.
FACE = re.compile(r'data-face="\d"')

type Secret = str | re.Pattern[str]


@dataclass(frozen=True)
class Sockets:
    """The open sockets by name, and the log's newest entry when they opened."""

    by_name: dict[str, WebsocketCommunicator]
    last: int

    async def received(self, after: int, *names: str) -> dict[str, str]:
        """The bytes each socket (``names``, or all) received up to the entry ``after``
        entries past the one they opened on."""
        return {
            name: "".join(await frames_until(self.by_name[name], up_to(self.last + after)))
            for name in names or self.by_name
        }


@asynccontextmanager
async def table_sockets(
    campaign: Campaign, members: Mapping[str, Any], *, display: str = ""
) -> AsyncIterator[Sockets]:
    """A socket for each member (by the name the test reads it by) and, with ``display``, the
    display's (read as "display"), each in step with the log."""
    by_name: dict[str, WebsocketCommunicator] = {}
    try:
        for name, user in members.items():
            communicator, connected, _ = await open_socket(campaign.pk, user)
            by_name[name] = communicator
            assert connected, name
        if display:
            communicator, connected = await open_display(display)
            by_name["display"] = communicator
            assert connected, "display"
        last = await database_sync_to_async(
            lambda: campaign.log.order_by("-seq").values_list("seq", flat=True)[0]
        )()
        for communicator in by_name.values():
            await sync(communicator, 0, last)
        yield Sockets(by_name, last)
    finally:
        for communicator in by_name.values():
            await communicator.disconnect()


def _found(secret: Secret, text: str) -> bool:
    return secret in text if isinstance(secret, str) else secret.search(text) is not None


def assert_sealed(
    received: Mapping[str, str],
    *,
    secrets: Iterable[Secret],
    kept_from: Iterable[str],
    seen_by: Iterable[str] = (),
    seen: Iterable[Secret] = (),
) -> None:
    """No secret (a string, or a pattern) in the bytes of any socket ``kept_from``; every one
    of ``seen`` in the bytes of every socket ``seen_by`` (the roller's, the GM's)."""
    for name in kept_from:
        for secret in secrets:
            assert not _found(secret, received[name]), (
                f"{name}'s socket received {secret!r} before the reveal"
            )
    for name in seen_by:
        for each in seen:
            assert _found(each, received[name]), f"{name}'s socket never received {each!r}"
