"""Dice nobody can steer, at the table: a play session commits to a seed, every die of the app
comes from it (a secret or blind roll's from its own), the seed is revealed when the session
ends (a hidden roll's when the GM reveals it), and ``manage.py verify_dice`` recomputes every
die of an export. Played through the real views, with the values a phone's script sends."""

from __future__ import annotations

import hashlib
import hmac
import io
import json
from collections.abc import Iterator
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from rolls.log import fairdice
from rolls.models import LogEntry, Roll, Visibility
from tabletop.models import Campaign, DiceMode, PlaySession
from tests import factories
from tests.factories import Table, logged_in
from tests.test_consumers import open_socket, sync
from tests.test_display import display_url, open_display

# Seeds the server "draws", in order: the session's first, then each hidden roll's own.
SEEDS = [hashlib.sha256(f"seed {n}".encode()).digest() for n in range(8)]
PHONE = "0123456789abcdef0123456789abcdef"  # what the player's script sent
PUSH = "fedcba9876543210fedcba9876543210"
GM_PHONE = "00000000000000000000000000000001"
# A value per request: the same one again is the same request (rolls/log/resent.py).
BLIND_PHONE = "00000000000000000000000000000002"


@pytest.fixture
def seeded(db: None, monkeypatch: pytest.MonkeyPatch) -> Iterator[Table]:
    """A table whose seeds are known to the test, so that its dice are too."""
    seeds = iter(SEEDS)
    monkeypatch.setattr(fairdice, "new_seed", lambda: next(seeds))
    yield factories.table()


def d6(seed: bytes, seq: int, client: str, count: int) -> list[int]:
    """docs/verify.md's dice, written out here with hmac itself: each byte under 252 a die."""
    data = b"".join(
        hmac.new(seed, f"{seq}:{client}:{block}".encode(), hashlib.sha256).digest() for block in range(4)
    )
    return [byte % 6 + 1 for byte in data if byte < 252][:count]


def roll_url(table: Table) -> str:
    return reverse("rolls:roll-create", args=[table.campaign.pk, table.character.pk])


def follow_url(table: Table, roll: Roll) -> str:
    return reverse("rolls:follow-up", args=[table.campaign.pk, roll.pk])


def entry_of(roll: Roll, action: str = "roll") -> LogEntry:
    return LogEntry.objects.get(roll=roll, action=action)


def export_json(client: Client, campaign: Campaign) -> dict[str, Any]:
    response = client.get(reverse("rolls:export", args=[campaign.pk]), {"format": "json"})
    assert response.status_code == 200
    return json.loads(b"".join(response.streaming_content))  # type: ignore[attr-defined,no-any-return]


def verify_dice(tmp_path: Path, data: dict[str, Any]) -> tuple[int, str]:
    path = tmp_path / "campaign.json"
    path.write_text(json.dumps(data))
    out, err = io.StringIO(), io.StringIO()
    try:
        call_command("verify_dice", str(path), stdout=out, stderr=err)
    except SystemExit as exit_:
        return int(exit_.code or 0), err.getvalue()
    return 0, out.getvalue()


def play(table: Table) -> dict[str, Roll]:
    """A roll and a push from the phone, a GM roll without a script, a secret GM roll and a
    blind roll; the GM reveals the secret one."""
    player, gm = logged_in(table.player), logged_in(table.gm)
    sent = {"trait": "Body", "need": 2, "client_random": PHONE}
    assert player.post(roll_url(table), sent, HTTP_HX_REQUEST="true").status_code == 200
    public = Roll.objects.get()
    push = {"action": "push", "condition": "Upset", "description": "Olle kicks", "client_random": PUSH}
    assert player.post(follow_url(table, public), push, HTTP_HX_REQUEST="true").status_code == 200
    npc_url = reverse("rolls:npc-roll", args=[table.campaign.pk])
    npc = {"name": "Guard", "flag_dice": "4", "flag_need": "1"}
    assert gm.post(npc_url, npc, HTTP_HX_REQUEST="true").status_code == 200
    secret = {"name": "Warden", "flag_dice": "5", "flag_need": "1", "secret": "on", "client_random": GM_PHONE}
    assert gm.post(npc_url, secret, HTTP_HX_REQUEST="true").status_code == 200
    blind = {"trait": "Body", "need": 1, "blind": "on", "client_random": BLIND_PHONE}
    assert player.post(roll_url(table), blind, HTTP_HX_REQUEST="true").status_code == 200
    rolls = {
        "public": public,
        "guard": Roll.objects.get(character_name="Guard"),
        "secret": Roll.objects.get(visibility=Visibility.SECRET),
        "blind": Roll.objects.get(visibility=Visibility.BLIND),
    }
    reveal = reverse("rolls:roll-reveal", args=[table.campaign.pk, rolls["secret"].pk])
    assert gm.post(reveal, {"confirmed": "yes"}).status_code in (200, 302)
    return rolls


