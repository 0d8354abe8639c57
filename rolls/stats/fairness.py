"""Are my dice cursed? The arithmetic of the statistics pages, in pure Python (no Django).

**The luck of one roll** is its result placed in the exact distribution of its own request:
the engine's ``outcomes(request)``, its keys ordered from the worst result to the best by
``DiceSystem.result_order``. A roll that came to ``x`` gets the mid-rank percentile

    u = P(X < x) + P(X = x) / 2

so a roll of 3 sixes, 5 Stars or a 2x4 bid compare on one scale, whatever the system, the
pool or the difficulty. Under fair dice u averages exactly 1/2, and its variance is exactly
``sum p * (u - 1/2)**2`` over the distribution (which is ``(1 - sum p**3) / 12``): ties make
it smaller than a continuous uniform's 1/12, and the test below uses the exact value.

**Follow-ups count once, through the first throw.** A roll's percentile is its first throw
(the roll step alone, before any push, Luck, drama die or bid) against the request's
distribution. A follow-up is a choice made after seeing the dice (a push is taken on a
failure), so scoring the final result, or each throw, would let those choices pass for luck.
The dice a follow-up rerolls still count in the face counts below, which choices cannot bend.

**The verdict** on a set of rolls (a character's, in a session or a whole campaign) is a
z-test on the sum of their percentiles: ``z = (sum u - n/2) / sqrt(sum var)``, with the exact
variance of each roll, and the two-sided p-value ``erfc(|z| / sqrt 2)``. Below ``P_UNUSUAL``
(1%) the dice are called unusually lucky or unlucky; otherwise "nothing unusual". The 1% is on
purpose: a table looks at every character every evening, and at 5% one character in twenty
would seem cursed by chance alone each session. Under ``MIN_ROLLS`` rolls there is no verdict.

**The faces** of every die rolled (every throw, rerolls and drama dice included: choices
decide which dice are rolled, never what they show) are tested against a fair d6 by Pearson's
chi-square with 5 degrees of freedom; its survival function has a closed form for odd degrees
of freedom (``chi2_sf_5``). Under ``MIN_DICE`` dice (five expected per face) there is no verdict.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext

from rolls.systems.base import DiceSystem

P_UNUSUAL = 0.01
MIN_ROLLS = 5
MIN_DICE = 30


@dataclass(frozen=True)
class Placement:
    """Where a result lies in its distribution: the mid-rank percentile and, for the roll it
    scores, the variance of that percentile under fair dice (the same for every result)."""

    percentile: Fraction
    variance: Fraction


def placements(distribution: Mapping[str, Fraction], order: Sequence[str]) -> dict[str, Placement]:
    """Each result key's mid-rank percentile in ``distribution``, ``order`` worst first."""
    below = Fraction(0)
    mids: dict[str, Fraction] = {}
    for key in order:
        p = distribution[key]
        mids[key] = below + p / 2
        below += p
    half = Fraction(1, 2)
    variance = sum((distribution[key] * (mid - half) ** 2 for key, mid in mids.items()), Fraction(0))
    return {key: Placement(mid, variance) for key, mid in mids.items()}


@lru_cache(maxsize=4096)
def _placements_for(system: DiceSystem, request: Any) -> dict[str, tuple[float, float]]:
    distribution = system.outcomes(request)
    found = placements(distribution, system.result_order(list(distribution)))
    return {key: (float(place.percentile), float(place.variance)) for key, place in found.items()}


@lru_cache(maxsize=4096)
def chance(system: DiceSystem, request: Any) -> float | None:
    """The engine's exact chance of success of ``request`` as a float, kept per request (some
    engines sum their distribution on every call)."""
    exact = system.chance(request)
    return None if exact is None else float(exact)


def placement(system: DiceSystem, request: Any, key: str) -> tuple[float, float] | None:
    """The percentile and its variance of a first throw that came to ``key``, as floats for
    the database; kept per request, as the engine keeps its odds. None for a key the
    distribution does not hold (which a fair engine never gives)."""
    return _placements_for(system, request).get(key)


# The readings that need no figure, marked for the catalogue and translated when read.
READINGS = {
    "usual": gettext_lazy("nothing unusual"),
    "lucky": gettext_lazy("unusually lucky"),
    "unlucky": gettext_lazy("unusually unlucky"),
    "unfair": gettext_lazy("the faces look unfair"),
    "fair": gettext_lazy("nothing unusual: the faces look fair"),
}


