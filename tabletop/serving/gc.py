"""The garbage collector, tuned for a long-running server.

A serving process holds a large heap that lives as long as it does: Django, the compiled
templates, the rules engine's odds caches, hundreds of open sockets. Python's cyclic collector
walks all of it on each full collection, which stalled every socket of the process for up to
half a second under load. Frozen objects are left out of collections, and full collections
run a tenth as often: each still walks what the process made since it started (the sockets'
objects, among others), and the cyclic garbage a request leaves (Django's request, session
and forms, a few hundred objects) dies young, in the first two generations. A young
collection walks what was allocated since the one before, so its pause grows with the young
generation's threshold while the total stays the same: a larger one only made each longer (20
ms at 20,000 objects on the development machine); Python's 2,000 made pauses of 6-8 ms of CPU
and 11-15 ms by the clock with 600 sockets at 50 rolls a second, and 1,000 (``YOUNG``) makes
them 3-4 ms of CPU (7-8 ms by the clock, unless the system takes the core away mid-collection),
two and a half times as many, for the same CPU per roll (bench/load.py, 2026-12-03,
docs/deploy.md "Garbage collection").
A smaller middle generation (collected every 2 young collections instead of 10, full ones
every 500) was no better either (2026-12-02, docs/deploy.md "Garbage collection"). Since
tabletop/serving/cycles.py a roll leaves nothing in cycles, so what the collections find is
not a request's garbage.

bench/load.py, 100 tables x 6 sockets at 50 rolls a second: p99 131 ms and max 595 ms as
Python ships; frozen, p99 55-97 ms over several runs; frozen and full collections a tenth as
often, p99 28-29 ms.

Once the process serves (the ASGI server's lifespan startup, ``serving_started``), whatever
outlives a young collection is frozen at once (``Survivors``). A middle collection walked
what ten young ones had let through: with 600 sockets open, their waiting coroutines, tasks
and futures, some 28,000 live objects remade as each socket is woken, 13-31 ms of CPU for
nothing freed. Frozen, they are walked no more, and reference counting still frees them the
moment they are let go. What it costs: a cycle that becomes garbage after its objects were
frozen waits for a sweep (a socket's close leaves some 90 objects in cycles in uvicorn,
websockets and Channels; a roll, since cycles.py, next to none). The sweep (unfreeze,
collect, freeze again) walks the whole heap, some 250,000 objects and 200-450 ms, so it
runs at an idle moment (no young collection for ``IDLE_SECONDS``: nothing is being
allocated, so no one is waiting) once the process took ``SWEEP_AFTER`` memory blocks since
the last one, and regardless of idleness past ``SWEEP_ANYWAY``, which bounds the memory a
server under load without a pause can hold.

Python 3.14's collector is incremental, with two generations: it has no full collection to
space out (``tune()`` changes only the young threshold there), and its pauses are bounded by
design. Freezing and the sweep are the gc module's documented ``freeze()``, ``unfreeze()`` and
``callbacks``, the same on every version. The figures above are from 3.13.
"""

from __future__ import annotations

import gc
import logging
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

from tabletop.serving import enabled

logger = logging.getLogger(__name__)

# Young collections between full ones: Python's default is 10.
FULL_EVERY = 100
# Net allocations of tracked objects that start a young collection: Python's default is 2,000.
YOUNG = 1000


def generational() -> bool:
    """Whether this Python's collector has three generations (3.12, 3.13, and 3.15, which went
    back to them), rather than 3.14's incremental one: two generations, the old one scanned a
    slice at a time, whose ``get_threshold()`` "returns a three-tuple for backwards
    compatibility" with a third value that "is meaningless and is always zero", and whose
    ``set_threshold()`` ignores it (the gc module's documentation, 3.14)."""
    return gc.get_threshold()[2] != 0


def tune() -> None:
    """Young collections at ``YOUNG`` allocations; with three generations, full collections
    every ``FULL_EVERY`` middle ones. The incremental collector has no full collection to
    space out (each of its collections takes an increment of the old generation, at the pace
    of the second value, which stays Python's), so there only the first value changes."""
    middle = gc.get_threshold()[1]
    if generational():
        gc.set_threshold(YOUNG, middle, FULL_EVERY)
    else:
        gc.set_threshold(YOUNG, middle)


