"""Whose language a screen is drawn in (issue 45): a table plays in its campaign's language, on
every page under the campaign, on the TV and in what the sockets send; any other page follows
the browser, or the switch. The GM changes the table's language, logged, and every open screen
draws itself again in it.

Our catalogues are empty until the translators fill them, so these tests read what Django
itself translates (a form's error, the ``Content-Language`` it answers with) and the language
active while a template is drawn (Django's test instrumentation, ``template_rendered``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from django.core.management import call_command
from django.db import connection
from django.test import Client
from django.test.signals import template_rendered
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import translation

from rolls.campaigns import services as campaigns
from rolls.log.events import DECISIONS, TableEvent
from rolls.models import LogEntry
from rolls.systems import RulesError
from tabletop.models import Campaign, Character
from tests.factories import Script, Table, logged_in
from tests.test_consumers import frames_until, open_socket, sync, up_to
from tests.test_display import open_display

REQUIRED = "This field is required."


def german(text: str) -> str:
    with translation.override("de"):
        german = translation.gettext(text)
    assert german != text  # Django's own German catalogue has it
    return german


def plays_in(table: Table, language: str) -> None:
    """The table's language set as if chosen at creation (no event)."""
    Campaign.objects.filter(pk=table.campaign.pk).update(language=language)
    table.campaign.refresh_from_db()
    table.character = Character.objects.select_related("campaign").get(pk=table.character.pk)


def seq_now(table: Table) -> int:
    table.campaign.refresh_from_db()
    return table.campaign.last_seq


def lang_of(html: str) -> str:
    start = html.index('<html lang="') + len('<html lang="')
    return html[start : html.index('"', start)]


@pytest.fixture
def drawn() -> Iterator[list[tuple[str, str]]]:
    """Each template drawn while the test runs, with the language active as it was drawn."""
    seen: list[tuple[str, str]] = []

    def note(sender: Any, template: Any, **kwargs: Any) -> None:
        seen.append((template.name or "", translation.get_language()))

    template_rendered.connect(note, dispatch_uid="test_language.drawn")
    yield seen
    template_rendered.disconnect(dispatch_uid="test_language.drawn")


# -- pages under a campaign ------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_campaign_made_in_german_plays_in_german(client: Client, table: Table) -> None:
    client.force_login(table.gm)
    answer = client.post(
        reverse("rolls:campaign-new"),
        {
            "name": "Die Schleife",
            "system": "sixes",
            "dice": "digital",
            "language": "de",
            "display_name": "SL",
        },
    )
    assert answer.status_code == 302
    made = Campaign.objects.get(name="Die Schleife")
    assert made.language == "de"
    page = client.get(reverse("rolls:session", args=[made.pk]), HTTP_ACCEPT_LANGUAGE="fr")
    assert page["Content-Language"] == "de"
    assert lang_of(page.content.decode()) == "de"


@pytest.mark.django_db
def test_the_new_campaign_form_offers_the_browsers_language_first(client: Client, table: Table) -> None:
    client.force_login(table.gm)
    page = client.get(reverse("rolls:campaign-new"), HTTP_ACCEPT_LANGUAGE="sv")
    assert '<option value="sv" selected>Svenska</option>' in page.content.decode()


@pytest.mark.django_db
def test_a_campaign_made_in_an_unknown_language_is_refused(table: Table) -> None:
    with pytest.raises(RulesError):
        campaigns.campaign_create(gm=table.gm, name="Nope", system="sixes", display_name="GM", language="xx")
    assert not Campaign.objects.filter(name="Nope").exists()


@pytest.mark.django_db
def test_every_page_of_a_german_table_is_in_german_whatever_the_browser(table: Table) -> None:
    plays_in(table, "de")
    player = logged_in(table.player)
    for url in (
        reverse("rolls:campaign", args=[table.campaign.pk]),
        reverse("rolls:character", args=[table.campaign.pk, table.character.pk]),
        reverse("rolls:history", args=[table.campaign.pk]),
    ):
        page = player.get(url, HTTP_ACCEPT_LANGUAGE="fr,en;q=0.5")
        assert page.status_code == 200, url
        assert page["Content-Language"] == "de", url
        assert lang_of(page.content.decode()) == "de", url
        # The switch is for pages outside a table: here the table's language rules.
        assert reverse("set_language") not in page.content.decode(), url
    # Django's own words, in German: a form's error on the table's page.
    refused = player.post(reverse("rolls:character-new", args=[table.campaign.pk]), {"name": ""})
    assert german(REQUIRED) in refused.content.decode()
    assert REQUIRED not in refused.content.decode()


