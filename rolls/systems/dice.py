"""Exact enumeration of d6 pools, shared by every system's odds.

Rolling ``n`` six-sided dice has 6**n ordered outcomes but only C(n+5, 5) distinct multisets,
so the systems enumerate *face counts* (how many ones, twos, ... sixes) weighted by their
multinomial probability. Thirteen dice are 8,568 multisets instead of 13 billion sequences.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator
from fractions import Fraction
from functools import cache
from math import factorial

FACES = (1, 2, 3, 4, 5, 6)

Counts = tuple[int, int, int, int, int, int]
"""How many dice show each face: ``counts[face - 1]``."""


def _compositions(total: int, parts: int) -> Iterator[tuple[int, ...]]:
    if parts == 1:
        yield (total,)
        return
    for first in range(total, -1, -1):
        for rest in _compositions(total - first, parts - 1):
            yield (first, *rest)


@cache
def face_counts(n: int) -> tuple[tuple[Counts, Fraction], ...]:
    """Every multiset of ``n`` d6 as face counts, with its exact probability."""
    if n < 0:
        raise ValueError("a pool cannot have fewer than zero dice")
    total = 6**n
    top = factorial(n)
    result: list[tuple[Counts, Fraction]] = []
    for counts in _compositions(n, 6):
        ways = top
        for count in counts:
            ways //= factorial(count)
        result.append((counts, Fraction(ways, total)))  # type: ignore[arg-type]
    return tuple(result)


def distribution[K: Hashable](n: int, key: Callable[[Counts], K]) -> dict[K, Fraction]:
    """The exact distribution of ``key(counts)`` over every roll of ``n`` d6."""
    result: dict[K, Fraction] = {}
    for counts, chance in face_counts(n):
        k = key(counts)
        result[k] = result.get(k, Fraction(0)) + chance
    return result


def counts_of(dice: list[int] | tuple[int, ...]) -> Counts:
    counts = [0] * 6
    for face in dice:
        counts[face - 1] += 1
    return tuple(counts)  # type: ignore[return-value]


def binomial(n: int, p: Fraction) -> list[Fraction]:
    """P(exactly k successes) for k in 0..n, each die succeeding with chance ``p``."""
    from math import comb

    return [comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(n + 1)]
