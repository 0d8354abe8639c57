"""One evening per system on every screen at once (issue 42): the GM's console at 1280x800, the
TV at 1920x1080 and three phones at 360x740, none of them ever reloaded. Each evening starts a
session, has each phone roll, takes a follow-up the system offers, has the GM call for a roll
that the phone answers and the console closes, plays a contest to its verdict, voids a roll and
moves the system's clocks (a new Mystery or Adventure, a long rest). Every decision is a line
on the TV and on each phone as it happens, and every form the socket draws is submitted: the
call on the phone, "Close this call" on the console, the contest panel's roll and settle, a
sets bid, a doubles extended action's roll, and the buttons of a card that arrived live.

The table is built through the services (the sign-up and sheet forms have browser tests of
their own); the GM opens the contest, and the doubles extended action, on the console's own
forms, and the sides play them on the screens."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from django.urls import reverse
from playwright.sync_api import Locator, Page, expect

from rolls import registry
from rolls.campaigns import services as campaigns
from rolls.models import Contest, Roll
from tabletop.models import Campaign, Character
from tests import factories
from tests.browser.conftest import Browsers, Shot
from tests.browser.flows import (
    caught_up,
    close_call,
    contest,
    feed_line,
    in_thread,
    open_display,
    roll,
    roll_id,
    sign_in,
    wait_live,
)
from tests.factories import Script
from tests.test_table_doubles import doubles_sheet
from tests.test_table_sets import sets_sheet
from tests.test_table_stars import stars_sheet


def two_sides(tools: Locator) -> None:
    """A head-to-head contest's sides on the console: Ada first, Bo second."""
    tools.get_by_label(re.compile(r"^First side")).select_option(label=NAMES[0])
    tools.get_by_label("Second side").select_option(label=NAMES[1])


def kids(tools: Locator) -> None:
    """sixes: kid versus kid, each rolling Body."""
    for name in NAMES[:2]:
        tools.get_by_role("checkbox", name=name, exact=True).check()
        tools.get_by_label(f"{name}'s roll").select_option("Body")


def stat(name: str) -> Callable[[Locator], None]:
    """sets and stars: both sides roll ``name``."""

    def fill(tools: Locator) -> None:
        two_sides(tools)
        for each in NAMES[:2]:
            tools.get_by_label(f"{each}'s stat").select_option(name)

    return fill


def one_danger(tools: Locator) -> None:
    """kinds: Ada and Bo face one Basic Danger (KIN-8)."""
    tools.get_by_label("The Danger's Challenge").select_option("Basic")
    for name in NAMES[:2]:
        tools.get_by_role("checkbox", name=name, exact=True).check()


@dataclass(frozen=True)
class Evening:
    """What differs from one system to the next."""

    system: str
    sheet: Callable[[str], dict[str, Any] | None]
    # The console's contest form for Ada and Bo, filled in, and the button that opens it.
    console: Callable[[Locator], None]
    opens: str = "Open the contest"
    # The follow-up a contest's side takes once revealed: on its card, which the socket drew
    # with its buttons ("card"), or on the contest's panel ("panel"); none in kinds.
    follow_up: tuple[str, str] | None = None


EVENINGS = {
    "sixes": Evening("sixes", lambda name: None, kids, follow_up=("card", "Push the roll")),
    "kinds": Evening("kinds", lambda name: factories.sheet_of("kinds", name), one_danger, opens="Open it"),
    "doubles": Evening(
        "doubles", lambda name: doubles_sheet(), two_sides, follow_up=("card", "Buy drama dice")
    ),
    "sets": Evening("sets", lambda name: sets_sheet(), stat("Finesse"), follow_up=("panel", "Bid ")),
    "stars": Evening("stars", lambda name: stars_sheet(), stat("Agility"), follow_up=("card", "Spend Luck")),
}
NAMES = ("Ada", "Bo", "Cy")


@dataclass
class Table:
    campaign: Campaign
    gm: Any
    players: list[Any]
    characters: list[Character]


