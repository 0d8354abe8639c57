"""A short `kinds` scene in real browsers: the Fortune Master opens the table on a laptop, two
players join from their phones, pick Skills, a Challenge and the Advantage stepper while the
odds follow, roll, and every screen shows every Success with its grade, live. Kinds has no
follow-ups; the scene's follow-up is the GM's clock, a new Adventure, which reaches every phone."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from rolls import registry
from rolls.systems.base import percent
from tests.browser.conftest import Browsers, Shot
from tests.browser.flows import (
    assert_fits_phone,
    join,
    join_link,
    roll,
    roll_id,
    sign_up,
    start_session,
    wait_live,
)
from tests.factories import Script


def chance(dice: int, level: str) -> str:
    """What the roll form should print: the engine's exact chance, as the app formats it."""
    kinds = registry.engine("kinds")
    return percent(kinds.chance(kinds.parse_request({"dice": dice, "level": level})))


def create_kinds_campaign(page: Page, name: str) -> None:
    page.get_by_label("Campaign name").fill(name)
    page.get_by_role("radio", name=re.compile(r"^Kinds")).check()
    page.get_by_label("Your name as GM").fill("Fortuna")
    page.get_by_role("button", name="Create and open the session page").click()
    expect(page).to_have_url(re.compile(r"/c/\d+/session/$"))
    expect(page.get_by_role("button", name="New Adventure")).to_be_visible()
    expect(page.get_by_role("button", name="Long rest")).to_have_count(0)


def create_adventurer(page: Page, name: str, **diamonds: int) -> None:
    """The kinds sheet form: the defaults, but for the Field Diamonds given (``knowledge=3``)."""
    page.locator("#id_name").fill(name)
    for field, value in diamonds.items():
        page.locator(f"#id_{field}").fill(str(value))
    page.get_by_role("button", name="Create character").click()
    expect(page).to_have_url(re.compile(r"/c/\d+/characters/\d+/$"))
    expect(page.get_by_role("heading", level=1)).to_have_text(name)
    wait_live(page)


@pytest.mark.browser
def test_a_kinds_scene_on_two_phones_and_the_gm_screen(browsers: Browsers, dice: Script, shot: Shot) -> None:
    # Indy's 4 dice show two pairs; Marion's 3 dice show nothing alike.
    dice(5, 2, 5, 2, 1, 3, 6)

    gm = browsers.gm()
    sign_up(gm)
    create_kinds_campaign(gm, "Temple Run")
    start_session(gm)
    wait_live(gm)
    link = join_link(gm)

    indy = browsers.phone()
    join(indy, link, "Alice")
    assert_fits_phone(indy)
    create_adventurer(indy, "Indy", knowledge=3)
    marion = browsers.phone()
    join(marion, link, "Bruno")
    create_adventurer(marion, "Marion")
    expect(gm.locator("#presence")).to_contain_text("Alice")
    expect(gm.locator("#presence")).to_contain_text("Bruno")

    # The odds follow every tap: the Skill (its Field comes with it), the Challenge, the stepper.
    odds = indy.locator("#odds")
    chance_now = odds.locator(".odds-chance b")
    expect(odds).to_contain_text("Action + Athletics: 3 dice")
    expect(chance_now).to_have_text(chance(3, "basic"))
    indy.get_by_role("radio", name=re.compile(r"^First Aid")).check()
    expect(odds).to_contain_text("Knowledge + First Aid: 4 dice")
    expect(chance_now).to_have_text(chance(4, "basic"))
    indy.get_by_label("Challenge", exact=True).select_option(label="Critical")
    expect(odds).to_contain_text("to pass a Critical Challenge")
    expect(chance_now).to_have_text(chance(4, "critical"))
    indy.get_by_role("radio", name="+2: Advantage").check()
    expect(odds).to_contain_text("Knowledge + First Aid: 6 dice")
    expect(chance_now).to_have_text(chance(6, "critical"))
    expect(odds.locator(".ladder li.current")).to_contain_text("+2")
    # The clamp: three Disadvantages leave two dice, never fewer.
    indy.get_by_role("radio", name="-3: Disadvantage").check()
    expect(odds).to_contain_text("Knowledge + First Aid: 2 dice")
    expect(odds).to_contain_text("3 Disadvantages make 2, the fewest Disadvantage leaves.")
    expect(odds.locator(".ladder li")).to_have_count(7)
    assert_fits_phone(indy)
    shot(indy, "kinds-phone-roll-form")
    indy.get_by_role("radio", name="Neither").check()
    indy.get_by_label("Challenge", exact=True).select_option(label="Basic")
    expect(chance_now).to_have_text(chance(4, "basic"))

    # Indy rolls: two pairs, two Basic Successes, each listed with what it passes.
    indy.get_by_label("What do you try?").fill("Patch up Marion's leg")
    card = roll(indy)
    expect(card).to_contain_text("Basic Success: passes the Basic Challenge")
    expect(card).to_contain_text("Basic Success (two 5s): passes a Basic Challenge.")
    expect(card).to_contain_text("Basic Success (two 2s): passes a Basic Challenge.")
    expect(card).to_contain_text("2 Successes in one roll")
    expect(card.locator(".die.hit")).to_have_count(4)
    expect(card.locator(".follow-ups")).to_have_count(0)
    indy_roll = roll_id(card)
    assert_fits_phone(indy)

    # The GM's screen and Marion's phone show it live, Successes and all.
    on_gm = gm.locator(f"#feed-roll-{indy_roll}")
    expect(on_gm).to_contain_text("Indy")
    expect(on_gm).to_contain_text("Knowledge + First Aid")
    expect(on_gm).to_contain_text("Patch up Marion's leg")
    expect(on_gm).to_contain_text("Basic Success (two 2s): passes a Basic Challenge.")
    expect(marion.locator(f"#feed-roll-{indy_roll}")).to_contain_text("2 Successes in one roll")

    # Marion climbs out of the pit, a Danger: no two dice alike, an Accident that can hurt.
    marion.get_by_role("radio", name=re.compile(r"^Climb")).check()
    expect(marion.locator("#odds")).to_contain_text("Survival + Climb: 3 dice")
    marion.get_by_label("This Challenge is a Danger: an Accident can hurt").check()
    marion.get_by_label("What do you try?").fill("Climb out of the snake pit")
    card = roll(marion)
    expect(card).to_contain_text("No Success: an Accident")
    expect(card).to_contain_text("This Challenge is a Danger: the Accident can hurt the Adventurer.")
    marion_roll = roll_id(card)
    expect(gm.locator(f"#feed-roll-{marion_roll}")).to_contain_text("No Success: an Accident")
    expect(indy.locator(f"#feed-roll-{marion_roll}")).to_contain_text("Climb out of the snake pit")

    # The GM's clock: a new Adventure (once confirmed), announced on every screen without a reload.
    gm.once("dialog", lambda dialog: dialog.accept())
    gm.get_by_role("button", name="New Adventure").click()
    expect(gm.locator("#notice")).to_contain_text("New Adventure: done.")
    for page in (gm, indy, marion):
        expect(page.locator("#feed .event-mystery-start").first).to_contain_text("Adventure 2 begins.")

    assert_fits_phone(indy)
    assert_fits_phone(marion)
    shot(gm, "kinds-gm-session")
    shot(marion, "kinds-phone-other")
