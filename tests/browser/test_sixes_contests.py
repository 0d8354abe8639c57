"""Kid versus kid (SIX-18, SIX-19) at a real table: the GM ticks Ada and Bo on the console,
each phone rolls its own side with the exact odds of winning in view, the TV and the other
phone see only who has rolled until both have, then both show one success each: a tie. Ada
breaks it from her phone by checking a Condition, every screen follows, and the GM settles:
Ada wins and says what happens."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from rolls import registry
from rolls.systems.base import percent
from tests.browser.conftest import Browsers, Shot
from tests.browser.flows import (
    assert_fits_phone,
    contest,
    contest_tools,
    join_with_character,
    open_display,
    open_table,
    roll,
    settle,
    wait_live,
)
from tests.factories import Script


def win_chance(mine: int, theirs: int) -> str:
    sixes = registry.engine("sixes")
    odds = sixes.contest(sixes.parse_request({"dice": mine}), sixes.parse_request({"dice": theirs}))
    return percent(odds["win"])


@pytest.mark.browser
def test_six_19_a_tie_between_two_kids_is_broken_by_checking_a_condition(
    browsers: Browsers, dice: Script, shot: Shot
) -> None:
    gm = browsers.gm()
    link = open_table(gm)
    tv = open_display(browsers, gm)
    ada = join_with_character(browsers.phone(), link, "Alice", "Ada", body=3).page
    bo = join_with_character(browsers.phone(), link, "Bob", "Bo", body=2).page

    tools = contest_tools(gm)
    tools.get_by_role("checkbox", name="Ada", exact=True).check()
    tools.get_by_role("checkbox", name="Bo", exact=True).check()
    tools.get_by_label("Ada's roll").select_option("Body")
    tools.get_by_label("Bo's roll").select_option("Body")
    tools.get_by_label("What is at stake?").fill("Who gets the last bike")
    shot(gm, "sixes-versus-console-form")
    tools.get_by_role("button", name="Open the contest").click()
    expect(contest(gm)).to_contain_text("Ada against Bo")

    # Each phone: its own roll and the exact chance to win, live.
    expect(contest(ada)).to_contain_text(f"Ada's chance to win: {win_chance(3, 2)}")
    expect(contest(bo)).to_contain_text(f"Bo's chance to win: {win_chance(2, 3)}")
    assert_fits_phone(ada)
    expect(contest(tv)).to_contain_text("Ada against Bo")
    shot(ada, "sixes-versus-phone-to-roll", full_page=False)

    dice(6, 1, 1)
    contest(ada).get_by_role("button", name="Roll Body").click()
    expect(contest(ada)).to_contain_text("rolled, sealed")
    expect(contest(tv)).to_contain_text("rolled, sealed")
    expect(tv.locator("#feed [data-face]")).to_have_count(0)
    expect(bo.locator("#feed [data-face]")).to_have_count(0)

    dice(6, 3)
    contest(bo).get_by_role("button", name="Roll Body").click()
    for page in (tv, ada, bo, gm):
        expect(contest(page)).to_contain_text("Tied at 1 success: Ada and Bo")
    expect(tv.locator("#feed [data-face]").first).to_be_visible()
    shot(tv, "sixes-versus-tv-tied")

    # Ada buys a success with Scared (Bo's phone has no button for her side).
    expect(contest(bo).get_by_role("button", name="Buy a success: check a Condition")).to_have_count(1)
    contest(ada).get_by_label("Condition to check").select_option("Scared")
    shot(ada, "sixes-versus-phone-tied", full_page=False)
    contest(ada).get_by_role("button", name="Buy a success: check a Condition").click()
    for page in (tv, ada, bo, gm):
        expect(contest(page)).to_contain_text("Ada leads with 2 successes")
    expect(contest(tv)).to_contain_text("2 successes (1 bought with Scared)")
    expect(contest(bo).get_by_role("button", name="Buy a success: check a Condition")).to_have_count(1)
    shot(tv, "sixes-versus-tv-broken")

    settle(gm)
    expect(tv.locator("#contests-panel")).to_be_hidden()
    expect(bo.locator("#feed")).to_contain_text("Ada wins, 2 to 1 successes, and says what happens.")
    shot(bo, "sixes-versus-phone-settled", full_page=False)


@pytest.mark.browser
def test_six_6_six_18_a_kid_losing_one_to_two_spends_luck_from_the_phone(
    browsers: Browsers, dice: Script, shot: Shot
) -> None:
    """SIX-6 with SIX-18: Ada's one six would meet a need of one, but she is losing 1-2 to Bo:
    her phone lists Luck with its chance to win (both rerolled dice sixes: 3%) and takes it;
    Bo, ahead, is offered no Luck, and his Pride line wins outright."""
    gm = browsers.gm()
    link = open_table(gm)
    ada = join_with_character(browsers.phone(), link, "Alice", "Ada", body=3).page
    bo = join_with_character(browsers.phone(), link, "Bob", "Bo", body=3).page
    tools = contest_tools(gm)
    for name in ("Ada", "Bo"):
        tools.get_by_role("checkbox", name=name, exact=True).check()
        tools.get_by_label(f"{name}'s roll").select_option("Body")
    tools.get_by_label("What is at stake?").fill("The last bike")
    tools.get_by_role("button", name="Open the contest").click()
    expect(contest(ada)).to_contain_text("Ada's chance to win")
    dice(6, 1, 1)
    contest(ada).get_by_role("button", name="Roll Body").click()
    expect(contest(ada)).to_contain_text("rolled, sealed")
    dice(6, 6, 1)
    contest(bo).get_by_role("button", name="Roll Body").click()
    expect(contest(ada)).to_contain_text("Bo leads with 2 successes")
    expect(contest(ada)).to_contain_text("Spend a Luck point: 3% to win")
    expect(contest(bo)).not_to_contain_text("Spend a Luck point")
    assert_fits_phone(ada)
    shot(ada, "sixes-versus-phone-losing-luck", full_page=False)

    ada.reload()
    luck = ada.locator("#result .card .follow-up-luck button")
    expect(luck).to_be_visible()
    expect(ada.locator("#result .card .odds-tag")).to_have_count(0)  # no chance of the need
    dice(6, 6)
    luck.click()
    for page in (ada, bo, gm):
        expect(contest(page)).to_contain_text("Ada leads with 3 successes")
    shot(ada, "sixes-versus-phone-after-luck")


@pytest.mark.browser
def test_six_17_six_23_group_odds_before_rolling_and_the_gms_word_on_a_push_that_worked(
    browsers: Browsers, dice: Script, shot: Shot
) -> None:
    """SIX-17: in group Trouble each phone shows its own exact chance of the need before
    rolling. SIX-23: a push that works prompts the GM, on every screen, to describe it."""
    gm = browsers.gm()
    link = open_table(gm)
    tv = open_display(browsers, gm)
    ada = join_with_character(browsers.phone(), link, "Alice", "Ada", body=3).page
    bo = join_with_character(browsers.phone(), link, "Bob", "Bo", body=2).page
    tools = contest_tools(gm)
    tools.get_by_label("What kind").select_option("group")
    for name in ("Ada", "Bo"):
        tools.get_by_role("checkbox", name=name, exact=True).check()
        tools.get_by_label(f"{name}'s roll").select_option("Body")
    tools.get_by_label("What is at stake?").fill("Home through the blizzard")
    tools.get_by_role("button", name="Open the contest").click()
    sixes = registry.engine("sixes")
    for page, dice_count in ((ada, 3), (bo, 2)):
        chance = percent(sixes.chance(sixes.parse_request({"dice": dice_count})))
        expect(contest(page)).to_contain_text(f"chance to get 1 six: {chance}")
    assert_fits_phone(ada)
    shot(ada, "sixes-group-phone-odds", full_page=False)

    # Away from the contest, Ada pushes a failed roll and it works.
    ada.reload()
    wait_live(ada)
    dice(1, 2, 3)
    card = roll(ada)
    expect(card).to_contain_text("Failure")
    card.get_by_label("Condition to check").select_option("Scared")
    card.get_by_label("What does the kid do to push themself?").fill("Ada pedals into the wind")
    dice(6, 1, 1)
    card.get_by_role("button", name="Push the roll").click()
    prompt = "The push worked: GM, describe what it did"
    expect(ada.locator("#result .card")).to_contain_text(prompt)
    for page in (tv, gm, bo):
        expect(page.locator("#feed").first).to_contain_text(prompt)
    expect(tv.locator("#feed")).to_contain_text("Ada pedals into the wind")
    shot(ada, "sixes-push-worked-phone", full_page=False)
    shot(tv, "sixes-push-worked-tv")
