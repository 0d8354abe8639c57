"""The phone as an app: the web app manifest, the service worker and its offline page.

A phone that is the table's dice for an evening is added to its home screen from the manifest
(its name in the page's language, the felt and gold of static/css/app.css, the icons in
static/icons/). Over HTTPS, static/js/app.js registers the service worker served here at the
site's root (so its scope is the whole site). The worker keeps the page shell only, the files
listed in ``SHELL`` and the offline page, and never anything live: a campaign page, a partial,
a POST or a socket always goes to the network (tabletop/sw.js says how)."""

from __future__ import annotations

import functools
import hashlib
import json
from pathlib import Path

from django.conf import settings
from django.contrib.staticfiles import finders
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.templatetags.static import static
from django.urls import reverse
from django.utils import translation
from django.utils.translation import get_language, get_language_bidi
from django.utils.translation import gettext as _
from django.views.decorators.http import require_safe

# The colours of the table (static/css/app.css): --felt for the splash screen and the bar.
THEME_COLOR = "#12261d"
BACKGROUND_COLOR = "#12261d"

# (static name, size, purpose): what the manifest offers. tests/test_phone_app.py reads each
# PNG's header, so a size written here is the size drawn.
ICONS = [
    ("icons/icon-192.png", 192, "any"),
    ("icons/icon-512.png", 512, "any"),
    ("icons/icon-maskable-512.png", 512, "maskable"),
]
APPLE_TOUCH_ICON = "icons/apple-touch-icon.png"

# The page shell: what every page of the table loads (templates/base.html) and the icons.
# Nothing else is ever cached. A test checks that a roll screen loads nothing missing here.
SHELL = [
    "css/app.css",
    "favicon.svg",
    # What {% htmx_script extensions="hx-ws" %} loads.
    "django_htmx/htmx-2.min.js",
    "django_htmx/ext/hx-ws-2.min.js",
    "js/live.js",
    "js/table.js",
    "js/keypad.js",
    "js/stepper.js",
    "js/app.js",
    "js/wakelock.js",
    *(name for name, _size, _purpose in ICONS),
    APPLE_TOUCH_ICON,
]

WORKER_SOURCE = Path(__file__).with_name("sw.js")


@require_safe
def manifest(request: HttpRequest) -> JsonResponse:
    """The web app manifest, in the language of the page that links it: templates/base.html
    names it (``?lang=``), so a roll screen in its campaign's language installs an app named in
    that language too. Without it (or with one we do not speak), the browser's."""
    lang = request.GET.get("lang", "")
    if lang in dict(settings.LANGUAGES):
        with translation.override(lang):
            return _manifest()
    return _manifest()


def _manifest() -> JsonResponse:
    data = {
        "id": "/",
        "name": "Tabletop",
        "short_name": "Tabletop",
        "description": _("A live dice table: roll from your phone, every die on every screen at once."),
        "lang": get_language(),
        "dir": "rtl" if get_language_bidi() else "ltr",
        "start_url": reverse("tabletop:home"),
        "scope": "/",
        "display": "standalone",
        "theme_color": THEME_COLOR,
        "background_color": BACKGROUND_COLOR,
        "icons": [
            {"src": static(name), "sizes": f"{size}x{size}", "type": "image/png", "purpose": purpose}
            for name, size, purpose in ICONS
        ],
    }
    response = JsonResponse(data, content_type="application/manifest+json", json_dumps_params={"indent": 1})
    # Without ?lang= the language is the browser's or the switch's cookie: ask each time.
    response["Cache-Control"] = "no-cache"
    return response


@functools.cache
def _worker_for(urls: tuple[str, ...], offline: str) -> str:
    return _worker_source(urls, offline)


def _worker_source(urls: tuple[str, ...], offline: str) -> str:
    source = WORKER_SOURCE.read_text(encoding="utf-8")
    version = hashlib.sha256()
    version.update(source.encode())
    version.update(json.dumps([urls, offline]).encode())
    if settings.DEBUG:
        # Unhashed static names in development: the files' bytes make the version, so a changed
        # file installs a new worker (with hashed names the URL changes with the file).
        for name in SHELL:
            found = finders.find(name)
            if isinstance(found, str):
                version.update(Path(found).read_bytes())
    preamble = (
        "// Written by tabletop/phone_app.py: the page shell's files, for this deployment.\n"
        f"const VERSION = {json.dumps(version.hexdigest()[:16])};\n"
        f"const SHELL = {json.dumps(list(urls), indent=1)};\n"
        f"const OFFLINE = {json.dumps(offline)};\n"
    )
    return preamble + source


@require_safe
def service_worker(request: HttpRequest) -> HttpResponse:
    """The service worker, at the root so that its scope is the whole site."""
    urls = tuple(static(name) for name in SHELL)
    offline_url = reverse("tabletop:offline")
    body = _worker_source(urls, offline_url) if settings.DEBUG else _worker_for(urls, offline_url)
    response = HttpResponse(body, content_type="text/javascript; charset=utf-8")
    # The browser asks again on every navigation (at most once a day it would anyway): a new
    # deployment's shell reaches the phones at their next page.
    response["Cache-Control"] = "no-cache"
    response["Service-Worker-Allowed"] = "/"
    return response


@require_safe
def offline(request: HttpRequest) -> HttpResponse:
    """What the worker shows when a page cannot be fetched. It is kept on the phone, so it holds
    nothing of anyone's: no user, no campaign, no CSRF token (templates/tabletop/offline.html
    does not extend base.html for that reason)."""
    return render(request, "tabletop/offline.html", {"theme_color": THEME_COLOR})
