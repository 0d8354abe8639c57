"""Who sees what: a campaign is invisible to anyone signed in who has not joined it (404, as if
it did not exist), a signed-out visitor is asked to sign in, and the GM's session page is the
GM's alone."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import Browsers, Shot
from tests.browser.flows import assert_fits_phone, join_with_character, open_table, sign_up

PASSWORD = "a-long-walk-by-the-loop"


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

    # Someone who never joined, on a phone, signed out, is asked to sign in (as a member
    # would be), and the sign-in page names no campaign...
    outsider = browsers.phone()
    browsers.ignore(r"WebSocket connection to .*/ws/c/")
    for path in paths:
        outsider.goto(path)
        expect(outsider).to_have_url(re.compile(r"/login/\?next="))
        expect(outsider.locator("main")).not_to_contain_text("The Loop")

    # ...and with an account of their own finds nothing there.
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


@pytest.mark.browser
def test_a_player_who_joined_by_link_sets_a_password_and_opens_a_shared_link_on_another_device(
    browsers: Browsers, shot: Shot
) -> None:
    gm = browsers.gm()
    link = open_table(gm)
    campaign = re.search(r"/c/(\d+)/", gm.url)
    assert campaign
    history = f"/c/{campaign.group(1)}/history/"
    phone = join_with_character(browsers.phone(), link, "Alice", "Ada").page

    # The campaign page points the way to a password, since the link signed in this phone only.
    phone.goto(f"/c/{campaign.group(1)}/")
    phone.get_by_role("link", name="Set a user name and password").click()
    expect(phone.get_by_role("heading", level=1)).to_have_text("Your account")
    assert_fits_phone(phone)
    shot(phone, "account-set-password-360")
    phone.get_by_label("Username").fill("alice")
    phone.get_by_label("New password", exact=True).fill(PASSWORD)
    phone.get_by_label("New password confirmation").fill(PASSWORD)
    phone.get_by_role("button", name="Save").click()
    expect(phone.locator("#notice")).to_contain_text("You can now log in")
    expect(phone.get_by_role("link", name="Set a user name and password")).to_have_count(0)

    # On a second device, signed out, the shared history link asks to sign in and comes back.
    laptop = browsers.phone()
    laptop.goto(history)
    expect(laptop).to_have_url(re.compile(r"/login/\?next="))
    assert_fits_phone(laptop)
    shot(laptop, "login-from-shared-link-360")
    laptop.get_by_label("Username").fill("alice")
    laptop.get_by_label("Password").fill(PASSWORD)
    laptop.get_by_role("button", name="Log in").click()
    expect(laptop).to_have_url(re.compile(re.escape(history) + "$"))
    expect(laptop.get_by_role("heading", level=1)).to_contain_text("History")
    # The first phone is still signed in.
    phone.goto(history)
    expect(phone).to_have_url(re.compile(re.escape(history) + "$"))
