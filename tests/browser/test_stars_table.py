"""A short `stars` scene in real browsers: the GM opens the table on a laptop, two players join
from their phones, pick a Stat and a trained Skill while the odds follow, one botches and
spends Luck on a reroll, the other rolls a d3 with one tap, and every screen follows live; a
long rest gives the Luck point back."""

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


def chance(**request: object) -> str:
    """What the roll form should print: the engine's exact chance, as the app formats it."""
    stars = registry.engine("stars")
    return percent(stars.chance(stars.parse_request(request)))


def create_stars_campaign(page: Page, name: str) -> None:
    page.get_by_label("Campaign name").fill(name)
    page.get_by_role("radio", name=re.compile(r"^Stars")).check()
    page.get_by_label("Your name as GM").fill("Marta")
    page.get_by_role("button", name="Create and open the session page").click()
    expect(page).to_have_url(re.compile(r"/c/\d+/session/$"))
    expect(page.get_by_role("button", name="New Adventure")).to_be_visible()
    expect(page.get_by_role("button", name="Long rest")).to_be_visible()


def create_hero(
    page: Page, name: str, stats: dict[str, int], skills: dict[str, str], edges: dict[str, str]
) -> None:
    """The stars sheet form: the defaults, but for the Stats, trainings and Edges given."""
    page.locator("#id_name").fill(name)
    for stat, value in stats.items():
        page.get_by_label(stat, exact=True).fill(str(value))
    for skill, training in skills.items():
        page.get_by_label(skill, exact=True).select_option(training)
    for edge, rating in edges.items():
        page.get_by_label(edge, exact=True).select_option(rating)
    page.get_by_role("button", name="Create character").click()
    expect(page).to_have_url(re.compile(r"/c/\d+/characters/\d+/$"))
    expect(page.get_by_role("heading", level=1)).to_have_text(name)
    wait_live(page)


@pytest.mark.browser
def test_a_stars_scene_with_luck_and_a_d3_on_two_phones_and_the_gm_screen(
    browsers: Browsers, dice: Script, shot: Shot
) -> None:
    # Dave's three dice botch (two ones); Ann's d3 shows a 5 (3); Dave's Luck reroll 6 3 1.
    dice(2, 1, 1, 5, 6, 3, 1)

    gm = browsers.gm()
    sign_up(gm)
    create_stars_campaign(gm, "Stick it to the Man")
    start_session(gm)
    wait_live(gm)
    link = join_link(gm)

    dave = browsers.phone()
    join(dave, link, "Alice")
    assert_fits_phone(dave)
    shot(dave, "stars-phone-new-character")
    create_hero(dave, "Dave", {"Agility": 3}, {"Stealth": "adept"}, {})
    ann = browsers.phone()
    join(ann, link, "Bruno")
    create_hero(ann, "Ann", {"Smarts": 4}, {"Bookworm": "novice"}, {"Charmed Life": "basic"})
    expect(dave.locator(".resources-line .resources").first).to_have_text("Luck 3 of 3")
    expect(ann.locator(".resources-line .resources").first).to_have_text("Luck 4 of 4")

    # The odds follow the Stat, the Skill (its training sets the difficulty) and advantage.
    odds = dave.locator("#odds")
    chance_now = odds.locator(".odds-chance b")
    expect(odds).to_contain_text("Vigor: 2 dice at difficulty 5")
    expect(chance_now).to_have_text(chance(dice=2))
    dave.get_by_role("radio", name=re.compile(r"^Agility")).check()
    expect(odds).to_contain_text("Agility: 3 dice at difficulty 5")
    expect(chance_now).to_have_text(chance(dice=3))
    dave.get_by_role("radio", name=re.compile(r"^Stealth")).check()
    expect(odds).to_contain_text("Agility (Stealth): 3 dice at difficulty 3")
    expect(chance_now).to_have_text(chance(dice=3, training="adept"))
    dave.get_by_role("radio", name="Advantage", exact=True).check()
    expect(odds).to_contain_text("Rolled twice, keeping the more Stars")
    expect(chance_now).to_have_text(chance(dice=3, training="adept", advantage=True))
    assert_fits_phone(dave)
    shot(dave, "stars-phone-roll-form")
    dave.get_by_role("radio", name="Neither", exact=True).check()
    expect(chance_now).to_have_text(chance(dice=3, training="adept"))

    # Dave botches; he alone is offered Luck, with its odds.
    dave.get_by_label("What do you try?").fill("Sneak past the neighbour")
    card = roll(dave)
    expect(card).to_contain_text("Botch: the worst possible result")
    dave_roll = roll_id(card)
    luck = card.locator(".follow-up-luck button")
    expect(luck).to_contain_text(f"0% -> {chance(dice=3, training='adept')}")
    assert_fits_phone(dave)
    on_gm = gm.locator(f"#feed-roll-{dave_roll}")
    expect(on_gm).to_contain_text("Agility (Stealth)")
    expect(on_gm).to_contain_text("Botch: the worst possible result")
    expect(ann.locator(f"#feed-roll-{dave_roll}")).to_contain_text("Sneak past the neighbour")
    expect(ann.locator(f"#feed-roll-{dave_roll} .follow-ups")).to_have_count(0)

    # Ann rolls a d3 with one tap; everyone sees it.
    ann.get_by_role("button", name="Roll a d3").click()
    ann_card = ann.locator("#result .card")
    expect(ann_card).to_contain_text("d3: 3")
    ann_roll = roll_id(ann_card)
    expect(gm.locator(f"#feed-roll-{ann_roll}")).to_contain_text("d3: 3")
    expect(dave.locator(f"#feed-roll-{ann_roll}")).to_contain_text("Ann")

    # Dave spends Luck: the reroll is better, so it stands; once per roll.
    luck.click()
    result = dave.locator(f"#result #result-roll-{dave_roll}")
    expect(result).to_contain_text("Luck: rerolled, keeping the better")
    expect(result).to_contain_text("Success: 3 Stars")
    expect(result.locator(".follow-up-luck")).to_have_count(0)
    expect(on_gm).to_contain_text("Luck: rerolled, keeping the better")
    expect(on_gm).to_contain_text("Success: 3 Stars")
    expect(ann.locator(f"#feed-roll-{dave_roll}")).to_contain_text("Success: 3 Stars")
    expect(gm.locator(f"#feed-roll-{dave_roll}")).to_have_count(1)
    # The point is spent (the header's live update races the socket: reload to read it).
    dave.reload()
    expect(dave.locator(".resources-line .resources").first).to_have_text("Luck 2 of 3")
    wait_live(dave)

    # A long rest gives Dave his point back; Ann is full already.
    gm.once("dialog", lambda dialog: dialog.accept())  # the long rest asks once
    gm.get_by_role("button", name="Long rest").click()
    expect(gm.locator("#notice")).to_contain_text("Everyone takes a long rest.")
    expect(dave.locator("#feed .event-long-rest").first).to_contain_text("one point of Luck back")
    dave.reload()
    expect(dave.locator(".resources-line .resources").first).to_have_text("Luck 3 of 3")
    ann.reload()
    expect(ann.locator(".resources-line .resources").first).to_have_text("Luck 4 of 4")

    assert_fits_phone(dave)
    assert_fits_phone(ann)
    shot(gm, "stars-gm-session")
    shot(dave, "stars-phone-result")
