"""The GM's waiting panel: what it shows, what redraws it, and what drawing it costs.

A seeded walk plays each system's table (players' rolls, open and blind; the GM's rolls, open,
secret and against a character; every follow-up the cards offer; corrections, a new Mystery or
Adventure, a voided roll, a new session) and after every step checks that the panel is drawn
exactly as the card-by-card way drew it, and that whenever it changed, the entries of that step
told the GM's socket to redraw it (``rolls.sight.audience.delivery``), or to put the GM's new roll on
top of the panel it drew, which then is the panel drawn afresh."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace

import pytest
from django.db import connection
from django.template.loader import render_to_string
from django.test.utils import CaptureQueriesContext

from rolls import registry
from rolls.campaigns import services as table_services
from rolls.history import marks
from rolls.live import feed
from rolls.live.feed import facts_of, next_viewer
from rolls.models import LogEntry, Roll, Visibility
from rolls.play import services
from rolls.play.npc import NpcRollForm
from rolls.sight import panels
from rolls.sight.audience import GmPanel, Panel, Viewer, delivery
from rolls.sight.cards import ACTIONABLE, Card, _default, latest_card
from rolls.systems import RulesError
from rolls.tables.waits import Waits
from tabletop.models import Character, Membership
from tests import factories

pytestmark = pytest.mark.django_db

SYSTEMS = ("sixes", "kinds", "doubles", "sets", "stars")
STEPS = 60


def panel_as_it_was(campaign_id: int, membership: Membership) -> list[Card]:
    """The panel as it was drawn before it was one query: the latest card of each of the
    session's recent rolls, read one by one."""
    cards = []
    rolls = Roll.objects.filter(campaign_id=campaign_id, session__ended__isnull=True)
    for roll in rolls.select_related("character", "target", "campaign").order_by("-id")[: panels.PANEL_ROLLS]:
        card = latest_card(roll, place="gm", membership=membership)
        settles = roll.visibility == Visibility.BLIND and any(not b.follow_up.spends for b in card.follow_ups)
        if card.follow_ups and (roll.npc or settles or any(b.follow_up.gm_only for b in card.follow_ups)):
            cards.append(card)
    return cards


def as_known(panel: GmPanel) -> GmPanel:
    """What a panel says of itself, with any room beyond its window the same: a panel that
    shows nothing has room for every roll, however many came since it was drawn."""
    return replace(panel, room=min(panel.room, panels.PANEL_ROLLS))


def markup(cards: list[Card]) -> str:
    return render_to_string("rolls/_gm_panel.html", {"gm_cards": cards})


