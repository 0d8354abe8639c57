"""``manage.py demo_campaign``: a campaign played through the real services, for every system;
its log holds together, its counts are those it prints, and its last line is its id."""

from __future__ import annotations

import io
import random
import re

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client

from rolls import demo as rolls_demo
from rolls import registry
from rolls.campaigns import services
from rolls.history.verify import verify_log
from rolls.models import LogEntry, Roll, Visibility
from rolls.play import services as play_services
from rolls.systems import RulesError
from rolls.systems.base import steps_of
from rolls.systems.sets import best_bid
from rolls.systems.sets import system as sets_engine
from tabletop.models import Campaign, PlaySession
from tests import factories
from tests.factories import logged_in

SUMMARY = re.compile(
    r"(?P<sessions>\d+) sessions, (?P<rolls>\d+) rolls \((?P<npc>\d+) by the GM, (?P<secret>\d+) secret, "
    r"(?P<blind>\d+) blind\), (?P<follow_ups>\d+) follow-ups, (?P<calls>\d+) calls, .*?"
    r"(?P<reveals>\d+) reveals, (?P<voids>\d+) voids; (?P<entries>\d+) log entries"
)


def demo(*args: str) -> list[str]:
    out = io.StringIO()
    call_command("demo_campaign", *args, stdout=out)
    return out.getvalue().splitlines()


@pytest.mark.django_db
@pytest.mark.parametrize("system", registry.slugs())
def test_it_plays_a_campaign_of_every_system(system: str) -> None:
    lines = demo("--system", system, "--rolls", "40", "--sessions", "3", "--characters", "3", "--seed", "5")
    campaign = Campaign.objects.get(pk=int(lines[-1]))
    assert campaign.system == system
    assert verify_log(campaign) is None
    said = SUMMARY.search(lines[0])
    assert said is not None, lines[0]
    rolls = Roll.objects.filter(campaign=campaign)
    assert int(said["rolls"]) == rolls.count() == 40
    assert int(said["npc"]) == rolls.filter(npc=True).count()
    assert int(said["secret"]) == rolls.filter(visibility=Visibility.SECRET).count()
    assert int(said["blind"]) == rolls.filter(visibility=Visibility.BLIND).count()
    assert int(said["voids"]) == rolls.filter(voided=True).count()
    assert int(said["reveals"]) == rolls.filter(revealed=True).count()
    log = LogEntry.objects.filter(campaign=campaign)
    assert int(said["follow_ups"]) == log.filter(kind=LogEntry.Kind.FOLLOW_UP).count()
    assert int(said["entries"]) == log.count() == campaign.last_seq
    assert int(said["calls"]) == campaign.calls.count() == log.filter(action="call").count()
    assert campaign.characters.count() == 3
    assert campaign.memberships.count() == 4  # the GM and a player for each character
    sessions = PlaySession.objects.filter(campaign=campaign)
    assert int(said["sessions"]) == sessions.count() == 3
    assert not sessions.filter(ended__isnull=True).exists()
    actions = set(log.values_list("action", flat=True))
    assert {"session-start", "session-end", "mystery-start", "call", "call-closed"} <= actions
    # Every roll has the intent a player gave it, or the GM's for an NPC.
    assert not rolls.filter(intent="").exists()


@pytest.mark.django_db
def test_it_plays_follow_ups_secret_and_blind_rolls_and_the_gms_marks() -> None:
    lines = demo("--rolls", "120", "--sessions", "4", "--characters", "4", "--seed", "2")
    campaign = Campaign.objects.get(pk=int(lines[-1]))
    actions = set(LogEntry.objects.filter(campaign=campaign).values_list("action", flat=True))
    assert {"push", "luck", "roll-void", "roll-reveal"} <= actions
    rolls = Roll.objects.filter(campaign=campaign)
    assert rolls.filter(visibility=Visibility.SECRET).exists()
    assert rolls.filter(visibility=Visibility.BLIND).exists()
    assert rolls.filter(npc=True, target__isnull=False).exists()


@pytest.mark.django_db
def test_the_same_seed_plays_the_same_campaign() -> None:
    def played(seed: str) -> list[tuple[str, str, object, str]]:
        campaign = int(demo("--rolls", "30", "--sessions", "2", "--seed", seed)[-1])
        entries = LogEntry.objects.filter(campaign_id=campaign).order_by("seq")
        return [(e.kind, e.action, e.state, e.text) for e in entries]

    assert played("9") == played("9")
    assert played("9") != played("10")


