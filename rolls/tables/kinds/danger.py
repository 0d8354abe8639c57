"""Several Adventurers facing one Danger (KIN-6, KIN-8), at the table.

The GM ticks who faces it and names the Danger's Challenge level, once for everyone; each
Adventurer puts their own Skill to the test (with their own Advantage or Disadvantage) from
their own phone. The panel shows the exact odds first (``passing_odds``: each one's chance, and
the chance of everyone, of nobody), then the results together, read by the engine
(``face_danger``): who passes, who meets an Accident that can hurt.

Our reading, also on the rules page:

- **Sealed until everyone has rolled.** Nothing in the rules makes one Adventurer's roll
  depend on another's, and the document has no follow-ups, but the issue asks for the results
  shown together as one entry: so the rolls stay sealed (the framework's way) and are revealed
  at one moment. Nobody waits on a sealed roll, since there is nothing to do after it.
- **One level for everyone.** One Danger, one Challenge grade; each Adventurer's own Skill,
  Field and Advantage make their chance differ.
- **Two or more.** A Danger for one is an ordinary roll with "This Challenge is a Danger" ticked.
- **Nobody wins.** Each passes or meets an Accident on their own; the panel marks who passes,
  and an Adventurer who never rolled (the GM closed it) is not said to pass.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from rolls.models import Contest, ContestSide
from rolls.systems import RulesError
from rolls.systems.base import Param, percent
from rolls.systems.kinds import GRADES, LEVELS, KindsRequest, face_danger, passing_odds
from rolls.systems.kinds import system as kinds
from rolls.tables.base import ContestReading

if TYPE_CHECKING:
    from tabletop.models import Character

# The Danger's grade, as the GM's form offers it: "Basic" ... "Impossible".
LEVEL = Param(
    "level",
    cast("str", gettext_lazy("The Danger's Challenge")),
    tuple(GRADES[1:]),
    labels=tuple(cast("str", gettext_lazy(grade)) for grade in GRADES[1:]),
)


def setup(count: int, values: Mapping[str, Any]) -> dict[str, Any]:
    """The Danger's level, checked; RulesError refuses the flow and nothing is opened."""
    grade = str(values.get("level", "") or "Basic")
    if grade not in LEVEL.choices:
        raise RulesError(
            _("Choose the Danger's Challenge: %(grades)s.")
            % {"grades": ", ".join(_(g) for g in LEVEL.choices)}
        )
    if count < 2:
        raise RulesError(_("A Danger faced together is for two Adventurers or more: tick who faces it."))
    return {"level": LEVELS[GRADES.index(grade)]}


def side_data(setup: Mapping[str, Any], data: Mapping[str, Any]) -> dict[str, Any]:
    """Every Adventurer's own Skill and Advantage, against the Danger's level (KIN-8)."""
    return {**data, "level": setup["level"], "danger": True}


# The adapter's ``pool``, handed in by the adapter (this module is its part, below it).
Pool = Callable[["Character", Mapping[str, Any]], tuple[dict[str, Any], str]]


def _request(side: ContestSide, pool: Pool) -> KindsRequest | None:
    """The request the side rolls with, from its sheet now (None: it left, or cannot roll)."""
    if side.character is None:
        return None
    try:
        data, _label = pool(side.character, side.data)
        return kinds.parse_request(data)
    except RulesError:
        return None


def odds_text(sides: Sequence[ContestSide], pool: Pool) -> str:
    """KIN-6: the exact chances before anyone rolls, each Adventurer's and the group's."""
    requests = {side.name: request for side in sides if (request := _request(side, pool)) is not None}
    if not requests:
        return ""
    each = ", ".join(f"{name} {percent(kinds.chance(request))}" for name, request in requests.items())
    found = passing_odds(requests)
    everyone, nobody = found[len(requests)], found[0]
    return _(
        "Chance to pass: %(each)s. Everyone passes: %(everyone)s (exact: %(everyone_exact)s); "
        "nobody: %(nobody)s (exact: %(nobody_exact)s)."
    ) % {
        "each": each,
        "everyone": percent(everyone),
        "everyone_exact": everyone,
        "nobody": percent(nobody),
        "nobody_exact": nobody,
    }


def reading(contest: Contest, sides: Sequence[ContestSide], pool: Pool) -> ContestReading:
    """The Danger as it stands: each revealed roll read by the engine, together."""
    revealed = {
        str(side.position): side.roll.current_state()
        for side in sides
        if side.roll is not None and side.roll.revealed
    }
    grade = _(GRADES[max(1, LEVELS.index(contest.setup.get("level", "basic")))])
    if not revealed:
        rolled = sum(side.roll is not None for side in sides)
        phase = _(
            "A %(grade)s Danger. Rolling: %(rolled)d of %(total)d in; the dice stay sealed until "
            "everyone has rolled. %(odds)s"
        ) % {"grade": grade, "rolled": rolled, "total": len(sides), "odds": odds_text(sides, pool)}
        return ContestReading(["" for _side in sides], phase.strip(), _verdict(grade, None, sides))
    result = face_danger(revealed)
    outcomes = dict(result.outcomes)
    results = [
        outcomes[str(side.position)].headline if str(side.position) in outcomes else "" for side in sides
    ]
    winners = frozenset(int(key) for key in result.passed)
    verdict = _verdict(grade, result.passed, sides)
    phase = _(
        "Revealed: %(verdict)s The GM describes each Accident; a Danger's can hurt. The GM settles it."
    ) % {"verdict": verdict}
    return ContestReading(results, phase, verdict, winners)


def _verdict(grade: str, passed: Sequence[str] | None, sides: Sequence[ContestSide]) -> str:
    """Who passes the Danger and who meets an Accident; a side that did not roll is named so."""
    passed = passed or ()
    names = {str(side.position): side.name for side in sides}
    through = [names[key] for key in passed]
    rolled = [side for side in sides if side.roll is not None and side.roll.revealed]
    accidents = [side.name for side in rolled if str(side.position) not in passed]
    missing = [side.name for side in sides if side not in rolled]
    parts = []
    if through and not accidents and not missing:
        parts.append(_("everyone passes (%(names)s)") % {"names": _names(through)})
    elif through:
        parts.append(
            ngettext("%(names)s passes", "%(names)s pass", len(through)) % {"names": _names(through)}
        )
    if accidents:
        parts.append(_("an Accident for %(names)s") % {"names": _names(accidents)})
    if not through and not accidents:
        parts.append(_("nobody rolled"))
    if missing and rolled:
        parts.append(_("%(names)s did not roll") % {"names": _names(missing)})
    # Translators: the Danger's verdict; its clauses are joined by "; ".
    return _("The %(grade)s Danger: %(parts)s.") % {"grade": grade, "parts": "; ".join(parts)}


def _names(names: Sequence[str]) -> str:
    if len(names) == 1:
        return names[0]
    # Translators: a list of names, "Ana, Bo and Kim".
    return _("%(names)s and %(last)s") % {"names": ", ".join(names[:-1]), "last": names[-1]}
