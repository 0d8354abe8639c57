"""Reads and writes on the roll path, compiled to SQL once.

Django builds a query's SQL anew on every call. For the small reads every roll makes (the
signed-in user, the membership, the character, its lock, the open session) building it is
most of the read: a character with its campaign took 0.90 ms, of which compiling was 0.54 ms
and SQLite's answer with both instances made 0.06 ms (development machine, 2026-11-30,
``Character.objects.select_related("campaign").get(pk=...)`` in a loop).

A ``CompiledQuery`` builds its queryset once, with stand-in values for its parameters, keeps
the SQL it compiles to, and on each call runs that SQL with the real values. Rows become
instances as the ORM's own ``ModelIterable`` makes them: the database's converters (JSON,
dates), the ``select_related`` objects, the fetch mode. So a compiled read returns what
``get()`` on the same queryset returns, and a test compares the two for every query declared.

Only for querysets whose SQL does not depend on the parameters' values: the parameters are
integers compared for equality with integer columns (ids), or strings declared as such
(``key=str``: a session's key); no ``__in`` lists, nothing that compiles differently for
None. What the query fixes itself (a flag, ``IS NULL``) may be anything. Each stand-in must
appear exactly once among the compiled parameters, or the first call fails loudly instead of
running the wrong SQL.

A ``CompiledList`` does the same for a read of many rows, in the queryset's order and up to
its slice (the waiting panels' twelve latest rolls, each with three subqueries: 0.8 ms for
SQLite and about 5 ms for Django to compile, on every roll).

A ``CompiledInsert`` does the same for ``Model.objects.create()``: the INSERT of every column
is compiled once, and each call sends the values as ``save()`` prepares them (``pre_save``,
then ``get_db_prep_save``) and reads the new id back. It sends no ``pre_save``/``post_save``
signals: nothing here listens to them (writes and what follows them live in services).

A ``CompiledSave`` does the same for ``obj.save(update_fields=...)`` on a row that exists
(what a follow-up spends from a sheet, the faces it adds to its roll): one UPDATE per set of
columns, compiled the first time that set is saved, each call sending the values as
``save()`` prepares them. Django's ``save()`` builds the UPDATE on every call (0.6 ms of a
follow-up's request, two of them, ``bench/roll_cpu.py --follow-ups``).

Why the INSERT is compiled by Django's ``InsertQuery`` rather than written out as raw SQL
(``INSERT INTO ... VALUES (%s, ...) RETURNING id`` built from the model's columns once): a
call costs the same either way (the SQL is built once; what each call does is prepare the
values as ``save()`` does, which raw SQL needs too), and the compiled statement is the one
``create()`` sends, placeholders, quoting and ``RETURNING`` as each backend writes them, which
a test checks against the ORM. Raw SQL would read no private class, for that guarantee.

With ``FAST_PATH["compiled_queries"]`` off (``tabletop.serving``), each call runs the plain
ORM instead: ``build(**params).get()``, ``Model.objects.create(**values)``.
"""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, cast

from django.db import DatabaseError, connections, models
from django.db.models import Field, Model, QuerySet
from django.db.models.constants import OnConflict
from django.db.models.query import get_related_populators
from django.db.models.sql import DeleteQuery, InsertQuery, UpdateQuery
from django.db.transaction import TransactionManagementError

from tabletop.serving import driver, enabled

# Stand-ins: integers no id or sequence number of ours reaches, inside a positive 32-bit column's
# range: Django compiles a lookup it can answer from the column's range alone without a
# parameter ("id = 2**40" matches nothing, "seq > -1" on a positive column everything).
_FIRST_STAND_IN = 2_140_000_001
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


class _CompiledOnce[P](ABC):
    """Compiles on first use, once per process: the database is the settings' and does not
    change while the process runs."""

    def __init__(self) -> None:
        self._compiled: P | None = None
        self._lock = threading.Lock()

    def _plan(self) -> P:
        if self._compiled is None:
            with self._lock:
                if self._compiled is None:
                    self._compiled = self._compile()
        return self._compiled

    @abstractmethod
    def _compile(self) -> P:
        """The plan: SQL and what running it needs."""


