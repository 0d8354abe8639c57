"""The TV reads across a room, whatever a card holds: for the longest card of each of the five
systems (the biggest pool, every follow-up the rules still offer, a name and an intent at their
longest with a word of 60 letters), at 1920x1080 and at 1280x720, every card on the screen shows
its outcome line whole inside its own box, and no word runs out of its card. The dice shrink,
wrap or are cut; the verdict never is."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse
from playwright.sync_api import Page, expect

from rolls.contests import services as contests
from rolls.models import Contest
from tests import factories
from tests.browser.conftest import Browsers, Shot
from tests.browser.flows import in_thread, wait_live
from tests.browser.longcards import LONG_INTENT, LONG_NAME, LONG_WORD, follow_everything, longest_roll
from tests.test_sixes_contests import Kids, versus
from tests.test_sixes_contests import roll as kid_roll

SYSTEMS = ("sixes", "kinds", "doubles", "sets", "stars")
SCREENS = ({"width": 1920, "height": 1080}, {"width": 1280, "height": 720})
# Rounding of boxes drawn at the 720p screen's zoom.
SLACK = 1.5


def measure(tv: Page) -> list[dict[str, Any]]:
    """Each visible card's box, its verdict's, the viewport's, and the parts of its text wider
    than their own box (a word running out of it)."""
    return tv.evaluate(
        """() => [...document.querySelectorAll("#feed > .card")]
            .filter((card) => card.offsetParent !== null)
            .map((card) => {
              const box = (el) => { const r = el.getBoundingClientRect(); return {top: r.top, bottom: r.bottom, left: r.left, right: r.right}; };
              const verdict = card.querySelector(".verdict");
              const settled = card.querySelector(".contest-verdict");
              const spills = [...card.querySelectorAll(".who, .trait-name, .intent, .verdict, .details li, .pill")]
                .filter((el) => el.scrollWidth > el.clientWidth + 1
                  || el.getBoundingClientRect().right > card.getBoundingClientRect().right + 1)
                .map((el) => el.className);
              return {text: verdict && verdict.textContent.trim(), card: box(card), verdict: verdict && box(verdict),
                      settled: settled && box(settled), settledText: settled && settled.textContent.trim(),
                      // its box may sit inside the card while the box cuts its own text
                      settledCut: Boolean(settled && settled.scrollHeight > settled.clientHeight + 1),
                      screen: {bottom: window.innerHeight, right: window.innerWidth}, spills};
            })"""
    )


def inside(outer: Any, inner: Any) -> bool:
    """Whether the box ``inner`` lies whole within ``outer``."""
    return bool(
        outer["top"] - SLACK <= inner["top"]
        and inner["bottom"] <= outer["bottom"] + SLACK
        and outer["left"] - SLACK <= inner["left"]
        and inner["right"] <= outer["right"] + SLACK
    )


def assert_reads(tv: Page, system: str, screen: dict[str, int], count: int = 5) -> list[dict[str, Any]]:
    """Every card's outcome line, and a settled contest's verdict line, whole in its card."""
    cards = measure(tv)
    assert len(cards) == count, (system, screen, cards)
    for number, card in enumerate(cards):
        where = (system, screen, number, card)
        outer, verdict, edge = card["card"], card["verdict"], card["screen"]
        assert verdict and card["text"], where
        assert inside(outer, verdict), where
        if card["settled"]:
            assert inside(outer, card["settled"]) and not card["settledCut"], where
        assert outer["bottom"] <= edge["bottom"] + SLACK and outer["right"] <= edge["right"] + SLACK, where  # type: ignore[index]
        assert card["spills"] == [], where
    return cards


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


@pytest.mark.browser
def test_a_settled_contests_verdict_line_stays_inside_its_card(
    browsers: Browsers, live_url: str, shot: Shot
) -> None:
    """SIX-18, issue 42: the "Settled: ..." line under a settled contest's long cards (a long
    intent, every push and Luck the rules offered before the GM settled) is whole inside each
    card, the large one and the row's, at 1920x1080 and 1280x720."""

    def play() -> factories.Table:
        kids = Kids()
        for _ in range(3):  # the row under the contest's cards
            longest_roll("sixes", kids.table)
        contest = versus(kids, kids.olle, kids.kim, intent=LONG_INTENT[:200])
        sides = [kid_roll(kids, contest, 0, 6, 2, 1), kid_roll(kids, contest, 1, 3, 2, 1)]
        for seed, side in enumerate(sides):
            follow_everything(side, side.character.owner, kids.table.gm, seed)  # type: ignore[union-attr]
        contests.contest_close(contest=Contest.objects.get(pk=contest.pk), gm=kids.table.gm)
        return kids.table

    table = in_thread(play)
    tv = browsers.display()
    tv.goto(reverse("rolls:display", args=[table.campaign.display_token]))
    wait_live(tv)
    expect(tv.locator("#feed > .card .contest-verdict")).to_have_count(2)
    # The verdict is a line above the cards, which keep their places: the newest the large one.
    expect(tv.locator("#feed > .event").first).to_contain_text("the scene is interrupted")
    expect(tv.locator("#feed > .event").first).to_be_in_viewport()
    for screen in SCREENS:
        tv.set_viewport_size(screen)
        cards = assert_reads(tv, "sixes", screen)
        settled = [card for card in cards if card["settled"]]
        assert len(settled) == 2 and all(c["settledText"].startswith("Settled: ") for c in settled), cards
        shot(tv, f"display-reads-settled-{screen['width']}", full_page=False)
