"""The PostgreSQL pool's check of a connection before it hands it out, which after one broken
connection checks the rest of the pool at once (issue 44).

psycopg's pool tries each connection before handing it out (``check``, psycopg_pool's
documented hook) and gives up on a broken one; but between two broken connections it waits,
as between two failed connects: nothing, then about 1 s, then 2 s, until the request's
``timeout`` (3 s here). A blip of the server (a restart, a network hiccup) breaks every idle
connection at once, so the first request after it waited 1 s with two of them in the pool, 3 s
with three and got the 503 page with four or more (``tests/test_trust_outages.py``).

So a failed check here also has the pool check every other idle connection at once
(``ConnectionPool.check()``, documented: it closes the broken ones and asks for new ones),
before psycopg's loop goes on. The loop's next try then waits only for a fresh connection,
a connect of a few milliseconds once the server is back. Not a ``FAST_PATH`` piece: the
pool is the production configuration's, whatever the switches.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from psycopg_pool import ConnectionPool


def checking_the_rest(pool_of: Callable[[], ConnectionPool[Any]]) -> Callable[[Any], None]:
    """A pool's ``check``: psycopg's own, and when it finds a connection broken, the pool that
    ``pool_of()`` returns checks its idle connections too."""

    def check(connection: Any) -> None:
        try:
            ConnectionPool.check_connection(connection)
        except Exception:
            # The others most likely broke with it (one server, one network): check them
            # now, each with one round trip, rather than one by one with a growing wait.
            pool_of().check()
            raise

    return check


def default_pool() -> ConnectionPool[Any]:
    """The pool Django made for the default database: its PostgreSQL backend's ``pool``, which
    Django builds from ``OPTIONS["pool"]`` but does not document. The one such name the app
    reads (docs/architecture.md, "Serving pieces"); ``tests/test_trust_outages.py`` fails on a
    Django without it."""
    from django.db import connections

    pool: ConnectionPool[Any] = connections["default"].pool  # type: ignore[attr-defined]
    return pool
