"""A short `doubles` scene in real browsers: the GM opens the table on a laptop, two players
join from their phones, tick an Ability, pick the Difficulty Number and step the penalty dice
while the odds follow (a negative pool shown as such), roll, and every screen follows live.
One player buys drama dice after a failed roll; the other asks for a miracle, which the GM
approves from the session page."""

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

DOUBLES = registry.engine("doubles")


def chance(**request: object) -> str:
    """What the roll form should print: the engine's exact chance, as the app formats it."""
    return percent(DOUBLES.chance(DOUBLES.parse_request(request)))


def chance_after_drama_dice(dice: list[int], count: int, **request: object) -> str:
    made = DOUBLES.parse_request(request)
    state = {
        "system": "doubles",
        "request": DOUBLES.request_dict(made),
        "steps": [{"action": "roll", "net": made.net, "dice": dice}],
    }
    return percent(DOUBLES.drama_chances(state, count)[count])


def create_doubles_campaign(page: Page, name: str) -> None:
    page.get_by_label("Campaign name").fill(name)
    page.get_by_role("radio", name=re.compile(r"^Doubles")).check()
    page.get_by_label("Your name as GM").fill("Marta")
    page.get_by_role("button", name="Create and open the session page").click()
    expect(page).to_have_url(re.compile(r"/c/\d+/session/$"))
    expect(page.get_by_role("button", name="New Adventure")).to_be_visible()
    expect(page.get_by_role("button", name="Long rest")).to_be_visible()


def create_hero(page: Page, name: str, **levels: int) -> None:
    """The doubles sheet form: the defaults, but for the levels given (``ability_1_level=2``)."""
    page.locator("#id_name").fill(name)
    for field, value in levels.items():
        page.locator(f"#id_{field}").fill(str(value))
    page.get_by_role("button", name="Create character").click()
    expect(page).to_have_url(re.compile(r"/c/\d+/characters/\d+/$"))
    expect(page.get_by_role("heading", level=1)).to_have_text(name)
    wait_live(page)


