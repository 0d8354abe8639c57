"""``import_campaign`` against hostile files (issue 44): each gets one clear message and writes
nothing, and no file chooses the dice of a session still open."""

from __future__ import annotations

import copy
import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse

from rolls.log import fairdice
from rolls.models import LogEntry, Roll
from tabletop.models import Campaign, Character, PlaySession
from tests import factories
from tests.factories import Script, Table, logged_in

pytestmark = pytest.mark.django_db

Data = dict[str, Any]


@pytest.fixture
def exported(table: Table, dice: Script) -> Data:
    """The GM's export of a campaign with a roll, a push, an NPC roll, one session ended and
    the next still open."""
    dice(6, 2, 3, 4, then=1)
    player, gm = logged_in(table.player), logged_in(table.gm)
    url = reverse("rolls:roll-create", args=[table.campaign.pk, table.character.pk])
    assert player.post(url, {"trait": "Body", "need": 2, "intent": "climb"}).status_code in (200, 302)
    gm.post(reverse("rolls:session-end", args=[table.campaign.pk]), {"confirmed": "yes"})
    gm.post(reverse("rolls:session-start", args=[table.campaign.pk]), {"confirmed": "yes"})
    npc = factories.npc_baseline(table.campaign)
    assert gm.post(reverse("rolls:npc-roll", args=[table.campaign.pk]), npc).status_code in (200, 302)
    response = gm.get(reverse("rolls:export", args=[table.campaign.pk]), {"format": "json"})
    return json.loads(b"".join(response.streaming_content))  # type: ignore[attr-defined,no-any-return]


def everything() -> tuple[int, ...]:
    return (
        Campaign.objects.count(),
        get_user_model().objects.count(),
        Character.objects.count(),
        PlaySession.objects.count(),
        Roll.objects.count(),
        LogEntry.objects.count(),
    )


def import_text(tmp_path: Path, text: str) -> str:
    path = tmp_path / "hostile.json"
    path.write_text(text)
    call_command("import_campaign", str(path), stdout=io.StringIO())
    return "imported"


def entry(data: Data, kind: str) -> Data:
    return next(e for e in data["entries"] if e["kind"] == kind)


def set_in(path: str, value: Any) -> Callable[[Data], Any]:
    """An edit that puts ``value`` at ``path`` ("characters.0.sheet")."""

    def edit(data: Data) -> Any:
        *parents, last = path.split(".")
        where: Any = data
        for key in parents:
            where = where[int(key)] if isinstance(where, list) else where[key]
        if isinstance(where, list):
            where[int(last)] = value
        else:
            where[last] = value
        return data

    return edit


def whole(value: Any) -> Callable[[Data], Any]:
    return lambda data: value


def without(path: str) -> Callable[[Data], Any]:
    def edit(data: Data) -> Any:
        *parents, last = path.split(".")
        where: Any = data
        for key in parents:
            where = where[int(key)] if isinstance(where, list) else where[key]
        del where[last]
        return data

    return edit


def on_entry(kind: str, key: str, value: Any) -> Callable[[Data], Any]:
    def edit(data: Data) -> Any:
        entry(data, kind)[key] = value
        return data

    return edit


def open_session_seed(data: Data) -> Data:
    """The attack: the open session's seed, chosen, so the next rolls are known in advance."""
    data["sessions"][-1]["seed"] = "ab" * 32
    return data


def gap(data: Data) -> Data:
    del data["entries"][1]
    return data


def stub(data: Data) -> Data:
    first = entry(data, "roll")
    data["entries"][data["entries"].index(first)] = {
        "seq": first["seq"],
        "withheld": "x",
        "hash": first["hash"],
    }
    return data


def edited_text(data: Data) -> Data:
    entry(data, "roll")["text"] = "edited"
    return data


