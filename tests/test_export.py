"""The log's export (CSV and JSON, the campaign or one play session, for the GM and for a
player) and its import as a new campaign: what each member may see, the chain that anyone
can check with the standard library, and the round trip."""

from __future__ import annotations

import csv
import hashlib
import io
import json
import tempfile
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client
from django.urls import reverse

from rolls.campaigns import services as table_services
from rolls.models import LogEntry, Roll, Visibility
from tabletop.models import Campaign, DiceMode, Membership
from tests import factories
from tests.factories import Script, ScriptedDice, Table, logged_in

SECRET_NAME = "The Obsidian Warden"
SECRET_INTENT = "unlock the vault of whispers"
BLIND_SKILL = "Quietzebra"
BLIND_INTENT = "tiptoe past the sleeping librarian"


def export(client: Client, campaign: Campaign, **params: Any) -> tuple[int, bytes]:
    response = client.get(reverse("rolls:export", args=[campaign.pk]), params)
    body = b"".join(response.streaming_content) if response.streaming else response.content  # type: ignore[attr-defined]
    return response.status_code, body


def as_json(client: Client, campaign: Campaign, **params: Any) -> dict[str, Any]:
    status, body = export(client, campaign, format="json", **params)
    assert status == 200, body
    return json.loads(body)  # type: ignore[no-any-return]


def as_csv(client: Client, campaign: Campaign, **params: Any) -> list[dict[str, str]]:
    status, body = export(client, campaign, format="csv", **params)
    assert status == 200, body
    return list(csv.DictReader(io.StringIO(body.decode())))


CONTENT_KEYS = ("campaign", "seq", "kind", "action", "roll", "actor", "state", "text", "created")


def check_chain(data: dict[str, Any]) -> bool:
    """docs/verify.md's few lines of standard-library Python, as written there."""
    previous = data["previous"]
    for seq, entry in enumerate(data["entries"], start=data["first_seq"]):
        if "withheld" in entry:
            digest = entry.get("digest")  # left out of a version 1 entry: its hash is taken as given
        else:
            keys = (*CONTENT_KEYS, "dice", "v", "salt", "about")
            content = {key: entry[key] for key in keys if key in entry}
            canonical = json.dumps(content, sort_keys=True, separators=(",", ":"))
            digest = hashlib.sha256(canonical.encode("ascii")).hexdigest()
        if entry["seq"] != seq:
            return False
        if digest is not None and hashlib.sha256((previous + digest).encode()).hexdigest() != entry["hash"]:
            return False
        previous = entry["hash"]
    return previous == data["head"]["hash"]


def play(table: Table, dice: Script) -> None:
    """A public roll, a push, a secret NPC roll by the GM and a blind roll by the player."""
    dice(6, 2, 3, 4, 5, 1, then=2)
    player, gm = logged_in(table.player), logged_in(table.gm)
    roll_url = reverse("rolls:roll-create", args=[table.campaign.pk, table.character.pk])
    assert (
        player.post(
            roll_url, {"trait": "Body", "need": 2, "intent": "climb the water tower"}, HTTP_HX_REQUEST="true"
        ).status_code
        == 200
    )
    public = Roll.objects.get()
    follow = reverse("rolls:follow-up", args=[table.campaign.pk, public.pk])
    push = {"action": "push", "condition": "Upset", "description": "Olle kicks the gate"}
    assert player.post(follow, push, HTTP_HX_REQUEST="true").status_code == 200
    npc = {"name": SECRET_NAME, "intent": SECRET_INTENT, "flag_dice": "3", "flag_need": "1", "secret": "on"}
    assert gm.post(reverse("rolls:npc-roll", args=[table.campaign.pk]), npc).status_code in (200, 302)
    character = table.character
    character.refresh_from_db()
    skills = [dict(skill) for skill in character.sheet["skills"]]
    skills[0]["name"] = BLIND_SKILL
    character.sheet = {**character.sheet, "skills": skills}
    character.save(update_fields=["sheet"])
    blind = {"trait": "skill-0", "need": 1, "intent": BLIND_INTENT, "blind": "on"}
    assert player.post(roll_url, blind, HTTP_HX_REQUEST="true").status_code == 200
    assert Roll.objects.filter(visibility=Visibility.SECRET).count() == 1
    assert Roll.objects.filter(visibility=Visibility.BLIND).get().trait.endswith(BLIND_SKILL)


