"""Hostile input: every field of every form, and every id in every URL, sent with hostile values
by each kind of visitor, never makes the server answer 500, and a refused request changes
nothing.

Nothing here lists a field or a URL by hand. The URLs come from the URLconf; the forms from
the registry (each system's sheet and roll form, its corrections), from the GM's quick roll
and from the forms the account views use; the follow-ups from what the engine offers on a
real roll; and the names a view reads straight off the request (``also``, ``place``,
``character``...) from the view's own source. A new URL, form, field or system is fuzzed
without touching this file, and a view that reads its request in a way this file cannot see
fails it until it is told which form that is.
"""

from __future__ import annotations

import ast
import inspect
import re
import textwrap
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from django import forms
from django.apps import apps
from django.contrib import messages
from django.contrib.auth.models import AbstractBaseUser
from django.db import connection
from django.http import QueryDict
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rolls import registry
from rolls.bridges import tokens as feed_tokens
from rolls.bridges.forms import FeedTokenForm
from rolls.campaigns import services as campaigns
from rolls.campaigns.forms import CampaignForm, CorrectionForm, LuckForAbilityForm
from rolls.contests import services as contests
from rolls.contests.sides import Side
from rolls.history.browse import HistoryFilters
from rolls.models import Contest, ContestSide, FeedToken, Roll, RollCall
from rolls.play import services
from rolls.play.calls import CallBuilder
from rolls.play.npc import NpcRollForm
from rolls.views import confirm
from tabletop.access import MAX_ID
from tabletop.forms import ClaimAccountForm, DisplayNameForm, SignupForm
from tabletop.models import Ban, Campaign, Character, Membership, PlaySession
from tests import factories
from tests.factories import (
    a_roll,
    an_npc_roll,
    form_baseline,
    npc_baseline,
    offered,
    posted,
    roll_data,
    sheet_of,
)

pytestmark = pytest.mark.django_db

# -- hostile values ---------------------------------------------------------------------------------

SAMPLES = [
    "",
    "0",
    "-1",
    "1e9",
    str(MAX_ID),
    str(MAX_ID + 1),
    "9" * 30,
    "nan",
    "inf",
    "1.5",
    "true",
    "null",
    "[]",
    "{}",
    "<script>alert(1)</script>",
    "' OR 1=1 --",
    "\x00",
    "\u202eevil",
    "x" * 3000,
    "skill-99",
    "skill--1",
    "Body",
    "2,3",
    "6 6",
]
# Two values under one name: the views that keep a repeated name as a list (a follow-up's
# ticked dice, a call's values) see a list where they may expect one value.
TWICE = ["1", "2"]
HOSTILE = st.one_of(
    st.sampled_from(SAMPLES),
    st.text(max_size=30),
    st.integers(min_value=-(2**70), max_value=2**70).map(str),
    st.lists(st.sampled_from(SAMPLES), min_size=2, max_size=3),
)
# A number past any column, and past what SQLite can bind.
SWEEP_ALWAYS = "9" * 30
# What the sweep sends in one field, the others as the form accepts them: a different value
# for each field, in turn.
ONE_AT_A_TIME: list[Any] = [SWEEP_ALWAYS, TWICE, *SAMPLES]
# What the sweep sends in every field at once.
ALL_AT_ONCE: list[Any] = [SWEEP_ALWAYS, "\x00", "x" * 3000, TWICE, "\u202eevil", ""]


# -- the world a request lands in ----------------------------------------------------------------------


