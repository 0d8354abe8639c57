"""The player's phone at 360 x 740, for each of the five systems: one roll fits one screen,
the result shows where the player looks without the page jumping, a refusal shows next to
what was tapped, and what the GM changes follows live."""

from __future__ import annotations

import re
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.conf import settings
from django.db import connection
from django.test import Client
from playwright.sync_api import Page, expect

from rolls.campaigns import services
from tests import factories
from tests.browser.conftest import Browsers, Shot
from tests.browser.flows import assert_fits_phone, wait_live
from tests.factories import Table

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SYSTEMS = ["sixes", "kinds", "doubles", "sets", "stars"]


def _in_thread[T](function: Callable[..., T], *args: object, **kwargs: object) -> T:
    """Database work off this thread: Playwright keeps an event loop running here, and the
    services broadcast through async_to_sync, which refuses to run beside one."""

    def run() -> T:
        try:
            return function(*args, **kwargs)
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(run).result()


def _table(system: str) -> Table:
    return factories.table(system, sheet=None if system == "sixes" else factories.sheet_of(system))


def _sign_in(page: Page, user: object, base: str) -> None:
    client = Client()
    client.force_login(user)  # type: ignore[arg-type]
    cookie = client.cookies[settings.SESSION_COOKIE_NAME].value
    page.context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "value": cookie, "url": base}])


def _roll_screen(browsers: Browsers, table: Table) -> Page:
    phone = browsers.phone()
    _sign_in(phone, table.player, browsers.base_url)
    phone.goto(table.character.get_absolute_url())
    wait_live(phone)
    return phone


# A trait other than the one the form starts with, in each system's roll form.
ANOTHER_TRAIT = {
    "sixes": "Sneak",
    "kinds": "Drive",
    "doubles": "Fighting",
    "sets": "Finesse",
    "stars": "Agility",
}
HEIGHT = 740
# Dice that show each system's layout on the result card (then threes, for whatever else rolls).
RESULT_DICE = {
    "sixes": (6, 2, 6, 4),
    "kinds": (4, 2, 4),
    "doubles": (5, 5, 2),
    "sets": (5, 2, 5),
    "stars": (6, 3),
}


def controls_off_screen(page: Page) -> list[dict[str, object]]:
    """The roll form's visible controls (a box or radio counts as its label) that are not
    wholly on the screen as it stands, above the bar that holds the odds and the Roll button
    (which covers the bottom of the screen). Controls in the bar are measured against the
    screen alone; hidden ones (a closed GM panel, a field another choice hides) not at all."""
    return page.evaluate(
        """height => {
            const bar = document.querySelector("#roll-form .roll-bar").getBoundingClientRect();
            return [...document.querySelectorAll("#roll-form input:not([type=hidden]), #roll-form select, #roll-form textarea")]
                .filter(el => el.offsetParent !== null || el.closest("label")?.offsetParent)
                .filter(el => !el.closest("details:not([open])"))
                .map(el => {
                    const target = el.matches("input[type=radio], input[type=checkbox]") ? (el.closest("label") || el) : el;
                    const r = target.getBoundingClientRect();
                    const bottom = el.closest(".roll-bar") ? height : bar.top;
                    return {what: target.outerHTML.slice(0, 100), top: r.top, bottom: r.bottom, limit: bottom};
                })
                .filter(c => c.top < 0 || c.bottom > c.limit + 0.5)
        }""",
        HEIGHT,
    )


def box_in_view(page: Page, selector: str) -> dict[str, float]:
    box = page.locator(selector).bounding_box()
    assert box is not None, selector
    assert 0 <= box["y"] and box["y"] + box["height"] <= HEIGHT, (selector, box)
    return box


@pytest.mark.parametrize("system", SYSTEMS)
def test_after_choosing_a_trait_the_odds_and_the_roll_button_are_on_the_screen(
    system: str, browsers: Browsers, shot: Shot, dice: factories.Script
) -> None:
    table = _in_thread(_table, system)
    phone = _roll_screen(browsers, table)
    expect(phone.locator("#odds .odds-chance")).to_be_visible()
    shot(phone, f"phone-{system}-roll", full_page=False)

    chip = phone.locator("#roll-form .trait", has_text=ANOTHER_TRAIT[system]).first
    chip.click()
    expect(phone.locator("#odds .odds-pool")).to_contain_text(ANOTHER_TRAIT[system])

    box_in_view(phone, "#roll-form .roll-button")
    box_in_view(phone, "#odds .odds-chance")
    box_in_view(phone, f"#roll-form .trait:has-text('{ANOTHER_TRAIT[system]}')")
    assert_fits_phone(phone)
    shot(phone, f"phone-{system}-chosen", full_page=False)
    shot(phone, f"phone-{system}-whole-page")

    dice(*RESULT_DICE[system], then=3)
    phone.locator("#roll-form .roll-button").click()
    card = phone.locator("#result .card")
    expect(card).to_be_visible()
    phone.wait_for_timeout(700)  # the smooth scroll to the result
    # The result shows where the player looks: its top on the screen.
    top = card.bounding_box()
    assert top is not None and -2 <= top["y"] < HEIGHT / 2, top  # its gold ring may peek over
    shot(phone, f"phone-{system}-result", full_page=False)
    assert_fits_phone(phone)


