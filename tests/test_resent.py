"""A roll or follow-up sent twice (its first answer lost on the way) is made once: the phone
keeps the request's one-time key (``client_random``) until an answer comes, and the server
answers a key it has seen with the first result (``rolls.log.resent``)."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import IntegrityError
from django.test import Client
from django.urls import reverse

from rolls import log
from rolls.log import resent
from rolls.models import LogEntry, Roll
from rolls.play import services
from rolls.play.formdata import npc_baseline
from tests import factories
from tests.conftest import Script
from tests.factories import Table, logged_in

pytestmark = pytest.mark.django_db

KEY = "0123456789abcdef0123456789abcdef"
OTHER_KEY = "fedcba9876543210fedcba9876543210"


def roll(client: Client, table: Table, key: str, *, htmx: bool = True, **extra: Any) -> Any:
    path = reverse("rolls:roll-create", args=[table.campaign.pk, table.character.pk])
    data = {"trait": "Body", "need": 1, "client_random": key, **extra}
    return client.post(path, data, **({"HTTP_HX_REQUEST": "true"} if htmx else {}))


def follow(client: Client, table: Table, roll_id: int, action: str, key: str) -> Any:
    path = reverse("rolls:follow-up", args=[table.campaign.pk, roll_id])
    # SIX-23: a push names the condition it costs and what the kid does.
    data = {
        "action": action,
        "client_random": key,
        "condition": "Scared",
        "description": "Olle pedals harder",
    }
    return client.post(path, data, HTTP_HX_REQUEST="true")


def test_the_same_roll_sent_twice_rolls_once_and_answers_the_same(table: Table, dice: Script) -> None:
    # The copy draws its dice too before the key's unique index stops its entry; they go with
    # its transaction.
    dice(6, 2, 3, 1, 1, 1)
    player = logged_in(table.player)

    first = roll(player, table, KEY)
    again = roll(player, table, KEY)

    assert first.status_code == again.status_code == 200
    assert Roll.objects.count() == 1
    rolled = Roll.objects.get()
    assert f'id="result-roll-{rolled.pk}"' in again.content.decode()
    assert LogEntry.objects.filter(kind=LogEntry.Kind.ROLL).count() == 1


def test_a_new_key_rolls_again(table: Table, dice: Script) -> None:
    dice(6, 2, 3, 1, 1, 1)
    player = logged_in(table.player)

    roll(player, table, KEY)
    roll(player, table, OTHER_KEY)

    assert Roll.objects.count() == 2


def test_a_plain_post_sent_twice_rolls_once(table: Table, dice: Script) -> None:
    dice(6, 2, 3, 1, 1, 1)
    player = logged_in(table.player)

    first = roll(player, table, KEY, htmx=False)
    again = roll(player, table, KEY, htmx=False)

    assert first.status_code == again.status_code == 302
    assert first["Location"] == again["Location"]
    assert Roll.objects.count() == 1


def test_another_members_key_never_answers_with_someone_elses_roll(table: Table, dice: Script) -> None:
    dice(6, 2, 3, 1, 1, 1)
    ann = factories.user("ann")
    factories.member(table.campaign, ann, name="Ann")
    kim = factories.character(table.campaign, ann, name="Kim")
    roll(logged_in(table.player), table, KEY)
    olle_roll = Roll.objects.get()

    path = reverse("rolls:roll-create", args=[table.campaign.pk, kim.pk])
    answer = logged_in(ann).post(
        path, {"trait": "Body", "need": 1, "client_random": KEY}, HTTP_HX_REQUEST="true"
    )

    assert answer.status_code == 200
    kims = Roll.objects.exclude(pk=olle_roll.pk).get()
    assert kims.character == kim
    assert f"roll-{olle_roll.pk}" not in answer.content.decode()
    assert f'id="result-roll-{kims.pk}"' in answer.content.decode()


def test_the_same_key_for_another_character_is_refused(table: Table, dice: Script) -> None:
    dice(6, 2, 3, 1, 1, 1)
    player = logged_in(table.player)
    second = factories.character(table.campaign, table.player, name="Dag")
    roll(player, table, KEY)

    path = reverse("rolls:roll-create", args=[table.campaign.pk, second.pk])
    answer = player.post(path, {"trait": "Body", "need": 1, "client_random": KEY}, HTTP_HX_REQUEST="true")

    assert answer.status_code == 422
    assert resent.KEY_REUSED in answer.content.decode()
    assert Roll.objects.count() == 1


def test_a_push_sent_twice_pushes_once_and_answers_the_same(table: Table, dice: Script) -> None:
    """SIX-23: a push rerolls once; the copy of the request gets the first push's answer."""
    dice(1, 2, 3, 4, 5, 6)
    player = logged_in(table.player)
    roll(player, table, KEY)
    rolled = Roll.objects.get()

    first = follow(player, table, rolled.pk, "push", OTHER_KEY)
    again = follow(player, table, rolled.pk, "push", OTHER_KEY)

    assert first.status_code == again.status_code == 200
    assert LogEntry.objects.filter(roll=rolled, kind=LogEntry.Kind.FOLLOW_UP).count() == 1
    assert first.content == again.content


