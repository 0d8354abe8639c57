"""Reads and writes on the roll path, with their SQL made once, on Django's public ground.

Django builds a query's SQL anew on every call. For the small reads every roll makes (the
signed-in user, the membership, the character, its lock, the open session) building it is
most of the read: a character with its campaign took 0.90 ms, of which compiling was 0.54 ms
and SQLite's answer with both instances made 0.06 ms (development machine, 2026-11-30,
``Character.objects.select_related("campaign").get(pk=...)`` in a loop).

A ``CompiledQuery`` builds its queryset once, with stand-in values for its parameters, and
keeps the SQL the ORM sends for it; each call runs that SQL with the real values through
``connection.cursor()`` and turns the rows into instances with ``Model.from_db()``. Only
documented routes are taken:

- the SQL is the one the ORM sends for ``queryset.values_list(...)`` of every column of the
  model and of each ``related`` path, and of the ``annotations``, recorded once by a
  ``connection.execute_wrapper()`` (Django's "database instrumentation"), which also reads the
  DB-API ``cursor.description``: each column is found by its name, and a queryset whose
  columns are not the ones declared (a ``select_related`` path left out of ``related``, an
  annotation left out of ``annotations``) fails at its first call instead of reading less;
- each value goes through the backend's converters (``connection.ops.get_db_converters``,
  the operations interface every backend implements, as ``connection.ops.quote_name``) and
  the field's documented ``from_db_value``: JSON as dicts, aware datetimes;
- each related object is set on its parent through the relation's attribute, as assigning
  it in code does.

So a compiled read returns what ``get()`` on the same queryset returns (every column loaded,
where ``only()`` would defer some), and a test compares the two for every query declared.

Only for querysets whose SQL does not depend on the parameters' values: the parameters are
integers compared for equality with integer columns (ids), or strings declared as such
(``key=str``: a session's key); no ``__in`` lists, nothing that compiles differently for
None. What the query fixes itself (a flag, ``IS NULL``) may be anything. Each stand-in must
appear exactly once among the recorded parameters, or the first call fails loudly instead of
running the wrong SQL.

A ``CompiledList`` does the same for a read of many rows, in the queryset's order and up to
its slice (the waiting panels' twelve latest rolls, each with three subqueries: 0.8 ms for
SQLite and about 5 ms for Django to compile, on every roll).

A ``CompiledInsert`` does the same for ``Model.objects.create()``: the INSERT of every column
is written once from the model's ``_meta`` (``connection.ops.quote_name``, ``RETURNING`` the
id), and each call sends the values as ``save()`` prepares them (``pre_save``, then
``get_db_prep_save``, both documented field API). It sends no ``pre_save``/``post_save``
signals: nothing here listens to them (writes and what follows them live in services).

A ``CompiledSave`` does the same for ``obj.save(update_fields=...)`` on a row that exists
(what a follow-up spends from a sheet, the faces it adds to its roll): one UPDATE per set of
columns, written the first time that set is saved. Django's ``save()`` builds the UPDATE on
every call (0.6 ms of a follow-up's request, two of them, ``bench/roll_cpu.py --follow-ups``).

A ``CompiledDelete`` keeps the one DELETE the ORM sends for ``queryset.delete()`` of rows
nothing depends on, recorded as the reads are.

With ``FAST_PATH["compiled_queries"]`` off (``tabletop.serving``), each call runs the plain
ORM instead: ``build(**params).get()``, ``Model.objects.create(**values)``.
"""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from django.db import DatabaseError, connections, models, transaction
from django.db.models import Field, Model, QuerySet
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
    takes, or a string no column holds. Each must come out once among the recorded
    parameters (``_sources``)."""
    return {
        name: _FIRST_STAND_IN + index if kind is int else f"~stand-in {index} of a compiled query~"
        for index, (name, kind) in enumerate(types.items())
    }


def _sources(
    stand_ins: dict[str, Param], compiled_params: Sequence[Any], sql: str
) -> tuple[tuple[str | None, Any], ...]:
    """Where each recorded parameter comes from: a call's keyword, or a constant."""
    by_value = {value: name for name, value in stand_ins.items()}
    params = tuple((by_value.get(value), None if value in by_value else value) for value in compiled_params)
    for name in stand_ins:
        count = sum(1 for source, _ in params if source == name)
        if count != 1:
            raise ValueError(f"parameter {name!r} appears {count} times in the compiled query: {sql}")
    return params


