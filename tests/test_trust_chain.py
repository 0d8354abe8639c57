"""Trust at the seams of the log (issue 44): a hidden roll entered by hand cannot be guessed from
a player's export, the chain covers what a page shows of a roll, and one check of an export
file catches the edits a dice check alone let through."""

from __future__ import annotations

import csv
import io
import itertools
import json
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from rolls import registry
from rolls.history.dicecheck import check_export
from rolls.log import chain
from rolls.log.content import entry_content
from rolls.models import LogEntry, Roll, Visibility
from rolls.play import services
from rolls.systems.hand import EnteredDice
from tabletop.models import Campaign, DiceMode, PlaySession
from tests import factories
from tests.factories import Script, Table, logged_in

pytestmark = pytest.mark.django_db


def export(client: Client, campaign: Campaign, kind: str) -> bytes:
    response = client.get(reverse("rolls:export", args=[campaign.pk]), {"format": kind})
    assert response.status_code == 200
    return b"".join(response.streaming_content)  # type: ignore[attr-defined]


def verify_campaign(campaign: Campaign) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    try:
        call_command("verify_log", str(campaign.pk), stdout=out, stderr=err)
    except SystemExit as exit_:
        return int(exit_.code or 0), err.getvalue()
    return 0, out.getvalue()


def verify_file(tmp_path: Path, data: dict[str, Any], command: str = "verify_log") -> tuple[int, str]:
    path = tmp_path / "campaign.json"
    path.write_text(json.dumps(data))
    out, err = io.StringIO(), io.StringIO()
    try:
        call_command(command, str(path), stdout=out, stderr=err)
    except SystemExit as exit_:
        return int(exit_.code or 0), err.getvalue()
    return 0, out.getvalue()


# -- a hidden roll entered by hand -----------------------------------------------------------------


def sealed_by_hand(table: Table, faces: list[int]) -> Roll:
    """A contest side the GM rolled with real dice, sealed: only the GM sees it yet."""
    Campaign.objects.filter(pk=table.campaign.pk).update(dice=DiceMode.PHYSICAL)
    table.campaign.refresh_from_db()
    return services.npc_roll_create(
        campaign=table.campaign,
        gm=table.gm,
        name="Warden",
        request=registry.engine("sixes").parse_request({"dice": len(faces)}),
        secret=False,
        sealed=True,
        target=None,
        intent="",
        rng=factories.ScriptedDice(),
        faces=faces,
    )


def brute_force(entry: dict[str, Any], target: str, count: int, *, salt: str) -> tuple[int, list[int] | None]:
    """Every face combination of ``count`` dice in the entry's content, given everything else
    the content holds and ``salt``; the number of hashes tried and the faces found (or None)."""
    engine = registry.engine("sixes")
    request = engine.parse_request(entry["state"]["request"])
    tried = 0
    for faces in itertools.product(range(1, 7), repeat=count):
        guess = {**entry, "state": engine.roll(request, EnteredDice(faces)), "salt": salt}
        tried += 1
        if chain.digest(chain.content(**guess)) == target:
            return tried, list(faces)
    return tried, None


def test_a_sealed_side_entered_by_hand_cannot_be_brute_forced_from_a_players_export(table: Table) -> None:
    roll = sealed_by_hand(table, [6, 3])
    entry = LogEntry.objects.select_related("roll__session").get(roll=roll)
    player = logged_in(table.player)

    data = json.loads(export(player, table.campaign, "json"))
    withheld = next(e for e in data["entries"] if e["seq"] == entry.seq)
    rows = list(csv.DictReader(io.StringIO(export(player, table.campaign, "csv").decode())))
    line = next(r for r in rows if r["seq"] == str(entry.seq))
    # What the player's files give: the digest, and from the CSV the exact time and roll id.
    assert set(withheld) == {"seq", "withheld", "digest", "hash"}
    assert (line["time"], line["roll"]) == (chain.timestamp(entry.created), str(roll.pk))
    # The attacker is handed everything the content holds but the dice and the salt (more
    # than the files give: the GM's intent, the roll's facts).
    known = {key: value for key, value in entry_content(entry).items() if key not in ("v", "salt")}

    tried, found = brute_force(known, withheld["digest"], 2, salt="")

    assert (tried, found) == (36, None)
    # With the salt the same search finds the dice at once: what the salt alone now keeps.
    assert brute_force(known, withheld["digest"], 2, salt=entry.salt)[1] == [6, 3]
    assert "6" not in [r["face"] for r in rows if r["seq"] == str(entry.seq)]


