"""Resources are spent once: many simultaneous requests for the same Luck point or the same
push apply exactly once, on SQLite (write transactions take the lock when they start) and on
PostgreSQL (row locks). None fails with "database is locked"."""

from __future__ import annotations

import random
import threading
from collections import Counter
from typing import Any

import pytest
from django.db import connection, transaction

from rolls import registry
from rolls.campaigns import services as rolls_campaigns
from rolls.models import LogEntry, Roll
from rolls.play import services
from rolls.systems import RulesError
from rolls.systems.stars import STATS as STARS_STATS
from tabletop.models import Character
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
    # A statement's SQL is recorded on its first use in a process, on a connection of its own
    # (tabletop/serving/compiled_query.py): with fifty threads holding the pool's ten, that
    # first use would wait out the pool's timeout. A served process has one request thread
    # and warms its statements on its first rolls; here one Luck spend on an earlier roll does.
    warm = _failed_roll(table)
    services.follow_up_apply(
        roll=warm, actor=table.player, action="luck", params={}, rng=random.Random(), by_gm=False
    )
    connection.close()
    roll = _failed_roll(table)
    table.character.refresh_from_db()
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


def _each_at_once(roll: Roll, attempts: list[tuple[str, Any]]) -> Counter[str]:
    """Fire each (action, actor) from its own thread at the same moment; count the outcomes
    by action."""
    barrier = threading.Barrier(len(attempts))
    outcomes: Counter[str] = Counter()
    lock = threading.Lock()

    def attempt(action: str, actor: Any) -> None:
        try:
            barrier.wait()
            services.follow_up_apply(roll=roll, actor=actor, action=action, params={}, rng=random.Random())
            result = f"{action} applied"
        except RulesError:
            result = f"{action} refused"
        except Exception as error:  # the failure this test exists to catch, reported by name
            result = f"error: {error}"
        finally:
            connection.close()
        with lock:
            outcomes[result] += 1

    threads = [threading.Thread(target=attempt, args=each) for each in attempts]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    return outcomes


def _contest(table: Table) -> tuple[Roll, Any, Character]:
    """Dave's stars roll, made against Kim (a contest the table records), and Kim's player."""
    sheet = {"stats": dict.fromkeys(STARS_STATS, 3), "skills": {}, "edges": {}}
    kim_player = factories.member(table.campaign, name="Kim").user
    kim = rolls_campaigns.character_create(campaign=table.campaign, owner=kim_player, name="Kim", sheet=sheet)
    roll = services.roll_create(
        character=table.character,
        roller=table.player,
        data={"stat": "Vigor", "skill": "", "advantage": "none"},
        helper=None,
        intent="",
        rng=ScriptedDice(1, 2, 3),
    )
    Roll.objects.filter(pk=roll.pk).update(target=kim, target_name=kim.name)
    roll.refresh_from_db()
    return roll, kim_player, kim


def _stars_table() -> Table:
    sheet = {"stats": dict.fromkeys(STARS_STATS, 3), "skills": {}, "edges": {}}
    return factories.table("stars", character_name="Dave", sheet=sheet)


@pytest.mark.production
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(("first", "second"), [("luck", "luck_against"), ("luck_against", "luck")])
def test_str_11_a_follow_up_reads_the_roll_only_once_the_step_before_it_is_written(
    first: str, second: str
) -> None:
    """STR-11: one Luck reroll is written and not yet committed when the other side's Luck
    arrives. The two are paid from different sheets, so their character locks do not make
    them wait for each other; the roll's own lock, taken first on every path (the roller's
    and the target's), does: the second reads the state the first wrote, and the chain does
    not fork. Marked ``production``: it must run on PostgreSQL too."""
    table = _stars_table()
    roll, kim_player, _ = _contest(table)
    actors = {"luck": table.player, "luck_against": kim_player}
    held, release = threading.Event(), threading.Event()
    done: list[str] = []

    def apply(action: str) -> None:
        services.follow_up_apply(
            roll=roll, actor=actors[action], action=action, params={}, rng=random.Random(1)
        )

    def first_and_hold() -> None:
        try:
            with transaction.atomic():
                apply(first)
                held.set()
                release.wait(timeout=30)
        finally:
            connection.close()

    def then_second() -> None:
        try:
            apply(second)
            done.append("applied")
        except Exception as error:
            done.append(f"error: {error}")
        finally:
            connection.close()

    holder = threading.Thread(target=first_and_hold)
    holder.start()
    assert held.wait(timeout=30)
    follower = threading.Thread(target=then_second)
    follower.start()
    follower.join(timeout=1.0)
    waited = follower.is_alive()
    release.set()
    holder.join(timeout=30)
    follower.join(timeout=30)

    assert waited, "the second follow-up did not wait for the first"
    assert done == ["applied"]
    entries = list(LogEntry.objects.filter(roll=roll).order_by("seq"))
    assert [entry.action for entry in entries] == ["roll", first, second]
    assert [len(entry.state["steps"]) for entry in entries] == [1, 2, 3]
    assert entries[2].state["steps"][:2] == entries[1].state["steps"]