@pytest.mark.django_db
def test_the_session_commits_to_its_seed_before_the_first_roll(seeded: Table) -> None:
    session = PlaySession.objects.get()
    start = LogEntry.objects.get(action="session-start")

    assert session.seed == SEEDS[0].hex()
    assert session.seed_hash == hashlib.sha256(SEEDS[0]).hexdigest()
    # And to the seed its first secret or blind roll will take, before any roll is asked for.
    assert start.dice == {
        "session": 1,
        "commit": session.seed_hash,
        "next_hidden": hashlib.sha256(SEEDS[1]).hexdigest(),
    }
    for page in (reverse("rolls:session", args=[seeded.campaign.pk]), display_url(seeded.campaign)):
        html = logged_in(seeded.gm).get(page).content.decode()
        assert session.seed_hash[:12] in html and 'title="SHA-256 of this session' in html
        assert session.seed_hash in html  # the whole hash, in the title


@pytest.mark.django_db
def test_each_die_comes_from_the_seed_the_entry_and_the_phones_value(seeded: Table) -> None:
    rolls = play(seeded)
    roll, push = entry_of(rolls["public"]), entry_of(rolls["public"], "push")

    assert roll.dice is not None and push.dice is not None
    assert roll.dice == {
        "seed": "session",
        "client": PHONE,
        "client_from": "browser",
        "drawn": d6(SEEDS[0], roll.seq, PHONE, len(roll.dice["drawn"])),
    }
    assert roll.state is not None and roll.state["steps"][0]["dice"] == roll.dice["drawn"]
    assert push.dice["client"] == PUSH
    assert push.dice["drawn"] == d6(SEEDS[0], push.seq, PUSH, len(push.dice["drawn"]))
    # The GM's quick roll came without a script's value: the server drew one, and says so.
    guard = entry_of(rolls["guard"]).dice
    assert guard is not None and guard["client_from"] == "server"
    assert fairdice.client_value(guard["client"]) == guard["client"]
    # A hidden roll draws from a seed of its own, committed in its entry.
    secret = entry_of(rolls["secret"])
    assert rolls["secret"].seed == SEEDS[1].hex() and rolls["blind"].seed == SEEDS[2].hex()
    assert secret.dice is not None and secret.dice["seed"] == "roll"
    assert secret.dice["commit"] == hashlib.sha256(SEEDS[1]).hexdigest()  # announced at the start
    assert secret.dice["next_hidden"] == hashlib.sha256(SEEDS[2]).hexdigest()  # the blind roll's
    assert secret.dice["drawn"] == d6(SEEDS[1], secret.seq, GM_PHONE, 5)


