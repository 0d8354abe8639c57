"""Recomputing the app's dice from a JSON export (``rolls.history.export``): what ``manage.py
verify_dice`` runs, and what ``docs/verify.md`` shows in a few lines of plain Python.

Everything is read from the log's own entries, which the hash chain covers: a play session's
seed hash from its start event and its seed from its end event, a secret or blind roll's seed
hash from its roll entry and its seed from the GM's reveal. For each entry that drew dice from
a revealed seed, three things must hold:

1. the seed's SHA-256 is the hash the log showed before that entry;
2. the faces the entry says it drew (``dice.drawn``) are the ones ``rolls.log.fairdice`` gives for
   the seed, the entry's sequence number and its client value;
3. those are the faces its step put on the card (the engine's ``DiceSystem.drawn``).

An entry whose seed is not revealed yet is counted as not checkable yet, not as a failure.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from rolls import registry
from rolls.log import fairdice
from rolls.log.randomness import ROLL_SEED


@dataclass
class Seal:
    commit: str | None = None
    commit_seq: int | None = None
    seed: str | None = None


@dataclass
class DiceReport:
    dice: int = 0
    entries: int = 0
    failure: str | None = None  # the first entry whose dice do not match, in words
    failed_seq: int | None = None
    waiting: Counter[str] = field(default_factory=Counter)  # seeds not revealed: entries each
    # Seeds whose hash only an entry withheld from this file announced: entries each.
    announced_unseen: Counter[str] = field(default_factory=Counter)
    unseeded: int = 0  # entries of the app's dice drawn without a seed (before seeds, scripted)
    withheld: int = 0

    @property
    def ok(self) -> bool:
        return self.failure is None

    def lines(self) -> list[str]:
        if self.failure is not None:
            return [self.failure]
        dice = ngettext("%(count)s die", "%(count)s dice", self.dice) % {"count": self.dice}
        entries = ngettext("%(count)s entry", "%(count)s entries", self.entries) % {"count": self.entries}
        said = [
            _("Checked %(dice)s in %(entries)s: each is the die its revealed seed gives.")
            % {"dice": dice, "entries": entries}
        ]
        for seed, count in sorted(self.waiting.items()):
            said.append(
                _("Not checkable yet: %(seed)s's seed is not revealed (%(count)s with dice).")
                % {"seed": seed, "count": count}
            )
        for seed, count in sorted(self.announced_unseen.items()):
            said.append(
                _(
                    "Not checkable from this file: %(seed)s's seed was announced in an entry withheld "
                    "from it (%(count)s with dice)."
                )
                % {"seed": seed, "count": count}
            )
        if self.unseeded:
            said.append(
                ngettext(
                    "%(count)s entry drew dice without a seed: it cannot be checked.",
                    "%(count)s entries drew dice without a seed: they cannot be checked.",
                    self.unseeded,
                )
                % {"count": self.unseeded}
            )
        if self.withheld:
            said.append(
                ngettext(
                    "%(count)s entry is withheld from this export (a secret roll).",
                    "%(count)s entries are withheld from this export (secret rolls).",
                    self.withheld,
                )
                % {"count": self.withheld}
            )
        return said


def check_export(data: dict[str, Any]) -> DiceReport:
    """Check every die of an export whose seed is revealed; stops at the first that fails."""
    entries = [entry for entry in data["entries"] if "withheld" not in entry]
    report = DiceReport(withheld=len(data["entries"]) - len(entries))
    # Each roll's session as the log says it (the file's list of rolls could say another).
    session_of = {roll["id"]: roll["session"] for roll in data["rolls"]} | sessions_of(data["entries"])
    by_hand = {roll["id"] for roll in data["rolls"] if roll.get("by_hand")}
    sessions, rolls = _seals(entries)
    for entry in entries:
        dice = entry.get("dice")
        if entry["kind"] == "event" or entry["roll"] is None:
            continue
        if not dice:
            drew = entry["roll"] not in by_hand and entry["state"] and _faces(entry)
            report.unseeded += 1 if drew else 0
            continue
        if dice["seed"] == ROLL_SEED:
            seal, name = rolls.get(entry["roll"], Seal()), _("roll %(id)s") % {"id": entry["roll"]}
        else:
            number = session_of.get(entry["roll"])
            seal, name = sessions.get(number, Seal()), _("session %(number)s") % {"number": number}
        if seal.seed is None:
            report.waiting[name] += 1
            continue
        if seal.commit_seq is None and report.withheld:
            # Announced by a hidden roll this export withholds: not checkable from this file.
            report.announced_unseen[name] += 1
            continue
        wrong = _wrong(entry, dice, seal)
        if wrong:
            report.failure = _("Entry %(seq)s does not match: %(reason)s.") % {
                "seq": entry["seq"],
                "reason": wrong,
            }
            report.failed_seq = entry["seq"]
            return report
        report.dice += len(dice["drawn"])
        report.entries += 1
    return report


def sessions_of(entries: list[dict[str, Any]]) -> dict[Any, Any]:
    """Each roll's play session, read from the log: the session whose start (with its seal)
    came last before the roll's first entry. Rolls written before sessions had seals, or
    whose first entry this file withholds, are not in it."""
    found: dict[Any, Any] = {}
    current = None
    for entry in entries:
        if "withheld" in entry:
            continue
        dice = entry.get("dice") or {}
        if entry["kind"] == "event" and "session" in dice and "commit" in dice:
            current = dice["session"]
        elif entry["kind"] == "roll" and entry["roll"] is not None and current is not None:
            found.setdefault(entry["roll"], current)
    return found


def _seals(entries: list[dict[str, Any]]) -> tuple[dict[Any, Seal], dict[Any, Seal]]:
    """Each session's and each secret roll's seed hash and seed, as the log wrote them. A
    session's hash is in its start event; a hidden roll's own seed was announced (``next_hidden``)
    by the session's start or by the hidden roll before it, and its entry names the hash again."""
    sessions: dict[Any, Seal] = {}
    rolls: dict[Any, Seal] = {}
    announced: dict[str, int] = {}
    for entry in entries:
        dice = entry.get("dice") or {}
        if "next_hidden" in dice:
            announced.setdefault(dice["next_hidden"], entry["seq"])
        if entry["kind"] == "event" and "session" in dice:
            seal = sessions.setdefault(dice["session"], Seal())
            if "commit" in dice and seal.commit is None:
                seal.commit, seal.commit_seq = dice["commit"], entry["seq"]
        elif entry["kind"] == "event" and "roll" in dice:
            seal = rolls.setdefault(dice["roll"], Seal())
        elif "commit" in dice:
            seal = rolls.setdefault(entry["roll"], Seal())
            if seal.commit is None:
                seal.commit, seal.commit_seq = dice["commit"], announced.get(dice["commit"])
        else:
            continue
        if "seed" in dice and entry["kind"] == "event":
            seal.seed = dice["seed"]
    return sessions, rolls


def _wrong(entry: dict[str, Any], dice: dict[str, Any], seal: Seal) -> str:
    """Why this entry's dice are not the seed's, or ""."""
    try:
        seed = bytes.fromhex(seal.seed or "")
    except ValueError:
        return _("its revealed seed is not hexadecimal")
    if seal.commit is None or seal.commit_seq is None or seal.commit_seq >= entry["seq"]:
        return _("no hash of its seed was shown before it")
    if hashlib.sha256(seed).hexdigest() != seal.commit:
        return _("the revealed seed is not the one whose hash was shown")
    drawn = list(dice["drawn"])
    expected = fairdice.draws(seed, entry["seq"], str(dice["client"]), len(drawn))
    if drawn != expected:
        return _("it drew %(drawn)s, the seed gives %(expected)s") % {"drawn": drawn, "expected": expected}
    shown = _faces(entry)
    if shown != drawn:
        return _("its dice show %(shown)s, but it drew %(drawn)s") % {"shown": shown, "drawn": drawn}
    return ""


def _faces(entry: dict[str, Any]) -> list[int]:
    """The faces the entry's newest step put on the card, as its engine reads them."""
    state = entry["state"]
    return registry.engine(state["system"]).drawn(state["steps"][-1])
