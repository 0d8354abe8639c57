"""The private internals of Django, asgiref, Channels and asyncio that tabletop/serving/ reads
are still there, with the shape it uses. A failure here means a library changed under the
fast path: revisit the module the message names (and the pin in pyproject.toml) before
raising the pin. No database: these check names and signatures, not behaviour."""

from __future__ import annotations

import asyncio
import inspect
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from django.db.backends.utils import CursorWrapper
from django.db.models import Model
from django.utils.functional import cached_property

from tabletop import serving


def _params(function: Any) -> list[str]:
    return list(inspect.signature(function).parameters)


def test_the_compiled_querys_orm_internals_are_there() -> None:
    revisit = "Django's ORM changed: revisit tabletop/serving/compiled_query.py"
    from django.db.models import query
    from django.db.models.sql import InsertQuery
    from django.db.models.sql.compiler import SQLCompiler, SQLInsertCompiler

    assert callable(getattr(query, "get_related_populators", None)), revisit
    assert _params(query.get_related_populators) == ["klass_info", "select", "db", "fetch_mode"], revisit
    assert _params(SQLCompiler.get_converters) == ["self", "expressions"], revisit
    assert _params(InsertQuery.insert_values) == ["self", "fields", "objs", "raw"], revisit
    assert InsertQuery.compiler == SQLInsertCompiler.__name__, revisit
    assert "fetch_mode" in _params(Model.from_db), revisit
    assert callable(getattr(Model, "_prepare_related_fields_for_save", None)), revisit
    assert "on_conflict" in _params(InsertQuery), revisit
    # A delete in one statement: the query chained to a DeleteQuery, as _raw_delete does.
    from django.db.models.sql import DeleteQuery

    source = inspect.getsource(query.QuerySet._raw_delete)
    assert "sql.DeleteQuery" in source and "execute_sql(ROW_COUNT)" in source, revisit
    assert _params(DeleteQuery.chain) == ["self", "klass"], revisit
    # A save's UPDATE: the row by its key, the values added to an UpdateQuery, as save() does.
    from django.db.models.sql import UpdateQuery

    saved = inspect.getsource(Model._do_update)
    assert "base_qs.filter(pk=pk_val)" in saved and "filtered._update(values" in saved, revisit
    updated = inspect.getsource(query.QuerySet._update)
    assert "sql.UpdateQuery" in updated and "add_update_fields(values)" in updated, revisit
    assert _params(UpdateQuery.add_update_fields) == ["self", "values_seq"], revisit


def test_the_driver_finds_the_backend_api_djangos_cursor_is_built_from() -> None:
    revisit = "Django's database backends changed: revisit tabletop/serving/driver.py"
    from django.db.backends.base.base import BaseDatabaseWrapper
    from django.db.backends.sqlite3 import base as sqlite3_base

    assert (
        sqlite3_base.FORMAT_QMARK_REGEX.sub("?", "a = %s AND b LIKE '1%%s'") == "a = ? AND b LIKE '1%%s'"
    ), revisit
    converted = inspect.getsource(sqlite3_base.SQLiteCursorWrapper.convert_query)
    assert 'FORMAT_QMARK_REGEX.sub("?", query).replace("%%", "%")' in converted, revisit
    for name in (
        "close_if_health_check_failed",
        "ensure_connection",
        "validate_thread_sharing",
        "validate_no_broken_transaction",
        "create_cursor",
    ):
        assert callable(getattr(BaseDatabaseWrapper, name, None)), revisit
    assert isinstance(BaseDatabaseWrapper.queries_logged, property), revisit
    assert isinstance(BaseDatabaseWrapper.wrap_database_errors, cached_property), revisit
    # Django's own cursor is those, in this order, and nothing more.
    cursor = inspect.getsource(BaseDatabaseWrapper._cursor)
    assert "self.close_if_health_check_failed()" in cursor and "self.ensure_connection()" in cursor, revisit
    assert "self._prepare_cursor(self.create_cursor(name))" in cursor, revisit
    executed = inspect.getsource(CursorWrapper._execute)
    assert "self.db.validate_no_broken_transaction()" in executed, revisit
    assert "with self.db.wrap_database_errors:" in executed, revisit
    assert "self.db.execute_wrappers" in inspect.getsource(CursorWrapper._execute_with_wrappers), revisit


@pytest.mark.django_db
def test_a_compiled_read_finds_what_it_reads_on_the_compiler() -> None:
    revisit = "Django's SQL compiler changed: revisit tabletop/serving/compiled_query.py"
    from tabletop.models import Character

    queryset = Character.objects.select_related("campaign").filter(pk=1).order_by()[:2]
    compiler = queryset.query.get_compiler(using=queryset.db)
    compiler.as_sql()
    assert {"model", "select_fields"} <= set(compiler.klass_info), revisit
    assert isinstance(compiler.select, list) and isinstance(compiler.col_count, int), revisit
    assert isinstance(compiler.annotation_col_map, dict), revisit
    assert hasattr(queryset, "_fetch_mode"), revisit
    assert isinstance(queryset.query.select_for_update, bool), revisit

    from django.db.models.sql import InsertQuery

    assert hasattr(InsertQuery(Character).get_compiler(using="default"), "returning_fields"), revisit