@pytest.mark.django_db
def test_a_whole_session_checks_out_once_its_seed_is_revealed(seeded: Table, tmp_path: Path) -> None:
    rolls = play(seeded)
    gm = logged_in(seeded.gm)
    before = export_json(gm, seeded.campaign)
    code, said = verify_dice(tmp_path, before)
    assert code == 0, said
    assert said.startswith("Checked 5 dice in 1 entry")  # the secret roll, revealed already
    assert "Not checkable yet: session 1's seed is not revealed (3 with dice)." in said
    assert f"Not checkable yet: roll {rolls['blind'].pk}'s seed is not revealed (1 with dice)." in said

    assert gm.post(
        reverse("rolls:session-end", args=[seeded.campaign.pk]), {"confirmed": "yes"}
    ).status_code in (
        200,
        302,
    )
    end = LogEntry.objects.get(action="session-end")
    assert end.dice == {"session": 1, "seed": SEEDS[0].hex()}
    data = export_json(gm, seeded.campaign)
    assert data["sessions"][0]["seed"] == SEEDS[0].hex()
    assert data["sessions"][0]["seed_hash"] == hashlib.sha256(SEEDS[0]).hexdigest()
    drawn = sum(len(e["dice"]["drawn"]) for e in data["entries"] if e["kind"] != "event" and e.get("dice"))
    blind = len(entry_of(rolls["blind"]).dice["drawn"])  # type: ignore[index]

    code, said = verify_dice(tmp_path, data)

    assert code == 0, said
    assert said.splitlines()[0] == (
        f"Checked {drawn - blind} dice in 4 entries: each is the die its revealed seed gives."
    )
    # The history shows the seed that was sealed, whole, a tap away.
    html = logged_in(seeded.player).get(reverse("rolls:history", args=[seeded.campaign.pk])).content.decode()
    assert SEEDS[0].hex() in html and hashlib.sha256(SEEDS[0]).hexdigest() in html


@pytest.mark.django_db
def test_a_changed_die_fails_naming_its_entry(seeded: Table, tmp_path: Path) -> None:
    rolls = play(seeded)
    gm = logged_in(seeded.gm)
    gm.post(reverse("rolls:session-end", args=[seeded.campaign.pk]), {"confirmed": "yes"})
    data = export_json(gm, seeded.campaign)
    seq = entry_of(rolls["public"], "push").seq
    entry = next(e for e in data["entries"] if e["seq"] == seq)

    # A die on the card, changed: the faces drawn no longer say so.
    shown = entry["state"]["steps"][-1]
    index = shown["rerolled"][0]
    was = shown["dice"][index]
    shown["dice"][index] = was % 6 + 1
    code, said = verify_dice(tmp_path, data)
    assert code == 1
    assert said.startswith(f"Entry {seq} does not match: its dice show")

    # The faces drawn, changed to match: the seed does not give them.
    entry["dice"]["drawn"][0] = was % 6 + 1
    code, said = verify_dice(tmp_path, data)
    assert code == 1
    assert said.startswith(f"Entry {seq} does not match: it drew")

    # Another seed, revealed in its place: not the one whose hash was shown.
    data = export_json(gm, seeded.campaign)
    end = next(e for e in data["entries"] if e["action"] == "session-end")
    end["dice"]["seed"] = SEEDS[5].hex()
    first = entry_of(rolls["public"]).seq
    code, said = verify_dice(tmp_path, data)
    assert (code, said.strip()) == (
        1,
        f"Entry {first} does not match: the revealed seed is not the one whose hash was shown.",
    )


def hidden_seeds(rolls: dict[str, Roll]) -> list[bytes]:
    """What must reach nobody: the session's seed, and each hidden roll's, in every spelling."""
    seeds = [SEEDS[0], bytes.fromhex(rolls["blind"].seed)]
    return [form for seed in seeds for form in (seed, seed.hex().encode(), seed.hex().upper().encode())]


def assert_none_in(body: bytes, secrets: list[bytes], where: str) -> None:
    for secret in secrets:
        assert secret not in body, f"a hidden seed reached {where}"


