"""Statements sent to the driver's own cursor (tabletop/serving/driver.py) behave as through
Django's: the same rows, the driver's errors raised as django.db's, a broken transaction
refused, and every statement seen by whoever watches them. On both databases."""

from __future__ import annotations

import pytest
from django.db import DEFAULT_DB_ALIAS, IntegrityError, connection, transaction
from django.db.transaction import TransactionManagementError
from django.test.utils import CaptureQueriesContext
from pytest_django.fixtures import Settings

from rolls.history import verify
from rolls.models import LogEntry
from tabletop.models import Campaign
from tabletop.serving import driver
from tests.factories import Table, a_roll

pytestmark = pytest.mark.django_db

ENTRY_AT = "SELECT seq, action FROM rolls_logentry WHERE campaign_id = %s AND seq = %s"


@pytest.fixture(autouse=True)
def compiled(settings: Settings) -> None:
    """The driver's way is part of the compiled piece: on, whatever FAST_PATH the suite runs with."""
    settings.FAST_PATH = {**settings.FAST_PATH, "compiled_queries": True}


def _entry(table: Table) -> LogEntry:
    a_roll("sixes", table.character, table.player)
    return LogEntry.objects.filter(campaign=table.campaign).latest("seq")


def test_it_reads_the_rows_djangos_cursor_reads(table: Table) -> None:
    entry = _entry(table)
    # A literal percent sign is written %% among the placeholders, as for Django's cursor.
    sql = "SELECT seq, action, '100%%' FROM rolls_logentry WHERE campaign_id = %s AND seq = %s"
    direct = driver.run(DEFAULT_DB_ALIAS, sql, [table.campaign.pk, entry.seq], driver.rows)
    with CaptureQueriesContext(connection):  # watched: through Django's cursor
        watched = driver.run(DEFAULT_DB_ALIAS, sql, [table.campaign.pk, entry.seq], driver.rows)
    assert [tuple(row) for row in direct] == [tuple(row) for row in watched] == [(entry.seq, "roll", "100%")]


def test_it_counts_the_rows_a_write_changed(table: Table) -> None:
    sql = "UPDATE tabletop_campaign SET name = %s WHERE id = %s"
    assert driver.run(DEFAULT_DB_ALIAS, sql, ["Renamed", table.campaign.pk], driver.rowcount) == 1
    assert driver.run(DEFAULT_DB_ALIAS, sql, ["Nobody", 2**40], driver.rowcount) == 0
    assert Campaign.objects.get(pk=table.campaign.pk).name == "Renamed"


def test_it_raises_the_drivers_errors_as_djangos(table: Table) -> None:
    entry = _entry(table)
    sql = "UPDATE rolls_logentry SET seq = %s WHERE campaign_id = %s AND seq = %s"
    a_roll("sixes", table.character, table.player)  # the next number is taken
    with pytest.raises(IntegrityError), transaction.atomic():  # the (campaign, seq) constraint
        driver.run(DEFAULT_DB_ALIAS, sql, [entry.seq + 1, table.campaign.pk, entry.seq], driver.nothing)
    # Nothing changed, and the connection goes on.
    found = driver.run(DEFAULT_DB_ALIAS, ENTRY_AT, [table.campaign.pk, entry.seq], driver.one)
    assert tuple(found) == (entry.seq, "roll")


def test_it_refuses_a_statement_in_a_broken_transaction(table: Table) -> None:
    entry = _entry(table)
    with transaction.atomic():
        with pytest.raises(IntegrityError), transaction.atomic():
            driver.run(
                DEFAULT_DB_ALIAS,
                "INSERT INTO rolls_logentry (campaign_id, seq) VALUES (%s, %s)",
                [table.campaign.pk, entry.seq],
                driver.nothing,
            )
        transaction.set_rollback(True)  # what an outer block must do once an inner one failed
        with pytest.raises(TransactionManagementError):
            driver.run(DEFAULT_DB_ALIAS, ENTRY_AT, [table.campaign.pk, entry.seq], driver.one)


def test_whoever_watches_the_statements_sees_each_one(table: Table) -> None:
    entry = _entry(table)
    with CaptureQueriesContext(connection) as watched:
        driver.run(DEFAULT_DB_ALIAS, ENTRY_AT, [table.campaign.pk, entry.seq], driver.one)
    assert len(watched.captured_queries) == 1
    assert "rolls_logentry" in watched.captured_queries[0]["sql"]

    seen: list[str] = []

    def note(execute, sql, params, many, context):  # type: ignore[no-untyped-def]
        seen.append(sql)
        return execute(sql, params, many, context)

    with connection.execute_wrapper(note):
        driver.run(DEFAULT_DB_ALIAS, ENTRY_AT, [table.campaign.pk, entry.seq], driver.one)
    # By name where the backend takes names (both of ours): the same statement.
    assert seen == [
        driver.named(ENTRY_AT)[0] if connection.features.supports_paramstyle_pyformat else ENTRY_AT
    ]


def test_placeholders_go_by_name_and_an_escaped_percent_stays_one() -> None:
    """The parameters are sent by name (no regular expression over the statement on every
    call); ``%%`` is a percent sign of the SQL's own, as Django's cursor reads it."""
    assert driver.named("SELECT '50%%s' WHERE a = %s AND b = %s") == (
        "SELECT '50%%s' WHERE a = %(p0)s AND b = %(p1)s",
        ("p0", "p1"),
    )
    row = driver.run(DEFAULT_DB_ALIAS, "SELECT '50%%' || %s, %s + 1", ["x", 41], driver.one)
    assert tuple(row) == ("50%x", 42)
    with pytest.raises(TypeError, match="2 placeholders, 1 parameters"):
        driver.run(DEFAULT_DB_ALIAS, "SELECT %s, %s", [1], driver.one)


def test_a_roll_goes_through_the_drivers_way(table: Table) -> None:
    """The roll path's statements (compiled reads and inserts, the log's UPDATEs, the tally's
    upsert) write what they wrote through Django's cursor: the chain still verifies."""
    for _ in range(3):
        a_roll("sixes", table.character, table.player)
    campaign = Campaign.objects.get(pk=table.campaign.pk)
    assert campaign.last_seq == LogEntry.objects.filter(campaign=campaign).count() >= 3
    assert verify.verify_log(campaign) is None