@pytest.mark.django_db
def test_the_tables_language_costs_a_roll_no_read(table: Table, dice: Script) -> None:
    """The language comes with the campaign row the roll reads anyway (tabletop/language.py)."""
    player = logged_in(table.player)
    path = reverse("rolls:roll-create", args=[table.campaign.pk, table.character.pk])
    counts = []
    for language in ("en", "de", "sv"):
        plays_in(table, language)
        dice(6, then=1)
        with CaptureQueriesContext(connection) as queries:
            answer = player.post(path, {"trait": "Body", "need": 1}, HTTP_HX_REQUEST="true")
        assert answer.status_code == 200
        assert answer["Content-Language"] == language
        counts.append(len(queries))
    assert counts[0] == counts[1] == counts[2], counts


@pytest.mark.django_db
def test_a_stranger_is_answered_in_their_own_language_and_learns_nothing(table: Table) -> None:
    plays_in(table, "de")
    page = logged_in(table.outsider).get(
        reverse("rolls:campaign", args=[table.campaign.pk]), HTTP_ACCEPT_LANGUAGE="fr"
    )
    assert page.status_code == 404
    assert page["Content-Language"] == "fr"


@pytest.mark.django_db
def test_the_tv_of_a_german_table_is_in_german(client: Client, table: Table) -> None:
    plays_in(table, "de")
    page = client.get(
        reverse("rolls:display", args=[table.campaign.display_token]), HTTP_ACCEPT_LANGUAGE="sv"
    )
    assert page.status_code == 200
    assert page["Content-Language"] == "de"
    assert lang_of(page.content.decode()) == "de"
    overlay = client.get(
        reverse("rolls:overlay", args=[table.campaign.overlay_token]), HTTP_ACCEPT_LANGUAGE="sv"
    )
    assert overlay["Content-Language"] == "de"
    assert lang_of(overlay.content.decode()) == "de"


# -- pages outside a campaign ----------------------------------------------------------------------


@pytest.mark.django_db
def test_a_page_outside_a_campaign_follows_the_browser(client: Client) -> None:
    for accept, language in (("fr-FR,fr;q=0.9", "fr"), ("pt-BR", "pt-br"), ("ja", "en"), ("", "en")):
        page = client.get(reverse("tabletop:login"), HTTP_ACCEPT_LANGUAGE=accept)
        assert page["Content-Language"] == language, accept
        assert lang_of(page.content.decode()) == language, accept


@pytest.mark.django_db
def test_the_switch_changes_the_language_without_javascript(client: Client) -> None:
    login = reverse("tabletop:login")
    page = client.get(login, HTTP_ACCEPT_LANGUAGE="de").content.decode()
    # A plain form: a real action, its CSRF field, the current language chosen.
    assert f'action="{reverse("set_language")}"' in page
    assert '<option value="de" lang="de" selected>Deutsch</option>' in page
    answer = client.post(
        reverse("set_language"), {"language": "sv", "next": login}, HTTP_ACCEPT_LANGUAGE="de"
    )
    assert (answer.status_code, answer["Location"]) == (302, login)
    page_again = client.get(login, HTTP_ACCEPT_LANGUAGE="de")
    assert page_again["Content-Language"] == "sv"
    assert lang_of(page_again.content.decode()) == "sv"


@pytest.mark.django_db
def test_the_switch_refuses_an_unknown_language_and_changes_nothing(client: Client) -> None:
    login = reverse("tabletop:login")
    client.post(reverse("set_language"), {"language": "xx", "next": login})
    assert client.get(login, HTTP_ACCEPT_LANGUAGE="fr")["Content-Language"] == "fr"


# -- the GM changes the table's language -----------------------------------------------------------


def language_url(table: Table) -> str:
    return reverse("rolls:language-set", args=[table.campaign.pk])


@pytest.mark.django_db
def test_the_gm_changes_the_language_and_the_table_reads_it_in_the_log(table: Table) -> None:
    gm = logged_in(table.gm)
    before = seq_now(table)
    console = gm.get(reverse("rolls:session", args=[table.campaign.pk])).content.decode()
    assert f'action="{language_url(table)}"' in console
    answer = gm.post(language_url(table), {"language": "fr"})
    assert answer.status_code == 302
    table.campaign.refresh_from_db()
    assert table.campaign.language == "fr"
    entry = LogEntry.objects.get(campaign=table.campaign, seq=before + 1)
    assert (entry.action, entry.actor) == (TableEvent.LANGUAGE, table.gm)
    assert "Français" in entry.text
    assert TableEvent.LANGUAGE in DECISIONS  # a line on every screen, the TV's too
    page = gm.get(answer["Location"])
    assert page["Content-Language"] == "fr"
    assert f'id="event-{entry.seq}"' in page.content.decode()