def test_the_request_threads_handler_finds_djangos_asgi_handler_as_it_uses_it() -> None:
    revisit = "Django's ASGI handler changed: revisit tabletop/serving/request_threads.py"
    from django.core.handlers import asgi

    handler = asgi.ASGIHandler
    for name, params in {
        "read_body": ["self", "receive"],
        "create_request": ["self", "scope", "body_file"],
        "send_response": ["self", "response", "send"],
        "listen_for_disconnect": ["self", "receive"],
        "handle": ["self", "scope", "receive", "send"],
        "load_middleware": ["self", "is_async"],
    }.items():
        assert _params(getattr(handler, name)) == params, f"{revisit} ({name})"
    assert isinstance(handler.chunk_size, int), revisit
    assert callable(getattr(asgi, "get_script_prefix", None)), revisit


def test_asgirefs_thread_sensitive_context_takes_an_executor() -> None:
    revisit = "asgiref changed: revisit tabletop/serving/request_threads.py"
    from asgiref.sync import ThreadSensitiveContext

    assert "executor" in _params(ThreadSensitiveContext), revisit

    async def enter() -> None:
        with ThreadPoolExecutor(max_workers=1) as executor:
            async with ThreadSensitiveContext(executor=executor):
                pass

    asyncio.run(enter())


def test_the_channel_layer_finds_the_stock_layers_internals() -> None:
    revisit = "Channels' in-memory layer or asyncio.Queue changed: revisit tabletop/serving/channel_layer.py"
    from channels.layers import InMemoryChannelLayer

    async def shape() -> None:
        queue: asyncio.Queue[tuple[float, dict[str, Any]]] = asyncio.Queue()
        queue.put_nowait((1.0, {}))
        assert queue._queue[0] == (1.0, {}), revisit  # type: ignore[attr-defined]

    asyncio.run(shape())
    layer = InMemoryChannelLayer()
    assert isinstance(layer.channels, dict) and isinstance(layer.groups, dict), revisit
    assert isinstance(layer.expiry, int | float) and isinstance(layer.group_expiry, int | float), revisit
    assert callable(getattr(layer, "_clean_expired", None)), revisit
    assert _params(layer.get_capacity) == ["channel"], revisit


def test_channels_dispatch_does_what_the_consumer_mixin_replaces() -> None:
    revisit = "Channels' AsyncConsumer.dispatch changed: revisit tabletop/serving/consumer.py"
    from channels.consumer import AsyncConsumer, get_handler_name

    assert get_handler_name({"type": "table.entry"}) == "table_entry", revisit
    source = inspect.getsource(AsyncConsumer.dispatch)
    assert "get_handler_name" in source and "aclose_old_connections" in source, revisit


def test_channels_websocket_disconnect_does_what_the_consumer_mixin_replaces() -> None:
    revisit = (
        "Channels' AsyncWebsocketConsumer.websocket_disconnect changed: revisit tabletop/serving/consumer.py"
    )
    from channels.generic.websocket import AsyncWebsocketConsumer

    source = inspect.getsource(AsyncWebsocketConsumer.websocket_disconnect)
    for step in (
        "self.groups",
        "group_discard",
        "self.disconnect(",
        "aclose_old_connections",
        "StopConsumer",
    ):
        assert step in source, revisit
    # Nothing else: these steps and their comments, no call the mixin would leave out.
    assert source.count("await ") == 3, revisit


def test_a_switch_names_a_known_piece() -> None:
    with pytest.raises(ValueError, match="no serving piece 'fast'"):
        serving.enabled("fast")
    with pytest.raises(ValueError, match="FAST_PATH_OFF names no piece gcc"):
        serving.switches(on=True, off=["gc", "gcc"])


def test_the_switches_turn_all_or_some_pieces_off() -> None:
    assert serving.switches(on=True) == dict.fromkeys(serving.PIECES, True)
    assert serving.switches(on=False, off=["gc"]) == dict.fromkeys(serving.PIECES, False)
    some = serving.switches(on=True, off=["gc", "compiled_queries"])
    assert [piece for piece, on in some.items() if not on] == ["compiled_queries", "gc"]


def test_djangos_field_copies_copy_what_the_form_copies_repeat() -> None:
    """tabletop/serving/fields.py makes a form's copies of its fields as these methods do: each
    still sets exactly the attributes it repeats."""
    import re

    from django import forms
    from django.forms.widgets import ChoiceWidget

    revisit = "Django's fields or widgets copy themselves differently: revisit tabletop/serving/fields.py"
    repeated = {
        forms.Field.__deepcopy__: {"widget", "error_messages", "validators"},
        forms.ChoiceField.__deepcopy__: {"_choices"},
        forms.ModelChoiceField.__deepcopy__: {"queryset"},
        forms.Widget.__deepcopy__: {"attrs"},
        ChoiceWidget.__deepcopy__: {"attrs", "choices"},
    }
    for method, attributes in repeated.items():
        source = inspect.getsource(method)
        assert set(re.findall(r"(?:result|obj)\.(\w+) =", source)) == attributes, (revisit, method)
    assert "copy.copy(self)" in inspect.getsource(forms.Field.__deepcopy__), revisit