def freeze_startup_heap() -> None:
    """Collect once, then keep everything alive now out of every later collection; nothing
    with ``FAST_PATH["gc"]`` off."""
    if not enabled("gc"):
        return
    gc.collect()
    gc.freeze()
    tune()


# Seconds without a young collection (nothing allocated) that make a moment idle.
IDLE_SECONDS = 2.0
# Memory blocks the process took since the last sweep (Python's allocator's blocks: an object
# of a few hundred bytes or less, its dict, a string...): worth a sweep at an idle moment; one
# regardless. A roll's request left some 8 objects frozen and 36 blocks more (in-process,
# 3,000 rolls, 2026-12-04), so these are the 20,000 and 300,000 frozen objects of before.
SWEEP_AFTER = 80_000
SWEEP_ANYWAY = 1_200_000


class Survivors:
    """Freezes what outlives each collection and sweeps the frozen heap when the process is
    idle (the module's docstring says why). ``clock`` is the monotonic clock; a test passes
    its own to say when "now" is."""

    def __init__(self, *, clock: Callable[[], float] = time.monotonic, watch_every: float = 1.0) -> None:
        self.clock = clock
        self.watch_every = watch_every
        self.last_collection = clock()
        # What grew since the last sweep is read off the allocator's count of blocks, not off
        # ``gc.get_freeze_count()``: that walks the whole frozen heap (a linked list of some
        # 300,000 objects) holding the GIL, and asked once a second it took 4% of a serving
        # process's CPU (a profile at 100 rolls a second, 2026-12-04) and stalled every
        # thread for milliseconds. ``sys.getallocatedblocks()`` counts arenas: 30 us.
        self.blocks_at_sweep = sys.getallocatedblocks()
        self.sweeps = 0
        self._stop = threading.Event()
        self._watcher: threading.Thread | None = None

    def start(self) -> None:
        gc.collect()
        gc.freeze()
        self.blocks_at_sweep = sys.getallocatedblocks()
        gc.callbacks.append(self._after_collection)
        self._watcher = threading.Thread(target=self._watch, name="gc-sweeper", daemon=True)
        self._watcher.start()

    def stop(self) -> None:
        self._stop.set()
        if self._after_collection in gc.callbacks:
            gc.callbacks.remove(self._after_collection)
        if self._watcher is not None:
            self._watcher.join()
            self._watcher = None

    def _after_collection(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "stop":
            gc.freeze()  # moves the survivors of every generation out of the next walks
            self.last_collection = self.clock()

    def grown(self) -> int:
        """Memory blocks taken since the last sweep (fewer, if more were given back)."""
        return sys.getallocatedblocks() - self.blocks_at_sweep

    def due(self) -> bool:
        grown = self.grown()
        if grown >= SWEEP_ANYWAY:
            return True
        return grown >= SWEEP_AFTER and self.clock() - self.last_collection >= IDLE_SECONDS

    def sweep(self) -> int:
        """A full collection of everything, frozen included; what it freed."""
        started = time.perf_counter()
        before = gc.get_freeze_count()
        gc.unfreeze()
        freed = gc.collect()  # its end freezes the survivors again (_after_collection)
        gc.freeze()
        self.blocks_at_sweep = sys.getallocatedblocks()
        self.sweeps += 1
        logger.info(
            "gc sweep: %d objects freed of %d frozen, in %.0f ms",
            freed,
            before,
            (time.perf_counter() - started) * 1000,
        )
        return freed

    def _watch(self) -> None:
        while not self._stop.wait(self.watch_every):
            if self.due():
                self.sweep()


_serving: Survivors | None = None


def serving_started() -> None:
    """The process serves from now on: freeze what survives each collection, sweep when idle.
    Nothing with ``FAST_PATH["gc"]`` off, nor twice."""
    global _serving
    if not enabled("gc") or _serving is not None:
        return
    _serving = Survivors()
    _serving.start()


def serving_stopped() -> None:
    global _serving
    if _serving is not None:
        _serving.stop()
        _serving = None


class Lifespan:
    """The ASGI lifespan protocol: the server says when the process starts serving, and only
    a server does (a test's communicator never sends it), so the freezing of survivors starts
    in serving processes alone."""

    async def __call__(
        self, scope: dict[str, Any], receive: Callable[..., Any], send: Callable[..., Any]
    ) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                serving_started()
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                serving_stopped()
                await send({"type": "lifespan.shutdown.complete"})
                return
