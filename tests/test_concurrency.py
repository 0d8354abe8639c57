"""Resources are spent once: many simultaneous requests for the same Luck point or the same
push apply exactly once, on SQLite (write transactions take the lock when they start) and on
PostgreSQL (row locks). None fails with "database is locked"."""

from __future__ import annotations

import random
import threading
from collections import Counter

import pytest
from django.db import connection

from rolls import services
from rolls.models import LogEntry, Roll
from rolls.systems import RulesError
from tests.factories import ScriptedDice, Table

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


def _at_once(table: Table, roll: Roll, action: str, params: dict[str, str]) -> Counter[str]:
    """Fire the same follow-up from many threads at the same moment; count the outcomes."""
    barrier = threading.Barrier(REQUESTS)
    outcomes: Counter[str] = Counter()
    lock = threading.Lock()

    def attempt() -> None:
        try:
            barrier.wait()
            services.follow_up_apply(
                roll=roll, actor=table.player, action=action, params=params, rng=random.Random()
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
    outcomes = _at_once(table, roll, "push", {"condition": "Scared"})
    assert outcomes == Counter({"applied": 1, "refused": REQUESTS - 1})
    table.character.refresh_from_db()
    assert table.character.sheet["conditions"]["Scared"] is True
    assert LogEntry.objects.filter(roll=roll, action="push").count() == 1
    # Sequence numbers stay unique and gapless under the race.
    seqs = list(
        LogEntry.objects.filter(campaign=table.campaign).order_by("seq").values_list("seq", flat=True)
    )
    assert seqs == list(range(1, len(seqs) + 1))
