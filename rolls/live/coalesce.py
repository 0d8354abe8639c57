"""Many changes, one message: who is at the table reaches each socket at most once a second.

While a table fills (a restart, a Wi-Fi blip: every phone reconnects at once) each join used
to send the whole list to every socket of the table: quadratic per table. Now a change to the
list is told to the table at most once per ``presence.COALESCE_SECONDS`` by each serving
process (``told``), and each socket sends its page at most one list per that interval
(``Throttle`` on the consumer), whatever the other processes send: the first change after a
quiet spell goes at once, the ones that follow within the interval go together at its end. The
list is read when it is sent, so the last change always arrives.
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from collections.abc import Callable, Coroutine
from typing import Any

from tabletop import presence

logger = logging.getLogger(__name__)


class Throttle:
    """Runs something at most once per ``presence.COALESCE_SECONDS`` however often it is
    poked: at once after a quiet spell (``poke`` says so, and the caller runs it), otherwise
    ``later`` runs once when the interval is over, for every poke meanwhile. Lives on one
    event loop."""

    def __init__(self, later: Callable[[], Coroutine[Any, Any, None]]) -> None:
        self.later = later
        self.last = float("-inf")  # when it last ran, by the loop's clock
        self.waiting: asyncio.TimerHandle | None = None
        self.running: asyncio.Task[None] | None = None  # held until done: the loop keeps weak references

    def poke(self) -> bool:
        """Whether to run it now; otherwise it runs when this interval is over."""
        if self.waiting is not None:
            return False  # the run at the end of this interval includes this change
        loop = asyncio.get_running_loop()
        now = loop.time()
        wait = self.last + presence.COALESCE_SECONDS - now
        if wait <= 0:
            self.last = now
            return True
        self.waiting = loop.call_later(wait, self._run)
        return False

    def cancel(self) -> None:
        if self.waiting is not None:
            self.waiting.cancel()
            self.waiting = None

    def _run(self) -> None:
        self.waiting = None
        loop = asyncio.get_running_loop()
        self.last = loop.time()
        task = loop.create_task(self.later())
        self.running = task
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[None]) -> None:
        if self.running is task:
            self.running = None
        if not task.cancelled() and (error := task.exception()) is not None:
            logger.error("a coalesced send failed", exc_info=error)


# Per event loop (each serving process has one) and campaign: the group send that tells the
# table its list changed.
_tellers: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[int, Throttle]] = (
    weakref.WeakKeyDictionary()
)


def told(campaign_id: int, send: Callable[[int], Coroutine[Any, Any, None]]) -> None:
    """The list of who is at campaign ``campaign_id`` changed (in the database already): tell
    its table with ``send(campaign_id)``, together with the other changes of this interval."""
    loop = asyncio.get_running_loop()
    per_campaign = _tellers.setdefault(loop, {})
    throttle = per_campaign.get(campaign_id)
    if throttle is None:
        throttle = per_campaign[campaign_id] = Throttle(lambda: send(campaign_id))
    if throttle.poke():
        throttle.running = asyncio.ensure_future(send(campaign_id))
        throttle.running.add_done_callback(throttle._done)