@dataclass(frozen=True)
class _Sent:
    """A statement as the ORM sent it, recorded by ``_record``."""

    sql: str
    params: tuple[Any, ...]
    columns: tuple[str, ...]  # the DB-API cursor.description's names; () for no result


def _record(db: str, run: Callable[[], object]) -> list[_Sent]:
    """The statements ``run`` sends to ``db``, through Django's documented execute wrapper.

    They run (with stand-ins, they find nothing), where the backend locks rows in a
    transaction of their own, so a ``select_for_update()`` is as valid here as in the service
    that reads it; and on a thread
    of their own, so on a connection of their own (Django keeps one per thread), closed after:
    whoever watches the statements of the caller's connection (``assertNumQueries``) sees only
    what each call runs, not the recording, and the caller's transaction is not touched."""
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="compile") as once:
        return once.submit(_record_here, db, run).result()


def _record_here(db: str, run: Callable[[], object]) -> list[_Sent]:
    sent: list[_Sent] = []

    def wrapper(
        execute: Callable[..., Any], sql: str, params: Any, many: bool, context: dict[str, Any]
    ) -> Any:
        result = execute(sql, params, many, context)
        if sql.startswith(("SAVEPOINT", "RELEASE SAVEPOINT", "ROLLBACK TO SAVEPOINT")):
            return result  # the transaction's own, not the queryset's
        description = context["cursor"].description
        sent.append(_Sent(sql, tuple(params or ()), tuple(column[0] for column in description or ())))
        return result

    connection = connections[db]
    try:
        with connection.execute_wrapper(wrapper):
            if connection.features.has_select_for_update:
                with transaction.atomic(using=db):
                    run()
            else:
                # No lock to hold (SQLite): no transaction either, whose IMMEDIATE start
                # (tabletop.settings) would wait for the caller's writes to commit.
                run()
    finally:
        connection.close()
    return sent


class _Column:
    """What the backend's converters ask of a column: its field (``output_field``)."""

    def __init__(self, field: Field[Any, Any]) -> None:
        self.output_field = field


type Converter = Callable[[Any, Any, Any], Any]


def _converters(field: Field[Any, Any], connection: Any) -> tuple[tuple[Converter, ...], _Column]:
    """The backend's converters of ``field``'s values, then the field's own ``from_db_value``,
    in the order the ORM applies them."""
    column = _Column(field)
    found: list[Converter] = list(connection.ops.get_db_converters(column))
    if hasattr(field, "from_db_value"):
        found.append(field.from_db_value)
    return tuple(found), column


@dataclass(frozen=True)
class _Part:
    """One model of a row: the main one (path ``()``) or one reached by ``related``."""

    path: tuple[str, ...]
    model: type[Model]
    attnames: tuple[str, ...]
    positions: tuple[int, ...]
    pk_position: int


@dataclass(frozen=True)
class _Plan:
    sql: str
    # Where each parameter comes from: the name of a call's keyword, or a constant the query
    # compiled with (a flag in a filter, say), as (None, value).
    params: tuple[tuple[str | None, Any], ...]
    db: str
    for_update: bool
    model: type[Model]
    parts: tuple[_Part, ...]
    converters: tuple[tuple[int, tuple[Converter, ...], _Column], ...]
    annotations: tuple[tuple[str, int], ...]


