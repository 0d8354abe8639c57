"""The steps people take at the table, through the UI, shared by the browser tests."""

from __future__ import annotations

import re
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connection
from django.test import Client
from playwright.sync_api import Locator, Page, expect

from rolls import registry
from rolls.campaigns import services as campaigns
from rolls.play.formdata import form_baseline, posted
from tabletop.models import Campaign
from tests.factories import PASSWORD


@dataclass
class Player:
    page: Page
    name: str  # display name at the table
    character: str
    url: str  # the character's roll screen


def in_thread[T](function: Callable[[], T]) -> T:
    """Database work off this thread: Playwright keeps an event loop running here, and the
    services broadcast through async_to_sync, which refuses to run beside one."""

    def run() -> T:
        try:
            return function()
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(run).result()


def log_in(page: Page, username: str) -> None:
    page.goto("/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page).not_to_have_url(re.compile(r"/login/"))


def sign_in(page: Page, user: object, base_url: str) -> None:
    """Sign ``user`` in on ``page``'s browser context without the login form (its session
    cookie, as the test client makes it): the evenings start at the table, not at the door."""
    client = Client()
    client.force_login(user)  # type: ignore[arg-type]
    cookie = client.cookies[settings.SESSION_COOKIE_NAME].value
    page.context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "value": cookie, "url": base_url}])


def feed_line(page: Page, text: str | re.Pattern[str]) -> None:
    """A decision's line (not a card) in the page's feed, arrived live."""
    expect(page.locator("#feed > .event", has_text=text).first).to_be_visible()


def sign_up(page: Page, username: str = "gamemaster") -> None:
    page.goto("/signup/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password", exact=True).fill(PASSWORD)
    page.get_by_label("Password confirmation").fill(PASSWORD)
    page.get_by_role("button", name="Create account").click()
    expect(page).to_have_url(re.compile(r"/campaigns/new/$"))


def create_campaign(page: Page, name: str = "The Loop", gm_name: str = "Marta") -> int:
    """From the new-campaign form to the session page; returns the campaign's id."""
    page.get_by_label("Campaign name").fill(name)
    page.get_by_role("radio", name=re.compile(r"^Sixes")).check()
    page.get_by_label("Your name as GM").fill(gm_name)
    page.get_by_role("button", name="Create and open the session page").click()
    expect(page).to_have_url(re.compile(r"/c/\d+/session/$"))
    expect(page.get_by_role("heading", level=1)).to_have_text(name)
    match = re.search(r"/c/(\d+)/session/$", page.url)
    assert match
    return int(match.group(1))


def start_session(page: Page) -> None:
    page.get_by_role("button", name="Start a play session").click()
    expect(page.locator("#session-status")).to_contain_text("Session 1 is on")


def join_link(page: Page) -> str:
    link = page.locator("#join-url").get_attribute("href")
    assert link and "/join/" in link, link
    return link


def join(page: Page, link: str, name: str) -> None:
    if page.url != link:
        page.goto(link)
    expect(page.get_by_role("heading", level=1)).to_contain_text("Join")
    page.get_by_label("Your name at the table").fill(name)
    page.get_by_role("button", name="Join the table").click()
    expect(page).to_have_url(re.compile(r"/characters/new/$"))


def create_character(page: Page, name: str, *, body: int = 3, sneak: int = 2) -> str:
    """Fill the sheet form (the rest keeps its defaults) and land on the roll screen."""
    page.locator("#id_name").fill(name)
    page.locator("#id_body").fill(str(body))
    page.locator("#id_skill_body_0_level").fill(str(sneak))  # Sneak
    page.get_by_role("button", name="Create character").click()
    expect(page).to_have_url(re.compile(r"/c/\d+/characters/\d+/$"))
    expect(page.get_by_role("heading", level=1)).to_have_text(name)
    return page.url


def wait_live(page: Page) -> None:
    """Wait until the page's socket is open and synced: what happens next arrives live."""
    expect(page.locator("#live-status")).to_have_attribute("data-state", "live")


def caught_up(page: Page) -> None:
    """Wait until the page's socket has brought every entry of the log so far (each batch ends
    with ``#last-seq``). A push redraws a panel and may move its buttons (a line added above
    them): a tap on a panel that a push is still to redraw can land on what it replaces and
    be lost, as CI saw with "Close this call" and "Settle it"."""
    campaign = page.locator("#live").get_attribute("data-campaign")
    assert campaign and campaign.isdigit(), campaign
    last = in_thread(lambda: Campaign.objects.values_list("last_seq", flat=True).get(pk=int(campaign)))
    # At least that far: an entry written after the read may have come in the same batch.
    page.wait_for_function(
        "last => Number(document.getElementById('last-seq').dataset.seq) >= last", arg=last
    )


