"""A screen reader's evening, continued (issue 45): axe-core on a `sets` and a `doubles` contest,
on the console, the phones and the TV (tests/browser/test_a11y.py has the audit itself)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import Browsers, Shot
from tests.browser.flows import (
    contest,
    contest_table,
    contest_tools,
    settle,
)
from tests.browser.test_a11y import (
    Audit,
    expect_said,
)
from tests.browser.test_doubles_table import create_doubles_campaign
from tests.browser.test_doubles_table import create_hero as create_doubles_hero
from tests.browser.test_sets_table import create_hero as create_sets_hero
from tests.browser.test_sets_table import create_sets_campaign
from tests.factories import Script


@pytest.fixture
def audit() -> Audit:
    return Audit()


@pytest.mark.browser
def test_a_sets_contest_on_the_console_and_the_phones(
    browsers: Browsers, dice: Script, audit: Audit, shot: Shot
) -> None:
    gm, tv, (ada, bo) = contest_table(
        browsers, create_sets_campaign, "Ember Road", create_sets_hero, (("Alice", "Ada"), ("Bob", "Bo"))
    )
    tools = contest_tools(gm)
    tools.get_by_label("First side").select_option(label="Ada")
    tools.get_by_label("Second side").select_option(label="Bo")
    tools.get_by_label("Who attacks (wins a tie, deals critical hits)").select_option("second")
    tools.get_by_label("Ada's stat").select_option("Finesse")
    tools.get_by_label("Bo's stat").select_option("Finesse")
    audit.check(gm, "sets console, the contest form")
    tools.get_by_label("What is at stake?").fill("The last lantern")
    tools.get_by_role("button", name="Open the contest").click()
    expect(contest(gm)).to_contain_text("Ada against Bo")
    audit.check(gm, "sets console, contest open")

    # No six among them: no critical hit waits before the settling.
    dice(5, 5, 2)
    contest(ada).get_by_role("button", name="Roll Finesse").click()
    expect(contest(ada)).to_contain_text("Now choose your bid, in secret")
    dice(3, 3, 3)
    contest(bo).get_by_role("button", name="Roll Finesse").click()
    expect(contest(bo)).to_contain_text("Now choose your bid, in secret")
    audit.check(ada, "sets phone, bidding")
    audit.check(gm, "sets console, bidding")
    contest(ada).get_by_role("button", name="Bid 2x5").click()
    contest(bo).get_by_role("button", name="Bid 3x3").click()
    expect(contest(gm)).to_contain_text("Revealed:")
    audit.check(gm, "sets console, revealed")
    audit.check(bo, "sets phone, revealed")
    audit.check(tv, "sets TV, revealed")
    shot(gm, "a11y-sets-console-revealed", full_page=False)
    # Bo won and spends critical hits first (SET-8): he has none to spend. His panel shows the
    # reveal (his bid's answer) before the button is looked for.
    expect(contest(bo)).to_contain_text("Revealed:")
    done = contest(bo).get_by_role("button", name="No more critical hits")
    if done.count():
        done.click()
        expect(done).to_have_count(0)

    settle(gm)
    for page in (gm, ada, bo, tv):
        expect_said(page, r"^Contest settled: .+\.$")
    audit.assert_clean()


@pytest.mark.browser
def test_a_doubles_contest_on_the_console(browsers: Browsers, dice: Script, audit: Audit, shot: Shot) -> None:
    gm, tv, (mara, bram) = contest_table(
        browsers,
        create_doubles_campaign,
        "Night Shift",
        create_doubles_hero,
        (("Alice", "Mara"), ("Bob", "Bram")),
    )
    audit.check(gm, "doubles console")
    tools = contest_tools(gm)
    tools.get_by_label("First side (a tie goes to it)").select_option(label="Mara")
    tools.get_by_label("Second side").select_option(label="Bram")
    tools.get_by_label("What is at stake?").fill("Arm wrestling")
    audit.check(gm, "doubles console, the contest form")
    tools.get_by_role("button", name="Open the contest").click()
    expect(contest(gm)).to_contain_text("Mara against Bram")
    audit.check(gm, "doubles console, contest open")
    audit.check(mara, "doubles phone, contest open")
    dice(3, then=3)
    contest(mara).get_by_role("button", name=re.compile(r"^Roll")).click()
    expect(contest(mara)).to_contain_text("rolled, sealed")
    dice(4, then=1)
    contest(bram).get_by_role("button", name=re.compile(r"^Roll")).click()
    expect(contest(gm).get_by_role("button", name="Settle it")).to_be_visible()
    audit.check(gm, "doubles console, revealed")
    audit.check(tv, "doubles TV, revealed")
    shot(gm, "a11y-doubles-console-revealed", full_page=False)
    audit.assert_clean()