HOSTILE: dict[str, tuple[Callable[[Data], Any], str]] = {
    "a list": (whole([]), "This is not a campaign export of this app."),
    "a string": (whole("campaign"), "This is not a campaign export of this app."),
    "an empty object": (whole({}), "This is not a campaign export of this app."),
    "another format": (set_in("format", "other"), "This is not a campaign export of this app."),
    "another version": (set_in("version", 9), "this app reads version 1"),
    "a player's export": (set_in("viewer", "player"), "Only the GM's export of a whole campaign"),
    "a session's export": (set_in("session", 1), "Only the GM's export of a whole campaign"),
    "a campaign that is a string": (set_in("campaign", "x"), "The campaign: it is not an object"),
    "an unknown system": (set_in("campaign.system", "d20"), "The dice system 'd20' is not at this table."),
    "a name too long": (
        set_in("campaign.name", "x" * 81),
        "The campaign: its 'name' is not a text of 1 to 80",
    ),
    "members that are a dict": (set_in("members", {}), "The members: it is not a list"),
    "no GM": (set_in("members.0.gm", False), "exactly one of them must be the GM"),
    "a member id in words": (set_in("members.0.id", "one"), "Member 1: its 'id' is not a whole number"),
    "a member's empty name": (set_in("members.1.name", ""), "Member 2: its 'name' is not a text of 1 to 40"),
    "an open session's seed": (
        open_session_seed,
        "it is still open, and an open session's seed is never exported",
    ),
    "a session's time in words": (set_in("sessions.0.started", "yesterday"), "its 'started' is not a time"),
    "a sheet that is a string": (
        set_in("characters.0.sheet", "strong"),
        "Character 1: its sheet is not an object",
    ),
    "a sheet that is empty": (
        set_in("characters.0.sheet", {}),
        "its sheet is not a sixes sheet the character form",
    ),
    "a sheet out of bounds": (
        lambda d: set_in("characters.0.sheet", {**d["characters"][0]["sheet"], "age": 99})(d),
        "its sheet is not a sixes sheet the character form would accept",
    ),
    "luck above 15": (set_in("characters.0.luck", 16), "Character 1: its 'luck' is above 15"),
    "an owner from elsewhere": (
        set_in("characters.0.owner", 999),
        "Character 1: its owner is not among the members",
    ),
    "a name with a NUL": (
        set_in("characters.0.name", "Olle\x00"),
        "Character 1: its 'name' holds control characters",
    ),
    "a roll in no session": (set_in("rolls.0.session", 77), "Roll 1 of the list: its session is not among"),
    "an unknown visibility": (set_in("rolls.0.visibility", "half"), "its visibility is none the app knows"),
    "an intent too long": (set_in("rolls.0.intent", "x" * 201), "its 'intent' is not a text of 0 to 200"),
    "a state that is a list": (on_entry("roll", "state", [1, 2]), "its state is not an object"),
    "a state no engine reads": (
        on_entry("roll", "state", {"system": "sixes"}),
        "its state is not one its dice system reads",
    ),
    "a gap in the log": (gap, "its number is not the next one"),
    "an unknown kind": (on_entry("roll", "kind", "magic"), "its kind is none the log writes"),
    "a roll not listed": (on_entry("roll", "roll", 4242), "the roll it names is not among the rolls"),
    "a time in another form": (
        on_entry("roll", "created", "2026-12-02 20:15"),
        "its 'created' is not a time",
    ),
    "a withheld stub": (stub, "it is withheld: only the GM's export can be imported"),
    "an edited entry": (edited_text, "This export's chain does not verify"),
    "no head": (without("head"), "The head of the chain: it is not an object"),
    "entries that are a string": (set_in("entries", "none"), "The entries: it is not a list"),
}


@pytest.mark.parametrize("shape", sorted(HOSTILE))
def test_a_hostile_file_is_refused_with_one_clear_message_and_writes_nothing(
    exported: Data, tmp_path: Path, shape: str
) -> None:
    edit, message = HOSTILE[shape]
    before = everything()

    with pytest.raises(CommandError) as refused:
        import_text(tmp_path, json.dumps(edit(copy.deepcopy(exported))))

    said = str(refused.value)
    assert said.startswith("Refused: ") and message in said, said
    assert "Traceback" not in said and len(said.splitlines()) == 1
    assert everything() == before


def test_a_file_nested_deeper_than_any_export_is_refused(tmp_path: Path) -> None:
    before = everything()
    with pytest.raises(CommandError, match="nests deeper than any export"):
        import_text(tmp_path, "[" * 100_000 + "]" * 100_000)
    assert everything() == before


def test_the_untouched_file_imports(exported: Data, tmp_path: Path) -> None:
    assert import_text(tmp_path, json.dumps(exported)) == "imported"


def test_no_file_chooses_the_dice_of_a_session_still_open(
    exported: Data, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The export of an open session carries its seed's hash, never the seed: the imported
    session rolls on without one (the server's own dice), and a file that brings a seed for
    it is refused (above)."""
    import_text(tmp_path, json.dumps(exported))
    imported = Campaign.objects.order_by("-pk").first()
    assert imported is not None
    session = imported.open_session()
    assert session is not None and (session.seed, session.hidden_seed, session.seed_hash) == ("", "", "")
    ended = PlaySession.objects.get(campaign=imported, number=1)
    assert ended.seed == exported["sessions"][0]["seed"]  # revealed, and the hash the log showed
    assert all(not r.seed for r in Roll.objects.filter(campaign=imported))


def test_a_seed_that_is_not_the_one_the_log_showed_is_not_kept(exported: Data, tmp_path: Path) -> None:
    data = copy.deepcopy(exported)
    end = next(e for e in data["entries"] if e["action"] == "session-end")
    chosen = "cd" * 32
    data["sessions"][0]["seed"] = chosen  # the list, not the chained end event

    import_text(tmp_path, json.dumps(data))

    imported = Campaign.objects.order_by("-pk").first()
    kept = PlaySession.objects.get(campaign=imported, number=1).seed
    assert kept == end["dice"]["seed"] != chosen
    assert fairdice.commitment(bytes.fromhex(kept)) == exported["sessions"][0]["seed_hash"]
