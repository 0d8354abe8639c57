"""Every page of a table of each system, as the person who opens it sees it, says only what it
meant to: each id that an ``aria-describedby``, ``aria-labelledby``, ``aria-controls``,
``label for`` or ``hx-target="#id"`` names is on the page, and no template syntax (``{#``,
``{%``, ``{{``) reaches a page or what the socket sends.

The evening is a busy one, so that the pages show what they can: a roll with follow-ups, a GM
roll against the character, an open call, a removed member, a session running; and the pages
a refusal draws again (a roll, the GM's quick roll, a sheet with a bad value), where the
form's errors are."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from django.contrib.auth.models import AbstractBaseUser
from django.test import Client
from django.urls import reverse

from rolls import registry
from rolls.campaigns import services as campaigns
from rolls.live import feed
from rolls.models import LogEntry, Roll
from rolls.play import services
from rolls.systems import RulesError
from tabletop.models import Campaign, Character, Membership
from tests import factories
from tests.factories import a_roll, an_npc_roll, roll_data, sheet_of
from tests.markup import Page

pytestmark = pytest.mark.django_db

TEMPLATE_SYNTAX = ("{#", "{%", "{{")


@dataclass
class Evening:
    system: str
    campaign: Campaign
    gm: AbstractBaseUser
    player: AbstractBaseUser
    character: Character
    roll: Roll


def evening(system: str) -> Evening:
    gm, player = factories.user(), factories.user()
    campaign = campaigns.campaign_create(gm=gm, name="The Loop", system=system, display_name="GM")  # type: ignore[arg-type]
    factories.member(campaign, player, name="Player")
    character = campaigns.character_create(
        campaign=campaign,
        owner=player,  # type: ignore[arg-type]
        name="Olle",
        sheet=sheet_of(system),
    )
    campaigns.session_start(campaign=campaign, actor=gm)  # type: ignore[arg-type]
    character.refresh_from_db()
    services.call_create(
        campaign=campaign,
        gm=gm,  # type: ignore[arg-type]
        characters=[character],
        data=roll_data(system, character),
        label="a call",
    )
    roll = a_roll(system, character, player)
    an_npc_roll(campaign, gm, character)
    removed = factories.member(campaign, name="Rex")
    campaigns.member_remove(campaign=campaign, actor=gm, membership=removed)  # type: ignore[arg-type]
    return Evening(system, campaign, gm, player, character, roll)


def pages(evening: Evening) -> Iterator[tuple[str, str]]:
    """(what, html) for every page of the evening, each opened by the right persona."""
    pk, character = evening.campaign.pk, evening.character.pk
    gm, player = factories.logged_in(evening.gm), factories.logged_in(evening.player)
    outsider = factories.logged_in(factories.user())
    anonymous = Client()
    join = reverse("rolls:join", args=[evening.campaign.join_token])
    opened: list[tuple[str, Client, str]] = [
        ("home", anonymous, reverse("tabletop:home")),
        ("home, signed in", player, reverse("tabletop:home")),
        ("login", anonymous, reverse("tabletop:login")),
        ("signup", anonymous, reverse("tabletop:signup")),
        ("account", player, reverse("tabletop:account")),
        ("rules", anonymous, reverse("rolls:rules")),
        ("rules of the system", anonymous, reverse("rolls:rules-system", args=[evening.system])),
        ("join", anonymous, join),
        ("join, signed in elsewhere", outsider, join),
        ("new campaign", gm, reverse("rolls:campaign-new")),
        ("campaign, player", player, reverse("rolls:campaign", args=[pk])),
        ("campaign, GM", gm, reverse("rolls:campaign", args=[pk])),
        ("session", gm, reverse("rolls:session", args=[pk])),
        ("roll screen, player", player, reverse("rolls:character", args=[pk, character])),
        ("roll screen, GM", gm, reverse("rolls:character", args=[pk, character])),
        ("sheet, player", player, reverse("rolls:character-sheet", args=[pk, character])),
        ("sheet, GM", gm, reverse("rolls:character-sheet", args=[pk, character])),
        ("sheet form", player, reverse("rolls:character-edit", args=[pk, character])),
        ("new character", player, reverse("rolls:character-new", args=[pk])),
        ("history", player, reverse("rolls:history", args=[pk])),
    ]
    for what, client, url in opened:
        response = client.get(url)
        assert response.status_code == 200, (what, response.status_code)
        yield what, response.content.decode()
    # The pages a refused plain POST draws again, with the errors next to the fields.
    refused = [
        ("refused roll", player, reverse("rolls:roll-create", args=[pk, character]), {"intent": "x" * 300}),
        (
            "refused follow-up",
            player,
            reverse("rolls:follow-up", args=[pk, evening.roll.pk]),
            {"action": "?"},
        ),
        ("refused quick roll", gm, reverse("rolls:npc-roll", args=[pk]), {"name": ""}),
        ("refused sheet", player, reverse("rolls:character-edit", args=[pk, character]), {"name": ""}),
        ("refused new character", player, reverse("rolls:character-new", args=[pk]), {"name": ""}),
        ("refused new campaign", gm, reverse("rolls:campaign-new"), {"name": ""}),
        ("refused join", anonymous, join, {"display_name": ""}),
        ("refused signup", anonymous, reverse("tabletop:signup"), {"username": ""}),
        ("refused login", anonymous, reverse("tabletop:login"), {"username": "nobody", "password": "x"}),
        ("refused account", player, reverse("tabletop:account"), {"display_name": ""}),
    ]
    for what, client, url, data in refused:
        response = client.post(url, data)
        assert response.status_code in (200, 422), (what, response.status_code)
        yield what, response.content.decode()


def socket_messages(evening: Evening) -> Iterator[tuple[str, str]]:
    """What the socket sends: the shared markup of a roll, a follow-up and an event, and what
    the player's roll screen and the GM's session page are sent of the whole evening."""
    entries = list(LogEntry.objects.filter(campaign=evening.campaign).order_by("seq"))
    kinds = {"roll": LogEntry.Kind.ROLL, "follow-up": LogEntry.Kind.FOLLOW_UP}
    for what, kind in kinds.items():
        entry = next((e for e in entries if e.kind == kind), None)
        if entry is not None:
            yield f"shared {what}", str(feed.prepare_entry(entry))
    event = next(e for e in entries if e.roll_id is None)
    yield "shared event", str(feed.prepare_entry(event))
    player = Membership.objects.get(campaign=evening.campaign, user=evening.player)
    gm = Membership.objects.get(campaign=evening.campaign, user=evening.gm)
    yield "player's socket", feed.render_since(player, 0, result_for=evening.character.pk)[0]
    yield "GM's socket", feed.render_since(gm, 0)[0]


def followed_up(evening: Evening) -> None:
    """One follow-up in the log, when the engine offers one the player may pay for."""
    state = evening.roll.entries.order_by("-seq").first().state  # type: ignore[union-attr]
    resources = registry.table(evening.system).resources(evening.character, latest=True)
    for offered in registry.engine(evening.system).follow_ups(state, resources):
        if offered.gm_only or offered.action in registry.engine(evening.system).target_actions:
            continue
        params = {
            p.name: (p.choices[0] if p.choices else p.minimum) for p in offered.params if not p.multiple
        }
        params.update({p.name: [p.choices[0]] for p in offered.params if p.multiple and p.choices})
        try:
            services.follow_up_apply(
                roll=evening.roll,
                actor=evening.player,  # type: ignore[arg-type]
                action=offered.action,
                params=params,
                rng=random.Random(3),
                by_gm=False,
            )
        except RulesError:  # a bid of the first die alone, say: the next offer may do
            continue
        return


@pytest.mark.parametrize("system", registry.slugs())
def test_every_id_a_page_refers_to_is_on_it(system: str) -> None:
    problems = []
    for what, html in pages(evening(system)):
        page = Page(html)
        ids = set(page.ids)
        problems += [
            f"{what}: <{tag} {attribute}> names #{name}"
            for tag, attribute, name in page.references
            if name not in ids
        ]
        problems += [f"{what}: id {name} twice" for name in ids if page.ids.count(name) > 1]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("system", registry.slugs())
def test_no_template_syntax_reaches_a_page_or_the_socket(system: str) -> None:
    made = evening(system)
    followed_up(made)
    seen = [*pages(made), *socket_messages(made)]
    assert {"shared roll", "shared event", "player's socket", "GM's socket"} <= {what for what, _ in seen}
    leaks = [f"{what}: {mark}" for what, html in seen for mark in TEMPLATE_SYNTAX if mark in html]
    assert not leaks, leaks


@pytest.mark.parametrize("system", registry.slugs())
def test_every_form_has_a_real_action_and_every_post_its_csrf_token(system: str) -> None:
    """Without JavaScript a form goes where its action says, and a POST passes Django's CSRF
    check only with the field."""
    problems = []
    for what, html in pages(evening(system)):
        for form in Page(html).forms:
            name = form.attrs.get("id") or " ".join(form.classes) or form.action
            if not form.action:
                problems.append(f"{what}: form {name} has no action")
            if form.method == "post" and not any(
                field == "csrfmiddlewaretoken" and value for field, value in form.fields
            ):
                problems.append(f"{what}: form {name} posts without a CSRF token")
    assert not problems, "\n".join(problems)
