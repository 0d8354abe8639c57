"""The campaign's history, browsed: filters that combine, keyset pages that miss and repeat
nothing while rolls arrive, table events beside the rolls, and nothing a player may not see."""

from __future__ import annotations

import importlib
import re
from typing import Any

import pytest
from django.apps import apps
from django.test import Client
from django.urls import reverse

from rolls import registry
from rolls.campaigns import services as campaigns
from rolls.models import LogEntry, Roll
from rolls.play import services
from tests import factories
from tests.factories import ScriptedDice, Table, logged_in

ROLL_ID = re.compile(r'id="history-roll-(\d+)"')
EVENT_SEQ = re.compile(r'id="event-(\d+)"')


def roll(table: Table, *faces: int, **data: Any) -> Roll:
    """A roll of Olle's: Body alone (three dice), needing one six unless told."""
    return services.roll_create(
        character=table.character,
        roller=table.player,
        data={"attribute": "Body", "need": "1", **data},
        helper=None,
        intent="",
        rng=ScriptedDice(*faces, then=1),
    )


def secret_roll(table: Table, *faces: int, name: str = "Ghost") -> Roll:
    return services.npc_roll_create(
        campaign=table.campaign,
        gm=table.gm,
        name=name,
        request=registry.engine("sixes").parse_request({"dice": 3}),
        secret=True,
        target=None,
        intent="sneaks up",
        rng=ScriptedDice(*faces, then=1),
    )


def shown(client: Client, table: Table, **query: Any) -> list[int]:
    """The ids of the rolls on one page of the history, in order."""
    response = client.get(reverse("rolls:history", args=[table.campaign.pk]), query)
    assert response.status_code == 200, response.content.decode()
    return [int(found) for found in ROLL_ID.findall(response.content.decode())]


def page_html(client: Client, table: Table, query: str = "") -> str:
    response = client.get(reverse("rolls:history", args=[table.campaign.pk]) + query)
    assert response.status_code == 200
    return str(response.content.decode())


@pytest.mark.django_db
def test_the_outcome_is_kept_on_the_roll_as_its_entries_are_appended_SIX_23(table: Table) -> None:
    failed = roll(table, 1, 2, 3, 4)
    assert failed.outcome == Roll.objects.get(pk=failed.pk).outcome == "failure"
    # Pushed into a success: the row follows the log (SIX-23: a push rerolls the dice not sixes).
    services.follow_up_apply(
        roll=failed,
        actor=table.player,
        action="push",
        params={"condition": "Scared", "description": "Ada runs for it"},
        rng=ScriptedDice(6, then=1),
    )
    assert Roll.objects.get(pk=failed.pk).outcome == "success"
    assert roll(table, 6, 1, 1, 1).outcome == "success"


@pytest.mark.django_db
def test_filters_combine_and_the_url_keeps_them(table: Table) -> None:
    hit = roll(table, 6, 1, 1, 1)
    miss = roll(table, 1, 1, 1, 1)
    pushed = roll(table, 1, 1, 1, 1)
    services.follow_up_apply(
        roll=pushed,
        actor=table.player,
        action="push",
        params={"condition": "Scared", "description": "Ada runs for it"},
        rng=ScriptedDice(6, then=1),
    )
    bea = factories.character(table.campaign, table.gm, name="Bea")
    bea_hit = services.roll_create(
        character=bea, roller=table.gm, data={"attribute": "Body", "need": "1"}, helper=None, intent="",
        rng=ScriptedDice(6, then=1),
    )  # fmt: skip
    gm = logged_in(table.gm)

    assert shown(gm, table, outcome="success") == [bea_hit.pk, pushed.pk, hit.pk]
    assert shown(gm, table, outcome="success", character=table.character.pk) == [pushed.pk, hit.pk]
    assert shown(gm, table, outcome="success", follow_up="push") == [pushed.pk]
    assert shown(gm, table, outcome="failure") == [miss.pk]
    assert shown(gm, table, player=table.gm.pk) == [bea_hit.pk]
    assert shown(gm, table, follow_up="push", player=table.gm.pk) == []
    session = table.campaign.open_session()
    assert session is not None
    assert shown(gm, table, session=session.pk, outcome="failure") == [miss.pk]
    today = hit.created.date().isoformat()
    assert shown(gm, table, since=today, until=today, outcome="failure") == [miss.pk]
    assert shown(gm, table, since="2000-01-01", until="2000-01-02") == []
    # The form shows what it filters on, so the URL and the form say the same.
    html = page_html(gm, table, f"?outcome=success&follow_up=push&character={table.character.pk}")
    assert '<option value="success" selected>' in html
    assert '<option value="push" selected>' in html
    assert "3 set" in html