class _Read[M: Model](_CompiledOnce[_Plan]):
    def __init__(
        self,
        build: Callable[..., QuerySet[M]],
        params: tuple[str, ...],
        typed: dict[str, type],
        related: Sequence[str],
        annotations: Mapping[str, Field[Any, Any] | None],
    ) -> None:
        super().__init__()
        self._build = build
        self._types = _types(params, typed)
        self._related = tuple(related)
        self._annotations = dict(annotations)

    def sql(self) -> str:
        """The SQL each call runs (for tests and for reading)."""
        return self._plan().sql

    def _run(self, params: dict[str, Param], read: Callable[[Any], list[Any]]) -> list[M]:
        plan = self._plan()
        if plan.for_update and connections[plan.db].get_autocommit():
            # What the ORM says for the same mistake: a lock without a transaction holds nothing.
            raise TransactionManagementError("select_for_update cannot be used outside of a transaction.")
        values = [params[name] if name is not None else constant for name, constant in plan.params]
        return list(_instances(plan, driver.run(plan.db, plan.sql, values, read)))  # type: ignore[arg-type]  # plan.model is M

    def _compile_queryset(self, queryset: Callable[..., QuerySet[M]]) -> _Plan:
        stand_ins = _stand_ins(self._types)
        built = queryset(**stand_ins)
        db, model = built.db, built.model
        connection = connections[db]
        parts_fields: list[tuple[tuple[str, ...], type[Model], list[Field[Any, Any]]]] = []
        names: list[str] = []
        for path in ((), *(tuple(each.split("__")) for each in self._related)):
            part_model = _model_at(model, path)
            own = list(part_model._meta.concrete_fields)
            parts_fields.append((path, part_model, own))
            names += ["__".join((*path, field.attname)) for field in own]
        names += self._annotations
        # The ORM's own queryset, as it would send it: its columns say what it loads.
        (plain,) = [s for s in _record(db, lambda: list(built)) if s.columns]
        (shaped,) = [s for s in _record(db, lambda: list(built.values_list(*names))) if s.columns]
        if len(shaped.columns) != len(names) or set(shaped.columns) != set(names):
            raise ValueError(f"{model._meta.label}: the columns read are not the ones named: {shaped.sql}")
        if len(plain.columns) > len(names):
            # The queryset loads more than was declared: a select_related path or an annotation.
            raise ValueError(
                f"{model._meta.label}: the queryset reads {len(plain.columns)} columns, the compiled "
                f"read {len(names)}: name its select_related paths in related= and its annotations "
                f"in annotations= ({plain.sql})"
            )
        position = {name: index for index, name in enumerate(shaped.columns)}
        parts = []
        converters = []
        for path, part_model, own in parts_fields:
            positions = tuple(position["__".join((*path, field.attname))] for field in own)
            pk_name = "__".join((*path, part_model._meta.pk.attname))
            attnames = tuple(field.attname for field in own)
            parts.append(_Part(path, part_model, attnames, positions, position[pk_name]))
            for field, at in zip(own, positions, strict=True):
                found, column = _converters(field, connection)
                if found:
                    converters.append((at, found, column))
        for name, output in self._annotations.items():
            if output is not None:
                found, column = _converters(output, connection)
                if found:
                    converters.append((position[name], found, column))
        sql = shaped.sql
        return _Plan(
            sql=sql,
            params=_sources(stand_ins, shaped.params, sql),
            db=db,
            # The ORM refuses a lock outside a transaction where the backend writes one.
            for_update=" FOR UPDATE" in sql or " FOR NO KEY UPDATE" in sql,
            model=model,
            parts=tuple(parts),
            converters=tuple(converters),
            annotations=tuple((name, position[name]) for name in self._annotations),
        )


def _model_at(model: type[Model], path: tuple[str, ...]) -> type[Model]:
    for name in path:
        field = model._meta.get_field(name)
        if not (field.many_to_one or field.one_to_one) or not field.concrete:
            raise ValueError(f"{model._meta.label}.{name}: related= follows foreign keys only")
        model = field.related_model  # type: ignore[assignment]  # a foreign key's model
    return model


def _column(field: Any) -> str:
    if field.column is None:
        raise ValueError(f"{field.name}: no column")
    return str(field.column)


class CompiledQuery[M: Model](_Read[M]):
    """A read of at most one row, compiled once.

    ``build`` takes the parameters as keywords and returns the queryset; ``get(**params)``
    then behaves as ``build(**params).get()``. The parameters named alone are integers
    (ids); others are declared with their type, ``int`` or ``str``: ``key=str``. ``related``
    names the queryset's ``select_related`` paths, ``annotations`` its annotations with their
    output field (None: the value as the driver gives it).
    """

    def __init__(
        self,
        build: Callable[..., QuerySet[M]],
        *params: str,
        related: Sequence[str] = (),
        annotations: Mapping[str, Field[Any, Any] | None] | None = None,
        **typed: type,
    ) -> None:
        super().__init__(build, params, typed, related, annotations or {})

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
        found = self._run(params, driver.first_two)
        if len(found) > 1:
            model = self._plan().model
            raise model.MultipleObjectsReturned(  # type: ignore[attr-defined]
                f"get() returned more than one {model._meta.object_name}."
            )
        return found[0] if found else None

    def _check(self, params: dict[str, Param]) -> None:
        _check_params(self._types, params)

    def _compile(self) -> _Plan:
        # As get() asks: no ordering, two rows.
        return self._compile_queryset(lambda **stand_ins: self._build(**stand_ins).order_by()[:2])


