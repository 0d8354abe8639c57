"""The stream overlay in a streaming program's browser source, at 1920x1080 and 1280x720: rolls
land on it live, on a transparent page, inside the frame's safe margin, with no join code; the
display's old overlay address gives a note instead of the display; and the GM's new overlay
link closes the old one's page while the TV stays on."""

from __future__ import annotations

import base64

import pytest
from playwright.sync_api import Page, expect

import rolls.log.randomness
from tests.browser.conftest import Browsers, Shot
from tests.browser.flows import assert_fits_phone, open_display, open_table, wait_live
from tests.browser.test_a11y import Audit
from tests.dice import ScriptedDice

SECRET_INTENT = "reads the forbidden letter"
SIZES = ({"width": 1920, "height": 1080}, {"width": 1280, "height": 720})


def gm_roll(gm: Page, name: str, intent: str, *, dice: int = 3, secret: bool = False) -> None:
    """The GM's quick roll from the session page, with as many dice as asked."""
    tools = gm.locator("details.gm-tools", has_text="Roll for the GM")
    if tools.get_attribute("open") is None:
        tools.locator("summary").click()
    form = gm.locator(".npc-form")
    form.get_by_label("Who rolls").fill(name)
    form.get_by_label("What they try").fill(intent)
    form.locator("#id_flag_dice").fill(str(dice))
    form.get_by_label("In secret").set_checked(secret)
    form.get_by_role("button", name="Roll", exact=True).click()


def backgrounds(page: Page) -> list[str]:
    return page.evaluate(
        "() => [document.documentElement, document.body, document.querySelector('main')].flatMap(el =>"
        " [getComputedStyle(el).backgroundColor, getComputedStyle(el).backgroundImage])"
    )


def assert_inside_the_frame(page: Page) -> None:
    """Nothing scrolls, every card and its verdict lies whole inside the 5% safe margin, and
    the verdict is read in type a stream keeps legible."""
    width, height = page.viewport_size["width"], page.viewport_size["height"]  # type: ignore[index]
    found = page.evaluate(
        """() => ({
            scroll: [document.documentElement.scrollWidth, document.documentElement.scrollHeight],
            cards: [...document.querySelectorAll('#feed > .card')].filter(c => c.checkVisibility()).map(card => {
                const r = card.getBoundingClientRect();
                const v = card.querySelector(':scope > .verdict').getBoundingClientRect();
                return {card: [r.left, r.top, r.right, r.bottom], verdict: [v.left, v.top, v.right, v.bottom],
                        size: parseFloat(getComputedStyle(card.querySelector(':scope > .verdict')).fontSize)};
            }),
        })"""
    )
    assert found["scroll"] == [width, height], found
    assert len(found["cards"]) == 3, found
    margin_x, margin_y = width * 0.05 - 1, height * 0.05 - 1
    for card in found["cards"]:
        left, top, right, bottom = card["card"]
        assert left >= margin_x and top >= margin_y, card
        assert right <= width - margin_x and bottom <= height - margin_y, card
        v_left, v_top, v_right, v_bottom = card["verdict"]
        assert left <= v_left and top <= v_top and v_right <= right and v_bottom <= bottom, card
    # The newest roll's verdict large: 35 px at 1080 lines, 23 px at 720.
    assert found["cards"][0]["size"] >= height / 31, found


def over_a_checkerboard(page: Page, picture: bytes) -> None:
    """What a stream shows: the overlay's transparent screenshot laid over a dark checkerboard
    (an editor's sign for "transparent"), on a page of its own."""
    data = base64.b64encode(picture).decode()
    page.set_content(
        "<html><body style='margin:0;background:#1a1d24 conic-gradient(#2b303b 25%, #1a1d24 0 50%,"
        " #2b303b 0 75%, #1a1d24 0) 0 0 / 40px 40px'>"
        f"<img alt='' src='data:image/png;base64,{data}' style='display:block'></body></html>"
    )


