"""A serving process keeps its startup heap out of the garbage collector's walks (the pauses
it saves are measured by bench/load.py, not here)."""

from __future__ import annotations

import gc

import pytest
from django.conf import settings
from pytest_django.fixtures import Settings

from tabletop.serving.gc import FULL_EVERY, freeze_startup_heap


@pytest.mark.skipif(not settings.FAST_PATH["gc"], reason="FAST_PATH has gc off: the app leaves gc as it is")
def test_loading_the_served_app_freezes_what_it_loaded() -> None:
    import tabletop.asgi  # noqa: F401  (what uvicorn imports)

    assert gc.get_freeze_count() > 0
    assert gc.get_threshold()[2] == FULL_EVERY


def test_freezing_keeps_the_heap_out_of_collections(settings: Settings) -> None:
    settings.FAST_PATH = {**settings.FAST_PATH, "gc": True}
    gc.unfreeze()
    freeze_startup_heap()
    assert gc.get_freeze_count() > 0
    assert gc.get_threshold()[2] == FULL_EVERY


def test_switched_off_nothing_is_frozen(settings: Settings) -> None:
    settings.FAST_PATH = {**settings.FAST_PATH, "gc": False}
    frozen, threshold = gc.get_freeze_count(), gc.get_threshold()
    freeze_startup_heap()
    assert (gc.get_freeze_count(), gc.get_threshold()) == (frozen, threshold)


def test_objects_made_after_the_freeze_are_still_collected(settings: Settings) -> None:
    settings.FAST_PATH = {**settings.FAST_PATH, "gc": True}
    freeze_startup_heap()

    class Node:
        pass

    cycle = Node()
    cycle.me = cycle  # type: ignore[attr-defined]
    del cycle
    assert gc.collect() >= 1  # the cycle is found and freed
