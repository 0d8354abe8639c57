"""The dice nobody can steer (rolls/log/fairdice.py), from plain values: the stream against vectors
computed here with the hmac module directly, the rejection of the bytes that would bias a die,
and the client value as the views accept it. No database."""

from __future__ import annotations

import hashlib
import hmac
from collections import Counter

import pytest

from rolls.log import fairdice
from rolls.systems.base import roll_dice

SEED = bytes(range(32))
CLIENT = "00112233445566778899aabbccddeeff"


def stream(seed: bytes, seq: int, client: str, blocks: int) -> bytes:
    """The entry's bytes as docs/verify.md defines them, written out again here."""
    return b"".join(
        hmac.new(seed, f"{seq}:{client}:{block}".encode("ascii"), hashlib.sha256).digest()
        for block in range(blocks)
    )


def d6_by_hand(seed: bytes, seq: int, client: str, count: int) -> list[int]:
    """Each byte below 252 (42 sixes of faces) is a die, ``byte % 6 + 1``; the others are skipped."""
    return [byte % 6 + 1 for byte in stream(seed, seq, client, 8) if byte < 252][:count]


def test_the_dice_are_the_hmac_stream_read_a_byte_at_a_time() -> None:
    assert fairdice.draws(SEED, 7, CLIENT, 10) == [6, 2, 6, 1, 6, 5, 1, 6, 5, 3]
    assert fairdice.draws(SEED, 7, CLIENT, 10) == d6_by_hand(SEED, 7, CLIENT, 10)


def test_the_stream_goes_on_into_the_next_blocks() -> None:
    """Thirty-two bytes a block: a pool of 60 dice reads at least two blocks."""
    seed = hashlib.sha256(b"another seed").digest()
    client = "ffeeddccbbaa99887766554433221100"
    assert fairdice.draws(seed, 123, client, 60) == d6_by_hand(seed, 123, client, 60)


def test_every_part_of_the_message_changes_the_dice() -> None:
    dice = fairdice.draws(SEED, 7, CLIENT, 20)
    assert fairdice.draws(SEED, 8, CLIENT, 20) != dice
    assert fairdice.draws(SEED, 7, CLIENT[:-1] + "0", 20) != dice
    assert fairdice.draws(bytes(32), 7, CLIENT, 20) != dice


def test_a_byte_that_would_favour_low_faces_is_skipped() -> None:
    """Without rejection, 252..255 would make 1-4 slightly likelier than 5 and 6 (modulo
    bias). Entry 64 of this seed and value starts with such a byte: the die is the next one."""
    first, second = stream(SEED, 64, CLIENT, 1)[:2]
    assert first >= 252 and second < 252
    dice = fairdice.FairDice(SEED, 64, CLIENT)

    assert dice.randint(1, 6) == second % 6 + 1 == 3
    assert dice.drawn == [3]
    # A die of 4 faces divides 256: no byte is skipped, that first one counts.
    assert fairdice.FairDice(SEED, 64, CLIENT).randint(1, 4) == first % 4 + 1


def test_a_die_of_more_than_256_faces_reads_two_bytes() -> None:
    data = stream(SEED, 7, CLIENT, 1)
    x = int.from_bytes(data[:2], "big")
    assert x < 65536 - 65536 % 1000
    assert fairdice.FairDice(SEED, 7, CLIENT).randint(1, 1000) == 1 + x % 1000
    assert fairdice.FairDice(SEED, 7, CLIENT).randint(5, 5) == 5


def test_each_face_comes_up_as_often_from_one_seed() -> None:
    """Chi-square over 60,000 dice of one entry's stream, against the 1-in-a-million bound."""
    counts = Counter(roll_dice(fairdice.FairDice(SEED, 1, CLIENT), 60_000))
    chi_square = sum((counts[face] - 10_000) ** 2 / 10_000 for face in range(1, 7))
    assert chi_square < 35.9


def test_the_commitment_is_the_seeds_sha256() -> None:
    assert fairdice.commitment(SEED) == hashlib.sha256(SEED).hexdigest()
    assert len(fairdice.new_seed()) == 32 and fairdice.new_seed() != fairdice.new_seed()


@pytest.mark.parametrize(
    ("raw", "kept"),
    [("", None), ("  ", None), (CLIENT, CLIENT), (CLIENT.upper(), CLIENT), (f" {CLIENT}\n", CLIENT)],
)
def test_a_browsers_value_is_kept_as_lowercase_hex(raw: str, kept: str | None) -> None:
    assert fairdice.client_value(raw) == kept


@pytest.mark.parametrize("raw", ["abc", CLIENT + "0", "g" * 32, "0x" + CLIENT[2:], CLIENT[:16] + "é" * 16])
def test_anything_else_is_refused(raw: str) -> None:
    with pytest.raises(ValueError, match="32 hexadecimal digits"):
        fairdice.client_value(raw)


def test_the_server_draws_a_value_of_the_same_shape() -> None:
    value = fairdice.new_client_value()
    assert fairdice.client_value(value) == value
