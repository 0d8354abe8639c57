"""Compiled reads return what the ORM's get() returns and run the SQL the ORM would run;
compiled inserts write the row create() writes; both refuse what they cannot do correctly.
With FAST_PATH's compiled_queries off, the same calls run the plain ORM."""

from __future__ import annotations

import random
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.exceptions import FieldDoesNotExist
from django.db import DatabaseError, IntegrityError, connection, transaction
from django.db.models import Model
from django.db.transaction import TransactionManagementError
from django.test.utils import CaptureQueriesContext
from pytest_django.fixtures import Settings

from rolls import models as roll_models
from rolls.live import feed
from rolls.log import append, resent
from rolls.models import LogEntry, Roll
from rolls.play import services
from rolls.sight import panels
from rolls.tables.sets import carried
from tabletop import access, models, presence
from tabletop.models import Character, Membership, Presence
from tabletop.serving import auth_backend
from tabletop.serving.compiled_query import (
    CompiledDelete,
    CompiledInsert,
    CompiledList,
    CompiledQuery,
    CompiledSave,
)
from tests.factories import Table, a_roll, an_npc_roll

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def compiled(settings: Settings) -> None:
    """These tests test the compiled piece itself: on, whatever FAST_PATH the suite runs with."""
    settings.FAST_PATH = {**settings.FAST_PATH, "compiled_queries": True}


@pytest.fixture
def plain_orm(settings: Settings) -> None:
    settings.FAST_PATH = {**settings.FAST_PATH, "compiled_queries": False}


def _same(compiled: Model, orm: Model, related: tuple[str, ...] = ()) -> None:
    """Same class, same field values (converted: JSON as dicts, aware datetimes), the same
    related objects already loaded, and a state that saves as an update."""
    assert type(compiled) is type(orm)
    for field in orm._meta.concrete_fields:
        assert getattr(compiled, field.attname) == getattr(orm, field.attname), field.attname
    for name in related:
        assert orm._meta.get_field(name).is_cached(compiled), f"{name} not loaded"
        _same(getattr(compiled, name), getattr(orm, name))
    assert compiled._state.adding is False
    assert compiled._state.db == orm._state.db


def _from(sql: str) -> str:
    """A SELECT's own FROM and WHERE clauses and its LIMIT: the rows it reads, not the columns
    (nor how its ORDER BY names one of them)."""
    depth, outer = 0, []
    for at, char in enumerate(sql):  # the clauses outside every subquery's parentheses
        depth += (char == "(") - (char == ")")
        if depth == 0 and sql.startswith((" FROM ", " ORDER BY ", " LIMIT "), at):
            outer.append(at)
    start, *rest = outer
    order = next((at for at in rest if sql.startswith(" ORDER BY ", at)), len(sql))
    limit = next((sql[at:] for at in rest if sql.startswith(" LIMIT ", at)), "")
    return sql[start:order] + limit


def _orm_sql(compiled: CompiledQuery[Any], **params: Any) -> str:
    queryset = compiled._build(**params).order_by()[:2]
    return queryset.query.sql_with_params()[0]


def test_it_reads_a_membership_with_its_campaign(table: Table) -> None:
    compiled = access._MEMBERSHIP.get(campaign_id=table.campaign.pk, user_id=table.player.pk)
    orm = Membership.objects.select_related("campaign").get(campaign=table.campaign, user=table.player)
    _same(compiled, orm, related=("campaign",))


def test_it_reads_a_character_with_its_sheet(table: Table) -> None:
    compiled = access._CHARACTER.get(campaign_id=table.campaign.pk, character_id=table.character.pk)
    _same(compiled, Character.objects.get(pk=table.character.pk))
    assert isinstance(compiled.sheet, dict) and compiled.sheet["attributes"]


def test_it_reads_a_campaigns_roll_with_its_character_and_target(table: Table) -> None:
    made = an_npc_roll(table.campaign, table.gm, table.character)
    compiled = Roll.of_campaign(table.campaign.pk, made.pk)
    assert compiled is not None
    _same(compiled, Roll.objects.get(pk=made.pk), related=("target",))
    assert compiled.character is None and compiled.target == table.character
    # Another campaign's id finds nothing: a follow-up's URL names the campaign and the roll.
    assert Roll.of_campaign(table.campaign.pk + 1, made.pk) is None


