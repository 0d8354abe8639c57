"""Issue 42: after a follow-up on a contest's roll, the contest's next actions ("Buy a success")
are on the phone's screen, not above it (SIX-19)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import Browsers, Shot
from tests.browser.flows import contest, contest_tools, join_with_character, open_table
from tests.factories import Script

HEIGHT = 740


@pytest.mark.browser
def test_six_19_after_a_push_the_contests_next_actions_are_in_view_on_the_phone(
    browsers: Browsers, dice: Script, shot: Shot
) -> None:
    gm = browsers.gm()
    link = open_table(gm)
    ada = join_with_character(browsers.phone(), link, "Alice", "Ada", body=3).page
    bo = join_with_character(browsers.phone(), link, "Bob", "Bo", body=2).page

    tools = contest_tools(gm)
    tools.get_by_role("checkbox", name="Ada", exact=True).check()
    tools.get_by_role("checkbox", name="Bo", exact=True).check()
    tools.get_by_label("Ada's roll").select_option("Body")
    tools.get_by_label("Bo's roll").select_option("Body")
    tools.get_by_role("button", name="Open the contest").click()
    expect(contest(ada)).to_contain_text("Ada against Bo")

    dice(6, 1, 1)
    contest(ada).get_by_role("button", name="Roll Body").click()
    expect(contest(ada)).to_contain_text("rolled, sealed")
    dice(6, 3)
    contest(bo).get_by_role("button", name="Roll Body").click()
    expect(contest(ada)).to_contain_text("Tied at 1 success: Ada and Bo")

    # Ada pushes her roll from its card on her roll screen: still one six, still tied.
    card = ada.locator("#result .card")
    push = card.locator(".follow-up-push")
    expect(push.locator("button")).to_be_visible()
    push.get_by_label("Condition to check").select_option("Scared")
    push.get_by_label("What does the kid do to push themself?").fill("Ada pedals harder")
    dice(2, 3)
    push.locator("button").click()
    expect(card).to_contain_text("Pushed")
    buy = contest(ada).get_by_role("button", name="Buy a success: check a Condition")
    expect(buy).to_be_visible()
    ada.wait_for_timeout(800)  # any smooth scroll
    shot(ada, "phone-contest-after-push", full_page=False)
    box = buy.bounding_box()
    bar = ada.locator("#roll-form .roll-bar").bounding_box()
    assert box is not None and bar is not None
    assert 0 <= box["y"] and box["y"] + box["height"] <= bar["y"], (box, bar)