@dataclass
class World:
    """A table of one system, with a roll, an NPC roll against its character and an open call,
    the people who visit it, and a second campaign whose ids must reach nothing here."""

    system: str
    campaign: Campaign
    gm: AbstractBaseUser
    player: AbstractBaseUser
    character: Character
    roll: Roll
    npc: Roll
    call: RollCall
    contest: Contest  # the character against someone without a sheet, open
    other: dict[str, int]  # the other campaign's ids, by URL parameter name
    clients: dict[str, Client] = field(default_factory=dict)
    rows: dict[str, list[str]] | None = None  # the snapshot after the last request

    def client(self, persona: str) -> Client:
        if persona == "fresh":  # nobody signed in, each time: signing up or joining twice works
            return Client()
        return self.clients[persona]

    def ids(self) -> dict[str, str]:
        """This table's own value of each URL parameter."""
        member = Membership.objects.filter(campaign=self.campaign, is_gm=False).order_by("pk").first()
        ban = Ban.objects.filter(campaign=self.campaign).order_by("pk").first()
        return {
            "pk": str(self.campaign.pk),
            "character_id": str(self.character.pk),
            "roll_id": str(self.roll.pk),
            "call_id": str(self.call.pk),
            "member_id": str(member.pk if member else self.gm.pk),
            "ban_id": str(ban.pk if ban else 0),
            "session_id": str(self.roll.session_id),
            "contest_id": str(self.contest.pk),
            "side_id": str(self.contest.sides.get(position=0).pk),
            "campaign_id": str(self.campaign.pk),
            "token_id": str(
                FeedToken.objects.filter(campaign=self.campaign).values_list("pk", flat=True).first() or 0
            ),
            "token": self.campaign.join_token,
            "slug": self.system,
        }


def build_world(system: str) -> World:
    gm, player, bystander = factories.user(), factories.user(), factories.user()
    campaign = campaigns.campaign_create(gm=gm, name="The Loop", system=system, display_name="GM")  # type: ignore[arg-type]
    factories.member(campaign, player)
    factories.member(campaign, bystander)
    character = campaigns.character_create(
        campaign=campaign,
        owner=player,  # type: ignore[arg-type]
        name="Olle",
        sheet=sheet_of(system),
    )
    campaigns.session_start(campaign=campaign, actor=gm)  # type: ignore[arg-type]
    character.refresh_from_db()
    feed_tokens.token_create(campaign=campaign, name="Foundry bridge")
    call = services.call_create(
        campaign=campaign,
        gm=gm,  # type: ignore[arg-type]
        characters=[character],
        data=roll_data(system, character),
        label="a call",
    )
    world = World(
        system=system,
        campaign=campaign,
        gm=gm,
        player=player,
        character=character,
        roll=a_roll(system, character, player),
        npc=an_npc_roll(campaign, gm, character),
        call=call,
        contest=a_contest(campaign, gm, character),
        other=other_campaign(),
    )
    outsider = factories.user()
    for persona, user in (("gm", gm), ("player", player), ("bystander", bystander), ("outsider", outsider)):
        world.clients[persona] = factories.logged_in(user)
    world.clients["anonymous"] = Client()
    return world


def a_contest(campaign: Campaign, gm: Any, character: Character) -> Contest:
    """An open contest: the character against someone without a sheet. Through the services
    where the system plays contests; as a row otherwise, whose every action is refused."""
    system = registry.engine(campaign.system)
    adapter = registry.table(campaign.system)
    form = adapter.roll_form(posted(roll_data(campaign.system, character)), character=character)
    assert form.is_valid(), form.errors
    mine = {**form.engine_data(), "helper": False}
    theirs = NpcRollForm(posted(npc_baseline(campaign)), campaign=campaign)
    assert theirs.is_valid()
    npc = system.request_dict(theirs.engine_request())
    if system.plays_contests:
        return contests.contest_open(
            campaign=campaign,
            opener=gm,
            sides=[Side(character, mine), Side(None, npc, name="Guard")],
            intent="",
        )
    contest = Contest.objects.create(
        campaign=campaign, session=campaign.open_session(), system=campaign.system, opened_by=gm
    )
    contest.sides.create(position=0, character=character, name=character.name, data=mine)
    contest.sides.create(position=1, name="Guard", npc=True, data=npc)
    return contest


