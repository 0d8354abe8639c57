"""The feed for other tools: the GM's keys in the console, and the stream of the table's public
entries (server-sent events, docs/feed.md) through the app's own ASGI application."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from asgiref.testing import ApplicationCommunicator
from channels.db import database_sync_to_async
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from pytest_django.fixtures import Settings

from rolls.bridges import stream, tokens
from rolls.history import marks
from rolls.models import FeedToken, LogEntry, Roll
from tabletop.asgi import application
from tabletop.models import Campaign
from tests import factories
from tests.factories import CONFIRMED, Table, logged_in
from tests.servers import free_port, server_process
from tests.test_display import (
    BLIND_INTENT,
    BLIND_TRAIT,
    SECRET_INTENT,
    blind_roll,
    public_roll,
    push_hidden,
    secret_roll,
)

SCHEMA = json.loads((Path(__file__).resolve().parents[1] / "docs" / "feed-schema.json").read_text())
CLIENT = Path(__file__).resolve().parents[1] / "docs" / "feed_client.py"
# Generous deadlines, not measurements: CI's two cores run three passes side by side.
WAIT = 10


# -- the schema, checked by hand (jsonschema is not among the project's packages) ---------------


def schema_errors(value: Any, schema: dict[str, Any] = SCHEMA, where: str = "$") -> list[str]:
    """What in ``value`` breaks ``schema``: the keywords docs/feed-schema.json uses."""
    if "$ref" in schema:
        name = schema["$ref"].removeprefix("#/$defs/")
        return schema_errors(value, SCHEMA["$defs"][name], where)
    if "oneOf" in schema:
        matching = [option for option in schema["oneOf"] if not schema_errors(value, option, where)]
        return [] if len(matching) == 1 else [f"{where}: matches {len(matching)} of oneOf"]
    errors = []
    kinds = schema.get("type")
    if kinds is not None:
        names = [kinds] if isinstance(kinds, str) else kinds
        checks = {
            "null": lambda v: v is None,
            "boolean": lambda v: isinstance(v, bool),
            "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
            "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
            "string": lambda v: isinstance(v, str),
            "object": lambda v: isinstance(v, dict),
            "array": lambda v: isinstance(v, list),
        }
        if not any(checks[name](value) for name in names):
            return [f"{where}: {value!r} is not {kinds}"]
    if "const" in schema and value != schema["const"]:
        errors.append(f"{where}: {value!r} is not {schema['const']!r}")
    if "enum" in schema and value not in schema["enum"]:
        errors.append(f"{where}: {value!r} not in {schema['enum']}")
    if "minimum" in schema and value < schema["minimum"]:
        errors.append(f"{where}: {value!r} below {schema['minimum']}")
    if isinstance(value, dict):
        for name in schema.get("required", ()):
            if name not in value:
                errors.append(f"{where}: {name} missing")
        properties = schema.get("properties", {})
        for name, item in value.items():
            if name in properties:
                errors += schema_errors(item, properties[name], f"{where}.{name}")
            elif schema.get("additionalProperties") is False:
                errors.append(f"{where}: {name} not in the schema")
    if isinstance(value, list) and "items" in schema:
        for index, item in enumerate(value):
            errors += schema_errors(item, schema["items"], f"{where}[{index}]")
    return errors


# -- the GM's keys --------------------------------------------------------------------------------


def create_url(campaign: Campaign) -> str:
    return reverse("rolls:feed-token-create", args=[campaign.pk])


def revoke_url(token: FeedToken) -> str:
    return reverse("rolls:feed-token-revoke", args=[token.campaign_id, token.pk])


def events_url(campaign: Campaign | int) -> str:
    return reverse("rolls:feed-events", args=[campaign if isinstance(campaign, int) else campaign.pk])


def test_the_gm_makes_a_key_whose_secret_is_shown_once_and_kept_only_as_a_hash(table: Table) -> None:
    gm = logged_in(table.gm)
    answer = gm.post(create_url(table.campaign), {"name": "Foundry bridge"}, headers={"HX-Request": "true"})
    assert answer.status_code == 200
    assert "no-store" in answer["Cache-Control"]
    token = FeedToken.objects.get(campaign=table.campaign)
    html = answer.content.decode()
    secret = html.split('<code id="feed-secret">')[1].split("</code>")[0]
    assert secret.startswith("ttf_") and len(secret) > 40
    assert token.name == "Foundry bridge"
    assert token.digest == hashlib.sha256(secret.encode()).hexdigest()
    assert secret not in {token.digest, token.hint} and secret.startswith(token.hint)
    console = gm.get(reverse("rolls:session", args=[table.campaign.pk])).content.decode()
    assert "Foundry bridge" in console and token.hint in console
    assert secret not in console


def test_a_plain_post_gets_a_page_with_the_secret_and_the_way_back(table: Table) -> None:
    answer = logged_in(table.gm).post(create_url(table.campaign), {"name": "Owlbear"})
    assert answer.status_code == 200
    html = answer.content.decode()
    assert 'id="feed-secret"' in html and reverse("rolls:session", args=[table.campaign.pk]) in html


def test_a_key_without_a_name_is_refused_with_a_message_and_nothing_made(table: Table) -> None:
    answer = logged_in(table.gm).post(
        create_url(table.campaign), {"name": "  "}, headers={"HX-Request": "true"}
    )
    assert answer.status_code == 422
    assert 'id="feed-refusal"' in answer.content.decode()
    assert not FeedToken.objects.exists()


def test_a_table_holds_ten_keys_that_work_at_most(table: Table) -> None:
    for n in range(tokens.MAX_ACTIVE):
        tokens.token_create(campaign=table.campaign, name=f"Tool {n}")
    answer = logged_in(table.gm).post(create_url(table.campaign), {"name": "One more"})
    assert answer.status_code == 422
    assert "revoke one" in answer.content.decode()
    assert FeedToken.objects.count() == tokens.MAX_ACTIVE


@pytest.mark.parametrize(("persona", "status"), [("player", 403), ("outsider", 404), ("anonymous", 302)])
def test_nobody_but_the_gm_makes_or_revokes_a_key(table: Table, persona: str, status: int) -> None:
    token, _secret = tokens.token_create(campaign=table.campaign, name="Foundry bridge")
    client = Client() if persona == "anonymous" else logged_in(getattr(table, persona))
    assert client.post(create_url(table.campaign), {"name": "Mine"}).status_code == status
    assert client.post(revoke_url(token)).status_code == status
    token.refresh_from_db()
    assert token.active and FeedToken.objects.count() == 1


def test_the_gm_revokes_a_key_and_the_console_says_when(table: Table) -> None:
    token, _secret = tokens.token_create(campaign=table.campaign, name="Foundry bridge")
    answer = logged_in(table.gm).post(revoke_url(token), CONFIRMED, headers={"HX-Request": "true"})
    assert answer.status_code == 200
    token.refresh_from_db()
    assert not token.active
    html = answer.content.decode()
    assert f'id="feed-key-{token.pk}" class="feed-key revoked"' in html
    assert reverse("rolls:feed-token-revoke", args=[table.campaign.pk, token.pk]) not in html


def test_the_console_asks_before_a_key_is_revoked(table: Table) -> None:
    """A revoked key never works again, so the Revoke button asks first (htmx's dialog), and
    a post that did not go through the dialog (no script) gets the question as a page."""
    token, _secret = tokens.token_create(campaign=table.campaign, name='Foundry "bridge"')
    gm = logged_in(table.gm)
    panel = gm.get(reverse("rolls:session", args=[table.campaign.pk])).content.decode()
    question = "Revoke the key “Foundry &quot;bridge&quot;”? The tool that uses it stops receiving"
    assert f'hx-confirm="{question}' in panel
    assert """hx-vals='{"confirmed": "yes"}'""" in panel

    asked = gm.post(revoke_url(token))
    assert asked.status_code == 200
    assert "Are you sure?" in asked.content.decode()
    assert question in asked.content.decode()
    assert f'action="{revoke_url(token)}"' in asked.content.decode()
    token.refresh_from_db()
    assert token.active  # asked, not revoked

    done = gm.post(revoke_url(token), CONFIRMED, follow=True)
    token.refresh_from_db()
    assert not token.active
    assert "Key “Foundry &quot;bridge&quot;” revoked: it no longer opens the feed." in done.content.decode()


def test_a_revoked_key_is_not_asked_about_again(table: Table) -> None:
    """A second tap on a key already revoked (another device, a double tap) asks nothing."""
    token, _secret = tokens.token_create(campaign=table.campaign, name="Foundry bridge")
    tokens.token_revoke(token=token)
    answer = logged_in(table.gm).post(revoke_url(token), headers={"HX-Request": "true"})
    assert answer.status_code == 200
    assert "Are you sure?" not in answer.content.decode()


def test_a_key_of_another_campaign_is_not_found_through_this_one(table: Table) -> None:
    elsewhere = factories.campaign(table.gm, name="Elsewhere")
    theirs, _secret = tokens.token_create(campaign=elsewhere, name="Theirs")
    url = reverse("rolls:feed-token-revoke", args=[table.campaign.pk, theirs.pk])
    assert logged_in(table.gm).post(url).status_code == 404
    theirs.refresh_from_db()
    assert theirs.active


# -- who may open the stream ------------------------------------------------------------------------


def test_the_stream_without_a_key_asks_for_one(table: Table) -> None:
    answer = Client().get(events_url(table.campaign))
    assert answer.status_code == 401
    assert answer["WWW-Authenticate"].startswith("Bearer")
    assert "Authorization: Bearer" in answer.json()["error"]


@pytest.mark.parametrize("sent", ["ttf_nothing-of-the-kind", "garbage", "ttf_" + "x" * 300])
def test_a_wrong_key_is_refused(table: Table, sent: str) -> None:
    tokens.token_create(campaign=table.campaign, name="Foundry bridge")
    answer = Client().get(events_url(table.campaign), headers={"Authorization": f"Bearer {sent}"})
    assert answer.status_code == 401
    assert 'error="invalid_token"' in answer["WWW-Authenticate"]


def test_a_revoked_key_is_refused(table: Table) -> None:
    token, secret = tokens.token_create(campaign=table.campaign, name="Foundry bridge")
    tokens.token_revoke(token=token)
    answer = Client().get(events_url(table.campaign), {"token": secret})
    assert answer.status_code == 401


def test_a_key_of_another_campaign_does_not_open_this_feed(table: Table) -> None:
    elsewhere = factories.campaign(table.gm, name="Elsewhere")
    _token, secret = tokens.token_create(campaign=elsewhere, name="Theirs")
    answer = Client().get(events_url(table.campaign), headers={"Authorization": f"Bearer {secret}"})
    assert answer.status_code == 403
    assert Client().get(events_url(2**63 + 5), {"token": secret}).status_code in (403, 404)


@pytest.mark.parametrize("cursor", ["-1", "abc", "1.5", str(2**64)])
def test_a_cursor_that_is_no_sequence_number_is_refused_with_a_message(table: Table, cursor: str) -> None:
    _token, secret = tokens.token_create(campaign=table.campaign, name="Foundry bridge")
    answer = Client().get(events_url(table.campaign), {"token": secret, "after": cursor})
    assert answer.status_code == 400
    assert "sequence number" in answer.json()["error"]
    answer = Client().get(events_url(table.campaign), {"token": secret}, headers={"Last-Event-ID": cursor})
    assert answer.status_code == 400


# -- the stream, through the app's ASGI application ------------------------------------------------


class Stream:
    """One client of the feed, speaking ASGI to ``tabletop.asgi.application``."""

    def __init__(
        self, campaign_id: int, secret: str, *, after: int | None = None, last_id: int | None = None
    ):
        query = f"after={after}" if after is not None else ""
        headers = [(b"host", b"testserver"), (b"authorization", f"Bearer {secret}".encode())]
        if last_id is not None:
            headers.append((b"last-event-id", str(last_id).encode()))
        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": "GET",
            "scheme": "http",
            "path": events_url(campaign_id),
            "raw_path": events_url(campaign_id).encode(),
            "root_path": "",
            "query_string": query.encode(),
            "headers": headers,
            "client": ("127.0.0.1", 50000),
            "server": ("testserver", 80),
        }
        self.app = ApplicationCommunicator(application, scope)
        self.buffer = ""
        self.ended = False
        self.status = 0
        self.headers: dict[bytes, bytes] = {}

    async def open(self) -> Stream:
        await self.app.send_input({"type": "http.request", "body": b"", "more_body": False})
        start = await self.app.receive_output(WAIT)
        assert start["type"] == "http.response.start"
        self.status = start["status"]
        self.headers = {name.lower(): value for name, value in start["headers"]}
        return self

    async def frames(self, count: int) -> list[dict[str, str]]:
        """The next ``count`` events (comments and the retry line skipped)."""
        found: list[dict[str, str]] = []
        while len(found) < count:
            while "\n\n" not in self.buffer:
                assert not self.ended, f"the stream ended after {found}"
                message = await self.app.receive_output(WAIT)
                self.buffer += message.get("body", b"").decode()
                self.ended = not message.get("more_body", False)
            block, self.buffer = self.buffer.split("\n\n", 1)
            fields: dict[str, str] = {}
            for line in block.split("\n"):
                if line and not line.startswith(":"):
                    name, _colon, value = line.partition(":")
                    fields[name] = value.removeprefix(" ")
            if "data" in fields:
                found.append(fields)
        return found

    async def events(self, count: int) -> list[dict[str, Any]]:
        frames = await self.frames(count)
        for frame in frames:
            assert "event" not in frame, frame
        parsed = [json.loads(frame["data"]) for frame in frames]
        assert [int(frame["id"]) for frame in frames] == [event["seq"] for event in parsed]
        for event in parsed:
            assert schema_errors(event) == []
        return parsed

    async def nothing_more(self, seconds: float = 0.3) -> None:
        assert "data:" not in self.buffer
        assert await self.app.receive_nothing(seconds)

    async def close(self) -> None:
        await self.app.send_input({"type": "http.disconnect"})
        await self.app.wait(WAIT)


def last_seq(table: Table) -> int:
    return Campaign.objects.get(pk=table.campaign.pk).last_seq


async def key(table: Table, name: str = "Foundry bridge") -> tuple[FeedToken, str]:
    return await database_sync_to_async(tokens.token_create)(campaign=table.campaign, name=name)


@pytest.mark.django_db(transaction=True)
async def test_a_roll_reaches_an_open_stream_as_it_is_made(table: Table) -> None:
    _token, secret = await key(table)
    feed = await Stream(table.campaign.pk, secret).open()
    assert feed.status == 200
    assert feed.headers[b"content-type"].startswith(b"text/event-stream")
    assert b"no-cache" in feed.headers[b"cache-control"]
    roll = await database_sync_to_async(public_roll)(table)
    [event] = await feed.events(1)
    assert event["kind"] == "roll" and event["version"] == 1
    assert event["roll"]["id"] == roll.pk and event["roll"]["hidden"] is False
    assert event["roll"]["who"] == {
        "character": "Olle",
        "player": "Player",
        "npc": False,
        "target": None,
        "helper": None,
    }
    assert event["roll"]["what"]["intent"] == "climbs the fence"
    assert [die["face"] for die in event["roll"]["steps"][0]["dice"]] == [6, 2, 2]
    assert event["roll"]["outcome"]["success"] is True
    assert 0 < event["roll"]["odds"]["chance"] < 1
    assert event["roll"]["url"] == f"http://testserver/c/{table.campaign.pk}/rolls/{roll.pk}/" or event[
        "roll"
    ]["url"].endswith(f"/c/{table.campaign.pk}/rolls/{roll.pk}/")
    assert "Olle rolled 3 dice" in event["text"]
    await feed.close()
    assert stream.open_streams() == 0


@pytest.mark.django_db(transaction=True)
async def test_a_client_that_reconnects_with_last_event_id_gets_exactly_what_it_missed(table: Table) -> None:
    token, secret = await key(table)
    feed = await Stream(table.campaign.pk, secret).open()
    await database_sync_to_async(public_roll)(table)
    [seen] = await feed.events(1)
    await feed.close()
    assert stream.open_streams(token.pk) == 0
    # While it is away: two rolls, a follow-up on one, and a join the feed leaves out.
    first = await database_sync_to_async(public_roll)(table)
    await database_sync_to_async(factories.member)(table.campaign, name="Kim")
    await database_sync_to_async(public_roll)(table)
    missed = await database_sync_to_async(
        lambda: list(
            LogEntry.objects.filter(campaign=table.campaign, seq__gt=seen["seq"], roll__isnull=False)
            .order_by("seq")
            .values_list("seq", flat=True)
        )
    )()
    assert len(missed) == 2
    again = await Stream(table.campaign.pk, secret, last_id=seen["seq"]).open()
    got = await again.events(2)
    assert [event["seq"] for event in got] == missed
    assert got[0]["roll"]["id"] == first.pk
    await again.nothing_more()
    # And live again, from there.
    await database_sync_to_async(public_roll)(table)
    [live] = await again.events(1)
    assert live["seq"] == await database_sync_to_async(last_seq)(table)
    await again.close()


@pytest.mark.django_db(transaction=True)
async def test_after_resumes_too_and_the_header_wins_over_it(table: Table) -> None:
    _token, secret = await key(table)
    rolls = [await database_sync_to_async(public_roll)(table) for _n in range(3)]
    seqs = await database_sync_to_async(
        lambda: list(LogEntry.objects.filter(roll__in=rolls).order_by("seq").values_list("seq", flat=True))
    )()
    feed = await Stream(table.campaign.pk, secret, after=seqs[0]).open()
    assert [event["seq"] for event in await feed.events(2)] == seqs[1:]
    await feed.close()
    feed = await Stream(table.campaign.pk, secret, after=0, last_id=seqs[1]).open()
    assert [event["seq"] for event in await feed.events(1)] == seqs[2:]
    await feed.nothing_more()
    await feed.close()


@pytest.mark.django_db(transaction=True)
async def test_secret_and_blind_rolls_come_without_their_dice_as_the_tv_shows_them(table: Table) -> None:
    _token, secret = await key(table)
    feed = await Stream(table.campaign.pk, secret).open()
    hidden = await database_sync_to_async(secret_roll)(table)
    blind = await database_sync_to_async(blind_roll)(table)
    await database_sync_to_async(push_hidden)(blind, table.player)
    frames = await feed.frames(3)
    raw = "".join(frame["data"] for frame in frames)
    for words in (SECRET_INTENT, BLIND_INTENT, BLIND_TRAIT, "The warden", "push"):
        assert words not in raw
    gm_roll, blind_event, pushed = [json.loads(frame["data"]) for frame in frames]
    for event in (gm_roll, blind_event, pushed):
        assert schema_errors(event) == []
        shown = event["roll"]
        assert shown["hidden"] is True
        assert (
            shown["what"] is None
            and shown["steps"] == []
            and shown["outcome"] is None
            and shown["odds"] is None
        )
    assert gm_roll["roll"]["who"]["character"] is None and gm_roll["text"] == "The GM rolled in secret."
    assert blind_event["roll"]["who"]["character"] == "Olle" and blind_event["text"] == "Olle rolled blind."
    assert pushed["kind"] == "follow-up" and pushed["text"] == "Olle rolled blind."
    assert {event["action"] for event in (gm_roll, blind_event, pushed)} == {"secret"}
    # Revealed by the GM: the table sees it now, and so does the feed.
    await database_sync_to_async(marks.roll_reveal)(roll=hidden, gm=table.gm)
    [revealed] = await feed.events(1)
    assert revealed["kind"] == "reveal" and revealed["roll"]["hidden"] is False
    assert revealed["roll"]["what"]["intent"] == SECRET_INTENT
    await feed.close()


@pytest.mark.django_db(transaction=True)
async def test_the_tables_decisions_are_lines_and_its_housekeeping_is_left_out(table: Table) -> None:
    _token, secret = await key(table)
    feed = await Stream(table.campaign.pk, secret).open()
    await database_sync_to_async(factories.member)(table.campaign, name="Kim")  # left out
    roll = await database_sync_to_async(public_roll)(table)
    await database_sync_to_async(marks.roll_void)(roll=roll, gm=table.gm)
    from rolls.campaigns import services as campaigns

    await database_sync_to_async(campaigns.session_end)(campaign=table.campaign, actor=table.gm)
    made, void, ended = await feed.events(3)
    assert (made["kind"], void["kind"], ended["kind"]) == ("roll", "void", "table")
    assert void["roll"]["voided"] is True
    assert ended["action"] == "session-end" and ended["roll"] is None and ended["text"]
    await feed.close()


@pytest.mark.django_db(transaction=True)
async def test_a_revoked_key_closes_its_open_streams_at_once(table: Table) -> None:
    token, secret = await key(table)
    feed = await Stream(table.campaign.pk, secret).open()
    other = await Stream(table.campaign.pk, secret).open()
    assert stream.open_streams(token.pk) == 2
    await database_sync_to_async(tokens.token_revoke)(token=token)
    for each in (feed, other):
        [frame] = await each.frames(1)
        assert frame["event"] == "revoked"
        while not each.ended:
            message = await each.app.receive_output(WAIT)
            each.ended = not message.get("more_body", False)
        await each.app.wait(WAIT)
    assert stream.open_streams(token.pk) == 0
    refused = await Stream(table.campaign.pk, secret).open()
    assert refused.status == 401


@pytest.mark.django_db(transaction=True)
async def test_an_idle_stream_sends_keep_alives_and_catches_up_from_the_log(
    table: Table, settings: Settings
) -> None:
    settings.FEED_KEEPALIVE = 1
    _token, secret = await key(table)
    feed = await Stream(table.campaign.pk, secret).open()
    message = await feed.app.receive_output(WAIT)  # the retry line
    assert message["body"].startswith(b"retry:")
    message = await feed.app.receive_output(WAIT)
    assert message["body"] == b": keep-alive\n\n"
    await feed.close()


@pytest.mark.django_db(transaction=True)
async def test_a_key_revoked_where_no_message_reaches_the_stream_stops_it_at_the_next_keep_alive(
    table: Table, settings: Settings
) -> None:
    """Revoked by another process whose layer this one does not share: the row alone says so."""
    settings.FEED_KEEPALIVE = 1
    token, secret = await key(table)
    feed = await Stream(table.campaign.pk, secret).open()
    await database_sync_to_async(
        lambda: FeedToken.objects.filter(pk=token.pk).update(revoked=timezone.now())
    )()
    [frame] = await feed.frames(1)
    assert frame["event"] == "revoked"
    await feed.app.wait(WAIT)
    assert stream.open_streams() == 0


@pytest.mark.django_db(transaction=True)
async def test_too_many_streams_of_one_key_are_refused_until_one_closes(
    table: Table, settings: Settings
) -> None:
    settings.FEED_STREAMS_PER_TOKEN = 1
    _token, secret = await key(table)
    first = await Stream(table.campaign.pk, secret).open()
    second = await Stream(table.campaign.pk, secret).open()
    assert second.status == 429 and second.headers[b"retry-after"] == b"30"
    await second.app.wait(WAIT)
    await first.close()
    third = await Stream(table.campaign.pk, secret).open()
    assert third.status == 200
    await third.close()


def test_every_public_entry_of_an_evening_validates_against_the_schema(table: Table) -> None:
    """A demo evening's every entry, as the feed reads it, validates; and none hides a roll the
    table display would show."""
    from rolls.bridges.events import event_of, included

    for roll_maker in (public_roll, secret_roll, blind_roll):
        roll_maker(table)
    entries = LogEntry.objects.filter(campaign=table.campaign).select_related("roll").order_by("seq")
    events = [
        event_of(entry, table.campaign, {}, "https://dice.example.org")
        for entry in entries
        if included(entry)
    ]
    assert {event["kind"] for event in events} >= {"roll", "table"}
    for event in events:
        assert schema_errors(event) == [], event
    assert all(
        event["roll"] is None or event["roll"]["url"].startswith("https://dice.example.org/")
        for event in events
    )
    assert Roll.objects.filter(campaign=table.campaign).count() == 3


# -- the example client, against a real server ----------------------------------------------------


def _read_line(process: subprocess.Popen[str]) -> dict[str, Any]:
    assert process.stdout is not None
    line = process.stdout.readline()
    assert line, f"the client stopped: {process.stderr.read() if process.stderr else ''}"
    return dict(json.loads(line))


@pytest.mark.django_db(transaction=True)
def test_the_example_client_follows_the_feed_and_resumes_after_the_server_restarts(
    table: Table, tmp_path: Path
) -> None:
    """docs/feed_client.py against uvicorn serving the app in a process of its own: a roll
    arrives; the server goes away, two rolls are made meanwhile, and once it is back the client
    gets exactly those two. (The server is another process, which hears nothing of this one's
    rolls on its in-memory layer: its keep-alive, a second here, finds them in the log.)"""
    _token, secret = tokens.token_create(campaign=table.campaign, name="Foundry bridge")
    start = last_seq(table)
    port = free_port()
    env = {"FEED_KEEPALIVE": "1"}
    client = None
    try:
        with server_process(port, tmp_path, env) as base:
            client = subprocess.Popen(
                [
                    sys.executable,
                    str(CLIENT),
                    f"http://{base}{events_url(table.campaign)}",
                    "--after",
                    str(start),
                    "--count",
                    "3",
                ],
                env={**os.environ, "TABLETOP_FEED_KEY": secret},
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            public_roll(table)
            first = _read_line(client)
        public_roll(table)  # while the server is away
        public_roll(table)
        with server_process(port, tmp_path, env):
            rest = [_read_line(client), _read_line(client)]
            assert client.wait(timeout=WAIT) == 0
    finally:
        if client is not None and client.poll() is None:
            client.kill()
    rolls = list(
        LogEntry.objects.filter(campaign=table.campaign, seq__gt=start, roll__isnull=False).values_list(
            "seq", flat=True
        )
    )
    assert [event["seq"] for event in [first, *rest]] == rolls
    assert all(schema_errors(event) == [] for event in [first, *rest])