@pytest.mark.production
@pytest.mark.django_db(transaction=True)
def test_str_11_luck_by_the_roller_and_against_it_by_the_target_apply_one_after_the_other() -> None:
    """STR-11: the roller's Luck and the target's Luck against the roll, tapped at the same
    moment, are paid from two different sheets, so the two character locks alone let them run
    side by side (on PostgreSQL both read the same state and the chain forked in two). The
    roll's own lock comes first, on every path: the second reroll reads the first one's state.
    Marked ``production``: it must run on PostgreSQL too."""
    table = _stars_table()
    roll, kim_player, kim = _contest(table)
    half = REQUESTS // 2
    attempts = [("luck", table.player)] * half + [("luck_against", kim_player)] * half

    outcomes = _each_at_once(roll, attempts)

    assert outcomes == Counter(
        {
            "luck applied": 1,
            "luck refused": half - 1,
            "luck_against applied": 1,
            "luck_against refused": half - 1,
        }
    )
    entries = list(LogEntry.objects.filter(roll=roll).order_by("seq"))
    assert [len(entry.state["steps"]) for entry in entries] == [1, 2, 3]  # one chain, no fork
    # Each entry holds the whole chain before it: the second reroll read the first one's state.
    assert entries[2].state["steps"][:2] == entries[1].state["steps"]
    for character, luck in ((table.character, 3), (kim, 3)):
        character.refresh_from_db()
        assert character.luck == luck - 1


class _HeldDice:
    """Dice that stop the service where it holds its roll's and its character's locks and has
    not written the log yet (the engine rolls between the two), until ``release`` is set."""

    def __init__(self) -> None:
        self.held, self.release = threading.Event(), threading.Event()

    def randint(self, a: int, b: int) -> int:
        self.held.set()
        self.release.wait(timeout=30)
        return 6


def _paused_luck(table: Table, roll: Roll, dice: _HeldDice, done: dict[str, str]) -> threading.Thread:
    def luck() -> None:
        try:
            services.follow_up_apply(roll=roll, actor=table.player, action="luck", params={}, rng=dice)
            done["luck"] = "applied"
        except RulesError as error:
            done["luck"] = f"refused: {error}"
        except Exception as error:
            done["luck"] = f"error: {error}"
        finally:
            connection.close()

    thread = threading.Thread(target=luck)
    thread.start()
    assert dice.held.wait(timeout=30)
    return thread


@pytest.mark.production
@pytest.mark.django_db(transaction=True)
def test_a_follow_up_and_a_new_mystery_at_the_same_moment_never_deadlock(table: Table) -> None:
    """SIX-6 and a new Mystery at the same moment: the Luck reroll holds its roll and its
    character and is about to write the log (the campaign row); the GM's clock locks the
    characters before the campaign, so it waits for the reroll instead of holding the
    campaign the reroll needs (on PostgreSQL such a circle is a deadlock, and one fails).
    Marked ``production``: it must run on PostgreSQL too."""
    roll = _failed_roll(table)
    dice = _HeldDice()
    done: dict[str, str] = {}
    reroll = _paused_luck(table, roll, dice, done)

    def new_mystery() -> None:
        try:
            rolls_campaigns.mystery_start(campaign=table.campaign, actor=table.gm)
            done["mystery"] = "begun"
        except Exception as error:
            done["mystery"] = f"error: {error}"
        finally:
            connection.close()

    gm = threading.Thread(target=new_mystery)
    gm.start()
    gm.join(timeout=1.0)
    waited = gm.is_alive()
    dice.release.set()
    reroll.join(timeout=30)
    gm.join(timeout=30)

    assert done == {"luck": "applied", "mystery": "begun"}
    assert waited, "the new Mystery did not wait for the reroll's character"
    assert LogEntry.objects.filter(roll=roll, action="luck").count() == 1


@pytest.mark.production
@pytest.mark.django_db(transaction=True)
def test_six_8_a_luck_reroll_on_its_way_when_the_session_ends_is_spent_in_that_session(table: Table) -> None:
    """SIX-8: the GM ends the session while a Luck reroll is on its way: the end waits for the
    reroll (it locks the characters first), which is spent in the session it was tapped in.
    Marked ``production``: it must run on PostgreSQL too."""
    roll = _failed_roll(table)
    luck = table.character.luck
    dice = _HeldDice()
    done: dict[str, str] = {}
    reroll = _paused_luck(table, roll, dice, done)

    def end() -> None:
        try:
            rolls_campaigns.session_end(campaign=table.campaign, actor=table.gm)
            done["end"] = "ended"
        except Exception as error:
            done["end"] = f"error: {error}"
        finally:
            connection.close()

    gm = threading.Thread(target=end)
    gm.start()
    gm.join(timeout=1.0)
    waited = gm.is_alive()
    dice.release.set()
    reroll.join(timeout=30)
    gm.join(timeout=30)

    assert done == {"luck": "applied", "end": "ended"}
    assert waited, "the session ended under the reroll"
    table.character.refresh_from_db()
    assert table.character.luck == luck - 1
    actions = list(
        LogEntry.objects.filter(campaign=table.campaign).order_by("seq").values_list("action", flat=True)
    )
    assert actions[-2:] == ["luck", "session-end"]