def other_campaign() -> dict[str, int]:
    gm, player = factories.user(), factories.user()
    campaign = factories.campaign(gm, name="Elsewhere")
    membership = factories.member(campaign, player)
    character = factories.character(campaign, player, name="Stranger")
    campaigns.session_start(campaign=campaign, actor=gm)  # type: ignore[arg-type]
    character.refresh_from_db()
    roll = a_roll("sixes", character, player)
    call = services.call_create(
        campaign=campaign,
        gm=gm,  # type: ignore[arg-type]
        characters=[character],
        data=roll_data("sixes", character),
        label="a call",
    )
    removed = factories.member(campaign, factories.user())
    campaigns.member_remove(campaign=campaign, actor=gm, membership=removed)  # type: ignore[arg-type]
    return {
        "pk": campaign.pk,
        "character_id": character.pk,
        "roll_id": roll.pk,
        "call_id": call.pk,
        "member_id": membership.pk,
        "ban_id": Ban.objects.get(campaign=campaign).pk,
        "session_id": roll.session_id,
        "contest_id": (contest := a_contest(campaign, gm, character)).pk,
        "side_id": contest.sides.get(position=0).pk,
        "campaign_id": campaign.pk,
        "token_id": feed_tokens.token_create(campaign=campaign, name="Theirs")[0].pk,
    }


# -- what a refused request must leave as it was ---------------------------------------------------------

SNAPSHOT_MODELS = [
    model
    for model in apps.get_models(include_auto_created=True)
    if model._meta.app_label in ("rolls", "tabletop") or model._meta.label == "auth.User"
]


def snapshot() -> dict[str, list[str]]:
    """Every row of the app's tables (and the accounts), each as its values: plain SQL, read
    before and after each of some thousands of requests."""
    found: dict[str, list[str]] = {}
    with connection.cursor() as cursor:
        for model in SNAPSHOT_MODELS:
            cursor.execute(f"SELECT * FROM {connection.ops.quote_name(model._meta.db_table)}")
            found[model._meta.label] = sorted(map(repr, cursor.fetchall()))
    return found


def refused(response: Any) -> bool:
    """A 4xx, a form shown again with its errors, or a redirect with an error message."""
    if response.status_code >= 400:
        return True
    if response.status_code < 300 and (
        b'class="error' in response.content or b"errorlist" in response.content
    ):
        return True
    # Only the messages this request added: earlier ones wait in the session, unread.
    added = getattr(messages.get_messages(response.wsgi_request), "_queued_messages", [])
    return any(message.level >= messages.ERROR for message in added)


def send(world: World, persona: str, method: str, url: str, data: dict[str, Any], htmx: bool = False) -> None:
    """One request; a server error fails the test, and so does a refusal (or any GET) that
    changed something."""
    before = world.rows if world.rows is not None else snapshot()
    headers = {"HX-Request": "true"} if htmx else {}
    client = world.client(persona)
    response = (
        client.get(url, data, headers=headers) if method == "get" else client.post(url, data, headers=headers)
    )
    assert response.status_code < 500, (method, url, persona, data, response.status_code)
    # One read of every table per request: what this one left is the next one's "before".
    world.rows = snapshot()
    if method == "get" or refused(response):
        assert world.rows == before, (method, url, persona, data, response.status_code)


# -- the URLconf ------------------------------------------------------------------------------------------

# Which table each integer in a URL names: a URL with an integer this does not know fails
# test_every_url_parameter_is_known, so its ids get fuzzed as soon as it exists.
ID_PARAMETERS = {
    "pk": Campaign,
    "character_id": Character,
    "roll_id": Roll,
    "call_id": RollCall,
    "member_id": Membership,
    "ban_id": Ban,
    "session_id": PlaySession,
    "contest_id": Contest,
    "side_id": ContestSide,
    "campaign_id": Campaign,  # the feed's stream: a key, no login
    "token_id": FeedToken,
}
PARAMETER = re.compile(r"<(?:(?P<converter>[^>:]+):)?(?P<name>[^>]+)>")