@pytest.mark.django_db
def test_a_date_filter_is_whole_days_in_the_sites_time_zone_to_the_calendars_ends(
    table: Table, settings: Any
) -> None:
    made = roll(table, 6)
    gm = logged_in(table.gm)
    # A roll at 23:30 UTC on 1 March is on 2 March in Helsinki (UTC+2): that day holds it.
    # (The log's times follow its order: what came before it, earlier.)
    log = LogEntry.objects.filter(campaign=table.campaign)
    log.exclude(roll=made).update(created="2026-03-01T20:00:00Z")
    log.filter(roll=made).update(created="2026-03-01T23:30:00Z")
    settings.TIME_ZONE = "Europe/Helsinki"
    assert shown(gm, table, since="2026-03-02", until="2026-03-02") == [made.pk]
    assert shown(gm, table, since="2026-03-01", until="2026-03-01") == []
    settings.TIME_ZONE = "UTC"
    assert shown(gm, table, since="2026-03-01", until="2026-03-01") == [made.pk]
    # The first and the last days there are: every entry, and no error.
    assert shown(gm, table, since="0001-01-01", until="9999-12-31") == [made.pk]


def test_a_bad_filter_value_gets_a_clear_message(table: Table) -> None:
    roll(table, 6, 1, 1, 1)
    player = logged_in(table.player)
    path = reverse("rolls:history", args=[table.campaign.pk])
    for query, words in (
        ({"outcome": "cursed"}, "Outcome: Select a valid choice."),
        ({"follow_up": "drama"}, "Follow-up used: Select a valid choice."),
        ({"since": "yesterday"}, "From: Enter a valid date."),
        ({"since": "2026-02-01", "until": "2026-01-01"}, "The first date comes after the last one."),
        ({"kind": "dreams"}, "Show: Select a valid choice."),
    ):
        response = player.get(path, query)
        assert response.status_code == 400
        assert words in response.content.decode(), query
        assert not ROLL_ID.search(response.content.decode())


