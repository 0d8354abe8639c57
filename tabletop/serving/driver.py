"""Running a statement whose SQL is already written: through Django's ``connection.cursor()``.

The compiled reads and writes (``compiled_query.py``), the log's two UPDATEs of the campaign
row and the statistics' upsert send SQL they made once; ``run`` executes it with a call's
values and hands the cursor to ``read`` before it closes. Django's cursor keeps what the roll
path relies on: the connection opened and health-checked as Django does it, the refusal of a
statement inside an event loop or a broken transaction, the driver's errors raised as
``django.db``'s (the 503 answer, ``tabletop/errors.py``), and every statement seen by whoever
watches them (``DEBUG``, ``assertNumQueries``, ``execute_wrapper``).

Until 2026-12-06 statements went to the driver's own cursor past Django's wrapper, reading
the backend's private methods: 15 instead of 27 µs a statement, ten a roll (bench/roll_cpu.py).
That shortcut is gone with the private names it read; the documented cursor costs some 0.12 ms
a roll.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from django.db import connections


def run[T](db: str, sql: str, params: Sequence[Any], read: Callable[[Any], T]) -> T:
    """Execute ``sql`` (Django's placeholders, ``%s``) with ``params`` on database ``db`` and
    return ``read(cursor)``: its rows, its ``rowcount``. ``read`` runs before the cursor
    closes, with the driver's errors translated as for the statement."""
    with connections[db].cursor() as cursor:
        cursor.execute(sql, params)
        return read(cursor)


def rows(cursor: Any) -> list[Any]:
    return cursor.fetchall()


def first_two(cursor: Any) -> list[Any]:
    """Enough rows to tell one from more than one, as ``get()`` reads."""
    return cursor.fetchmany(2)


def one(cursor: Any) -> Any:
    return cursor.fetchone()


def rowcount(cursor: Any) -> int:
    return cursor.rowcount


def nothing(cursor: Any) -> None:
    return None
