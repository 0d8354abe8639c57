"""The garbage collector, tuned for a long-running server.

A serving process holds a large heap that lives as long as it does: Django, the compiled
templates, the rules engine's odds caches, hundreds of open sockets. Python's cyclic collector
walks all of it on each full collection, which stalled every socket of the process for up to
half a second under load. Frozen objects are left out of collections, and full collections
run a tenth as often: each still walks what the process made since it started (the sockets'
objects, among others), and the cyclic garbage a request leaves (Django's request, session
and forms, a few hundred objects) dies young, in the first two generations, which keep
Python's thresholds: a larger young generation only made each young collection longer (20 ms
at 20,000 objects on the development machine) for the same total.
A smaller middle generation (collected every 2 young collections instead of 10, full ones
every 500) was no better either (2026-12-02, docs/deploy.md "Garbage collection"). Since
tabletop/serving/cycles.py a roll leaves nothing in cycles, so what the collections find is
not a request's garbage.

bench/load.py, 100 tables x 6 sockets at 50 rolls a second: p99 131 ms and max 595 ms as
Python ships; frozen, p99 55-97 ms over several runs; frozen and full collections a tenth as
often, p99 28-29 ms.
"""

from __future__ import annotations

import gc

from tabletop.serving import enabled

# Young collections between full ones: Python's default is 10.
FULL_EVERY = 100


def freeze_startup_heap() -> None:
    """Collect once, then keep everything alive now out of every later collection; nothing
    with ``FAST_PATH["gc"]`` off."""
    if not enabled("gc"):
        return
    gc.collect()
    gc.freeze()
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, FULL_EVERY)