@pytest.mark.django_db
@pytest.mark.parametrize("code", ["xx", "", "EN", "pt_BR", "de-at", "en"])
def test_an_unknown_or_unchanged_language_is_refused_and_nothing_changes(table: Table, code: str) -> None:
    gm = logged_in(table.gm)
    before = seq_now(table)
    answer = gm.post(language_url(table), {"language": code}, follow=True)
    assert answer.status_code == 200
    assert 'class="flash error"' in answer.content.decode()
    table.campaign.refresh_from_db()
    assert (table.campaign.language, table.campaign.last_seq) == ("en", before)


@pytest.mark.django_db
def test_a_player_cannot_change_the_language(table: Table) -> None:
    before = seq_now(table)
    assert logged_in(table.player).post(language_url(table), {"language": "de"}).status_code == 403
    assert logged_in(table.outsider).post(language_url(table), {"language": "de"}).status_code == 404
    assert Client().post(language_url(table), {"language": "de"}).status_code in (302, 403)
    assert logged_in(table.gm).get(language_url(table)).status_code == 405
    table.campaign.refresh_from_db()
    assert (table.campaign.language, table.campaign.last_seq) == ("en", before)


# -- the sockets -------------------------------------------------------------------------------------


def rolled_from_the_phone(table: Table) -> None:
    """A roll as the phone makes it, through the page: the request under the campaign has the
    table's language active, and the broadcast is drawn in it (``rolls.live.publish``)."""
    path = reverse("rolls:roll-create", args=[table.campaign.pk, table.character.pk])
    answer = logged_in(table.player).post(path, {"trait": "Body", "need": 1}, HTTP_HX_REQUEST="true")
    assert answer.status_code == 200


@pytest.fixture
async def empty_channel_layer() -> AsyncIterator[None]:
    layer = get_channel_layer()
    await layer.flush()  # type: ignore[union-attr]
    yield
    await layer.flush()  # type: ignore[union-attr]


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("empty_channel_layer")
async def test_what_the_sockets_send_a_german_table_is_drawn_in_german(
    table: Table, drawn: list[tuple[str, str]]
) -> None:
    await database_sync_to_async(plays_in)(table, "de")
    last = await database_sync_to_async(seq_now)(table)
    player, connected, _ = await open_socket(table.campaign.pk, table.player)
    assert connected
    tv, tv_connected = await open_display(table.campaign.display_token)
    assert tv_connected
    await player.send_json_to({"since": last})
    await tv.send_json_to({"since": last})

    await database_sync_to_async(rolled_from_the_phone)(table)
    await frames_until(player, up_to(last + 1))
    await frames_until(tv, up_to(last + 1))
    # A socket that catches up draws the entry itself (the long way, from the database).
    late, late_connected, _ = await open_socket(table.campaign.pk, table.gm)
    assert late_connected
    await sync(late, last, last + 1)

    languages = {language for name, language in drawn if name.startswith("rolls/")}
    assert languages == {"de"}, drawn
    assert {"rolls/_card_oob.html", "rolls/_presence.html"} <= {name for name, _ in drawn}
    for communicator in (player, tv, late):
        await communicator.disconnect()


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("empty_channel_layer")
async def test_a_change_of_language_reloads_every_open_screen(table: Table) -> None:
    last = await database_sync_to_async(seq_now)(table)
    player, connected, _ = await open_socket(table.campaign.pk, table.player)
    assert connected
    tv, tv_connected = await open_display(table.campaign.display_token)
    assert tv_connected
    await player.send_json_to({"since": last})
    await tv.send_json_to({"since": last})
    assert await tv.receive_nothing(timeout=0.3)

    await database_sync_to_async(campaigns.language_set)(campaign=table.campaign, gm=table.gm, language="sv")

    for communicator in (player, tv):
        frames = await frames_until(communicator, lambda frame: 'id="reload-needed"' in frame)
        assert 'id="reload-needed"' in frames[-1]
    entry = await database_sync_to_async(LogEntry.objects.get)(campaign=table.campaign, seq=last + 1)
    assert entry.action == TableEvent.LANGUAGE
    for communicator in (player, tv):
        await communicator.disconnect()


@pytest.mark.django_db
def test_the_demo_plays_in_the_language_it_is_given() -> None:
    call_command("demo_campaign", "--language", "de", "--rolls", "2", "--sessions", "1", "--characters", "1")
    made = Campaign.objects.order_by("-pk").first()
    assert made is not None and made.language == "de"
