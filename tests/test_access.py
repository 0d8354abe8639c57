"""Who may open what: every URL of the app, as the GM, the player, another player of the same
campaign, a member of another campaign and an anonymous visitor.

A campaign's pages are 404 for anyone signed in outside it (its existence does not leak), a
redirect to the sign-in page for anyone signed out, 403 for a member
acting on someone else's character or using a GM control, and 200/302 for everyone allowed.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from rolls.bridges import tokens as feed_tokens
from rolls.campaigns import services as table_services
from rolls.models import Contest, FeedToken, Roll, RollCall
from rolls.play import services
from tabletop.models import Ban, Membership
from tests import factories
from tests.factories import CONFIRMED, ScriptedDice, Table

PERSONAS = ("gm", "player", "other_player", "outsider", "anonymous")


@dataclass
class World:
    table: Table
    roll: Roll
    other_membership: Membership
    clients: dict[str, Client]
    call: RollCall
    ban: Ban  # a member the GM removed, whom the GM may let back in
    contest: Contest  # the player's character against someone without a sheet
    feed_token: FeedToken  # a key of the table's feed for other tools

    def args(self, needs: str) -> list[Any]:
        campaign = self.table.campaign.pk
        return {
            "": [],
            "campaign": [campaign],
            "character": [campaign, self.table.character.pk],
            "roll": [campaign, self.roll.pk],
            "member": [campaign, self.other_membership.pk],
            "token": [self.table.campaign.join_token],
            "display": [self.table.campaign.display_token],
            "overlay": [self.table.campaign.overlay_token],
            "slug": ["sixes"],
            "call": [campaign, self.call.pk],
            "ban": [campaign, self.ban.pk],
            "play_session": [campaign, self.roll.session_id],
            "contest": [campaign, self.contest.pk],
            "side": [campaign, self.contest.pk, self.contest.sides.get(position=0).pk],
            "contest_character": [campaign, self.contest.pk, self.table.character.pk],
            "feed_token": [campaign, self.feed_token.pk],
        }[needs]


@pytest.fixture
def world(table: Table) -> World:
    """The table, plus a second player (Kim) with a character, and the outsider as the GM of a
    campaign of their own: a member of another campaign."""
    other = factories.member(table.campaign, name="Kim")
    factories.character(table.campaign, other.user, name="Bea")
    factories.campaign(table.outsider, name="Elsewhere")
    made = services.roll_create(
        character=table.character,
        roller=table.player,
        data={"attribute": "Body"},
        helper=None,
        intent="",
        rng=ScriptedDice(then=1),
    )
    clients = {"anonymous": Client()}
    for name, user in (
        ("gm", table.gm),
        ("player", table.player),
        ("other_player", other.user),
        ("outsider", table.outsider),
    ):
        clients[name] = Client()
        clients[name].force_login(user)
    call = services.call_create(
        campaign=table.campaign, gm=table.gm, characters=[table.character], data=ROLL, label="Body"
    )
    removed = factories.member(table.campaign, name="Rex")
    table_services.member_remove(campaign=table.campaign, actor=table.gm, membership=removed)
    # Written as it is stored: who may reach a contest's URLs does not depend on the system.
    contest = Contest.objects.create(
        campaign=table.campaign, session=table.campaign.open_session(), system="sixes", opened_by=table.gm
    )
    contest.sides.create(position=0, character=table.character, name=table.character.name, data=ROLL)
    contest.sides.create(position=1, name="The dog", npc=True, data={"dice": 2})
    feed_token, _secret = feed_tokens.token_create(campaign=table.campaign, name="Foundry bridge")
    return World(table, made, other, clients, call, table.campaign.bans.get(), contest, feed_token)


def everyone(status: int) -> dict[str, int]:
    return dict.fromkeys(PERSONAS, status)


def logged_in_only(status: int) -> dict[str, int]:
    return {**everyone(status), "anonymous": 302}


# Signed out, every campaign URL sends to the sign-in page (302), whatever the campaign.
MEMBERS = {"gm": 200, "player": 200, "other_player": 200, "outsider": 404, "anonymous": 302}
OWN_CHARACTER = {"gm": 200, "player": 200, "other_player": 403, "outsider": 404, "anonymous": 302}
# A plain POST (no htmx) that acts goes on to the page that shows what it did.
ACT_FOR_CHARACTER = {**OWN_CHARACTER, "gm": 302, "player": 302}
GM_CONTROL = {"gm": 302, "player": 403, "other_player": 403, "outsider": 404, "anonymous": 302}

ROLL = {"trait": "Body", "need": "1"}

# URL name -> (method, what its arguments are, POST data, expected status per persona)
ROUTES: dict[str, tuple[str, str, dict[str, Any], dict[str, int]]] = {
    "tabletop:home": ("GET", "", {}, everyone(200)),
    "tabletop:signup": ("GET", "", {}, everyone(200)),
    "tabletop:login": ("GET", "", {}, everyone(200)),
    "tabletop:logout": ("POST", "", {}, everyone(302)),
    "tabletop:account": ("GET", "", {}, logged_in_only(200)),
    "tabletop:manifest": ("GET", "", {}, everyone(200)),
    "tabletop:service-worker": ("GET", "", {}, everyone(200)),
    "tabletop:offline": ("GET", "", {}, everyone(200)),
    "rolls:campaign-new": ("GET", "", {}, logged_in_only(200)),
    "rolls:campaign": ("GET", "campaign", {}, MEMBERS),
    "rolls:session": ("GET", "campaign", {}, {**GM_CONTROL, "gm": 200}),
    "rolls:session-start": ("POST", "campaign", {}, GM_CONTROL),
    "rolls:session-end": ("POST", "campaign", CONFIRMED, GM_CONTROL),
    "rolls:mystery-start": ("POST", "campaign", CONFIRMED, GM_CONTROL),
    "rolls:long-rest": ("POST", "campaign", CONFIRMED, GM_CONTROL),
    "rolls:join-link-rotate": ("POST", "campaign", {}, GM_CONTROL),
    "rolls:dice-mode": ("POST", "campaign", {"dice": "either"}, GM_CONTROL),
    "rolls:language-set": ("POST", "campaign", {"language": "de"}, GM_CONTROL),
    # Django's language switch of the pages outside a table: anyone, back to where they were.
    "set_language": ("POST", "", {"language": "de"}, everyone(302)),
    "rolls:member-remove": ("POST", "member", {}, GM_CONTROL),
    "rolls:member-readmit": ("POST", "ban", {}, GM_CONTROL),
    "rolls:history": ("GET", "campaign", {}, MEMBERS),
    "rolls:export": ("GET", "campaign", {"format": "json"}, MEMBERS),
    "rolls:stats": ("GET", "campaign", {}, MEMBERS),
    "rolls:stats-session": ("GET", "play_session", {}, MEMBERS),
    "rolls:stats-character": ("GET", "character", {}, MEMBERS),
    "rolls:recap": ("GET", "play_session", {}, MEMBERS),
    "rolls:verify-log": ("POST", "campaign", {}, MEMBERS),
    "rolls:roll": ("GET", "roll", {}, MEMBERS),
    "rolls:roll-note": ("POST", "roll", {"note": "Trapped."}, GM_CONTROL),
    "rolls:roll-void": ("POST", "roll", {}, GM_CONTROL),
    # The roller takes back their own roll (the player's); the GM voids instead: told so (422).
    "rolls:roll-take-back": (
        "POST",
        "roll",
        {},
        {"gm": 422, "player": 302, "other_player": 403, "outsider": 404, "anonymous": 302},
    ),
    # SIX-16: the table's roll had no helper: the GM is told so, nothing is written.
    "rolls:roll-helper-condition": ("POST", "roll", {"condition": "Upset"}, {**GM_CONTROL, "gm": 422}),
    # SIX-15: nobody helped the table's roll: nothing to strike, the GM is told so.
    "rolls:roll-helper-strike": ("POST", "roll", {}, {**GM_CONTROL, "gm": 422}),
    # The roll is open already: the GM is told so, nothing is written.
    "rolls:roll-reveal": ("POST", "roll", {}, {**GM_CONTROL, "gm": 422}),
    "rolls:character-new": ("GET", "campaign", {}, MEMBERS),
    "rolls:character": ("GET", "character", {}, OWN_CHARACTER),
    "rolls:character-sheet": ("GET", "character", {}, MEMBERS),
    "rolls:character-edit": ("GET", "character", {}, OWN_CHARACTER),
    "rolls:character-correct": ("POST", "character", {"luck": "2"}, GM_CONTROL),
    # Members go on to their campaign; anyone else gets the form to join.
    "rolls:join": (
        "GET",
        "token",
        {},
        {"gm": 302, "player": 302, "other_player": 302, "outsider": 200, "anonymous": 200},
    ),
    "rolls:roll-create": ("POST", "character", ROLL, ACT_FOR_CHARACTER),
    "rolls:odds": ("GET", "character", ROLL, OWN_CHARACTER),
    "rolls:follow-up": ("POST", "roll", {"action": "pride"}, ACT_FOR_CHARACTER),
    "rolls:npc-roll": ("POST", "campaign", {"name": "Orc", "flag_dice": "3"}, GM_CONTROL),
    "rolls:call-create": ("POST", "character", ROLL, GM_CONTROL),
    "rolls:call-close": ("POST", "call", {}, GM_CONTROL),
    # "{character}": the table's character, whose id differs between databases (PostgreSQL's
    # sequences do not start again for each test).
    "rolls:calls-create": (
        "POST",
        "campaign",
        {"ask": "{character}", "c{character}-trait": "Body", "need": "1"},
        GM_CONTROL,
    ),
    "rolls:npc-odds": ("GET", "campaign", {"name": "Orc", "flag_dice": "3"}, {**GM_CONTROL, "gm": 200}),
    "rolls:luck-ability": (
        "POST",
        "character",
        {"ability": "Amulet"},
        {**OWN_CHARACTER, "gm": 302, "player": 302},
    ),
    # Contests: what a member may reach is refused with a message, or done (sixes plays them).
    "rolls:contest": ("GET", "contest", {}, MEMBERS),
    "rolls:contest-create": ("POST", "campaign", {"first": "{character}", "second": "npc"}, GM_CONTROL),
    "rolls:challenge-create": ("POST", "character", {"opponent": "1"}, ACT_FOR_CHARACTER),
    "rolls:contest-answer": (
        "POST",
        "contest",
        {"accept": "no"},
        {**MEMBERS, "gm": 302, "player": 302, "other_player": 302},
    ),
    "rolls:contest-roll": ("POST", "side", {}, {**MEMBERS, "gm": 302, "player": 302, "other_player": 302}),
    "rolls:contest-act": (
        "POST",
        "side",
        {"action": "buy", "condition": "Upset"},
        {**MEMBERS, "gm": 302, "player": 302, "other_player": 302},
    ),
    # Extended actions are doubles' (DBL-13): on this sixes table, refused with a message.
    "rolls:extended-create": ("POST", "campaign", {"dn": "6", "successes": "2", "failures": "2"}, GM_CONTROL),
    "rolls:extended-roll": ("POST", "contest_character", {}, ACT_FOR_CHARACTER),
    "rolls:contest-close": ("POST", "contest", CONFIRMED, GM_CONTROL),
    # Who attacks is sets' (SET-4): on this sixes table, refused with a message.
    "rolls:contest-attacker": ("POST", "contest", {"position": "0"}, GM_CONTROL),
    "rolls:contest-cancel": ("POST", "contest", CONFIRMED, GM_CONTROL),
    "rolls:rules": ("GET", "", {}, everyone(200)),
    # The TV's page: its link is all it takes, logged in or not.
    "rolls:display": ("GET", "display", {}, everyone(200)),
    "rolls:display-rotate": ("POST", "campaign", {}, {**GM_CONTROL, "anonymous": 302}),
    # The stream overlay's page: its own link, the same for everyone.
    "rolls:overlay": ("GET", "overlay", {}, everyone(200)),
    "rolls:overlay-rotate": ("POST", "campaign", {}, {**GM_CONTROL, "anonymous": 302}),
    # The GM's Discord webhooks (tests/test_discord.py): a player neither sets nor reads one.
    "rolls:discord-save": (
        "POST",
        "campaign",
        {"audience": "table", "url": "https://discord.com/api/webhooks/123456789/" + "t" * 68},
        GM_CONTROL,
    ),
    "rolls:discord-remove": ("POST", "campaign", {"audience": "table"}, GM_CONTROL),
    "rolls:discord-test": ("POST", "campaign", {"audience": "table"}, GM_CONTROL),
    "rolls:rules-system": ("GET", "slug", {}, everyone(200)),
    # The feed for other tools: the GM's keys (a plain POST's answer shows the new key's
    # secret on a page of its own), and the stream, which takes a key and no login.
    "rolls:feed-token-create": ("POST", "campaign", {"name": "Owlbear"}, {**GM_CONTROL, "gm": 200}),
    "rolls:feed-token-revoke": ("POST", "feed_token", CONFIRMED, GM_CONTROL),
    "rolls:feed-events": ("GET", "campaign", {}, everyone(401)),
}


def url_names(resolver: URLResolver | None = None, namespace: str = "") -> set[str]:
    names: set[str] = set()
    for pattern in (resolver or get_resolver()).url_patterns:
        if isinstance(pattern, URLResolver):
            inner = f"{namespace}{pattern.namespace}:" if pattern.namespace else namespace
            names |= url_names(pattern, inner)
        elif isinstance(pattern, URLPattern) and pattern.name:
            names.add(f"{namespace}{pattern.name}")
    return names


def test_every_url_of_the_app_is_walked_here() -> None:
    assert url_names() == set(ROUTES)


@pytest.mark.parametrize("persona", PERSONAS)
@pytest.mark.parametrize("name", sorted(ROUTES))
def test_each_persona_gets_the_expected_status(world: World, name: str, persona: str) -> None:
    method, needs, data, expected = ROUTES[name]
    path = reverse(name, args=world.args(needs))
    client = world.clients[persona]
    character = str(world.table.character.pk)
    data = {
        key.format(character=character): value.format(character=character)
        if isinstance(value, str)
        else value
        for key, value in data.items()
    }

    response = client.post(path, data) if method == "POST" else client.get(path, data)

    assert response.status_code == expected[persona], f"{persona} {method} {path}"
    if (
        persona == "anonymous"
        and expected[persona] == 302
        and name not in ("tabletop:logout", "set_language")
    ):
        assert response["Location"].startswith(reverse("tabletop:login"))


@pytest.mark.parametrize("persona", ["gm", "player", "other_player"])
@pytest.mark.parametrize(
    "name", ["rolls:character", "rolls:character-sheet", "rolls:character-edit", "rolls:odds"]
)
def test_a_character_of_another_campaign_is_not_found_through_this_one(
    world: World, name: str, persona: str
) -> None:
    elsewhere = factories.campaign(factories.user(), name="Far away")
    stranger = factories.character(elsewhere, elsewhere.gm, name="Stranger")

    response = world.clients[persona].get(reverse(name, args=[world.table.campaign.pk, stranger.pk]))

    assert response.status_code == 404


@pytest.mark.parametrize("persona", [p for p in PERSONAS if p != "anonymous"])
def test_huge_and_unknown_ids_are_not_found(world: World, persona: str) -> None:
    client = world.clients[persona]
    campaign = world.table.campaign.pk
    huge = 99999999999999999999999

    for path in (
        reverse("rolls:campaign", args=[huge]),
        reverse("rolls:character", args=[campaign, huge]),
        reverse("rolls:character-sheet", args=[campaign, 999]),
        reverse("rolls:odds", args=[campaign, huge]),
    ):
        assert client.get(path).status_code == 404, path
    for path in (
        reverse("rolls:follow-up", args=[campaign, huge]),
        reverse("rolls:roll-create", args=[huge, 1]),
        reverse("rolls:member-remove", args=[campaign, huge]),
        reverse("rolls:member-readmit", args=[campaign, huge]),
    ):
        assert client.post(path, {"action": "pride"}).status_code in (403, 404), path


def test_a_not_found_page_says_so_in_the_apps_own_words(world: World) -> None:
    response = world.clients["outsider"].get(reverse("rolls:campaign", args=[world.table.campaign.pk]))

    assert response.status_code == 404
    assert "There is nothing here for you." in response.content.decode()
    assert "The Loop" not in response.content.decode()


def test_a_forbidden_page_says_why(world: World) -> None:
    response = world.clients["other_player"].get(
        reverse("rolls:character", args=[world.table.campaign.pk, world.table.character.pk])
    )

    assert response.status_code == 403
    assert "Only this character's player or the GM can do that." in html.unescape(response.content.decode())


def test_the_history_shows_the_campaigns_rolls_to_every_member(world: World) -> None:
    for persona in ("gm", "player", "other_player"):
        page = world.clients[persona].get(reverse("rolls:history", args=[world.table.campaign.pk]))
        assert f'id="history-roll-{world.roll.pk}"' in page.content.decode()


def test_the_history_survives_junk_filters(world: World) -> None:
    path = reverse("rolls:history", args=[world.table.campaign.pk])

    # Names it does not read are ignored.
    for query in ({"page": "junk"}, {"page": "-5"}, {"page": "99999"}):
        assert world.clients["player"].get(path, query).status_code == 200, query
    # A value it cannot read is refused, saying which filter, and lists nothing.
    for query in (
        {"character": "x"},
        {"character": "999999"},
        {"character": "99999999999999999999999"},
        {"character": "\u00b2"},  # a superscript two: str.isdigit() says yes, int() says no
        {"character": "-1"},
        {"before": "-1"},
        {"before": "99999999999999999999999"},
        {"since": "2026-02-30"},
    ):
        response = world.clients["player"].get(path, query)
        assert response.status_code == 400, query
        assert 'role="alert"' in response.content.decode(), query
        assert "history-roll-" not in response.content.decode(), query


def test_the_history_filters_by_character(world: World) -> None:
    path = reverse("rolls:history", args=[world.table.campaign.pk])
    bea = world.table.campaign.characters.get(name="Bea")

    olle = world.clients["player"].get(path, {"character": world.table.character.pk}).content.decode()
    others = world.clients["player"].get(path, {"character": bea.pk}).content.decode()

    assert f'id="history-roll-{world.roll.pk}"' in olle
    assert f'id="history-roll-{world.roll.pk}"' not in others


# -- what a refusal leaves in the log ------------------------------------------------------------


@pytest.mark.parametrize(
    ("who", "url_name", "status", "says"),
    [
        ("player", "rolls:session", 403, "Only the GM can do that."),
        ("outsider", "rolls:campaign", 404, "Not Found"),
    ],
)
def test_a_refused_request_is_logged_in_one_line_without_a_traceback(
    table: Table, caplog: pytest.LogCaptureFixture, who: str, url_name: str, status: int, says: str
) -> None:
    client = factories.logged_in(getattr(table, who))

    with caplog.at_level("WARNING", logger="django.request"):
        response = client.get(reverse(url_name, args=[table.campaign.pk]))

    assert response.status_code == status
    (record,) = [r for r in caplog.records if r.name == "django.request"]
    assert record.exc_info is None and not record.exc_text
    line = record.getMessage()
    assert says in line and reverse(url_name, args=[table.campaign.pk]) in line
    assert "\n" not in caplog.text.strip()


# -- signed out: a shared link asks to sign in, then comes back -------------------------------------


@pytest.mark.parametrize("name", ["rolls:recap", "rolls:history", "rolls:stats"])
def test_a_signed_out_member_opening_a_shared_link_signs_in_and_comes_back_to_it(
    world: World, name: str
) -> None:
    path = reverse(name, args=world.args("play_session" if name == "rolls:recap" else "campaign"))
    player = world.table.player
    player.set_password("a long table password")
    player.save()
    client = Client()

    asked = client.get(path)

    assert asked.status_code == 302
    assert asked["Location"] == f"{reverse('tabletop:login')}?next={quote(path)}"
    form = client.get(asked["Location"])
    assert form.status_code == 200
    assert f'name="next" value="{path}"' in form.content.decode()
    signed_in = client.post(
        asked["Location"], {"username": player.username, "password": "a long table password", "next": path}
    )
    assert signed_in.status_code == 302
    assert signed_in["Location"] == path
    assert client.get(path).status_code == 200


def test_a_signed_out_visitor_sent_to_sign_in_is_not_logged_as_forbidden(
    world: World, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level("INFO", logger="django.request"):
        asked = world.clients["anonymous"].get(reverse("rolls:history", args=[world.table.campaign.pk]))

    assert asked.status_code == 302
    assert not [r for r in caplog.records if r.name == "django.request"]


def test_signed_out_a_campaign_that_does_not_exist_asks_the_same(world: World) -> None:
    client = world.clients["anonymous"]
    real = client.get(reverse("rolls:history", args=[world.table.campaign.pk]))
    missing = client.get("/c/987654/history/")

    assert real.status_code == missing.status_code == 302
    assert real["Location"].split("?next=")[0] == missing["Location"].split("?next=")[0]
    assert "The Loop" not in client.get(real["Location"]).content.decode()


@pytest.mark.parametrize("name", ["rolls:recap", "rolls:history", "rolls:stats"])
def test_a_signed_in_outsider_still_finds_nothing_and_no_sign_in_hint(world: World, name: str) -> None:
    path = reverse(name, args=world.args("play_session" if name == "rolls:recap" else "campaign"))

    response = world.clients["outsider"].get(path)

    assert response.status_code == 404
    page = response.content.decode()
    assert "There is nothing here for you." in page
    assert "The Loop" not in page and "?next=" not in page


def test_a_signed_out_form_goes_to_sign_in_and_back_to_the_page_it_was_sent_from(world: World) -> None:
    campaign = world.table.campaign.pk
    page = reverse("rolls:campaign", args=[campaign])
    action = reverse("rolls:roll-create", args=[campaign, world.table.character.pk])
    client = world.clients["anonymous"]

    plain = client.post(action, ROLL, headers={"Referer": f"http://testserver{page}"})
    htmx = client.post(
        action, ROLL, headers={"HX-Request": "true", "HX-Current-URL": f"http://testserver{page}"}
    )
    elsewhere = client.post(action, ROLL, headers={"Referer": "https://evil.example/c/1/"})

    login = f"{reverse('tabletop:login')}?next={quote(page)}"
    assert (plain.status_code, plain["Location"]) == (302, login)
    assert (htmx.status_code, htmx["HX-Redirect"]) == (200, login)
    assert (elsewhere.status_code, elsewhere["Location"]) == (302, reverse("tabletop:login"))
    assert not Roll.objects.exclude(pk=world.roll.pk).exists()
