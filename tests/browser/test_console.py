"""The GM's console on a phone behind the screen (360 x 740): the quick roll for someone
without a sheet with real widgets and its exact odds, a call for a roll for two characters
with a different trait each, and a player's phone that sees its own odds and answers in one
tap. Screenshots at 360 x 740 and 1920 x 1080."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Page, expect

from rolls import registry
from rolls.systems.base import percent
from tabletop.models import Character
from tests import factories
from tests.browser.conftest import Browsers, Shot
from tests.browser.flows import (
    assert_fits_phone,
    gm_roll,
    in_thread,
    join_with_character,
    log_in,
    open_table,
    wait_live,
)
from tests.factories import Script
from tests.test_table_stars import stars_sheet


def sixes_chance(dice: int, need: int) -> str:
    sixes = registry.engine("sixes")
    return percent(sixes.chance(sixes.parse_request({"dice": dice, "need": need})))


def small_buttons(page: Page) -> list[str]:
    """The visible buttons of the console smaller than a thumb (44 x 44 px)."""
    return page.evaluate(
        """() => [...document.querySelectorAll(".console button, .console .button")]
            .filter((el) => el.offsetParent !== null)
            .map((el) => [el.textContent.trim(), el.getBoundingClientRect()])
            .filter(([, r]) => r.width < 44 || r.height < 44)
            .map(([text, r]) => `${text} ${Math.round(r.width)}x${Math.round(r.height)}`)"""
    )


@pytest.mark.browser
@pytest.mark.smoke  # also on PostgreSQL + Redis and with FAST_PATH=off
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
    # On the feed (the waiting panel keeps it only while it has follow-ups left).
    expect(gm.locator("#feed")).to_contain_text("The guard")
    gm.locator("#npc-tools > summary").click()  # folded again

    # A call for two characters, each with a trait of their own sheet.
    gm.locator("#call-tools > summary").click()
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
    gm.locator("#call-tools > summary").click()
    gm.locator("#call-tools").scroll_into_view_if_needed()
    shot(gm, "console-1920-calls", full_page=False)


def luck_of(character: Character) -> int:
    return in_thread(lambda: Character.objects.get(pk=character.pk).luck)


@pytest.mark.browser
def test_luck_for_an_ability_and_a_long_rest_confirmed_without_script_STR_14(
    browsers: Browsers, chromium: Browser, live_url: str, shot: Shot
) -> None:
    """STR-14 from the stars sheet on a phone; and the GM's long rest on a browser without
    script: a page asks, and only its Confirm button rests everyone (STR-12)."""
    table = in_thread(lambda: factories.table("stars", character_name="Dave", sheet=stars_sheet()))
    sheet = f"/c/{table.campaign.pk}/characters/{table.character.pk}/sheet/"
    phone = browsers.phone()
    log_in(phone, "player")
    # From the roll screen, a link to the sheet's spend.
    phone.goto(f"/c/{table.campaign.pk}/characters/{table.character.pk}/")
    phone.get_by_role("link", name="Spend Luck on an ability").click()
    expect(phone).to_have_url(re.compile(re.escape(sheet) + "#luck-ability$"))
    phone.get_by_label("Which ability?").fill("Heirloom sword's flame")
    assert_fits_phone(phone)
    shot(phone, "console-stars-luck-360")
    phone.get_by_role("button", name="Spend 1 Luck").click()
    expect(phone.locator("#notice")).to_contain_text("A point of Luck spent: 2 left.")
    expect(phone.locator("main")).to_contain_text("Luck 2 of 3")

    context = chromium.new_context(
        base_url=live_url, java_script_enabled=False, viewport={"width": 360, "height": 740}
    )
    try:
        gm = context.new_page()
        log_in(gm, "gm")
        gm.goto(f"/c/{table.campaign.pk}/session/")
        gm.get_by_role("button", name="Long rest").click()
        expect(gm.get_by_role("heading", level=1)).to_have_text("Are you sure?")
        expect(gm.locator("main")).to_contain_text("Long rest for everyone?")
        assert_fits_phone(gm)
        shot(gm, "console-confirm-360")
        assert luck_of(table.character) == 2  # nothing yet
        gm.get_by_role("button", name="Confirm").click()
        expect(gm.locator("#notice")).to_contain_text("Everyone takes a long rest.")
        assert luck_of(table.character) == 3
    finally:
        context.close()


def box_of(page: Page, selector: str) -> dict[str, float]:
    box = page.locator(selector).bounding_box()
    assert box is not None, selector
    return box


@pytest.mark.browser
def test_the_console_is_a_workspace_at_1280x800(browsers: Browsers, dice: Script, shot: Shot) -> None:
    """On a laptop every tool of the GM is on the first screen; a contest being played stays in
    view while the GM scrolls the feed; a character's Luck is corrected from the console, and
    the correction is logged; "Roll for the GM" opens with no error."""
    gm = browsers.gm()
    link = open_table(gm)
    join_with_character(browsers.phone(), link, "Alice", "Ada", body=3)
    join_with_character(browsers.phone(), link, "Bob", "Bo", body=2)
    for number in range(6):  # a feed longer than the screen, one roll landed before the next
        dice(6, 2, 3, then=3)
        gm_roll(gm, f"Guard {number}", "keeps watch at the gate")
        expect(gm.locator("#feed")).to_contain_text(f"Guard {number}")

    gm.goto(gm.url)  # opened afresh (a reload would keep the scroll)
    wait_live(gm)
    assert gm.evaluate("window.scrollY") == 0
    tools = [
        f"{tool} > summary"
        for tool in ("#npc-tools", "#contest-tools", "#call-tools", "#correct-tools", "#invite-tools")
    ]
    clocks = [
        f"#clock-tools button >> nth={n}" for n in range(3)
    ]  # End session, New Mystery, and no rest in sixes
    assert gm.locator("#clock-tools button").all_inner_texts() == ["End session 1", "New Mystery"]
    for tool in tools + clocks[:2]:
        expect(gm.locator(tool)).to_be_visible()
        box = box_of(gm, tool)
        assert 0 <= box["y"] and box["y"] + box["height"] <= 800, (tool, box)
    # The invitation is folded once the players are in: the QR code is not what the GM sees first.
    expect(gm.locator("#invite-tools .qr")).to_be_hidden()
    assert small_buttons(gm) == []
    shot(gm, "console-workspace-1280", full_page=False)

    # From the keyboard: the tools are Tab stops, and Enter opens one. "Roll for the GM" opens
    # on a form, not on an error.
    summary = gm.locator("#npc-tools > summary")
    for _ in range(30):
        gm.keyboard.press("Tab")
        if summary.evaluate("element => element === document.activeElement"):
            break
    else:
        pytest.fail("'Roll for the GM' is not among the first 30 Tab stops.")
    gm.keyboard.press("Enter")
    expect(gm.locator("#npc-tools")).to_have_attribute("open", "")
    expect(gm.locator("#npc-form input[name=flag_dice]")).to_be_visible()
    gm.wait_for_load_state("networkidle")
    expect(gm.locator("#npc-odds")).not_to_contain_text("required")
    gm.locator("#npc-tools > summary").click()

    # A contest: its form is long, the page is not pushed; the contest stays in view.
    gm.locator("#contest-tools > summary").click()
    form = gm.locator("#contest-tools")
    form.get_by_role("checkbox", name="Ada", exact=True).check()
    form.get_by_role("checkbox", name="Bo", exact=True).check()
    form.get_by_label("What is at stake?").fill("Who gets the last bike")
    form.get_by_role("button", name="Open the contest").click()
    panel = gm.locator("#contests-panel")
    expect(panel).to_contain_text("Ada against Bo")
    expect(panel).to_be_in_viewport()
    shot(gm, "console-contest-1280", full_page=False)
    gm.mouse.move(900, 600)  # over the feed
    gm.mouse.wheel(0, 2000)
    gm.wait_for_function("window.scrollY > 300")
    expect(panel.locator(".contest-title")).to_be_in_viewport()
    box = box_of(gm, "#contests-panel")
    assert box["y"] >= -1, box
    shot(gm, "console-contest-scrolled-1280", full_page=False)
    gm.evaluate("window.scrollTo(0, 0)")
    gm.locator("#contest-tools > summary").click()

    # A correction from the console: Ada's Luck, changed and logged, without the sheet page.
    gm.locator("#correct-tools > summary").click()
    ada_form = gm.get_by_role("form", name="Correct Ada")
    ada_form.get_by_label("Luck points").fill("1")
    ada_form.get_by_role("button", name="Save Ada").click()
    expect(gm).to_have_url(re.compile(r"/session/$"))
    expect(gm.locator("#notice")).to_contain_text("Corrected: Luck points")
    expect(gm.locator("#feed")).to_contain_text("The GM corrected Ada: Luck points")
    ada = in_thread(lambda: Character.objects.get(name="Ada"))
    assert ada.luck == 1


def test_a_new_join_link_reloads_the_console_with_the_invite_panel_open(
    browsers: Browsers, shot: Shot
) -> None:
    """Issue 42: after "New join link" (or "New display link") the GM sees the new link at
    once, without opening the folded Invite panel again."""
    gm = browsers.gm()
    link = open_table(gm)
    join_with_character(browsers.phone(), link, "Alice", "Ada")
    gm.goto(gm.url)
    invite = gm.locator("#invite-tools")
    expect(invite).not_to_have_attribute("open", "")  # folded: a player is in

    gm.locator("#invite-tools > summary").click()
    gm.get_by_role("button", name="New join link").click()
    expect(gm.locator("#notice")).to_contain_text("New join link made")
    expect(invite).to_have_attribute("open", "")
    new_link = gm.locator("#join-url")
    expect(new_link).to_be_visible()
    assert new_link.get_attribute("href") != link
    expect(gm.locator("#invite-tools .qr")).to_be_visible()
    box = new_link.bounding_box()
    assert box is not None and 0 <= box["y"] and box["y"] + box["height"] <= 800, box
    shot(gm, "console-new-join-link-1280", full_page=False)

    display = gm.locator("#display-url").get_attribute("href")
    gm.get_by_role("button", name="New display link").click()
    expect(invite).to_have_attribute("open", "")
    expect(gm.locator("#display-url")).to_be_visible()
    assert gm.locator("#display-url").get_attribute("href") != display
