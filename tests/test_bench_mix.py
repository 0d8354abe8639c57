"""The table-mix bench (bench/mix.py) posts what a phone posts: the forms' data the harness
builds for each system, the follow-up the answer's card offers (read from its markup, as a
browser shows it), the GM's NPC and secret rolls. Nothing here times anything: it checks that
every request the bench makes is one the app serves, so a bench run measures entries, not
refusals."""

from __future__ import annotations

import os
import secrets
import threading
import time
from collections import Counter

import pytest
from django.template.loader import render_to_string
from django.urls import reverse

from bench import harness
from bench.mix import MixPhase, choose_follow_up, thread_costs
from rolls.campaigns import services
from rolls.live import feed
from rolls.models import LogEntry
from rolls.sight import panels
from rolls.systems.sixes import CONDITIONS
from tabletop.models import Character, Membership
from tests import factories
from tests.factories import Script


def client() -> dict[str, str]:
    """A fresh one-time value for each request, as the phone sends (rolls/log/resent.py)."""
    return {"client_random": secrets.token_hex(16)}


def _table(system: str) -> tuple[factories.Table, dict[str, object], dict[str, object]]:
    table = factories.table(system, sheet=harness.bench_sheet(system))
    roll_data, npc_data = harness._forms_data(table.campaign, table.character)
    return table, roll_data, npc_data


def _roll(table: factories.Table, data: dict[str, object]) -> str:
    path = reverse("rolls:roll-create", args=[table.campaign.pk, table.character.pk])
    response = factories.logged_in(table.player).post(path, {**data, **client()}, HTTP_HX_REQUEST="true")
    assert response.status_code == 200, response.content
    return response.content.decode()


@pytest.mark.parametrize(
    ("system", "faces", "turn", "action"),
    [
        ("sixes", (1,), 0, "luck"),  # SIX-6: Luck after a failed roll
        ("sixes", (1,), 1, "push"),  # SIX-10, SIX-11: the push, in turn with Luck
        ("doubles", (3,), 0, "drama"),  # DBL-10: a drama die for 5 Endurance
        ("sets", (5,), 0, "bid"),  # SET-3, SET-5: a set of fives, the best quick bid
    ],
)
def test_it_takes_the_follow_up_the_card_offers(
    db: None, dice: Script, system: str, faces: tuple[int, ...], turn: int, action: str
) -> None:
    table, roll_data, _ = _table(system)
    dice(*faces, then=faces[-1])
    chosen = choose_follow_up(_roll(table, roll_data), turn)
    assert chosen is not None and chosen[0] == action
    _, path, data = chosen
    response = factories.logged_in(table.player).post(path, {**data, **client()}, HTTP_HX_REQUEST="true")
    assert response.status_code == 200, response.content
    assert 'data-seq="' in response.content.decode()


def test_it_never_pushes_with_broken(db: None, dice: Script) -> None:
    """SIX-22: a Broken kid is out of play, so the bench's push never checks Broken; a card
    whose only Condition left is Broken (and no Luck) offers the bench nothing."""
    table, roll_data, _ = _table("sixes")
    sheet = table.character.sheet
    sheet["conditions"] = {c: c != "Broken" for c in CONDITIONS}
    Character.objects.filter(pk=table.character.pk).update(sheet=sheet, luck=0)
    dice(1, then=1)
    assert choose_follow_up(_roll(table, roll_data)) is None


@pytest.mark.parametrize("system", ["sixes", "doubles", "sets"])
@pytest.mark.parametrize("secret", [False, True])
def test_the_gm_rolls_for_an_npc_from_the_console(db: None, system: str, secret: bool) -> None:
    table, _, npc_data = _table(system)
    data = {**npc_data, "name": "Goon", "intent": "Swings at the kids", **client()}
    if secret:
        data["secret"] = "on"
    path = reverse("rolls:npc-roll", args=[table.campaign.pk])
    response = factories.logged_in(table.gm).post(path, data, HTTP_HX_REQUEST="true")
    assert response.status_code == 200, response.content
    assert 'data-seq="' in response.content.decode()


