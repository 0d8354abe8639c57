"""The table display on a 1920x1080 television: the GM's rolls land on it live, large, and a
secret one shows as "rolled in secret" with no dice; and a replaced link closes the screen with
a message instead of reconnecting. (The stream overlay has its own link: test_overlay.py.)"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

import rolls.log.randomness
from tests.browser.conftest import Browsers, Shot
from tests.browser.flows import gm_roll, join_with_character, open_table, wait_live
from tests.dice import ScriptedDice

SECRET_INTENT = "reads the forbidden letter"


@pytest.mark.browser
def test_the_tv_shows_the_latest_roll_large_and_a_secret_one_without_dice(
    browsers: Browsers, monkeypatch: pytest.MonkeyPatch, shot: Shot
) -> None:
    gm = browsers.gm()
    link = open_table(gm)
    display_link = gm.locator("#display-url").get_attribute("href")
    assert display_link and "/display/" in display_link
    expect(gm.locator("#display-url")).to_have_attribute("target", "_blank")
    shot(gm, "session-display-link-1280")
    gm.set_viewport_size({"width": 360, "height": 740})
    shot(gm, "session-display-link-360")
    gm.set_viewport_size({"width": 1280, "height": 800})

    # The television: nobody logs in on it.
    tv = browsers.display()
    tv.goto(display_link)
    wait_live(tv)
    expect(tv.locator(".display-join .qr svg")).to_be_visible()
    expect(tv.get_by_role("button")).to_have_count(0)
    expect(tv.locator("form, input, select")).to_have_count(0)

    ada = join_with_character(browsers.phone(), link, "Ada", "Ada Lind")
    expect(tv.locator("#presence")).to_contain_text("Ada")
    expect(tv.locator("#presence")).to_contain_text("Marta")

    # The GM calls for a roll from Ada's roll screen: the TV lists it, and who has not rolled yet.
    # (The GM's socket on a roll screen is sent the session page's call status, which that page
    # does not hold: htmx logs it. Not the display's doing.)
    browsers.ignore(r"htmx:oobErrorNoTarget, #call-status")
    session_url = gm.url
    gm.goto(ada.url)
    gm.locator("details.gm-call summary").click()
    gm.get_by_role("button", name="Ask Ada Lind to roll this").click()
    expect(tv.locator("#display-calls")).to_contain_text("Ada Lind")
    expect(tv.locator("#display-calls .waiting")).to_have_count(1)
    gm.goto(session_url)

    # Ada answers the call in one tap, then rolls blind.
    monkeypatch.setattr(rolls.log.randomness, "RNG", ScriptedDice(6, 5, 3, then=1))
    ada.page.get_by_role("button", name="Roll Body").click()
    expect(tv.locator("#display-calls .done")).to_contain_text("Ada Lind")
    monkeypatch.setattr(rolls.log.randomness, "RNG", ScriptedDice(1, 1, then=1))
    ada.page.get_by_label("Roll blind").check()
    ada.page.get_by_role("button", name="Roll", exact=True).click()
    expect(tv.locator("#feed > .card").first).to_contain_text("Ada Lind rolled blind")
    expect(tv.locator("#feed > .card").first.locator(".die")).to_have_count(0)

    # A secret roll first, then a public one: the public one is the latest, and large.
    monkeypatch.setattr(rolls.log.randomness, "RNG", ScriptedDice(6, 6, 6, then=1))
    gm_roll(gm, "The warden", SECRET_INTENT, secret=True)
    latest = tv.locator("#feed > .card").first
    expect(latest).to_contain_text("The GM rolled in secret.")
    expect(latest.locator(".die")).to_have_count(0)

    monkeypatch.setattr(rolls.log.randomness, "RNG", ScriptedDice(6, 4, 2, then=1))
    gm_roll(gm, "The ferryman", "pulls the boat ashore")
    expect(tv.locator("#feed > .card")).to_have_count(4)
    latest = tv.locator("#feed > .card").first
    expect(latest).to_contain_text("The ferryman")
    expect(latest).to_contain_text("pulls the boat ashore")
    expect(latest.locator(".die")).to_have_count(3)
    die = latest.locator(".die").first
    die.evaluate("el => Promise.all(el.getAnimations().map(a => a.finished))")  # it lands turning, smaller
    box = die.bounding_box()
    assert box and box["width"] >= 96 and box["height"] >= 96, box
    earlier = tv.locator("#feed > .card").nth(1)
    expect(earlier).to_contain_text("The GM rolled in secret.")
    expect(earlier.locator(".die")).to_have_count(0)
    # Nothing of the secret roll in any byte of the page.
    html = tv.content()
    assert SECRET_INTENT not in html and "The warden" not in html
    # Readable from across the room, and nothing past the edges of the screen.
    assert latest.locator(".verdict").evaluate("el => parseFloat(getComputedStyle(el).fontSize)") >= 48
    sizes = tv.evaluate("() => [document.documentElement.scrollWidth, document.documentElement.scrollHeight]")
    assert sizes == [1920, 1080], sizes
    # (docs/img/display.png comes from test_three_screens.py, with TABLETOP_DOCS_SHOTS=1.)
    shot(tv, "display-1920", full_page=False)

    # A new join link: the TV draws itself again, with the new link and its QR code.
    tv.evaluate("window.stillTheSamePage = true")
    gm.locator("#invite-tools > summary").click()  # folded: everyone is in
    gm.get_by_role("button", name="New join link").click()
    new_link = gm.locator("#join-url").get_attribute("href")
    assert new_link and new_link != link
    expect(tv.locator(".display-join .join-url")).to_have_text(new_link)
    assert tv.evaluate("window.stillTheSamePage") is None  # reloaded, not patched
    wait_live(tv)

    # The GM replaces the display link (the Invite panel stayed open on the new join link):
    # the open screen says so and stops.
    gm.get_by_role("button", name="New display link").click()
    expect(tv.locator("#display-replaced")).to_be_visible()
    expect(tv.locator("#display-replaced")).to_contain_text("ask the GM for the new one")
    expect(tv.locator("#feed > .card")).to_have_count(0)
    shot(tv, "display-replaced-1920", full_page=False)
    assert tv.goto(display_link).status == 404  # type: ignore[union-attr]