@dataclass(frozen=True)
class Route:
    name: str  # "rolls:roll-create"
    route: str  # "c/<int:pk>/characters/<int:character_id>/roll/"
    callback: Callable[..., Any]

    def path(self, values: dict[str, str]) -> str:
        return "/" + PARAMETER.sub(lambda match: values[match["name"]], self.route)

    def parameters(self) -> list[tuple[str, str]]:
        """(converter, name) of each parameter of the route."""
        return [(match["converter"] or "str", match["name"]) for match in PARAMETER.finditer(self.route)]


def routes() -> list[Route]:
    found: list[Route] = []

    def walk(patterns: list[Any], prefix: str, namespace: str) -> None:
        for pattern in patterns:
            if isinstance(pattern, URLResolver):
                inner = ":".join(part for part in (namespace, pattern.namespace or "") if part)
                walk(pattern.url_patterns, prefix + str(pattern.pattern), inner)
            elif isinstance(pattern, URLPattern):
                name = f"{namespace}:{pattern.name}" if namespace else str(pattern.name)
                found.append(Route(name, prefix + str(pattern.pattern), pattern.callback))

    walk(get_resolver().url_patterns, "", "")
    return found


ROUTES = {route.name: route for route in routes()}


# Helpers that read a field off the request for the view that calls them with it.
READ_BY_HELPERS = {"confirmed": {confirm.FIELD}}


def request_reads(callback: Callable[..., Any]) -> tuple[set[str], bool]:
    """The names a view reads one by one off ``request.POST``/``request.GET`` (``.get("x")``,
    ``.getlist("x")``), and whether it hands the request's data on whole (to a form, or
    ``.lists()``). A class-based view hands it to its ``form_class``."""
    view_class = getattr(callback, "view_class", None)
    if view_class is not None:
        return set(), getattr(view_class, "form_class", None) is not None
    try:
        source = textwrap.dedent(inspect.getsource(inspect.unwrap(callback)))
    except (OSError, TypeError):
        return set(), False
    names: set[str] = set()
    whole = False
    tree = ast.parse(source)
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in READ_BY_HELPERS
            and any(isinstance(arg, ast.Name) and arg.id == "request" for arg in node.args)
        ):
            names |= READ_BY_HELPERS[node.func.id]
        if not (
            isinstance(node, ast.Attribute)
            and node.attr in ("POST", "GET")
            and isinstance(node.value, ast.Name)
            and node.value.id == "request"
        ):
            continue
        parent = parents.get(node)
        call = parents.get(parent) if parent is not None else None
        if (
            isinstance(parent, ast.Attribute)
            and parent.attr in ("get", "getlist")
            and isinstance(call, ast.Call)
            and call.args
            and isinstance(call.args[0], ast.Constant)
            and isinstance(call.args[0].value, str)
        ):
            names.add(call.args[0].value)
        else:
            whole = True
    return names, whole


# -- the forms each view reads, and who may send them ----------------------------------------------------


@dataclass
class Target:
    """One way to reach a view's input: who sends it, how, the fields and a request it accepts."""

    route: str
    persona: str
    method: str
    fields: list[str]
    baseline: dict[str, Any]
    id_fields: set[str]
    url_values: dict[str, str] = field(default_factory=dict)


def fields_of(form: forms.Form) -> tuple[list[str], set[str]]:
    """A form's field names, and those holding an id (a model choice, or a number as big as
    an id column takes)."""
    ids = {
        name
        for name, each in form.fields.items()
        if isinstance(each, forms.ModelChoiceField)
        or (isinstance(each, forms.IntegerField) and (each.max_value or 0) >= MAX_ID)
    }
    return list(form.fields), ids


