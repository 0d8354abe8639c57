"""A stars contested roll (STR-9) at a real table: the GM opens it on the console, Dave's phone
rolls his side with the exact odds of winning in view, the TV and Eve's phone see only that he
has rolled (no die) until the GM rolls the guard's side, then every screen shows both results
and who wins; the GM settles it. Then Dave challenges Eve from his phone, she accepts with a
roll of her choosing, and both roll."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from rolls import registry
from rolls.systems.base import percent
from tests.browser.conftest import Browsers, Shot
from tests.browser.flows import (
    assert_fits_phone,
    contest,
    contest_tools,
    join,
    join_link,
    open_display,
    settle,
    sign_up,
    start_session,
    wait_live,
)
from tests.browser.test_stars_table import create_hero, create_stars_campaign
from tests.factories import Script


def win_chance(mine: int, theirs: int) -> str:
    stars = registry.engine("stars")
    odds = stars.contest(stars.parse_request({"dice": mine}), stars.parse_request({"dice": theirs}))
    return percent(odds["win"])


@pytest.mark.browser
def test_a_contested_roll_is_sealed_until_both_sides_roll_then_settled(
    browsers: Browsers, dice: Script, shot: Shot
) -> None:
    gm = browsers.gm()
    sign_up(gm)
    create_stars_campaign(gm, "Stick it to the Man")
    start_session(gm)
    wait_live(gm)
    link = join_link(gm)
    tv = open_display(browsers, gm)

    dave = browsers.phone()
    join(dave, link, "Alice")
    create_hero(dave, "Dave", {"Agility": 3}, {}, {})
    eve = browsers.phone()
    join(eve, link, "Bob")
    create_hero(eve, "Eve", {"Smarts": 2}, {}, {})

    # The GM opens it: Dave's Agility against a guard of two dice.
    tools = contest_tools(gm)
    tools.get_by_label("First side (a tie goes to it)").select_option(label="Dave")
    tools.get_by_label("Second side").select_option(label="Someone without a sheet")
    tools.get_by_label("Dave's stat").select_option("Agility")
    tools.locator("#id_npc-name").fill("The guard")
    tools.locator("#id_npc-flag_dice").fill("2")
    tools.get_by_label("What is at stake?").fill("Slip past the gate")
    tools.get_by_role("button", name="Open the contest").click()
    expect(contest(gm)).to_contain_text("Dave against The guard")

    # Dave's phone: his roll and the exact chance to win, live.
    expect(contest(dave)).to_contain_text("Slip past the gate")
    expect(contest(dave)).to_contain_text(f"Dave's chance to win: {win_chance(3, 2)}")
    assert_fits_phone(dave)
    expect(contest(tv)).to_contain_text("Dave against The guard")
    shot(dave, "contest-phone-to-roll", full_page=False)

    dice(6, 5, 1)
    contest(dave).get_by_role("button", name="Roll Agility").click()
    expect(contest(dave)).to_contain_text("rolled, sealed")
    # The room knows he rolled, not what: no die on the TV or on Eve's phone.
    expect(contest(tv)).to_contain_text("rolled, sealed")
    expect(tv.locator("#feed")).to_contain_text("sealed until the contest reveals every side at once")
    expect(tv.locator("#feed [data-face]")).to_have_count(0)
    expect(eve.locator("#feed [data-face]")).to_have_count(0)
    shot(tv, "contest-tv-sealed")

    dice(5, 1)
    contest(gm).get_by_role("button", name="Roll for The guard").click()
    for page in (tv, eve, dave, gm):
        expect(contest(page)).to_contain_text("Revealed: Dave is winning")
    expect(contest(tv)).to_contain_text("Success: 3 Stars")
    expect(tv.locator("#feed [data-face]").first).to_be_visible()
    shot(tv, "contest-tv-revealed")

    settle(gm)
    expect(tv.locator("#contests-panel")).to_be_hidden()
    expect(eve.locator("#feed")).to_contain_text("Dave wins, 3 Stars to 1 Star.")

    # Dave challenges Eve from his phone; she accepts with her Smarts.
    dave.reload()
    challenge = dave.locator("details.challenge")
    challenge.locator("summary").click()
    challenge.get_by_label("Whom Dave challenges").select_option(label="Eve")
    challenge.get_by_label("Dave's stat").select_option("Agility")
    challenge.get_by_role("button", name="Challenge").click()
    expect(contest(eve)).to_contain_text("Waiting for Eve to accept the challenge")
    contest(eve).get_by_label("Eve's stat").select_option("Smarts")
    contest(eve).get_by_role("button", name="Accept and roll this").click()
    expect(contest(eve)).to_contain_text("Eve's chance to win")
    dice(1, 1)
    contest(eve).get_by_role("button", name=re.compile(r"^Roll Smarts")).click()
    expect(contest(eve)).to_contain_text("rolled, sealed")  # her dice are drawn before the next script
    # Dave's panel has heard of Eve's roll: no swap of it is on its way to take his tap.
    expect(contest(dave)).to_contain_text("rolled, sealed")
    dice(1, 1, 1)
    contest(dave).get_by_role("button", name=re.compile(r"^Roll Agility")).click()
    # Two botches: a tie, which goes to the challenger.
    expect(contest(tv)).to_contain_text("Revealed: Dave is winning")
    shot(eve, "contest-phone-revealed", full_page=False)