@pytest.fixture
def played(table: Table, dice: Script) -> Table:
    play(table, dice)
    return table


# -- the GM's export -----------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_gms_json_holds_every_entry_with_its_state_and_hash(played: Table) -> None:
    data = as_json(logged_in(played.gm), played.campaign)

    entries = LogEntry.objects.filter(campaign=played.campaign).order_by("seq")
    assert [e["seq"] for e in data["entries"]] == [e.seq for e in entries]
    assert [e["hash"] for e in data["entries"]] == [e.hash for e in entries]
    assert all("state" in e and "withheld" not in e for e in data["entries"])
    assert data["campaign"] == {
        "id": played.campaign.pk,
        "name": "The Loop",
        "system": "sixes",
        "mystery": played.campaign.mystery,
    }
    assert {m["name"] for m in data["members"]} == {"GM", "Player"}
    assert [c["name"] for c in data["characters"]] == ["Olle"]
    assert [s["number"] for s in data["sessions"]] == [1]
    assert {r["intent"] for r in data["rolls"]} >= {SECRET_INTENT, BLIND_INTENT}
    assert check_chain(data)


@pytest.mark.django_db
def test_the_gms_csv_has_a_line_per_die(played: Table) -> None:
    rows = as_csv(logged_in(played.gm), played.campaign)

    public = Roll.objects.filter(visibility=Visibility.PUBLIC).get()
    first = [r for r in rows if r["roll"] == str(public.pk) and r["action"] == "roll"]
    assert [r["face"] for r in first] == ["6", "2", "3"]  # Body 3, no skill: three dice
    assert [r["die"] for r in first] == ["1", "2", "3"]
    assert {r["session"] for r in first} == {"1"} and {r["character"] for r in first} == {"Olle"}
    assert [r["hit"] for r in first] == ["1", "0", "0"]
    pushed = [(r["face"], r["new"]) for r in rows if r["roll"] == str(public.pk) and r["action"] == "push"]
    assert pushed == [("6", "0"), ("4", "1"), ("5", "1")]  # the six stays, the others are rerolled
    assert any(r["note"].startswith("Session 1 started") for r in rows)
    assert any(r["character"] == SECRET_NAME for r in rows)


# -- a player's export ---------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_players_exports_hold_nothing_of_secret_or_blind_rolls(played: Table) -> None:
    player = logged_in(played.player)
    hidden = set(Roll.objects.exclude(visibility=Visibility.PUBLIC).values_list("pk", flat=True))
    blind_trait = Roll.objects.get(visibility=Visibility.BLIND).trait
    assert BLIND_SKILL in blind_trait and "+" in blind_trait

    for kind in ("csv", "json"):
        status, body = export(player, played.campaign, format=kind)
        assert status == 200
        # The skill's name is on the character's sheet, which the table sees: not the trait rolled.
        for secret in (SECRET_NAME, SECRET_INTENT, blind_trait, BLIND_INTENT):
            assert secret.encode() not in body, (kind, secret)
    rows = as_csv(player, played.campaign)
    for row in rows:
        if row["roll"] and int(row["roll"]) in hidden:
            assert (row["face"], row["die"], row["character"], row["action"]) == ("", "", "", "secret")
            assert row["note"] == "Rolled in secret: withheld from this export."
    data = as_json(player, played.campaign)
    withheld = [e for e in data["entries"] if "withheld" in e]
    assert len(withheld) == LogEntry.objects.filter(roll_id__in=hidden).count() == 2
    assert all(set(e) == {"seq", "withheld", "digest", "hash"} for e in withheld)
    assert [r for r in data["rolls"] if r["id"] in hidden] == [
        {"id": pk, "session": 1, "withheld": "Rolled in secret: withheld from this export."}
        for pk in sorted(hidden)
    ]


@pytest.mark.django_db
def test_a_players_json_still_verifies_through_the_withheld_entries(played: Table) -> None:
    data = as_json(logged_in(played.player), played.campaign)

    assert data["viewer"] == "player"
    assert check_chain(data)
    public = next(e for e in data["entries"] if e.get("kind") == "roll")
    public["text"] = "I rolled better than that"
    assert not check_chain(data)


