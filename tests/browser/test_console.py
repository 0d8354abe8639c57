"""The GM's console on a phone behind the screen (360 x 740): the quick roll for someone
without a sheet with real widgets and its exact odds, a call for a roll for two characters
with a different trait each, and a player's phone that sees its own odds and answers in one
tap. Screenshots at 360 x 740 and 1920 x 1080."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from rolls import registry
from rolls.systems.base import percent
from tests.browser.conftest import Browsers, Shot
from tests.browser.flows import assert_fits_phone, join_with_character, open_table, wait_live
from tests.factories import Script


def sixes_chance(dice: int, need: int) -> str:
    sixes = registry.engine("sixes")
    return percent(sixes.chance(sixes.parse_request({"dice": dice, "need": need})))


def small_buttons(page: Page) -> list[str]:
    """The visible buttons of the console smaller than a thumb (44 x 44 px)."""
    return page.evaluate(
        """() => [...document.querySelectorAll(".side button, .side .button")]
            .filter((el) => el.offsetParent !== null)
            .map((el) => [el.textContent.trim(), el.getBoundingClientRect()])
            .filter(([, r]) => r.width < 44 || r.height < 44)
            .map(([text, r]) => `${text} ${Math.round(r.width)}x${Math.round(r.height)}`)"""
    )


@pytest.mark.browser
def test_the_gm_runs_the_table_from_a_phone(browsers: Browsers, dice: Script, shot: Shot) -> None:
    gm = browsers.phone()
    link = open_table(gm)
    ada = join_with_character(browsers.phone(), link, "Anna", "Ada", body=3, sneak=2)
    bo = join_with_character(browsers.phone(), link, "Bert", "Bo", body=2, sneak=0)

    gm.reload()
    wait_live(gm)
    assert_fits_phone(gm)
    assert small_buttons(gm) == []

    # The quick roll: number inputs with the rules' bounds, the help under them, the odds.
    gm.locator("#npc-tools > summary").click()
    dice_input = gm.locator("#npc-form input[name=flag_dice]")
    expect(dice_input).to_have_attribute("min", "1")
    expect(dice_input).to_have_attribute("max", "13")
    expect(gm.locator("#npc-form")).to_contain_text("pool size, 1-13")
    gm.locator("#npc-form input[name=name]").fill("The guard")
    dice_input.fill("6")
    gm.locator("#npc-form input[name=flag_need]").fill("2")
    dice_input.dispatch_event("change")
    expect(gm.locator("#npc-odds")).to_contain_text(f"{sixes_chance(6, 2)} to get 2 sixes")
    assert_fits_phone(gm)
    shot(gm, "console-npc-360")
    dice(6, 6, 1, 2, 3, 4)
    gm.locator("#npc-form").get_by_role("button", name="Roll").click()
    expect(gm.locator("#gm-panel .card").first).to_contain_text("The guard")
    gm.locator("#npc-tools > summary").click()  # folded again

    # A call for two characters, each with a trait of their own sheet.
    form = gm.locator("#call-form")
    form.get_by_role("checkbox", name="Ada").check()
    form.get_by_role("checkbox", name="Bo").check()
    ada_id = ada.url.rstrip("/").rsplit("/", 1)[1]
    bo_id = bo.url.rstrip("/").rsplit("/", 1)[1]
    form.locator(f"select[name='c{ada_id}-trait']").select_option(label="Sneak")
    form.locator(f"select[name='c{bo_id}-trait']").select_option(label="Mind alone")
    form.locator("select[name=need]").select_option("2")
    form.get_by_label("What do they try?").fill("Get over the wall")
    assert_fits_phone(gm)
    shot(gm, "console-call-360")
    form.get_by_role("button", name="Ask for the roll").click()
    expect(gm.locator("#notice")).to_contain_text("Asked Ada (Body + Sneak), Bo (Mind).")
    expect(gm.locator("#call-status")).to_contain_text("Ada Body + Sneak …")

    # Ada's phone: her own roll, the intent, her exact odds; one tap answers.
    call = ada.page.locator("#calls-panel .call")
    expect(call).to_contain_text("The GM asks Ada to roll Body + Sneak.")
    expect(call).to_contain_text("Get over the wall")
    expect(call).to_contain_text(f"{sixes_chance(5, 2)} to get 2 sixes")
    expect(bo.page.locator("#calls-panel .call")).to_contain_text("The GM asks Bo to roll Mind.")
    expect(bo.page.locator("#calls-panel .call")).to_contain_text(
        f"{sixes_chance(2, 2)} to get 2 sixes"
    )  # Mind 2, the default
    assert_fits_phone(ada.page)
    shot(ada.page, "console-phone-call-360")
    dice(6, 6, 2, 3, 4)
    call.get_by_role("button", name="Roll Body + Sneak").click()
    expect(ada.page.locator("#result .card")).to_contain_text("Get over the wall")
    expect(ada.page.locator("#calls-panel .call")).to_have_count(0)
    expect(gm.locator("#call-status")).to_contain_text(re.compile(r"Ada Body \+ Sneak ✓"))

    shot(gm, "console-360", full_page=False)
    gm.set_viewport_size({"width": 1920, "height": 1080})
    gm.reload()
    wait_live(gm)
    assert small_buttons(gm) == []
    gm.evaluate("window.scrollTo(0, 0)")
    shot(gm, "console-1920", full_page=False)
    gm.locator("#call-tools").scroll_into_view_if_needed()
    shot(gm, "console-1920-calls", full_page=False)