type Param = int | str


def _in_range(params: dict[str, Param]) -> bool:
    # Only integers can be out of a column's range; a text parameter is any string.
    return all(_INT64_MIN <= value <= _INT64_MAX for value in params.values() if isinstance(value, int))


def _types(params: tuple[str, ...], typed: dict[str, type]) -> dict[str, type]:
    """Each parameter's type: the names given alone are integers (ids), the others say."""
    if unknown := [name for name, kind in typed.items() if kind not in (int, str)]:
        raise TypeError(f"parameters are int or str: {unknown}")
    if both := set(params) & set(typed):
        raise TypeError(f"parameters named twice: {sorted(both)}")
    return {name: int for name in params} | typed


def _check_params(types: dict[str, type], params: dict[str, Param]) -> None:
    if params.keys() != types.keys():
        raise TypeError(f"expected the parameters {sorted(types)}, got {sorted(params)}")
    for name, value in params.items():
        if type(value) is not types[name]:
            raise TypeError(f"{name} is {types[name].__name__}, not {type(value).__name__}")


def _stand_ins(types: dict[str, type]) -> dict[str, Param]:
    """A value for each parameter that the query compiles with and no row holds: an id none
    takes, or a string no column holds. Each must come out once among the compiled
    parameters (``_sources``)."""
    return {
        name: _FIRST_STAND_IN + index if kind is int else f"\x00stand-in {index}\x00"
        for index, (name, kind) in enumerate(types.items())
    }


def _sources(
    stand_ins: dict[str, Param], compiled_params: Sequence[Any], sql: str
) -> tuple[tuple[str | None, Any], ...]:
    """Where each compiled parameter comes from: a call's keyword, or a constant."""
    by_value = {value: name for name, value in stand_ins.items()}
    params = tuple((by_value.get(value), None if value in by_value else value) for value in compiled_params)
    for name in stand_ins:
        count = sum(1 for source, _ in params if source == name)
        if count != 1:
            raise ValueError(f"parameter {name!r} appears {count} times in the compiled query: {sql}")
    return params


@dataclass(frozen=True)
class _Plan:
    sql: str
    # Where each parameter comes from: the name of a call's keyword, or a constant the query
    # compiled with (a flag in a filter, say), as (None, value).
    params: tuple[tuple[str | None, Any], ...]
    db: str
    for_update: bool
    model: type[Model]
    init_list: tuple[str, ...]
    model_slice: slice
    converters: dict[int, tuple[list[Callable[..., Any]], Any]]
    populators: list[Any]
    annotations: tuple[tuple[str, int], ...]
    fetch_mode: Any