@pytest.mark.parametrize("system", SYSTEMS)
def test_after_choosing_a_trait_every_choice_of_the_roll_is_on_the_screen(
    system: str, browsers: Browsers, shot: Shot
) -> None:
    """Issue 13, "The phone": the trait, the toggles that apply, the odds and the Roll button on
    one screen, none of them under the bar and nothing asking for a scroll."""
    table = _in_thread(_table, system)
    phone = _roll_screen(browsers, table)
    phone.locator("#roll-form .trait", has_text=ANOTHER_TRAIT[system]).first.click()
    expect(phone.locator("#odds .odds-pool")).to_contain_text(ANOTHER_TRAIT[system])
    shot(phone, f"phone-{system}-fits", full_page=False)

    assert phone.evaluate("window.scrollY") == 0
    box_in_view(phone, "#roll-form .roll-button")
    box_in_view(phone, "#odds .odds-chance")
    assert controls_off_screen(phone) == []
    assert small_targets(phone) == []
    assert_fits_phone(phone)


def _sixes_with_a_friend() -> Table:
    table = _table("sixes")
    factories.character(table.campaign, table.gm, name="Kim")
    return table


def test_a_sixes_roll_with_every_toggle_set_still_fits_the_screen(browsers: Browsers, shot: Shot) -> None:
    """The longest odds line (two skill words, three sixes) and a friend chosen: the bar keeps
    its height and the form its rows, so nothing goes under the bar."""
    table = _in_thread(_sixes_with_a_friend)
    phone = _roll_screen(browsers, table)
    phone.locator("#roll-form .trait", has_text="Investigate").first.click()
    phone.get_by_role("radiogroup", name="Successes needed").get_by_role("radio", name="3").check()
    phone.get_by_label("A friend helps (+1 die)").select_option(label="Kim helps")
    phone.get_by_label("Walkie-talkie (+2 dice)").check()
    phone.locator("#roll-form").get_by_label("The Trouble threatens a Condition").check()
    expect(phone.locator("#odds .odds-pool")).to_contain_text("Mind + Investigate + Walkie-talkie: 7 dice")
    expect(phone.locator("#odds .odds-chance")).to_contain_text("to get 3 sixes")

    assert phone.evaluate("window.scrollY") == 0
    box_in_view(phone, "#roll-form .roll-button")
    assert controls_off_screen(phone) == []
    assert small_targets(phone) == []
    assert_fits_phone(phone)
    shot(phone, "phone-sixes-toggles", full_page=False)


@pytest.mark.parametrize(
    ("system", "choose"),
    [
        ("sets", lambda phone: phone.get_by_role("radio", name=re.compile(r"^Opposed")).check()),
        (
            "kinds",
            lambda phone: phone.get_by_label("This Challenge is a Danger: an Accident can hurt").check(),
        ),
        (
            "doubles",
            lambda phone: phone.get_by_label("Difficulty Number").select_option(label="Opposed roll"),
        ),
    ],
)
def test_a_roll_with_its_other_choices_made_still_fits_the_screen(
    system: str, choose: Callable[[Page], None], browsers: Browsers, shot: Shot
) -> None:
    """A choice that shows another control (the sets side of an opposed roll) or changes the
    odds line still leaves every control above the bar."""
    table = _in_thread(_table, system)
    phone = _roll_screen(browsers, table)
    phone.locator("#roll-form .trait", has_text=ANOTHER_TRAIT[system]).first.click()
    expect(phone.locator("#odds .odds-pool")).to_contain_text(ANOTHER_TRAIT[system])
    choose(phone)
    phone.wait_for_timeout(300)  # the odds follow
    shot(phone, f"phone-{system}-other-choices", full_page=False)

    assert phone.evaluate("window.scrollY") == 0
    box_in_view(phone, "#roll-form .roll-button")
    assert controls_off_screen(phone) == []
    assert small_targets(phone) == []
    assert_fits_phone(phone)