@pytest.mark.browser
def test_rolls_land_live_on_a_transparent_overlay_that_fits_both_stream_sizes(
    browsers: Browsers, monkeypatch: pytest.MonkeyPatch, shot: Shot, docs_shot: Shot
) -> None:
    gm = browsers.gm()
    open_table(gm)
    link = gm.locator("#overlay-url").get_attribute("href")
    display_link = gm.locator("#display-url").get_attribute("href")
    assert link and "/overlay/" in link and display_link and link != display_link
    expect(gm.locator("#overlay-url")).to_have_attribute("target", "_blank")
    expect(gm.get_by_role("button", name="New overlay link")).to_be_visible()
    gm.locator("#overlay-url").scroll_into_view_if_needed()
    shot(gm, "session-overlay-link-1280", full_page=False)
    gm.set_viewport_size({"width": 360, "height": 740})
    assert_fits_phone(gm)
    gm.locator("#overlay-url").scroll_into_view_if_needed()
    shot(gm, "session-overlay-link-360", full_page=False)
    gm.set_viewport_size({"width": 1280, "height": 800})

    overlays = []
    for size in SIZES:
        page = browsers.display()
        page.set_viewport_size(size)
        page.goto(link)
        wait_live(page)
        overlays.append(page)
    tv = open_display(browsers, gm)

    for page in overlays:
        assert backgrounds(page) == ["rgba(0, 0, 0, 0)", "none"] * 3, backgrounds(page)
        assert page.evaluate("getComputedStyle(document.documentElement).colorScheme") == "normal"
        expect(page.locator(".qr, #presence, #display-status, #display-calls, h1")).to_have_count(0)
        expect(page.get_by_role("button")).to_have_count(0)
        expect(page.locator("#live-status")).to_be_hidden()  # said only when not live

    # Rolls made now land on every overlay, the newest on top; a secret one without its dice.
    monkeypatch.setattr(rolls.log.randomness, "RNG", ScriptedDice(6, 4, 2, then=1))
    gm_roll(gm, "The ferryman", "pulls the boat ashore against the black tide of the river")
    monkeypatch.setattr(rolls.log.randomness, "RNG", ScriptedDice(6, 6, 6, then=1))
    gm_roll(gm, "The warden", SECRET_INTENT, secret=True)
    monkeypatch.setattr(rolls.log.randomness, "RNG", ScriptedDice(5, 3, then=1))
    gm_roll(gm, "The lighthouse keeper", "signals the lost ship", dice=12)
    monkeypatch.setattr(rolls.log.randomness, "RNG", ScriptedDice(6, 6, 2, then=2))
    gm_roll(gm, "Ada Lind", "climbs the radio mast in the storm", dice=8)
    for page in overlays:
        cards = page.locator("#feed > .card")
        expect(cards.first).to_contain_text("Ada Lind")
        expect(cards.first).to_contain_text("climbs the radio mast")
        expect(cards.first.locator(".die")).to_have_count(8)
        expect(cards.nth(2)).to_contain_text("The GM rolled in secret.")
        expect(cards.nth(2).locator(".die")).to_have_count(0)
        expect(cards.nth(3)).to_be_hidden()  # three shown, the oldest gone
        assert SECRET_INTENT not in page.content() and "The warden" not in page.content()
        for die in cards.first.locator(".die").all():
            die.evaluate("el => Promise.all(el.getAnimations().map(a => a.finished))")
        assert_inside_the_frame(page)
    expect(tv.locator("#feed > .card").first).to_contain_text("Ada Lind")
    audit = Audit()
    audit.check(overlays[1], "stream overlay")
    audit.assert_clean()

    shot(overlays[0], "overlay-1920", full_page=False)
    big = browsers.display()
    over_a_checkerboard(big, overlays[0].screenshot(omit_background=True, animations="disabled"))
    shot(big, "overlay-1920-over-a-stream", full_page=False)
    small = overlays[1].screenshot(omit_background=True, animations="disabled")
    stage = browsers.display()
    stage.set_viewport_size(SIZES[1])
    over_a_checkerboard(stage, small)
    docs_shot(stage, "overlay", full_page=False)

    # The display's old overlay address: a note, never the display with its join code.
    old_address = gm.context.new_page()
    answer = old_address.goto(display_link + "?overlay=1")
    assert answer is not None and answer.status == 410
    expect(old_address.locator("body")).to_contain_text("has a link of its own")
    expect(old_address.locator(".qr, #feed")).to_have_count(0)
    old_address.close()

    # The GM renews the overlay's link: the open overlays clear and say so; the TV stays on.
    gm.goto(gm.url.split("#")[0])
    if gm.locator("#invite-tools").get_attribute("open") is None:  # folded once players are in
        gm.locator("#invite-tools > summary").click()
    gm.get_by_role("button", name="New overlay link").click()
    # The console comes back with the Invite panel open on the new link, in sight.
    expect(gm.locator("#notice")).to_contain_text("New stream overlay link made")
    expect(gm.locator("#invite-tools")).to_have_attribute("open", "")
    expect(gm.locator("#overlay-url")).not_to_have_attribute("href", link)
    expect(gm.locator("#overlay-url")).to_be_in_viewport()
    for page in overlays:
        expect(page.locator("#overlay-replaced")).to_be_visible()
        expect(page.locator("#feed > .card")).to_have_count(0)
    shot(overlays[1], "overlay-replaced-1280", full_page=False)
    monkeypatch.setattr(rolls.log.randomness, "RNG", ScriptedDice(6, 1, 1, then=1))
    gm_roll(gm, "The ferryman", "rows on")
    expect(tv.locator("#feed > .card").first).to_contain_text("rows on")
    expect(tv.locator("#display-replaced")).to_be_hidden()
    gone = overlays[0].goto(link)
    assert gone is not None and gone.status == 404
