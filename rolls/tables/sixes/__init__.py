"""The `sixes` system at the table: pools from the sheet, Luck, Pride and Conditions."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any, cast

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from rolls.models import Contest, ContestSide, Roll, Visibility
from rolls.systems import RulesError
from rolls.systems.base import get_bool, get_int, percent
from rolls.systems.sixes import ATTRIBUTES, Sixes, SixesRequest, helper_shares_failure
from rolls.systems.sixes import system as engine
from rolls.systems.words import N_, Text
from rolls.tables.base import (
    Clock,
    ContestReading,
    ContestStep,
    ContestStepDone,
    Correction,
    TableAdapter,
    unchanged,
)
from rolls.tables.sixes import contest as kids
from rolls.tables.sixes import group, plan
from rolls.tables.sixes.forms import SixesRollForm, SixesSheetForm, sixes_luck_max, unchecked_conditions
from rolls.tables.waits import Waits
from tabletop.models import Character


def _luck_limit(character: Character) -> tuple[int, str]:
    """SIX-8: the most Luck the GM may set, from the sheet's age."""
    return sixes_luck_max(character.sheet), _("15 - age %(age)s, SIX-8") % {"age": character.sheet.get("age")}


class SixesTable(TableAdapter[Sixes, SixesRequest]):
    # Nothing ever waits on the GM's panel: an NPC has no sheet to push or spend from, and
    # every follow-up spends from a sheet, so no blind roll settles from its own dice.
    gm_waits = Waits.NOTHING
    slug = "sixes"
    spent = (("luck", cast("str", gettext_lazy("Luck"))), ("pride", cast("str", gettext_lazy("Pride"))))
    takes_conditions = True  # a push checks one (SIX-12), and so does the GM
    sheet_form = SixesSheetForm
    roll_form = SixesRollForm
    call_traits = ("trait",)
    call_needs = ("need", "threat")
    call_extras = ("item", "helper")
    roll_initial = {"trait": "Body", "need": 1}
    # Pride is spent "in Mystery N": a new Mystery frees it without touching any sheet (SIX-5).
    story = Clock(
        gettext_lazy("New Mystery"), gettext_lazy("Mystery {n} begins. Pride is available again."), unchanged
    )
    story_name = Text(N_("Mystery"))
    session_note = Text(N_("Luck points are full again."))
    corrections = (Correction("luck", gettext_lazy("Luck points"), 15, limit=lambda c: _luck_limit(c)),)

    def pool(self, character: Character, data: Mapping[str, Any]) -> tuple[dict[str, Any], str]:
        """The engine request and a label ("Mind + Comprehend") for the roll form's choices.

        ``data``: ``attribute`` (Body/Tech/Heart/Mind), ``skill`` (a skill's index on the sheet,
        or empty for the attribute alone), ``item``, ``helper`` (bool: the view resolves who),
        ``need`` (1-3), ``threat`` and ``group`` (group Trouble: nobody helps)."""
        sheet = character.sheet
        attribute = str(data.get("attribute", "")).strip().capitalize()
        if attribute not in ATTRIBUTES:
            raise RulesError(
                _("Choose an attribute: %(attributes)s.")
                % {"attributes": ", ".join(_(a) for a in ATTRIBUTES)}
            )
        # The roll's label is written once, in the table's language.
        label = _(attribute)
        skill_level = 0
        if data.get("skill") not in (None, ""):
            index = get_int(data, "skill", _("The skill"), 0, len(sheet["skills"]) - 1)
            skill = sheet["skills"][index]
            skill_level = skill["level"]
            label = f"{_(attribute)} + {skill['name']}"
        item = get_bool(data, "item")
        if item:
            if not sheet.get("item"):
                raise RulesError(_("This character has no Iconic Item on the sheet."))
            label += f" + {sheet['item']}"
        request = {
            "attribute": sheet["attributes"][attribute],
            "skill": skill_level,
            "item": item,
            "helper": get_bool(data, "helper"),
            "need": data.get("need", 1),
            "threat": get_bool(data, "threat"),
            # SIX-17: the engine refuses a helper on a group Trouble roll.
            "group": get_bool(data, "group"),
        }
        return request, label

    # -- contests (rolls.tables.sixes.contest) ------------------------------------------------
    contest_kinds = (
        (
            Contest.Kind.GROUP.value,
            cast("str", gettext_lazy("Group Trouble: everyone faces it, nobody helps")),
        ),
        (
            Contest.Kind.PLAN.value,
            cast("str", gettext_lazy("Extended Trouble: a plan, each kid rolls their part")),
        ),
    )
    contest_setup_params = (group.NEED, plan.PARTS, plan.NEEDED)

    # Nor is the need of someone without a sheet read against a kid (SIX-18): only sixes count.
    contest_npc_ignored = ("need",)

    def contest_fixed(self, kind: str) -> Mapping[str, Any]:
        if kind == Contest.Kind.CONTEST:
            # SIX-18: the most successes wins, whatever each kid needed; no Trouble threatens
            # a Condition when kids roll against each other.
            return {"need": 1, "threat": False}
        if kind == Contest.Kind.GROUP:
            # SIX-17: every kid needs what the GM set for the whole group (``group.side_data``
            # writes it over this); whether the Trouble threatens a Condition stays each kid's.
            return {"need": 1}
        # SIX-20: each kid's part has its own need and threat.
        return {}

    def contest_setup(self, kind: str, count: int, setup: Mapping[str, Any]) -> dict[str, Any]:
        if kind == Contest.Kind.GROUP:
            return group.setup(count, setup)
        if kind == Contest.Kind.PLAN:
            return plan.setup(count, setup)
        return super().contest_setup(kind, count, setup)

    def contest_side_data(
        self, kind: str, setup: Mapping[str, Any], data: Mapping[str, Any]
    ) -> dict[str, Any]:
        if kind == Contest.Kind.GROUP:
            return group.side_data(setup, data)
        if kind == Contest.Kind.PLAN:
            return plan.side_data(setup, data)
        return dict(data)

    def contest_closing(self, kind: str) -> str:
        # What each reading makes of a kid who has not rolled (``group.reading``,
        # ``plan.plan_now``, ``kids.versus_reading``).
        if kind == Contest.Kind.GROUP:
            return _(
                "Close it now? The rolls made so far are revealed; a kid who has not rolled fails the Trouble."
            )
        if kind == Contest.Kind.PLAN:
            return _(
                "Close it now? The parts rolled so far are revealed; a part not rolled yet counts as failed."
            )
        return _("Close it now? The rolls made so far are revealed; a kid who has not rolled loses.")

    def contest_reading(self, contest: Contest, sides: Sequence[ContestSide]) -> ContestReading | None:
        if contest.kind == Contest.Kind.GROUP:
            return group.reading(contest, sides)
        if contest.kind == Contest.Kind.PLAN:
            return plan.reading(contest, sides, self.pool)
        return kids.versus_reading(contest, sides)

    def contest_steps(
        self, contest: Contest, side: ContestSide, sides: Sequence[ContestSide]
    ) -> list[ContestStep]:
        if contest.kind == Contest.Kind.GROUP:
            return group.steps(contest, side, sides)
        if contest.kind == Contest.Kind.PLAN:
            return []  # a part is its roll and the roll's own follow-ups
        return kids.versus_steps(contest, side, sides)

    def contest_side(
        self, contest: Contest, side: ContestSide, sides: Sequence[ContestSide], *, sees: bool, acts: bool
    ) -> dict[str, Any] | None:
        """The plan's tracker names each side's part (SIX-20); other flows draw nothing more."""
        return plan.side_view(contest, side) if contest.kind == Contest.Kind.PLAN else None

    def contest_step(
        self,
        contest: Contest,
        side: ContestSide,
        sides: Sequence[ContestSide],
        step: ContestStep,
        params: Mapping[str, Any],
        character: Character | None,
    ) -> ContestStepDone:
        if step.action == kids.BUY and contest.kind == Contest.Kind.CONTEST:
            return kids.versus_step(side, sides, params, character)
        if step.action == group.GIVE and contest.kind == Contest.Kind.GROUP:
            return group.step(contest, side, sides, params)
        return super().contest_step(contest, side, sides, step, params, character)

    def helper_shares(self, state: Mapping[str, Any]) -> bool:
        """SIX-16: the friend who helped suffers the roll's failure with the roller."""
        return helper_shares_failure(dict(state))

    def shared_conditions(self, character: Character) -> list[str]:
        """SIX-16: any Condition the kid has not checked yet (Broken too)."""
        return unchecked_conditions(character.sheet)

    def check_can_roll(self, character: Character) -> None:
        """SIX-22, our reading: a Broken kid is out of the action until the GM clears Broken."""
        if character.sheet.get("conditions", {}).get("Broken"):
            raise RulesError(
                _("%(name)s is Broken and cannot roll until the GM clears it.") % {"name": character.name}
            )

    def resources(self, character: Character, *, latest: bool) -> dict[str, Any]:
        return {
            "luck": character.luck,
            "pride": character.pride_available,
            "latest": latest,
            "conditions": unchecked_conditions(character.sheet),
        }

    def roll_resources(self, roll: Roll, character: Character, *, latest: bool) -> dict[str, Any]:
        """The sheet's resources, and for a kid's roll in kid versus kid where the kid stands
        (``kids.standing``: Luck for a kid who is losing, SIX-6 with SIX-18). Only a contest's
        side is sealed, so no other roll asks the database anything more."""
        resources = self.resources(character, latest=latest)
        if roll.visibility != Visibility.SEALED or not roll.revealed:
            return resources
        side = ContestSide.objects.filter(roll_id=roll.pk).select_related("contest").first()
        if side is None:
            return resources
        sides = list(side.contest.sides.select_related("roll").order_by("position"))
        return {**resources, **kids.standing(side.contest, side, sides)}

    def contest_chance(self, contest: Contest, request: SixesRequest) -> tuple[str, Fraction] | None:
        """SIX-17: in group Trouble a kid's phone shows the exact chance of the successes the
        whole group needs, before any push, Luck or gift."""
        if contest.kind != Contest.Kind.GROUP:
            return None
        need = ngettext("get %(count)d six", "get %(count)d sixes", request.need) % {"count": request.need}
        return need, engine.chance(request)

    def contest_resources(
        self, contest: Contest, side: ContestSide, sides: Sequence[ContestSide]
    ) -> dict[str, Any]:
        return kids.standing(contest, side, sides)

    def spend(self, character: Character, costs: Mapping[str, Any]) -> list[str]:
        """Spend what a follow-up costs; the caller holds the row lock and saves. Returns the
        fields changed."""
        changed = []
        if "luck" in costs:
            if character.luck < costs["luck"]:
                raise RulesError(_("No Luck points left."))
            character.luck -= costs["luck"]
            changed.append("luck")
        if "pride" in costs:
            character.pride_used_in = character.campaign.mystery
            changed.append("pride_used_in")
        if "condition" in costs:
            character.sheet = {
                **character.sheet,
                "conditions": {**character.sheet.get("conditions", {}), costs["condition"]: True},
            }
            changed.append("sheet")
        return changed

    def on_sheet_change(self, character: Character, before: Mapping[str, Any], *, by_gm: bool) -> list[str]:
        """An edited sheet (``character.sheet`` is the new one): only the GM clears Broken
        (SIX-22, our reading), and Luck never exceeds 15 - age (SIX-8), so a kid made older
        loses the points above the new maximum at once (a younger one gains only at the next
        session). Returns the fields changed besides the sheet."""
        was_broken = before.get("conditions", {}).get("Broken")
        if was_broken and not character.sheet.get("conditions", {}).get("Broken") and not by_gm:
            raise RulesError(_("Only the GM can clear Broken."))
        maximum = sixes_luck_max(character.sheet)
        if character.luck > maximum:
            character.luck = maximum
            return ["luck"]
        return []

    def on_new_session(self, character: Character) -> list[str]:
        """SIX-8: Luck refills at every play session; unspent points do not carry over."""
        character.luck = sixes_luck_max(character.sheet)
        return ["luck"]

    def new_character(self, character: Character) -> None:
        character.luck = sixes_luck_max(character.sheet)

    def odds_context(self, system: Sixes, request: SixesRequest, label: str) -> dict[str, Any]:
        """The roll form's odds line: plain, and with the follow-ups the kid still has in hand."""
        return {
            "trait": label,
            "dice": request.dice,
            "need": request.need,
            "chance": percent(system.chance(request)),
            "with_push": percent(system.chance_with(request, push=True)),
            "with_push_luck": percent(system.chance_with(request, push=True, luck=True)),
            "with_luck": percent(system.chance_with(request, luck=True)),
        }

    def odds_that_apply(self, context: dict[str, Any], character: Character | None) -> dict[str, Any]:
        """SIX-6, SIX-10, SIX-11: a push checks a Condition and Luck spends a point, so someone
        without a sheet is shown neither; a kid with every Condition checked no push (and says
        why), and one with no Luck left no Luck."""
        if "with_push" not in context:
            return context
        push = character is not None and bool(unchecked_conditions(character.sheet))
        luck = character is not None and character.luck > 0
        return {
            **context,
            "with_push": context["with_push"] if push else "",
            "with_push_luck": context["with_push_luck"] if push and luck else "",
            "with_luck": context["with_luck"] if luck and not push else "",
            "no_push": "" if push or character is None else _("No push: every Condition is checked."),
            "no_luck": character is not None and not luck,
        }
