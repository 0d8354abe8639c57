"""A screen reader's evening (issue 45): axe-core 4.14 (the pytest-playwright-axe package) on every
page type, with no serious or critical violation and every control's text at 4.5:1 at least,
in English and, once a campaign has a language of its own, in German; the page's one announcer
saying one sentence after a roll, a follow-up, a contest's verdict and a reconnect, while the
result panel keeps its node; the phone and the console by keyboard alone; motion that follows
``prefers-reduced-motion``."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Page, expect
from pytest_playwright_axe import Axe

from tabletop.models import Campaign, PlaySession
from tests.browser.conftest import PHONE, Browsers, Shot
from tests.browser.flows import (
    drop_socket,
    in_thread,
    join_with_character,
    open_display,
    open_table,
    roll,
    roll_id,
    wait_live,
    wake_up,
)
from tests.factories import Script

# What fails a page: axe-core's two highest impacts.
BLOCKING = ("serious", "critical")
# Controls whose text must reach 4.5:1 whatever its size (axe asks large text for 3:1 only).
CONTROLS = ["button", "a[href]", "select", "option", "input", "textarea", "summary", "label"]
STRICT_CONTRAST = {
    "checks": [
        {
            "id": "color-contrast",
            "options": {"contrastRatio": {"normal": {"expected": 4.5}, "large": {"expected": 4.5}}},
        }
    ]
}
# Whether campaigns have a language yet (issue 45's other half): the German pass runs once they do.
HAS_LANGUAGE = any(field.name == "language" for field in Campaign._meta.get_fields())


# axe-core as the package ships it, put into a page once (pytest-playwright-axe's own
# ``Axe.run`` puts its 600 kB into every frame on each call, which was most of an audit's time).
AXE_SOURCE = Axe().axe_path.read_text(encoding="UTF-8")
# Both checks of a page in one call: every rule at axe-core's own settings, then the controls'
# contrast at STRICT_CONTRAST; ``axe.reset()`` before each, so neither run sees the other's
# configuration.
AUDIT_PAGE = """async ([strict, controls]) => {
    axe.reset();
    const all = await axe.run(document, {});
    axe.reset();
    axe.configure(strict);
    const contrast = await axe.run(
        {include: controls}, {runOnly: {type: "rule", values: ["color-contrast"]}});
    axe.reset();
    return [all.violations, contrast.violations];
}"""


class Audit:
    """axe-core's findings per page, gathered for one report at the end of a test."""

    def __init__(self) -> None:
        self.found: dict[str, list[str]] = {}

    def check(self, page: Page, name: str) -> None:
        # Whatever is still landing (a card's dice) has landed: axe reads colours as drawn.
        page.wait_for_timeout(100)
        if not page.evaluate("typeof window.axe !== 'undefined'"):
            page.evaluate(AXE_SOURCE)
        violations, contrast = page.evaluate(
            AUDIT_PAGE, [STRICT_CONTRAST, [[selector] for selector in CONTROLS]]
        )
        problems = [_line(violation) for violation in violations if violation["impact"] in BLOCKING]
        problems += [f"controls: {_line(violation)}" for violation in contrast]
        self.found[name] = problems

    def assert_clean(self) -> None:
        counts = {name: len(problems) for name, problems in self.found.items()}
        print("axe-core, serious and critical violations per page:", counts)
        failing = {name: problems for name, problems in self.found.items() if problems}
        assert not failing, "\n".join(f"{name}:\n  " + "\n  ".join(lines) for name, lines in failing.items())


def _line(violation: dict[str, Any]) -> str:
    nodes = violation["nodes"]
    where = "; ".join(
        " ".join(map(str, node["target"])) + (f" ({node.get('failureSummary', '')[:160]})" if i < 3 else "")
        for i, node in enumerate(nodes[:6])
    )
    return f"{violation['id']} [{violation['impact']}] {violation['help']}: {len(nodes)} x {where}"


@pytest.fixture
def audit() -> Audit:
    return Audit()


# -- the announcer ---------------------------------------------------------------------------


def announced(page: Page) -> str:
    return page.locator("#announcer").inner_text().strip()


def expect_said(page: Page, pattern: str) -> str:
    """The announcer says exactly one sentence matching ``pattern``."""
    expect(page.locator("#announcer")).to_have_text(re.compile(pattern))
    text = announced(page)
    assert one_sentence(text), text
    return text


def one_sentence(text: str) -> bool:
    """One sentence: a stop at its end, none before it."""
    return bool(text) and text[-1] in ".!?" and not re.search(r"[.!?…]\s", text)


def campaign_of(page: Page) -> int:
    match = re.search(r"/c/(\d+)/", page.url)
    assert match, page.url
    return int(match.group(1))


def in_language(campaign_id: int, language: str) -> None:
    """The table plays in ``language`` (Campaign.language), written as the GM's choice is."""

    def write() -> None:
        Campaign.objects.filter(pk=campaign_id).update(language=language)

    in_thread(write)


