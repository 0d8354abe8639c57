"""A real table, in one session: the GM's console on a laptop, the table display on a
1920 x 1080 television opened from the session page's own link, and three phones at
360 x 740 that join with the join link. The room sees a secret GM roll and a blind roll only
as lines that say so; a call for a roll is answered in one tap and the TV shows who has
answered; a refusal is read next to the button that caused it; the GM's correction of Luck
changes a phone's badge live; and after choosing a trait the odds and the Roll button are on
the phone's screen without scrolling (SIX-04).

With TABLETOP_DOCS_SHOTS=1 the test also rewrites the README's screenshots in docs/img/."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.browser.conftest import PHONE, Browsers, Shot
from tests.browser.flows import (
    Player,
    assert_fits_phone,
    gm_roll,
    join_with_character,
    open_table,
    wait_live,
)
from tests.factories import Script

PHONE_HEIGHT = PHONE["viewport"]["height"]  # type: ignore[index]
SECRET_INTENT = "reads the warden's letter"
BLIND_INTENT = "listens at the cellar door"
# Nearer than this (in px, between their boxes) a refusal reads as the button's own.
NEAR = 150


def on_screen(page: Page, element: Locator) -> dict[str, float]:
    """The element's box, asserted to lie wholly inside the phone's viewport."""
    box = element.bounding_box()
    assert box is not None, element
    assert 0 <= box["y"] and box["y"] + box["height"] <= PHONE_HEIGHT, (element, box)
    return box


def character_id(player: Player) -> str:
    return player.url.rstrip("/").rsplit("/", 1)[1]


def display_card(tv: Page, text: str) -> Locator:
    return tv.locator("#feed > .card", has_text=text)


@pytest.mark.browser
@pytest.mark.smoke  # also on PostgreSQL + Redis and with FAST_PATH=off
def test_a_table_plays_a_session_on_the_gms_console_the_tv_and_three_phones(
    browsers: Browsers, dice: Script, shot: Shot, docs_shot: Shot
) -> None:
    # The GM's laptop: sign up, a sixes campaign, a session.
    gm = browsers.gm()
    link = open_table(gm, by_hand=True)
    session_url = gm.url

    # The television opens the link the session page gives it; nobody logs in there.
    display_link = gm.locator("#display-url").get_attribute("href")
    assert display_link and "/display/" in display_link
    tv = browsers.display()
    tv.goto(display_link)
    wait_live(tv)
    expect(tv.get_by_role("button")).to_have_count(0)

    # Three phones scan the join link and make their kids.
    ada = join_with_character(browsers.phone(), link, "Anna", "Ada", body=3, sneak=2, by_hand=True)
    bo = join_with_character(browsers.phone(), link, "Bert", "Bo", body=2, sneak=1)
    cy = join_with_character(browsers.phone(), link, "Cleo", "Cy", body=4, sneak=2)
    for player in (ada, bo, cy):
        expect(tv.locator("#presence")).to_contain_text(player.name)

    # On a phone, choosing a trait keeps the odds and the Roll button on the screen: no scroll.
    chip = cy.page.locator("#roll-form .trait", has_text="Sneak").first
    chip.click()
    expect(cy.page.locator("#odds .odds-pool")).to_contain_text("Sneak")
    expect(cy.page.locator("#odds .odds-chance")).to_be_visible()
    on_screen(cy.page, chip)
    on_screen(cy.page, cy.page.locator("#odds .odds-chance"))
    on_screen(cy.page, cy.page.locator("#roll-form .roll-button"))
    assert cy.page.evaluate("window.scrollY") == 0
    assert_fits_phone(cy.page)
    docs_shot(cy.page, "phone-roll", full_page=False)

    # The GM calls for a roll from the console: Ada with Sneak, Bo with Mind, each their own.
    # (The call form lists the characters the page knew when it was drawn.)
    gm.reload()
    wait_live(gm)
    gm.locator("#call-tools > summary").click()
    form = gm.locator("#call-form")
    form.get_by_role("checkbox", name="Ada").check()
    form.get_by_role("checkbox", name="Bo").check()
    form.locator(f"select[name='c{character_id(ada)}-trait']").select_option(label="Sneak")
    form.locator(f"select[name='c{character_id(bo)}-trait']").select_option(label="Mind alone")
    form.get_by_label("What do they try?").fill("Climb the fence before the guard turns")
    form.get_by_role("button", name="Ask for the roll").click()
    expect(gm.locator("#call-status")).to_contain_text("Ada Body + Sneak …")
    calls = tv.locator("#display-calls")
    expect(calls).to_contain_text("Climb the fence before the guard turns")
    expect(calls.locator(".waiting")).to_have_count(2)

    # Ada's phone shows the call with her own trait and its exact odds; one tap answers it.
    call = ada.page.locator("#calls-panel .call")
    expect(call).to_contain_text("The GM asks Ada to roll Body + Sneak.")
    expect(call).to_contain_text(re.compile(r"\d+(\.\d+)?% to get"))
    expect(bo.page.locator("#calls-panel .call")).to_contain_text("The GM asks Bo to roll Mind.")
    dice(6, 3, 2, 4, 5, then=3)
    call.get_by_role("button", name="Roll Body + Sneak").click()
    expect(ada.page.locator("#result .card")).to_contain_text("Climb the fence")
    expect(ada.page.locator("#calls-panel .call")).to_have_count(0)
    expect(calls.locator(".done")).to_contain_text("Ada")
    expect(calls.locator(".waiting")).to_contain_text("Bo")

    # A refusal on Bo's phone, read by the button that caused it: a helper in group Trouble
    # (SIX-17: everyone rolls for themself).
    bo.page.locator("#roll-form .trait", has_text="Sneak").first.click()
    bo.page.locator("#roll-form select[name=helper]").select_option(label="Ada helps")
    bo.page.locator("#roll-form input[name=group]").check()
    button = bo.page.locator("#roll-form .roll-button")
    button.click()
    refusal = bo.page.locator("#roll-form [data-refusal] [role=alert]")
    expect(refusal).to_contain_text("Nobody can help in group Trouble")
    said = on_screen(bo.page, refusal)
    pressed = on_screen(bo.page, button)
    gap = max(pressed["y"] - (said["y"] + said["height"]), said["y"] - (pressed["y"] + pressed["height"]))
    assert gap < NEAR, (said, pressed)
    # Said once: the odds, which said it before the tap, give way to the refusal.
    expect(bo.page.locator("#roll-form #odds")).to_be_hidden()
    # Nothing was rolled: the TV still shows Ada's answer on top.
    expect(tv.locator("#feed > .card").first).to_contain_text("Climb the fence")

    # The secret GM roll and Ada's blind roll reach the TV as lines that say so, and no more.
    dice(6, 6, 6, then=3)
    gm_roll(gm, "The warden", SECRET_INTENT, secret=True)
    secret = display_card(tv, "The GM rolled in secret")
    expect(secret).to_have_count(1)
    dice(1, 1, 2, 3, 6, then=3)
    ada.page.locator("#roll-form input[name=intent]").fill(BLIND_INTENT)
    ada.page.get_by_label("Roll blind").check()
    ada.page.locator("#roll-form .roll-button").click()
    blind = display_card(tv, "Ada rolled blind")
    expect(blind).to_have_count(1)
    expect(ada.page.locator("#result .card")).to_contain_text("rolled blind")

    # Cy rolls Sneak in the open: the latest roll, large, on the TV.
    dice(6, 6, 4, 2, 1, 3, then=3)
    cy.page.locator("#roll-form .roll-button").click()
    expect(cy.page.locator("#result .card .die").first).to_be_visible()
    latest = tv.locator("#feed > .card").first
    expect(latest).to_contain_text("Cy")
    expect(latest).to_contain_text("Sneak")
    die = latest.locator(".die").first
    expect(die).to_be_visible()
    die.evaluate("el => Promise.all(el.getAnimations().map(a => a.finished))")  # it lands turning, smaller
    box = die.bounding_box()
    assert box and box["width"] >= 96 and box["height"] >= 96, box
    cy.page.wait_for_timeout(700)  # the smooth scroll to the result
    docs_shot(cy.page, "phone-result", full_page=False)

    # What the room may not see is nowhere on its screen: no dice, intent or outcome.
    for card, line in ((secret, "The GM rolled in secret."), (blind, "Ada rolled blind")):
        expect(card.locator(".die")).to_have_count(0)
        expect(card.locator(".intent, .chain, .details")).to_have_count(0)
        expect(card.locator(".verdict")).to_contain_text(line)
    text = tv.locator("body").inner_text()
    html = tv.content()
    for hidden in (SECRET_INTENT, "The warden", BLIND_INTENT):
        assert hidden not in text and hidden not in html, hidden
    expect(tv.locator(".display-side")).to_contain_text("Rolls called for")
    docs_shot(tv, "display", full_page=False)

    # The GM corrects Cy's Luck from Cy's sheet: Cy's badge changes live, the page stays.
    expect(cy.page.locator(f"#resources-{character_id(cy)}")).to_contain_text(re.compile(r"Luck [2-9]"))
    cy.page.evaluate("window.stillTheSamePage = true")
    gm.goto(f"{cy.url}sheet/")
    gm.get_by_text("GM: correct resources").click()
    gm.get_by_label("Luck points").fill("1")
    gm.get_by_role("button", name="Save corrections").click()
    expect(cy.page.locator(f"#resources-{character_id(cy)}")).to_contain_text("Luck 1")
    assert cy.page.evaluate("window.stillTheSamePage") is True

    # The console, with everything the GM may see: the secret roll in full.
    gm.goto(session_url)
    wait_live(gm)
    expect(gm.locator("#feed")).to_contain_text("The warden")
    expect(gm.locator("#feed")).to_contain_text(SECRET_INTENT)
    expect(gm.locator("#call-status")).to_contain_text(re.compile(r"Ada Body \+ Sneak ✓"))
    gm.evaluate("window.scrollTo(0, 0)")
    docs_shot(gm, "console", full_page=False)  # the laptop's 1280 x 800
    shot(bo.page, "three-screens-refusal", full_page=False)