class CompiledList[M: Model](_Read[M]):
    """A read of many rows, compiled once: ``all(**params)`` returns ``list(build(**params))``,
    in the queryset's order and as many as its slice takes (a fixed LIMIT is part of the SQL).
    ``related`` and ``annotations`` as for ``CompiledQuery``."""

    def __init__(
        self,
        build: Callable[..., QuerySet[M]],
        *params: str,
        related: Sequence[str] = (),
        annotations: Mapping[str, Field[Any, Any] | None] | None = None,
        **typed: type,
    ) -> None:
        super().__init__(build, params, typed, related, annotations or {})

    def all(self, **params: Param) -> list[M]:
        _check_params(self._types, params)
        if not _in_range(params):
            return []  # no row holds such an id (as CompiledQuery.get_or_none)
        if not enabled("compiled_queries"):
            return list(self._build(**params))
        return self._run(params, driver.rows)

    def _compile(self) -> _Plan:
        return self._compile_queryset(self._build)


def _instances(plan: _Plan, rows: Iterable[Sequence[Any]]) -> Iterable[Model]:
    connection = connections[plan.db]
    db = plan.db
    for raw in rows:
        row = list(raw)
        for position, converters, column in plan.converters:
            value = row[position]
            for converter in converters:
                value = converter(value, column, connection)
            row[position] = value
        made: dict[tuple[str, ...], Model | None] = {}
        for part in plan.parts:
            if part.path:
                parent = made[part.path[:-1]]
                if parent is None:
                    made[part.path] = None
                    continue
                if row[part.pk_position] is None:
                    made[part.path] = None
                    setattr(parent, part.path[-1], None)
                    continue
            obj = part.model.from_db(db, part.attnames, [row[at] for at in part.positions])
            made[part.path] = obj
            if part.path:
                setattr(parent, part.path[-1], obj)
        main = made[()]
        for name, position in plan.annotations:
            setattr(main, name, row[position])
        yield main  # type: ignore[misc]  # the main part is never None


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

    def fast(plain: type) -> Callable[[Model], Any]:
        # A None is None all the way; a value of exactly ``plain`` goes as it is.
        def prepared(obj: Model) -> Any:
            value = getattr(obj, attname)
            if value is None:
                return None
            return value if type(value) is plain else saved(obj)

        return prepared

    kind = type(field)
    if kind in _SENT_AS_IS:
        return fast(_SENT_AS_IS[kind])
    if kind in _INTEGERS or (
        kind is models.ForeignKey and type(field.target_field) in (models.AutoField, models.BigAutoField)
    ):
        # An int is sent as it is; the database checks its range (the ORM's own check of it
        # raises the same IntegrityError class for a value out of range on PostgreSQL).
        return fast(int)
    return saved


def _unsaved_relation(values: Mapping[str, Any]) -> None:
    """As ``save()`` refuses: a related object not saved yet would be written as NULL."""
    for name, value in values.items():
        if isinstance(value, Model) and value.pk is None:
            raise ValueError(
                f"save() prohibited to prevent data loss due to unsaved related object '{name}'."
            )


