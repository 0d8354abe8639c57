"""A serving process keeps its startup heap out of the garbage collector's walks (the pauses
it saves are measured by bench/load.py, not here)."""

from __future__ import annotations

import asyncio
import gc
import sys
from collections.abc import Callable, Iterator

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse
from pytest_django.fixtures import Settings

from rolls.models import Roll
from rolls.systems.sixes import CONDITIONS
from tabletop.serving.gc import (
    FULL_EVERY,
    YOUNG,
    Lifespan,
    Survivors,
    freeze_startup_heap,
    generational,
    serving_started,
    serving_stopped,
)
from tests.factories import Script, Table, logged_in


@pytest.mark.skipif(not settings.FAST_PATH["gc"], reason="FAST_PATH has gc off: the app leaves gc as it is")
def test_loading_the_served_app_freezes_what_it_loaded() -> None:
    import tabletop.asgi  # noqa: F401  (what uvicorn imports)

    assert gc.get_freeze_count() > 0
    assert gc.get_threshold()[0] == YOUNG and gc.get_threshold()[2] == (FULL_EVERY if generational() else 0)


def test_freezing_keeps_the_heap_out_of_collections(settings: Settings) -> None:
    settings.FAST_PATH = {**settings.FAST_PATH, "gc": True}
    gc.unfreeze()
    freeze_startup_heap()
    assert gc.get_freeze_count() > 0
    # Shorter young collections (twice as many), full ones a tenth as often.
    assert gc.get_threshold()[0] == YOUNG < 2000
    assert gc.get_threshold()[2] == (FULL_EVERY if generational() else 0)


def test_it_knows_which_collector_this_python_has() -> None:
    # Three generations on 3.12 and 3.13 (and 3.15); 3.14's incremental collector has two.
    assert generational() == (sys.version_info[:2] != (3, 14))


def test_switched_off_nothing_is_frozen(settings: Settings) -> None:
    settings.FAST_PATH = {**settings.FAST_PATH, "gc": False}
    frozen, threshold = gc.get_freeze_count(), gc.get_threshold()
    freeze_startup_heap()
    assert (gc.get_freeze_count(), gc.get_threshold()) == (frozen, threshold)


def test_objects_made_after_the_freeze_are_still_collected(settings: Settings) -> None:
    settings.FAST_PATH = {**settings.FAST_PATH, "gc": True}
    freeze_startup_heap()

    class Node:
        pass

    cycle = Node()
    cycle.me = cycle  # type: ignore[attr-defined]
    del cycle
    assert gc.collect() >= 1  # the cycle is found and freed


# -- what a roll leaves to the cyclic collector ---------------------------------------------------
#
# Objects a request leaves in reference cycles are freed only by a collection, and the more of
# them, the more often young collections run and the more survive into the older generations
# that pause every socket of the process. Counted, never timed: gc.collect() returns how many
# unreachable objects it found, with automatic collection off while the requests run.

ROLLS = 12
# Before the cycles of the request, its messages, the form and the template context were
# broken: 253 objects a roll; after, none (2026-12-02: tabletop/serving/cycles.py).
CYCLIC_OBJECTS_PER_ROLL = 10


def posted(client: Client, path: str, data: dict[str, object]) -> object:
    response = client.post(path, data, HTTP_HX_REQUEST="true")
    assert response.status_code == 200, response.content[:300]
    # The test client's own cycle (response.json is a partial of the response), which holds
    # the request, the contexts and the templates it kept for tests: not the app's.
    del response.json
    return response


def cyclic_objects_per_call(call: Callable[[int], object], times: int) -> float:
    call(-1)  # the first request of a client loads templates, URL resolvers, caches
    gc.collect()
    gc.disable()
    try:
        for n in range(times):
            call(n)
        return gc.collect() / times
    finally:
        gc.enable()


@pytest.mark.skipif(not settings.FAST_PATH["gc"], reason="FAST_PATH has gc off: the app leaves gc as it is")
def test_a_roll_through_the_views_leaves_few_objects_in_cycles(table: Table, dice: Script) -> None:
    dice(then=3)
    client = logged_in(table.player)
    path = reverse("rolls:roll-create", args=[table.campaign.pk, table.character.pk])

    def a_roll(_: int) -> None:
        posted(client, path, {"trait": "Body", "need": 1})

    assert cyclic_objects_per_call(a_roll, ROLLS) <= CYCLIC_OBJECTS_PER_ROLL


@pytest.mark.skipif(not settings.FAST_PATH["gc"], reason="FAST_PATH has gc off: the app leaves gc as it is")
def test_a_follow_up_through_the_views_leaves_few_objects_in_cycles(table: Table, dice: Script) -> None:
    dice(then=3)  # no six: every roll may be pushed (SIX-23)
    client = logged_in(table.player)
    path = reverse("rolls:roll-create", args=[table.campaign.pk, table.character.pk])

    def roll_and_push(n: int) -> None:
        posted(client, path, {"trait": "Body", "need": 1})
        posted(
            client,
            reverse("rolls:follow-up", args=[table.campaign.pk, Roll.objects.latest("id").pk]),
            # Each push checks a Condition the kid has not checked yet (SIX-23).
            {"action": "push", "condition": CONDITIONS[n + 1], "description": "Olle pedals harder"},
        )

    assert cyclic_objects_per_call(roll_and_push, len(CONDITIONS) - 1) <= 2 * CYCLIC_OBJECTS_PER_ROLL


