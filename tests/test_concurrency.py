"""Resources are spent once: many simultaneous requests for the same Luck point or the same
push apply exactly once, on SQLite (write transactions take the lock when they start) and on
PostgreSQL (row locks). None fails with "database is locked"."""

from __future__ import annotations

import random
import threading
from collections import Counter
from typing import Any

import pytest
from django.db import connection

from rolls import registry, services
from rolls.models import LogEntry, Roll
from rolls.systems import RulesError
from tests import factories
from tests.factories import ScriptedDice, Table

# A sets sheet: one stat of six dice.
SETS_SHEET = {"stats": [{"name": "Might", "dice": 6}], "notes": ""}

REQUESTS = 50


def _failed_roll(table: Table) -> Roll:
    return services.roll_create(
        character=table.character,
        roller=table.player,
        data={"attribute": "Body", "skill": "", "need": 1},
        helper=None,
        intent="",
        rng=ScriptedDice(1, 1, 1, then=1),
    )


def _at_once(
    table: Table,
    roll: Roll,
    action: str,
    params: dict[str, Any],
    *,
    actor: Any = None,
    by_gm: bool = False,
) -> Counter[str]:
    """Fire the same follow-up from many threads at the same moment; count the outcomes."""
    barrier = threading.Barrier(REQUESTS)
    outcomes: Counter[str] = Counter()
    lock = threading.Lock()

    def attempt() -> None:
        try:
            barrier.wait()
            services.follow_up_apply(
                roll=roll,
                actor=actor or table.player,
                action=action,
                params=params,
                rng=random.Random(),
                by_gm=by_gm,
            )
            result = "applied"
        except RulesError:
            result = "refused"
        except Exception as error:  # the failure this test exists to catch, reported by name
            result = f"error: {error}"
        finally:
            connection.close()
        with lock:
            outcomes[result] += 1

    threads = [threading.Thread(target=attempt) for _ in range(REQUESTS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    return outcomes


@pytest.mark.django_db(transaction=True)
def test_six_7_fifty_requests_for_one_luck_point_spend_it_once(table: Table) -> None:
    roll = _failed_roll(table)
    luck = table.character.luck
    outcomes = _at_once(table, roll, "luck", {})
    assert outcomes == Counter({"applied": 1, "refused": REQUESTS - 1})
    table.character.refresh_from_db()
    assert table.character.luck == luck - 1
    assert LogEntry.objects.filter(roll=roll, action="luck").count() == 1


@pytest.mark.django_db(transaction=True)
def test_six_10_fifty_pushes_of_one_roll_push_it_once(table: Table) -> None:
    roll = _failed_roll(table)
    outcomes = _at_once(table, roll, "push", {"condition": "Scared", "description": "Olle grits his teeth"})
    assert outcomes == Counter({"applied": 1, "refused": REQUESTS - 1})
    table.character.refresh_from_db()
    assert table.character.sheet["conditions"]["Scared"] is True
    assert LogEntry.objects.filter(roll=roll, action="push").count() == 1
    # Sequence numbers stay unique and gapless under the race.
    seqs = list(
        LogEntry.objects.filter(campaign=table.campaign).order_by("seq").values_list("seq", flat=True)
    )
    assert seqs == list(range(1, len(seqs) + 1))


@pytest.mark.django_db(transaction=True)
def test_a_gms_double_tap_on_an_npc_roll_applies_once() -> None:
    """An NPC roll has no sheet to lock: the roll's own row lock serialises the taps, so the
    second bid finds the roll bid already (on PostgreSQL the taps ran side by side and both
    bids were applied, forking the chain)."""
    table = factories.table("sets", character_name="Wilcott", sheet=SETS_SHEET)
    request = registry.engine("sets").parse_request({"dice": 6, "bar_size": 2, "bar_face": 1})
    roll = services.npc_roll_create(
        campaign=table.campaign,
        gm=table.gm,
        name="Guard",
        request=request,
        secret=False,
        target=None,
        intent="",
        rng=ScriptedDice(4, 4, 5, 5, 2, 6),
    )
    outcomes = _at_once(table, roll, "bid", {"dice": ["0", "1"]}, actor=table.gm, by_gm=True)
    assert outcomes == Counter({"applied": 1, "refused": REQUESTS - 1})
    chain = list(LogEntry.objects.filter(roll=roll).order_by("seq").values_list("action", flat=True))
    assert chain == ["roll", "bid"]
