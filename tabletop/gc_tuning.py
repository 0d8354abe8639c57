"""The garbage collector, tuned for a long-running server.

A serving process holds a large heap that lives as long as it does: Django, the compiled
templates, the rules engine's odds caches, hundreds of open sockets. Python's cyclic collector
walks all of it on each full collection, which stalled every socket of the process for up to
half a second under load (bench/load.py at 50 rolls a second: p99 131 ms, max 595 ms; frozen,
55-97 ms and 130-200 ms over several runs). Frozen objects are left out of collections.

The thresholds stay Python's: a request leaves a few hundred objects in reference cycles
(Django's request, session and forms), and a larger young generation only made each young
collection longer (20 ms at 20,000 objects on the development machine) for the same total.
"""

from __future__ import annotations

import gc


def freeze_startup_heap() -> None:
    """Collect once, then keep everything alive now out of every later collection."""
    gc.collect()
    gc.freeze()
