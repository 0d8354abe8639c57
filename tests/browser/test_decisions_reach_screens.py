"""Every decision of the table reaches the TV and the phones without a reload (issue 42), and
every form the socket draws posts: a console at 1280x800, the TV at 1920x1080, two phones at
360x740 (sixes).

Kid versus kid (SIX-18): the GM settles, and the TV reads who won as a line while both cards
say the verdict and Ada's phone loses its push. A call for a roll, closed from the console's
socket-drawn "Close this call", leaves the TV's list. A new Mystery is a line on the TV and the
phones. Real dice switched on bring the keypad to an open roll screen. A voided roll loses its
buttons on its roller's phone at once."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import Browsers, Shot
from tests.browser.flows import (
    close_call,
    contest,
    contest_tools,
    join_with_character,
    open_display,
    open_table,
    roll,
    roll_id,
    settle,
    wait_live,
)
from tests.factories import Script


def feed_line(page: Page, text: str) -> None:
    expect(page.locator("#feed > .event", has_text=text).first).to_be_visible()


@pytest.mark.browser
def test_decisions_reach_the_tv_and_the_phones_without_a_reload(
    browsers: Browsers, dice: Script, shot: Shot
) -> None:
    gm = browsers.gm()
    link = open_table(gm)
    session_url = gm.url
    tv = open_display(browsers, gm)
    ada = join_with_character(browsers.phone(), link, "Alice", "Ada", body=3).page
    bo = join_with_character(browsers.phone(), link, "Bob", "Bo", body=2).page

    # SIX-18: Ada against Bo, each rolls on their own phone.
    tools = contest_tools(gm)
    tools.get_by_role("checkbox", name="Ada", exact=True).check()
    tools.get_by_role("checkbox", name="Bo", exact=True).check()
    tools.get_by_label("Ada's roll").select_option("Body")
    tools.get_by_label("Bo's roll").select_option("Body")
    tools.get_by_label("What is at stake?").fill("Who gets the last bike")
    tools.get_by_role("button", name="Open the contest").click()
    expect(contest(ada)).to_contain_text("Ada against Bo")
    feed_line(tv, "The GM opened a contest: Ada against Bo")
    dice(6, 1, 1)
    contest(ada).get_by_role("button", name="Roll Body").click()
    expect(contest(ada)).to_contain_text("rolled, sealed")
    dice(3, 2)
    contest(bo).get_by_role("button", name="Roll Body").click()
    expect(contest(gm)).to_contain_text("Ada leads")
    # Revealed: Ada may push her own roll from her phone.
    push = ada.locator("#result .follow-up-push")
    expect(push).to_have_count(1)

    # The GM settles (the panel's form, drawn by the socket): every screen reads the verdict.
    settle(gm)
    verdict = "Ada wins, 1 to 0 successes, and says what happens."
    for page in (tv, ada, bo):
        feed_line(page, verdict)
    expect(tv.locator("#feed > .card .contest-verdict", has_text=verdict)).to_have_count(2)
    expect(push).to_have_count(0)
    expect(ada.locator("#result .contest-verdict")).to_contain_text(verdict)
    shot(tv, "decisions-tv-verdict")
    shot(ada, "decisions-phone-verdict", full_page=False)

    # A call for a roll; the console's status comes over the socket, and its form closes it.
    gm.goto(session_url)
    wait_live(gm)
    gm.locator("#call-tools > summary").click()  # the console's tools open folded
    form = gm.locator("#call-form")
    form.get_by_role("checkbox", name="Bo").check()
    form.get_by_label("What do they try?").fill("Climb the fence")
    form.get_by_role("button", name="Ask for the roll").click()
    expect(gm.locator("#call-status .call-line")).to_have_count(1)
    expect(tv.locator("#display-calls")).to_contain_text("Climb the fence")
    feed_line(tv, "The GM asks Bo")
    assert "csrfmiddlewaretoken" not in gm.locator("#call-status").inner_html()
    close_call(gm)
    expect(gm.locator("#call-status")).to_contain_text("No call for a roll is open.")
    expect(tv.locator("#display-calls")).not_to_contain_text("Climb the fence")
    feed_line(tv, "is over.")
    expect(bo.locator("#calls-panel .call")).to_have_count(0)

    # A new Mystery: a line on the TV and the phones.
    gm.once("dialog", lambda dialog: dialog.accept())
    gm.get_by_role("button", name="New Mystery").click()
    for page in (tv, ada, bo):
        feed_line(page, "Mystery 2 begins.")

    # A roll of Bo's, voided by the GM: its push goes from Bo's phone at once.
    dice(3, 2)
    card = roll(bo)
    bo_push = bo.locator("#result .follow-up-push")
    expect(bo_push).to_have_count(1)
    gm.goto(f"{session_url.rsplit('/session/', 1)[0]}/rolls/{roll_id(card)}/")
    gm.get_by_role("button", name="Void this roll").click()
    expect(bo.locator("#result .card.voided")).to_have_count(1)
    expect(bo_push).to_have_count(0)

    # Real dice switched on: Ada's open roll screen shows the keypad, no reload.
    expect(ada.locator("#roll-dice [data-keypad]")).to_have_count(0)
    gm.goto(session_url)
    gm.locator("#dice-mode-form input[value=physical]").check()
    gm.locator("#dice-mode-form").get_by_role("button", name="Set the dice").click()
    feed_line(tv, "real dice, entered by hand")
    expect(ada.locator("#roll-dice [data-keypad]")).to_have_count(1)
    expect(ada.locator("#hand-needed")).to_have_attribute("data-needed", re.compile(r"^\d+$"))
    shot(ada, "decisions-phone-real-dice", full_page=False)
    shot(gm, "decisions-console")