class CompiledQuery[M: Model](_CompiledOnce[_Plan]):
    """A read of at most one row, compiled once.

    ``build`` takes the parameters as keywords and returns the queryset; ``get(**params)``
    then behaves as ``build(**params).get()``. The parameters named alone are integers
    (ids); others are declared with their type, ``int`` or ``str``: ``key=str``.
    """

    def __init__(self, build: Callable[..., QuerySet[M]], *params: str, **typed: type) -> None:
        super().__init__()
        self._build = build
        self._types = _types(params, typed)

    def get(self, **params: Param) -> M:
        if not enabled("compiled_queries"):
            self._check(params)
            queryset = self._build(**params)
            if not _in_range(params):
                raise queryset.model.DoesNotExist(  # type: ignore[attr-defined]  # every model has one
                    f"{queryset.model._meta.object_name} matching query does not exist."
                )
            return queryset.get()
        obj = self.get_or_none(**params)
        if obj is None:
            plan = self._plan()
            raise plan.model.DoesNotExist(f"{plan.model._meta.object_name} matching query does not exist.")  # type: ignore[attr-defined]
        return obj

    def get_or_none(self, **params: Param) -> M | None:
        self._check(params)
        if not _in_range(params):
            # No row holds such an id; SQLite would raise OverflowError on it instead of
            # finding nothing (the ORM too, for a foreign key), and the ORM compiles such a
            # lookup of an integer column to "matches nothing".
            return None
        if not enabled("compiled_queries"):
            queryset = self._build(**params)
            try:
                return queryset.get()
            except queryset.model.DoesNotExist:  # type: ignore[attr-defined]  # every model has one
                return None
        plan = self._plan()
        connection = connections[plan.db]
        if plan.for_update and connection.get_autocommit():
            # What the ORM says for the same mistake: a lock without a transaction holds nothing.
            raise TransactionManagementError("select_for_update cannot be used outside of a transaction.")
        values = [params[name] if name is not None else constant for name, constant in plan.params]
        rows = driver.run(plan.db, plan.sql, values, driver.first_two)
        if len(rows) > 1:
            raise plan.model.MultipleObjectsReturned(  # type: ignore[attr-defined]
                f"get() returned more than one {plan.model._meta.object_name}."
            )
        return next(iter(_instances(plan, rows)), None)  # type: ignore[return-value]  # plan.model is M

    def _check(self, params: dict[str, Param]) -> None:
        _check_params(self._types, params)

    def sql(self) -> str:
        """The SQL each call runs (for tests and for reading)."""
        return self._plan().sql

    def _compile(self) -> _Plan:
        # As get() asks: no ordering, two rows.
        return _compile_read(lambda **stand_ins: self._build(**stand_ins).order_by()[:2], self._types)


class CompiledList[M: Model](_CompiledOnce[_Plan]):
    """A read of many rows, compiled once: ``all(**params)`` returns ``list(build(**params))``,
    in the queryset's order and as many as its slice takes (a fixed LIMIT is part of the SQL)."""

    def __init__(self, build: Callable[..., QuerySet[M]], *params: str, **typed: type) -> None:
        super().__init__()
        self._build = build
        self._types = _types(params, typed)

    def all(self, **params: Param) -> list[M]:
        _check_params(self._types, params)
        if not _in_range(params):
            return []  # no row holds such an id (as CompiledQuery.get_or_none)
        if not enabled("compiled_queries"):
            return list(self._build(**params))
        plan = self._plan()
        values = [params[name] if name is not None else constant for name, constant in plan.params]
        return list(_instances(plan, driver.run(plan.db, plan.sql, values, driver.rows)))  # type: ignore[arg-type]  # plan.model is M

    def sql(self) -> str:
        """The SQL each call runs (for tests and for reading)."""
        return self._plan().sql

    def _compile(self) -> _Plan:
        return _compile_read(self._build, self._types)


def _compile_read(build: Callable[..., QuerySet[Any]], types: dict[str, type]) -> _Plan:
    """The plan of ``build``'s queryset, compiled with a stand-in for each parameter."""
    stand_ins = _stand_ins(types)
    queryset = build(**stand_ins)
    db = queryset.db
    compiler = queryset.query.get_compiler(using=db)
    sql, compiled_params = compiler.as_sql()
    params = _sources(stand_ins, compiled_params, sql)
    klass_info = compiler.klass_info
    select = compiler.select
    select_fields = klass_info["select_fields"]
    start, end = select_fields[0], select_fields[-1] + 1
    fetch_mode = queryset._fetch_mode  # type: ignore[attr-defined]  # private: what ModelIterable passes on
    return _Plan(
        sql=sql,
        params=params,
        db=db,
        for_update=queryset.query.select_for_update,
        model=klass_info["model"],
        init_list=tuple(column[0].target.attname for column in select[start:end]),
        model_slice=slice(start, end),
        converters=compiler.get_converters([column[0] for column in select[: compiler.col_count]]),
        populators=get_related_populators(klass_info, select, db, fetch_mode),
        annotations=tuple(compiler.annotation_col_map.items()),
        fetch_mode=fetch_mode,
    )


