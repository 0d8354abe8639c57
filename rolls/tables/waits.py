"""What can keep a roll waiting on the GM's panel, as each table adapter declares it
(``TableAdapter.gm_waits``). It stands below the adapters so that they declare it without
importing the audience rule (``rolls.sight.audience``), which reads it."""

from __future__ import annotations

from enum import Flag, auto


class Waits(Flag):
    """What can keep a roll waiting on the GM's panel in a dice system (each table adapter
    declares its own, ``TableAdapter.gm_waits``), and so which entries can change that panel.
    The panel lists the session's latest rolls (``rolls.sight.panels.PANEL_ROLLS``) that the GM has
    something to do on; a system whose rolls never wait there never redraws it. ``AGAINST``
    also keeps a roll on the panel of the player it is made against (they answer it): without
    it, that panel is never drawn or redrawn either."""

    NOTHING = 0
    NPC = auto()  # the GM's own rolls keep follow-ups that need no sheet (sets: bids, criticals)
    AGAINST = auto()  # a roll made against a character offers the GM its answers (stars: Luck against)
    BLIND = auto()  # a player's blind roll settles from its own dice, by the GM (sets: a bid)
    # A player's follow-up asks the GM to decide (doubles: a miracle); a new roll never waits for
    # a decision, nothing having asked for one yet (a test checks doubles' first states).
    DECISIONS = auto()
    # What waits reads a sheet (the Endurance a miracle costs, the Luck to answer with): any
    # follow-up may have spent from it, and the GM's events that change sheets change it.
    SHEETS = auto()


# A system that declares nothing: every entry may change the panel.
ALL_WAITS = Waits.NPC | Waits.AGAINST | Waits.BLIND | Waits.DECISIONS | Waits.SHEETS