class Walk:
    """A table of ``system`` with a GM and two players, played at random (seeded)."""

    def __init__(self, system: str, seed: int) -> None:
        self.rng = random.Random(seed)
        self.gm = factories.user("gm")
        self.campaign = factories.campaign(self.gm, system=system)
        self.players = [factories.user(f"player{n}") for n in (1, 2)]
        self.characters: list[Character] = []
        for n, player in enumerate(self.players):
            factories.member(self.campaign, player)
            self.characters.append(
                table_services.character_create(
                    campaign=self.campaign, owner=player, name=f"Hero{n}", sheet=factories.sheet_of(system)
                )
            )
        table_services.session_start(campaign=self.campaign, actor=self.gm)  # type: ignore[arg-type]
        self.adapter = registry.table(system)
        self.applied: Counter[str] = Counter()

    def gm_membership(self) -> Membership:
        return Membership.objects.select_related("campaign", "user").get(campaign=self.campaign, is_gm=True)

    def step(self) -> None:
        choice = self.rng.random()
        try:
            if choice < 0.25:
                self.player_roll()
            elif choice < 0.45:
                self.npc_roll()
            elif choice < 0.9:
                self.follow_up()
            else:
                self.gm_event()
        except RulesError:
            pass  # refused: nothing written, the panel must not have changed either

    def player_roll(self) -> None:
        character = Character.objects.select_related("campaign").get(pk=self.rng.choice(self.characters).pk)
        data = factories.roll_data(self.campaign.system, character)
        form = self.adapter.roll_form(factories.posted(data), character=character)
        assert form.is_valid(), form.errors
        services.roll_create(
            character=character,
            roller=character.owner,
            data=form.engine_data(),
            helper=None,
            intent="",
            rng=self.rng,
            blind=self.rng.random() < 0.3,
        )

    def npc_roll(self) -> None:
        self.campaign.refresh_from_db()
        form = NpcRollForm(factories.posted(factories.npc_baseline(self.campaign)), campaign=self.campaign)
        assert form.is_valid(), form.errors
        services.npc_roll_create(
            campaign=self.campaign,
            gm=self.gm,  # type: ignore[arg-type]
            name="Goon",
            request=form.engine_request(),
            secret=self.rng.random() < 0.3,
            target=self.rng.choice([None, *self.characters]),
            intent="",
            rng=self.rng,
        )

    def follow_up(self) -> None:
        """A follow-up someone is offered on one of the session's latest rolls, as its card
        offers it to them (the GM's, the roller's, the target's)."""
        rolls = list(Roll.objects.filter(campaign=self.campaign).order_by("-id")[:6])
        memberships = list(
            Membership.objects.select_related("campaign", "user").filter(campaign=self.campaign)
        )
        asked = [
            (roll, membership, place) for roll in rolls for membership in memberships for place in ACTIONABLE
        ]
        self.rng.shuffle(asked)
        offers = []
        for roll, membership, place in asked[:12]:
            card = latest_card(roll, place=place, membership=membership)
            offers += [(roll, membership, card, button) for button in card.follow_ups]
        if not offers:
            return
        # The follow-up applied least so far: the walk tries each one the rules offer.
        fewest = min(self.applied[button.action] for _, _, _, button in offers)
        roll, membership, card, button = self.rng.choice(
            [offer for offer in offers if self.applied[offer[3].action] == fewest]
        )
        self.applied[button.action] += 1
        params = {param.name: _default(param) for param in button.follow_up.params}
        services.follow_up_apply(
            roll=roll,
            actor=membership.user,
            action=button.action,
            params=params,
            rng=self.rng,
            by_gm=membership.is_gm,
            unseen=card.hidden,
        )

    def gm_event(self) -> None:
        choice = self.rng.randrange(4)
        if choice == 0 and self.adapter.corrections:
            correction = self.rng.choice(self.adapter.corrections)
            character = Character.objects.select_related("campaign").get(
                pk=self.rng.choice(self.characters).pk
            )
            value = max(0, getattr(character, correction.field) + self.rng.choice((-30, -1, 1, 30)))
            table_services.resources_correct(
                character=character,
                gm=self.gm,  # type: ignore[arg-type]
                values={correction.field: value},
            )
        elif choice == 1:
            self.campaign.refresh_from_db()
            table_services.mystery_start(campaign=self.campaign, actor=self.gm)  # type: ignore[arg-type]
        elif choice == 2:
            roll = Roll.objects.filter(campaign=self.campaign, voided=False).order_by("-id").first()
            if roll is not None:
                marks.roll_void(roll=roll, gm=self.gm)
        else:
            self.campaign.refresh_from_db()
            table_services.session_end(campaign=self.campaign, actor=self.gm)  # type: ignore[arg-type]
            table_services.session_start(campaign=self.campaign, actor=self.gm)  # type: ignore[arg-type]


