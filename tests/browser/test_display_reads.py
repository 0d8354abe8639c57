"""The TV reads across a room, whatever a card holds: for the longest card of each of the five
systems (the biggest pool, every follow-up the rules still offer, a name and an intent at their
longest with a word of 60 letters), at 1920x1080 and at 1280x720, every card on the screen shows
its outcome line whole inside its own box, and no word runs out of its card. The dice shrink,
wrap or are cut; the verdict never is."""

from __future__ import annotations

import pytest
from django.urls import reverse
from playwright.sync_api import Page, expect

from tests import factories
from tests.browser.conftest import Browsers, Shot
from tests.browser.flows import in_thread, wait_live
from tests.browser.longcards import LONG_NAME, LONG_WORD, longest_roll

SYSTEMS = ("sixes", "kinds", "doubles", "sets", "stars")
SCREENS = ({"width": 1920, "height": 1080}, {"width": 1280, "height": 720})
# Rounding of boxes drawn at the 720p screen's zoom.
SLACK = 1.5


def measure(tv: Page) -> list[dict[str, object]]:
    """Each visible card's box, its verdict's, the viewport's, and the parts of its text wider
    than their own box (a word running out of it)."""
    return tv.evaluate(
        """() => [...document.querySelectorAll("#feed > .card")]
            .filter((card) => card.offsetParent !== null)
            .map((card) => {
              const box = (el) => { const r = el.getBoundingClientRect(); return {top: r.top, bottom: r.bottom, left: r.left, right: r.right}; };
              const verdict = card.querySelector(".verdict");
              const spills = [...card.querySelectorAll(".who, .trait-name, .intent, .verdict, .details li, .pill")]
                .filter((el) => el.scrollWidth > el.clientWidth + 1
                  || el.getBoundingClientRect().right > card.getBoundingClientRect().right + 1)
                .map((el) => el.className);
              return {text: verdict && verdict.textContent.trim(), card: box(card), verdict: verdict && box(verdict),
                      screen: {bottom: window.innerHeight, right: window.innerWidth}, spills};
            })"""
    )


def assert_reads(tv: Page, system: str, screen: dict[str, int]) -> None:
    cards = measure(tv)
    assert len(cards) == 5, (system, screen, cards)
    for number, card in enumerate(cards):
        where = (system, screen, number, card)
        outer, verdict, edge = card["card"], card["verdict"], card["screen"]
        assert verdict and card["text"], where
        assert outer["top"] - SLACK <= verdict["top"] and verdict["bottom"] <= outer["bottom"] + SLACK, where  # type: ignore[index]
        assert outer["left"] - SLACK <= verdict["left"] and verdict["right"] <= outer["right"] + SLACK, where  # type: ignore[index]
        assert outer["bottom"] <= edge["bottom"] + SLACK and outer["right"] <= edge["right"] + SLACK, where  # type: ignore[index]
        assert card["spills"] == [], where


@pytest.mark.browser
@pytest.mark.parametrize("system", SYSTEMS)
def test_the_tv_shows_the_outcome_of_each_systems_longest_card(
    browsers: Browsers, live_url: str, system: str, shot: Shot
) -> None:
    def play() -> factories.Table:
        sheet = None if system == "sixes" else factories.sheet_of(system, LONG_NAME)
        table = factories.table(system, character_name=LONG_NAME, sheet=sheet)
        for _ in range(5):  # five long cards: the large one and the row of four under it
            longest_roll(system, table)
        return table

    table = in_thread(play)

    tv = browsers.display()
    tv.goto(reverse("rolls:display", args=[table.campaign.display_token]))
    wait_live(tv)
    latest = tv.locator("#feed > .card").first
    expect(latest.locator(".intent")).to_contain_text(LONG_WORD[:20])
    for screen in SCREENS:
        tv.set_viewport_size(screen)
        assert_reads(tv, system, screen)
        shot(tv, f"display-reads-{system}-{screen['width']}", full_page=False)
    # The latest is the large one: its verdict in bigger type than the row's.
    sizes = tv.evaluate(
        """() => [...document.querySelectorAll("#feed > .card .verdict")].slice(0, 2)
            .map((el) => parseFloat(getComputedStyle(el).fontSize))"""
    )
    assert sizes[0] > sizes[1] * 1.5, sizes


@pytest.mark.browser
def test_a_word_of_sixty_letters_stays_inside_its_card(browsers: Browsers, live_url: str) -> None:
    """The longest word a name or an intent can hold wraps inside the card, large or small."""

    def play() -> factories.Table:
        table = factories.table(character_name=LONG_WORD)
        for _ in range(5):
            factories.a_roll("sixes", table.character, table.player)
        return table

    table = in_thread(play)
    tv = browsers.display()
    tv.goto(reverse("rolls:display", args=[table.campaign.display_token]))
    wait_live(tv)
    expect(tv.locator("#feed > .card").first.locator(".who")).to_have_text(LONG_WORD)
    for screen in SCREENS:
        tv.set_viewport_size(screen)
        assert_reads(tv, "sixes", screen)