def followup_fields(roll: Roll) -> tuple[list[str], dict[str, Any]]:
    """Every name the follow-ups offered on ``roll`` take, and a request for the first one."""
    names: list[str] = []
    baseline: dict[str, Any] = {}
    for each in offered(roll):
        for param in each.params:
            if param.name not in names:
                names.append(param.name)
        if not baseline:
            baseline = {"action": each.action}
            for param in each.params:
                baseline[param.name] = param.choices[0] if param.choices else str(param.minimum)
    return names, baseline


def targets(world: World, name: str) -> list[Target]:
    """The ways to send input to the view of the URL ``name``."""
    adapter = registry.table(world.system)
    character = world.character
    route = ROUTES[name]
    raw, _ = request_reads(route.callback)

    def target(persona: str, method: str, form: forms.Form | None, **kwargs: Any) -> Target:
        form_fields, ids = fields_of(form) if form is not None else ([], set())
        baseline = {**(form_baseline(form) if form is not None else {}), **kwargs.pop("baseline", {})}
        extra = kwargs.pop("extra", [])
        return Target(
            name,
            persona,
            method,
            [*form_fields, *extra, *sorted(raw - set(form_fields) - set(extra))],
            baseline,
            ids | raw,
            **kwargs,
        )

    roll_form = adapter.roll_form(character=character, initial=adapter.roll_initial)
    if name in ("rolls:roll-create", "rolls:odds"):
        return [target("player", "get" if name == "rolls:odds" else "post", roll_form)]
    if name == "rolls:call-create":
        return [target("gm", "post", roll_form)]
    if name == "rolls:character-new":
        return [target("player", "post", adapter.sheet_form(), baseline={"name": "Kim"})]
    if name == "rolls:character-edit":
        initial = adapter.sheet_form.initial_from(character.name, character.sheet)
        return [target("player", "post", adapter.sheet_form(initial=initial))]
    if name == "rolls:character-correct":
        initial = {c.field: getattr(character, c.field) for c in adapter.corrections}
        return [target("gm", "post", CorrectionForm(corrections=adapter.corrections, initial=initial))]
    if name == "rolls:npc-odds":
        return [
            target("gm", "get", NpcRollForm(campaign=world.campaign), baseline=npc_baseline(world.campaign))
        ]
    if name == "rolls:calls-create":
        # The session page's call: the shared fields, and the one character's own, prefixed.
        builder = CallBuilder(world.campaign)
        shared = form_baseline(roll_form)
        prefix = f"c{character.pk}-"
        own = [prefix + each for each in adapter.call_traits if each in roll_form.fields]
        needs = [each for each in adapter.call_needs if each in roll_form.fields]
        baseline = {each: shared[each] for each in needs if each in shared}
        baseline |= {prefix + each: shared[each] for each in adapter.call_traits if each in shared}
        baseline |= {"ask": str(character.pk), "intent": "Climb"}
        assert builder.characters, "the world has a character to ask"
        made = target("gm", "post", None, extra=["ask", "intent", *needs, *own], baseline=baseline)
        return [Target(made.route, made.persona, made.method, made.fields, made.baseline, {"ask"})]
    if name in ("rolls:contest-create", "rolls:challenge-create", "rolls:contest-answer"):
        # Each character's side under its own prefix; the GM's also someone without a sheet.
        shared = form_baseline(roll_form)
        prefix = f"s{character.pk}-"
        own = [
            prefix + each for each in (*adapter.call_traits, *adapter.call_needs) if each in roll_form.fields
        ]
        baseline = {prefix + key: value for key, value in shared.items() if prefix + key in own}
        if name == "rolls:contest-create":
            npc_form = NpcRollForm(campaign=world.campaign, prefix="npc")
            npc = [f"npc-{each}" for each in ("name", *npc_form.flag_names)]
            # Two sides chosen (stars...), or several ticked (sixes, SIX-18): both sent.
            baseline |= {"first": str(character.pk), "second": "npc", "intent": "The race"}
            baseline |= {"sides": [str(character.pk), "npc"]}
            baseline |= {f"npc-{key}": value for key, value in npc_baseline(world.campaign).items()}
            baseline["npc-name"] = "Guard"
            made = target(
                "gm",
                "post",
                None,
                extra=[
                    "first",
                    "second",
                    "sides",
                    "kind",
                    "setup-need",
                    "setup-parts",
                    "setup-needed",
                    "intent",
                    *own,
                    *npc,
                ],
                baseline=baseline,
            )
            return [
                Target(
                    made.route,
                    made.persona,
                    made.method,
                    made.fields,
                    made.baseline,
                    {"first", "second", "sides"},
                )
            ]
        if name == "rolls:challenge-create":
            baseline |= {"opponent": str(character.pk), "intent": "A race"}
            made = target("player", "post", None, extra=["opponent", "intent", *own], baseline=baseline)
            return [Target(made.route, made.persona, made.method, made.fields, made.baseline, {"opponent"})]
        return [
            target("player", "post", None, extra=["accept", *own], baseline={**baseline, "accept": "yes"})
        ]
    if name == "rolls:contest-roll":
        return [target("player", "post", None, extra=["faces"], baseline={})]
    if name == "rolls:contest-act":
        # A step besides rolling, each system's own: sixes buys a success with a Condition
        # (SIX-19), doubles inflicts a Complication (DBL-9), sets bids in secret (SET-4).
        baselines = {
            "sixes": {"action": "buy", "condition": "Upset"},
            "doubles": {"action": "complication", "complication": "Disarmed"},
        }
        return [
            target(
                "player",
                "post",
                None,
                extra=["action", "condition", "complication", "dice"],
                baseline=baselines.get(world.system, {"action": "bid"}),
            )
        ]
    if name == "rolls:extended-create":
        baseline = {"dn": "6", "successes": "2", "failures": "2", "intent": "Climb"}
        return [target("gm", "post", None, extra=list(baseline), baseline=baseline)]
    if name == "rolls:extended-roll":
        shared = form_baseline(roll_form)
        prefix = f"s{character.pk}-"
        own = [
            prefix + each for each in (*adapter.call_traits, *adapter.call_needs) if each in roll_form.fields
        ]
        baseline = {prefix + key: value for key, value in shared.items() if prefix + key in own}
        return [target("player", "post", None, extra=["faces", *own], baseline=baseline)]
    if name in ("rolls:contest-close", "rolls:contest-cancel"):
        return [target("gm", "post", None, extra=["confirmed"], baseline={"confirmed": "yes"})]
    if name == "rolls:luck-ability":
        return [target("player", "post", LuckForAbilityForm(), baseline={"ability": "Amulet"})]
    if name == "rolls:npc-roll":
        return [
            target("gm", "post", NpcRollForm(campaign=world.campaign), baseline=npc_baseline(world.campaign))
        ]
    if name == "rolls:history":
        # The filters read whole by their form: as the player and as the GM (who has more).
        return [
            target(persona, "get", HistoryFilters(QueryDict(), membership=member))
            for persona, member in (
                ("player", Membership.objects.get(campaign=world.campaign, user=world.player)),
                ("gm", Membership.objects.get(campaign=world.campaign, user=world.gm)),
            )
        ]
    if name == "rolls:roll-helper-condition":
        # SIX-16: the GM's one step for a failed roll's roller and helper (refused on this roll,
        # which nobody helped: every hostile value must be refused as cleanly).
        return [target("gm", "post", None, extra=["condition"], baseline={"condition": "Upset"})]
    if name == "rolls:roll-helper-strike":
        # SIX-15: the GM strikes a helper (refused on this roll, which nobody helped).
        return [target("gm", "post", None, baseline={})]
    if name == "rolls:roll-note":
        return [target("gm", "post", None, baseline={"note": "The lock was trapped."})]
    if name == "rolls:follow-up":
        made: list[Target] = []
        for persona, roll in (("player", world.roll), ("gm", world.npc), ("gm", world.roll)):
            params, baseline = followup_fields(roll)
            made.append(
                target(
                    persona,
                    "post",
                    None,
                    extra=params,
                    baseline=baseline,
                    url_values={"roll_id": str(roll.pk)},
                )
            )
        return made
    if name == "rolls:feed-token-create":
        return [target("gm", "post", FeedTokenForm(), baseline={"name": "Owlbear bridge"})]
    if name == "rolls:campaign-new":
        return [target("gm", "post", CampaignForm())]
    if name == "rolls:join":
        return [target("fresh", "post", DisplayNameForm(), baseline={"display_name": "Kim"})]
    if name == "tabletop:signup":
        return [
            target(
                "fresh",
                "post",
                SignupForm(),
                baseline={
                    "username": "kim",
                    "password1": "a long passphrase",
                    "password2": "a long passphrase",
                },
            )
        ]
    if name == "tabletop:account":
        return [target("player", "post", ClaimAccountForm(world.player))]
    view_class = getattr(route.callback, "view_class", None)
    form_class = getattr(view_class, "form_class", None)
    if form_class is not None:  # Django's own views: the login
        return [target("fresh", "post", form_class())]
    if raw:  # no form, names read one by one (the history's filter and page)
        return [target("player", "get", None)]
    return []