@pytest.mark.django_db
def test_a_hidden_rolls_seed_and_the_sessions_reach_no_page_or_export(seeded: Table) -> None:
    rolls = play(seeded)
    secrets = hidden_seeds(rolls)
    campaign = seeded.campaign
    pk = campaign.pk
    pages = [
        reverse("rolls:campaign", args=[pk]),
        reverse("rolls:character", args=[pk, seeded.character.pk]),
        reverse("rolls:history", args=[pk]),
        reverse("rolls:roll", args=[pk, rolls["blind"].pk]),
        reverse("rolls:roll", args=[pk, rolls["public"].pk]),
    ]
    for who in (seeded.player, seeded.gm):
        client = logged_in(who)
        for page in [*pages, reverse("rolls:session", args=[pk])]:
            assert_none_in(client.get(page).content, secrets, page)
        for format_ in ("json", "csv"):
            response = client.get(reverse("rolls:export", args=[pk]), {"format": format_})
            assert_none_in(b"".join(response.streaming_content), secrets, f"the {format_} export")  # type: ignore[attr-defined]
    assert_none_in(Client().get(display_url(campaign)).content, secrets, "the display")
    # The blind roll's own seal is anyone's to see: its hash, on its page.
    page = logged_in(seeded.player).get(reverse("rolls:roll", args=[pk, rolls["blind"].pk])).content.decode()
    assert rolls["blind"].seed_hash in page and "Revealed when the GM reveals the roll." in page

    # Revealed by the GM, the blind roll's seed is anyone's; the session's still is nobody's.
    reveal = reverse("rolls:roll-reveal", args=[pk, rolls["blind"].pk])
    logged_in(seeded.gm).post(reveal, {"confirmed": "yes"})
    history = logged_in(seeded.player).get(reverse("rolls:history", args=[pk])).content
    assert rolls["blind"].seed.encode() in history
    assert_none_in(history, hidden_seeds(rolls)[:3], "the history")
    data = export_json(logged_in(seeded.player), campaign)
    blind = next(r for r in data["rolls"] if r["id"] == rolls["blind"].pk)
    assert blind["seed"] == rolls["blind"].seed


@pytest.mark.django_db(transaction=True)
async def test_no_socket_carries_a_hidden_seed(seeded: Table) -> None:
    rolls = await database_sync_to_async(play)(seeded)
    secrets = hidden_seeds(rolls)
    campaign = await database_sync_to_async(Campaign.objects.get)(pk=seeded.campaign.pk)

    for who in (seeded.player, seeded.gm):
        socket, connected, _ = await open_socket(campaign.pk, who)
        assert connected
        frames = await sync(socket, 0, campaign.last_seq)
        await socket.disconnect()
        assert_none_in("".join(frames).encode(), secrets, "a member's socket")
    display, connected = await open_display(campaign.display_token)
    assert connected
    frames = await sync(display, 0, campaign.last_seq)
    await display.disconnect()
    assert_none_in("".join(frames).encode(), secrets, "the display's socket")


@pytest.mark.django_db
def test_without_a_script_the_form_still_rolls_and_the_server_draws_the_value(seeded: Table) -> None:
    player = logged_in(seeded.player)
    page = player.get(
        reverse("rolls:character", args=[seeded.campaign.pk, seeded.character.pk])
    ).content.decode()
    assert '<input type="hidden" name="client_random" value="">' in page

    response = player.post(roll_url(seeded), {"trait": "Body", "need": 1, "client_random": ""})

    assert response.status_code == 302
    dice = entry_of(Roll.objects.get()).dice
    assert dice is not None and dice["client_from"] == "server"
    assert dice["drawn"] == d6(SEEDS[0], entry_of(Roll.objects.get()).seq, dice["client"], len(dice["drawn"]))


@pytest.mark.django_db
def test_a_value_that_is_not_16_bytes_of_hex_is_refused_and_nothing_rolls(seeded: Table) -> None:
    player = logged_in(seeded.player)
    sent = {"trait": "Body", "need": 1, "client_random": "not-random"}

    response = player.post(roll_url(seeded), sent, HTTP_HX_REQUEST="true")

    assert response.status_code == 422
    assert "32 hexadecimal digits" in response.content.decode()
    assert not Roll.objects.exists()


@pytest.mark.django_db
def test_dice_entered_by_hand_use_no_seed(seeded: Table) -> None:
    Campaign.objects.filter(pk=seeded.campaign.pk).update(dice=DiceMode.PHYSICAL)
    player = logged_in(seeded.player)

    sent = {"trait": "Body", "need": 1, "faces": "6 5 4", "client_random": PHONE}
    response = player.post(roll_url(seeded), sent, HTTP_HX_REQUEST="true")

    assert response.status_code == 200, response.content.decode()
    roll = Roll.objects.get()
    assert roll.by_hand and entry_of(roll).dice is None and roll.seed == ""


