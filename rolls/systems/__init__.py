"""The rules engine: one module per dice system, all implementing ``base.DiceSystem``.

Pure Python with no Django import (a test enforces it), so it runs in tests without a
database, in the ``roll``/``odds`` management commands, and anywhere else.

The registry maps the slug stored on a campaign to its system. Adding a sixth system means
adding its module and its slug to ``SLUGS``.
"""

from __future__ import annotations

from functools import cache
from importlib import import_module

from .base import DiceSystem, RulesError

__all__ = ["SLUGS", "DiceSystem", "RulesError", "all_systems", "get_system"]

# In the order the campaign form lists them.
SLUGS: tuple[str, ...] = ("sixes", "kinds", "doubles", "sets", "stars")


@cache
def get_system(slug: str) -> DiceSystem:
    """The system for a slug; modules load on first use so one module imports alone."""
    if slug not in SLUGS:
        raise RulesError(f"Unknown dice system {slug!r}; choose one of {', '.join(SLUGS)}.")
    system: DiceSystem = import_module(f"{__name__}.{slug}").system
    return system


def all_systems() -> list[DiceSystem]:
    return [get_system(slug) for slug in SLUGS]
