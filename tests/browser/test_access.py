"""Who sees what: a campaign is invisible to anyone who has not joined it (404, as if it did
not exist), and the GM's session page is the GM's alone."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import Browsers
from tests.browser.flows import join_with_character, open_table, sign_up


def assert_not_found(page: Page, path: str) -> None:
    response = page.goto(path)
    assert response is not None and response.status == 404, (path, response and response.status)
    expect(page.get_by_role("heading", level=1)).to_have_text("Not found")
    expect(page.locator("main")).not_to_contain_text("The Loop")
    expect(page.get_by_role("link", name="Back to your campaigns")).to_be_visible()


@pytest.mark.browser
def test_an_outsider_gets_not_found_everywhere_in_the_campaign(browsers: Browsers) -> None:
    gm = browsers.gm()
    link = open_table(gm)
    campaign = re.search(r"/c/(\d+)/", gm.url)
    assert campaign
    base = f"/c/{campaign.group(1)}/"
    ada = join_with_character(browsers.phone(), link, "Alice", "Ada")
    paths = [base, f"{base}session/", f"{base}history/", urlsplit(ada.url).path]

    # Someone who never joined, on a phone, with no account...
    outsider = browsers.phone()
    browsers.ignore(r"WebSocket connection to .*/ws/c/")
    for path in paths:
        assert_not_found(outsider, path)

    # ...nor with an account of their own.
    sign_up(outsider, "stranger")
    for path in paths:
        assert_not_found(outsider, path)

    # The table's socket turns them away too: it closes before a single message.
    outcome = outsider.evaluate(
        """url => new Promise(resolve => {
            const socket = new WebSocket(url);
            const received = [];
            socket.onmessage = event => received.push(event.data);
            socket.onclose = event => resolve({code: event.code, received});
        })""",
        f"ws://{urlsplit(gm.url).netloc}{base.replace('/c/', '/ws/c/')}",
    )
    assert outcome["received"] == [], outcome
    assert outcome["code"] in (1006, 4403), outcome


@pytest.mark.browser
def test_a_player_may_not_open_the_session_page(browsers: Browsers) -> None:
    gm = browsers.gm()
    link = open_table(gm)
    ada = join_with_character(browsers.phone(), link, "Alice", "Ada")
    response = ada.page.goto(urlsplit(gm.url).path)
    assert response is not None and response.status == 403
    expect(ada.page.get_by_role("heading", level=1)).to_have_text("Not allowed")
    expect(ada.page.locator("#join-url")).to_have_count(0)
    # Their own campaign page is open to them, without the GM's controls.
    ada.page.goto(urlsplit(gm.url).path.removesuffix("session/"))
    expect(ada.page.get_by_role("heading", level=1)).to_have_text("The Loop")
    expect(ada.page.get_by_role("link", name="Session page")).to_have_count(0)