def docs_dice_check() -> str:
    """The Python that docs/verify.md gives anyone to recompute the dice of an export."""
    page = (Path(__file__).resolve().parent.parent / "docs" / "verify.md").read_text()
    return page.split("```python\n")[2].split("```", 1)[0]


@pytest.mark.django_db
def test_the_docs_lines_recompute_the_dice(seeded: Table, tmp_path: Path) -> None:
    rolls = play(seeded)
    gm = logged_in(seeded.gm)
    gm.post(reverse("rolls:session-end", args=[seeded.campaign.pk]), {"confirmed": "yes"})
    data = export_json(gm, seeded.campaign)
    path = tmp_path / "campaign-1.json"
    path.write_text(json.dumps(data))
    code = docs_dice_check().replace('"campaign-1.json"', repr(str(path)))
    blind = entry_of(rolls["blind"]).seq
    drawn = sum(
        len(e["dice"]["drawn"])
        for e in data["entries"]
        if e["kind"] != "event" and e.get("dice") and e["seq"] != blind
    )
    out = io.StringIO()

    with redirect_stdout(out):
        exec(code, {})  # the page's own lines, run as a reader would
    assert out.getvalue() == f"checked {drawn} dice\n"

    entry = next(e for e in data["entries"] if e.get("dice") and e["kind"] == "roll")
    entry["dice"]["drawn"][0] = entry["dice"]["drawn"][0] % 6 + 1
    path.write_text(json.dumps(data))
    with pytest.raises(AssertionError, match=f"entry {entry['seq']}: its dice are not the seed's"):
        exec(code, {})


@pytest.mark.django_db
def test_verify_dice_says_in_plain_words_what_a_players_file_cannot_check(
    seeded: Table, tmp_path: Path
) -> None:
    """Before the reveal a hidden roll's seed is "not revealed"; after it, in a player's file that
    withholds the GM's secret roll which announced that seed, the line says so in words of its
    own. It read "roll 7 (its seed was announced in a withheld entry)'s seed is not revealed", and
    "1 entries are withheld"."""
    player, gm = logged_in(seeded.player), logged_in(seeded.gm)
    npc_url = reverse("rolls:npc-roll", args=[seeded.campaign.pk])
    secret = {"name": "Warden", "flag_dice": "5", "flag_need": "1", "secret": "on", "client_random": GM_PHONE}
    assert gm.post(npc_url, secret, HTTP_HX_REQUEST="true").status_code == 200
    blind = {"trait": "Body", "need": 1, "blind": "on", "client_random": BLIND_PHONE}
    assert player.post(roll_url(seeded), blind, HTTP_HX_REQUEST="true").status_code == 200
    warden, blind_roll = (
        Roll.objects.get(visibility=Visibility.SECRET),
        Roll.objects.get(visibility=Visibility.BLIND),
    )
    checked_none = "Checked 0 dice in 0 entries: each is the die its revealed seed gives."

    code, said = verify_dice(tmp_path, export_json(gm, seeded.campaign))
    assert code == 0, said
    *lines, chain = said.splitlines()
    assert lines[0] == checked_none and chain.startswith("The file's chain is intact: ")
    assert sorted(lines[1:]) == sorted(
        f"Not checkable yet: roll {roll.pk}'s seed is not revealed (1 with dice)."
        for roll in (warden, blind_roll)
    )

    reveal = reverse("rolls:roll-reveal", args=[seeded.campaign.pk, blind_roll.pk])
    assert gm.post(reveal, {"confirmed": "yes"}).status_code in (200, 302)
    code, said = verify_dice(tmp_path, export_json(player, seeded.campaign))
    assert code == 0, said
    *lines, chain = said.splitlines()
    assert lines == [
        checked_none,
        f"Not checkable from this file: roll {blind_roll.pk}'s seed was announced in an entry withheld "
        "from it (1 with dice).",
        "1 entry is withheld from this export (a secret roll).",
    ]
    assert chain.startswith("The file's chain is intact: ")
