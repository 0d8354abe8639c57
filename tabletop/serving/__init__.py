"""The serving room: pieces that replace stock parts of Django, asgiref and Channels for speed.

Each piece here does what a stock piece does, faster, on the libraries' documented APIs: no
private name of Django, asgiref, Channels or the standard library is read here or anywhere in
the app (``tests/test_serving_public_ground.py`` searches for those this room once read), but
one, kept for its measured gain: what Channels' consumer ``dispatch`` does (``consumer``). They
live in this one package so that what replaces what is in one place, and each can be switched
off: ``settings.FAST_PATH`` maps a piece to on or off (``FAST_PATH=off`` in the environment
turns all of them off, ``FAST_PATH_OFF=gc,compiled_queries`` the ones listed). With a piece
off the app runs on the stock piece, and the test suite passes both ways. Figures are from
bench/ on the 2-core development machine (bench/README.md, and each module's docstring).

``request_threads``: ``request_threads.RequestThreadsHandler``, instead of Django's
    ``ASGIHandler`` (``tabletop/asgi.py``). An ASGI front of our own (ASGI's HTTP scope and
    messages to PEP 3333's environ) hands each request to Django's WSGI handler, in one call
    on one of ``REQUEST_THREADS`` long-lived threads (the standard library's
    ``run_in_executor``) that keep their database connection (``CONN_MAX_AGE``); the write
    cap (``admission.WriteCapMiddleware``, ``MAX_CONCURRENT_WRITES``) is counted there.
    Saves: 200 tables x 6 phones at 100 rolls a second took 62% of a core instead of 70-71%,
    p99 56-61 ms instead of 73-114 (with the broadcast handed to the serving loop,
    ``serving_loop()``, used by ``rolls/live/publish.py``; ``bench/load.py --tables 200 --rate
    100``). Off: Django's own ASGI handler, SQLite connections closed after each request
    (``CONN_MAX_AGE`` 0, as Django advises under ASGI), and the write cap does nothing:
    nothing counts the writes, so no request is refused as over it. Django's handler also
    reads each static file whole before sending it, and warns that a
    ``StreamingHttpResponse`` consumed a synchronous iterator: WhiteNoise (6.12) answers with a
    ``FileResponse`` over the open file, which the piece reads a chunk at a time on its
    thread.

``compiled_queries``: ``compiled_query.CompiledQuery``/``CompiledList``/``CompiledInsert``/
    ``CompiledDelete``/``CompiledSave``, instead of ``queryset.get()``, ``list(queryset)``,
    ``Model.objects.create()`` (or ``bulk_create`` ignoring conflicts), ``queryset.delete()``
    and a follow-up's ``obj.save(update_fields=...)`` on the roll path and a socket's connect,
    the session read from the database when the cache misses (``tabletop/sessions.py``), and
    ``auth_backend.ModelBackend`` (the signed-in user read the same way) instead of Django's
    ``ModelBackend``. The SQL is made once per statement: a read's is what the ORM sends for
    the queryset's ``values_list()``, recorded by ``connection.execute_wrapper()``; an
    INSERT's and an UPDATE's are written from the model's ``_meta``; each call runs it
    through ``connection.cursor()`` (``driver.run``) and makes the rows into instances with
    ``Model.from_db()``. Saves: CPU per roll 6.0-6.7 ms with it off, against 3.8-3.9 ms on
    (issue 41's figures, ``bench/roll_cpu.py --gap 50 --idle --rolls 300``; this route costs
    some 0.1-0.4 ms a roll more than the private one it replaced); a socket's connect and
    close (``bench/connect_cpu.py``). Off: each call runs the plain ORM (``get()``,
    ``create()``, ``bulk_create()``, ``delete()``, ``save()``, with their signals), and
    ``AUTHENTICATION_BACKENDS`` is Django's own. Switching it either way signs everyone out
    once: a session names the backend that signed it in.

``channel_layer``: ``channel_layer.IndexedInMemoryChannelLayer``, instead of Channels'
    ``InMemoryChannelLayer`` for the embedded default (Redis is unchanged): a layer of our own
    on Channels' documented layer interface (``BaseChannelLayer``), without the stock layer's
    walk over every socket's queue and every group member on each send and receive: with
    1,200 sockets, some 17,000 steps a roll. Off: Channels' layer (without
    ``discard_channel``, which the consumer looks up first).

``gc``: ``gc.freeze_startup_heap()`` (and young collections at 1,000 allocations, pauses
    half as long; full collections a tenth as often where the collector has three
    generations) and, once the server's lifespan starts, ``gc.Survivors`` (what outlives a
    collection frozen at once, a sweep when idle), instead of Python's collector as it ships,
    and ``cycles.py``: the request's, its forms' and its template contexts' reference cycles
    cut when they are done with (``request_finished``, ``Context.pop()``), or not made
    (``request.user`` over a weak reference to the request: ``cycles.AuthenticationMiddleware``
    in ``MIDDLEWARE``; a request's bound fields keep their form weakly once it is answered).
    Saves pauses: 100 tables x 6 at 50 rolls a second, p99 131 ms and max 595 ms as Python
    ships, 28-29 ms frozen and with full collections a tenth as often; a roll left 253
    objects in cycles, now none through the test client and 1 in the server (``bench/load.py``
    counts them). Since 2026-12-07 on documented names only (``get_messages()``,
    ``request.upload_handlers``, ``auth.get_user()``, ``BoundField.form``): until then the
    cuts wrote attributes Django keeps for itself, which ``tests/test_serving_public_ground.py``
    now searches for.
    Off: ``freeze_startup_heap()`` and the lifespan do nothing, no cycle is cut, and Django's
    own authentication middleware runs.

``redis_cache``: ``redis_cache.RedisCache``, instead of Django's Redis cache backend (the
    production configuration): a backend of our own on Django's ``BaseCache`` and redis-py's
    client, with one client and pool per process, where Django made one per socket and per
    request (a connection to Redis each) and a ``redis.Redis`` per call, with 40-90 objects
    left in reference cycles a roll. Off: Django's backend.

``form_copies``: ``fields.CopiedFieldsMetaclass`` (the roll forms, the GM's roll form), whose
    forms copy their class's fields field by field, instead of Django's ``copy.deepcopy`` of
    them all. Saves: a sixes roll form's copy 66 -> 27 us, on every roll. Off: Django's deep
    copy.

``shared_markup``: markup rendered once and shared by the sockets and requests of a process
    (``rolls/sight/kept.py`` and the feed's shared entries, in ``rolls/``), instead of each
    rendering its own. Defined here; read by ``rolls.sight.kept.sharing()``.

``consumer``: ``consumer.database()`` and ``consumer.KeptConnectionDispatch``, instead of
    Channels' ``database_sync_to_async`` and its consumers' ``dispatch`` and
    ``websocket_disconnect``. The sockets' database thread keeps its connection
    (``sync_to_async``, the connection closed after a call that leaves a transaction open or
    fails), where Channels' closes it around every call (with psycopg's pool: taken, checked
    and given back for every read a socket makes; ``bench/load.py --config production``, 68%
    -> 58% of a core), and the consumers skip the close of old connections before every
    message and after ``disconnect()`` (a trip to that thread each: a socket's connect 1.84
    -> 1.48-1.50 ms of CPU, ``bench/connect_cpu.py --connects 600 --batches 3``). Private:
    the one place the app relies on a library's internals, what those two methods of Channels
    do (the module's docstring says what; a test checks the installed Channels). Off:
    Channels' own.
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