@pytest.mark.django_db
def test_the_gm_sees_the_blind_roll_the_player_does_not(played: Table) -> None:
    gm_rows = as_csv(logged_in(played.gm), played.campaign)
    blind = Roll.objects.get(visibility=Visibility.BLIND)

    assert [r["face"] for r in gm_rows if r["roll"] == str(blind.pk)]


# -- a play session ------------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_sessions_export_is_its_slice_of_the_chain(played: Table, dice: Script) -> None:
    table_services.session_end(campaign=played.campaign, actor=played.gm)
    table_services.session_start(campaign=played.campaign, actor=played.gm)
    dice(6, then=1)
    url = reverse("rolls:roll-create", args=[played.campaign.pk, played.character.pk])
    assert (
        logged_in(played.player).post(url, {"trait": "Body", "need": 1}, HTTP_HX_REQUEST="true").status_code
        == 200
    )
    second = Roll.objects.order_by("-id").first()
    assert second is not None and second.session.number == 2

    first_part = as_json(logged_in(played.gm), played.campaign, session=1)
    second_part = as_json(logged_in(played.gm), played.campaign, session=2)

    assert first_part["first_seq"] == 1 and first_part["previous"] == "0" * 64
    assert second_part["first_seq"] == first_part["head"]["seq"] + 1
    assert second_part["previous"] == first_part["head"]["hash"]
    assert check_chain(first_part) and check_chain(second_part)
    assert [r["id"] for r in second_part["rolls"]] == [second.pk]
    assert second_part["entries"][0]["text"].startswith("Session 2 started")
    assert first_part["entries"][-1]["text"] == "Session 1 ended."
    rows = as_csv(logged_in(played.player), played.campaign, session=2)
    assert {r["session"] for r in rows if r["roll"]} == {"2"}


@pytest.mark.django_db
def test_a_bad_format_or_session_is_refused_clearly(played: Table) -> None:
    gm = logged_in(played.gm)

    assert export(gm, played.campaign, format="xml") == (400, b"Choose format=csv or format=json.")
    assert export(gm, played.campaign, session="7") == (400, b"There is no session 7.")
    assert export(gm, played.campaign, session="one")[0] == 400
    assert export(gm, played.campaign, session="99999999999999999999")[0] == 400


# -- access --------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_non_member_gets_404(played: Table) -> None:
    assert export(logged_in(played.outsider), played.campaign)[0] == 404
    assert export(Client(), played.campaign)[0] == 302  # signed out: asked to sign in


@pytest.mark.django_db
def test_another_campaigns_export_is_unreachable(played: Table) -> None:
    other = factories.campaign(name="Elsewhere")
    factories.member(other, played.outsider)

    assert export(logged_in(played.player), other)[0] == 404
    status, body = export(logged_in(played.outsider), other, format="json")
    assert status == 200 and b"The Loop" not in body


@pytest.mark.django_db
def test_the_export_streams(played: Table) -> None:
    response = logged_in(played.gm).get(
        reverse("rolls:export", args=[played.campaign.pk]), {"format": "json"}
    )

    assert response.streaming
    assert response["Content-Disposition"] == f'attachment; filename="campaign-{played.campaign.pk}.json"'


# -- import --------------------------------------------------------------------------------------


def normalised(data: dict[str, Any]) -> dict[str, Any]:
    """The export with each id replaced by its order of appearance, and without what depends
    on the ids (the digests and hashes: an entry's hash covers the ids it names)."""
    ids: dict[tuple[str, int], int] = {}

    def same(kind: str, value: int | None) -> int | None:
        return None if value is None else ids.setdefault((kind, value), len(ids))

    members = sorted(data["members"], key=lambda m: (m["gm"], m["name"]))
    for member in members:
        same("user", member["id"])
    characters = [
        {**c, "id": same("character", c["id"]), "owner": same("user", c["owner"])} for c in data["characters"]
    ]
    rolls = [
        {
            **r,
            "id": same("roll", r["id"]),
            "character": same("character", r["character"]),
            "helper": same("character", r["helper"]),
            "target": same("character", r["target"]),
            "roller": same("user", r["roller"]),
        }
        for r in data["rolls"]
    ]
    entries = [
        {
            **{key: value for key, value in e.items() if key not in ("digest", "hash", "campaign")},
            "roll": same("roll", e["roll"]),
            "actor": same("user", e["actor"]),
            # A reveal's dice name the roll whose seed they reveal.
            **(
                {"dice": {**e["dice"], "roll": same("roll", e["dice"]["roll"])}}
                if "roll" in e.get("dice", {})
                else {}
            ),
        }
        for e in data["entries"]
    ]
    return {
        **{key: value for key, value in data.items() if key not in ("previous", "head", "members")},
        "campaign": {**data["campaign"], "id": None},
        "members": [{**m, "id": same("user", m["id"])} for m in members],
        "characters": characters,
        "rolls": rolls,
        "entries": entries,
        "head": data["head"]["seq"],
    }


