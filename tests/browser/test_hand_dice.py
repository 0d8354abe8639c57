"""Real dice at a sixes table (issue 17): the GM sets the table to real dice, a phone
(360x740) enters a roll on the keypad, pushes (a Condition and the line SIX-23 asks for),
enters only the dice the push rerolls, and the table display (1920x1080) shows the whole
chain, marked as rolled by hand. The app rolls nothing."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

import rolls.log.randomness
from tests.browser.conftest import Browsers, Shot
from tests.browser.flows import assert_fits_phone, join_with_character, open_table, wait_live
from tests.dice import ScriptedDice

TV = {"width": 1920, "height": 1080}


def tap(page: Page, scope: str, *faces: int) -> None:
    pad = page.locator(scope).locator("[data-keypad]")
    for face in faces:
        pad.get_by_role("button", name=f"Add a {face}").click()


@pytest.mark.browser
def test_a_phone_enters_a_sixes_roll_pushes_and_enters_only_the_rerolled_dice_SIX_5_SIX_23(
    browsers: Browsers, monkeypatch: pytest.MonkeyPatch, shot: Shot
) -> None:
    monkeypatch.setattr(rolls.log.randomness, "RNG", ScriptedDice())  # any die the app rolled would fail
    gm = browsers.gm()
    link = open_table(gm)
    gm.get_by_label("Real dice: everyone rolls and enters the faces").check()
    gm.get_by_role("button", name="Set the dice").click()
    expect(gm.locator("#notice")).to_contain_text("The GM set the dice: real dice, entered by hand.")
    expect(gm.get_by_label("Real dice: everyone rolls and enters the faces")).to_be_checked()
    gm.locator("#dice-mode-form").screenshot(path="/tmp/shots/hand-dice-mode.png")
    display_link = gm.locator("#display-url").get_attribute("href")
    assert display_link

    tv = browsers.gm()
    tv.set_viewport_size(TV)
    tv.goto(display_link)
    wait_live(tv)

    ada = join_with_character(browsers.phone(), link, "Ada", "Ada Lind").page
    # Body 3: three dice, two sixes needed, so 6 2 3 fails and the push rerolls the 2 and the 3.
    ada.get_by_label("What do you try?").fill("Climb the fence before the guard turns")
    ada.locator("label.trait", has_text="Body").first.click()
    ada.get_by_role("radio", name="2", exact=True).check()
    pad = ada.locator("#roll-form [data-keypad]")
    expect(pad.locator(".keypad-count")).to_have_text("0 of 3 dice entered")
    roll_button = ada.locator("#roll-form .roll-button")
    expect(roll_button).to_contain_text("Enter 3 dice more")
    tap(ada, "#roll-form", 6, 2)
    expect(pad.locator(".keypad-count")).to_have_text("2 of 3 dice entered")
    expect(pad.locator("[data-face='6'] .key-badge")).to_have_text("1")
    tap(ada, "#roll-form", 5)
    pad.get_by_role("button", name="Undo").click()
    tap(ada, "#roll-form", 3)
    expect(pad.locator(".keypad-count")).to_have_text("3 of 3 dice entered")
    expect(roll_button).to_have_text("Roll")
    # The keypad, the odds and the Roll button on one screen.
    for element in (pad.locator(".keypad-keys"), ada.locator("#odds .odds-chance"), roll_button):
        expect(element).to_be_in_viewport()
    box = pad.locator(".key").first.bounding_box()
    assert box and box["width"] >= 44 and box["height"] >= 44, box
    assert_fits_phone(ada)
    shot(ada, "hand-keypad-360", full_page=False)

    roll_button.click()
    card = ada.locator("#result .card")
    expect(card).to_contain_text("rolled by hand")
    expect(card).to_contain_text("Failure: 1 of 2 needed")
    expect(pad.locator(".keypad-count")).to_have_text("0 of 3 dice entered")
    # Issue 42: the fixed Roll bar holds the odds and Roll, not the keypad, which scrolls with
    # the form: the card, the keypad and Roll are each reachable on a 360 x 740 screen.
    bar = ada.locator("#roll-form .roll-bar")
    expect(bar.locator("[data-keypad]")).to_have_count(0)
    bar_box = bar.bounding_box()
    assert bar_box is not None and bar_box["height"] <= 150, bar_box
    for element in (card.locator(".verdict").first, pad.locator(".keypad-keys")):
        element.scroll_into_view_if_needed()
        box = element.bounding_box()
        assert box is not None and 0 <= box["y"] and box["y"] + box["height"] <= bar_box["y"] + 1, box
    expect(roll_button).to_be_in_viewport()
    shot(ada, "hand-keypad-after-roll-360", full_page=False)

    # The push asks for the two dice that are not sixes; the six stays on the card.
    push_form = card.locator(".follow-up-push")
    expect(push_form).to_contain_text("Reroll the 2 dice that are not sixes")
    push_form.get_by_label("Condition to check").select_option("Scared")
    push_form.get_by_label("What does the kid do to push themself?").fill("I jump before I can think")
    push_button = push_form.locator("button.primary")
    expect(push_button).to_contain_text("Enter 2 dice more")
    # Its keypad opens when the button is first tapped; the Luck point's stays folded.
    expect(push_form.locator(".keypad-keys")).to_be_hidden()
    push_button.click()
    expect(push_form.locator(".keypad-keys")).to_be_visible()
    expect(card.locator(".follow-up-luck .keypad-keys")).to_be_hidden()
    tap(ada, "#result .follow-up-push", 6, 4)
    expect(push_form.locator(".keypad-count")).to_have_text("2 of 2 dice entered")
    shot(ada, "hand-push-360", full_page=False)
    push_button.click()
    expect(card).to_contain_text("Pushed, checking Scared")
    expect(card).to_contain_text("Success: 2 of 2 needed")

    # The display shows the whole chain, marked as rolled by hand.
    on_tv = tv.locator("#feed > .card").first
    expect(on_tv).to_contain_text("rolled by hand")
    expect(on_tv).to_contain_text("Pushed, checking Scared")
    expect(on_tv.locator(".step")).to_have_count(2)
    expect(on_tv.locator(".step").first.locator(".die")).to_have_count(3)
    shot(tv, "hand-display-1920", full_page=False)


@pytest.mark.browser
def test_at_an_either_way_table_the_keypad_comes_with_the_real_dice_choice(
    browsers: Browsers, monkeypatch: pytest.MonkeyPatch, shot: Shot
) -> None:
    """The player ticks real dice for this roll: the keypad appears; a blind roll hides it
    again (the app rolls a blind roll). Unticked, the app rolls."""
    gm = browsers.gm()
    link = open_table(gm)
    gm.get_by_label("Either: each player chooses for each roll").check()
    gm.get_by_role("button", name="Set the dice").click()
    expect(gm.locator("#notice")).to_contain_text("each player chooses")

    ada = join_with_character(browsers.phone(), link, "Ada", "Ada Lind").page
    ada.locator("label.trait", has_text="Body").first.click()
    pad = ada.locator("#roll-form [data-keypad]")
    expect(pad).to_be_hidden()
    ada.get_by_label("Real dice: I roll and enter the faces").check()
    expect(pad).to_be_visible()
    expect(pad.locator(".keypad-count")).to_have_text("0 of 3 dice entered")
    ada.get_by_label("Roll blind").check()
    expect(pad).to_be_hidden()
    ada.get_by_label("Roll blind").uncheck()
    tap(ada, "#roll-form", 1, 1, 4)
    expect(ada.locator("#roll-form .roll-button")).to_have_text("Roll")
    ada.locator("#roll-form .roll-button").click()
    expect(ada.locator("#result .card")).to_contain_text("rolled by hand")

    ada.get_by_label("Real dice: I roll and enter the faces").uncheck()
    expect(pad).to_be_hidden()
    monkeypatch.setattr(rolls.log.randomness, "RNG", ScriptedDice(6, 6, 6))
    ada.locator("#roll-form .roll-button").click()
    expect(ada.locator("#result .card")).not_to_contain_text("rolled by hand")
    expect(ada.locator("#result .card")).to_contain_text("Success")