def test_a_players_export_leaves_out_a_version_1_hidden_entrys_digest(table: Table, tmp_path: Path) -> None:
    """An entry written before the salt: its digest could be guessed, so it is not handed out,
    and the file still checks (its hash taken as given)."""
    roll = sealed_by_hand(table, [5, 2])
    entry = LogEntry.objects.select_related("roll__session").get(roll=roll)
    old = {**entry_content(entry)}
    del old["v"], old["salt"], old["about"]
    LogEntry.objects.filter(pk=entry.pk).update(salt="", hash=chain.link(_previous(entry), chain.digest(old)))
    Campaign.objects.filter(pk=table.campaign.pk).update(
        last_hash=LogEntry.objects.get(pk=entry.pk).hash
    )  # as the log wrote it then: the newest entry
    assert verify_campaign(table.campaign)[0] == 0

    data = json.loads(export(logged_in(table.player), table.campaign, "json"))
    withheld = next(e for e in data["entries"] if e["seq"] == entry.seq)

    assert set(withheld) == {"seq", "withheld", "hash"}
    assert verify_file(tmp_path, data)[0] == 0


def _previous(entry: LogEntry) -> str:
    before = LogEntry.objects.filter(campaign_id=entry.campaign_id, seq=entry.seq - 1).first()
    return before.hash if before is not None else chain.GENESIS


# -- what a page shows of a roll, changed in the database --------------------------------------------


def rolled(table: Table, dice: Script) -> Roll:
    dice(6, 2, 3, then=1)
    client = logged_in(table.player)
    url = reverse("rolls:roll-create", args=[table.campaign.pk, table.character.pk])
    response = client.post(url, {"trait": "Body", "need": 1, "intent": "climb the water tower"})
    assert response.status_code in (200, 302)
    return Roll.objects.get()


CHANGES = {
    "intent": "steal the car",
    "character_name": "Stina",
    "visibility": Visibility.PUBLIC,  # of a roll that was secret: see below
    "trait": "Mind + Comprehend",
    "helper_name": "Stina",
    "target_name": "Stina",
    "npc": True,
    "mystery": 7,
    "by_hand": True,
    "system": "stars",
}


@pytest.mark.parametrize("field", sorted(CHANGES))
def test_a_field_a_page_shows_changed_in_the_database_names_its_entry(
    table: Table, dice: Script, field: str
) -> None:
    roll = rolled(table, dice)
    if field == "visibility":
        Roll.objects.filter(pk=roll.pk).update(visibility=Visibility.SECRET)
        roll = sealed_by_hand(table, [4, 4])
    first = LogEntry.objects.get(roll=roll, kind=LogEntry.Kind.ROLL).seq
    assert verify_campaign(table.campaign)[0] == (1 if field == "visibility" else 0)
    if field == "visibility":  # the first roll's own change, found first
        Roll.objects.filter(visibility=Visibility.SECRET).update(visibility=Visibility.PUBLIC)
        Roll.objects.filter(pk=roll.pk).update(visibility=Visibility.PUBLIC)  # a sealed side, shown
    else:
        Roll.objects.filter(pk=roll.pk).update(**{field: CHANGES[field]})

    code, said = verify_campaign(table.campaign)

    assert code == 1
    assert f"Entry {first} does not match" in said, said


def test_the_session_of_a_roll_changed_names_its_entry(table: Table, dice: Script) -> None:
    roll = rolled(table, dice)
    later = PlaySession.objects.create(campaign=table.campaign, number=9, ended=timezone.now())
    Roll.objects.filter(pk=roll.pk).update(session=later)

    code, said = verify_campaign(table.campaign)

    assert code == 1 and f"Entry {LogEntry.objects.get(roll=roll).seq} does not match" in said


@pytest.mark.parametrize(
    ("field", "value", "why"),
    [
        ("voided", True, "reads voided, which its log does not say"),
        ("revealed", True, "reads revealed, which its log does not say"),
        ("outcome", "failure", "reads 'failure', its newest state says 'success'"),
    ],
)
def test_what_a_roll_reads_that_its_log_derives_is_checked(
    table: Table, dice: Script, field: str, value: object, why: str
) -> None:
    roll = rolled(table, dice)
    seq = LogEntry.objects.get(roll=roll).seq
    assert verify_campaign(table.campaign)[0] == 0
    Roll.objects.filter(pk=roll.pk).update(**{field: value})

    code, said = verify_campaign(table.campaign)

    assert code == 1
    assert f"Entry {seq} does not match: roll {roll.pk} {why}" in said


def test_the_history_shows_an_intent_changed_and_the_button_still_finds_it(
    table: Table, dice: Script
) -> None:
    """The button checks only what was written since it last found the log intact: a change
    to a roll's facts is found by the command, and by the button for a roll it has not read."""
    roll = rolled(table, dice)
    Roll.objects.filter(pk=roll.pk).update(intent="steal the car")
    client = logged_in(table.player)

    response = client.post(reverse("rolls:verify-log", args=[table.campaign.pk]))

    assert "was changed" in response.content.decode()
    assert verify_campaign(table.campaign)[0] == 1