def test_it_reads_the_open_session(table: Table) -> None:
    session = table.campaign.open_session()
    assert session is not None
    _same(session, table.campaign.sessions.get(ended__isnull=True))
    assert session.started.tzinfo is not None
    assert session.campaign is table.campaign  # no second read for it


def test_it_finds_no_open_session_when_none_is(table: Table) -> None:
    table.campaign.sessions.update(ended=table.campaign.created)
    assert table.campaign.open_session() is None


def test_it_reads_and_locks_a_character_in_a_transaction(table: Table) -> None:
    with transaction.atomic():
        compiled = services._LOCKED_CHARACTER.get(pk=table.character.pk)
    orm = Character.objects.select_related("campaign").get(pk=table.character.pk)
    _same(compiled, orm, related=("campaign",))
    if connection.features.has_select_for_update:
        assert "FOR NO KEY UPDATE" in services._LOCKED_CHARACTER.sql()


@pytest.mark.django_db(transaction=True)
def test_it_refuses_a_lock_outside_a_transaction_as_the_orm_does(table: Table) -> None:
    if not connection.features.has_select_for_update:  # SQLite: no lock written, none refused
        assert services._LOCKED_CHARACTER.get(pk=table.character.pk) == table.character
        return
    with pytest.raises(TransactionManagementError):
        services._LOCKED_CHARACTER.get(pk=table.character.pk)


def test_it_reads_the_signed_in_user(table: Table) -> None:
    user = auth_backend.ModelBackend().get_user(str(table.player.pk))
    assert user is not None
    _same(user, get_user_model().objects.get(pk=table.player.pk))


def test_it_reads_no_inactive_or_unknown_user(table: Table) -> None:
    backend = auth_backend.ModelBackend()
    get_user_model().objects.filter(pk=table.player.pk).update(is_active=False)
    assert backend.get_user(str(table.player.pk)) is None
    assert backend.get_user("not a number") is None
    assert backend.get_user(str(2**64)) is None


@pytest.mark.parametrize(
    ("compiled", "params"),
    [
        (access._MEMBERSHIP, {"campaign_id": 3, "user_id": 4}),
        (access._CHARACTER, {"campaign_id": 3, "character_id": 4}),
        (models._OPEN_SESSION, {"campaign_id": 3}),
        (services._LOCKED_CHARACTER, {"pk": 3}),
        (auth_backend._USER, {"pk": 3}),
        (roll_models._ROLL_OF_CAMPAIGN, {"campaign_id": 3, "pk": 4}),
        (services._RUNNING_SESSION_SEED, {"pk": 3}),
        (resent._BY_KEY, {"campaign_id": 3, "actor_id": 4, "key": "0123456789abcdef0123456789abcdef"}),
    ],
)
def test_it_runs_the_sql_the_orm_would(compiled: CompiledQuery[Any], params: dict[str, Any]) -> None:
    # The rows the ORM's get() reads (its FROM, WHERE and LIMIT), every column of each model.
    assert _from(compiled.sql()) == _from(_orm_sql(compiled, **params))
    with transaction.atomic(), CaptureQueriesContext(connection) as queries:
        assert compiled.get_or_none(**params) is None
    assert len(queries) == 1


def test_it_says_when_nothing_matches(table: Table) -> None:
    with pytest.raises(Character.DoesNotExist):
        access._CHARACTER.get(campaign_id=table.campaign.pk, character_id=table.character.pk + 1000)
    assert access._CHARACTER.get_or_none(campaign_id=table.campaign.pk, character_id=2**63) is None


def test_it_says_when_more_than_one_matches(table: Table) -> None:
    second = Character.objects.create(campaign=table.campaign, owner=table.player, name="Ada", sheet={})
    by_campaign = CompiledQuery(
        lambda campaign_id: Character.objects.filter(campaign_id=campaign_id), "campaign_id"
    )
    with pytest.raises(Character.MultipleObjectsReturned):
        by_campaign.get(campaign_id=second.campaign_id)


def test_it_refuses_wrong_parameters(table: Table) -> None:
    with pytest.raises(TypeError):
        access._CHARACTER.get_or_none(campaign_id=table.campaign.pk)