# The URLs whose forms differ by dice system; the others are fuzzed on one system.
PER_SYSTEM = [
    "rolls:roll-create",
    "rolls:odds",
    "rolls:call-create",
    "rolls:character-new",
    "rolls:character-edit",
    "rolls:character-correct",
    "rolls:npc-roll",
    "rolls:npc-odds",
    "rolls:calls-create",
    "rolls:follow-up",
    "rolls:contest-create",
    "rolls:challenge-create",
    "rolls:contest-roll",
    "rolls:contest-act",
    "rolls:extended-roll",
]
WITH_INPUT = [name for name, route in ROUTES.items() if any(request_reads(route.callback))]
SHARED = [name for name in WITH_INPUT if name not in PER_SYSTEM]


@pytest.fixture
def no_rate_limits(settings: Any) -> None:
    # Thousands of requests from a few users in seconds: the rate limits would answer 429.
    settings.RATE_LIMITS = {}


def sweep(target: Target, world: World) -> Iterator[dict[str, Any]]:
    """Every field hostile at once, for each of a few values (each field's own check sees
    them); then each field in turn, the others as the form accepts them, so the value gets
    past the form to the rules and the database: one value of ONE_AT_A_TIME (the next one for
    the next field) and, for an id, the edges of the id column and another campaign's ids."""
    for value in ALL_AT_ONCE:
        yield {**target.baseline, **dict.fromkeys(target.fields, value)}
    other = [str(world.other[key]) for key in ("character_id", "call_id")]
    for i, name in enumerate(target.fields):
        values: list[Any] = [ONE_AT_A_TIME[i % len(ONE_AT_A_TIME)]]
        if name in target.id_fields:
            values += ["0", str(MAX_ID), str(MAX_ID + 1), *other]
        for value in values:
            yield {**target.baseline, name: value}


