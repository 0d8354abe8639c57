"""Table adapters: what each dice system needs from a character sheet.

The rules engine (``rolls.systems``) knows dice; an adapter knows the sheet. It builds the
engine's request from the sheet and the roll form, tells the engine what the character has
(``resources``) and spends what a follow-up costs. One module per system at the table.
"""

from __future__ import annotations

from importlib import import_module
from types import ModuleType

from rolls.systems import RulesError
from tabletop.sheets import AT_THE_TABLE


def adapter_for(slug: str) -> ModuleType:
    if slug not in AT_THE_TABLE:
        raise RulesError(
            "This dice system is not at the table yet: its rules and odds are on the rules page."
        )
    return import_module(f"{__name__}.{slug}")