def _instances(plan: _Plan, rows: Iterable[Sequence[Any]]) -> Iterable[Model]:
    # As django.db.models.query.ModelIterable, for a plain queryset.
    connection = connections[plan.db]
    for raw in rows:
        row = list(raw)
        for position, (converters, expression) in plan.converters.items():
            value = row[position]
            for converter in converters:
                value = converter(value, expression, connection)
            row[position] = value
        obj = plan.model.from_db(plan.db, plan.init_list, row[plan.model_slice], fetch_mode=plan.fetch_mode)
        for populator in plan.populators:
            populator.populate(row, obj)
        for name, position in plan.annotations:
            setattr(obj, name, row[position])
        yield obj


@dataclass(frozen=True)
class _InsertPlan:
    sql: str
    db: str
    values: tuple[Callable[[Model], Any], ...]  # each field's parameter from the object


# Fields whose preparation for save() returns a value of these exact types as it is (their
# ``pre_save`` reads the attribute, ``get_prep_value`` gives back a str, a bool, a float): it
# costs some 2 µs a field through Django's methods, and a roll's row has 33 (bench/roll_cpu.py).
_SENT_AS_IS: dict[type[Field[Any, Any]], type] = {
    models.CharField: str,
    models.TextField: str,
    models.BooleanField: bool,
    models.FloatField: float,
}
# Integers are adapted by the backend (psycopg's typed integers); the rest of their way is int().
_INTEGERS = (
    models.IntegerField,
    models.SmallIntegerField,
    models.BigIntegerField,
    models.PositiveIntegerField,
    models.PositiveSmallIntegerField,
    models.PositiveBigIntegerField,
)


def _parameter(field: Any, connection: Any) -> Callable[[Model], Any]:
    """How ``save()`` turns ``field`` of an object into its INSERT parameter
    (``field.get_db_prep_save(field.pre_save(obj, add=True))``), with the steps that change
    nothing skipped for the common fields and values; any other field or value takes Django's
    own way, as every field does with the fast path off."""
    attname = field.attname

    def saved(obj: Model) -> Any:
        value = field.pre_save(obj, add=True)  # auto_now_add and the like, as save() does
        if hasattr(value, "resolve_expression"):
            raise TypeError(f"{field.name}: a compiled insert takes values, not expressions")
        return field.get_db_prep_save(value, connection=connection)

    def fast(plain: type, send: Callable[[Any], Any]) -> Callable[[Model], Any]:
        # A None is None all the way; a value of exactly ``plain`` needs only ``send``.
        def prepared(obj: Model) -> Any:
            value = getattr(obj, attname)
            if value is None:
                return None
            return send(value) if type(value) is plain else saved(obj)

        return prepared

    kind = type(field)
    if kind in _SENT_AS_IS:
        return fast(_SENT_AS_IS[kind], lambda value: value)
    if kind in _INTEGERS:
        adapt, internal = connection.ops.adapt_integerfield_value, field.get_internal_type()
        return fast(int, lambda value: adapt(value, internal))
    if kind is models.ForeignKey and type(field.target_field) in (models.AutoField, models.BigAutoField):
        # An id: the key's own preparation is int() and the backend's check of an id.
        return fast(int, connection.ops.validate_autopk_value)
    return saved