@pytest.mark.browser
def test_a_doubles_scene_with_drama_dice_and_a_miracle_on_two_phones_and_the_gm_screen(
    browsers: Browsers, dice: Script, shot: Shot
) -> None:
    # Ada's four dice 2 3 1 4 (4: fails Challenging 6); Bo's 5 5 (10); Ada's drama dice 4 6
    # (4 + 4 = 8); Bo's 2 3 against Nigh Impossible. The approved miracle rolls nothing.
    dice(2, 3, 1, 4, 5, 5, 4, 6, 2, 3)

    gm = browsers.gm()
    sign_up(gm)
    create_doubles_campaign(gm, "Hard Road")
    start_session(gm)
    wait_live(gm)
    link = join_link(gm)

    ada = browsers.phone()
    join(ada, link, "Alice")
    assert_fits_phone(ada)
    shot(ada, "doubles-phone-new-character")
    create_hero(ada, "Ada", ability_1_level=2)  # Fighting 2
    bo = browsers.phone()
    join(bo, link, "Bruno")
    create_hero(bo, "Bo")
    expect(ada.locator(".resources").first).to_have_text("Endurance 30/30")

    # The odds follow the Abilities ticked, the Difficulty Number and the steppers.
    odds = ada.locator("#odds")
    chance_now = odds.locator(".odds-chance b")
    expect(odds).to_contain_text("Two dice: 2 dice")
    expect(chance_now).to_have_text(chance(dn=4))
    ada.get_by_role("checkbox", name=re.compile(r"^Fighting")).check()
    expect(odds).to_contain_text("Fighting: 4 dice")
    expect(chance_now).to_have_text(chance(abilities=[2], dn=4))
    ada.get_by_label("Difficulty Number").select_option(label="Challenging 6")
    expect(odds).to_contain_text("to beat Challenging (6)")
    expect(chance_now).to_have_text(chance(abilities=[2], dn=6))
    expect(odds).to_contain_text(
        f"With drama dice: 1 {percent(DOUBLES.chance_with_drama(DOUBLES.parse_request({'abilities': [2], 'dn': 6}), 1))}"
    )
    more_penalty = ada.get_by_role("button", name="Penalty dice: one more")
    for _ in range(5):
        more_penalty.click()
    expect(ada.locator("#id_penalty")).to_have_value("5")
    expect(odds).to_contain_text("Fighting: \N{MINUS SIGN}1 die: roll 3, keep the lowest")
    expect(chance_now).to_have_text(chance(abilities=[2], penalty=5, dn=6))
    assert_fits_phone(ada)
    shot(ada, "doubles-phone-roll-form")
    ada.locator("#id_penalty").fill("0")
    ada.locator("#id_penalty").dispatch_event("change")
    expect(odds).to_contain_text("Fighting: 4 dice")

    # Ada rolls and fails; she alone is offered drama dice, with their odds.
    ada.get_by_label("What do you try?").fill("Knock the bouncer down")
    card = roll(ada)
    expect(card).to_contain_text("Result 4 does not beat Challenging (6)")
    ada_roll = roll_id(card)
    drama = card.locator(".follow-up-drama")
    # DBL-10: each count in the picker carries its own exact chance; the button none.
    count = drama.get_by_label("Drama dice")
    for dice in (1, 2):
        chance_with = chance_after_drama_dice([2, 3, 1, 4], dice, abilities=[2], dn=6)
        expect(count.locator(f"option[value='{dice}']")).to_have_text(
            f"{dice} {'die' if dice == 1 else 'dice'}: 0% -> {chance_with}"
        )
    expect(drama.locator("button")).not_to_contain_text("%")
    assert_fits_phone(ada)
    on_gm = gm.locator(f"#feed-roll-{ada_roll}")
    expect(on_gm).to_contain_text("Fighting")
    expect(on_gm).to_contain_text("Knock the bouncer down")
    expect(on_gm).to_contain_text("Result 4 does not beat Challenging (6)")
    expect(bo.locator(f"#feed-roll-{ada_roll}")).to_contain_text("Result 4 does not beat")
    expect(bo.locator(f"#feed-roll-{ada_roll} .follow-ups")).to_have_count(0)

    # Bo rolls two dice and a pair adds up; everyone sees it.
    bo_card = roll(bo)
    expect(bo_card).to_contain_text("Result 10 beats Moderate (4)")
    bo_roll = roll_id(bo_card)
    expect(gm.locator(f"#feed-roll-{bo_roll}")).to_contain_text("Result 10 beats Moderate (4)")
    expect(ada.locator(f"#feed-roll-{bo_roll}")).to_contain_text("Bo")

    # Ada buys two drama dice after the roll: a new pair of 4s beats the Difficulty Number.
    count.select_option("2")
    drama.get_by_role("button", name=re.compile(r"^Buy drama dice")).click()
    result = ada.locator(f"#result #result-roll-{ada_roll}")
    expect(result).to_contain_text("Drama: 2 more dice for 10 Endurance")
    expect(result).to_contain_text("Result 8 beats Challenging (6)")
    expect(on_gm).to_contain_text("Drama: 2 more dice for 10 Endurance")
    expect(on_gm).to_contain_text("Result 8 beats Challenging (6)")
    expect(bo.locator(f"#feed-roll-{ada_roll}")).to_contain_text("Result 8 beats Challenging (6)")
    expect(gm.locator(f"#feed-roll-{ada_roll}")).to_have_count(1)
    ada.reload()
    expect(ada.locator(".resources").first).to_contain_text("Endurance 20/30")
    expect(ada.locator(".resources").first).to_contain_text("Spent on drama 10")
    wait_live(ada)

    # Bo fails against Nigh Impossible and asks for a miracle; the GM approves it on the big
    # screen, and Bo's phone shows the success.
    bo.get_by_label("Difficulty Number").select_option(label="Nigh Impossible 12")
    expect(bo.locator("#odds")).to_contain_text("to beat Nigh Impossible (12)")
    bo_card = roll(bo)
    expect(bo_card).to_contain_text("Result 3 does not beat Nigh Impossible (12)")
    miracle_roll = roll_id(bo_card)
    bo_card.get_by_role("button", name=re.compile(r"^Ask for a miracle")).click()
    bo_result = bo.locator(f"#result #result-roll-{miracle_roll}")
    expect(bo_result).to_contain_text("A miracle is asked for: the GM approves or refuses it.")
    expect(bo_result.locator(".follow-up-miracle_approve")).to_have_count(0)
    waiting = gm.locator("#gm-panel .card").filter(has_text="A miracle is asked for")
    expect(waiting).to_have_count(1)
    shot(gm, "doubles-gm-miracle-waiting", full_page=False)
    waiting.get_by_role("button", name=re.compile(r"^Approve the miracle")).click()
    expect(gm.locator(f"#feed-roll-{miracle_roll}")).to_contain_text("Miracle approved: 30 Endurance")
    expect(gm.locator(f"#feed-roll-{miracle_roll}")).to_contain_text("Result 13 beats Nigh Impossible (12)")
    expect(bo.locator(f"#feed-roll-{miracle_roll}")).to_contain_text("Result 13 beats Nigh Impossible (12)")
    expect(ada.locator(f"#feed-roll-{miracle_roll}")).to_contain_text("Miracle approved")
    bo.reload()
    expect(bo.locator(".resources").first).to_contain_text("Endurance 0/30")
    wait_live(bo)

    assert_fits_phone(ada)
    assert_fits_phone(bo)
    shot(gm, "doubles-gm-session")
    shot(ada, "doubles-phone-result")
