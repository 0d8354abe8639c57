"""The `kinds` system at the table: Skill plus Field Diamonds, the Challenge, the stepper.

Table choices where the document leaves room (the engine's own are in rolls/systems/kinds.py):

- **Fields and Skills.** The document names only the Field Knowledge and its Skill First Aid.
  A sheet here has four Fields, Action, Knowledge, Social and Survival, each with four Skills
  (Athletics, Drive, Fight, Shoot; First Aid, History, Languages, Science; Charm, Deceive,
  Insight, Intimidate; Climb, Notice, Stealth, Track). Skills can be renamed; the Fields stay.
- **Diamonds.** A Field has 1-5 Diamonds (2 on a new sheet), a Skill 0-4 (1 on a new sheet):
  every Skill rolls at least one die, and a Skill with its Field never passes nine (KIN-2).
- **Another Field (KIN-1).** The roll form can put a Skill to the test in another Field, for
  when the Fortune Master asks for it; the card's label names the Field used.
- **The stepper (KIN-2, KIN-3).** One control from three Disadvantages to three Advantages;
  the odds show the pool and the chance at every step, clamped to 9 and 2 dice.
- **One Danger faced together (KIN-6, KIN-8).** The GM opens it for the ticked Adventurers
  with the Danger's level; each rolls their own Challenge, sealed until all have rolled
  (``rolls.tables.kinds.danger`` says why).
- **Resources.** The document has none and no follow-ups, so a sheet spends nothing, a play
  session changes nothing, the GM's story clock is a plain "New Adventure" and there is no
  long rest.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from rolls.models import Contest, ContestSide
from rolls.systems import RulesError
from rolls.systems.base import get_bool, get_choice, get_int, percent
from rolls.systems.kinds import (
    MAX_DICE,
    MIN_AFTER_DISADVANTAGE,
    Kinds,
    KindsRequest,
    level_grade,
    pool_after,
)
from rolls.systems.words import N_
from rolls.tables.base import Clock, ContestReading, TableAdapter, unchanged
from rolls.tables.kinds import danger
from rolls.tables.kinds.forms import FIELDS, KindsRollForm, KindsSheetForm, step_label
from rolls.tables.waits import Waits
from tabletop.models import Character


def _note(request: KindsRequest) -> str:
    """How Advantage or Disadvantage made the pool, clamp included (KIN-2, KIN-3)."""
    given = ngettext(
        "Skill and Field give %(count)d die", "Skill and Field give %(count)d dice", request.dice
    ) % {"count": request.dice}
    net = request.net
    if not net:
        return _("%(given)s.") % {"given": given}
    count = abs(net)
    if net > 0:
        steps = ngettext("%(count)d Advantage", "%(count)d Advantages", count) % {"count": count}
    else:
        steps = ngettext("%(count)d Disadvantage", "%(count)d Disadvantages", count) % {"count": count}
    made = ngettext("%(given)s; %(steps)s makes %(pool)d", "%(given)s; %(steps)s make %(pool)d", count) % {
        "given": given,
        "steps": steps,
        "pool": request.pool,
    }
    if net > 0 and request.pool < request.dice + net:
        return _("%(made)s, the most a roll can have.") % {"made": made}
    if net < 0 and request.dice < MIN_AFTER_DISADVANTAGE:
        return _("%(given)s; Disadvantage never takes the last die away.") % {"given": given}
    if net < 0 and request.pool > request.dice + net:
        return _("%(made)s, the fewest Disadvantage leaves.") % {"made": made}
    return _("%(made)s.") % {"made": made}


# The Challenge a roll faces, by grade, as the odds line names it.
CHALLENGES = {
    1: N_("a Basic Challenge"),
    2: N_("a Critical Challenge"),
    3: N_("an Extreme Challenge"),
    4: N_("an Impossible Challenge"),
}


class KindsTable(TableAdapter[Kinds, KindsRequest]):
    # No follow-ups at all: nothing waits on the GM's panel.
    gm_waits = Waits.NOTHING
    slug = "kinds"
    sheet_form = KindsSheetForm
    roll_form = KindsRollForm
    call_traits = ("trait",)
    call_needs = ("level", "net", "other_field", "danger")
    call_extras = ()
    roll_initial = {"trait": "skill-0", "level": "basic", "net": 0, "other_field": ""}
    story = Clock(gettext_lazy("New Adventure"), gettext_lazy("Adventure {n} begins."), unchanged)

    # -- one Danger faced together (rolls.tables.kinds.danger) ----------------------------------
    contest_kinds = (
        (Contest.Kind.DANGER.value, cast("str", gettext_lazy("One Danger: each rolls their own Challenge"))),
    )
    contest_setup_params = (danger.LEVEL,)
    # Every side of a Danger is a Danger; its level is the flow's (``contest_side_data``), so
    # neither is asked per character on the GM's form.
    contest_data = {"danger": True, "level": "basic"}

    def contest_setup(self, kind: str, count: int, setup: Mapping[str, Any]) -> dict[str, Any]:
        if kind == Contest.Kind.DANGER:
            return danger.setup(count, setup)
        return super().contest_setup(kind, count, setup)

    def contest_closing(self, kind: str) -> str:
        # ``danger.reading``: an Adventurer who has not rolled neither passes nor meets an
        # Accident; the verdict names them as not having rolled.
        return _(
            "Close it now? The rolls made so far are revealed; whoever has not rolled neither "
            "passes nor meets an Accident, and the verdict says they did not roll."
        )

    def contest_side_data(
        self, kind: str, setup: Mapping[str, Any], data: Mapping[str, Any]
    ) -> dict[str, Any]:
        if kind == Contest.Kind.DANGER:
            return danger.side_data(setup, data)
        return dict(data)

    def contest_reading(self, contest: Contest, sides: Sequence[ContestSide]) -> ContestReading | None:
        if contest.kind == Contest.Kind.DANGER:
            return danger.reading(contest, sides, self.pool)
        return None

    def pool(self, character: Character, data: Mapping[str, Any]) -> tuple[dict[str, Any], str]:
        """KIN-1: the engine request and a label ("Knowledge + First Aid") for the roll form's choices.

        ``data``: ``skill`` (a Skill's index on the sheet), ``field`` (another Field the Fortune
        Master names, or empty for the Skill's own), ``level`` (basic...impossible), ``net``
        (-3..+3: Advantage above zero, Disadvantage below) and ``danger``."""
        sheet = character.sheet
        skills = sheet.get("skills", [])
        if not skills:
            raise RulesError(_("This sheet has no Skills yet; add some before rolling."))
        skill = skills[get_int(data, "skill", _("The Skill"), 0, len(skills) - 1)]
        field = skill["field"]
        if data.get("field") not in (None, ""):
            field = get_choice(data, "field", _("The Field"), FIELDS)
        net = get_int(data, "net", _("Advantage or Disadvantage"), -3, 3, default=0)
        request = {
            "skill": skill["diamonds"],
            "field": sheet["fields"][field],
            "advantage": max(net, 0),
            "disadvantage": max(-net, 0),
            "level": data.get("level") or "basic",
            "danger": get_bool(data, "danger"),
        }
        return request, f"{_(field)} + {skill['name']}"

    def odds_context(self, system: Kinds, request: KindsRequest, label: str) -> dict[str, Any]:
        """The roll form's odds line: the chance now, and the pool and chance at every step of the
        Advantage/Disadvantage stepper (KIN-2, KIN-3), so the table sees what each step is worth."""
        by_step = system.chance_by_advantage(request)
        ladder = [
            {
                "net": net,
                "label": step_label(net),
                "pool": pool_after(request.dice, net),
                "chance": percent(chance),
                "current": net == request.net,
            }
            for net, chance in by_step.items()
        ]
        return {
            "trait": label,
            "pool": request.pool,
            "challenge": _(CHALLENGES[level_grade(request.level)]),
            "chance": percent(system.chance(request)),
            "note": _note(request),
            "ladder": ladder,
            "max_dice": MAX_DICE,
        }
