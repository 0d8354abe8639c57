"""The roll screen works from a keyboard: the Roll button is a Tab stop and shows focus."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import Browsers
from tests.browser.flows import join_with_character, open_table

MAX_TABS = 40


@pytest.mark.browser
def test_the_roll_button_is_reachable_and_shows_focus(browsers: Browsers) -> None:
    gm = browsers.gm()
    link = open_table(gm)
    page = join_with_character(browsers.phone(), link, "Alice", "Ada").page
    button = page.get_by_role("button", name="Roll", exact=True)

    # The first Tab stop skips to the content.
    page.keyboard.press("Tab")
    expect(page.get_by_role("link", name="Skip to content")).to_be_focused()

    for _ in range(MAX_TABS):
        page.keyboard.press("Tab")
        if button.evaluate("element => element === document.activeElement"):
            break
    else:
        pytest.fail(f"The Roll button is not among the first {MAX_TABS} Tab stops.")

    expect(button).to_be_focused()
    assert button.evaluate("element => element.matches(':focus-visible')")
    style = button.evaluate(
        """element => {
            const style = getComputedStyle(element);
            return {style: style.outlineStyle, width: parseFloat(style.outlineWidth)};
        }"""
    )
    assert style["style"] != "none" and style["width"] >= 2, style

    page.keyboard.press("Enter")
    expect(page.locator("#result .card")).to_be_visible()