@pytest.mark.parametrize("remembered", [False, True], ids=["new-page", "socket-remembers"])
@pytest.mark.parametrize("system", SYSTEMS)
def test_the_panel_is_drawn_as_before_and_redrawn_whenever_it_changes(system: str, remembered: bool) -> None:
    """``remembered``: the GM's socket knows how many new rolls the panel it drew last takes
    before it may change (``rolls.live.feed.Drawn``), and passes over those that cannot."""
    walk = Walk(system, seed=SYSTEMS.index(system))
    gm = walk.gm_membership()
    cards, drawn = panels.gm_panel_and_room(walk.campaign.pk, gm)
    before = markup(cards)
    drawn = drawn if remembered else GmPanel()
    last_seq = (
        LogEntry.objects.filter(campaign=walk.campaign).order_by("-seq").values_list("seq", flat=True)[0]
    )
    shown = skipped = skipped_follow_ups = newest = put_on_top = 0
    for _ in range(STEPS):
        walk.step()
        entries = LogEntry.objects.filter(campaign=walk.campaign, seq__gt=last_seq).select_related(
            "roll", "roll__character", "roll__target"
        )
        viewer = Viewer.of(gm, waits=walk.adapter.gm_waits, gm_panel=drawn)
        touched = Panel.NONE
        follow_ups = False
        for entry in entries:
            facts = facts_of(entry)
            follow_ups |= facts.follow_up
            sent = delivery(facts, viewer)
            touched |= sent.panels
            viewer = next_viewer(viewer, gm, entry, facts, sent)
            last_seq = entry.seq
        gm = walk.gm_membership()
        cards, fresh = panels.gm_panel_and_room(walk.campaign.pk, gm)
        now = markup(cards)
        assert now == markup(panel_as_it_was(walk.campaign.pk, gm))
        assert panels.gm_panel_markup(fresh) == now  # a socket's markup is the page's
        if touched & Panel.GM_NEWEST and not touched & Panel.GM_WAITING:
            # The GM's new roll: the panel as drawn, its card on top if it waits there, is the
            # panel drawn afresh, and knows what it shows as a fresh one would.
            assert panels.gm_panel_markup(viewer.gm_panel) == now
            assert as_known(viewer.gm_panel) == as_known(fresh)
            newest += 1
            put_on_top += len(viewer.gm_panel.cards) > len(drawn.cards)
            drawn, before = viewer.gm_panel, now
            shown += 'class="card' in now
            continue
        if now != before:
            assert touched & Panel.GM_WAITING, f"the panel changed and was not redrawn:\n{before}\n{now}"
        if entries and not touched & Panel.GM_WAITING:
            skipped += 1
            skipped_follow_ups += follow_ups
            drawn = viewer.gm_panel
        else:
            # Redrawn (or nothing happened): the page shows the panel as it is now.
            drawn = fresh if remembered else GmPanel()
            before = now
        shown += 'class="card' in now
    if walk.adapter.gm_waits:
        assert shown, "the walk never had anything waiting on the GM's panel"
        if remembered:
            assert skipped, "the socket never passed over a roll that left its panel as it was"
            assert newest, "the socket never drew the panel again from what it drew before"
            if walk.adapter.gm_waits & Waits.NPC:
                # Sets: the GM's own roll waits there with its bids; the socket put it on top.
                assert put_on_top, "the GM's new roll never went on top of the panel as drawn"
            # Sets asks a decision only of a new roll that names help (SET-11), never of a
            # follow-up: its walk's follow-ups are the GM's own and blind rolls', on the panel.
            if walk.adapter.gm_waits & (Waits.DECISIONS | Waits.SHEETS) and system != "sets":
                # Doubles and stars: where any follow-up may change the panel, a socket that
                # knows what it shows passes over those that touch none of it.
                assert skipped_follow_ups, "the socket never passed over a follow-up"
    else:
        # Nothing ever waits in this system, so nothing redraws the panel at all.
        assert shown == 0
        assert skipped > STEPS // 2


@pytest.mark.parametrize("system", ["doubles", "sets", "stars"])
def test_drawing_the_panel_is_one_query(system: str) -> None:
    walk = Walk(system, seed=7)
    for _ in range(STEPS):
        walk.step()
    gm = walk.gm_membership()
    with CaptureQueriesContext(connection) as queries:
        cards = panels.gm_panel(walk.campaign.pk, gm)
        markup(cards)
    assert len(queries) == 1, [query["sql"] for query in queries]