class CompiledInsert[M: Model](_CompiledOnce[_InsertPlan]):
    """``model.objects.create(**values)`` with the INSERT written once.

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
        _unsaved_relation(values)
        obj = self.model(**values)
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
        quote = connection.ops.quote_name
        if not self.ignore_conflicts and (
            list(meta.db_returning_fields) != [meta.pk]
            or not connection.features.can_return_columns_from_insert
        ):
            raise ValueError(f"{meta.label}: a compiled insert reads back the id alone, with RETURNING")
        fields = tuple(f for f in meta.local_concrete_fields if not f.generated and f is not meta.auto_field)
        columns = ", ".join(quote(_column(f)) for f in fields)
        placeholders = ", ".join(["%s"] * len(fields))
        into = f"INTO {quote(meta.db_table)} ({columns}) VALUES ({placeholders})"
        if not self.ignore_conflicts:
            sql = f"INSERT {into} RETURNING {quote(_column(meta.pk))}"
        elif connection.vendor == "sqlite":
            sql = f"INSERT OR IGNORE {into}"  # as bulk_create(ignore_conflicts=True) writes it
        elif connection.vendor == "postgresql":
            sql = f"INSERT {into} ON CONFLICT DO NOTHING"
        else:
            raise ValueError(f"{meta.label}: no INSERT ignoring conflicts written for {connection.vendor}")
        values = tuple(_parameter(field, connection) for field in fields)
        return _InsertPlan(sql=sql, db=db, values=values)


@dataclass(frozen=True)
class _SavePlan:
    sql: str
    db: str
    fields: tuple[Field[Any, Any], ...]


class CompiledSave[M: Model]:
    """``obj.save(update_fields=names)`` with each set of columns' UPDATE written once.

    As ``save()`` does: each field's ``pre_save``, then ``get_db_prep_save``, and a row that is
    not there raises ``DatabaseError``; without ``pre_save``/``post_save`` signals (nothing
    listens to them). The columns are the model's own, not its key."""

    def __init__(self, model: type[M]) -> None:
        self.model = model
        self._plans: dict[tuple[str, ...], _SavePlan] = {}
        self._lock = threading.Lock()

    def save(self, obj: M, names: Sequence[str]) -> None:
        if not enabled("compiled_queries"):
            obj.save(update_fields=names)
            return
        plan = self._plan(tuple(names))
        connection = connections[plan.db]
        params = [
            field.get_db_prep_save(field.pre_save(obj, False), connection=connection) for field in plan.fields
        ]
        params.append(obj.pk)
        if driver.run(plan.db, plan.sql, params, driver.rowcount) != 1:
            raise DatabaseError("Save with update_fields did not affect any rows.")  # as save()

    def sql(self, names: Sequence[str]) -> str:
        """The UPDATE of those columns."""
        return self._plan(tuple(names)).sql

    def _plan(self, names: tuple[str, ...]) -> _SavePlan:
        plan = self._plans.get(names)
        if plan is None:
            with self._lock:
                plan = self._plans.get(names) or self._compile(names)
                self._plans[names] = plan
        return plan

    def _compile(self, names: tuple[str, ...]) -> _SavePlan:
        meta = self.model._meta
        if not names or len(set(names)) != len(names):
            raise ValueError(f"{meta.label}: name each column to save once: {names}")
        found = [meta.get_field(name) for name in names]
        fields = tuple(f for f in found if isinstance(f, Field) and f.concrete)
        if wrong := [f.name for f in found if f not in fields or f.primary_key or f.generated]:
            raise ValueError(f"{meta.label}: a compiled save takes the model's own columns, not {wrong}")
        db = self.model._default_manager.db_manager().db
        quote = connections[db].ops.quote_name
        columns = ", ".join(f"{quote(_column(f))} = %s" for f in fields)
        sql = f"UPDATE {quote(meta.db_table)} SET {columns} WHERE {quote(_column(meta.pk))} = %s"
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
    presence row by its channel name (bench/connect_cpu.py). Here the statement is written
    once: ``DELETE FROM`` the model's table ``WHERE`` what the ORM's read of the same queryset
    filters on (recorded as the compiled reads are), for a queryset of one table (no join)
    whose model no other model refers to (nothing to cascade to); a test checks that it is the
    statement ``delete()`` sends. No signals are sent (nothing listens for these rows). The
    parameters are declared with their type, ``int`` or ``str``, compared for equality with a
    column: ``filter(channel_name=...)``. Returns the number of rows deleted.
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
        db, meta = queryset.db, queryset.model._meta
        if referred := [f.name for f in meta.get_fields() if f.auto_created and not f.concrete]:
            raise ValueError(f"{meta.label}: other models refer to it ({referred}): delete() cascades")
        table = connections[db].ops.quote_name(meta.db_table)
        (read,) = [s for s in _record(db, lambda: list(queryset.values_list("pk"))) if s.columns]
        head, _, where = read.sql.partition(" WHERE ")
        if not head.endswith(f" FROM {table}") or " ORDER BY " in where or " LIMIT " in where:
            raise ValueError(f"{meta.label}: a compiled delete filters one table, no more: {read.sql}")
        sql = f"DELETE FROM {table} WHERE {where}"
        return _DeletePlan(sql=sql, params=_sources(stand_ins, read.params, sql), db=db)