def fuzz(world: World, target: Target, examples: int) -> None:
    url = ROUTES[target.route].path({**world.ids(), **target.url_values})
    send(world, target.persona, target.method, url, target.baseline)
    if not target.fields:  # a system without corrections: its form has no field
        return
    for data in sweep(target, world):
        send(world, target.persona, target.method, url, data)

    @settings(
        max_examples=examples, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
    )
    @given(
        st.dictionaries(st.sampled_from(target.fields), HOSTILE, max_size=4),
        st.booleans(),
        st.booleans(),
    )
    def attempt(changes: dict[str, Any], keep_baseline: bool, htmx: bool) -> None:
        data = {**(target.baseline if keep_baseline else {}), **changes}
        send(world, target.persona, target.method, url, data, htmx=htmx)

    attempt()


# -- the tests --------------------------------------------------------------------------------------------


def test_every_url_parameter_is_known() -> None:
    for route in ROUTES.values():
        for converter, name in route.parameters():
            if converter == "int":
                assert name in ID_PARAMETERS, f"{route.name}: which table does <int:{name}> name?"
            else:
                assert name in ("token", "slug"), f"{route.name}: what is <{converter}:{name}>?"


def test_every_view_that_reads_input_is_fuzzed(db: None) -> None:
    """A view that hands its request to a form is fuzzed with that form's fields: one this file
    does not know fails here."""
    world = build_world("sixes")
    for name in WITH_INPUT:
        found = targets(world, name)
        assert found, f"{name} reads its request, but test_fuzz does not know its form"
        for each in found:
            assert each.fields, name