def test_it_reads_by_a_text_parameter_and_refuses_the_wrong_type(table: Table) -> None:
    for name in ("phone.1", "phone.2"):
        Presence.objects.create(**_presence_row(table, name))
    by_channel = CompiledQuery(
        lambda campaign_id, channel_name: Presence.objects.filter(
            campaign_id=campaign_id, channel_name=channel_name
        ),
        "campaign_id",
        channel_name=str,
    )
    by_channel.sql()  # made once, with stand-ins: a statement of its own
    with CaptureQueriesContext(connection) as queries:
        found = by_channel.get(campaign_id=table.campaign.pk, channel_name="phone.2")
    assert len(queries) == 1
    _same(found, Presence.objects.get(channel_name="phone.2"))
    assert by_channel.get_or_none(campaign_id=table.campaign.pk, channel_name="phone.3") is None
    assert by_channel.get_or_none(campaign_id=2**63, channel_name="phone.2") is None  # out of range: no row
    with pytest.raises(TypeError, match="channel_name is str, not int"):
        by_channel.get_or_none(campaign_id=table.campaign.pk, channel_name=2)
    with pytest.raises(TypeError, match="campaign_id is int, not str"):
        by_channel.get_or_none(campaign_id="1", channel_name="phone.2")
    with pytest.raises(TypeError, match="named twice"):
        CompiledQuery(lambda pk: Presence.objects.filter(pk=pk), "pk", pk=int)


def test_it_refuses_a_query_whose_sql_would_not_follow_its_parameters() -> None:
    twice = CompiledQuery(lambda pk: Character.objects.filter(pk=pk, campaign_id=pk), "pk")
    with pytest.raises(ValueError, match="appears 2 times"):
        twice.get_or_none(pk=1)
    unused = CompiledQuery(lambda pk: Character.objects.all(), "pk")
    with pytest.raises(ValueError, match="appears 0 times"):
        unused.get_or_none(pk=1)


@pytest.mark.parametrize("against", [False, True])
def test_a_list_reads_the_panels_latest_rolls_as_the_orm_does(table: Table, against: bool) -> None:
    own = a_roll("sixes", table.character, table.player)
    attacks = [an_npc_roll(table.campaign, table.gm, table.character) for _ in range(3)]
    compiled = panels._RECENT_AGAINST if against else panels._RECENT
    compiled.sql()
    with CaptureQueriesContext(connection) as queries:
        rolls = compiled.all(campaign_id=table.campaign.pk)
    assert len(queries) == 1
    orm = list(panels._recent(table.campaign.pk, against=against))
    expected_pks = [roll.pk for roll in reversed(attacks if against else [own, *attacks])]
    assert [roll.pk for roll in rolls] == [roll.pk for roll in orm] == expected_pks
    for found, expected in zip(rolls, orm, strict=True):
        related = ("campaign", "session", "target" if expected.target_id else "character")
        _same(found, expected, related=related)
        for name in ("newest_seq", "newest_state", "newest_of_character"):
            assert getattr(found, name) == getattr(expected, name), name
        assert isinstance(found.newest_state, dict)  # JSON, converted
    assert _from(compiled.sql()) == _from(panels._recent(3, against=against).query.sql_with_params()[0])
    # Nothing of another campaign, and nothing for an id no row holds.
    assert compiled.all(campaign_id=table.campaign.pk + 1) == []
    assert compiled.all(campaign_id=2**63) == []
    with pytest.raises(TypeError):
        compiled.all()


@pytest.mark.parametrize(
    ("compiled", "params"),
    [
        (panels._RECENT, {"campaign_id": 3}),
        (panels._RECENT_AGAINST, {"campaign_id": 3}),
        (carried._EFFECTS, {"campaign_id": 3, "character_id": 4, "rolled_by": 5, "made_against": 6}),
        (feed._SINCE, {"campaign_id": 3, "since": 4}),
        (roll_models._NEWEST_ENTRY, {"roll_id": 3}),
        (roll_models._LATEST_OF_CHARACTER, {"character_id": 3}),
        (presence._MEMBERS_SEEN, {"campaign_id": 3}),
    ],
)
def test_a_list_runs_the_sql_the_orm_would(compiled: CompiledList[Any], params: dict[str, int]) -> None:
    assert _from(compiled.sql()) == _from(compiled._build(**params).query.sql_with_params()[0])
    with CaptureQueriesContext(connection) as queries:
        assert compiled.all(**params) == []
    assert len(queries) == 1


