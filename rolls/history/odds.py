"""The exact odds of one step of a roll's chain, as its page and its Discord post show them."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from rolls import registry
from rolls.models import LogEntry, Roll
from rolls.systems.base import percent


def odds_text(before: Fraction | None, after: Fraction | None) -> str:
    """ "42% -> 67%", "42%", or ""."""
    if after is None:
        return "" if before is None else percent(before)
    if before is None or before == after:
        return percent(after)
    return f"{percent(before)} -> {percent(after)}"


def step_odds(roll: Roll, entry: LogEntry, previous: dict[str, Any] | None) -> str:
    """The engine's exact odds at ``entry``: the chance of a fresh roll of the request for the
    roll itself; for a follow-up, the chances the engine gives it from the state before it
    (``previous``: ``FollowUp.chance_before``/``chance_after``), as it would offer it now with
    what the paying character has now; "" when it would not offer it now."""
    system = registry.engine(roll.system)
    state = entry.state or previous or {}
    if entry.kind == LogEntry.Kind.ROLL:
        try:
            return odds_text(None, system.chance(system.parse_request(state["request"])))
        except (ValueError, KeyError, TypeError):  # a rules error is a ValueError
            return ""
    if entry.kind != LogEntry.Kind.FOLLOW_UP or previous is None:
        return ""
    adapter = registry.table(roll.system)
    payer = roll.target if entry.action in system.target_actions else roll.character
    resources = adapter.resources(payer, latest=True) if payer is not None else {}
    offered = {f.action: f for f in system.follow_ups(previous, resources)}
    if entry.action not in offered:
        return ""
    follow_up = offered[entry.action]
    after = follow_up.chance_after
    if after is None and entry.state:
        # A choice with a figure of its own (doubles' drama dice, per count).
        after = system.chance_after_step(previous, entry.state, follow_up)
    return odds_text(follow_up.chance_before, after)