def build(evening: Evening) -> Table:
    """A campaign of the evening's system, three players with a character each, no session on
    (the GM starts it on the screens)."""

    def sheet(name: str) -> dict[str, Any]:
        made = evening.sheet(name)
        return made if made is not None else factories.sixes_sheet()

    table = factories.table(evening.system, character_name=NAMES[0], sheet=sheet(NAMES[0]))
    players, characters = [table.player], [table.character]
    for name in NAMES[1:]:
        player = factories.user(name.lower())
        factories.member(table.campaign, player, name=f"{name}'s player")
        characters.append(
            campaigns.character_create(campaign=table.campaign, owner=player, name=name, sheet=sheet(name))
        )
        players.append(player)
    campaigns.session_end(campaign=table.campaign, actor=table.gm)
    return Table(table.campaign, table.gm, players, characters)


def card_on(page: Page, roll: int) -> Any:
    return page.locator(f"#feed > .card[data-roll='{roll}']")


def on_every_screen(pages: list[Page], text: str | re.Pattern[str]) -> None:
    for page in pages:
        feed_line(page, text)


def gm_tool(gm: Page, tools: str) -> Any:
    """One of the console's folded tools, opened."""
    box = gm.locator(tools)
    if box.get_attribute("open") is None:
        box.locator("summary").first.click()
    return box


def settle(gm: Page) -> None:
    """The GM ends the contest on the console's panel (drawn by the socket): "Settle it" once
    every side has rolled, "Close it now" (asked to confirm) while an extended action runs;
    on the panel as the last step's push drew it."""
    caught_up(gm)
    button = contest(gm).get_by_role("button", name=re.compile(r"^(Settle it|Close it now)$"))
    if button.inner_text().strip() == "Close it now":
        gm.once("dialog", lambda dialog: dialog.accept())
    button.click()


def take_follow_up(card: Locator, label: str) -> None:
    """Fill and press the card's follow-up ``label`` and see its step added. The socket may
    draw the card again (the contest revealed to each screen) between the filling and the
    press, which empties the form: then it is filled again."""
    steps = card.locator(".step").count()
    for _ in range(3):
        follow_up = card.locator("form.follow-up", has_text=label).first
        for text in follow_up.locator("input[type=text]").all():
            text.fill("pushes on")
        for choice in follow_up.locator("select").all():
            if not choice.input_value():
                choice.select_option(index=1)
        follow_up.get_by_role("button", name=re.compile(f"^{label}")).click()
        try:
            expect(card.locator(".step")).to_have_count(steps + 1, timeout=3000)
            return
        except AssertionError:
            continue
    expect(card.locator(".step")).to_have_count(steps + 1)


