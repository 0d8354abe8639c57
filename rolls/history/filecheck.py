"""One check of an export file (``rolls.history.export``'s JSON): what ``manage.py verify_log
FILE`` and ``manage.py verify_dice FILE`` both run.

1. Every die whose seed is revealed (``rolls.history.dicecheck``), each roll's session read from
   the log itself, not from the file's list of rolls.
2. The file's hash chain, entry by entry (``rolls.log.chain``), from the hash it starts after
   to the head it ends with: an entry changed, deleted, moved or replaced by a "withheld" stub
   breaks it. A GM's export withholds nothing, so a stub in one is a replaced entry.
3. What the file's list of rolls says of each roll against what its log says: the facts a
   version 2 roll entry holds (``about``), and for every roll its session.

A dice check alone passes a file whose tamperer also edited what says where the dice came from
(deleted the ``dice`` record, marked the roll by hand, pointed it at a seed not revealed,
moved it to another session): the chain is what catches those.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext as _

from rolls.history.dicecheck import DiceReport, check_export, sessions_of
from rolls.log import chain


@dataclass
class FileReport:
    dice: DiceReport
    chain: chain.Break | None
    facts: str | None  # the first roll whose listed facts are not its log's, in words
    entries: int
    head: str

    @property
    def ok(self) -> bool:
        return self.dice.ok and self.chain is None and self.facts is None

    def lines(self) -> list[str]:
        if not self.dice.ok:
            return self.dice.lines()
        if self.chain is not None:
            return [_("%(finding)s.") % {"finding": self.chain}]
        if self.facts is not None:
            return [self.facts]
        return [
            *self.dice.lines(),
            _("The file's chain is intact: %(count)s entries match their hashes, up to %(head)s.")
            % {"count": self.entries, "head": self.head},
        ]


class Unreadable(ValueError):
    """A file that is not an export of this app; ``str()`` says why."""


def check_file(data: Any) -> FileReport:
    if not isinstance(data, dict) or not isinstance(data.get("entries"), list):
        raise Unreadable(_("This is not a log export of this app (no list of entries)."))
    try:
        dice = check_export(data)
        found = _chain(data)
        facts = _facts(data) if found is None else None
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as error:
        raise Unreadable(
            _("This export is incomplete or damaged (%(error)s).") % {"error": repr(error)}
        ) from None
    head = data.get("head") or {}
    return FileReport(
        dice,
        found,
        facts,
        len(data["entries"]),
        _("entry %(seq)s %(hash)s") % {"seq": head.get("seq"), "hash": head.get("hash")},
    )


def file_link(entry: dict[str, Any]) -> chain.Link:
    """One entry of a file as the chain check reads it."""
    if "withheld" in entry:
        digest = entry.get("digest")
        return chain.Link(
            seq=int(entry["seq"]), digest=str(digest) if digest is not None else None, hash=entry["hash"]
        )
    content = chain.content(
        campaign=entry["campaign"],
        seq=entry["seq"],
        kind=entry["kind"],
        action=entry["action"],
        roll=entry["roll"],
        actor=entry["actor"],
        state=entry["state"],
        text=entry["text"],
        created=entry["created"],
        dice=entry.get("dice"),
        salt=str(entry.get("salt") or ""),
        about=entry.get("about"),
    )
    return chain.Link(seq=int(entry["seq"]), digest=chain.digest(content), hash=str(entry["hash"]))


def _chain(data: dict[str, Any]) -> chain.Break | None:
    if data.get("viewer") == "gm":
        for entry in data["entries"]:
            if "withheld" in entry:
                return chain.Break(
                    int(entry["seq"]), _("a GM's export withholds nothing: it was replaced by a stub")
                )
    links = [file_link(entry) for entry in data["entries"]]
    head = data["head"]
    return chain.check(
        links,
        first_seq=int(data["first_seq"]),
        previous=str(data["previous"]),
        head=(int(head["seq"]), str(head["hash"])),
    )


def _facts(data: dict[str, Any]) -> str | None:
    listed = {roll["id"]: roll for roll in data["rolls"] if "withheld" not in roll}
    firsts: dict[Any, dict[str, Any]] = {}
    for entry in data["entries"]:
        if "withheld" not in entry and entry["kind"] == "roll" and entry["roll"] is not None:
            firsts.setdefault(entry["roll"], entry)
    chained = sessions_of(data["entries"])
    for roll_id, roll in listed.items():
        entry = firsts.get(roll_id)
        where = (
            _("Entry %(seq)s") % {"seq": entry["seq"]}
            if entry is not None
            else _("Roll %(id)s") % {"id": roll_id}
        )
        if roll_id in chained and roll.get("session") != chained[roll_id]:
            return _(
                "%(where)s does not match: the file lists roll %(id)s in session %(session)s, "
                "its log in session %(logged)s."
            ) % {"where": where, "id": roll_id, "session": roll.get("session"), "logged": chained[roll_id]}
        about = entry.get("about") if entry is not None else None
        if not isinstance(about, dict):
            continue
        for key in chain.ROLL_FACTS:
            if roll.get(key) != about.get(key):
                return _(
                    "%(where)s does not match: the file lists roll %(id)s's %(key)s as %(listed)s, its log as %(logged)s."
                ) % {
                    "where": where,
                    "id": roll_id,
                    "key": key,
                    "listed": repr(roll.get(key)),
                    "logged": repr(about.get(key)),
                }
    return None