def test_a_list_reads_the_feed_since_a_seq_with_every_related_object(table: Table) -> None:
    own = a_roll("sixes", table.character, table.player)
    attack = an_npc_roll(table.campaign, table.gm, table.character)
    since = own.entries.get().seq - 1
    feed._SINCE.sql()
    with CaptureQueriesContext(connection) as queries:
        entries = feed._SINCE.all(campaign_id=table.campaign.pk, since=since)
        # Each roll with its character and their campaign, its target: nothing more is read.
        assert entries[0].roll.character.campaign == table.campaign
        assert entries[1].roll.target == table.character and entries[1].roll.character is None
    assert len(queries) == 1
    orm = list(feed._SINCE._build(campaign_id=table.campaign.pk, since=since))
    assert [entry.seq for entry in entries] == [entry.seq for entry in orm] == [since + 1, since + 2]
    for found, expected in zip(entries, orm, strict=True):
        _same(found, expected, related=("roll",))
        assert found.state == expected.state and isinstance(found.state, dict)
    assert attack.entries.get().seq == since + 2


def test_a_rolls_newest_state_and_whether_it_is_its_characters_latest_are_read_compiled(
    table: Table,
) -> None:
    first = a_roll("sixes", table.character, table.player)
    services.follow_up_apply(roll=first, actor=table.player, action="luck", params={}, rng=random.Random(1))
    second = a_roll("sixes", table.character, table.player)
    first = Roll.objects.get(pk=first.pk)  # nothing known on the instance: each is read
    roll_models._NEWEST_ENTRY.sql(), roll_models._LATEST_OF_CHARACTER.sql()
    newest = first.entries.order_by("-seq").first()
    assert newest is not None and newest.kind == LogEntry.Kind.FOLLOW_UP
    with CaptureQueriesContext(connection) as queries:
        assert first.current_state() == newest.state
        assert first.is_latest() is False
        assert Roll.objects.get(pk=second.pk).is_latest() is True
    assert len(queries) == 4  # one read each, and the second roll's get


@pytest.mark.usefixtures("plain_orm")
def test_switched_off_a_list_is_the_orms(table: Table) -> None:
    made = an_npc_roll(table.campaign, table.gm, table.character)
    recent = CompiledList(
        lambda campaign_id: Roll.objects.filter(campaign_id=campaign_id).order_by("-id")[:5], "campaign_id"
    )
    assert [roll.pk for roll in recent.all(campaign_id=table.campaign.pk)] == [made.pk]
    assert recent._compiled is None  # nothing compiled


def _row(model: type[Model], pk: int) -> dict[str, Any]:
    """A row as the ORM reads it back, without what differs between two inserts."""
    row = model.objects.filter(pk=pk).values().get()
    del row["id"], row["created"]
    return row


def test_it_inserts_a_roll_as_create_does(table: Table) -> None:
    session = table.campaign.open_session()
    values = dict(
        campaign=table.campaign,
        session=session,
        character=table.character,
        character_name="Olle",
        roller=table.player,
        system="sixes",
        intent="climb",
        trait="Body + Force",
    )
    compiled = services._NEW_ROLL.create(**values)
    orm = Roll.objects.create(**values)
    assert compiled.pk is not None and compiled.pk != orm.pk
    assert compiled._state.adding is False and compiled._state.db == orm._state.db
    assert compiled.created is not None and compiled.created.tzinfo is not None
    assert _row(Roll, compiled.pk) == _row(Roll, orm.pk)
    assert Roll.objects.get(pk=compiled.pk).created == compiled.created


def test_it_inserts_a_log_entry_with_its_state_as_json(table: Table) -> None:
    state = {"dice": [1, 6, 6], "note": "ä"}
    entry = append._NEW_ENTRY.create(
        campaign_id=table.campaign.pk, seq=999, kind="event", action="call", actor=table.gm, state=state
    )
    assert LogEntry.objects.get(pk=entry.pk).state == state
    with CaptureQueriesContext(connection) as queries:
        append._NEW_ENTRY.create(campaign_id=table.campaign.pk, seq=1000, kind="event", action="call")
    assert len(queries) == 1 and "RETURNING" in queries[0]["sql"]


