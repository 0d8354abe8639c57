"""Template helpers for the `stars` sheet: what a template cannot compute by itself."""

from __future__ import annotations

from typing import Any

from django import template

from rolls.systems import stars

register = template.Library()


@register.filter
def luck_max(character: Any) -> int:
    """STR-12: the character's Luck maximum (3, raised by Charmed Life)."""
    return stars.luck_max(character.sheet.get("edges", {}))


@register.filter
def rating_word(rating: int) -> str:
    """STR-13: 3 -> "Good"."""
    return stars.RATINGS.get(rating, "")


@register.filter
def difficulty(training: str) -> int | str:
    """STR-6: the difficulty a training gives."""
    return stars.TRAINING_DIFFICULTY.get(training, "")
