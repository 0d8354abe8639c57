"""Template helpers for drawing dice, chances and a follow-up's choices."""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction

from django import template
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from rolls.systems.base import Die, Param, percent

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
    return mark_safe("".join(_die(die) for die in dice))  # each part escaped in _die


def _die(die: Die) -> str:
    # Plain formatting, not format_html: that passes every argument through Django's escaping
    # (a third of a card's render, profiled). The face is an int and the classes and label are
    # built from constants; the caption is the one text, and it is escaped.
    face = int(die.face)
    classes = "".join(
        name for name, on in ((" hit", die.hit), (" new", die.new), (" dropped", die.dropped)) if on
    )
    label = f"{face}{', success' if die.hit else ''}{', not kept' if die.dropped else ''}"
    html = (
        f'<span class="die d{face}{classes}" role="img" aria-label="{label}" data-face="{face}">'
        f"{pip_marks(face)}</span>"
    )
    if die.label:
        html += f'<small class="die-label">{escape(die.label)}</small>'
    return html


@register.filter
def options(choices: Iterable[str]) -> SafeString:
    """A select's options, each choice its own value and text: one filter instead of a loop
    of two variables per option (a push's five Conditions were a tenth of a result card)."""
    return mark_safe("".join(f'<option value="{escape(c)}">{escape(c)}</option>' for c in choices))


@register.filter
def param_options(param: Param) -> SafeString:
    """A follow-up choice's options: an empty first option when nothing may be chosen for
    the player (``Param.prompt``), and each choice's own text when it says more than its
    value (``Param.labels``: a drama die count with its odds)."""
    html = f'<option value="">{escape(param.prompt)}</option>' if param.prompt else ""
    if not param.labels:
        return mark_safe(html + options(param.choices))
    pairs = zip(param.choices, param.labels, strict=True)
    return mark_safe(html + "".join(f'<option value="{escape(c)}">{escape(t)}</option>' for c, t in pairs))


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
