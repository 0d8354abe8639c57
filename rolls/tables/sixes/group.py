"""Group Trouble at the table (SIX-17): every kid present faces the same Trouble, each rolls on
their own phone against the same number of successes, nobody helps. Once the dice are
revealed (and pushed, Luck, Pride as usual), a kid with successes beyond those needed may
give one to a friend for each of them (``group_trouble``): a contest step, logged.

Our reading: a gift goes to any other kid of the group (one who failed, mostly); a success
received cannot be given on, and giving never makes the giver fail. The panel shows each
kid's successes, the gifts, and who passes; the GM settles it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from rolls.models import Contest, ContestSide
from rolls.systems import RulesError
from rolls.systems.base import Param
from rolls.systems.sixes import group_trouble, spare_successes
from rolls.systems.sixes import system as sixes
from rolls.tables.base import ContestReading, ContestStep, ContestStepDone
from rolls.tables.sixes.contest import revealed_state, successes_text

GIVE = "give"
NEED = Param("need", cast("str", gettext_lazy("Successes each kid needs (group Trouble)")), ("1", "2", "3"))


def setup(count: int, values: Mapping[str, Any]) -> dict[str, Any]:
    need = str(values.get("need", "1") or "1")
    if need not in NEED.choices:
        raise RulesError(_("Group Trouble needs 1 to 3 successes from each kid."))
    if count < 2:
        raise RulesError(_("Group Trouble is for two kids or more: tick who faces it."))
    return {"need": int(need)}


def side_data(setup: Mapping[str, Any], data: Mapping[str, Any]) -> dict[str, Any]:
    """Every kid rolls against the same need, as group Trouble (no helper: SIX-17)."""
    return {**data, "need": setup["need"], "group": True, "helper": False}


def _gifts(sides: Sequence[ContestSide]) -> list[tuple[str, str]]:
    by_position = {str(side.position): side for side in sides}
    return [
        (str(side.position), str(to))
        for side in sides
        for to in side.extra.get("gave", [])
        if str(to) in by_position
    ]


def _rolled(sides: Sequence[ContestSide]) -> dict[str, int]:
    counts = {}
    for side in sides:
        state = revealed_state(side)
        if state is not None:
            counts[str(side.position)] = sixes.successes(state)
    return counts


def _names(names: Sequence[str]) -> str:
    if len(names) == 1:
        return names[0]
    # Translators: a list of names, "Ana, Bo and Kim".
    return _("%(names)s and %(last)s") % {"names": ", ".join(names[:-1]), "last": names[-1]}


def reading(contest: Contest, sides: Sequence[ContestSide]) -> ContestReading | None:
    rolled = _rolled(sides)
    if not rolled:
        return None
    need = int(contest.setup.get("need", 1))
    names = {str(side.position): side.name for side in sides}
    # Gifts between kids whose dice are on the table; the engine checks each again.
    result = group_trouble(rolled, need, [g for g in _gifts(sides) if g[0] in rolled and g[1] in rolled])
    results = []
    for side in sides:
        key = str(side.position)
        if key not in rolled:
            results.append("")
            continue
        have = result.successes[key]
        words = {"successes": successes_text(have), "need": need}
        line = (
            _("%(successes)s of %(need)d: passes") if have >= need else _("%(successes)s of %(need)d: fails")
        ) % words
        notes = []
        given = sum(1 for giver, _receiver in result.gifts if giver == key)
        got = [names[giver] for giver, receiver in result.gifts if receiver == key]
        if given:
            notes.append(_("gave %(count)d") % {"count": given})
        if got:
            notes.append(_("got 1 from %(names)s") % {"names": ", ".join(got)})
        results.append(f"{line} ({'; '.join(notes)})" if notes else line)
    missing = [side.name for side in sides if str(side.position) not in rolled]
    passed = [names[key] for key in result.passed]
    failed = [names[key] for key in result.failed] + missing
    if not failed:
        outcome = _("Everyone gets through")
    elif not passed:
        outcome = _("Nobody gets through")
    else:
        through = ngettext("%(names)s gets through", "%(names)s get through", len(passed)) % {
            "names": _names(passed)
        }
        fail = ngettext("%(names)s fails", "%(names)s fail", len(failed)) % {"names": _names(failed)}
        # Translators: who gets through; who fails (two clauses of one sentence).
        outcome = _("%(through)s; %(fail)s") % {"through": through, "fail": fail}
    phase = _(
        "Revealed: %(outcome)s. Each kid may still push; a kid with successes to spare may give "
        "one to a friend. The GM settles it."
    ) % {"outcome": outcome}
    verdict_text = _("Group Trouble: %(outcome)s.") % {"outcome": outcome}
    winners = frozenset(int(key) for key in result.passed)
    return ContestReading(results, phase, verdict_text, winners)


def steps(contest: Contest, side: ContestSide, sides: Sequence[ContestSide]) -> list[ContestStep]:
    if contest.state != Contest.State.REVEALED:
        return []
    try:
        _check_may_give(contest, side, sides)
    except RulesError:
        return []
    friends = tuple(other.name for other in sides if other.pk != side.pk)
    param = Param("to", _("Give it to"), friends, prompt=_("Choose a friend"))
    note = _("A success beyond those you need goes to a friend (SIX-17).")
    return [ContestStep(GIVE, _("Give a spare success"), (param,), note)]


def _check_may_give(contest: Contest, side: ContestSide, sides: Sequence[ContestSide]) -> None:
    rolled = _rolled(sides)
    if len(rolled) != len(sides):
        raise RulesError(_("Every kid's dice must be on the table before a success changes hands."))
    need = int(contest.setup.get("need", 1))
    given = len(side.extra.get("gave", []))
    if spare_successes(rolled[str(side.position)], need, given) < 1:
        raise RulesError(
            _("%(name)s has no success to spare: only those beyond the %(need)d needed.")
            % {"name": side.name, "need": need}
        )


def step(
    contest: Contest, side: ContestSide, sides: Sequence[ContestSide], params: Mapping[str, Any]
) -> ContestStepDone:
    _check_may_give(contest, side, sides)
    name = str(params.get("to", "") or "")
    friend = next((other for other in sides if other.name == name and other.pk != side.pk), None)
    if friend is None:
        raise RulesError(_("Choose a friend in this group Trouble to give the success to."))
    gave = [*side.extra.get("gave", []), friend.position]
    # The engine checks the whole set of gifts once more (nothing received is given on).
    group_trouble(
        _rolled(sides),
        int(contest.setup.get("need", 1)),
        [*_gifts(sides), (str(side.position), str(friend.position))],
    )
    text = _("%(name)s gives a spare success to %(friend)s (group Trouble).") % {
        "name": side.name,
        "friend": friend.name,
    }
    return ContestStepDone({**side.extra, "gave": gave}, [], text)