def test_a_follow_up_writes_its_use_and_reads_its_seed_compiled(table: Table) -> None:
    made = a_roll("sixes", table.character, table.player)
    entry = services.follow_up_apply(
        roll=made, actor=table.player, action="luck", params={}, rng=random.Random(1)
    )
    use = roll_models.FollowUpUse.objects.get(roll=made)
    assert (use.seq, use.action, use.payer_id, use.payer_name, use.luck) == (
        entry.seq,
        "luck",
        table.character.pk,
        table.character.name,
        1,
    )
    session = table.campaign.open_session()
    assert session is not None
    found = services._RUNNING_SESSION_SEED.get_or_none(pk=session.pk)
    assert found is not None and found.seed == session.seed
    models.PlaySession.objects.filter(pk=session.pk).update(ended=session.started)
    assert services._RUNNING_SESSION_SEED.get_or_none(pk=session.pk) is None  # it ended


def test_an_insert_refuses_what_save_refuses(table: Table) -> None:
    with pytest.raises(ValueError, match="unsaved related object"):
        append._NEW_ENTRY.create(
            campaign_id=table.campaign.pk, seq=5, kind="roll", action="roll", roll=Roll(system="sixes")
        )
    with pytest.raises(IntegrityError), transaction.atomic():  # the (campaign, seq) constraint
        for _ in range(2):
            append._NEW_ENTRY.create(campaign_id=table.campaign.pk, seq=7, kind="event", action="call")


def _presence_row(table: Table, channel_name: str) -> dict[str, Any]:
    return dict(
        channel_name=channel_name,
        campaign_id=table.campaign.pk,
        user_id=table.player.pk,
        server="here",
        seen=table.campaign.created,
    )


def _insert_shape(sql: str) -> tuple[str, str]:
    """An INSERT without its values: the statement and columns, and what follows the values."""
    head, _, tail = sql.partition(" VALUES ")
    return head, tail.rpartition(")")[2]


def test_it_saves_a_sheets_columns_with_the_update_save_sends(table: Table) -> None:
    save = CompiledSave(Character)
    character = Character.objects.get(pk=table.character.pk)
    with CaptureQueriesContext(connection) as orm:
        character.save(update_fields=["luck", "pride_used_in"])  # pride_used_in: NULL, a literal
    character.luck, character.pride_used_in = 2, 7
    with CaptureQueriesContext(connection) as compiled:
        save.save(character, ["luck", "pride_used_in"])
    assert len(compiled) == 1
    assert "NULL" in orm[0]["sql"] and "NULL" not in compiled[0]["sql"]
    assert _row(Character, character.pk)["luck"] == 2
    assert _row(Character, character.pk)["pride_used_in"] == 7
    # Compiled, a None is a parameter like any value.
    character.pride_used_in = None
    save.save(character, ["luck", "pride_used_in"])
    assert _row(Character, character.pk)["pride_used_in"] is None


def test_a_compiled_save_is_the_statement_save_sends(table: Table) -> None:
    save = CompiledSave(Character)
    character = Character.objects.get(pk=table.character.pk)
    character.luck = 3
    with CaptureQueriesContext(connection) as orm:
        character.save(update_fields=["luck", "endurance"])
    with CaptureQueriesContext(connection) as compiled:
        save.save(character, ["luck", "endurance"])
    # The same UPDATE of the same row, written out from the model's columns.
    assert len(compiled) == len(orm) == 1
    assert compiled[0]["sql"] == orm[0]["sql"].replace('"tabletop_character"."id"', '"id"')
    assert save.sql(["luck", "endurance"]).startswith('UPDATE "tabletop_character" SET "luck" = %s')


def test_a_save_sends_a_none_as_a_parameter_from_the_first_save(table: Table) -> None:
    save = CompiledSave(Character)
    character = Character.objects.get(pk=table.character.pk)
    character.pride_used_in = 4
    save.save(character, ["pride_used_in"])
    assert _row(Character, character.pk)["pride_used_in"] == 4
    character.pride_used_in = None
    save.save(character, ["pride_used_in"])
    assert _row(Character, character.pk)["pride_used_in"] is None
    assert list(save._plans) == [("pride_used_in",)]  # one statement for both