class CompiledInsert[M: Model](_CompiledOnce[_InsertPlan]):
    """``model.objects.create(**values)`` with the INSERT compiled once.

    With ``ignore_conflicts``, ``model.objects.bulk_create([model(**values)],
    ignore_conflicts=True)`` instead: a row that would break a unique constraint is not
    written, and the instance returned has no id (as bulk_create's). Without bulk_create's
    transaction around it: one INSERT is atomic alone, and BEGIN and COMMIT were two more
    statements (a socket's presence row: bench/connect_cpu.py).
    """

    def __init__(self, model: type[M], *, ignore_conflicts: bool = False) -> None:
        super().__init__()
        self.model = model
        self.ignore_conflicts = ignore_conflicts

    def create(self, **values: Any) -> M:
        if not enabled("compiled_queries"):
            if self.ignore_conflicts:
                obj = self.model(**values)
                self.model._default_manager.bulk_create([obj], ignore_conflicts=True)
                return obj
            return self.model._default_manager.create(**values)
        obj = self.model(**values)
        obj._prepare_related_fields_for_save(operation_name="save")  # type: ignore[attr-defined]  # as save(): no unsaved relations
        plan = self._plan()
        params = [value(obj) for value in plan.values]
        if self.ignore_conflicts:
            driver.run(plan.db, plan.sql, params, driver.nothing)
            return obj  # as bulk_create leaves it: no id read back, a conflict is no error
        obj.pk = driver.run(plan.db, plan.sql, params, driver.one)[0]
        obj._state.adding = False
        obj._state.db = plan.db
        return obj

    def sql(self) -> str:
        return self._plan().sql

    def _compile(self) -> _InsertPlan:
        meta = self.model._meta
        db = self.model._default_manager.db_manager().db
        connection = connections[db]
        if not self.ignore_conflicts and (
            list(meta.db_returning_fields) != [meta.pk]
            or not connection.features.can_return_columns_from_insert
        ):
            raise ValueError(f"{meta.label}: a compiled insert reads back the id alone, with RETURNING")
        fields = tuple(f for f in meta.local_concrete_fields if not f.generated and f is not meta.auto_field)
        if self.ignore_conflicts:
            # As bulk_create(ignore_conflicts=True) compiles it: "INSERT OR IGNORE" on SQLite,
            # "ON CONFLICT DO NOTHING" on PostgreSQL; nothing read back.
            if not connection.features.supports_ignore_conflicts:
                raise ValueError(f"{meta.label}: this database ignores no conflicts on insert")
            query = InsertQuery(self.model, on_conflict=OnConflict.IGNORE)
        else:
            query = InsertQuery(self.model)
        query.insert_values(fields, [self.model()], raw=False)
        compiler = query.get_compiler(using=db)
        if not self.ignore_conflicts:
            compiler.returning_fields = meta.db_returning_fields
        statements = compiler.as_sql()
        if len(statements) != 1 or len(statements[0][1]) != len(fields):
            raise ValueError(
                f"{meta.label}: the INSERT does not take one %s parameter per column: {statements}"
            )
        values = tuple(_parameter(field, connection) for field in fields)
        return _InsertPlan(sql=statements[0][0], db=db, values=values)


@dataclass(frozen=True)
class _SavePlan:
    sql: str
    db: str
    fields: tuple[Field[Any, Any], ...]


