"""A phone that loses its socket (asleep, out of the network) catches up when it is back:
every entry it missed, in order, each exactly once."""

from __future__ import annotations

import random
from concurrent.futures import ThreadPoolExecutor

import pytest
from playwright.sync_api import expect

import rolls.log.randomness
from tests.browser.conftest import Browsers
from tests.browser.flows import (
    drop_socket,
    feed_ids,
    join_with_character,
    open_table,
    reconnect_like_htmx,
    roll,
    roll_id,
    socket_of,
    wait_live,
    wake_up,
)


@pytest.mark.browser
def test_a_phone_that_lost_its_socket_catches_up_once(
    browsers: Browsers, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Seeded so that Ada's second roll has dice to push (not three sixes).
    monkeypatch.setattr(rolls.log.randomness, "RNG", random.Random(50))
    # Offline, the page's reconnect attempts fail, and the browser and htmx say so.
    browsers.ignore(r"ERR_INTERNET_DISCONNECTED")
    browsers.ignore(r"^\[object Event\]$")

    gm = browsers.gm()
    link = open_table(gm)
    ada = join_with_character(browsers.phone(), link, "Alice", "Ada")
    bo = join_with_character(browsers.phone(), link, "Bruno", "Bo")

    first = roll_id(roll(ada.page))
    expect(bo.page.locator(f"#feed-roll-{first}")).to_be_visible()

    # Bo's phone leaves the network, and its socket dies.
    bo.page.context.set_offline(True)
    drop_socket(bo.page)

    # Meanwhile Ada rolls and pushes: the GM sees it, Bo's phone cannot.
    card = roll(ada.page)
    missed = roll_id(card)
    push = card.locator(".follow-up-push button")
    expect(push).to_be_visible()
    card.get_by_label("Condition to check").select_option("Scared")
    card.get_by_label("What does the kid do to push themself?").fill("Ada runs faster")
    push.click()
    expect(ada.page.locator(f"#result-roll-{missed}")).to_contain_text("Pushed")
    expect(gm.locator(f"#feed-roll-{missed}")).to_contain_text("Pushed")
    expect(bo.page.locator(f"#feed-roll-{missed}")).to_have_count(0)

    # Back in the network, the phone wakes up, reconnects and gets what it missed.
    bo.page.context.set_offline(False)
    wake_up(bo.page)
    wait_live(bo.page)
    caught_up = bo.page.locator(f"#feed-roll-{missed}")
    expect(caught_up).to_contain_text("Pushed")
    expect(caught_up).to_have_count(1)

    # And it is live again: Ada's next roll arrives by itself, after the missed one.
    after = roll_id(roll(ada.page))
    expect(bo.page.locator(f"#feed-roll-{after}")).to_be_visible()
    cards = [item for item in feed_ids(bo.page) if item.startswith("feed-roll-")]
    assert cards == [f"feed-roll-{after}", f"feed-roll-{missed}", f"feed-roll-{first}"]
    assert len(set(feed_ids(bo.page))) == len(feed_ids(bo.page)), feed_ids(bo.page)
    assert feed_ids(bo.page) == feed_ids(gm)

    # Two reconnects racing can make the page ask "since" twice on one socket; what the
    # socket sent already does not come again.
    bo.page.evaluate(f"{socket_of()}.send(JSON.stringify({{since: 0}}))")
    last = roll_id(roll(ada.page))
    expect(bo.page.locator(f"#feed-roll-{last}")).to_be_visible()
    expect(gm.locator(f"#feed-roll-{last}")).to_be_visible()
    assert len(set(feed_ids(bo.page))) == len(feed_ids(bo.page)), feed_ids(bo.page)
    assert feed_ids(bo.page) == feed_ids(gm)


@pytest.mark.browser
def test_a_page_that_reconnects_keeps_one_socket(browsers: Browsers) -> None:
    gm = browsers.gm()
    open_table(gm)
    opened: list[str] = []
    gm.on("websocket", lambda socket: opened.append(socket.url))

    # htmx reconnects by closing the open socket and opening a new one (its retry timer or
    # the page waking up). The closed socket is not the page's socket any more, so the page
    # must not reconnect again for it: that would close the new one, and so on, forever.
    reconnect_like_htmx(gm)
    expect(gm.locator("#live-status")).to_have_attribute("data-state", "live")
    # Longer than the page waits before it reconnects after losing its socket (1-2 s).
    gm.wait_for_timeout(2500)
    assert len(opened) == 1, opened
    expect(gm.locator("#live-status")).to_have_attribute("data-state", "live")


@pytest.mark.browser
def test_a_phone_that_wakes_with_a_dead_socket_reconnects_at_once(browsers: Browsers) -> None:
    browsers.ignore(r"ERR_INTERNET_DISCONNECTED")
    browsers.ignore(r"^\[object Event\]$")
    gm = browsers.gm()
    open_table(gm)
    # htmx's own retries wait a minute here, so only the page waking up can bring it back soon.
    gm.evaluate("htmx.config.wsReconnectDelay = function () { return 60000; }")

    gm.context.set_offline(True)
    drop_socket(gm)
    # Longer than the page waits before its own reconnect, which fails while offline.
    gm.wait_for_timeout(2500)
    gm.context.set_offline(False)
    wake_up(gm)

    expect(gm.locator("#live-status")).to_have_attribute("data-state", "live", timeout=5000)


@pytest.mark.browser
def test_a_removed_players_page_does_not_reconnect(browsers: Browsers) -> None:
    gm = browsers.gm()
    link = open_table(gm)
    bo = join_with_character(browsers.phone(), link, "Bruno", "Bo")
    wait_live(bo.page)
    opened: list[str] = []
    bo.page.on("websocket", lambda socket: opened.append(socket.url))

    gm.get_by_role("button", name="Remove Bruno").click()
    status = bo.page.locator("#live-status")
    expect(status).to_have_text("You are no longer at this table.")
    wake_up(bo.page)
    bo.page.wait_for_timeout(2500)

    assert opened == []
    expect(status).to_have_text("You are no longer at this table.")


@pytest.mark.browser
def test_a_phone_too_far_behind_reloads_instead_of_replaying_the_evening(browsers: Browsers) -> None:
    """A page that missed more than the socket replays (rolls.live.feed.MAX_CATCH_UP) is told to
    reload, and does: the marker is read as the message arrives (static/js/live.js), since no
    page holds an element for it to land in."""
    from rolls.campaigns import services
    from rolls.live.feed import MAX_CATCH_UP
    from tabletop.models import Campaign

    browsers.ignore(r"ERR_INTERNET_DISCONNECTED")
    browsers.ignore(r"^\[object Event\]$")
    gm = browsers.gm()
    link = open_table(gm)
    ada = join_with_character(browsers.phone(), link, "Alice", "Ada")
    ada.page.evaluate("window.stillTheSamePage = true")
    ada.page.context.set_offline(True)
    drop_socket(ada.page)

    # A long evening passes while the phone sleeps: more entries than a catch-up replays.
    # (In a thread of its own: the broadcast after each commit cannot run on this thread,
    # where Playwright keeps an event loop.)
    def long_evening() -> Campaign:
        campaign = Campaign.objects.get()
        for _ in range(MAX_CATCH_UP // 2 + 1):
            services.session_end(campaign=campaign, actor=campaign.gm)
            services.session_start(campaign=campaign, actor=campaign.gm)
        campaign.refresh_from_db()
        return campaign

    with ThreadPoolExecutor(max_workers=1) as pool:
        campaign = pool.submit(long_evening).result()

    ada.page.context.set_offline(False)
    wake_up(ada.page)
    expect(ada.page.locator("#last-seq")).to_have_attribute(
        "data-seq", str(campaign.last_seq), timeout=20_000
    )
    assert ada.page.evaluate("window.stillTheSamePage") is None  # reloaded, not replayed
    wait_live(ada.page)
