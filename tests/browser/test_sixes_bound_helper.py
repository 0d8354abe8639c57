"""A helper bound to a failed roll (SIX-16) at a real table: Bo helps Ada, the roll fails, and
Bo's phone says he shares the failure; the GM opens the roll's page from the card's number and
checks Scared for both in one step, which both phones see in the log."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import Browsers, Shot
from tests.browser.flows import assert_fits_phone, join_with_character, open_table, roll, roll_id, wait_live
from tests.factories import Script


@pytest.mark.browser
def test_six_16_the_helper_shares_a_failure_and_the_gm_checks_a_condition_for_both(
    browsers: Browsers, dice: Script, shot: Shot
) -> None:
    gm = browsers.gm()
    link = open_table(gm)
    ada = join_with_character(browsers.phone(), link, "Alice", "Ada", body=3).page
    bo = join_with_character(browsers.phone(), link, "Bob", "Bo", body=2).page

    ada.reload()
    wait_live(ada)
    ada.locator("#roll-form select[name=helper]").select_option(label="Bo helps")
    dice(1, 2, 3, 4)
    card = roll(ada)
    expect(card).to_contain_text("Bo, who helped, shares the failure")
    number = roll_id(card)
    bound = bo.locator(f"#feed-roll-{number}")
    expect(bound).to_contain_text("The roll failed: Bo, who helped, shares the failure")
    assert_fits_phone(bo)
    bound.scroll_into_view_if_needed()
    shot(bo, "sixes-helper-phone-bound", full_page=False)

    gm.locator(f"#feed-roll-{number} .roll-link").click()
    gm.get_by_label("check the same Condition for Ada and Bo").select_option("Scared")
    shot(gm, "sixes-helper-gm-roll-page")
    gm.get_by_role("button", name="Check it for both").click()
    expect(gm.locator("body")).to_contain_text("Scared checked for Ada and Bo.")
    expect(bo.locator("#feed")).to_contain_text("Bo: checked Scared (bound to a failed roll they helped).")
    expect(ada.locator("#feed")).to_contain_text("Ada: checked Scared.")
    expect(gm.get_by_role("button", name="Check it for both")).to_have_count(1)
    expect(gm.locator("#shared-condition option[value=Scared]")).to_have_count(0)


@pytest.mark.browser
def test_six_15_the_gm_strikes_a_friends_help_and_every_screen_follows(
    browsers: Browsers, dice: Script, shot: Shot
) -> None:
    """SIX-15: help is the GM's call. Bo helps Ada and his die (the last) is her only six; the
    GM opens the roll's page from the card's number and strikes the help: the roll stands on
    Ada's three dice, a failure that binds Bo to nothing, on both phones."""
    gm = browsers.gm()
    link = open_table(gm)
    ada = join_with_character(browsers.phone(), link, "Alice", "Ada", body=3).page
    bo = join_with_character(browsers.phone(), link, "Bob", "Bo", body=2).page

    ada.reload()
    wait_live(ada)
    ada.locator("#roll-form select[name=helper]").select_option(label="Bo helps")
    dice(1, 2, 3, 6)
    card = roll(ada)
    expect(card).to_contain_text("Success: 1 of 1 needed")
    number = roll_id(card)
    gm.locator(f"#feed-roll-{number} .roll-link").click()
    expect(gm.get_by_role("button", name="Strike Bo's help")).to_be_visible()
    shot(gm, "sixes-helper-gm-strike")
    gm.get_by_role("button", name="Strike Bo's help").click()
    expect(gm.locator("body")).to_contain_text("Bo's help is struck: the roll stands without it.")
    expect(gm.get_by_role("button", name="Strike Bo's help")).to_have_count(0)
    for phone in (ada, bo):
        struck = phone.locator(f"#feed-roll-{number}")
        expect(struck).to_contain_text("The GM struck Bo's help: the roll stands without it.")
        expect(struck).to_contain_text("Failure: 0 of 1 needed")
        expect(struck).not_to_contain_text("shares the failure")
    assert_fits_phone(bo)
    bo.locator(f"#feed-roll-{number}").scroll_into_view_if_needed()
    shot(bo, "sixes-helper-phone-struck", full_page=False)