def test_switched_off_the_cycles_stay_for_the_collector(
    table: Table, dice: Script, settings: Settings
) -> None:
    settings.FAST_PATH = {**settings.FAST_PATH, "gc": False}
    dice(then=3)
    client = logged_in(table.player)
    path = reverse("rolls:roll-create", args=[table.campaign.pk, table.character.pk])

    def a_roll(_: int) -> None:
        posted(client, path, {"trait": "Body", "need": 1})

    # What the counting above would see without tabletop/serving/cycles.py: it counts them
    # (96 a roll since the answer is drawn without the request's context, 133 before).
    assert cyclic_objects_per_call(a_roll, 3) > 5 * CYCLIC_OBJECTS_PER_ROLL


# -- a serving process freezes what survives each collection, and sweeps when idle ------------


class Node:
    pass


@pytest.fixture
def survivors(settings: Settings) -> Iterator[Survivors]:
    settings.FAST_PATH = {**settings.FAST_PATH, "gc": True}
    now = [1000.0]
    policy = Survivors(clock=lambda: now[0], watch_every=3600)  # the test sweeps, not the watcher
    policy.now = now  # type: ignore[attr-defined]
    policy.start()
    try:
        yield policy
    finally:
        policy.stop()
        gc.unfreeze()
        gc.collect()


def test_what_survives_a_young_collection_is_frozen(survivors: Survivors) -> None:
    kept = [Node() for _ in range(100)]
    frozen = gc.get_freeze_count()
    gc.collect(0)
    assert gc.get_freeze_count() >= frozen + len(kept)
    assert gc.get_count()[1] == 0  # nothing waits in the middle generation


def test_what_grew_since_a_sweep_is_measured_and_a_sweep_starts_again(survivors: Survivors) -> None:
    survivors.sweep()
    kept = [[n] for n in range(50_000)]
    assert survivors.grown() >= len(kept)
    survivors.sweep()
    assert abs(survivors.grown()) < 1_000


def test_a_frozen_object_is_still_freed_by_its_last_reference(survivors: Survivors) -> None:
    import weakref

    kept = Node()
    gone = weakref.ref(kept)
    gc.collect(0)  # kept is frozen now
    del kept
    assert gone() is None


def test_a_cycle_that_dies_after_its_freeze_waits_for_a_sweep(survivors: Survivors) -> None:
    import weakref

    cycle = Node()
    cycle.me = cycle  # type: ignore[attr-defined]
    gone = weakref.ref(cycle)
    gc.collect()  # alive: frozen with the rest
    del cycle
    gc.collect()
    assert gone() is not None  # out of every collection's sight
    assert survivors.sweep() >= 1
    assert gone() is None


def test_a_sweep_waits_for_an_idle_moment_or_for_too_much(survivors: Survivors) -> None:
    from tabletop.serving import gc as policy

    now = survivors.now  # type: ignore[attr-defined]
    survivors.blocks_at_sweep = sys.getallocatedblocks()
    assert not survivors.due()  # nothing new
    survivors.blocks_at_sweep = sys.getallocatedblocks() - policy.SWEEP_AFTER
    survivors.last_collection = now[0]
    assert not survivors.due()  # enough to sweep, but the process is busy
    now[0] += policy.IDLE_SECONDS
    assert survivors.due()  # and now idle
    survivors.last_collection = now[0]
    survivors.blocks_at_sweep = sys.getallocatedblocks() - policy.SWEEP_ANYWAY
    assert survivors.due()  # busy, but too much grew to wait


def test_the_servers_lifespan_starts_it_and_stops_it(settings: Settings) -> None:
    from asgiref.testing import ApplicationCommunicator

    from tabletop.serving import gc as policy

    settings.FAST_PATH = {**settings.FAST_PATH, "gc": True}

    async def lifespan() -> None:
        communicator = ApplicationCommunicator(Lifespan(), {"type": "lifespan"})
        await communicator.send_input({"type": "lifespan.startup"})
        assert await communicator.receive_output() == {"type": "lifespan.startup.complete"}
        assert policy._serving is not None
        assert policy._serving._after_collection in gc.callbacks
        await communicator.send_input({"type": "lifespan.shutdown"})
        assert await communicator.receive_output() == {"type": "lifespan.shutdown.complete"}
        assert policy._serving is None

    try:
        asyncio.run(lifespan())
    finally:
        serving_stopped()
        gc.unfreeze()


def test_switched_off_the_lifespan_leaves_the_collector_alone(settings: Settings) -> None:
    from tabletop.serving import gc as policy

    settings.FAST_PATH = {**settings.FAST_PATH, "gc": False}
    callbacks = list(gc.callbacks)
    serving_started()
    assert policy._serving is None
    assert gc.callbacks == callbacks


@pytest.mark.skipif(not settings.FAST_PATH["gc"], reason="FAST_PATH has gc off: the app leaves gc as it is")
def test_after_the_response_its_request_still_knows_its_user_and_its_form_its_fields(table: Table) -> None:
    # request.user reads the request through a weak reference, and a bound field holds its
    # form only weakly once the response is closed (tabletop/serving/cycles.py): whoever
    # still holds the request or the form reads them as before.
    from django.forms import BaseForm

    client = logged_in(table.player)
    response = client.post(reverse("rolls:campaign-new"), {"name": ""})
    assert response.status_code == 200  # the form again, with what to fix
    assert response.wsgi_request.user == table.player
    contexts = response.context if isinstance(response.context, list) else [response.context]
    forms = {id(v): v for c in contexts for v in c.flatten().values() if isinstance(v, BaseForm)}
    assert forms, "the refused campaign's page renders its form"
    for form in forms.values():
        for name in form.fields:
            assert form[name].form is form
        assert form.errors