@pytest.mark.django_db
def test_keyset_pages_miss_and_repeat_nothing_while_rolls_arrive(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rolls.history import browse as history

    monkeypatch.setattr(history, "PAGE_SIZE", 5)
    made = [roll(table, 6, 1, 1, 1).pk for _ in range(12)]
    client = logged_in(table.player)
    seen: list[int] = []
    query = "?kind=rolls"
    while True:
        html = page_html(client, table, query)
        seen += [int(found) for found in ROLL_ID.findall(html)]
        # Two new rolls between every two pages: they go on top, nothing shifts below.
        roll(table, 6, 1, 1, 1)
        roll(table, 1, 1, 1, 1)
        older = re.search(r'rel="next" href="\?([^"]+)"', html)
        if older is None:
            break
        query = "?" + older.group(1).replace("&amp;", "&")
        assert "kind=rolls" in query and "before=" in query
    assert seen == made[::-1]

    # And back: "newer" from the last page walks up to the newest without a gap.
    newest_first = list(Roll.objects.order_by("-id").values_list("pk", flat=True))
    last_page = [int(found) for found in ROLL_ID.findall(html)]
    assert last_page == newest_first[-len(last_page) :]
    newer = re.search(r'rel="prev" href="\?([^"]+)"', html)
    assert newer is not None and "after=" in newer.group(1)


@pytest.mark.django_db
def test_a_deep_page_is_one_index_range_not_an_offset(table: Table) -> None:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    for _ in range(3):
        roll(table, 6, 1, 1, 1)
    before = LogEntry.objects.filter(campaign=table.campaign).order_by("-seq").first()
    assert before is not None
    with CaptureQueriesContext(connection) as queries:
        page_html(logged_in(table.gm), table, f"?before={before.seq}&outcome=success")
    listing = [q["sql"] for q in queries.captured_queries if "ORDER BY" in q["sql"] and '"seq" <' in q["sql"]]
    assert listing and all("OFFSET" not in sql for sql in listing)


@pytest.mark.django_db
def test_table_events_are_in_the_history_marked_apart_and_filterable(table: Table) -> None:
    made = roll(table, 6, 1, 1, 1)
    campaigns.session_end(campaign=table.campaign, actor=table.gm)
    client = logged_in(table.player)

    both = page_html(client, table)
    assert f'id="history-roll-{made.pk}"' in both
    assert 'class="event event-session-end"' in both and "Session 1 ended." in both
    assert 'class="event event-session-start"' in both

    events = page_html(client, table, "?kind=events")
    assert not ROLL_ID.search(events) and "Session 1 ended." in events
    rolls = page_html(client, table, "?kind=rolls")
    assert ROLL_ID.search(rolls) and not EVENT_SEQ.search(rolls)
    # A filter only a roll has leaves the events out.
    assert not EVENT_SEQ.search(page_html(client, table, "?outcome=success"))


@pytest.mark.django_db
def test_the_events_of_a_session_are_those_from_its_start_to_the_next(table: Table) -> None:
    campaigns.session_end(campaign=table.campaign, actor=table.gm)
    campaigns.session_start(campaign=table.campaign, actor=table.gm)
    first, second = table.campaign.sessions.order_by("number")
    one = page_html(logged_in(table.gm), table, f"?session={first.pk}")
    two = page_html(logged_in(table.gm), table, f"?session={second.pk}")
    assert "Session 1 ended." in one and "Session 2 started" not in one
    assert "Session 2 started" in two and "Session 1 ended." not in two


def _events_page_queries(table: Table) -> tuple[int, str]:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    client = logged_in(table.gm)
    page_html(client, table, "?kind=events")  # the session and its user read once, as later
    with CaptureQueriesContext(connection) as queries:
        html = page_html(client, table, "?kind=events")
    return len(queries), html


@pytest.mark.django_db
def test_each_session_start_goes_under_its_session_without_a_query_apiece(table: Table) -> None:
    """A page of events read the session each "session started" began, one query per event;
    the page reads the sessions of all its entries at once."""
    for _ in range(2):
        campaigns.session_end(campaign=table.campaign, actor=table.gm)
        campaigns.session_start(campaign=table.campaign, actor=table.gm)
    few, _ = _events_page_queries(table)
    for _ in range(4):
        campaigns.session_end(campaign=table.campaign, actor=table.gm)
        campaigns.session_start(campaign=table.campaign, actor=table.gm)
    many, html = _events_page_queries(table)
    assert many == few
    heads = re.findall(r'<h2 class="session-head">(Session \d+) ', html)
    assert heads == [f"Session {n}" for n in range(7, 0, -1)]
    for number in range(2, 8):  # each start under its own heading, the one it started
        part = html.split(f'<h2 class="session-head">Session {number} ', 1)[1].split("<h2", 1)[0]
        assert f"Session {number} started" in part


@pytest.mark.django_db
def test_a_player_never_finds_a_secret_roll_through_the_filters(table: Table) -> None:
    hidden = secret_roll(table, 6, 6, 6)
    open_roll = roll(table, 6, 1, 1, 1)
    player, gm = logged_in(table.player), logged_in(table.gm)

    # The list shows that the GM rolled, as every page does, but no filter on what it came to
    # matches it for a player: a match would say it. That it was secret its card says already.
    assert hidden.pk in shown(player, table)
    assert shown(player, table, outcome="success") == [open_roll.pk]
    assert shown(player, table, secret="yes") == [hidden.pk]
    assert shown(player, table, secret="yes", outcome="success") == []
    assert shown(player, table, secret="no") == [open_roll.pk]
    html = page_html(player, table, "?secret=yes")
    assert "Ghost" not in html and "sneaks up" not in html and 'data-face="6"' not in html
    # The form offers a player no such filter.
    assert 'name="secret"' not in page_html(player, table).replace('type="hidden" name="secret"', "")

    assert shown(gm, table, secret="yes") == [hidden.pk]
    assert shown(gm, table, outcome="success", secret="yes") == [hidden.pk]
    assert shown(gm, table, secret="no") == [open_roll.pk]


@pytest.mark.django_db
def test_the_migration_computes_the_outcome_of_earlier_rolls(table: Table) -> None:
    hit, miss = roll(table, 6, 1, 1, 1), roll(table, 1, 1, 1, 1)
    Roll.objects.update(outcome="")

    importlib.import_module("rolls.migrations.0008_roll_outcome_void_reveal_notes").compute_outcomes(
        apps, None
    )

    assert dict(Roll.objects.values_list("pk", "outcome")) == {hit.pk: "success", miss.pk: "failure"}


@pytest.mark.django_db
def test_every_card_links_to_its_rolls_page(table: Table) -> None:
    made = roll(table, 6, 1, 1, 1)
    url = reverse("rolls:roll", args=[table.campaign.pk, made.pk])
    for page in ("rolls:history", "rolls:campaign"):
        html = logged_in(table.player).get(reverse(page, args=[table.campaign.pk])).content.decode()
        assert f'href="{url}"' in html


@pytest.mark.django_db
def test_newer_pages_walk_back_to_the_newest_without_a_gap(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rolls.history import browse as history

    monkeypatch.setattr(history, "PAGE_SIZE", 4)
    made = [roll(table, 6, 1, 1).pk for _ in range(10)]
    client = logged_in(table.gm)
    query = "?kind=rolls"
    pages: list[list[int]] = []
    while True:  # down to the oldest page
        html = page_html(client, table, query)
        pages.append([int(found) for found in ROLL_ID.findall(html)])
        older = re.search(r'rel="next" href="\?([^"]+)"', html)
        if older is None:
            break
        query = "?" + older.group(1).replace("&amp;", "&")
    assert [pk for page in pages for pk in page] == made[::-1]
    up: list[int] = []
    while True:  # and up again by "newer"
        newer = re.search(r'rel="prev" href="\?([^"]+)"', html)
        if newer is None:
            break
        html = page_html(client, table, "?" + newer.group(1).replace("&amp;", "&"))
        up = [int(found) for found in ROLL_ID.findall(html)] + up
    assert up + pages[-1] == made[::-1]
    assert 'rel="prev"' not in html and ">Newest<" not in html


@pytest.mark.django_db
def test_a_reveal_in_a_later_session_goes_under_that_session_with_its_end(table: Table) -> None:
    """A secret roll of session 1 revealed in session 2: the reveal happened in session 2, and
    the end of session 2 after it is session 2's, not drawn under a "Session 1" heading."""
    from rolls.history import marks

    hidden = secret_roll(table, 6, 6, 6)
    campaigns.session_end(campaign=table.campaign, actor=table.gm)
    campaigns.session_start(campaign=table.campaign, actor=table.gm)
    made = roll(table, 6, 1, 1, 1)
    marks.roll_reveal(roll=hidden, gm=table.gm)
    campaigns.session_end(campaign=table.campaign, actor=table.gm)

    html = page_html(logged_in(table.gm), table)
    heads = re.findall(r'<h2 class="session-head">(Session \d+) ', html)
    assert heads == ["Session 2", "Session 1"]
    second = html.split('<h2 class="session-head">Session 2 ', 1)[1].split("<h2", 1)[0]
    first = html.split('<h2 class="session-head">Session 1 ', 1)[1]
    assert (
        "Session 2 ended." in second and "The GM revealed" in second and f"history-roll-{made.pk}" in second
    )
    assert "Session 2 started" in second
    assert "Session 1 ended." in first and f"history-roll-{hidden.pk}" in first
    assert "Session 2 ended." not in first and "The GM revealed" not in first


@pytest.mark.django_db
def test_secret_or_blind_means_hidden_from_the_table_for_the_gm_and_a_player_alike() -> None:
    """The filter lists what was rolled out of the table's sight: secret and blind rolls (still
    hidden or revealed since) and a contest's side while it is still sealed. A contest's sides
    once revealed are open rolls. The GM's list listed them; a player's listed nothing at all."""
    from rolls.contests import services as contests
    from rolls.history import marks
    from tests.test_doubles_contests import GUARD, Duel, opposed, roll_both, side

    duel = Duel()
    table = duel.table
    settled = opposed(duel)
    open_sides = roll_both(duel, settled, (5, 2), (3, 1))
    pending = opposed(duel)
    sealed = contests.contest_roll(
        side=side(pending, 0), user=table.player, rng=ScriptedDice(4, 4), is_gm=False
    )
    doubles = registry.engine("doubles")

    def npc(name: str) -> Roll:
        return services.npc_roll_create(
            campaign=table.campaign, gm=table.gm, name=name, request=doubles.parse_request(GUARD),
            secret=True, target=None, intent="", rng=ScriptedDice(6, 6),
        )  # fmt: skip

    ghost, shown_later = npc("Ghost"), npc("Shade")
    marks.roll_reveal(roll=shown_later, gm=table.gm)
    plain = {"abilities": [], "weaknesses": [], "bonus": 0, "penalty": 0, "helpers": 0, "dn": "6"}
    open_roll = services.roll_create(
        character=table.character, roller=table.player, data=plain, helper=None, intent="",
        rng=ScriptedDice(3, 3),
    )  # fmt: skip
    hidden_then = [shown_later.pk, ghost.pk, sealed.pk]  # newest first
    open_now = [open_roll.pk, *(roll.pk for roll in reversed(open_sides))]

    for who in (table.gm, table.player):
        client = logged_in(who)
        assert shown(client, table, secret="yes") == hidden_then, who
        assert shown(client, table, secret="no") == open_now, who
    # What the player may not see stays unseen in the list: the GM's secret roll is a card
    # without dice, and the other player's sealed side too.
    player_page = page_html(logged_in(duel.second), table, "?secret=yes")
    assert "Ghost" not in player_page
    ghost_card = player_page.split(f'id="history-roll-{ghost.pk}"', 1)[1].split("</li>", 1)[0]
    assert "data-face" not in ghost_card
