"""The statistics' sums, kept as the log moves on: ``RollTally`` and ``FollowUpTally``.

A statistics page adds up a few hundred tally rows (``rolls.stats.summary``) instead of every roll of
the campaign. The tallies hold exactly the sums the pages group by, at two grains (each play
session, and the whole campaign as session 0), and the services keep them in the transaction
that appends the entry changing them:

- A roll's contribution is a function of its own row and its ``FollowUpUse`` rows
  (``contribution``): nothing for a voided roll; otherwise its sums under its key (session,
  character, name, seen by the table, pool, outcome) and each follow-up's under its own.
- Every write that changes what a roll counts (a roll, a follow-up, a contest's step or
  reveal, the GM's void or reveal) reads the contribution of the rolls it touches before,
  and again after, and adds the difference (``Change``). One rule for every path, so none
  forgets a column: a reveal moves the sums from the GM's rows to the table's, a void takes
  them away, a follow-up moves the roll to its new outcome and adds its faces.
- The difference goes in with one ``INSERT ... ON CONFLICT DO UPDATE SET x = x + excluded.x``
  per table (SQLite 3.24+ and PostgreSQL), after the campaign row's lock (the log's, taken
  last): writes to one campaign's tallies are serialized, so the rows are never updated in
  two orders, and a first insert never races another. 0, not NULL, stands for "the whole
  campaign" and "no sheet" in the unique key, where a NULL would never conflict.
- ``rebuild`` computes a campaign's tallies from its rows with grouped queries: the migration
  that added them, an imported campaign, and the bench's bulk copies use it. The tests play
  random evenings through the services and check the kept tallies against it.

A character deleted later keeps its tally rows under its id (its rolls' ``character`` becomes
NULL): the pages count ids of no character with the rolls without a sheet, as the rows do.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from typing import Any

from django.db import DEFAULT_DB_ALIAS, connection
from django.db.models import BooleanField, Case, Count, Q, Sum, Value, When

from rolls.models import FollowUpTally, FollowUpUse, Roll, RollTally, Visibility
from rolls.stats.record import FACE_FIELDS, SPENT_AMOUNTS
from tabletop.serving import driver

ROLL_KEY = ("session_pk", "character_pk", "name", "seen", "pool", "outcome")
ROLL_SUMS = (
    "n",
    "n_by_hand",
    "n_fair",
    "percentiles",
    "variances",
    "measured",
    "first",
    "chances",
    *FACE_FIELDS,
)
USE_KEY = ("session_pk", "character_pk", "payer_pk", "seen", "action")
USE_SUMS = ("uses", "converted", "conditions", *SPENT_AMOUNTS)
# What a roll's contribution reads of its row, and of each of its follow-ups.
ROLL_COLUMNS = (
    "id",
    "session_id",
    "character_id",
    "character_name",
    "visibility",
    "revealed",
    "voided",
    "pool",
    "outcome",
    "by_hand",
    "percentile",
    "percentile_var",
    "chance",
    "first_success",
    *FACE_FIELDS,
)
USE_COLUMNS = ("roll_id", "payer_id", "action", "converted", "condition", *SPENT_AMOUNTS)
WHOLE_CAMPAIGN = 0  # ``session_pk`` of the campaign's own rows
NO_SHEET = 0  # ``character_pk``/``payer_pk`` of a roll without a character

# A key is ("roll", *ROLL_KEY values) or ("use", *USE_KEY values); its sums in that order.
Key = tuple[Any, ...]
Contribution = dict[Key, list[float]]


def _seen(visibility: str, revealed: bool) -> bool:
    return visibility == Visibility.PUBLIC or bool(revealed)


def _roll_sums(row: Mapping[str, Any]) -> list[float]:
    """One roll's sums, as ``rolls.stats.summary`` counts them: a roll by hand is left out of the
    fairness figures (percentiles and faces)."""
    by_hand = bool(row["by_hand"])
    fair = not by_hand and row["percentile"] is not None
    measured = row["chance"] is not None
    return [
        1,
        int(by_hand),
        int(fair),
        row["percentile"] if fair else 0.0,
        (row["percentile_var"] or 0.0) if fair else 0.0,
        int(measured),
        int(measured and bool(row["first_success"])),  # SQLite's booleans are 0 and 1
        row["chance"] or 0.0,
        *(0 if by_hand else row[name] for name in FACE_FIELDS),
    ]


def _add(into: Contribution, key: Key, sums: Sequence[float]) -> None:
    found = into.get(key)
    if found is None:
        into[key] = list(sums)
    else:
        for index, value in enumerate(sums):
            found[index] += value


def contribution(rolls: Iterable[Mapping[str, Any]], uses: Iterable[Mapping[str, Any]]) -> Contribution:
    """What ``rolls`` (rows with ``ROLL_COLUMNS``) and their follow-ups (``USE_COLUMNS``) add
    to the tallies, at both grains."""
    found: Contribution = {}
    counted: dict[int, Mapping[str, Any]] = {}
    for row in rolls:
        if row["voided"]:
            continue
        counted[row["id"]] = row
        seen = _seen(row["visibility"], row["revealed"])
        sums = _roll_sums(row)
        for session in (row["session_id"], WHOLE_CAMPAIGN):
            key = (row["character_id"] or NO_SHEET, row["character_name"], seen, row["pool"], row["outcome"])
            _add(found, ("roll", session, *key), sums)
    for use in uses:
        roll = counted.get(use["roll_id"])
        if roll is None:
            continue  # on a voided roll
        seen = _seen(roll["visibility"], roll["revealed"])
        sums = [1, int(use["converted"]), int(use["condition"] != ""), *(use[name] for name in SPENT_AMOUNTS)]
        for session in (roll["session_id"], WHOLE_CAMPAIGN):
            _add(
                found,
                (
                    "use",
                    session,
                    roll["character_id"] or NO_SHEET,
                    use["payer_id"] or NO_SHEET,
                    seen,
                    use["action"],
                ),
                sums,
            )
    return found


@lru_cache(maxsize=64)  # a count of rows per statement: a few in all
def _read_sql(vendor: str, count: int) -> str:
    """The query of ``read`` for ``count`` rolls: written once per count (and database)."""
    quote = connection.ops.quote_name
    rolls_table, uses_table = quote(Roll._meta.db_table), quote(FollowUpUse._meta.db_table)
    # The names are the columns' own (attribute names; neither model sets a ``db_column``).
    roll_columns = [f"r.{quote(name)}" for name in ROLL_COLUMNS]
    use_columns = [f"u.{quote(name)}" for name in USE_COLUMNS]
    return (
        f"SELECT {', '.join(roll_columns + use_columns)} FROM {rolls_table} r "
        f"LEFT JOIN {uses_table} u ON u.{quote('roll_id')} = r.{quote('id')} AND NOT r.{quote('voided')} "
        f"WHERE r.{quote('id')} IN ({', '.join(['%s'] * count)})"
    )


def read(roll_ids: Sequence[int]) -> Contribution:
    """The contribution of these rolls as their rows stand now: one query for the rolls and
    their follow-ups together, in plain SQL (this runs twice in every follow-up, and the
    ORM's two ``values()`` queries cost some 2 ms of it)."""
    if not roll_ids:
        return {}
    sql = _read_sql(connection.vendor, len(roll_ids))
    with connection.cursor() as cursor:
        cursor.execute(sql, list(roll_ids))
        found = cursor.fetchall()
    rolls: dict[int, dict[str, Any]] = {}
    uses: list[dict[str, Any]] = []
    split = len(ROLL_COLUMNS)
    for values in found:
        roll = dict(zip(ROLL_COLUMNS, values[:split], strict=True))
        rolls.setdefault(roll["id"], roll)
        use = dict(zip(USE_COLUMNS, values[split:], strict=True))
        if use["roll_id"] is not None:
            uses.append(use)
    return contribution(rolls.values(), uses)


class Change:
    """The rolls a write touches: their contribution read before it, and the difference added
    once it is written. Take it after the roll's lock; ``record`` after the log entry (the
    campaign's lock)."""

    def __init__(self, campaign_id: int, roll_ids: Sequence[int]) -> None:
        self.campaign_id = campaign_id
        self.roll_ids = list(roll_ids)
        self.before = read(self.roll_ids)

    def record(self) -> None:
        apply(self.campaign_id, self.before, read(self.roll_ids))


def new_roll(roll: Roll) -> None:
    """Count a roll just written (no follow-up yet), from the row in hand: no read back."""
    row = {name: getattr(roll, name) for name in ROLL_COLUMNS}
    apply(roll.campaign_id, {}, contribution([row], []))


def apply(campaign_id: int, before: Contribution, after: Contribution) -> None:
    """Add ``after`` minus ``before`` to the campaign's tallies."""
    deltas: dict[str, list[tuple[Key, list[float]]]] = defaultdict(list)
    for key in sorted(set(before) | set(after), key=repr):
        old, new = before.get(key), after.get(key)
        if old is None:
            delta = list(new or [])
        elif new is None:
            delta = [-value for value in old]
        else:
            delta = [b - a for a, b in zip(old, new, strict=True)]
        if any(delta):
            deltas[key[0]].append((key[1:], delta))
    if deltas["roll"]:
        _upsert(RollTally, ROLL_KEY, ROLL_SUMS, campaign_id, deltas["roll"])
    if deltas["use"]:
        _upsert(FollowUpTally, USE_KEY, USE_SUMS, campaign_id, deltas["use"])


@lru_cache(maxsize=64)  # a count of rows per statement: a few in all
def _upsert_sql(vendor: str, model: Any, key: tuple[str, ...], sums: tuple[str, ...], count: int) -> str:
    """The statement of ``_upsert`` for ``count`` rows: written once per count (and database),
    not on every roll."""
    quote = connection.ops.quote_name
    table = quote(model._meta.db_table)
    columns = ["campaign_id", *key, *sums]
    unique = ", ".join(quote(name) for name in ["campaign_id", *key])
    added = ", ".join(f"{quote(name)} = {table}.{quote(name)} + excluded.{quote(name)}" for name in sums)
    one = "(" + ", ".join(["%s"] * len(columns)) + ")"
    return (
        f"INSERT INTO {table} ({', '.join(quote(name) for name in columns)}) "
        f"VALUES {', '.join([one] * count)} "
        f"ON CONFLICT ({unique}) DO UPDATE SET {added}"
    )


def _upsert(
    model: Any, key: Sequence[str], sums: Sequence[str], campaign_id: int, rows: list[tuple[Key, list[float]]]
) -> None:
    """One INSERT of every row, each adding to the row of its key when there is one. A key
    appears once (``apply`` merged them), as PostgreSQL requires of one statement."""
    sql = _upsert_sql(connection.vendor, model, tuple(key), tuple(sums), len(rows))
    params: list[Any] = []
    for values, delta in rows:
        params += [campaign_id, *values, *delta]
    driver.run(DEFAULT_DB_ALIAS, sql, params, driver.nothing)


def _seen_expression(prefix: str = "") -> Case:
    return Case(
        When(
            Q(**{f"{prefix}visibility": Visibility.PUBLIC}) | Q(**{f"{prefix}revealed": True}),
            then=Value(True),
        ),
        default=Value(False),
        output_field=BooleanField(),
    )


def roll_sums_sql() -> dict[str, Any]:
    """The grouped query's aggregates that give ``ROLL_SUMS`` (``rebuild`` and the tests)."""
    fair = Q(by_hand=False, percentile__isnull=False)
    return {
        "n": Count("id"),
        "n_by_hand": Count("id", filter=Q(by_hand=True)),
        "n_fair": Count("id", filter=fair),
        "percentiles": Sum("percentile", filter=fair),
        "variances": Sum("percentile_var", filter=fair),
        "measured": Count("chance"),
        "first": Count("id", filter=Q(chance__isnull=False, first_success=True)),
        "chances": Sum("chance"),
        **{name: Sum(name, filter=Q(by_hand=False)) for name in FACE_FIELDS},
    }


def rebuild(
    campaign_id: int,
    *,
    roll_model: Any = Roll,
    use_model: Any = FollowUpUse,
    roll_tally: Any = RollTally,
    use_tally: Any = FollowUpTally,
) -> None:
    """A campaign's tallies computed again from its rows: two grouped queries (by session),
    the campaign's grain added up from their groups. Takes the models as arguments so a
    migration passes its historical ones."""
    rolls = (
        roll_model.objects.filter(campaign_id=campaign_id, voided=False)
        .annotate(seen=_seen_expression())
        .values("session_id", "character_id", "character_name", "seen", "pool", "outcome")
        .annotate(**roll_sums_sql())
        .order_by()
    )
    found: Contribution = {}
    for row in rolls:
        key = (
            row["character_id"] or NO_SHEET,
            row["character_name"],
            row["seen"],
            row["pool"],
            row["outcome"],
        )
        sums = [row[name] or 0 for name in ROLL_SUMS]
        for session in (row["session_id"], WHOLE_CAMPAIGN):
            _add(found, ("roll", session, *key), sums)
    uses = (
        use_model.objects.filter(roll__campaign_id=campaign_id, roll__voided=False)
        .annotate(seen=_seen_expression("roll__"))
        .values("roll__session_id", "roll__character_id", "payer_id", "seen", "action")
        .annotate(
            uses=Count("id"),
            converted=Count("id", filter=Q(converted=True)),
            conditions=Count("id", filter=~Q(condition="")),
            **{f"{name}_sum": Sum(name) for name in SPENT_AMOUNTS},
        )
        .order_by()
    )
    for row in uses:
        use_key: Key = (
            row["roll__character_id"] or NO_SHEET,
            row["payer_id"] or NO_SHEET,
            row["seen"],
            row["action"],
        )
        sums = [
            row["uses"],
            row["converted"],
            row["conditions"],
            *(row[f"{name}_sum"] or 0 for name in SPENT_AMOUNTS),
        ]
        for session in (row["roll__session_id"], WHOLE_CAMPAIGN):
            _add(found, ("use", session, *use_key), sums)
    roll_tally.objects.filter(campaign_id=campaign_id).delete()
    use_tally.objects.filter(campaign_id=campaign_id).delete()
    roll_tally.objects.bulk_create(
        (
            roll_tally(
                campaign_id=campaign_id,
                **dict(zip(ROLL_KEY, key[1:], strict=True)),
                **dict(zip(ROLL_SUMS, sums, strict=True)),
            )
            for key, sums in found.items()
            if key[0] == "roll"
        ),
        batch_size=500,
    )
    use_tally.objects.bulk_create(
        (
            use_tally(
                campaign_id=campaign_id,
                **dict(zip(USE_KEY, key[1:], strict=True)),
                **dict(zip(USE_SUMS, sums, strict=True)),
            )
            for key, sums in found.items()
            if key[0] == "use"
        ),
        batch_size=500,
    )
