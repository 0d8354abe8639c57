"""A screen reader's evening, continued (issue 45): the phone and the console by keyboard alone,
and motion that follows ``prefers-reduced-motion`` (tests/browser/test_a11y.py has the rest)."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import Browsers
from tests.browser.flows import (
    join_with_character,
    open_table,
    roll,
)
from tests.browser.test_a11y import (  # noqa: F401  (audit: a fixture, used by name)
    BLOCKING,
    CONTROLS,
    HAS_LANGUAGE,
    STRICT_CONTRAST,
    Audit,
    announced,
    audit,
    campaign_of,
    expect_said,
    in_language,
    one_sentence,
)
from tests.factories import Script

# -- the keyboard, and motion --------------------------------------------------------------------
TAB_STOPS = """() => {
    const element = document.activeElement;
    if (!element || element === document.body) return null;
    // A choice drawn as a tile shows the focus of its hidden input on the tile (app.css).
    const outlined = (el) => {
        const style = getComputedStyle(el);
        return style.outlineStyle !== "none" && parseFloat(style.outlineWidth) >= 2;
    };
    const tile = element.closest("label");
    const box = element.getBoundingClientRect();
    return {
        key: element.id || element.outerHTML.slice(0, 80),
        outline: outlined(element) || (tile !== null && outlined(tile)),
        shown: box.width > 0 && box.height > 0,
    };
}"""


def tab_through(page: Page, limit: int = 600) -> list[dict[str, Any]]:
    """Every Tab stop of the page in order, until the focus comes round to the first again (no
    trap holds it on the way), each with whether it shows its focus."""
    stops: list[dict[str, Any]] = []
    page.locator("body").focus()
    for _ in range(limit):
        page.keyboard.press("Tab")
        stop = page.evaluate(TAB_STOPS)
        if stop is None:
            continue
        if stops and stop["key"] == stops[0]["key"]:
            return stops
        stops.append(stop)
    pytest.fail(
        f"The focus did not come round in {limit} Tab presses: {[stop['key'] for stop in stops[-5:]]}"
    )


@pytest.mark.browser
def test_the_phone_and_the_console_by_keyboard_alone(browsers: Browsers, dice: Script) -> None:
    gm = browsers.gm()
    link = open_table(gm)
    phone = join_with_character(browsers.phone(), link, "Alice", "Ada").page
    dice(1, then=1)
    roll(phone)

    for page in (phone, gm):
        stops = tab_through(page)
        unseen = [stop["key"] for stop in stops if stop["shown"] and not stop["outline"]]
        assert not unseen, f"Tab stops without a visible focus on {page.url}: {unseen}"

    # A folded tool opens with Enter and with Space, from the keyboard.
    folded = gm.locator("details.gm-tools > summary").first
    folded.focus()
    gm.keyboard.press("Enter")
    expect(gm.locator("details.gm-tools").first).to_have_attribute("open", "")
    gm.keyboard.press("Space")
    expect(gm.locator("details.gm-tools").first).not_to_have_attribute("open", "")

    # The roll form by keyboard: Roll, then the first follow-up's button, pressed with Enter.
    phone.get_by_role("button", name="Roll", exact=True).focus()
    dice(1, then=1)
    phone.keyboard.press("Enter")
    card = phone.locator("#result .card")
    expect(card.locator(".follow-up-push button")).to_be_visible()
    expect(phone.get_by_role("button", name="Roll", exact=True)).to_be_focused()


@pytest.mark.browser
def test_reduced_motion_stills_the_dice(browsers: Browsers, dice: Script) -> None:
    gm = browsers.gm()
    link = open_table(gm)
    phone = join_with_character(browsers.phone(), link, "Alice", "Ada").page
    phone.emulate_media(reduced_motion="reduce")
    dice(1, then=1)
    card = roll(phone)
    durations = card.locator(".die").evaluate_all(
        "dice => dice.map(die => parseFloat(getComputedStyle(die).animationDuration) || 0)"
    )
    assert durations and max(durations) < 0.01, durations
    assert phone.evaluate("getComputedStyle(document.documentElement).scrollBehavior") != "smooth"