class CompiledSave[M: Model]:
    """``obj.save(update_fields=names)`` with each set of columns' UPDATE compiled once.

    As ``save()`` does: each field's ``pre_save``, then ``get_db_prep_save``, and a row that is
    not there raises ``DatabaseError``; without ``pre_save``/``post_save`` signals (nothing
    listens to them). The columns are the model's own, not its key. A set is compiled with the
    object's values standing in, on the first call where none is None (Django writes a None as
    the literal ``NULL``, where a parameter is wanted); until then ``save()`` runs. Compiled, a
    None is sent as a parameter like any value."""

    def __init__(self, model: type[M]) -> None:
        self.model = model
        self._plans: dict[tuple[str, ...], _SavePlan] = {}
        self._lock = threading.Lock()

    def save(self, obj: M, names: Sequence[str]) -> None:
        plan = self._plan(tuple(names), obj) if enabled("compiled_queries") else None
        if plan is None:
            obj.save(update_fields=names)
            return
        connection = connections[plan.db]
        params = [
            field.get_db_prep_save(field.pre_save(obj, False), connection=connection) for field in plan.fields
        ]
        params.append(obj.pk)
        if driver.run(plan.db, plan.sql, params, driver.rowcount) != 1:
            raise DatabaseError("Save with update_fields did not affect any rows.")  # as save()

    def sql(self, obj: M, names: Sequence[str]) -> str | None:
        """The UPDATE of those columns, once compiled (None while it cannot be)."""
        plan = self._plan(tuple(names), obj)
        return plan.sql if plan is not None else None

    def _plan(self, names: tuple[str, ...], obj: M) -> _SavePlan | None:
        plan = self._plans.get(names)
        if plan is None:
            with self._lock:
                plan = self._plans.get(names) or self._compile(names, obj)
                if plan is not None:
                    self._plans[names] = plan
        return plan

    def _compile(self, names: tuple[str, ...], obj: M) -> _SavePlan | None:
        meta = self.model._meta
        if not names or len(set(names)) != len(names):
            raise ValueError(f"{meta.label}: name each column to save once: {names}")
        found = [meta.get_field(name) for name in names]
        fields = tuple(f for f in found if isinstance(f, Field) and f.concrete)
        if wrong := [f.name for f in found if f not in fields or f.primary_key or f.generated]:
            raise ValueError(f"{meta.label}: a compiled save takes the model's own columns, not {wrong}")
        values = [field.pre_save(obj, False) for field in fields]
        if any(value is None for value in values):
            return None
        db = self.model._default_manager.db_manager().db
        # As ``Model._do_update`` builds it: the row by its key, then the new values.
        row = self.model._base_manager.using(db).filter(pk=_FIRST_STAND_IN)
        query = cast(UpdateQuery, row.query.chain(UpdateQuery))
        query.add_update_fields([(field, None, value) for field, value in zip(fields, values, strict=True)])
        sql, params = query.get_compiler(using=db).as_sql()
        if len(params) != len(fields) + 1 or params[-1] != _FIRST_STAND_IN or sql.count("%s") != len(params):
            raise ValueError(
                f"{meta.label}: the UPDATE does not take one %s parameter per column, then the key: {sql}"
            )
        return _SavePlan(sql=sql, db=db, fields=fields)


@dataclass(frozen=True)
class _DeletePlan:
    sql: str
    params: tuple[tuple[str | None, Any], ...]
    db: str


class CompiledDelete[M: Model](_CompiledOnce[_DeletePlan]):
    """``build(**params).delete()`` for rows nothing else depends on, compiled once.

    ``QuerySet.delete()`` asks a ``Collector`` whether it may delete in one statement (no
    cascade, no signal), then compiles that statement: three quarters of deleting a socket's
    presence row by its channel name (bench/connect_cpu.py). Here the statement is compiled
    once, as ``delete()`` compiles it when it deletes in one statement (``_raw_delete``), and
    a test checks that ``delete()`` sends nothing else for the queries declared. No signals
    are sent (nothing listens for these rows). The parameters are declared with their type,
    ``int`` or ``str``, compared for equality with a column: ``filter(channel_name=...)``.
    Returns the number of rows deleted.
    """

    def __init__(self, build: Callable[..., QuerySet[M]], **params: type) -> None:
        super().__init__()
        self._build = build
        self._types = _types((), params)

    def delete(self, **params: Param) -> int:
        _check_params(self._types, params)
        if not enabled("compiled_queries") or not _in_range(params):
            deleted, _ = self._build(**params).delete()
            return deleted
        plan = self._plan()
        values = [params[name] if name is not None else constant for name, constant in plan.params]
        return driver.run(plan.db, plan.sql, values, driver.rowcount)

    def sql(self) -> str:
        return self._plan().sql

    def _compile(self) -> _DeletePlan:
        stand_ins = _stand_ins(self._types)
        queryset = self._build(**stand_ins)
        db = queryset.db
        # What QuerySet._raw_delete runs (private: the query's class swapped for DeleteQuery).
        query = queryset.query.chain(DeleteQuery)
        sql, compiled_params = query.get_compiler(using=db).as_sql()
        return _DeletePlan(sql=sql, params=_sources(stand_ins, compiled_params, sql), db=db)