@pytest.mark.browser
@pytest.mark.parametrize("system", list(EVENINGS))
def test_an_evening_on_three_screens(browsers: Browsers, dice: Script, shot: Shot, system: str) -> None:
    evening = EVENINGS[system]
    table = in_thread(lambda: build(evening))
    adapter = registry.table(system)
    base = browsers.base_url

    gm = browsers.gm()
    sign_in(gm, table.gm, base)
    session_url = reverse("rolls:session", args=[table.campaign.pk])
    gm.goto(session_url)
    wait_live(gm)
    tv = open_display(browsers, gm)
    phones = []
    for player, character in zip(table.players, table.characters, strict=True):
        phone = browsers.phone()
        sign_in(phone, player, base)
        phone.goto(character.get_absolute_url())
        wait_live(phone)
        phones.append(phone)
    ada, bo, cy = phones
    screens = [tv, *phones]

    # The session: a line on the TV and every phone.
    gm.get_by_role("button", name="Start a play session").click()
    on_every_screen(screens, "Session 2 started.")

    # A roll by each phone: its card on the TV and on the other phones, live.
    rolled = []
    for phone in phones:
        dice(4, 4, 2, then=1)
        rolled.append(roll_id(roll(phone)))
        for other in (tv, *phones):
            expect(card_on(other, rolled[-1])).to_have_count(1)

    # A call for a roll: Bo answers it on the panel the socket drew, the console closes it.
    form = gm_tool(gm, "#call-tools").locator("#call-form")
    form.get_by_role("checkbox", name=NAMES[1], exact=True).check()
    form.get_by_label("What do they try?").fill("Climb the fence")
    form.get_by_role("button", name="Ask for the roll").click()
    on_every_screen([tv], f"The GM asks {NAMES[1]}")
    expect(tv.locator("#display-calls")).to_contain_text("Climb the fence")
    call = bo.locator("#calls-panel .call")
    dice(4, 4, 2, then=1)
    call.get_by_role("button", name=re.compile(r"^Roll")).first.click()
    expect(bo.locator("#result .card")).to_contain_text("Climb the fence")
    expect(call).to_have_count(0)
    close_call(gm)
    expect(gm.locator("#call-status")).to_contain_text("No call for a roll is open.")
    expect(tv.locator("#display-calls")).not_to_contain_text("Climb the fence")

    # A contest between Ada and Bo, opened by the GM on the console (its form drawn with the
    # page): each side rolls on the panel the socket drew.
    tools = gm_tool(gm, "#contest-tools")
    evening.console(tools)
    tools.get_by_label("What is at stake?").fill("Who gets the last bike")
    tools.get_by_role("button", name=evening.opens).click()
    expect(contest(gm)).to_contain_text("Who gets the last bike")
    for phone in (ada, bo):
        expect(contest(phone)).to_contain_text("Who gets the last bike")
        dice(4, 4, 2, then=1)
        contest(phone).get_by_role("button", name=re.compile(r"^Roll")).first.click()
        expect(phone.locator("#result .card")).to_be_visible()
    # Revealed: a side's follow-up, on its card (whose buttons came over the socket) or the panel.
    if evening.follow_up is not None:
        where, label = evening.follow_up
        if where == "card":
            card = ada.locator("#result .card")
            take_follow_up(card, label)
        else:
            before = contest(ada).inner_text()
            contest(ada).get_by_role("button", name=re.compile(f"^{label}")).first.click()
            expect(contest(ada)).not_to_have_text(before)
    settle(gm)
    expect(tv.locator("#feed > .card .contest-verdict")).to_have_count(2)
    verdict = in_thread(lambda: Contest.objects.get(campaign=table.campaign).verdict)
    assert verdict
    on_every_screen(screens, verdict)
    expect(tv.locator("#feed > .card .contest-verdict", has_text=verdict)).to_have_count(2)
    for phone in (ada, bo):
        expect(phone.locator("#result .contest-verdict")).to_contain_text(verdict)
        expect(phone.locator("#result .follow-ups")).to_have_count(0)
    shot(tv, f"evening-{system}-tv-verdict", full_page=False)

    if system == "doubles":  # DBL-13: an extended action, Cy's roll on its board, settled.
        action = gm_tool(gm, "#extended-tools")
        action.get_by_label("Difficulty Number").select_option("6")
        action.get_by_label("Successes needed").fill("2")
        action.get_by_label("Failures that end it").fill("2")
        action.get_by_label("What is the party doing?").fill("Cross the river")
        action.get_by_role("button", name="Open the extended action").click()
        board = contest(cy)
        expect(board).to_contain_text("Cross the river")
        dice(6, 6)
        board.get_by_role("button", name=re.compile(r"^Roll")).first.click()
        expect(contest(tv)).to_contain_text(re.compile(r"Successes\s+1 / 2"))
        settle(gm)
        on_every_screen(screens, "The extended action")
        expect(tv.locator("#feed > .card .contest-verdict", has_text="The extended action")).to_have_count(1)

    # A void: Cy's newest roll loses its buttons on Cy's phone at once.
    dice(4, 4, 2, then=1)
    card = roll(cy)
    voided = roll_id(card)
    gm.goto(reverse("rolls:roll", args=[table.campaign.pk, voided]))
    gm.get_by_role("button", name="Void this roll").click()
    expect(cy.locator("#result .card.voided")).to_have_count(1)
    expect(cy.locator("#result .follow-ups")).to_have_count(0)
    expect(tv.locator(f"#feed > .card.voided[data-roll='{voided}']")).to_have_count(1)
    assert in_thread(lambda: Roll.objects.get(pk=voided).voided)

    # The system's clocks: a line on every screen.
    gm.goto(session_url)
    wait_live(gm)
    clocks = [adapter.story] + ([adapter.rest] if adapter.rest is not None else [])
    for clock in clocks:
        gm.once("dialog", lambda dialog: dialog.accept())
        gm.get_by_role("button", name=clock.label).click()
        on_every_screen(screens, clock.event.format(n=2).split(".")[0])
    shot(tv, f"evening-{system}-tv", full_page=False)
    shot(ada, f"evening-{system}-phone", full_page=False)
    shot(gm, f"evening-{system}-console", full_page=False)
