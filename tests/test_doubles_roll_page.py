"""A doubles roll's page (issue 43): each drama-dice step shows the exact chance of success it
bought, from the roll as it stood, as the picker offers it now (DBL-10)."""

from __future__ import annotations

import html
import itertools
from fractions import Fraction

from django.urls import reverse

from rolls.models import Roll
from rolls.systems.base import percent
from tests import factories
from tests.factories import Script, logged_in
from tests.test_table_doubles import doubles_sheet

HX = {"HTTP_HX_REQUEST": "true"}


def beats_six_with(dice: tuple[int, ...], more: int) -> Fraction:
    """DBL-4, DBL-5, DBL-7 by brute force: the chance that ``dice`` and ``more`` new dice beat
    Challenging (6): the best die, or the best group of matching dice added (ones never add)."""

    def result(faces: tuple[int, ...]) -> int:
        return max(face if face == 1 else face * faces.count(face) for face in faces)

    rolls = list(itertools.product(range(1, 7), repeat=more))
    return Fraction(sum(result(dice + extra) > 6 for extra in rolls), len(rolls))


def test_dbl_10_a_drama_step_shows_the_exact_chance_it_bought(db: None, dice: Script) -> None:
    table = factories.table("doubles", character_name="Mara", sheet=doubles_sheet())
    campaign, mara = table.campaign.pk, table.character.pk
    player = logged_in(table.player)
    dice(2, 3)  # two dice: a 3 does not beat Challenging (6)
    made = player.post(reverse("rolls:roll-create", args=[campaign, mara]), {"dn": "6"}, **HX)
    assert made.status_code == 200
    roll = Roll.objects.get()
    dice(1, 4)
    bought = player.post(
        reverse("rolls:follow-up", args=[campaign, roll.pk]), {"action": "drama", "count": "2"}, **HX
    )
    assert bought.status_code == 200, bought.content
    text = html.unescape(player.get(reverse("rolls:roll", args=[campaign, roll.pk])).content.decode())
    chance = beats_six_with((2, 3), 2)
    assert chance == Fraction(4, 36)  # (4,4), (5,5), (6,6), and (3,3) makes three threes: 9
    drama_step = text.split('class="step-drama"')[1].split("</li>")[0]
    assert f"Chance of success: {percent(Fraction(0))} -> {percent(chance)}" in drama_step


PROMPT = "Amazing Success: Mara gets more than they aimed for. Say what else goes right"


def test_dbl_8_an_amazing_success_card_asks_how_the_scene_changes(db: None, dice: Script) -> None:
    """DBL-8: the card of an Amazing Success (three fives: 15) asks the table how the scene
    shifts, on the phone, in the feed and on the TV; an ordinary success asks nothing."""
    table = factories.table("doubles", character_name="Mara", sheet=doubles_sheet())
    campaign, mara = table.campaign.pk, table.character.pk
    player = logged_in(table.player)
    dice(6, 2)  # two dice: 6 beats Moderate (4), nothing amazing
    plain = player.post(reverse("rolls:roll-create", args=[campaign, mara]), {"dn": "4"}, **HX)
    assert plain.status_code == 200 and "scene-prompt" not in plain.content.decode()
    dice(5, 5, 5, 2)
    amazing = player.post(
        reverse("rolls:roll-create", args=[campaign, mara]), {"dn": "4", "bonus": "2"}, **HX
    )
    assert PROMPT in html.unescape(amazing.content.decode())
    feed = html.unescape(logged_in(table.gm).get(reverse("rolls:campaign", args=[campaign])).content.decode())
    assert feed.count(PROMPT) >= 1
    display = logged_in(table.gm).get(reverse("rolls:display", args=[table.campaign.display_token]))
    assert PROMPT in html.unescape(display.content.decode())


def test_dbl_8_a_blind_amazing_roll_keeps_its_prompt_from_the_player(db: None, dice: Script) -> None:
    """DBL-8: the prompt is part of the result, so a blind roll's player does not see it."""
    table = factories.table("doubles", character_name="Mara", sheet=doubles_sheet())
    campaign, mara = table.campaign.pk, table.character.pk
    dice(5, 5, 5, 2)
    sent = {"dn": "4", "bonus": "2", "blind": "on"}
    answer = logged_in(table.player).post(reverse("rolls:roll-create", args=[campaign, mara]), sent, **HX)
    assert answer.status_code == 200 and "Amazing Success" not in answer.content.decode()
    gm_page = logged_in(table.gm).get(reverse("rolls:campaign", args=[campaign]))
    assert PROMPT in html.unescape(gm_page.content.decode())
