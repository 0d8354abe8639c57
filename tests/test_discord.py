"""Rolls posted to Discord, end to end: the roll through the views, the worker of Django's
tasks framework run as ``db_worker --batch`` in this process, and a real HTTP server that
answers as Discord's webhook API does (tests/discord_double.py). No mock of HTTP."""

from __future__ import annotations

import random
import signal
import socket
import time
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from rolls.discord import webhooks
from rolls.models import LogEntry, Roll
from rolls.play import services
from rolls.play.npc import NpcRollForm
from rolls.systems import RulesError
from tabletop.models import Campaign, DiscordFeed, DiscordWebhook
from tests import factories
from tests.discord_double import Double
from tests.factories import Table, logged_in, npc_baseline, posted

TOKEN = "k" * 34 + "Q_-9" * 8 + "z" * 2  # 68 characters, as Discord's are
TABLE_ID, GM_ID = "111111111111111111", "222222222222222222"
TABLE_URL = f"https://discord.com/api/webhooks/{TABLE_ID}/{TOKEN}"
GM_URL = f"https://discord.com/api/webhooks/{GM_ID}/{TOKEN[::-1]}"

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def double(settings: Any) -> Iterator[Double]:
    found = Double(limit=5, window=0.5).start()
    settings.DISCORD_API_URL = found.url
    settings.DISCORD_TIMEOUT = 0.5
    settings.DISCORD_RETRY_AFTER = 60
    settings.DISCORD_LONGEST_WAIT = 5
    yield found
    found.stop()


def run_worker() -> None:
    """Every task that is due, run by the tasks backend's own worker command, then back."""
    handlers = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGQUIT)}
    try:
        call_command(
            "db_worker", "--batch", "--no-startup-delay", "--interval", "0", "--no-reload", verbosity=0
        )
    finally:
        for sig, handler in handlers.items():
            signal.signal(sig, handler)


def due_now() -> None:
    """The time a retry waits for has come."""
    past = timezone.now() - timedelta(seconds=1)
    DBTaskResult.objects.filter(status="READY").update(run_after=past)
    DiscordWebhook.objects.exclude(retry_at=None).update(retry_at=past)


def a_table() -> Table:
    return factories.table()


def save(client: Client, campaign: Campaign, url: str, audience: str = "table") -> Any:
    return client.post(
        reverse("rolls:discord-save", args=[campaign.pk]),
        {"audience": audience, "url": url},
        HTTP_HX_REQUEST="true",
    )


def roll(client: Client, table: Table, **extra: Any) -> Any:
    path = reverse("rolls:roll-create", args=[table.campaign.pk, table.character.pk])
    return client.post(path, {"trait": "Body", "need": 1, **extra}, HTTP_HX_REQUEST="true")


def secret_npc_roll(table: Table) -> Roll:
    form = NpcRollForm(posted(npc_baseline(table.campaign)), campaign=table.campaign)
    assert form.is_valid(), form.errors
    return services.npc_roll_create(
        campaign=table.campaign,
        gm=table.gm,  # type: ignore[arg-type]
        name="Shadow",
        request=form.engine_request(),
        secret=True,
        target=None,
        intent="open the vault",
        rng=random.Random(3),
    )


def test_a_roll_is_posted_once_with_its_embed(double: Double) -> None:
    table = a_table()
    gm, player = logged_in(table.gm), logged_in(table.player)
    assert save(gm, table.campaign, TABLE_URL).status_code == 200
    assert roll(player, table, intent="jump the fence").status_code == 200
    run_worker()
    run_worker()  # nothing left: nothing posted again
    posts = double.to(TABLE_ID)
    assert len(posts) == 1
    embed = posts[0].embed
    made = Roll.objects.get()
    assert embed["title"].startswith("Olle: ")
    assert "jump the fence" in embed["description"]
    fields = {field["name"]: field["value"] for field in embed["fields"]}
    assert "Rolled" in fields or any("Roll" in name for name in fields)
    assert fields["Outcome"]
    assert fields["Odds"].endswith("%")
    assert embed["url"] == "http://testserver" + reverse("rolls:roll", args=[table.campaign.pk, made.pk])
    assert "The Loop" in embed["footer"]["text"]
    assert posts[0].body["allowed_mentions"] == {"parse": []}
    assert double.answers == [200]  # posted with ?wait=true


