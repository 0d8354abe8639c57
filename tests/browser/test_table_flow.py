"""The whole evening in real browsers: the GM opens the table on a laptop, two players join
from their phones, roll and push, and every screen follows along live."""

from __future__ import annotations

import random
import re

import pytest
from playwright.sync_api import expect

import rolls.log.randomness
from rolls.systems.base import percent
from rolls.systems.sixes import chance_with_rerolls
from tests.browser.conftest import Browsers, Shot
from tests.browser.flows import (
    assert_fits_phone,
    create_campaign,
    create_character,
    join,
    join_link,
    roll,
    roll_id,
    sign_up,
    start_session,
    wait_live,
)

# random.Random(50) deals Ada's 3 dice 4 3 3 (a failure, so she may push), Bo's 2 dice 6 2 (a
# success), then Ada's push 6 4 3 (a success).
SEED = 50


def odds(dice: int, need: int) -> str:
    """What the roll form should print: the engine's exact chance, as the app formats it."""
    return percent(chance_with_rerolls(dice, need, 0))


@pytest.mark.browser
@pytest.mark.smoke  # also on PostgreSQL + Redis and with FAST_PATH=off
def test_two_phones_join_roll_and_push_live_on_the_gm_screen(
    browsers: Browsers, monkeypatch: pytest.MonkeyPatch, shot: Shot
) -> None:
    # The server runs in this process: the views roll with these dice.
    monkeypatch.setattr(rolls.log.randomness, "RNG", random.Random(SEED))

    # The GM signs up, creates a sixes campaign and lands on the session page.
    gm = browsers.gm()
    sign_up(gm)
    campaign_id = create_campaign(gm, "The Loop", gm_name="Marta")
    expect(gm.locator("#session-status")).to_contain_text("No session running")
    start_session(gm)
    expect(gm.locator(".qr svg")).to_be_visible()
    link = join_link(gm)
    expect(gm.locator("#join-url")).to_have_text(link)
    wait_live(gm)
    # Marks this document: if the GM's page reloaded, the mark would be gone.
    gm.evaluate("window.stillTheSamePage = true")

    # Two players join through the link and create their characters.
    ada = browsers.phone()
    ada.goto(link)
    assert_fits_phone(ada)
    shot(ada, "phone-join", full_page=False)
    join(ada, link, "Alice")
    assert_fits_phone(ada)
    shot(ada, "phone-new-character")
    create_character(ada, "Ada", body=3, sneak=2)
    wait_live(ada)

    bo = browsers.phone()
    join(bo, link, "Bruno")
    create_character(bo, "Bo", body=2, sneak=0)
    wait_live(bo)
    assert_fits_phone(bo)

    # The GM's screen shows who is at the table, and its list of members grew without a reload.
    presence = gm.locator("#presence")
    expect(presence).to_contain_text("Alice")
    expect(presence).to_contain_text("Bruno")
    expect(presence).to_contain_text("Marta")
    expect(gm.get_by_role("button", name="Remove Alice")).to_be_visible()
    expect(gm.get_by_role("button", name="Remove Bruno")).to_be_visible()

    # Ada sees the exact odds before rolling, and they follow her choices.
    chance = ada.locator("#odds .odds-chance b")
    expect(ada.locator("#odds")).to_contain_text("Body: 3 dice")
    expect(chance).to_have_text(odds(3, 1))
    expect(chance).to_have_text(re.compile(r"^\d+%$"))
    ada.get_by_role("radio", name="2", exact=True).check()
    expect(chance).to_have_text(odds(3, 2))
    assert odds(3, 2) != odds(3, 1)
    ada.get_by_role("radio", name=re.compile(r"^Sneak")).check()
    expect(ada.locator("#odds")).to_contain_text("Body + Sneak: 5 dice")
    expect(chance).to_have_text(odds(5, 2))
    ada.get_by_role("radio", name=re.compile(r"^Body")).check()
    ada.get_by_role("radio", name="1", exact=True).check()
    expect(ada.locator("#odds")).to_contain_text("Body: 3 dice")
    expect(chance).to_have_text(odds(3, 1))
    assert_fits_phone(ada)
    shot(ada, "phone-roll-form", full_page=False)

    # Bo's odds follow his choices too.
    bo_chance = bo.locator("#odds .odds-chance b")
    expect(bo.locator("#odds")).to_contain_text("Body: 2 dice")
    expect(bo_chance).to_have_text(odds(2, 1))
    bo.get_by_role("radio", name="2", exact=True).check()
    expect(bo_chance).to_have_text(odds(2, 2))
    bo.get_by_role("radio", name="1", exact=True).check()
    expect(bo_chance).to_have_text(odds(2, 1))

    # Ada rolls and fails; she is offered a push, with its odds.
    ada.get_by_label("What do you try?").fill("Climb the fence before the guard turns")
    ada_card = roll(ada)
    expect(ada_card).to_contain_text("Failure: 0 of 1 needed")
    ada_roll = roll_id(ada_card)
    push = ada_card.locator(".follow-up-push button")
    expect(push).to_contain_text(f"0% -> {odds(3, 1)}")
    assert_fits_phone(ada)
    # The page scrolls the result to the top of the screen.
    ada.wait_for_function(
        "() => Math.abs(document.getElementById('result').getBoundingClientRect().top) < 2", timeout=10_000
    )
    shot(ada, "phone-roll-result", full_page=False)

    # The GM's screen and Bo's phone show Ada's roll without a reload.
    on_gm = gm.locator(f"#feed-roll-{ada_roll}")
    expect(on_gm).to_contain_text("Ada")
    expect(on_gm).to_contain_text("Climb the fence")
    expect(on_gm).to_contain_text("Failure: 0 of 1 needed")
    expect(bo.locator(f"#feed-roll-{ada_roll}")).to_contain_text("Failure: 0 of 1 needed")
    # Follow-up buttons go to the roller only.
    expect(bo.locator(f"#feed-roll-{ada_roll} .follow-ups")).to_have_count(0)

    # Bo rolls and succeeds; everyone sees it.
    bo_card = roll(bo)
    expect(bo_card).to_contain_text("Success: 1 of 1 needed")
    bo_roll = roll_id(bo_card)
    expect(gm.locator(f"#feed-roll-{bo_roll}")).to_contain_text("Bo")
    expect(gm.locator(f"#feed-roll-{bo_roll}")).to_contain_text("Success: 1 of 1 needed")
    expect(ada.locator(f"#feed-roll-{bo_roll}")).to_contain_text("Success: 1 of 1 needed")

    # Ada pushes: she picks the Condition (none is picked for her, SIX-11) and says what she
    # does (SIX-23); the pushed dice succeed.
    condition = ada_card.get_by_label("Condition to check")
    expect(condition).to_have_value("")
    condition.select_option("Scared")
    ada_card.get_by_label("What does the kid do to push themself?").fill("I jump before I can think")
    push.click()
    result = ada.locator(f"#result #result-roll-{ada_roll}")
    expect(result).to_contain_text("Pushed, checking Scared")
    expect(result).to_contain_text("“I jump before I can think”")
    expect(result).to_contain_text("Success: 1 of 1 needed")
    # A roll is pushed once.
    expect(result.locator(".follow-up-push")).to_have_count(0)

    # The push replaces Ada's card on every screen: still one card per roll.
    expect(on_gm).to_contain_text("Pushed, checking Scared")
    expect(on_gm).to_contain_text("Success: 1 of 1 needed")
    expect(gm.locator("#feed .card")).to_have_count(2)
    expect(gm.locator("#feed .card").first).to_have_id(f"feed-roll-{bo_roll}")
    expect(bo.locator(f"#feed-roll-{ada_roll}")).to_contain_text("Pushed, checking Scared")
    expect(bo.locator(f"#feed-roll-{ada_roll}")).to_contain_text("“I jump before I can think”")
    expect(on_gm).to_contain_text("“I jump before I can think”")
    expect(bo.locator(f"#feed-roll-{ada_roll}")).to_have_count(1)

    assert gm.evaluate("window.stillTheSamePage") is True, "the GM's page reloaded"
    assert gm.url.endswith(f"/c/{campaign_id}/session/")
    assert_fits_phone(ada)
    assert_fits_phone(bo)

    shot(gm, "gm-session")
    shot(gm, "gm-session-screen", full_page=False)
    shot(ada, "phone-roll-pushed")
    shot(bo, "phone-roll-other")

    # The GM removes Bruno with the button that arrived over the socket (it carries no CSRF
    # field of its own: htmx sends the page's token). He leaves the members, stays listed as
    # removed until the GM lets him back in, and Ada's screen shows that he left.
    gm.get_by_role("button", name="Remove Bruno").click()
    expect(gm.get_by_role("button", name="Remove Bruno")).to_have_count(0)
    expect(gm.get_by_role("button", name="Let Bruno back in")).to_be_visible()
    expect(gm.locator("#members")).to_contain_text("Bruno (removed)")
    expect(gm.locator("#members")).to_contain_text("Alice")
    expect(gm.locator(".flash")).to_contain_text("Bruno was removed.")
    expect(ada.locator("#feed")).to_contain_text("Bruno was removed from the table.")
