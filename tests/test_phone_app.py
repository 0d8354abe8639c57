"""The phone as an app: the manifest a phone installs from, its icons, the service worker that
keeps the page shell and nothing live, its offline page, and the roll screen's wake lock."""

from __future__ import annotations

import json
import re
import struct
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse

from tabletop import phone_app
from tabletop.models import Campaign
from tests.factories import Table, logged_in

ROOT = Path(__file__).resolve().parents[1]


def png_size(url: str) -> tuple[int, int]:
    """The width and height in a static PNG's header (its IHDR chunk), read from the collected file."""
    assert url.startswith(settings.STATIC_URL), url
    data = (Path(settings.STATIC_ROOT) / url.removeprefix(settings.STATIC_URL)).read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{url} is not a PNG"
    assert data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def worker_source(client: Client) -> str:
    return client.get(reverse("tabletop:service-worker")).content.decode()


def shell_of(source: str) -> list[str]:
    """The list the worker caches on install, as the view wrote it."""
    match = re.search(r"^const SHELL = (\[.*?\]);$", source, re.MULTILINE | re.DOTALL)
    assert match, source[:400]
    shell: list[str] = json.loads(match.group(1))
    return shell


# -- the manifest ------------------------------------------------------------------------------
def test_the_manifest_is_json_with_what_an_install_needs(client: Client) -> None:
    response = client.get(reverse("tabletop:manifest"))
    assert response.status_code == 200
    assert response["Content-Type"] == "application/manifest+json"
    manifest = json.loads(response.content)
    assert manifest["name"] == "Tabletop" and manifest["short_name"] == "Tabletop"
    assert manifest["start_url"] == "/" and manifest["scope"] == "/"
    assert manifest["display"] == "standalone"
    assert manifest["lang"] == "en"
    assert re.fullmatch(r"#[0-9a-f]{6}", manifest["theme_color"])
    assert re.fullmatch(r"#[0-9a-f]{6}", manifest["background_color"])
    sizes = {(icon["sizes"], icon["purpose"]) for icon in manifest["icons"]}
    assert {("192x192", "any"), ("512x512", "any"), ("512x512", "maskable")} <= sizes


def test_each_icon_is_a_png_of_the_size_the_manifest_claims(client: Client) -> None:
    manifest = json.loads(client.get(reverse("tabletop:manifest")).content)
    for icon in manifest["icons"]:
        assert icon["type"] == "image/png"
        width, height = png_size(icon["src"])
        assert f"{width}x{height}" == icon["sizes"], icon


def test_the_manifests_colours_are_the_felt_of_the_tables_css() -> None:
    css = (ROOT / "static" / "css" / "app.css").read_text()
    felt = re.search(r"--felt: (#[0-9a-f]{6});", css)
    assert felt and phone_app.THEME_COLOR == felt.group(1) == phone_app.BACKGROUND_COLOR


def test_the_manifest_speaks_the_language_of_the_browser(client: Client) -> None:
    manifest = json.loads(client.get(reverse("tabletop:manifest"), HTTP_ACCEPT_LANGUAGE="de").content)
    assert manifest["lang"] == "de"
    assert manifest["description"].startswith("Ein Live-Würfeltisch")


def test_a_roll_screen_installs_an_app_in_its_campaigns_language(table: Table) -> None:
    Campaign.objects.filter(pk=table.campaign.pk).update(language="sv")
    page = logged_in(table.player).get(table.character.get_absolute_url(), HTTP_ACCEPT_LANGUAGE="de")
    link = re.search(r'<link rel="manifest" href="([^"]+)">', page.content.decode())
    assert link and link.group(1) == "/manifest.webmanifest?lang=sv"
    manifest = json.loads(Client().get(link.group(1), HTTP_ACCEPT_LANGUAGE="de").content)
    assert manifest["lang"] == "sv"
    assert manifest["description"].startswith("Ett levande tärningsbord")


def test_a_language_we_do_not_speak_gets_the_browsers(client: Client) -> None:
    manifest = json.loads(client.get("/manifest.webmanifest?lang=xx", HTTP_ACCEPT_LANGUAGE="fr").content)
    assert manifest["lang"] == "fr"


@pytest.mark.django_db
def test_every_page_links_the_manifest_the_theme_colour_and_the_touch_icon(client: Client) -> None:
    page = client.get(reverse("tabletop:home")).content.decode()
    assert f'<link rel="manifest" href="{reverse("tabletop:manifest")}?lang=en">' in page
    assert f'<meta name="theme-color" content="{phone_app.THEME_COLOR}">' in page
    touch = re.search(r'<link rel="apple-touch-icon" href="([^"]+)">', page)
    assert touch and png_size(touch.group(1)) == (180, 180)
    assert re.search(r'<script src="/static/js/app\.[0-9a-f]+\.js" defer nonce="', page)


