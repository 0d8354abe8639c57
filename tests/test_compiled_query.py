"""Compiled reads return what the ORM's get() returns, run the SQL the ORM would run, and
refuse what they cannot do correctly."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db import connection, transaction
from django.db.models import Model
from django.db.transaction import TransactionManagementError
from django.test.utils import CaptureQueriesContext

from rolls import services as roll_services
from tabletop import access, auth_backend, models
from tabletop.compiled_query import CompiledQuery
from tabletop.models import Character, Membership
from tests.conftest import Table

pytestmark = pytest.mark.django_db


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


def _orm_sql(compiled: CompiledQuery[Any], **params: int) -> str:
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
        compiled = roll_services._LOCKED_CHARACTER.get(pk=table.character.pk)
    orm = Character.objects.select_related("campaign").get(pk=table.character.pk)
    _same(compiled, orm, related=("campaign",))
    if connection.features.has_select_for_update:
        assert "FOR UPDATE" in roll_services._LOCKED_CHARACTER.sql()


@pytest.mark.django_db(transaction=True)
def test_it_refuses_a_lock_outside_a_transaction(table: Table) -> None:
    with pytest.raises(TransactionManagementError):
        roll_services._LOCKED_CHARACTER.get(pk=table.character.pk)


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
        (roll_services._LOCKED_CHARACTER, {"pk": 3}),
        (auth_backend._USER, {"pk": 3}),
    ],
)
def test_it_runs_the_sql_the_orm_would(compiled: CompiledQuery[Any], params: dict[str, int]) -> None:
    assert compiled.sql() == _orm_sql(compiled, **params)
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


def test_it_refuses_a_query_whose_sql_would_not_follow_its_parameters() -> None:
    twice = CompiledQuery(lambda pk: Character.objects.filter(pk=pk, campaign_id=pk), "pk")
    with pytest.raises(ValueError, match="appears 2 times"):
        twice.get_or_none(pk=1)
    unused = CompiledQuery(lambda pk: Character.objects.all(), "pk")
    with pytest.raises(ValueError, match="appears 0 times"):
        unused.get_or_none(pk=1)
