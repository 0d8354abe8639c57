"""What an import file must be before anything of it is written (``rolls.history.importer``):
every value of the shape and within the bounds the app's own forms and models keep, every id
it names listed once, every seed it carries one the log has revealed. The first thing wrong
is refused with one sentence that says where (``ImportRefused``); nothing is written.

A file is not trusted for anything that steers the dice: a seed travels only when the log has
revealed it (a session that ended, a hidden roll the GM revealed) and it matches the hash shown
before it; an open session imports without one, and so does a hidden roll not revealed.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from typing import Any

from django.utils.translation import gettext as _

from rolls import registry
from rolls.history import export
from rolls.history.filecheck import file_link
from rolls.log import chain
from rolls.log.events import TableEvent
from rolls.models import LogEntry, Visibility
from rolls.play.formdata import posted

_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z")
_HEX64 = re.compile(r"[0-9a-f]{64}")
_SALT = re.compile(r"[0-9a-f]{32}")
_BIG = 2**31 - 1  # the largest id or count an integer column of both databases holds
_KINDS = {choice.value for choice in LogEntry.Kind}
_VISIBILITIES = {choice.value for choice in Visibility}


class ImportRefused(ValueError):
    """A file that cannot be imported; ``str()`` says why, in a sentence."""


def refuse(where: str, what: str) -> ImportRefused:
    return ImportRefused(_("%(where)s: %(what)s. Nothing was imported.") % {"where": where, "what": what})


def _dict(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise refuse(where, _("it is not an object"))
    return value


def _list(value: Any, where: str) -> list[Any]:
    if not isinstance(value, list):
        raise refuse(where, _("it is not a list"))
    return value


def _int(row: Mapping[str, Any], key: str, where: str, *, low: int = 0, null: bool = False) -> int | None:
    value = row.get(key)
    if value is None and null:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= _BIG:
        raise refuse(
            where,
            _("its %(key)s is not a whole number from %(low)s to %(big)s")
            % {"key": repr(key), "low": low, "big": _BIG},
        )
    return value


def _text(row: Mapping[str, Any], key: str, where: str, *, most: int, least: int = 0) -> str:
    value = row.get(key)
    if not isinstance(value, str) or not least <= len(value) <= most:
        raise refuse(
            where,
            _("its %(key)s is not a text of %(least)s to %(most)s characters")
            % {"key": repr(key), "least": least, "most": most},
        )
    # A NUL cannot be stored by PostgreSQL, and no form takes any control character but lines.
    if any(ord(char) < 32 and char not in "\n\r\t" for char in value):
        raise refuse(where, _("its %(key)s holds control characters") % {"key": repr(key)})
    return value


def _bool(row: Mapping[str, Any], key: str, where: str, *, default: bool | None = None) -> bool:
    value = row.get(key, default)
    if not isinstance(value, bool):
        raise refuse(where, _("its %(key)s is not true or false") % {"key": repr(key)})
    return value


def _time(row: Mapping[str, Any], key: str, where: str, *, null: bool = False) -> str | None:
    value = row.get(key)
    if value is None and null:
        return None
    if not isinstance(value, str) or not _TIME.fullmatch(value):
        raise refuse(
            where,
            _("its %(key)s is not a time as the export writes it (2026-12-02T20:15:03.123456Z)")
            % {"key": repr(key)},
        )
    return value


def _hex(row: Mapping[str, Any], key: str, where: str) -> str | None:
    value = row.get(key)
    if value is None or value == "":
        return None
    if not isinstance(value, str) or not _HEX64.fullmatch(value):
        raise refuse(where, _("its %(key)s is not 64 hexadecimal digits") % {"key": repr(key)})
    return value


def _unique(ids: list[Any], what: str) -> set[Any]:
    seen: set[Any] = set()
    for each in ids:
        if each in seen:
            raise refuse(what, _("%(each)s is listed twice") % {"each": each})
        seen.add(each)
    return seen


def check_file(data: Any) -> None:
    """Refuse anything but a whole campaign's GM export, of sound shape, whose chain verifies."""
    if not isinstance(data, dict) or data.get("format") != export.FORMAT:
        raise ImportRefused(_("This is not a campaign export of this app. Nothing was imported."))
    if data.get("version") != export.VERSION:
        raise ImportRefused(
            _("This export is version %(version)s; this app reads version %(reads)s. Nothing was imported.")
            % {"version": repr(data.get("version")), "reads": export.VERSION}
        )
    if data.get("viewer") != "gm" or data.get("session") is not None:
        raise ImportRefused(
            _(
                "Only the GM's export of a whole campaign can be imported (this one leaves entries out). "
                "Nothing was imported."
            )
        )
    campaign = _dict(data.get("campaign"), _("The campaign"))
    _text(campaign, "name", _("The campaign"), most=80, least=1)
    system = campaign.get("system")
    if not isinstance(system, str) or system not in registry.slugs():
        raise ImportRefused(
            _("The dice system %(system)s is not at this table. Nothing was imported.")
            % {"system": repr(system)}
        )
    _int(campaign, "mystery", _("The campaign"), low=1)
    members = _members(_list(data.get("members"), _("The members")))
    sessions = _sessions(_list(data.get("sessions"), _("The sessions")))
    characters = _characters(_list(data.get("characters"), _("The characters")), system, members)
    rolls = _rolls(_list(data.get("rolls"), _("The rolls")), system, members, sessions, characters)
    _entries(data, members, rolls)