def roll(page: Page) -> Locator:
    """Press Roll; returns the new result card."""
    card = page.locator("#result .card")
    before = card.get_attribute("data-roll") if card.count() else None
    page.get_by_role("button", name="Roll", exact=True).click()
    if before is not None:
        expect(card).not_to_have_attribute("data-roll", before)
    expect(card).to_be_visible()
    return card


def roll_id(card: Locator) -> int:
    value = card.get_attribute("data-roll")
    assert value and value.isdigit(), value
    return int(value)


def join_with_character(
    page: Page, link: str, name: str, character: str, *, by_hand: bool = False, **sheet: int
) -> Player:
    """A player at the table with a character, on its roll screen. ``by_hand``: through the
    join page and the sheet form, as a phone does it the first time; otherwise the same
    services those forms call, and the phone signed in with a session cookie (the tests of
    the join and the sheet go by hand; the others start at the table)."""
    if by_hand:
        join(page, link, name)
        url = create_character(page, character, **sheet)
    else:
        user, url = in_thread(lambda: _joined(link, name, character, **sheet))
        sign_in(page, user, settings.PUBLIC_URL)
        page.goto(url)
        expect(page.get_by_role("heading", level=1)).to_have_text(character)
        url = page.url
    wait_live(page)
    return Player(page, name, character, url)


def _joined(link: str, name: str, character: str, *, body: int = 3, sneak: int = 2) -> tuple[Any, str]:
    """What the join page and the sixes sheet form (as create_character fills it) write."""
    token = link.rstrip("/").rsplit("/", 1)[-1]
    campaign = Campaign.objects.get(join_token=token)
    user = campaigns.player_create(display_name=name)
    campaigns.member_join(campaign=campaign, user=user, display_name=name)
    form_class = registry.table(campaign.system).sheet_form
    data = {
        **form_baseline(form_class()),
        "name": character,
        "body": str(body),
        "skill_body_0_level": str(sneak),  # Sneak
    }
    form = form_class(posted(data))
    assert form.is_valid(), form.errors
    made = campaigns.character_create(campaign=campaign, owner=user, name=character, sheet=form.to_sheet())
    return user, made.get_absolute_url()


def open_table(gm: Page, *, campaign: str = "The Loop", by_hand: bool = False) -> str:
    """The GM "gamemaster" (as Marta) with a sixes campaign and a session started, on the
    session page; returns the join link. ``by_hand``: signed up, the campaign made and the
    session started through the pages; otherwise through the services those pages call."""
    if by_hand:
        sign_up(gm)
        create_campaign(gm, campaign)
        start_session(gm)
    else:
        user, made = in_thread(lambda: _opened(campaign))
        sign_in(gm, user, settings.PUBLIC_URL)
        gm.goto(f"/c/{made}/session/")
        expect(gm.locator("#session-status")).to_contain_text("Session 1 is on")
    wait_live(gm)
    return join_link(gm)


def _opened(name: str) -> tuple[Any, int]:
    user = get_user_model().objects.create_user("gamemaster", password=PASSWORD)
    campaign = campaigns.campaign_create(gm=user, name=name, system="sixes", display_name="Marta")
    campaigns.session_start(campaign=campaign, actor=user)
    return user, campaign.pk


def gm_roll(gm: Page, name: str, intent: str, *, secret: bool = False) -> None:
    """The GM's quick roll from the session page (three dice)."""
    tools = gm.locator("details.gm-tools", has_text="Roll for the GM")
    if tools.get_attribute("open") is None:
        tools.locator("summary").click()
    form = gm.locator(".npc-form")
    form.get_by_label("Who rolls").fill(name)
    form.get_by_label("What they try").fill(intent)
    form.locator("#id_flag_dice").fill("3")
    form.get_by_label("In secret").set_checked(secret)
    form.get_by_role("button", name="Roll", exact=True).click()


def horizontal_overflow(page: Page) -> dict[str, object]:
    """How wide the page is, and which visible elements stick out past the viewport."""
    return page.evaluate(
        """() => {
            const width = document.documentElement.clientWidth;
            const sticking = [];
            for (const el of document.querySelectorAll("body *")) {
                const rect = el.getBoundingClientRect();
                if (rect.width === 0 || rect.height === 0) continue;
                if (rect.right > width + 1 && rect.left < width) {
                    sticking.push(el.tagName.toLowerCase() + (el.id ? "#" + el.id : "")
                        + (el.className && typeof el.className === "string" ? "." + el.className.trim().replace(/\\s+/g, ".") : "")
                        + " right=" + Math.round(rect.right));
                }
            }
            return {scrollWidth: document.documentElement.scrollWidth, clientWidth: width, sticking: sticking.slice(0, 10)};
        }"""
    )


