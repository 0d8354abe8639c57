"""How a card draws its dice: one element per die with its face, pips and state, and the
die's caption escaped."""

from __future__ import annotations

from django.template import engines

from rolls.systems.base import Die


def draw(*dice: Die) -> str:
    return engines["django"].from_string("{% load dice %}{% dice dice %}").render({"dice": dice})


def test_a_die_shows_its_face_its_pips_and_whether_it_counts() -> None:
    """Without a system named, a die that counts is said to count (each system has its word)."""
    assert draw(Die(6, hit=True), Die(1)) == (
        '<span class="die d6 hit" role="img" aria-label="6, counts" data-face="6">'
        + "<i></i>" * 6
        + "</span>"
        '<span class="die d1" role="img" aria-label="1" data-face="1"><i></i></span>'
    )


def test_a_new_dropped_die_with_a_caption() -> None:
    assert draw(Die(3, new=True, dropped=True, label="d3: <2>")) == (
        '<span class="die d3 new dropped" role="img" aria-label="3, not kept" data-face="3">'
        "<i></i><i></i><i></i></span>"
        '<small class="die-label">d3: &lt;2&gt;</small>'
    )


def test_no_dice_draw_nothing() -> None:
    assert draw() == ""


def test_a_follow_ups_choices_become_escaped_options() -> None:
    html = (
        engines["django"]
        .from_string("{% load dice %}{{ choices|options }}")
        .render({"choices": ("Upset", "<b>")})
    )
    assert html == '<option value="Upset">Upset</option><option value="&lt;b&gt;">&lt;b&gt;</option>'
