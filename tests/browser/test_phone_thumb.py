"""Issue 42, "the phone keeps a player's thumb safe", at 360 x 740 in each system: after a
result, Roll is where it was and in view with the result; "Roll blind" is never under the
thumb; the choices that were the last roll's own start afresh; a stray tap is taken back."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests import factories
from tests.browser.conftest import Browsers, Shot
from tests.browser.flows import assert_fits_phone, wait_live
from tests.browser.test_phone import HEIGHT, RESULT_DICE, SYSTEMS, _in_thread, _roll_screen, _table

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Room a thumb needs around a button (a finger's pad is about 10 mm, ~40 CSS px).
THUMB = 40


def _box(page: Page, selector: str) -> dict[str, float]:
    box = page.locator(selector).first.bounding_box()
    assert box is not None, selector
    return box


def _in_view(box: dict[str, float]) -> bool:
    return box["y"] >= -2 and box["y"] + box["height"] <= HEIGHT + 0.5


def _near(a: dict[str, float], b: dict[str, float], margin: float) -> bool:
    """Whether box ``a`` comes within ``margin`` px of box ``b``."""
    return not (
        a["x"] + a["width"] + margin <= b["x"]
        or b["x"] + b["width"] + margin <= a["x"]
        or a["y"] + a["height"] + margin <= b["y"]
        or b["y"] + b["height"] + margin <= a["y"]
    )


def _tappable_near(page: Page, selector: str, target: dict[str, float], margin: float) -> bool:
    """Whether a tap could reach ``selector`` within ``margin`` px of ``target``: it comes that
    near and is not covered there (by the Roll bar, say) at its middle."""
    box = _box(page, selector)
    if not _near(box, target, margin):
        return False
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    if not 0 <= y <= HEIGHT:
        return False
    return bool(
        page.evaluate(
            "([s, x, y]) => document.querySelector(s).contains(document.elementFromPoint(x, y))",
            [selector, x, y],
        )
    )


BLIND = "#roll-form label:has(input[name=blind])"
ROLL = "#roll-form .roll-button"


@pytest.mark.parametrize("system", SYSTEMS)
def test_after_a_result_roll_is_where_it_was_in_view_with_the_result_and_roll_blind_far_from_it(
    system: str, browsers: Browsers, shot: Shot, dice: factories.Script
) -> None:
    table = _in_thread(_table, system)
    phone = _roll_screen(browsers, table)
    expect(phone.locator("#odds .odds-chance")).to_be_visible()
    before = _box(phone, ROLL)
    assert _in_view(before), before
    assert not _tappable_near(phone, BLIND, before, THUMB)

    dice(*RESULT_DICE[system], then=3)
    phone.locator(ROLL).click()
    card = phone.locator("#result .card")
    expect(card).to_be_visible()
    phone.wait_for_timeout(700)  # the smooth scroll to the result
    shot(phone, f"thumb-{system}-result", full_page=False)

    after = _box(phone, ROLL)
    assert _in_view(after), after
    assert abs(after["y"] - before["y"]) < 1, (before, after)  # Roll did not move
    top = card.bounding_box()
    assert top is not None and -2 <= top["y"] < HEIGHT / 2, top
    # The verdict of the result is on the screen too, above the Roll bar.
    verdict = card.locator(".verdict").bounding_box()
    bar = _box(phone, "#roll-form .roll-bar")
    assert verdict is not None and verdict["y"] + verdict["height"] <= bar["y"], (verdict, bar)
    # Nothing but Roll under the thumb where Roll was, and "Roll blind" nowhere near it.
    x, y = before["x"] + before["width"] / 2, before["y"] + before["height"] / 2
    assert phone.evaluate("([x, y]) => !!document.elementFromPoint(x, y).closest('.roll-button')", [x, y])
    assert not _tappable_near(phone, BLIND, after, THUMB)
    assert_fits_phone(phone)


# The choices that belong to one roll in each system: (field, the value a tap picks, the value
# the form starts with), in the order they are tapped; and the character's standing choice
# (its field), which stays.
PER_ROLL = {
    "sixes": [("need", "2", "1")],
    "kinds": [("net", "1", "0")],
    "doubles": [("dn", "opposed", "4")],
    "sets": [("bar", "opposed", "2"), ("side", "defender", "attacker")],
    "stars": [("advantage", "advantage", "none")],
}
STANDING = {"sixes": "trait", "kinds": "trait", "doubles": "abilities", "sets": "stat", "stars": "stat"}
ANOTHER_TRAIT = {"sixes": "Sneak", "kinds": "Drive", "sets": "Finesse", "stars": "Agility"}


def _value(page: Page, name: str) -> list[str]:
    return page.locator(
        f"#roll-form input[name={name}]:checked, #roll-form select[name={name}]"
    ).evaluate_all("els => els.map(e => e.value)")


def _choose(page: Page, name: str, value: str) -> None:
    select = page.locator(f"#roll-form select[name={name}]")
    if select.count():
        select.select_option(value)
    else:
        page.locator(f"#roll-form label:has(input[name={name}][value='{value}'])").click()


@pytest.mark.parametrize("system", SYSTEMS)
def test_after_a_roll_its_own_choices_start_afresh_and_the_characters_stay(
    system: str, browsers: Browsers, dice: factories.Script
) -> None:
    """Issue 42: the need, the advantage, the side "against" and rolling blind were carried into
    the next roll. They reset after a roll; the trait (or stat, skill, abilities) stays."""
    table = _in_thread(_table, system)
    phone = _roll_screen(browsers, table)
    standing = STANDING[system]
    if system in ANOTHER_TRAIT:
        phone.locator("#roll-form .trait", has_text=ANOTHER_TRAIT[system]).first.click()
    else:
        phone.locator(f"#roll-form label:has(input[name={standing}])").last.click()
    kept = _value(phone, standing)
    assert kept
    for name, picked, _ in PER_ROLL[system]:
        _choose(phone, name, picked)
        assert _value(phone, name) == [picked]
    phone.locator(BLIND).click()
    phone.locator("#roll-form input[name=intent]").fill("Climb the fence")

    dice(*RESULT_DICE[system], then=3)
    phone.locator(ROLL).click()
    expect(phone.locator("#result .card")).to_be_visible()

    for name, _, start in PER_ROLL[system]:
        assert _value(phone, name) == [start], name
    expect(phone.locator("#roll-form input[name=blind]")).not_to_be_checked()
    expect(phone.locator("#roll-form input[name=intent]")).to_have_value("")
    assert _value(phone, standing) == kept


def test_a_stray_tap_is_taken_back_and_the_roll_before_it_may_be_pushed_again_SIX_7(
    browsers: Browsers, shot: Shot, dice: factories.Script
) -> None:
    """The roller takes back a stray second roll within its window: the GM's console and the TV
    strike it through, and the roll before it is the kid's newest again, its push back."""
    from django.urls import reverse

    from tests.browser.test_phone import _sign_in

    table = _in_thread(_table, "sixes")
    gm = browsers.gm()
    _sign_in(gm, table.gm, browsers.base_url)
    gm.goto(reverse("rolls:session", args=[table.campaign.pk]))
    tv = browsers.display()
    tv.goto(reverse("rolls:display", args=[table.campaign.display_token]))
    phone = _roll_screen(browsers, table)
    wait_live(gm)
    wait_live(tv)

    dice(1, 2, 3, then=2)
    phone.locator(ROLL).click()
    first = phone.locator("#result .card")
    expect(first.locator(".follow-up-push button")).to_be_visible()
    first_id = first.get_attribute("data-roll")
    dice(4, 5, 2, then=2)
    phone.locator(ROLL).click()
    stray = phone.locator("#result .card")
    expect(stray).not_to_have_attribute("data-roll", first_id or "")
    stray_id = stray.get_attribute("data-roll")
    take_back = phone.get_by_role("button", name="Take back this roll")
    expect(take_back).to_be_visible()
    shot(phone, "thumb-take-back-offered", full_page=False)

    take_back.click()

    expect(phone.locator("#result .taken-back")).to_contain_text("Taken back")
    again = phone.locator(f"#result-roll-{first_id}")
    expect(again.locator(".follow-up-push button")).to_be_visible()
    shot(phone, "thumb-take-back-done", full_page=False)
    for screen in (gm, tv):
        expect(screen.locator(f"[id$='-roll-{stray_id}'].voided").first).to_be_visible()
    # The push goes on the roll before it.
    again.get_by_label("Condition to check").select_option("Scared")
    again.get_by_label("What does the kid do to push themself?").fill("Olle runs faster")
    again.locator(".follow-up-push button").click()
    expect(phone.locator(f"#result-roll-{first_id}")).to_contain_text("Pushed")