def test_a_follow_up_and_the_sessions_decisions_are_posted_in_order(double: Double, dice: Any) -> None:
    table = a_table()
    gm, player = logged_in(table.gm), logged_in(table.player)
    save(gm, table.campaign, TABLE_URL)
    dice(1, 1, 2)
    roll(player, table)
    made = Roll.objects.get()
    dice(6, 1, 1)
    player.post(
        reverse("rolls:follow-up", args=[table.campaign.pk, made.pk]),
        {"action": "push", "condition": "Scared", "description": "pedals harder"},
        HTTP_HX_REQUEST="true",
    )
    gm.post(reverse("rolls:roll-void", args=[table.campaign.pk, made.pk]))
    gm.post(reverse("rolls:session-end", args=[table.campaign.pk]), {"confirmed": "yes"})
    run_worker()
    posts = double.to(TABLE_ID)
    kinds = [LogEntry.objects.get(campaign=table.campaign, seq=s).action for s in _seqs(table.campaign)]
    assert kinds[-4:] == ["roll", "push", "roll-void", "session-end"]
    assert len(posts) == 4
    assert "Pushed" in posts[1].embed["description"]
    first = LogEntry.objects.get(roll=made, kind="roll").seq
    assert posts[2].embed["title"] == f"Roll #{first}"
    assert posts[2].embed["url"].endswith(reverse("rolls:roll", args=[table.campaign.pk, made.pk]))
    assert "Session" in posts[3].embed["description"]


def _seqs(campaign: Campaign) -> list[int]:
    return list(LogEntry.objects.filter(campaign=campaign).order_by("seq").values_list("seq", flat=True))


def test_a_secret_roll_is_never_on_the_public_webhook_and_once_on_the_gms(double: Double) -> None:
    table = a_table()
    gm = logged_in(table.gm)
    save(gm, table.campaign, TABLE_URL)
    save(gm, table.campaign, GM_URL, audience="gm")
    secret_npc_roll(table)
    roll(logged_in(table.player), table)
    run_worker()
    run_worker()
    public, private = double.to(TABLE_ID), double.to(GM_ID)
    assert len(public) == 1 and public[0].embed["title"].startswith("Olle")
    assert "Shadow" not in str(public) and "vault" not in str(public)
    assert len(private) == 1
    assert private[0].embed["title"].startswith("Shadow")
    assert "Secret" in private[0].embed["description"]


def test_a_secret_roll_revealed_later_reaches_the_table_channel_then(double: Double) -> None:
    table = a_table()
    gm = logged_in(table.gm)
    save(gm, table.campaign, TABLE_URL)
    save(gm, table.campaign, GM_URL, audience="gm")
    made = secret_npc_roll(table)
    gm.post(reverse("rolls:roll-reveal", args=[table.campaign.pk, made.pk]), {"confirmed": "yes"})
    run_worker()
    assert len(double.to(GM_ID)) == 1  # as it was when rolled: the GM's alone
    public = double.to(TABLE_ID)
    assert len(public) == 1 and public[0].embed["title"].startswith("Shadow")
    assert "Revealed" in public[0].embed["description"]


def test_a_429_is_answered_by_waiting_retry_after_then_posting(double: Double) -> None:
    table = a_table()
    save(logged_in(table.gm), table.campaign, TABLE_URL)
    double.script.append((429, 0.4))
    roll(logged_in(table.player), table)
    run_worker()
    assert double.answers == [429, 200]
    assert len(double.to(TABLE_ID)) == 1
    # The post came after the wait (the double notes when it took it).
    assert DiscordWebhook.objects.get().cursor == Campaign.objects.get().last_seq


