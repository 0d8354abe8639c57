"""A table in each shipped language (issue 45): the phone rolls and pushes, and the phone and the
TV both read the card in the table's language, the outcome, the step and the buttons' words
included, with the page's `lang` set. The words expected are the catalogue's, read through
Django's translation of the same messages the pages draw, so the test names no translation
of its own."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.urls import reverse
from django.utils import translation
from django.utils.translation import pgettext
from playwright.sync_api import expect

from rolls import registry
from rolls.models import Roll
from tabletop.models import Campaign
from tests import factories
from tests.browser.conftest import Browsers, Shot
from tests.browser.flows import in_thread, sign_in, wait_live
from tests.factories import Script

SHIPPED = [code for code, _ in settings.LANGUAGES if code != "en"]


def headline(roll_id: int, language: str) -> str:
    """The card's outcome for the roll's newest state, as the engine words it in ``language``."""
    roll = Roll.objects.get(pk=roll_id)
    with translation.override(language):
        return registry.engine(roll.system).evaluate(roll.current_state()).headline


@pytest.mark.browser
@pytest.mark.parametrize("language", SHIPPED)
def test_a_roll_and_a_push_read_in_the_tables_language_on_the_phone_and_the_tv(
    browsers: Browsers, dice: Script, shot: Shot, language: str
) -> None:
    table = in_thread(lambda: factories.table("sixes"))
    in_thread(lambda: Campaign.objects.filter(pk=table.campaign.pk).update(language=language))
    display = in_thread(lambda: Campaign.objects.get(pk=table.campaign.pk).display_token)
    with translation.override(language):
        roll_label = pgettext("button", "Roll")

    tv = browsers.display()
    tv.goto(reverse("rolls:display", args=[display]))
    wait_live(tv)
    phone = browsers.phone()
    sign_in(phone, table.player, browsers.base_url)
    phone.goto(table.character.get_absolute_url())
    wait_live(phone)
    for page in (phone, tv):
        expect(page.locator("html")).to_have_attribute("lang", language)

    button = phone.locator("#roll-form .roll-button")
    expect(button).to_have_text(roll_label)
    assert roll_label != "Roll"
    dice(2, then=2)  # every die a failure
    button.click()
    card = phone.locator("#result .card")
    expect(card).to_be_visible()
    rolled = int(card.get_attribute("data-roll") or 0)
    failed = in_thread(lambda: headline(rolled, language))
    expect(card).to_contain_text(failed)
    on_tv = tv.locator(f"#feed > .card[data-roll='{rolled}']")
    expect(on_tv).to_contain_text(failed)

    # The push, from the card's own form: its Condition and what the kid does.
    push = card.locator("form.follow-up:has(input[name=action][value=push])")
    push_words = push.get_by_role("button").first.inner_text().strip()
    assert push_words and not push_words.startswith("Push")
    for text in push.locator("input[type=text]").all():
        text.fill("Olle")
    for choice in push.locator("select").all():
        choice.select_option(index=1)
    steps = card.locator(".step").count()
    dice(6, then=6)  # the push rerolls them to sixes
    push.get_by_role("button").first.click()
    expect(card.locator(".step")).to_have_count(steps + 1)
    pushed = in_thread(lambda: headline(rolled, language))
    assert pushed != failed
    for place in (card, on_tv):
        expect(place).to_contain_text(pushed)
    shot(phone, f"language-{language}-phone", full_page=False)
    shot(tv, f"language-{language}-tv", full_page=False)