def test_a_bid_keeps_the_page_where_it_was(browsers: Browsers, dice: factories.Script) -> None:
    table = _in_thread(_table, "sets")
    phone = _roll_screen(browsers, table)
    dice(5, 5, 2, 1)  # a pair of fives; the Bar's Face, rolled after the dice: 1
    phone.locator("#roll-form .roll-button").click()
    card = phone.locator("#result .card")
    best = card.get_by_role("button", name="Bid 2x5")
    expect(best).to_be_visible()
    phone.wait_for_timeout(700)  # the smooth scroll to the result has ended
    before = phone.evaluate("window.scrollY")

    best.click()
    expect(card.locator(".step-bid")).to_be_visible()
    phone.wait_for_timeout(700)

    assert abs(phone.evaluate("window.scrollY") - before) < 5
    top = card.bounding_box()
    assert top is not None and -2 <= top["y"] < HEIGHT, top


def test_a_refusal_shows_next_to_the_button_and_goes_once_a_roll_succeeds(
    browsers: Browsers, dice: factories.Script
) -> None:
    table = _in_thread(_table, "sixes")
    phone = _roll_screen(browsers, table)
    _in_thread(services.session_end, campaign=table.campaign, actor=table.gm)
    expect(phone.locator("#session-status")).to_contain_text("No session running")

    button = phone.locator("#roll-form .roll-button")
    button.click()
    refusal = phone.get_by_role("alert")
    expect(refusal).to_contain_text("The GM has not started a play session yet.")
    said = box_in_view(phone, "#roll-form [data-refusal]")
    pressed = box_in_view(phone, "#roll-form .roll-button")
    assert 0 <= pressed["y"] - (said["y"] + said["height"]) < 40, (said, pressed)

    _in_thread(services.session_start, campaign=table.campaign, actor=table.gm)
    expect(phone.locator("#session-status")).to_contain_text("Session 2 is on")
    dice(then=6)
    button.click()
    expect(phone.locator("#result .card")).to_be_visible()
    expect(refusal).to_have_count(0)


def test_a_gm_correction_changes_the_phones_luck_live(browsers: Browsers, shot: Shot) -> None:
    table = _in_thread(_table, "sixes")
    phone = _roll_screen(browsers, table)
    listing = browsers.phone()
    _sign_in(listing, table.player, browsers.base_url)
    listing.goto(f"/c/{table.campaign.pk}/")
    wait_live(listing)
    gm = browsers.gm()
    _sign_in(gm, table.gm, browsers.base_url)
    gm.goto(f"/c/{table.campaign.pk}/characters/{table.character.pk}/sheet/")
    expect(phone.locator(f"#resources-{table.character.pk}")).to_contain_text("Luck 3")

    gm.get_by_text("GM: correct resources").click()
    gm.get_by_label("Luck points").fill("1")
    gm.get_by_role("button", name="Save corrections").click()

    expect(phone.locator(f"#resources-{table.character.pk}")).to_contain_text("Luck 1")
    expect(listing.locator(f"#resources-{table.character.pk}")).to_contain_text("Luck 1")
    shot(listing, "phone-campaign", full_page=False)
    assert_fits_phone(listing)
    gm.goto(f"/c/{table.campaign.pk}/session/")
    shot(gm, "gm-session")


def test_a_long_name_is_never_cut_in_the_middle_of_a_word(browsers: Browsers) -> None:
    """Chips are as wide as their words: "Investigate" stays whole."""
    table = _in_thread(_table, "sixes")
    phone = _roll_screen(browsers, table)
    chip = phone.locator("#roll-form .trait", has_text="Investigate").first
    lines = chip.evaluate(
        """chip => {
            const range = document.createRange();
            const text = chip.querySelector("span").firstChild;
            range.setStart(text, 0); range.setEnd(text, text.textContent.trim().length);
            return new Set([...range.getClientRects()].map(r => Math.round(r.top))).size;
        }"""
    )
    assert lines == 1