# -- one check of an export file ------------------------------------------------------------------


@pytest.fixture
def ended(table: Table) -> tuple[Table, dict[str, Any], int]:
    """A roll and its push from the phone on the app's own dice, then the session ended (its
    seed revealed) and a second one started: the GM's export, and the push's entry number."""
    client = logged_in(table.player)
    url = reverse("rolls:roll-create", args=[table.campaign.pk, table.character.pk])
    assert client.post(url, {"trait": "Body", "need": 3}).status_code in (200, 302)
    roll = Roll.objects.get()
    follow = reverse("rolls:follow-up", args=[table.campaign.pk, roll.pk])
    push = {"action": "push", "condition": "Upset", "description": "Olle kicks"}
    assert client.post(follow, push).status_code in (200, 302)
    gm = logged_in(table.gm)
    gm.post(reverse("rolls:session-end", args=[table.campaign.pk]), {"confirmed": "yes"})
    gm.post(reverse("rolls:session-start", args=[table.campaign.pk]), {"confirmed": "yes"})
    assert PlaySession.objects.filter(campaign=table.campaign).count() == 2
    data = json.loads(export(gm, table.campaign, "json"))
    seq = LogEntry.objects.get(roll=roll, action="push").seq
    assert verify_file_ok(data)
    return table, data, seq


def verify_file_ok(data: dict[str, Any]) -> bool:
    return check_export(data).ok and check_export(data).dice > 0


def entry_at(data: dict[str, Any], seq: int) -> dict[str, Any]:
    return next(e for e in data["entries"] if e["seq"] == seq)


def change_a_die(entry: dict[str, Any]) -> None:
    shown = entry["state"]["steps"][-1]
    index = shown["rerolled"][0] if shown.get("rerolled") else 0
    shown["dice"][index] = shown["dice"][index] % 6 + 1


def delete_the_record(data: dict[str, Any], seq: int) -> None:
    entry = entry_at(data, seq)
    change_a_die(entry)
    del entry["dice"]


def mark_it_by_hand(data: dict[str, Any], seq: int) -> None:
    delete_the_record(data, seq)
    roll = next(r for r in data["rolls"] if r["id"] == entry_at(data, seq)["roll"])
    roll["by_hand"] = True


def withheld_stub(data: dict[str, Any], seq: int) -> None:
    entry = entry_at(data, seq)
    stub = {"seq": seq, "withheld": "Rolled in secret: withheld from this export.", "hash": entry["hash"]}
    data["entries"][data["entries"].index(entry)] = {**stub, "digest": entry["digest"]}


def unrevealed_seed(data: dict[str, Any], seq: int) -> None:
    entry = entry_at(data, seq)
    change_a_die(entry)
    entry["dice"]["seed"] = "roll"  # a seed of its own that nobody revealed


def another_session(data: dict[str, Any], seq: int) -> None:
    roll = next(r for r in data["rolls"] if r["id"] == entry_at(data, seq)["roll"])
    roll["session"] = 2  # the session still open: its seed is not revealed


EDITS = {
    "delete the die's record": delete_the_record,
    "mark the roll by hand": mark_it_by_hand,
    "replace the entry with a withheld stub": withheld_stub,
    "point it at an unrevealed seed": unrevealed_seed,
    "change the roll's session number": another_session,
}


@pytest.mark.parametrize("edit", sorted(EDITS))
@pytest.mark.parametrize("command", ["verify_log", "verify_dice"])
def test_one_check_of_an_export_file_catches_each_edit(
    ended: tuple[Table, dict[str, Any], int], tmp_path: Path, edit: str, command: str
) -> None:
    _, data, seq = ended
    assert verify_file(tmp_path, data, command)[0] == 0
    first = LogEntry.objects.get(roll_id=entry_at(data, seq)["roll"], kind=LogEntry.Kind.ROLL).seq
    EDITS[edit](data, seq)
    # The dice check alone passes every one of these edits.
    assert check_export(data).ok

    code, said = verify_file(tmp_path, data, command)

    assert code == 1, said
    assert said.startswith(f"Entry {seq} does not match") or said.startswith(
        f"Entry {first} does not match"
    ), said


def test_an_intact_file_says_so_with_its_head(
    ended: tuple[Table, dict[str, Any], int], tmp_path: Path
) -> None:
    _, data, _ = ended

    code, said = verify_file(tmp_path, data)

    assert code == 0
    assert said.splitlines()[-1] == (
        f"The file's chain is intact: {len(data['entries'])} entries match their hashes, "
        f"up to entry {data['head']['seq']} {data['head']['hash']}."
    )
