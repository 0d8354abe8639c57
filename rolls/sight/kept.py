"""Rendered markup kept in a process for the next request or socket that needs it: a bounded
map that drops what was written first. Reads are one dict lookup (atomic under the GIL, so
sockets and request threads read without waiting); writes take a lock.

Keeping it is part of the fast path: with ``FAST_PATH`` "shared_markup" off (``sharing()``),
nothing is kept and every page and socket renders for itself."""

from __future__ import annotations

import threading
from collections import OrderedDict

from tabletop import serving


def sharing() -> bool:
    """Whether rendered markup is kept and shared between sockets (the fast path)."""
    return serving.enabled("shared_markup")


class Kept[K, V]:
    def __init__(self, size: int) -> None:
        self.size = size
        self._items: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: K) -> V | None:
        return self._items.get(key)

    def __contains__(self, key: object) -> bool:
        return key in self._items

    def __len__(self) -> int:
        return len(self._items)

    def put(self, key: K, value: V) -> None:
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self.size:
                self._items.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
