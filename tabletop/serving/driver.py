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
That shortcut is gone with the private names it read.

The parameters go by name (``%(p0)s`` and a dict, the DB-API's "pyformat" style) where the
backend says it takes them (``connection.features.supports_paramstyle_pyformat``: SQLite in the
Django we run, 6.1, and PostgreSQL). Given a list, Django's SQLite cursor rewrites ``%s`` to ``?``
with a regular expression that reads the whole statement on every call: 34 µs for the
50 columns of the repeat lookup's statement (``rolls.log.resent``), more than SQLite took to
answer it; by name it formats the statement once with ``%`` instead, a few µs. The rewrite to
names is made once per statement (``named``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any

from django.db import connections

# A placeholder, or a percent sign the SQL escaped as Django asks (``%%``): the only two
# ``%`` sequences in SQL written for Django's cursor.
_PERCENT = re.compile(r"%%|%s")


@lru_cache(maxsize=512)  # every statement of the roll path is written once: a few dozen
def named(sql: str) -> tuple[str, tuple[str, ...]]:
    """``sql`` with its ``%s`` placeholders as ``%(p0)s``, ``%(p1)s``... and their names, in
    order; an escaped ``%%`` stays as it is (the dict's formatting turns it into ``%`` as the
    list's does)."""
    names: list[str] = []

    def one(match: re.Match[str]) -> str:
        if match.group() == "%%":
            return "%%"
        names.append(f"p{len(names)}")
        return f"%({names[-1]})s"

    return _PERCENT.sub(one, sql), tuple(names)


def run[T](db: str, sql: str, params: Sequence[Any], read: Callable[[Any], T]) -> T:
    """Execute ``sql`` (Django's placeholders, ``%s``) with ``params`` on database ``db`` and
    return ``read(cursor)``: its rows, its ``rowcount``. ``read`` runs before the cursor
    closes, with the driver's errors translated as for the statement."""
    connection = connections[db]
    with connection.cursor() as cursor:
        if connection.features.supports_paramstyle_pyformat:
            by_name, names = named(sql)
            if len(names) != len(params):
                raise TypeError(f"{len(names)} placeholders, {len(params)} parameters: {sql}")
            cursor.execute(by_name, dict(zip(names, params, strict=True)))
        else:
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