def test_fifty_rolls_in_a_burst_are_all_posted_in_order_none_twice(double: Double) -> None:
    table = a_table()
    save(logged_in(table.gm), table.campaign, TABLE_URL)
    rng = random.Random(7)
    data = {"trait": "Body", "need": 1}
    form = factories.registry.table("sixes").roll_form(posted(data), character=table.character)
    assert form.is_valid(), form.errors
    for _ in range(50):
        services.roll_create(
            character=table.character,
            roller=table.player,
            data=form.engine_data(),
            helper=None,
            intent="",
            rng=rng,  # type: ignore[arg-type]
        )
    # A burst queues one flush, not fifty.
    assert DBTaskResult.objects.count() == 1
    started = time.monotonic()
    run_worker()
    posts = double.to(TABLE_ID)
    numbers = [int(post.embed["footer"]["text"].rsplit("#", 1)[1]) for post in posts]
    assert len(posts) == 50
    assert numbers == sorted(set(numbers))
    # Discord's bucket (5 a half second here) honoured from its headers: never a 429.
    assert double.limited == 0
    assert time.monotonic() - started >= 0.5 * (50 // 5 - 1)


def test_an_outage_delays_the_posts_but_never_a_roll(double: Double, settings: Any) -> None:
    table = a_table()
    player = logged_in(table.player)
    save(logged_in(table.gm), table.campaign, TABLE_URL)
    with socket.socket() as closed:  # a port nobody listens on: Discord is down
        closed.bind(("127.0.0.1", 0))
        settings.DISCORD_API_URL = f"http://127.0.0.1:{closed.getsockname()[1]}"
    started = time.monotonic()
    assert roll(player, table).status_code == 200
    assert time.monotonic() - started < 1  # the roll waits for nothing of Discord's
    run_worker()
    hook = DiscordWebhook.objects.get()
    assert hook.failures == 1 and hook.cursor < Campaign.objects.get().last_seq
    # A server that takes the post and never answers: the worker gives up after its timeout.
    settings.DISCORD_API_URL = double.url
    double.hang = True
    assert roll(player, table).status_code == 200
    due_now()
    run_worker()
    assert double.taken == [] and DiscordWebhook.objects.get().failures == 2
    # Back: both rolls go out once the retry's time comes, once each.
    double.hang = False
    double._release.set()
    due_now()
    run_worker()
    run_worker()
    assert len(double.to(TABLE_ID)) == 2
    assert DiscordWebhook.objects.get().failures == 0


def test_a_404_turns_the_webhook_off_with_a_note_for_the_gm(double: Double) -> None:
    table = a_table()
    gm = logged_in(table.gm)
    save(gm, table.campaign, TABLE_URL)
    double.gone.add(TABLE_ID)
    roll(logged_in(table.player), table)
    run_worker()
    hook = DiscordWebhook.objects.get()
    assert "404" in hook.note
    assert Campaign.objects.get().discord is False
    console = gm.get(reverse("rolls:session", args=[table.campaign.pk])).content.decode()
    assert "no longer exists (404)" in console
    # Turned off: a roll wakes nothing more.
    tasks = DBTaskResult.objects.count()
    roll(logged_in(table.player), table)
    assert DBTaskResult.objects.count() == tasks


@pytest.mark.parametrize(
    "url",
    [
        "",
        "http://discord.com/api/webhooks/1111111111/" + TOKEN,
        "https://discord.com.evil.example/api/webhooks/1111111111/" + TOKEN,
        "https://evil.example/api/webhooks/1111111111/" + TOKEN,
        "https://discord.com/api/webhooks/not-a-number/" + TOKEN,
        "https://discord.com/api/webhooks/1111111111/" + TOKEN + "/../../x",
        "javascript:alert(1)",
        "https://discord.com/api/webhooks/1111111111/" + TOKEN + "x" * 300,
    ],
)
def test_a_bad_url_is_refused_with_a_message_and_nothing_is_saved(url: str) -> None:
    table = a_table()
    response = save(logged_in(table.gm), table.campaign, url)
    assert response.status_code == 422
    assert 'role="alert"' in response.content.decode()
    assert not DiscordWebhook.objects.exists()
    assert Campaign.objects.get().discord is False


@pytest.mark.django_db(transaction=False)
@pytest.mark.parametrize(
    "url",
    [
        TABLE_URL,
        f"https://discordapp.com/api/webhooks/{TABLE_ID}/{TOKEN}",
        f"https://ptb.discord.com/api/webhooks/{TABLE_ID}/{TOKEN}",
        f"https://canary.discord.com/api/v10/webhooks/{TABLE_ID}/{TOKEN}/",
    ],
)
def test_discords_hosts_are_taken(url: str) -> None:
    assert webhooks.checked_url(url) == url.rstrip("/")
    assert TOKEN not in webhooks.masked(webhooks.checked_url(url))


@pytest.mark.django_db(transaction=False)
def test_a_plain_http_url_is_refused_in_words() -> None:
    with pytest.raises(RulesError, match="https://"):
        webhooks.checked_url("http://discord.com/api/webhooks/1/2")


def test_a_player_can_neither_read_nor_set_the_webhooks(double: Double) -> None:
    table = a_table()
    gm, player, outsider = logged_in(table.gm), logged_in(table.player), logged_in(table.outsider)
    save(gm, table.campaign, TABLE_URL)
    pk = table.campaign.pk
    for name in ("rolls:discord-save", "rolls:discord-remove", "rolls:discord-test"):
        data = {"audience": "table", "url": GM_URL}
        assert player.post(reverse(name, args=[pk]), data).status_code == 403
        assert outsider.post(reverse(name, args=[pk]), data).status_code == 404
        assert Client().post(reverse(name, args=[pk]), data).status_code in (302, 403)
    assert DiscordWebhook.objects.get().url == TABLE_URL
    roll(player, table)
    made = Roll.objects.get()
    pages = [
        player.get(reverse("rolls:campaign", args=[pk])),
        player.get(reverse("rolls:history", args=[pk])),
        player.get(reverse("rolls:roll", args=[pk, made.pk])),
        player.get(reverse("rolls:session", args=[pk])),
        gm.get(reverse("rolls:export", args=[pk]) + "?format=json"),
        gm.get(reverse("rolls:export", args=[pk]) + "?format=csv"),
        gm.get(reverse("rolls:display", args=[table.campaign.display_token])),
        gm.get(reverse("rolls:session", args=[pk])),
    ]
    for page in pages:
        assert page.status_code in (200, 403)
        body = b"".join(page.streaming_content) if page.streaming else page.content  # type: ignore[attr-defined]
        assert TOKEN.encode() not in body
    console = pages[-1].content.decode()
    assert f"https://discord.com/api/webhooks/{TABLE_ID}/••••••••" in console


def test_the_test_button_posts_a_test_message(double: Double) -> None:
    table = a_table()
    gm = logged_in(table.gm)
    assert (
        gm.post(reverse("rolls:discord-test", args=[table.campaign.pk]), {"audience": "table"}).status_code
        == 302
    )
    save(gm, table.campaign, TABLE_URL)
    response = gm.post(
        reverse("rolls:discord-test", args=[table.campaign.pk]), {"audience": "table"}, HTTP_HX_REQUEST="true"
    )
    assert "on its way" in response.content.decode()
    run_worker()
    posts = double.to(TABLE_ID)
    assert len(posts) == 1 and posts[0].embed["title"] == "Tabletop is connected"


def test_the_gm_removes_a_webhook_and_nothing_more_is_posted(double: Double) -> None:
    table = a_table()
    gm = logged_in(table.gm)
    save(gm, table.campaign, TABLE_URL)
    gm.post(reverse("rolls:discord-remove", args=[table.campaign.pk]), {"audience": "table"})
    assert not DiscordWebhook.objects.exists() and Campaign.objects.get().discord is False
    roll(logged_in(table.player), table)
    run_worker()
    assert double.taken == []


def test_a_post_speaks_the_campaigns_language(double: Double) -> None:
    table = a_table()
    Campaign.objects.filter(pk=table.campaign.pk).update(language="de")
    save(logged_in(table.gm), table.campaign, TABLE_URL)
    roll(logged_in(table.player), table)
    run_worker()
    names = [field["name"] for field in double.to(TABLE_ID)[0].embed["fields"]]
    assert "Ergebnis" in names and "Chancen" in names


def test_one_flush_at_a_time_the_other_comes_back_after_it(double: Double) -> None:
    table = a_table()
    save(logged_in(table.gm), table.campaign, TABLE_URL)
    # Another worker holds the campaign (posting now, or died a minute ago with its lease).
    DiscordFeed.objects.filter(campaign=table.campaign).update(
        holder="elsewhere", held_until=timezone.now() + timedelta(minutes=1)
    )
    roll(logged_in(table.player), table)
    run_worker()
    assert double.taken == []
    assert DiscordFeed.objects.get(campaign=table.campaign).pending  # it comes back
    DiscordFeed.objects.filter(campaign=table.campaign).update(holder="", held_until=None)
    due_now()
    run_worker()
    assert len(double.to(TABLE_ID)) == 1


def test_a_429_longer_than_a_run_waits_is_left_to_a_later_run(double: Double) -> None:
    table = a_table()
    save(logged_in(table.gm), table.campaign, TABLE_URL)
    double.script.append((429, 120))
    roll(logged_in(table.player), table)
    started = time.monotonic()
    run_worker()
    assert time.monotonic() - started < 5  # the worker did not sit out two minutes
    assert double.taken == []
    later = DBTaskResult.objects.filter(status="READY").get()
    assert later.run_after > timezone.now() + timedelta(seconds=100)
    due_now()
    run_worker()
    assert len(double.to(TABLE_ID)) == 1
