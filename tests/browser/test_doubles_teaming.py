"""Teaming up in doubles (DBL-14) in real browsers: Ada leads and ticks Bo as her helper on her
phone, the odds count his die, and the card on every screen (the TV too) names him."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import Browsers, Shot
from tests.browser.flows import (
    assert_fits_phone,
    join,
    join_link,
    open_display,
    roll,
    sign_up,
    start_session,
    wait_live,
)
from tests.browser.test_doubles_table import chance, create_doubles_campaign, create_hero
from tests.factories import Script


@pytest.mark.browser
def test_dbl_14_the_leader_names_a_helper_and_every_screen_reads_it(
    browsers: Browsers, dice: Script, shot: Shot
) -> None:
    gm = browsers.gm()
    sign_up(gm)
    create_doubles_campaign(gm, "Hard Road")
    start_session(gm)
    wait_live(gm)
    link = join_link(gm)
    tv = open_display(browsers, gm)
    bo = browsers.phone()
    join(bo, link, "Bruno")
    create_hero(bo, "Bo")
    ada = browsers.phone()
    join(ada, link, "Alice")
    create_hero(ada, "Ada", ability_1_level=2)  # Fighting 2

    odds = ada.locator("#odds")
    ada.get_by_role("checkbox", name=re.compile(r"^Fighting")).check()
    ada.get_by_label("Difficulty Number").select_option(label="Challenging 6")
    expect(odds).to_contain_text("Fighting: 4 dice")
    helpers = ada.locator(".doubles-helpers")
    expect(helpers).to_contain_text("Bo")
    helpers.get_by_role("checkbox", name=re.compile(r"^Bo")).check()
    expect(odds).to_contain_text("Fighting, with Bo: 5 dice")
    expect(odds.locator(".odds-chance b")).to_have_text(chance(abilities=[2], helpers=1, dn=6))
    assert_fits_phone(ada)
    shot(ada, "doubles-teaming-phone-form")

    dice(6, 6, 2, 3, 1)
    ada.get_by_label("What do you try?").fill("Lift the fallen beam")
    card = roll(ada)
    expect(card).to_contain_text("Fighting, with Bo")
    expect(card).to_contain_text("+ helpers 1 = 5")
    expect(tv.locator("#feed")).to_contain_text("Fighting, with Bo")
    expect(bo.locator("#feed")).to_contain_text("Fighting, with Bo")
    shot(ada, "doubles-teaming-phone-card", full_page=False)
    shot(tv, "doubles-teaming-tv", full_page=False)