def import_file(tmp_path: Path, data: dict[str, Any], *args: str) -> tuple[Campaign, str]:
    path = tmp_path / "export.json"
    path.write_text(json.dumps(data))
    out = io.StringIO()
    call_command("import_campaign", str(path), *args, stdout=out)
    said = out.getvalue()
    return Campaign.objects.get(pk=int(said.strip().splitlines()[-1])), said


@pytest.mark.django_db
def test_an_imported_campaign_exports_the_same_data(played: Table, tmp_path: Path) -> None:
    original = as_json(logged_in(played.gm), played.campaign)
    host = factories.user("host")

    imported, said = import_file(tmp_path, original, "--gm", "host")

    assert imported.pk != played.campaign.pk and imported.gm == host
    assert f"Imported 'The Loop' with {original['head']['seq']} log entries." in said
    again = as_json(logged_in(host), imported)
    # Except an open session's seal: its seed stayed with the other server, so the imported
    # session rolls on without one and shows no hash it cannot keep.
    for session in original["sessions"]:
        if session["ended"] is None:
            session["seed_hash"] = None
    assert normalised(again) == normalised(original)
    assert check_chain(again)
    call_command("verify_log", str(imported.pk), stdout=io.StringIO())  # exits 0
    player = Membership.objects.get(campaign=imported, is_gm=False)
    assert (player.display_name, player.user.has_usable_password()) == ("Player", False)


@pytest.mark.django_db
def test_the_import_refuses_a_file_whose_chain_does_not_verify(played: Table, tmp_path: Path) -> None:
    data = as_json(logged_in(played.gm), played.campaign)
    entry = next(e for e in data["entries"] if e["kind"] == "roll")
    entry["state"]["steps"][0]["dice"] = [6, 6, 6, 6, 6]
    before = Campaign.objects.count()

    with pytest.raises(CommandError, match=f"chain does not verify: Entry {entry['seq']} does not match"):
        import_file(tmp_path, data)
    assert Campaign.objects.count() == before


@pytest.mark.django_db
def test_the_import_refuses_a_players_export(played: Table, tmp_path: Path) -> None:
    data = as_json(logged_in(played.player), played.campaign)

    with pytest.raises(CommandError, match="Only the GM's export of a whole campaign"):
        import_file(tmp_path, data)


@pytest.mark.django_db
def test_the_import_refuses_what_is_not_an_export(tmp_path: Path) -> None:
    path = tmp_path / "notes.json"
    path.write_text("[1, 2]")
    with pytest.raises(CommandError, match="not a campaign export"):
        call_command("import_campaign", str(path))
    path.write_text("{")
    with pytest.raises(CommandError, match="is not JSON"):
        call_command("import_campaign", str(path))
    with pytest.raises(CommandError, match="No account named 'nobody'"):
        call_command("import_campaign", str(path), "--gm", "nobody")


def docs_check() -> str:
    """The Python that docs/verify.md gives anyone to check an export."""
    page = (Path(__file__).resolve().parent.parent / "docs" / "verify.md").read_text()
    return page.split("```python\n", 1)[1].split("```", 1)[0]