def _members(rows: list[Any]) -> set[int]:
    ids = []
    gms = 0
    for n, row in enumerate(rows, 1):
        where = _("Member %(n)s") % {"n": n}
        row = _dict(row, where)
        ids.append(_int(row, "id", where, low=1))
        _text(row, "name", where, most=40, least=1)
        gm = _bool(row, "gm", where)
        left = _bool(row, "left", where, default=False)
        gms += gm and not left
    if gms != 1:
        raise refuse(_("The members"), _("exactly one of them must be the GM"))
    return _unique(ids, _("The members"))


def _sessions(rows: list[Any]) -> set[int]:
    numbers = []
    for n, row in enumerate(rows, 1):
        where = _("Session %(n)s of the list") % {"n": n}
        row = _dict(row, where)
        numbers.append(_int(row, "number", where, low=1))
        _time(row, "started", where)
        ended = _time(row, "ended", where, null=True)
        _hex(row, "seed_hash", where)
        seed = _hex(row, "seed", where)
        if seed is not None and ended is None:
            raise refuse(where, _("it is still open, and an open session's seed is never exported"))
        if ended is None and n != len(rows):
            raise refuse(where, _("only the last session can still be open"))
    return _unique(numbers, _("The sessions"))


def _characters(rows: list[Any], system: str, members: set[int]) -> set[int]:
    form_class = registry.table(system).sheet_form
    ids = []
    for n, row in enumerate(rows, 1):
        where = _("Character %(n)s") % {"n": n}
        row = _dict(row, where)
        ids.append(_int(row, "id", where, low=1))
        name = _text(row, "name", where, most=60, least=1)
        if _int(row, "owner", where, low=1) not in members:
            raise refuse(where, _("its owner is not among the members"))
        for key in ("luck", "endurance", "drama_spent"):
            _int(row, key, where)
        if (row.get("luck") or 0) > 15:
            raise refuse(where, _("its 'luck' is above 15"))
        _int(row, "pride_used_in", where, null=True)
        _time(row, "created", where)
        sheet = row.get("sheet")
        if not isinstance(sheet, dict):
            raise refuse(where, _("its sheet is not an object"))
        # As strictly as the sheet form: the sheet must be what that form would write.
        try:
            form = form_class(posted(form_class.initial_from(name, sheet)))
            valid = form.is_valid() and form.to_sheet() == sheet
        except (KeyError, TypeError, ValueError, AttributeError, IndexError):
            valid = False
        if not valid:
            raise refuse(
                where,
                _("its sheet is not a %(system)s sheet the character form would accept") % {"system": system},
            )
    return _unique(ids, _("The characters"))


def _rolls(
    rows: list[Any], system: str, members: set[int], sessions: set[int], characters: set[int]
) -> dict[int, dict[str, Any]]:
    rolls: dict[int, dict[str, Any]] = {}
    for n, row in enumerate(rows, 1):
        where = _("Roll %(n)s of the list") % {"n": n}
        row = _dict(row, where)
        pk = _int(row, "id", where, low=1)
        assert pk is not None
        if pk in rolls:
            raise refuse(_("The rolls"), _("%(pk)s is listed twice") % {"pk": pk})
        if "withheld" in row:
            raise refuse(where, _("it is withheld: only the GM's export can be imported"))
        if _int(row, "session", where, low=1) not in sessions:
            raise refuse(where, _("its session is not among the sessions"))
        for key in ("character", "helper", "target"):
            value = _int(row, key, where, low=1, null=True)
            if value is not None and value not in characters:
                raise refuse(where, _("its %(key)s is not among the characters") % {"key": repr(key)})
        roller = _int(row, "roller", where, low=1, null=True)
        if roller is not None and roller not in members:
            raise refuse(where, _("its roller is not among the members"))
        for key, most in (("character_name", 60), ("helper_name", 60), ("target_name", 60), ("intent", 200)):
            _text(row, key, where, most=most)
        _text(row, "trait", where, most=80)
        if row.get("system") != system:
            raise refuse(where, _("it is not a %(system)s roll") % {"system": system})
        if row.get("visibility") not in _VISIBILITIES:
            raise refuse(where, _("its visibility is none the app knows"))
        _bool(row, "npc", where)
        _bool(row, "by_hand", where, default=False)
        _int(row, "mystery", where, low=1, null="mystery" not in row)
        _time(row, "created", where)
        _hex(row, "seed_hash", where)
        _hex(row, "seed", where)
        rolls[pk] = row
    return rolls


