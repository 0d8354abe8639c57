"""Fixtures for the browser tests: the ASGI app served by uvicorn in a thread, Debian's
Chromium driven by Playwright's sync API, and browser contexts shaped like the GM's screen
and the players' phones.

The app needs HTTP and websockets, so pytest-django's ``live_server`` (WSGI) will not do:
``asgi_server`` runs ``tabletop.asgi:application`` on 127.0.0.1 and a free port, in this
process, so the in-memory channel layer and the scripted dice of ``dice`` reach it. The
database is the file-backed SQLite test database; the tests use ``transactional_db`` so the
server's threads see what the tests commit.
"""

from __future__ import annotations

import importlib
import os
import re
import socket
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import pytest
import uvicorn
from playwright.sync_api import Browser, BrowserContext, ConsoleMessage, Error, Page, expect, sync_playwright
from pytest_django.fixtures import Settings

from tabletop.management.commands.serve import uvicorn_options
from tests.browser.flows import SOCKET_PROBE

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
DESKTOP = {"viewport": {"width": 1280, "height": 800}}
# The television or projector the table display is opened on.
DISPLAY = {"viewport": {"width": 1920, "height": 1080}}
PHONE = {
    "viewport": {"width": 360, "height": 740},
    "is_mobile": True,
    "has_touch": True,
    "device_scale_factor": 2,
}
# Generous, for CI's two cores; expect() never waits longer than this.
EXPECT_TIMEOUT = 10_000
ACTION_TIMEOUT = 15_000
NAVIGATION_TIMEOUT = 20_000
# Screenshots for people to look at the design; outside the repository.
SHOTS = Path(os.environ.get("TABLETOP_SHOTS", "/tmp/shots"))
# The screenshots the README shows: rewritten only when asked (TABLETOP_DOCS_SHOTS=1), so a
# normal run leaves the repository as it was.
DOCS_SHOTS = Path(__file__).resolve().parents[2] / "docs" / "img"

expect.set_options(timeout=EXPECT_TIMEOUT)


# -- the server --------------------------------------------------------------------------------
def _application() -> object:
    """``tabletop.asgi:application``, built after the static files are collected (at the
    session's start, tests/conftest.py): whitenoise lists STATIC_ROOT once, when the app is
    built, and ``{% static %}`` needs the manifest."""
    module = sys.modules.get("tabletop.asgi")
    if module is not None:
        # Built earlier in this run (a consumer test imported it), maybe before the files
        # were there: build it again.
        module = importlib.reload(module)
    else:
        module = importlib.import_module("tabletop.asgi")
    return module.application


@pytest.fixture(scope="package")
def asgi_server(django_db_setup: None) -> Iterator[str]:
    """The app on http://127.0.0.1:<free port>, for every browser test of the package.

    Depends on ``django_db_setup`` so it stops before the test database goes away."""
    app = _application()
    # Bind here and hand the socket over: no window in which another process takes the port.
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    # The websocket options ``manage.py serve`` runs with.
    served = uvicorn_options(host="127.0.0.1", port=port, workers=1)
    websocket = {key: value for key, value in served.items() if key.startswith("ws")}
    config = uvicorn.Config(
        app,
        host="127.0.0.1",
        port=port,
        log_level="warning",
        lifespan="off",
        timeout_graceful_shutdown=5,
        **websocket,
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, name="uvicorn", daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if not thread.is_alive():
            raise RuntimeError("uvicorn stopped while starting; see the log above.")
        if time.monotonic() > deadline:
            server.should_exit = True
            raise RuntimeError("uvicorn did not start within 20 seconds.")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=15)
        sock.close()


@pytest.fixture
def live_url(asgi_server: str, transactional_db: None, settings: Settings) -> str:
    """The server's base URL, with the database committed and emptied around each test.

    PUBLIC_URL points at the server: without it the join link names this machine's network
    address (what a phone would open), where the test server does not listen."""
    settings.PUBLIC_URL = asgi_server
    return asgi_server


# -- the browser -------------------------------------------------------------------------------
@pytest.fixture(scope="package")
def chromium() -> Iterator[Browser]:
    """Debian's Chromium, once for the package. Never a downloaded browser."""
    if not os.path.exists(CHROMIUM):
        pytest.fail(f"The browser tests need Debian's chromium at {CHROMIUM} (apt-get install chromium).")
    # Playwright's sync API keeps an event loop "running" in this thread while it is open,
    # and Django refuses database work in a thread with a running loop. The tests and
    # pytest-django's flush only do plain sync work here, so lift the check while the
    # browser is open, and only then.
    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
            try:
                yield browser
            finally:
                browser.close()
    finally:
        if previous is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous


# Console messages that are not the app's fault, or that a test provokes on purpose.
IGNORED_CONSOLE = [
    # The socket of a page that is closing, or that a test took offline.
    re.compile(r"WebSocket connection to .* failed"),
    # A 403/404/422 the test expects (the browser logs every 4xx response).
    re.compile(r"^Failed to load resource: the server responded with a status of 4\d\d"),
    # A follow-up's answer carries the resources line out of band; when the socket redrew the
    # card it was tapped on first, htmx looks for the line inside the detached card and says
    # so. Nothing is lost: the socket sends that same line to this roll screen (Panel.RESOURCES).
    re.compile(r"htmx:oobErrorNoTarget, #resources-\d+"),
]


@dataclass
class Browsers:
    """Opens browser contexts for one test and watches them for script errors."""

    browser: Browser
    base_url: str
    contexts: list[BrowserContext] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    ignored: list[re.Pattern[str]] = field(default_factory=lambda: list(IGNORED_CONSOLE))

    def gm(self) -> Page:
        """A page in a new desktop-sized context (the GM's laptop or big screen)."""
        return self._page(DESKTOP)

    def display(self) -> Page:
        """A page in a new 1920 x 1080 context (the table display on the TV), nobody signed in."""
        return self._page(DISPLAY)

    def phone(self) -> Page:
        """A page in a new phone-sized touch context (a player's phone)."""
        return self._page(PHONE)

    def phone_without_script(self) -> Page:
        """A phone whose browser runs no JavaScript: plain forms, whole pages."""
        return self._page({**PHONE, "java_script_enabled": False})

    def ignore(self, pattern: str) -> None:
        """Do not count console errors matching ``pattern`` (a test provoking them on purpose)."""
        self.ignored.append(re.compile(pattern))

    def _page(self, options: dict[str, object]) -> Page:
        context = self.browser.new_context(base_url=self.base_url, **options)  # type: ignore[arg-type]
        context.set_default_timeout(ACTION_TIMEOUT)
        context.set_default_navigation_timeout(NAVIGATION_TIMEOUT)
        context.add_init_script(SOCKET_PROBE)
        self.contexts.append(context)
        page = context.new_page()
        page.on("console", self._console)
        page.on("pageerror", lambda error: self.errors.append(f"{page.url}: uncaught {error}"))
        return page

    def _console(self, message: ConsoleMessage) -> None:
        if message.type != "error":
            return
        if any(pattern.search(message.text) for pattern in self.ignored):
            return
        self.errors.append(f"{message.page.url if message.page else '?'}: console: {message.text}")

    def close(self) -> None:
        for context in self.contexts:
            try:
                context.close()
            except Error:
                pass
        self.contexts.clear()


def _wait_for_sockets_to_close(timeout: float = 10) -> None:
    """Each open socket is a Presence row until its consumer's ``disconnect`` runs. Wait for
    those to finish before the database is flushed under them."""
    from tabletop.models import Presence

    deadline = time.monotonic() + timeout
    while Presence.objects.exists() and time.monotonic() < deadline:
        time.sleep(0.05)


@pytest.fixture
def browsers(chromium: Browser, live_url: str) -> Iterator[Browsers]:
    """Open GM and phone pages with ``browsers.gm()`` and ``browsers.phone()``. Fails the
    test when a page throws, logs a script error or violates the content security policy."""
    opened = Browsers(chromium, live_url)
    try:
        yield opened
    finally:
        opened.close()
        _wait_for_sockets_to_close()
    if opened.errors:
        pytest.fail("The pages reported errors:\n" + "\n".join(opened.errors))


class Shot(Protocol):
    def __call__(self, page: Page, name: str, *, full_page: bool = True) -> Path: ...


@pytest.fixture
def shot() -> Shot:
    """``shot(page, "name")`` saves a screenshot to /tmp/shots/name.png, for people to look
    at the design (whole page, or with ``full_page=False`` what the screen shows)."""

    def save(page: Page, name: str, *, full_page: bool = True) -> Path:
        SHOTS.mkdir(parents=True, exist_ok=True)
        path = SHOTS / f"{name}.png"
        page.screenshot(path=str(path), full_page=full_page, animations="disabled")
        return path

    return save


@pytest.fixture
def docs_shot(shot: Shot) -> Shot:
    """Like ``shot``; with TABLETOP_DOCS_SHOTS=1 the picture goes to docs/img/ instead, where
    the README shows it."""
    if os.environ.get("TABLETOP_DOCS_SHOTS") != "1":
        return shot

    def save(page: Page, name: str, *, full_page: bool = True) -> Path:
        path = DOCS_SHOTS / f"{name}.png"
        page.screenshot(path=str(path), full_page=full_page, animations="disabled")
        return path

    return save