@pytest.mark.django_db
def test_the_policy_lets_only_this_site_serve_the_worker_and_the_manifest(client: Client) -> None:
    policy = client.get(reverse("tabletop:home"))["Content-Security-Policy"]
    assert "worker-src 'self'" in policy
    assert "manifest-src 'self'" in policy


# -- the service worker ------------------------------------------------------------------------
def test_the_worker_is_javascript_from_the_root_that_the_browser_checks_for_updates(client: Client) -> None:
    response = client.get("/sw.js")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/javascript; charset=utf-8"
    assert response["Cache-Control"] == "no-cache"
    assert response["Service-Worker-Allowed"] == "/"


def test_the_worker_refuses_a_post(client: Client) -> None:
    assert client.post("/sw.js").status_code == 405


def test_the_worker_keeps_only_static_files_and_the_offline_page(client: Client) -> None:
    source = worker_source(client)
    shell = shell_of(source)
    assert shell and all(url.startswith(settings.STATIC_URL) for url in shell), shell
    assert re.search(r'^const OFFLINE = "/offline/";$', source, re.MULTILINE)
    for live in ("/c/", "/api/", "/ws/", "/display/", "/join/"):
        assert not any(live in url for url in shell), live


def test_the_worker_never_writes_to_its_cache_after_install_nor_answers_a_post(client: Client) -> None:
    source = worker_source(client)
    # One write, the install's addAll of the shell; no put, no add of what a page fetched.
    assert source.count("cache.addAll(") == 1
    assert ".put(" not in source and "cache.add(" not in source
    # Only GETs are looked at; a navigation goes to the network first, every time.
    assert 'if (request.method !== "GET") return;' in source
    assert "fetch(request).catch(" in source


def test_the_worker_changes_when_a_shell_file_does(client: Client) -> None:
    """A new deployment (new hashed names) is a new worker, which drops the old cache."""
    before = re.search(r'^const VERSION = "(\w+)";', worker_source(client), re.MULTILINE)
    changed = phone_app._worker_source(("/static/css/app.0123456789ab.css",), "/offline/")
    after = re.search(r'^const VERSION = "(\w+)";', changed, re.MULTILINE)
    assert before and after and before.group(1) != after.group(1)


def test_the_shell_holds_every_file_a_roll_screen_loads(table: Table) -> None:
    page = logged_in(table.player).get(table.character.get_absolute_url()).content.decode()
    shell = set(shell_of(worker_source(Client())))
    loaded = set(re.findall(r'<script src="([^"]+)"', page))
    loaded |= set(re.findall(r'<link rel="(?:stylesheet|icon|apple-touch-icon)" href="([^"]+)"', page))
    assert len(loaded) >= 8, loaded
    assert loaded <= shell, loaded - shell


@pytest.mark.django_db
def test_the_offline_page_says_the_table_needs_a_connection_and_names_nobody(table: Table) -> None:
    player = logged_in(table.player)
    response = player.get(reverse("tabletop:offline"))
    assert response.status_code == 200
    page = response.content.decode()
    assert "The table needs a connection" in page
    assert "csrfmiddlewaretoken" not in page and "X-CSRFToken" not in page
    assert table.player.get_username() not in page and table.campaign.name not in page
    assert settings.CSRF_COOKIE_NAME not in response.cookies


def test_the_offline_page_is_in_the_browsers_language(client: Client) -> None:
    page = client.get(reverse("tabletop:offline"), HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    assert '<html lang="fr">' in page
    assert "The table needs a connection" not in page


# -- the wake lock -----------------------------------------------------------------------------
def test_the_roll_screen_loads_the_wake_lock_with_its_note_hidden(table: Table) -> None:
    page = logged_in(table.player).get(table.character.get_absolute_url()).content.decode()
    assert '<p id="wake-lock" class="wake-lock" hidden>Screen stays on</p>' in page
    assert re.search(r'<script src="/static/js/wakelock\.[0-9a-f]+\.js" defer nonce="', page)


def test_the_gms_console_does_not_keep_the_screen_on(table: Table) -> None:
    page = logged_in(table.gm).get(reverse("rolls:session", args=[table.campaign.pk])).content.decode()
    assert "wakelock" not in page and 'id="wake-lock"' not in page