def assert_fits_phone(page: Page, width: int = 360) -> None:
    """No horizontal scrolling at phone width, and nothing cut off at the right edge."""
    found = horizontal_overflow(page)
    assert found["scrollWidth"] <= width, f"{page.url} scrolls sideways at {width}px: {found}"
    assert not found["sticking"], f"{page.url} has elements past the right edge at {width}px: {found}"


# Run in every test page before its own scripts (conftest adds it to each browser context):
# keeps the last WebSocket the page opened and the ws extension's wrapper of it (handed out,
# publicly, with each htmx:wsOpen event), so a test can drop or reuse the socket as a phone
# or htmx's own retry would, without reading htmx's private data.
SOCKET_PROBE = """
(() => {
  const Native = window.WebSocket;
  window.WebSocket = class extends Native {
    constructor(...args) { super(...args); window.__lastSocket = this; }
  };
  document.addEventListener("htmx:wsOpen", (event) => { window.__lastWrapper = event.detail.socketWrapper; });
})();
"""


def socket_of() -> str:
    """A JS expression for the page's live socket (the last one it opened)."""
    return "window.__lastSocket"


def reconnect_like_htmx(page: Page) -> None:
    """Reconnect the way htmx's own retry does: the ws extension's public ``reconnect()``."""
    page.evaluate("window.__lastWrapper.reconnect()")


def drop_socket(page: Page) -> None:
    """Kill the page's live socket, as a phone does when it sleeps or loses the network."""
    page.evaluate(f"{socket_of()}.close()")
    expect(page.locator("#live-status")).to_have_attribute("data-state", "offline")


def wake_up(page: Page) -> None:
    """What the browser tells a page when the phone wakes up and shows it again."""
    page.evaluate("document.dispatchEvent(new Event('visibilitychange'))")


def feed_ids(page: Page) -> list[str]:
    """The ids of everything in the page's feed, top to bottom."""
    return page.locator("#feed > li").evaluate_all("items => items.map(item => item.id)")


# -- contests ---------------------------------------------------------------------------------


def open_display(browsers: Any, gm: Page) -> Page:
    """The TV, opened from the link the GM's session page gives, its socket live."""
    link = gm.locator("#display-url").get_attribute("href")
    assert link and "/display/" in link, link
    tv = browsers.display()
    tv.goto(link)
    wait_live(tv)
    return tv


def contest(page: Page) -> Locator:
    """The first contest on a page's contests panel."""
    return page.locator("#contests-panel .contest")


def settle(gm: Page, panel: Locator | None = None) -> None:
    """The GM's "Settle it" on the console's contest panel (``panel``: another that has one, a
    plan's tracker), drawn by the socket, once the console has every push so far (``caught_up``)."""
    caught_up(gm)
    (panel if panel is not None else contest(gm)).get_by_role("button", name="Settle it").click()


def close_call(gm: Page) -> None:
    """The GM's "Close this call" on the console's call status, drawn by the socket, once the
    console has every push so far (``caught_up``): each answer adds a line above the button."""
    caught_up(gm)
    gm.locator("#call-status").get_by_role("button", name="Close this call").click()


def contest_tools(gm: Page) -> Locator:
    """The GM's contest form on the session page, opened, with every character in it."""
    gm.reload()
    wait_live(gm)
    tools = gm.locator("#contest-tools")
    tools.locator("summary").click()
    return tools


def contest_table(
    browsers: Any,
    create_campaign: Callable[[Page, str], None],
    campaign: str,
    create_character: Callable[[Page, str], None],
    players: tuple[tuple[str, str], ...],
) -> tuple[Page, Page, list[Page]]:
    """A table ready for a contest: the GM's console with a session running, the TV, and one
    phone per (player, character) of ``players``, each with its character made and live."""
    gm = browsers.gm()
    sign_up(gm)
    create_campaign(gm, campaign)
    start_session(gm)
    wait_live(gm)
    link = join_link(gm)
    tv = open_display(browsers, gm)
    phones = []
    for player, character in players:
        phone = browsers.phone()
        join(phone, link, player)
        create_character(phone, character)
        phones.append(phone)
    return gm, tv, phones