@dataclass(frozen=True)
class Verdict:
    """A plain-words reading of a test: its statistic and p-value, and what that means."""

    count: int  # rolls, or dice
    mean: float | None  # the mean percentile (0-1); None for the faces
    p_value: float | None  # None: too few to tell
    reading: str  # what the test found: "none", "few-rolls", "few-dice" or a key of ``READINGS``

    @property
    def words(self) -> str:
        """The reading in plain words, in the active language: the figures are cached per log
        position and may be read by a page in another language than the one that made them."""
        if self.reading == "none":
            return _("no rolls to read")
        if self.reading == "few-rolls":
            return _("too few rolls to tell (fewer than %(count)s)") % {"count": MIN_ROLLS}
        if self.reading == "few-dice":
            return _("too few dice to tell (fewer than %(count)s)") % {"count": MIN_DICE}
        return str(READINGS[self.reading])

    @property
    def unusual(self) -> bool:
        return self.p_value is not None and self.p_value < P_UNUSUAL

    @property
    def p_text(self) -> str:
        """The p-value as a sentence writes it: "p = 0.20", "p < 0.001"."""
        if self.p_value is None:
            return ""
        if self.p_value < 0.001:
            return "p < 0.001"
        return f"p = {self.p_value:.2f}" if self.p_value >= 0.01 else f"p = {self.p_value:.3f}"

    @property
    def percentile_text(self) -> str:
        """The mean percentile as an ordinal: "31st percentile"."""
        if self.mean is None:
            return ""
        # Translators: "31st percentile"; the number is already an ordinal in your language.
        return _("%(ordinal)s percentile") % {"ordinal": ordinal(percentile_number(self.mean))}


def luck_verdict(count: int, percentile_sum: float, variance_sum: float) -> Verdict:
    """The z-test on the sum of ``count`` rolls' percentiles (each with its exact variance)."""
    if count == 0:
        return Verdict(0, None, None, "none")
    mean = percentile_sum / count
    if count < MIN_ROLLS or variance_sum <= 0:
        return Verdict(count, mean, None, "few-rolls")
    z = (percentile_sum - count / 2) / math.sqrt(variance_sum)
    p = math.erfc(abs(z) / math.sqrt(2))
    if p >= P_UNUSUAL:
        words = "usual"
    else:
        words = "lucky" if z > 0 else "unlucky"
    return Verdict(count, mean, p, words)


def chi2_sf_5(x: float) -> float:
    """P(X >= x) for a chi-square variable with 5 degrees of freedom, in closed form:
    erfc(sqrt(x/2)) + sqrt(2x/pi) * exp(-x/2) * (1 + x/3)."""
    if x <= 0:
        return 1.0
    return math.erfc(math.sqrt(x / 2)) + math.sqrt(2 * x / math.pi) * math.exp(-x / 2) * (1 + x / 3)


def chi_square(faces: Sequence[int]) -> float:
    """Pearson's statistic of the six face counts against a fair d6."""
    total = sum(faces)
    expected = total / 6
    return sum((count - expected) ** 2 / expected for count in faces) if total else 0.0


def faces_verdict(faces: Sequence[int]) -> tuple[float, Verdict]:
    """The chi-square statistic of the face counts and its verdict."""
    total = sum(faces)
    statistic = chi_square(faces)
    if total < MIN_DICE:
        return statistic, Verdict(total, None, None, "few-dice")
    p = chi2_sf_5(statistic)
    words = "unfair" if p < P_UNUSUAL else "fair"
    return statistic, Verdict(total, None, p, words)


def percentile_number(share: float) -> int:
    """A share (0-1) as a percentile from the 1st to the 99th: a roll of three sixes is at
    99.8%, and "the 100th percentile" would say nothing could beat it."""
    return min(99, max(1, round(share * 100)))


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th, 11th, 12th, 13th, 21st..."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    # Translators: an ordinal number by the English suffix it takes ("st": 1st, 21st; "nd": 2nd;
    # "rd": 3rd; "th": the rest); write your language's ordinal ("%(n)s." in German).
    if suffix == "st":
        return pgettext("ordinal ending in st", "%(n)sst") % {"n": n}
    if suffix == "nd":
        return pgettext("ordinal ending in nd", "%(n)snd") % {"n": n}
    if suffix == "rd":
        return pgettext("ordinal ending in rd", "%(n)srd") % {"n": n}
    return pgettext("ordinal ending in th", "%(n)sth") % {"n": n}