@pytest.mark.django_db
@pytest.mark.parametrize("who", ["gm", "player"])
def test_the_docs_lines_check_an_export(played: Table, tmp_path: Path, who: str) -> None:
    data = as_json(logged_in(getattr(played, who)), played.campaign)
    path = tmp_path / "campaign-1.json"
    code = docs_check().replace('"campaign-1.json"', repr(str(path)))
    path.write_text(json.dumps(data))
    out = io.StringIO()

    with redirect_stdout(out):
        exec(code, {})  # the page's own lines, run as a reader would
    assert out.getvalue() == f"intact up to entry {data['head']['seq']} hash {data['head']['hash']}\n"

    entry = next(e for e in data["entries"] if e.get("kind") == "roll")
    entry["text"] = "edited"
    path.write_text(json.dumps(data))
    with pytest.raises(AssertionError, match=f"entry {entry['seq']} was changed"):
        exec(code, {})


def test_under_asgi_the_stream_is_read_a_batch_at_a_time() -> None:
    """Django reads a synchronous stream whole before sending it under ASGI; ours does not."""
    from rolls.history.streaming import BATCH, SyncStreamingResponse

    made = 0

    def parts() -> Any:
        nonlocal made
        for n in range(10 * BATCH):
            made += 1
            yield f"{n},"

    async def first_parts() -> tuple[bytes, int]:
        stream = aiter(SyncStreamingResponse(parts()))
        first = await anext(stream)
        await stream.aclose()  # type: ignore[attr-defined]  # an async generator
        return first, made

    import asyncio
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        first, read = asyncio.run(first_parts())
    assert first == b"0,"
    assert read == BATCH


@pytest.mark.django_db
def test_dice_entered_by_hand_are_marked_in_both_exports_and_kept_by_the_import(table: Table) -> None:
    """Issue 17: faces a player read off real dice are marked, so that a check of the dice's
    fairness can leave them out; the app's own dice are not."""
    from rolls.play import services

    Campaign.objects.filter(pk=table.campaign.pk).update(dice=DiceMode.EITHER)
    table.character.refresh_from_db()
    data = {"attribute": "Body", "skill": "", "need": 1}
    by_hand = services.roll_create(
        character=table.character,
        roller=table.player,
        data=data,
        helper=None,
        intent="",
        rng=ScriptedDice(),
        faces=[6, 1, 2],
    )
    by_app = services.roll_create(
        character=table.character,
        roller=table.player,
        data=data,
        helper=None,
        intent="",
        rng=ScriptedDice(3, 3, 3),
    )
    gm = logged_in(table.gm)

    rows = as_csv(gm, table.campaign)
    marks = {(r["roll"], r["by_hand"]) for r in rows if r["roll"]}
    assert marks == {(str(by_hand.pk), "1"), (str(by_app.pk), "0")}
    exported = as_json(gm, table.campaign)
    assert {r["id"]: r["by_hand"] for r in exported["rolls"]} == {by_hand.pk: True, by_app.pk: False}

    path = Path(tempfile.mkdtemp()) / "export.json"
    path.write_text(json.dumps(exported))
    call_command("import_campaign", str(path), "--gm", table.gm.username, stdout=io.StringIO())
    imported = Campaign.objects.exclude(pk=table.campaign.pk).get()
    assert sorted(imported.rolls.values_list("by_hand", flat=True)) == [False, True]


@pytest.mark.django_db
def test_an_imported_roll_keeps_its_outcome_and_the_gms_void_and_reveal(
    played: Table, tmp_path: Path
) -> None:
    """The row's marks are read back from the imported log: what the history and the
    statistics filter on is the same as in the original campaign."""
    from rolls.history import marks as history_services

    secret = Roll.objects.filter(campaign=played.campaign, visibility="secret").first()
    assert secret is not None
    history_services.roll_reveal(roll=secret, gm=played.gm)
    plain = Roll.objects.filter(campaign=played.campaign, visibility="public").order_by("id").first()
    assert plain is not None
    history_services.roll_void(roll=plain, gm=played.gm)
    factories.user("host")
    imported, _ = import_file(tmp_path, as_json(logged_in(played.gm), played.campaign), "--gm", "host")

    def marks(campaign: Campaign) -> list[tuple[str, str, bool, bool]]:
        rows = Roll.objects.filter(campaign=campaign).order_by("created", "id")
        return [(r.character_name, r.outcome, r.voided, r.revealed) for r in rows]

    assert marks(imported) == marks(played.campaign)
    assert any(voided for _, _, voided, _ in marks(imported))
    assert any(revealed for _, _, _, revealed in marks(imported))