def test_a_save_refuses_what_save_refuses(table: Table) -> None:
    save = CompiledSave(Character)
    gone = Character.objects.get(pk=table.character.pk)
    Character.objects.filter(pk=gone.pk).update(name="Other")
    gone.pk = 2_000_000_000
    with pytest.raises(DatabaseError), transaction.atomic():
        save.save(gone, ["luck"])
    for wrong in (["id"], ["luck", "luck"], [], ["campaign_id", "no_such_column"]):
        with pytest.raises((ValueError, FieldDoesNotExist)):
            save.save(table.character, wrong)


def test_a_follow_up_saves_its_sheet_and_its_roll_compiled(table: Table) -> None:
    made = a_roll("sixes", table.character, table.player)
    before = Character.objects.get(pk=table.character.pk).luck
    services.follow_up_apply(roll=made, actor=table.player, action="luck", params={}, rng=random.Random(1))
    assert Character.objects.get(pk=table.character.pk).luck == before - 1
    assert services._SAVE_CHARACTER._plans and services._SAVE_ROLL._plans
    row, rolled = _row(Roll, made.pk), Roll.objects.get(pk=made.pk).current_state() or {}
    # The faces of every step, the first roll's and Luck's reroll, counted on the roll's row.
    assert sum(row[f"face{face}"] for face in range(1, 7)) == sum(
        len(step["dice"]) for step in rolled["steps"]
    )


@pytest.mark.usefixtures("plain_orm")
def test_switched_off_a_save_is_the_orms(table: Table) -> None:
    save = CompiledSave(Character)
    character = Character.objects.get(pk=table.character.pk)
    character.luck = 1
    save.save(character, ["luck"])
    assert _row(Character, character.pk)["luck"] == 1
    assert not save._plans


def test_it_inserts_a_presence_row_as_bulk_create_does_and_ignores_a_conflict(table: Table) -> None:
    with CaptureQueriesContext(connection) as queries:
        presence._ARRIVE.create(**_presence_row(table, "compiled.1"))
    orm = Presence(**_presence_row(table, "orm.1"))
    with CaptureQueriesContext(connection) as orm_queries:
        Presence.objects.bulk_create([orm], ignore_conflicts=True)
    # The statement bulk_create sends (the same columns, the same "or ignore"), alone: no
    # transaction around one INSERT.
    inserts = [query["sql"] for query in orm_queries if query["sql"].startswith("INSERT")]
    assert len(queries) == 1 and len(inserts) == 1
    assert _insert_shape(queries[0]["sql"]) == _insert_shape(inserts[0])
    assert _insert_shape(presence._ARRIVE.sql()) == _insert_shape(inserts[0])
    compiled, plain = (
        Presence.objects.filter(channel_name=name).values().get() for name in ("compiled.1", "orm.1")
    )
    for row in (compiled, plain):
        del row["id"], row["channel_name"], row["connected"]
    assert compiled == plain
    again = _presence_row(table, "compiled.1") | {"server": "elsewhere"}
    presence._ARRIVE.create(**again)  # a row with this channel name is there: nothing written
    assert Presence.objects.get(channel_name="compiled.1").server == "here"


def test_it_deletes_a_presence_row_with_the_statement_delete_sends(table: Table) -> None:
    for name in ("live.1", "live.2"):
        Presence.objects.create(**_presence_row(table, name))
    with CaptureQueriesContext(connection) as orm_queries:
        Presence.objects.filter(channel_name="live.2").delete()
    # delete() sends this one statement, nothing else: no cascade, no signal to keep.
    assert [query["sql"] for query in orm_queries] == [presence._LEAVE.sql().replace("%s", "'live.2'")]
    presence._LEAVE.sql()
    with CaptureQueriesContext(connection) as queries:
        assert presence._LEAVE.delete(channel_name="live.1") == 1
    assert len(queries) == 1
    assert presence._LEAVE.delete(channel_name="live.1") == 0
    assert not Presence.objects.exists()