@pytest.mark.django_db
def test_its_printed_logins_work() -> None:
    lines = demo("--rolls", "3", "--sessions", "1", "--characters", "1")
    logins = [line.split() for line in lines if " password " in line]
    assert [words[-3] for words in logins] == ["demo-gm", "demo-player1"]
    campaign = int(lines[-1])
    for words in logins:
        client = Client()
        assert client.login(username=words[-3], password=words[-1])
        assert client.get(f"/c/{campaign}/history/").status_code == 200
    assert any(line.endswith(f"/c/{campaign}/history/") for line in lines)


@pytest.mark.django_db
def test_a_second_demo_gets_its_own_people() -> None:
    first = int(demo("--rolls", "2", "--sessions", "1", "--characters", "1")[-1])
    second = int(demo("--rolls", "2", "--sessions", "1", "--characters", "1")[-1])
    assert Campaign.objects.get(pk=first).gm.username == "demo-gm"
    assert Campaign.objects.get(pk=second).gm.username == "demo2-gm"


@pytest.mark.django_db
@pytest.mark.parametrize(
    "args",
    [["--system", "chess"], ["--sessions", "0"], ["--characters", "0"], ["--rolls", "-1"]],
)
def test_it_refuses_what_it_cannot_play(args: list[str]) -> None:
    with pytest.raises(CommandError):
        demo(*args)
    assert not Campaign.objects.exists()


@pytest.mark.django_db
def test_a_sets_demo_bids_every_roll_that_can_bid_and_names_no_helper() -> None:
    """SET-5: an unbid roll has no result, so a table bids every roll with a set, the GM's
    secret ones and blind ones (unseen) too. sets counts helpers on the form (SET-11): a named
    helper would print sixes' "shares the outcome" rule on the card."""
    # A seed whose secret and blind rolls include some with a set (few are secret at all).
    played = rolls_demo.create(rolls_demo.Plan(system="sets", rolls=90, sessions=3, seed=1, passwords=False))
    rolls = list(Roll.objects.filter(campaign=played.campaign))
    assert len(rolls) == 90
    can_bid = [roll for roll in rolls if best_bid(roll.current_state()["steps"][0]["dice"]) is not None]
    unbid = [roll.pk for roll in can_bid if not steps_of(roll.current_state(), "bid")]
    assert can_bid and unbid == []
    assert {roll.visibility for roll in can_bid} >= {Visibility.PUBLIC, Visibility.SECRET, Visibility.BLIND}
    # Against a Bar the usual bid meets it whenever the dice can: the record's results after the
    # follow-ups are those of the first throws.
    for roll in can_bid:
        state = roll.current_state()
        bar = state["request"]["bar_size"]
        if bar is not None and not roll.voided:
            assert roll.outcome == ("success" if sets_engine.evaluate(state).success else "failure")
    assert not any(roll.helper_name for roll in rolls)
    gm = logged_in(played.gm.user)
    page = gm.get(f"/c/{played.campaign.pk}/history/").content.decode()
    assert "shares the outcome" not in page


@pytest.mark.django_db
def test_a_sets_roll_refuses_a_named_helper() -> None:
    table = factories.table("sets", sheet=factories.sheet_of("sets"))
    friend = services.character_create(
        campaign=table.campaign, owner=table.player, name="Bo", sheet=factories.sheet_of("sets", "Bo")
    )
    form = registry.table("sets").roll_form(
        factories.posted(factories.roll_data("sets", table.character)), character=table.character
    )
    assert form.is_valid()
    with pytest.raises(RulesError, match="counted on the roll form"):
        play_services.roll_create(
            character=table.character,
            roller=table.player,
            data=form.engine_data(),
            helper=friend,
            intent="",
            rng=random.Random(1),
        )
    assert not Roll.objects.exists()


@pytest.mark.django_db
def test_the_demos_gm_strikes_no_friends_help() -> None:
    """SIX-15: striking a friend's help is the GM's call, which the demo's GM never makes;
    only what waits on the GM (a doubles miracle asked for) is answered at once."""
    played = rolls_demo.create(rolls_demo.Plan(system="sixes", rolls=80, sessions=2, seed=3, passwords=False))
    helped = Roll.objects.filter(campaign=played.campaign).exclude(helper_name="")
    actions = set(LogEntry.objects.filter(campaign=played.campaign).values_list("action", flat=True))

    assert helped.exists()
    assert "strike" not in actions
