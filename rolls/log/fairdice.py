"""Dice nobody can steer, from plain values (no Django): what ``docs/verify.md`` tells anyone to
recompute from a JSON export with the standard library.

The server commits to a secret *seed* (32 random bytes) by showing its SHA-256 before any die
is drawn from it, and reveals the seed later. Every entry of the log that draws dice gets its
own stream of bytes:

    block_i = HMAC-SHA256(key=seed, message=ASCII "<seq>:<client>:<i>")   i = 0, 1, 2, ...

``seq`` is the entry's sequence number in the campaign's log (decimal), ``client`` the 16
random bytes the roller's browser sent with the roll as 32 lowercase hex digits (or that the
server drew when none came), and ``i`` the block counter (decimal). The stream is the blocks'
32 bytes one after the other. A die of ``n`` faces reads ``k`` bytes at a time, the fewest
with ``256**k >= n``, as a big-endian number ``x``; ``x`` at or above the largest multiple of
``n`` that fits (``256**k - 256**k % n``) is skipped and the next ``k`` bytes are read, so
every face is equally likely (no modulo bias). The face is ``a + x % n``. A six-sided die
therefore reads one byte and skips 252, 253, 254 and 255.

The host knows the seed but not the client value before the roll; the player knows the client
value but not the seed; neither can choose the dice, and once the seed is revealed anyone can
check that each die is the one this function gives.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets

SEED_BYTES = 32
CLIENT_BYTES = 16
_CLIENT = re.compile(r"[0-9a-f]{32}")
_BLOCK = 32  # bytes of one HMAC-SHA256


def new_seed() -> bytes:
    return secrets.token_bytes(SEED_BYTES)


def new_client_value() -> str:
    """The value the server draws for a roll that came without one (no JavaScript)."""
    return secrets.token_hex(CLIENT_BYTES)


def commitment(seed: bytes) -> str:
    """What is shown before the seed is revealed: its SHA-256, in hex."""
    return hashlib.sha256(seed).hexdigest()


def client_value(raw: str) -> str | None:
    """A browser's value as the log keeps it (lowercase hex), or None when it sent none.
    Raises ValueError for anything else: the dice would come from a value nobody chose."""
    value = raw.strip().lower()
    if not value:
        return None
    if not _CLIENT.fullmatch(value):
        raise ValueError("The browser's random value for the dice is not 32 hexadecimal digits.")
    return value


def message(seq: int, client: str, block: int) -> bytes:
    return f"{seq}:{client}:{block}".encode("ascii")


class FairDice:
    """An ``Rng`` (``rolls.systems.base``) for one log entry: the dice drawn from ``seed`` for
    entry ``seq`` and the roller's ``client`` value. ``drawn`` lists what ``randint`` answered,
    in order: the log keeps it, and the check compares it with a recomputed stream."""

    def __init__(self, seed: bytes, seq: int, client: str) -> None:
        self.seed = seed
        self.seq = seq
        self.client = client
        self.drawn: list[int] = []
        self._block = 0
        self._bytes = b""
        self._at = 0

    def _take(self, count: int) -> bytes:
        while len(self._bytes) - self._at < count:
            block = hmac.digest(self.seed, message(self.seq, self.client, self._block), "sha256")
            self._bytes = self._bytes[self._at :] + block
            self._at = 0
            self._block += 1
        taken = self._bytes[self._at : self._at + count]
        self._at += count
        return taken

    def randint(self, a: int, b: int) -> int:
        span = b - a + 1
        if span < 1:
            raise ValueError(f"No integer lies between {a} and {b}.")
        width = 1
        while 256**width < span:
            width += 1
        room = 256**width
        limit = room - room % span  # the largest multiple of span that fits: no modulo bias
        while True:
            x = int.from_bytes(self._take(width), "big")
            if x < limit:
                break
        face = a + x % span
        self.drawn.append(face)
        return face


def draws(seed: bytes, seq: int, client: str, count: int, faces: int = 6) -> list[int]:
    """The first ``count`` dice of ``faces`` faces of one entry's stream."""
    dice = FairDice(seed, seq, client)
    return [dice.randint(1, faces) for _ in range(count)]