def test_a_delete_refuses_wrong_parameters() -> None:
    with pytest.raises(TypeError):
        presence._LEAVE.delete(channel=1)
    with pytest.raises(TypeError, match="channel_name is str, not int"):
        presence._LEAVE.delete(channel_name=1)
    with pytest.raises(TypeError, match="int or str"):
        CompiledDelete(lambda pk: Presence.objects.filter(pk=pk), pk=float)
    twice = CompiledDelete(lambda pk: Presence.objects.filter(pk=pk, campaign_id=pk), pk=int)
    with pytest.raises(ValueError, match="appears 2 times"):
        twice.delete(pk=1)


@pytest.mark.usefixtures("plain_orm")
def test_switched_off_a_delete_and_an_insert_or_ignore_are_the_orms(table: Table) -> None:
    by_id = CompiledDelete(lambda pk: Presence.objects.filter(pk=pk), pk=int)
    arrive = CompiledInsert(Presence, ignore_conflicts=True)
    arrive.create(**_presence_row(table, "live.1"))
    arrive.create(**_presence_row(table, "live.1"))
    row = Presence.objects.get()
    assert by_id.delete(pk=2**63) == 0
    with CaptureQueriesContext(connection) as queries:
        assert by_id.delete(pk=row.pk) == 1
    assert len(queries) == 1
    assert by_id._compiled is None and arrive._compiled is None  # nothing compiled


@pytest.mark.usefixtures("plain_orm")
def test_switched_off_a_read_is_the_orms_get(table: Table) -> None:
    membership = CompiledQuery(
        lambda campaign_id, user_id: Membership.objects.select_related("campaign").filter(
            campaign_id=campaign_id, user_id=user_id
        ),
        "campaign_id",
        "user_id",
    )
    with CaptureQueriesContext(connection) as queries:
        found = membership.get(campaign_id=table.campaign.pk, user_id=table.player.pk)
    orm = Membership.objects.select_related("campaign").get(campaign=table.campaign, user=table.player)
    _same(found, orm, related=("campaign",))
    assert len(queries) == 1
    assert membership._compiled is None  # nothing compiled
    assert membership.get_or_none(campaign_id=table.campaign.pk, user_id=2**63) is None
    with pytest.raises(Membership.DoesNotExist):
        membership.get(campaign_id=table.campaign.pk, user_id=table.player.pk + 1000)
    with pytest.raises(TypeError):
        membership.get_or_none(campaign_id=table.campaign.pk)


@pytest.mark.usefixtures("plain_orm")
def test_switched_off_an_insert_is_the_orms_create(table: Table) -> None:
    insert = CompiledInsert(LogEntry)
    entry = insert.create(
        campaign_id=table.campaign.pk, seq=999, kind="event", action="call", actor=table.gm, state={"a": 1}
    )
    assert LogEntry.objects.get(pk=entry.pk).state == {"a": 1}
    assert insert._compiled is None


@pytest.mark.usefixtures("plain_orm")
def test_switched_off_the_signed_in_user_is_read_by_the_orm(table: Table) -> None:
    user = auth_backend.ModelBackend().get_user(str(table.player.pk))
    assert user is not None
    _same(user, get_user_model().objects.get(pk=table.player.pk))


def test_it_sends_each_value_as_save_prepares_it(table: Table) -> None:
    """The common fields' values go as they are, integers as the backend adapts them; any
    other value (a string in an integer column, a lazy text) takes the field's own way."""
    from django.utils.functional import lazystr

    session = table.campaign.open_session()
    values = dict(
        campaign=table.campaign,
        session=session,
        character=table.character,
        character_name=lazystr("Olle"),
        roller=table.player,
        system="sixes",
        trait="Body",
        pool="4",
        chance=0.25,
        first_success=None,
        face6=True,
        by_hand=True,
    )
    obj = Roll(**values)
    plan = services._NEW_ROLL._plan()
    fields = [
        f for f in Roll._meta.local_concrete_fields if not f.generated and f is not Roll._meta.auto_field
    ]
    # The time is taken by pre_save on each call: compared apart.
    for field, value in zip(fields, plan.values, strict=True):
        if field.name != "created":
            assert value(obj) == field.get_db_prep_save(field.pre_save(obj, add=True), connection=connection)
    compiled = services._NEW_ROLL.create(**values)
    orm = Roll.objects.create(**values)
    assert _row(Roll, compiled.pk) == _row(Roll, orm.pk)
    assert _row(Roll, compiled.pk)["pool"] == 4 and _row(Roll, compiled.pk)["face6"] == 1
