"""A serving process keeps its startup heap out of the garbage collector's walks (the pauses
it saves are measured by bench/load.py, not here)."""

from __future__ import annotations

import gc

from tabletop.serving.gc import FULL_EVERY, freeze_startup_heap


def test_loading_the_served_app_freezes_what_it_loaded() -> None:
    import tabletop.asgi  # noqa: F401  (what uvicorn imports)

    assert gc.get_freeze_count() > 0
    assert gc.get_threshold()[2] == FULL_EVERY


def test_objects_made_after_the_freeze_are_still_collected() -> None:
    freeze_startup_heap()

    class Node:
        pass

    cycle = Node()
    cycle.me = cycle  # type: ignore[attr-defined]
    del cycle
    assert gc.collect() >= 1  # the cycle is found and freed