@pytest.mark.production
@pytest.mark.django_db(transaction=True)
def test_an_npc_roll_against_a_character_never_waits_for_that_characters_lock(table: Table) -> None:
    """The GM's roll against a kid, while the kid's own roll holds the kid's row and is on its
    way to the campaign's: the GM's roll holds the campaign's row from its sequence number
    on, and its new row names the kid, whose key PostgreSQL checks with a share lock. A row
    locked FOR UPDATE refused that lock, and the two waited for each other (a deadlock, one
    refused with 503); the services lock rows FOR NO KEY UPDATE, which a key check passes.
    On SQLite a write transaction takes the whole database's lock: nothing to show there."""
    if connection.vendor != "postgresql":
        pytest.skip("row locks: PostgreSQL's (SQLite takes the database's write lock)")
    request = registry.engine(table.campaign.system).parse_request({"dice": 2, "need": 1})
    holding, release = threading.Event(), threading.Event()
    done: dict[str, str] = {}

    def kid_holds_their_row() -> None:
        try:
            with transaction.atomic():
                services._locked(table.character)
                holding.set()
                release.wait(timeout=30)
        finally:
            connection.close()

    def gm_rolls_against_the_kid() -> None:
        try:
            services.npc_roll_create(
                campaign=table.campaign,
                gm=table.gm,
                name="Guard",
                request=request,
                secret=False,
                target=table.character,
                intent="",
                rng=ScriptedDice(4, 6, then=3),
            )
            done["npc"] = "rolled"
        except Exception as error:
            done["npc"] = f"error: {error}"
        finally:
            connection.close()

    kid = threading.Thread(target=kid_holds_their_row)
    kid.start()
    assert holding.wait(timeout=30)
    gm = threading.Thread(target=gm_rolls_against_the_kid)
    gm.start()
    gm.join(timeout=10)
    finished_while_held = not gm.is_alive()
    release.set()
    kid.join(timeout=30)
    gm.join(timeout=30)
    assert done == {"npc": "rolled"}
    assert finished_while_held, "the GM's roll waited for the kid's row"


@pytest.mark.production
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("gm_call", ["close", "cancel"])
def test_six_18_a_push_tapped_as_the_gm_settles_waits_for_the_verdict_and_is_refused(gm_call: str) -> None:
    """SIX-18, SIX-10: kid versus kid is revealed; the GM's settle (or call-off) holds the
    contest and has not committed when Olle's push arrives. The push locks the contest first
    (as every contest service does), so it waits, then reads the verdict and is refused: no
    push lands after the verdict, and no Condition is checked for it. Marked ``production``:
    it must run on PostgreSQL too."""
    from rolls.contests import services as contests
    from rolls.contests.sides import Side
    from tests.test_sixes_contests import BODY, Kids

    kids = Kids()
    contest = contests.contest_open(
        campaign=kids.table.campaign,
        opener=kids.table.gm,
        sides=[Side(kids.olle, BODY), Side(kids.kim, BODY)],
        intent="the last bike",
    )
    sides = list(contest.sides.order_by("position"))
    olle = contests.contest_roll(
        side=sides[0], user=kids.table.player, rng=ScriptedDice(1, 2, 3), is_gm=False
    )
    contests.contest_roll(side=sides[1], user=kids.second, rng=ScriptedDice(6, 2, 3), is_gm=False)
    held, release = threading.Event(), threading.Event()
    done: list[str] = []

    def settle_and_hold() -> None:
        try:
            with transaction.atomic():
                if gm_call == "close":
                    contests.contest_close(contest=contest, gm=kids.table.gm)
                else:
                    contests.contest_cancel(contest=contest, gm=kids.table.gm)
                held.set()
                release.wait(timeout=30)
        finally:
            connection.close()

    def push() -> None:
        try:
            services.follow_up_apply(
                roll=Roll.objects.get(pk=olle.pk),
                actor=kids.table.player,
                action="push",
                params={"condition": "Scared", "description": "Olle pedals harder"},
                rng=ScriptedDice(6, 6, then=6),
            )
            done.append("applied")
        except RulesError as error:
            done.append(f"refused: {error}")
        except Exception as error:
            done.append(f"error: {error}")
        finally:
            connection.close()

    gm = threading.Thread(target=settle_and_hold)
    gm.start()
    assert held.wait(timeout=30)
    player = threading.Thread(target=push)
    player.start()
    player.join(timeout=1.0)
    waited = player.is_alive()
    release.set()
    gm.join(timeout=30)
    player.join(timeout=30)

    if connection.vendor == "postgresql":
        assert waited, "the push did not wait for the GM's settle"
    assert len(done) == 1 and done[0].startswith("refused:") and "its rolls are final" in done[0]
    assert not LogEntry.objects.filter(roll=olle, action="push").exists()
    kids.olle.refresh_from_db()
    assert kids.olle.sheet["conditions"]["Scared"] is False