@pytest.mark.parametrize("system", registry.slugs())
@pytest.mark.parametrize("name", PER_SYSTEM)
def test_every_field_of_every_system_form_survives_hostile_values(
    system: str, name: str, no_rate_limits: None
) -> None:
    world = build_world(system)
    for target in targets(world, name):
        fuzz(world, target, examples=4)


@pytest.mark.parametrize("name", SHARED)
def test_every_field_of_the_other_forms_survives_hostile_values(name: str, no_rate_limits: None) -> None:
    world = build_world("sixes")
    for target in targets(world, name):
        fuzz(world, target, examples=8)


@pytest.mark.parametrize("name", sorted(ROUTES))
def test_hostile_ids_in_every_url_reach_nothing(name: str, no_rate_limits: None) -> None:
    """Each parameter of the URL in turn: zero, negative, the edges of the id column, far past
    it, and the ids of another campaign; by each visitor, read and posted."""
    world = build_world("sixes")
    route = ROUTES[name]
    own = world.ids()
    hostile = ["0", "-1", str(MAX_ID + 1), "9" * 30]
    for persona in ("gm", "player"):
        for method in ("get", "post"):
            for converter, parameter in route.parameters():
                values = [*hostile]
                if parameter in world.other:
                    values.append(str(world.other[parameter]))
                if converter != "int":
                    values += ["\u202e", "a" * 300, "%00"]
                for value in values:
                    send(world, persona, method, route.path({**own, parameter: value}), {})
    # And the URL as it is, by everyone, the GM last: a GM's post may end the session or
    # remove a member.
    for persona in ("bystander", "outsider", "anonymous", "player", "gm"):
        for method in ("get", "post"):
            send(world, persona, method, route.path(own), {})


def test_a_refused_call_for_a_roll_changes_nothing_and_other_campaigns_ids_reach_nothing(
    no_rate_limits: None,
) -> None:
    """The sweep's own refusal check, seen to work: a call naming another campaign's character
    asks only this table's."""
    world = build_world("sixes")
    url = ROUTES["rolls:call-create"].path(world.ids())
    before = RollCall.objects.count()
    response = world.client("gm").post(
        url, {**roll_data("sixes", world.character), "also": str(world.other["character_id"])}
    )
    assert response.status_code == 302  # a plain POST goes back to the roll screen
    made = RollCall.objects.order_by("-pk").first()
    assert RollCall.objects.count() == before + 1
    assert made is not None and list(made.characters.values_list("pk", flat=True)) == [world.character.pk]


def test_the_fuzzed_forms_really_accept_their_baseline(no_rate_limits: None) -> None:
    """The sweep changes one field of a request the form accepts: were the baseline refused,
    every hostile value would stop at the first check and prove nothing."""
    for system in registry.slugs():
        world = build_world(system)
        for name in ("rolls:roll-create", "rolls:character-new", "rolls:npc-roll"):
            (target,) = targets(world, name)
            url = ROUTES[name].path(world.ids())
            response = world.client(target.persona).post(url, target.baseline)
            assert not refused(response), (system, name, response.content[:500])
