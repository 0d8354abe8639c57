"""The rules engine: one module per dice system, all implementing ``base.DiceSystem``.

Pure Python with no Django import (a test enforces it), so it runs in tests without a
database, in the ``roll``/``odds`` management commands, and anywhere else. Each module
exposes one instance, ``system``; ``rolls.registry`` puts it at the table with its adapter.
"""

from __future__ import annotations

from .base import DiceSystem, RulesError

__all__ = ["DiceSystem", "RulesError"]
