"""The roll path's statements sent to the database driver's own cursor, not Django's wrapper.

Django hands out a wrapper around the driver's cursor (``connection.cursor()``): made anew for
every statement, each call through it checked for a running event loop, each method looked up
through ``__getattr__`` and wrapped again to translate errors, and on SQLite the statement
rewritten from ``%s`` to ``?`` by a regular expression every time. For a compiled read of a
membership that was 27 µs, of which the driver took 10 (``bench/roll_cpu.py``'s tables, in a
loop, 2026-12-05); a roll sends ten such statements. ``run`` keeps what the wrapper is there
for and drops the rest:

- kept: the connection checked and opened as Django does it (``close_if_health_check_failed``,
  ``ensure_connection``, which also refuses to run inside an event loop), the check that it
  is this thread's, the refusal of a statement in a transaction already broken
  (``validate_no_broken_transaction``), and the driver's errors raised as ``django.db``'s
  (``wrap_database_errors``): the 503 answer (``tabletop/errors.py``) and Django's health
  check of the connection rely on both;
- dropped: the wrapper object and its lookups; on SQLite the rewrite, done once per statement
  and process (``FORMAT_QMARK_REGEX``, the backend's own pattern);
- and when anyone watches the statements (``DEBUG``, ``assertNumQueries`` and
  ``CaptureQueriesContext``, which force Django's debug cursor, or an ``execute_wrapper``),
  the statement goes through Django's cursor as before, so they see every one.

Part of the ``compiled_queries`` piece (``tabletop.serving``): with it off, Django's cursor.
Private: ``django.db.backends.sqlite3.base.FORMAT_QMARK_REGEX``; the connection's
``create_cursor``, ``wrap_database_errors``, ``validate_no_broken_transaction``,
``validate_thread_sharing``, ``queries_logged`` and ``execute_wrappers`` are the backend API
Django's own cursor is built from (``tests/test_serving_internals.py`` checks them).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from django.db import connections
from django.db.backends.sqlite3.base import FORMAT_QMARK_REGEX

from tabletop.serving import enabled

# SQL as Django writes it (``%s``) -> as sqlite3 takes it (``?``): a few dozen statements.
_QMARK: dict[str, str] = {}


def run[T](db: str, sql: str, params: Sequence[Any], read: Callable[[Any], T]) -> T:
    """Execute ``sql`` (Django's placeholders, ``%s``) with ``params`` on database ``db`` and
    return ``read(cursor)``: its rows, its ``rowcount``. ``read`` runs before the cursor
    closes, with the driver's errors translated as for the statement."""
    connection = connections[db]
    if not enabled("compiled_queries") or connection.queries_logged or connection.execute_wrappers:
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            return read(cursor)
    connection.close_if_health_check_failed()
    connection.ensure_connection()
    connection.validate_thread_sharing()
    connection.validate_no_broken_transaction()
    with connection.wrap_database_errors:
        if connection.vendor == "sqlite":
            cursor = connection.connection.cursor()  # the driver's plain cursor: SQL rewritten once
            try:
                driver_sql = _QMARK[sql]
            except KeyError:
                driver_sql = _QMARK[sql] = FORMAT_QMARK_REGEX.sub("?", sql).replace("%%", "%")
        else:
            cursor = connection.create_cursor()  # as the backend makes it (psycopg: its time zone)
            driver_sql = sql
        try:
            cursor.execute(driver_sql, params)
            return read(cursor)
        finally:
            cursor.close()


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
