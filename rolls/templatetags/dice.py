"""Template helpers for drawing dice and chances."""

from __future__ import annotations

from fractions import Fraction

from django import template

from rolls.systems.base import percent

register = template.Library()


@register.filter
def pips(face: int) -> range:
    """One pip per point of the face, for the CSS that lays them out."""
    return range(int(face)) if 1 <= int(face) <= 6 else range(0)


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