# -- a sixes evening: the announcer, the kept result panel, and the pages around a roll --------


@pytest.mark.browser
def test_a_screen_readers_evening_at_a_sixes_table(
    browsers: Browsers, dice: Script, audit: Audit, shot: Shot
) -> None:
    gm = browsers.gm()
    link = open_table(gm)
    tv = open_display(browsers, gm)
    # Before anyone joins: the join page, for someone not signed in yet.
    door = browsers.phone()
    door.goto(link)
    audit.check(door, "join")
    ada = join_with_character(door, link, "Alice", "Ada")
    phone = ada.page
    wait_live(phone)

    # One announcer, there from the start, quiet; the regions that used to speak over each other
    # (the feed, the result panel, the calls, the contests, the notice, the connection) do not.
    expect(phone.locator("#announcer")).to_have_attribute("aria-live", "polite")
    expect(phone.locator("#announcer")).to_have_text("")
    quiet = ("#feed", "#result", "#calls-panel", "#contests-panel", "#notice", "#live-status")
    speaking = phone.evaluate(
        """selectors => selectors.filter(selector => {
            const element = document.querySelector(selector);
            return element && (element.getAttribute("aria-live") || element.getAttribute("role") === "status");
        })""",
        list(quiet),
    )
    assert speaking == [], speaking

    # A roll: the result panel is the same node before and after; the announcer says one sentence.
    kept = phone.evaluate_handle("document.getElementById('result')")
    dice(1, then=1)
    card = roll(phone)
    assert phone.evaluate("panel => panel.isConnected && panel === document.getElementById('result')", kept)
    said = expect_said(phone, r"^Ada rolled \d+ (die|dice): Failure: 0 of 1 needed\.$")
    for screen in (gm, tv):
        expect(screen.locator("#announcer")).to_have_text(said)
    expect(card.locator(".follow-up-push button")).to_be_visible()
    audit.check(phone, "phone roll page, a result with follow-ups")
    shot(phone, "a11y-phone-result", full_page=False)

    # A follow-up: the card is redrawn, the panel stays, the focus stays in it.
    dice(6, then=1)
    card.get_by_label("Condition to check").select_option("Scared")
    card.get_by_label("What does the kid do to push themself?").fill("Ada runs")
    card.locator(".follow-up-push button").click()
    expect(card).to_contain_text("Pushed")
    said = expect_said(phone, r"^Ada, Pushed, checking Scared: (Success|Failure): \d+ of 1 needed\.$")
    expect(gm.locator("#announcer")).to_have_text(said)
    assert phone.evaluate("panel => panel.isConnected && panel === document.getElementById('result')", kept)
    assert phone.evaluate("document.activeElement && document.activeElement.closest('#result') !== null")
    audit.check(phone, "phone roll page after a follow-up")

    # A reconnect: said by the page itself.
    drop_socket(phone)
    wake_up(phone)
    wait_live(phone)
    expect_said(phone, r"^Reconnected\.$")

    # The console, the TV and the pages around a roll.
    audit.check(gm, "console")
    audit.check(tv, "TV")
    made = roll_id(card)
    campaign_id = campaign_of(phone)
    session_id = in_thread(
        lambda: PlaySession.objects.filter(campaign_id=campaign_id).values_list("pk", flat=True)[0]
    )
    pages = {
        "history": f"/c/{campaign_id}/history/",
        "a roll's page": f"/c/{campaign_id}/rolls/{made}/",
        "statistics": f"/c/{campaign_id}/stats/",
        "recap": f"/c/{campaign_id}/sessions/{session_id}/recap/",
        "rules": "/rules/",
        "rules of sixes": "/rules/sixes/",
    }
    for name, url in pages.items():
        gm.goto(url)
        audit.check(gm, name)
    signed_out = browsers.phone()
    signed_out.goto("/login/")
    audit.check(signed_out, "sign-in")

    if HAS_LANGUAGE:
        # The same pages with the table in German, and the pages outside it in the browser's.
        in_language(campaign_id, "de")
        for name, url in pages.items():
            gm.goto(url)
            audit.check(gm, f"{name} (de)")
        for page, name in ((phone, "phone roll page"), (tv, "TV")):
            page.reload()
            audit.check(page, f"{name} (de)")
        gm.goto(f"/c/{campaign_id}/session/")
        audit.check(gm, "console (de)")
        german = browsers._page({**PHONE, "locale": "de-DE"})
        german.goto("/login/")
        audit.check(german, "sign-in (de)")
        german.goto(link)
        audit.check(german, "join (de)")
    audit.assert_clean()


@pytest.mark.browser
def test_every_systems_rules_page_passes(browsers: Browsers, audit: Audit) -> None:
    page = browsers.gm()
    for slug in ("sixes", "stars", "kinds", "sets", "doubles"):
        page.goto(f"/rules/{slug}/")
        audit.check(page, f"rules of {slug}")
    audit.assert_clean()


# -- contests on the console ---------------------------------------------------------------------