def test_refill_puts_back_what_the_follow_ups_spent(db: None) -> None:
    """SIX-8, SIX-22 and DBL-10: between phases each character has full Luck, no Condition checked,
    full Endurance and none spent on drama, as at the start of the bench."""
    sixes, _, _ = _table("sixes")
    doubles = factories.campaign(factories.user(), name="Doubles", system="doubles")
    hero = harness.bench_sheet("doubles")
    owner = factories.user()
    factories.member(doubles, owner)
    made = services.character_create(campaign=doubles, owner=owner, name="Kim", sheet=hero)
    sheet = {**sixes.character.sheet, "conditions": {c: True for c in CONDITIONS}}
    Character.objects.filter(pk=sixes.character.pk).update(sheet=sheet, luck=0)
    Character.objects.filter(pk=made.pk).update(endurance=3, drama_spent=20)
    harness.refill(
        [harness.Table(sixes.campaign.pk, [], 0, "sixes"), harness.Table(doubles.pk, [], 0, "doubles")]
    )
    kid = Character.objects.get(pk=sixes.character.pk)
    assert kid.luck == 3 and not any(kid.sheet["conditions"].values())
    made.refresh_from_db()
    assert (made.endurance, made.drama_spent) == (harness.BENCH_ENDURANCE, 0)


def test_a_socket_counts_an_entry_once_when_the_gms_panel_draws_its_card_again(
    db: None, dice: Script
) -> None:
    """The GM's waiting panel is redrawn with the cards of older rolls (an NPC's, which can still bid, here): the
    bench counts the feed's cards, so those are no second delivery of their entries."""
    table, roll_data, npc_data = _table("sets")
    dice(5, then=5)  # a set of fives: the NPC can bid, so its card waits on the panel
    path = reverse("rolls:npc-roll", args=[table.campaign.pk])
    data = {**npc_data, "name": "Goon", "intent": "Swings at the kids", **client()}
    assert factories.logged_in(table.gm).post(path, data, HTTP_HX_REQUEST="true").status_code == 200
    _roll(table, roll_data)
    npc, kid = LogEntry.objects.filter(campaign=table.campaign).order_by("-seq")[:2][::-1]
    gm = Membership.objects.select_related("campaign").get(campaign=table.campaign, user=table.gm)
    panel = render_to_string("rolls/_gm_panel.html", {"gm_cards": panels.gm_panel(table.campaign.pk, gm)})
    assert f'data-seq="{npc.seq}"' in panel  # the NPC's card waits there

    listener = harness.Listener(0, harness.Phone(table.gm.pk, "", "", None, is_gm=True))
    listener.take(
        feed.shared_markup(npc).html + f'<span id="last-seq" data-seq="{npc.seq}" hidden></span>', 0.0
    )
    listener.take(
        feed.shared_markup(kid).html + panel + f'<span id="last-seq" data-seq="{kid.seq}" hidden></span>', 1.0
    )
    assert (listener.duplicates, listener.out_of_order) == (0, 0)
    assert list(listener.first_seen) == [npc.seq, kid.seq]


def test_the_split_charges_the_loop_and_the_other_threads_per_plain_roll() -> None:
    def phase(target: str, kind: str, rolls: int, server_s: float, loop_s: float) -> MixPhase:
        found = MixPhase(target, kind, 0, 20.0, 20.0, entries=Counter(roll=rolls))
        found.cpu = {"server_s": server_s, "loop_s": loop_s, "services_s": 0.5}
        return found

    split = thread_costs(
        [
            phase("app", "plain", 400, 2.8, 0.8),
            phase("baseline", "plain", 400, 1.6, 1.2),
            phase("app", "follow-up", 400, 9.0, 1.0),  # not a plain roll: left out
        ]
    )
    # PostgreSQL's and Redis's CPU is neither thread of the server's.
    assert split == {
        "app plain": ([2.0], [pytest.approx(5.0)]),
        "baseline plain": ([3.0], [pytest.approx(1.0)]),
    }


def test_a_threads_cpu_is_its_own_part_of_its_process() -> None:
    def spin() -> None:
        end = time.thread_time() + 0.3
        while time.thread_time() < end:
            pass

    before_main = harness.cpu_seconds(os.getpid(), thread=threading.get_native_id())
    before_all = harness.cpu_seconds(os.getpid())
    worker = threading.Thread(target=spin)
    worker.start()
    worker.join()
    main = harness.cpu_seconds(os.getpid(), thread=threading.get_native_id()) - before_main
    whole = harness.cpu_seconds(os.getpid()) - before_all
    # The other thread's 0.3 s counts for the process (ended threads included), not the main one.
    assert whole >= 0.25
    assert main < 0.1