def small_targets(page: Page) -> list[dict[str, object]]:
    """What a thumb can tap that is smaller than 44 x 44 px (a box counts as its label)."""
    return page.evaluate(
        """() => [...document.querySelectorAll("a, button, summary, select, input:not([type=hidden]), label.trait, label.check, .segmented label")]
            .filter(el => el.offsetParent !== null && !el.closest(".visually-hidden"))
            .map(el => {
                const target = el.matches("input[type=radio], input[type=checkbox]") ? (el.closest("label") || el) : el;
                const r = target.getBoundingClientRect();
                return {what: el.outerHTML.slice(0, 80), w: Math.round(r.width), h: Math.round(r.height)};
            })
            .filter(t => t.w > 0 && (t.w < 44 || t.h < 44))"""
    )


@pytest.mark.parametrize("system", SYSTEMS)
def test_every_target_on_the_phone_pages_is_a_thumb_wide(
    system: str, browsers: Browsers, dice: factories.Script
) -> None:
    table = _in_thread(_table, system)
    phone = _roll_screen(browsers, table)
    dice(2, 3, 4, then=2)  # a roll that fails, or leaves sets to bid: it offers follow-ups
    phone.locator("#roll-form .roll-button").click()
    expect(phone.locator("#result .card")).to_be_visible()
    assert small_targets(phone) == []
    phone.goto(f"/c/{table.campaign.pk}/")
    wait_live(phone)
    assert small_targets(phone) == []


def test_a_roll_lands_and_the_sound_is_off_until_the_player_turns_it_on(
    browsers: Browsers, dice: factories.Script
) -> None:
    table = _in_thread(_table, "sixes")
    phone = _roll_screen(browsers, table)
    sound = phone.locator("#sound-toggle")
    expect(sound).to_have_attribute("aria-pressed", "false")

    sound.click()
    expect(sound).to_have_attribute("aria-pressed", "true")
    assert phone.evaluate("localStorage.getItem('tabletop-sound')") == "on"
    phone.reload()
    wait_live(phone)
    expect(sound).to_have_attribute("aria-pressed", "true")

    dice(then=6)
    phone.locator("#roll-form .roll-button").click()
    die = phone.locator("#result .card .die").first
    expect(die).to_be_visible()
    assert die.evaluate("d => getComputedStyle(d).animationName") == "land"


def test_no_dice_tumble_for_someone_who_asked_for_less_motion(
    browsers: Browsers, dice: factories.Script
) -> None:
    table = _in_thread(_table, "sixes")
    phone = _roll_screen(browsers, table)
    phone.emulate_media(reduced_motion="reduce")

    dice(then=6)
    phone.locator("#roll-form .roll-button").click()
    die = phone.locator("#result .card.landing .die").first
    expect(die).to_be_visible()
    assert die.evaluate("d => getComputedStyle(d).animationName") == "none"


def test_a_refused_follow_up_shows_in_its_own_form_on_the_card(
    browsers: Browsers, dice: factories.Script
) -> None:
    table = _in_thread(_table, "sets")
    phone = _roll_screen(browsers, table)
    dice(5, 5, 2, 1)
    phone.locator("#roll-form .roll-button").click()
    card = phone.locator("#result .card")
    card.get_by_text("Pick the dice yourself").click()
    picker = card.locator(".follow-up-bid")
    picker.locator("input[name=dice][value='0']").check()  # one five alone: no set

    picker.get_by_role("button", name="Bid a set").click()

    said = picker.locator("[data-refusal]")
    expect(said.get_by_role("alert")).to_contain_text("A set needs two or more matching dice")
    said_box = box_in_view(phone, "#result .follow-up-bid [data-refusal]")
    # Not under the Roll bar that stays at the bottom of the screen either.
    bar = phone.locator(".roll-bar").bounding_box()
    assert bar is not None and said_box["y"] + said_box["height"] <= bar["y"] + 1, (said_box, bar)
    expect(phone.locator("#roll-form [data-refusal]")).to_be_empty()


def test_the_roll_screen_on_a_big_screen(browsers: Browsers, shot: Shot) -> None:
    """The same page on a laptop: the bar spans its panel, nothing sticks out."""
    table = _in_thread(_table, "doubles")
    page = browsers.gm()
    page.set_viewport_size({"width": 1920, "height": 1080})
    _sign_in(page, table.player, browsers.base_url)
    page.goto(table.character.get_absolute_url())
    wait_live(page)
    expect(page.locator("#odds .odds-chance")).to_be_visible()
    shot(page, "desk-doubles-roll", full_page=False)
    bar = page.locator(".roll-bar").bounding_box()
    panel = page.locator(".roll-panel").bounding_box()
    assert bar is not None and panel is not None
    assert abs(bar["x"] - panel["x"]) <= 2 and abs(bar["width"] - panel["width"]) <= 3, (bar, panel)
