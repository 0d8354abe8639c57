"""The GM's call and contest forms of every system on the console (1280 x 800), and a player's
challenge form on a phone (360 x 740), as issue 43 draws them: doubles' Abilities and Weaknesses
as tick boxes, none ticked to start, every other system's choices as before; nothing wider
than the screen."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import Browsers, Shot
from tests.browser.flows import assert_fits_phone, contest_table, horizontal_overflow, wait_live
from tests.browser.test_doubles_table import create_doubles_campaign, create_hero
from tests.browser.test_kinds_table import create_kinds_campaign
from tests.browser.test_sets_table import create_sets_campaign
from tests.browser.test_stars_table import create_stars_campaign


def _sixes_campaign(page: Page, name: str) -> None:
    from tests.browser.flows import create_campaign

    create_campaign(page, name)


def _sheet(page: Page, name: str) -> None:
    """Any system's sheet form as it starts, with a name."""
    page.locator("#id_name").fill(name)
    page.get_by_role("button", name="Create character").click()
    expect(page).to_have_url(re.compile(r"/c/\d+/characters/\d+/$"))
    wait_live(page)


CAMPAIGNS: dict[str, Callable[[Page, str], None]] = {
    "sixes": _sixes_campaign,
    "kinds": create_kinds_campaign,
    "doubles": create_doubles_campaign,
    "sets": create_sets_campaign,
    "stars": create_stars_campaign,
}


@pytest.mark.browser
@pytest.mark.parametrize("system", list(CAMPAIGNS))
def test_each_system_draws_its_call_and_contest_forms_on_the_console(
    browsers: Browsers, shot: Shot, system: str
) -> None:
    character = create_hero if system == "doubles" else _sheet
    gm, _, (ann,) = contest_table(browsers, CAMPAIGNS[system], "Forms", character, (("Alice", "Ann"),))
    gm.reload()
    wait_live(gm)
    gm.locator("#call-tools > summary").click()  # the console's tools are folded (a workspace)
    call = gm.locator("#call-form")
    expect(call).to_be_visible()
    if system == "doubles":
        abilities = call.get_by_role("group", name="Ann's abilities that apply")
        expect(abilities.get_by_role("checkbox")).to_have_count(5)
        expect(abilities.get_by_role("checkbox", checked=True)).to_have_count(0)
        abilities.get_by_label("Notice").check()
    found = horizontal_overflow(gm)
    assert not found["sticking"], found
    tools = gm.locator("#contest-tools")
    if tools.count():
        tools.locator("summary").click()
    shot(gm, f"compact-{system}-console")
    assert_fits_phone(ann)
    shot(ann, f"compact-{system}-phone", full_page=False)
