"""The serving room: pieces that replace stock parts of Django, asgiref and Channels for speed.

Each piece here does what a stock piece does, faster, and most of them read a library's
private internals to do it. They live in this one package so that what leans on whose
internals is in one place, and each can be switched off: ``settings.FAST_PATH`` maps a piece
to on or off (``FAST_PATH=off`` in the environment turns all of them off,
``FAST_PATH_OFF=gc,compiled_queries`` the ones listed). With a piece off the app runs on the
stock piece, and the test suite passes both ways. Figures are from bench/ on the 2-core
development machine (docs/architecture.md, "Running hot", and each module's docstring).

``request_threads``: ``request_threads.RequestThreadsHandler``, instead of Django's
    ``ASGIHandler`` (``tabletop/asgi.py``). Each request's middleware and view run in one call
    on one of ``REQUEST_THREADS`` long-lived threads that keep their database connection; the
    write cap (``admission.WriteCapMiddleware``, ``MAX_CONCURRENT_WRITES``) is counted there.
    Saves: 200 tables x 6 phones at 100 rolls a second took 62% of a core instead of 70-71%,
    p99 56-61 ms instead of 73-114 (with the broadcast handed to the serving loop,
    ``serving_loop()``, used by ``rolls/live/publish.py``). Private: ``ASGIHandler``'s
    ``read_body``, ``create_request``, ``send_response``, ``listen_for_disconnect``,
    ``chunk_size``, ``get_script_prefix``; asgiref's ``ThreadSensitiveContext(executor=...)``.
    Off: Django's own handler (``get_asgi_application()``), SQLite connections closed after
    each request (``CONN_MAX_AGE`` 0, as Django advises under ASGI), and the write cap does
    nothing: nothing counts the writes, so no request is refused as over it.

``compiled_queries``: ``compiled_query.CompiledQuery``/``CompiledInsert``/``CompiledDelete``/
    ``CompiledSave``, instead of ``queryset.get()``, ``Model.objects.create()`` (or
    ``bulk_create`` ignoring conflicts), ``queryset.delete()`` and a follow-up's
    ``obj.save(update_fields=...)`` on the roll path and a socket's connect (its
    membership, its presence row written and deleted, the table's list of who is there), the
    session read from the database when the cache misses (``tabletop/sessions.py``: 0.37 ->
    0.10 ms, paid by every phone after a restart), and ``auth_backend.ModelBackend``
    (the signed-in user read the same way) instead of Django's ``ModelBackend``. Saves: a
    character with its campaign took 0.90 ms, of which building the SQL was 0.54 ms and
    SQLite's answer 0.06 ms; a socket's connect and close 3.7 -> 1.7-1.9 ms of CPU with the
    consumer's changes of 2026-12-02 (bench/connect_cpu.py). Those statements, the log's two
    UPDATEs of the campaign row and the statistics' upsert go to the driver's own cursor
    (``driver.run``), not through Django's wrapper of it, unless someone watches the
    statements (debug cursor, execute wrappers): 27 -> 15 µs a statement, ten a roll, a roll
    2.45-2.69 -> 2.32-2.37 ms in-process (bench/roll_cpu.py). Private: ``get_related_populators``,
    the compiler's ``klass_info``, ``select``, ``col_count``, ``annotation_col_map`` and
    ``get_converters``, ``QuerySet._fetch_mode``, ``Model.from_db(fetch_mode=)``,
    ``InsertQuery`` (with ``on_conflict``) and ``returning_fields``,
    ``Model._prepare_related_fields_for_save``, ``Query.chain(DeleteQuery)`` as
    ``QuerySet._raw_delete`` uses it, ``Query.chain(UpdateQuery)`` and ``add_update_fields``
    as ``Model._do_update`` builds a save's UPDATE; SQLite's ``FORMAT_QMARK_REGEX`` and the
    backend methods Django's cursor is made of (``driver.py``). Off: each call runs the plain ORM
    (``get()``, ``create()``, ``bulk_create()``, ``delete()``, ``save()``, with their signals),
    every statement goes through Django's cursor, and
    ``AUTHENTICATION_BACKENDS`` is Django's own. Switching it either way signs everyone out
    once: a session names the backend that signed it in.

``channel_layer``: ``channel_layer.IndexedInMemoryChannelLayer``, instead of Channels'
    ``InMemoryChannelLayer`` for the embedded default (Redis is unchanged). Saves the stock
    layer's walk over every socket's queue and every group member on each send and receive:
    with 1,200 sockets, some 17,000 steps a roll. Private: ``asyncio.Queue._queue`` and the
    stock layer's ``channels``, ``groups``, ``_clean_expired``, ``get_capacity``.
    Off: Channels' layer (without ``discard_channel``, which the consumer looks up first).

``gc``: ``gc.freeze_startup_heap()`` (and young collections at 1,000 allocations, pauses
    half as long) and, once the server's lifespan starts, ``gc.Survivors`` (what outlives a
    collection frozen at once, a sweep when idle), instead of Python's collector as it ships,
    and
    ``cycles.py``: the request's, its forms' and its template contexts' reference cycles cut
    when they are done with. Saves pauses: 100 tables x 6 at 50 rolls a second, p99 131 ms and
    max 595 ms as Python ships, 28-29 ms frozen and with full collections a tenth as often; a
    roll left 253 objects in cycles, now none through the test client and 1 in the server
    (``bench/load.py`` counts them). Private: the response's ``_resource_closers`` and
    ``ContextDict.context``. Off: ``freeze_startup_heap()`` and the lifespan do nothing and no
    cycle is cut.

``consumer``: ``consumer.database()`` and ``consumer.KeptConnectionDispatch``, instead of
    Channels' ``database_sync_to_async`` and ``AsyncConsumer.dispatch``: the sockets'
    database thread keeps its connection instead of closing it around every call and before
    every message (for SQLite a WAL checkpoint at each close, for PostgreSQL a new backend at
    each open), nor once more after each socket's ``disconnect()`` (a trip to that thread per
    closing socket: 0.1-0.2 ms of a connect's CPU). Private: what Channels' ``dispatch``
    does (find the handler, close old connections, call it) and its
    ``websocket_disconnect`` (leave the class's groups, ``disconnect()``, close old
    connections, stop). Off: Channels' own.

``redis_cache``: ``redis_cache.RedisCache``, instead of Django's Redis cache backend (the
    production configuration): one Redis client and pool per process, where Django made one
    per socket and per request (a connection to Redis each) and a ``redis.Redis`` per call,
    with 40-90 objects left in reference cycles a roll. Private: see its docstring. Off:
    Django's backend.

``form_copies``: ``fields.CopiedFieldsMetaclass`` (the roll forms, the GM's roll form), whose
    forms copy their class's fields field by field, instead of Django's ``copy.deepcopy`` of
    them all. Saves: a sixes roll form's copy 66 -> 27 us, on every roll. Private:
    ``ChoiceField._choices`` and the ``__deepcopy__`` of Django's fields and widgets, which it
    repeats. Off: Django's deep copy.

``shared_markup``: markup rendered once and shared by the sockets and requests of a process
    (``rolls/sight/kept.py`` and the feed's shared entries, in ``rolls/``), instead of each
    rendering its own. Defined here; read by ``rolls.sight.kept.sharing()``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.conf import settings
from django.core.signals import setting_changed
from django.dispatch import receiver

# Every piece FAST_PATH switches; the settings and enabled() refuse any other name.
PIECES = (
    "request_threads",
    "compiled_queries",
    "channel_layer",
    "gc",
    "consumer",
    "shared_markup",
    "redis_cache",
    "form_copies",
)


def switches(*, on: bool, off: Iterable[str] = ()) -> dict[str, bool]:
    """``FAST_PATH`` from the environment's two variables: all pieces ``on`` or not, minus the
    ones named in ``off``."""
    turned_off = set(off)
    if unknown := sorted(turned_off - set(PIECES)):
        raise ValueError(
            f"FAST_PATH_OFF names no piece {', '.join(unknown)}; the pieces: {', '.join(PIECES)}"
        )
    return {piece: on and piece not in turned_off for piece in PIECES}


# settings.FAST_PATH as read so far: asked on every compiled read and socket message, where a
# lookup through the lazy settings cost some 0.4 us; forgotten when a test overrides it.
_read: dict[str, bool] = {}


def enabled(piece: str) -> bool:
    """Whether the fast ``piece`` runs (``settings.FAST_PATH``), rather than the stock one."""
    try:
        return _read[piece]
    except KeyError:
        pass
    if piece not in PIECES:
        raise ValueError(f"no serving piece {piece!r}; the pieces: {', '.join(PIECES)}")
    _read[piece] = on = bool(settings.FAST_PATH[piece])
    return on


@receiver(setting_changed)
def _forget(*, setting: str, **kwargs: Any) -> None:
    if setting == "FAST_PATH":
        _read.clear()
