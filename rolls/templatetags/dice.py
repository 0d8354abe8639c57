"""Template helpers for drawing dice and chances."""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction

from django import template
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe

from rolls.systems.base import Die, percent

register = template.Library()


@register.filter
def pips(face: int) -> range:
    """One pip per point of the face, for the CSS that lays them out."""
    return range(int(face)) if 1 <= int(face) <= 6 else range(0)


@register.filter
def pip_marks(face: int) -> SafeString:
    """The pips of a face as the CSS lays them out: one ``<i>`` each."""
    return mark_safe("<i></i>" * len(pips(face)))  # constant markup, nothing from the user


@register.simple_tag
def dice(dice: Iterable[Die]) -> SafeString:
    """A step's dice. Drawn here rather than by a template included once per die: the include
    cost more than the rest of a card (bench/load.py, profiled)."""
    return format_html_join("", "{}", ((_die(die),) for die in dice))


def _die(die: Die) -> SafeString:
    classes = "".join(
        name for name, on in ((" hit", die.hit), (" new", die.new), (" dropped", die.dropped)) if on
    )
    label = f"{die.face}{', success' if die.hit else ''}{', not kept' if die.dropped else ''}"
    html = format_html(
        '<span class="die d{}{}" role="img" aria-label="{}" data-face="{}">{}</span>',
        die.face,
        classes,
        label,
        die.face,
        pip_marks(die.face),
    )
    if die.label:
        html += format_html('<small class="die-label">{}</small>', die.label)
    return html


@register.filter
def pct(chance: Fraction | None) -> str:
    return percent(chance)


@register.filter
def at(items: list[int], index: str | int) -> int | str:
    """``items[index]`` for a die picker: the face of the die a choice names."""
    try:
        return items[int(index)]
    except (ValueError, IndexError, TypeError):
        return ""