def _entries(data: dict[str, Any], members: set[int], rolls: dict[int, dict[str, Any]]) -> None:
    entries = _list(data.get("entries"), _("The entries"))
    if data.get("first_seq") != 1 or data.get("previous") != chain.GENESIS:
        raise refuse(_("The entries"), _("they do not start at the campaign's first entry"))
    system = registry.engine(data["campaign"]["system"])
    links = []
    for n, row in enumerate(entries, 1):
        where = _("Entry %(n)s") % {"n": n}
        row = _dict(row, where)
        if "withheld" in row:
            raise refuse(where, _("it is withheld: only the GM's export can be imported"))
        if _int(row, "seq", where, low=1) != n:
            raise refuse(where, _("its number is not the next one: the log has a gap or a repeat"))
        kind = row.get("kind")
        if kind not in _KINDS:
            raise refuse(where, _("its kind is none the log writes"))
        _text(row, "action", where, most=32, least=1)
        _text(row, "text", where, most=300)
        _time(row, "created", where)
        roll = _int(row, "roll", where, low=1, null=True)
        if roll is None and kind != LogEntry.Kind.EVENT:
            raise refuse(where, _("a roll or a follow-up names no roll"))
        if roll is not None and roll not in rolls:
            raise refuse(where, _("the roll it names is not among the rolls"))
        actor = _int(row, "actor", where, low=1, null=True)
        if actor is not None and actor not in members:
            raise refuse(where, _("its actor is not among the members"))
        state = row.get("state")
        if state is not None and not isinstance(state, dict):
            raise refuse(where, _("its state is not an object"))
        if roll is not None and state is not None:
            try:
                system.evaluate(state)
                system.view(state)
            except (KeyError, TypeError, ValueError, AttributeError, IndexError) as error:
                raise refuse(
                    where,
                    _("its state is not one its dice system reads (%(error)s)") % {"error": repr(error)},
                ) from None
        if row.get("dice") is not None and not isinstance(row["dice"], dict):
            raise refuse(where, _("its dice record is not an object"))
        salt = row.get("salt", "")
        if not isinstance(salt, str) or (salt and not _SALT.fullmatch(salt)):
            raise refuse(where, _("its salt is not 32 hexadecimal digits"))
        if not isinstance(row.get("hash"), str):
            raise refuse(where, _("it has no hash"))
        links.append(_link(row))
    head = _dict(data.get("head"), _("The head of the chain"))
    _int(head, "seq", _("The head of the chain"))
    found = chain.check(links, head=(head["seq"], str(head.get("hash"))))
    if found is not None:
        raise ImportRefused(
            _("This export's chain does not verify: %(found)s. Nothing was imported.") % {"found": found}
        )


def _link(entry: dict[str, Any]) -> chain.Link:
    try:
        return file_link(entry)
    except (KeyError, TypeError, ValueError) as error:
        raise refuse(
            _("Entry %(seq)s") % {"seq": entry.get("seq")},
            _("it is incomplete (%(error)s)") % {"error": repr(error)},
        ) from None


def revealed_seeds(data: dict[str, Any]) -> tuple[dict[int, str], dict[int, str]]:
    """The seeds the file may give: each ended session's, and each revealed hidden roll's, as
    its log's events revealed them and matching the hash shown before. Anything else would let
    the file choose dice still to come (an open session's rolls, a hidden roll's follow-ups)."""
    sessions: dict[int, str] = {}
    rolls: dict[int, str] = {}
    # The hash each session's start showed, from the chained log (not the file's list).
    hashes = {
        (entry.get("dice") or {}).get("session"): (entry.get("dice") or {}).get("commit")
        for entry in data["entries"]
        if entry["action"] == TableEvent.SESSION_START and entry.get("dice")
    }
    ended = {s["number"] for s in data["sessions"] if s.get("ended") is not None}
    roll_hashes = {r["id"]: r.get("seed_hash") for r in data["rolls"]}
    for entry in data["entries"]:
        dice = entry.get("dice") or {}
        seed = dice.get("seed") if entry["kind"] == "event" else None
        if not isinstance(seed, str) or not _HEX64.fullmatch(seed):
            continue
        digest = hashlib.sha256(bytes.fromhex(seed)).hexdigest()
        if entry["action"] == TableEvent.SESSION_END and dice.get("session") in ended:
            if hashes.get(dice["session"]) == digest:
                sessions[dice["session"]] = seed
        elif entry["action"] == TableEvent.ROLL_REVEAL and dice.get("roll") in roll_hashes:
            if roll_hashes[dice["roll"]] == digest:
                rolls[dice["roll"]] = seed
    return sessions, rolls