def test_a_roll_key_sent_again_as_a_follow_up_is_refused(table: Table, dice: Script) -> None:
    # The push rerolls the three dice before the key's unique index stops its entry.
    dice(1, 2, 3, 4, 5, 4)
    player = logged_in(table.player)
    roll(player, table, KEY)
    rolled = Roll.objects.get()

    answer = follow(player, table, rolled.pk, "push", KEY)

    assert answer.status_code == 422
    assert resent.KEY_REUSED in answer.content.decode()
    assert not LogEntry.objects.filter(kind=LogEntry.Kind.FOLLOW_UP).exists()


def test_the_gms_quick_roll_sent_twice_rolls_once(table: Table, dice: Script) -> None:
    dice(6, 2, 3, 4, 5, 6)
    gm = logged_in(table.gm)
    data = {**npc_baseline(table.campaign), "name": "Goon", "client_random": KEY}
    path = reverse("rolls:npc-roll", args=[table.campaign.pk])

    first = gm.post(path, data, HTTP_HX_REQUEST="true")
    again = gm.post(path, data, HTTP_HX_REQUEST="true")

    assert first.status_code == again.status_code == 200
    assert Roll.objects.count() == 1


def test_the_database_holds_one_entry_per_member_and_key(table: Table, dice: Script) -> None:
    """Two copies that both passed the lookup: the unique key refuses the second write, and
    nothing of it stays (its roll row goes with it)."""
    dice(6, 2, 3, 1, 1, 1)
    made = dict(
        character=table.character,
        roller=table.player,
        data={"attribute": "Body", "skill": "", "need": 1},
        helper=None,
        intent="",
        rng=log.randomness.RNG,
        key=KEY,
    )
    services.roll_create(**made)  # type: ignore[arg-type]

    with pytest.raises(IntegrityError):
        services.roll_create(**made)  # type: ignore[arg-type]
    assert Roll.objects.count() == 1


def test_a_first_request_looks_nothing_up_and_a_copy_is_stopped_by_the_key(
    table: Table, dice: Script, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The lookup by key runs only when a roll fails: a first request (nearly every one) goes
    straight to its write, and a copy's write is refused by the key's unique index, after
    which the lookup finds the first roll to answer with."""
    dice(6, 2, 3, 1, 1, 1)
    player = logged_in(table.player)
    looked = []
    found = resent.first_answer

    def counted(*args: Any) -> Any:
        looked.append(args)
        return found(*args)

    monkeypatch.setattr(resent, "first_answer", counted)
    roll(player, table, KEY)
    assert looked == []

    again = roll(player, table, KEY)

    assert len(looked) == 1
    assert again.status_code == 200
    assert Roll.objects.count() == 1
    assert f'id="result-roll-{Roll.objects.get().pk}"' in again.content.decode()