@pytest.mark.parametrize("system", ["sixes", "kinds"])
def test_a_system_where_nothing_waits_reads_nothing_for_the_panel(system: str) -> None:
    walk = Walk(system, seed=3)
    for _ in range(10):
        walk.step()
    gm = walk.gm_membership()
    with CaptureQueriesContext(connection) as queries:
        assert panels.gm_panel(walk.campaign.pk, gm) == []
    assert len(queries) == 0


def test_a_waiting_roll_leaves_the_panel_room_for_the_rolls_before_it_is_pushed_out() -> None:
    """Sets: the GM's roll with a bid left waits on the panel, the latest of its window: the
    panel takes PANEL_ROLLS - 1 players' open rolls as it is, and the next one pushes it out."""
    walk = Walk("sets", seed=1)
    gm = walk.gm_membership()
    for seed in range(100):  # the GM's dice, until they make a set to bid
        walk.rng = random.Random(seed)
        walk.npc_roll()
        cards, drawn = panels.gm_panel_and_room(walk.campaign.pk, gm)
        if cards and cards[0].roll == Roll.objects.filter(campaign=walk.campaign).latest("id"):
            break
    assert cards[0].roll.npc
    room = drawn.room
    assert room == panels.PANEL_ROLLS - 1
    viewer = Viewer.of(gm, waits=walk.adapter.gm_waits, gm_panel=drawn)
    panel = markup(cards)
    character = walk.characters[0]
    for _ in range(room):
        facts = facts_of(open_roll(walk, character))
        assert not delivery(facts, viewer).panels & Panel.GM_WAITING
        viewer = viewer.after(facts)
        assert markup(panels.gm_panel(walk.campaign.pk, gm)) == panel
    facts = facts_of(open_roll(walk, character))
    assert delivery(facts, viewer).panels & Panel.GM_WAITING
    assert markup(panels.gm_panel(walk.campaign.pk, gm)) != panel


def open_roll(walk: Walk, character: Character) -> LogEntry:
    """A player's open roll (not blind), and its entry."""
    sheet = Character.objects.select_related("campaign").get(pk=character.pk)
    form = walk.adapter.roll_form(factories.posted(factories.roll_data("sets", sheet)), character=sheet)
    assert form.is_valid(), form.errors
    roll = services.roll_create(
        character=sheet, roller=sheet.owner, data=form.engine_data(), helper=None, intent="", rng=walk.rng
    )
    return LogEntry.objects.select_related("roll", "roll__character", "roll__target").get(
        roll=roll, kind="roll"
    )


def test_the_gms_socket_puts_their_new_roll_on_top_of_the_panel_without_reading_it() -> None:
    """Sets: the GM's socket knows the panel it drew, so the GM's own roll costs it the batch's
    one read and that roll's card, not the panel drawn again card by card (``Panel.GM_NEWEST``);
    the panel it sends is the one drawn afresh."""
    walk = Walk("sets", seed=2)
    for _ in range(20):
        walk.step()
    gm = walk.gm_membership()
    drawn = feed.Drawn()
    since = LogEntry.objects.filter(campaign=walk.campaign).latest("seq").seq
    walk.player_roll()  # the socket's first batch draws the panel whole
    html, since = feed.render_since(gm, since, drawn=drawn)
    assert drawn.gm_panel.known and panels.gm_panel_markup(drawn.gm_panel) in html
    put_on_top = 0
    for seed in range(40):
        if drawn.gm_panel.room < 2:
            break
        walk.rng = random.Random(seed)
        walk.npc_roll()
        before, gm = len(drawn.gm_panel.cards), walk.gm_membership()
        with CaptureQueriesContext(connection) as queries:
            html, since = feed.render_since(gm, since, drawn=drawn)
        assert len(queries) == 1, [query["sql"] for query in queries]  # the batch, nothing more
        fresh = panels.gm_panel_and_room(walk.campaign.pk, gm)[1]
        assert panels.gm_panel_markup(fresh) in html
        assert as_known(drawn.gm_panel) == as_known(fresh)
        put_on_top += len(drawn.gm_panel.cards) > before
    assert put_on_top, "no roll of the GM's waited on the panel"
