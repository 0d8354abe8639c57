"""The `doubles` system at the table: pools from Abilities and Weaknesses, and Endurance.

Endurance, as we run it at the table:

- The sheet holds the maximum (``endurance_max``); ``Character.endurance`` is what the
  character has now, full when the character is made.
- Drama dice and approved miracles spend Endurance (DBL-10, DBL-11). What went on drama
  dice is counted in ``Character.drama_spent``: that part does not come back with a long
  rest, only with a new Adventure (the GM's story clock). A miracle's 30 are not counted
  there: the document keeps only drama Endurance from the usual recovery, so they come back
  with the next long rest like any other Endurance.
- A long rest (the GM's control) brings Endurance back up to the maximum minus what went on
  drama; a new Adventure clears the drama spending and fills Endurance.
- Editing the sheet never gives Endurance: a lower maximum cuts what is above it at once, a
  higher one fills at the next long rest or Adventure. A play session changes nothing.
- Drama dice and miracles go on the character's latest roll only (``resources["latest"]``).

Teaming up (DBL-14): the roll form names the helpers among the other characters at the table
(their ids); ``pool`` checks them again, counts them for the engine and names them on the
card's label. The document gives a helper nothing to pay and no share of the outcome, so
nothing is asked of them. A bare count (a side or call stored before names, the GM's quick
roll) still goes to the engine as it is.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from rolls.systems import RulesError
from rolls.systems.base import State, percent
from rolls.systems.doubles import (
    DN_NAMES,
    DRAMA_COST,
    MAX_HELPERS,
    Doubles,
    DoublesRequest,
    negative_keep,
    system,
)
from rolls.tables.base import Clock, ContestStep, ContestStepDone, Correction, TableAdapter
from rolls.tables.doubles.contest import (
    COMPLICATION,
    NO_COMPLICATION,
    complication_done,
    complication_freezes,
    complication_steps,
    extended_board,
    resources_of,
    tally,
)
from rolls.tables.doubles.contest import verdict as extended_verdict
from rolls.tables.doubles.forms import DoublesRollForm, DoublesSheetForm, endurance_max
from rolls.tables.waits import Waits
from tabletop.models import Character

if TYPE_CHECKING:
    from rolls.models import Contest, ContestSide
    from tabletop.models import Membership

DRAMA_SHOWN = (1, 2, 3)  # the roll form shows the chance with this many drama dice
TRAIT_LENGTH = 80  # ``Roll.trait``: the label the card shows


def _new_adventure(character: Character) -> list[str]:
    """DBL-10: between adventures the Endurance spent on drama comes back, and all the rest."""
    character.drama_spent = 0
    character.endurance = endurance_max(character.sheet)
    return ["endurance", "drama_spent"]


def _long_rest(character: Character) -> list[str]:
    """The usual way back: up to the maximum, less what went on drama dice (a miracle's
    Endurance comes back here, DBL-11)."""
    most = endurance_max(character.sheet)
    regained = max(0, most - character.drama_spent)
    # Never above the sheet's maximum either, however the pool got there.
    endurance = min(max(character.endurance, regained), most)
    if character.endurance == endurance:
        return []
    character.endurance = endurance
    return ["endurance"]


def _levels(sheet: Mapping[str, Any], key: str, names: Any, label: str) -> list[tuple[str, int]]:
    """(name, level) of each trait named in ``names``, in the sheet's order."""
    if isinstance(names, str):
        wanted = [names] if names else []
    else:
        wanted = [str(name) for name in (names or [])]
    traits = {trait["name"]: trait["level"] for trait in sheet.get(key, [])}
    for name in wanted:
        if name not in traits:
            raise RulesError(_("%(name)s is not a %(trait)s on this sheet.") % {"name": name, "trait": label})
    return [(name, level) for name, level in traits.items() if name in wanted]


def pool_words(net: int) -> str:
    """The net pool in the table's words; negative pools said as such (DBL-6)."""
    if net >= 1:
        return ngettext("%(count)d die", "%(count)d dice", net) % {"count": net}
    shown = f"\N{MINUS SIGN}{-net}" if net < 0 else "0"
    return ngettext(
        "%(shown)s die: roll %(keep)d, keep the lowest",
        "%(shown)s dice: roll %(keep)d, keep the lowest",
        abs(net),
    ) % {"shown": shown, "keep": negative_keep(net)}


def _helpers(character: Character, given: Any) -> tuple[Any, list[str]]:
    """DBL-14: the helpers' count for the engine and their names. ``given`` is the ids of
    other characters at the table; a bare number (a side or a call stored before helpers had
    names) is passed to the engine as it is, which checks it."""
    if not isinstance(given, list | tuple):
        return given, []
    try:
        ids = [int(pk) for pk in given]
    except (TypeError, ValueError):
        raise RulesError(_("Name the helpers among the characters at this table.")) from None
    if len(set(ids)) != len(ids):
        raise RulesError(_("Each helper counts once."))
    if character.pk in ids:
        raise RulesError(_("%(name)s leads this roll and cannot also help it.") % {"name": character.name})
    if len(ids) > MAX_HELPERS:
        raise RulesError(_("At most %(count)d characters help one leader.") % {"count": MAX_HELPERS})
    if not ids:
        return 0, []
    found = dict(
        Character.objects.filter(campaign_id=character.campaign_id, pk__in=ids).values_list("pk", "name")
    )
    if len(found) != len(ids):
        raise RulesError(_("Name the helpers among the characters at this table."))
    return len(ids), [found[pk] for pk in ids]


def _with_helpers(label: str, names: list[str]) -> str:
    """The card's label names the helpers: "Fighting, with Ann and Bo" (DBL-14); when the
    names do not fit the card's label, how many."""
    if len(names) == 1:
        joined = names[0]
    else:
        # Translators: a list of names, "Ana, Bo and Kim".
        joined = _("%(names)s and %(last)s") % {"names": ", ".join(names[:-1]), "last": names[-1]}
    named = _("%(label)s, with %(helpers)s") % {"label": label, "helpers": joined}
    if len(named) <= TRAIT_LENGTH:
        return named
    return ngettext("%(label)s, with %(count)d helper", "%(label)s, with %(count)d helpers", len(names)) % {
        "label": label[: TRAIT_LENGTH - 20],
        "count": len(names),
    }


def _endurance_limit(character: Character) -> tuple[int, str]:
    """DBL-10, our reading: the sheet's Endurance is the most a character has, and the most
    that can have gone on drama dice since the Adventure began."""
    return endurance_max(character.sheet), _("the Endurance on the sheet, DBL-10")


class DoublesTable(TableAdapter[Doubles, DoublesRequest]):
    # A miracle waits for the GM, who may approve it while its character has the Endurance.
    gm_waits = Waits.DECISIONS | Waits.SHEETS
    slug = "doubles"
    spent = (
        ("endurance", cast("str", gettext_lazy("Endurance"))),
    )  # drama dice and miracles (DBL-10, DBL-11)
    sheet_form = DoublesSheetForm
    roll_form = DoublesRollForm
    call_traits = ("abilities", "weaknesses")
    call_needs = ("dn", "bonus", "penalty", "degree_matters", "declaration")
    call_extras = ("helpers",)
    side_extras = ("helpers",)  # DBL-14: a side of an opposed roll or an extended action teams up too
    roll_initial = {"dn": "4", "bonus": 0, "penalty": 0, "helpers": 0}
    story = Clock(
        gettext_lazy("New Adventure"),
        gettext_lazy("Adventure {n} begins. Endurance is full again, and what went on drama dice is back."),
        _new_adventure,
    )
    rest = Clock(
        gettext_lazy("Long rest"),
        gettext_lazy("A long rest: Endurance comes back, except what went on drama dice."),
        _long_rest,
    )
    corrections = (
        Correction("endurance", gettext_lazy("Endurance now"), 200, limit=lambda c: _endurance_limit(c)),
        Correction(
            "drama_spent", gettext_lazy("Endurance spent on drama"), 200, limit=lambda c: _endurance_limit(c)
        ),
    )

    # DBL-7: a side of an opposed roll beats the other side, not a Difficulty Number.
    contest_data = {"dn": "opposed"}
    console_flows = "tables/doubles/flows_console.html"
    flow_boards = ("extended",)
    # DBL-9: once the GM settles an opposed roll its rolls are final, and the amazing PC may
    # name the Complication then, whatever Endurance either side has left.
    steps_after_settle = True

    def check_contest_sides(self, sides: Sequence[tuple[Character | None, Mapping[str, Any]]]) -> None:
        """DBL-14 in a contest, our reading: a character teams up with one side only, and never
        with the side they oppose."""
        taking_part = {character.pk: character.name for character, _ in sides if character is not None}
        seen: set[int] = set()
        for character, data in sides:
            given = data.get("helpers")
            if character is None or not isinstance(given, list | tuple):
                continue
            ids = {int(pk) for pk in given if str(pk).isdecimal()}
            clash = ids & set(taking_part)
            if clash:
                name = taking_part[min(clash)]
                raise RulesError(
                    _("%(name)s takes part in this contest and cannot help a side.") % {"name": name}
                )
            if ids & seen:
                raise RulesError(_("A character helps one side of a contest, not both."))
            seen |= ids

    def contest_steps(
        self, contest: Contest, side: ContestSide, sides: Sequence[ContestSide]
    ) -> list[ContestStep]:
        return complication_steps(contest, side, sides)

    def contest_step(
        self,
        contest: Contest,
        side: ContestSide,
        sides: Sequence[ContestSide],
        step: ContestStep,
        params: Mapping[str, Any],
        character: Character | None,
    ) -> ContestStepDone:
        if step.action not in (COMPLICATION, NO_COMPLICATION):
            raise RulesError(_("That is not a step of this contest."))
        return complication_done(side, sides, {**params, "action": step.action})

    def contest_rolls_final(self, contest: Contest, sides: Sequence[ContestSide]) -> bool:
        """DBL-9: a Complication named freezes both rolls; DBL-13: an extended action recorded
        as won or lost freezes its tally (no drama dice turn a lost action into a won one)."""
        if contest.kind == "extended":
            return tally(contest, list(sides)).status != "going"
        return complication_freezes(sides)

    def contest_verdict(self, contest: Contest, sides: Sequence[ContestSide], states: Sequence[State]) -> str:
        # DBL-7, DBL-9: the opposed roll's words are the engine's, from plain values.
        # DBL-9: only a side with a sheet (a PC) may inflict a Complication, never the GM's.
        players = [side.character is not None and not side.npc for side in sides]
        return system.opposed_verdict(
            states, [side.name for side in sides], [side.extra for side in sides], players
        )

    def contest_closing(self, kind: str) -> str:
        if kind in self.flow_boards:
            # ``contest.verdict``: the tally as it stands, whoever has not rolled yet.
            return _("Close it now? The extended action ends as its tally stands: won, lost or unfinished.")
        return super().contest_closing(kind)

    def flow_verdict(self, contest: Contest) -> str:
        return extended_verdict(contest)

    def flow_view(self, contest: Contest, membership: Membership | None) -> Any:
        return extended_board(contest, membership)

    def pool(self, character: Character, data: Mapping[str, Any]) -> tuple[dict[str, Any], str]:
        """The engine request and a label ("Fighting + Athletics - Reckless") for the roll form's
        choices.

        ``data``: ``abilities`` and ``weaknesses`` (names on the sheet), ``bonus``, ``penalty``,
        ``helpers`` (the ids of the characters teaming up, DBL-14, named on the card's label;
        a bare number from an older roll still counts), ``dn`` (2-12, or "opposed"),
        ``degree_matters``, ``declaration``. ``helper`` (from the generic form) is not used:
        teaming up counts helpers."""
        abilities = _levels(character.sheet, "abilities", data.get("abilities"), _("Ability"))
        weaknesses = _levels(character.sheet, "weaknesses", data.get("weaknesses"), _("Weakness"))
        label = " + ".join(name for name, _level in abilities) or _("Two dice")
        label += "".join(f" - {name}" for name, _level in weaknesses)
        helpers, names = _helpers(character, data.get("helpers", 0))
        if names:
            label = _with_helpers(label, names)
        request = {
            "abilities": [level for _name, level in abilities],
            "weaknesses": [level for _name, level in weaknesses],
            "bonus": data.get("bonus", 0),
            "penalty": data.get("penalty", 0),
            "helpers": helpers,
            "dn": data.get("dn"),
            "degree_matters": data.get("degree_matters", False),
            "declaration": data.get("declaration", False),
        }
        return request, label

    def scene_prompt(self, state: Mapping[str, Any], name: str, *, pc: bool) -> str:
        """DBL-8: an Amazing Success reaches past what was aimed for, and may change the scene
        around it in the PCs' favour: the card asks the table to say how. Our reading: for the
        GM's side without a sheet the GM says what it gains (the document speaks of the PCs)."""
        if system.evaluate(dict(state)).tone != "amazing":
            return ""
        if pc:
            return _(
                "Amazing Success: %(name)s gets more than they aimed for. Say what else goes right, "
                "or how the scene shifts in the PCs' favour."
            ) % {"name": name}
        return _(
            "Amazing Success: %(name)s gets more than they aimed for. The GM says what else goes their way."
        ) % {"name": name}

    def resources(self, character: Character, *, latest: bool) -> dict[str, Any]:
        return resources_of(character, latest=latest)

    def spend(self, character: Character, costs: Mapping[str, Any]) -> list[str]:
        """DBL-10, DBL-11: Endurance for drama dice and miracles; the part that went on drama
        dice (``costs["drama"]``) is counted in ``drama_spent``, which only a new Adventure
        clears. The caller holds the row lock and saves. Returns the fields changed."""
        if "endurance" not in costs:
            return []
        amount = int(costs["endurance"])
        if amount > character.endurance:
            raise RulesError(
                _("That costs %(amount)d Endurance, and %(name)s has %(endurance)d.")
                % {"amount": amount, "name": character.name, "endurance": character.endurance}
            )
        character.endurance -= amount
        drama = int(costs.get("drama", 0))
        if not drama:
            return ["endurance"]
        character.drama_spent += drama
        return ["endurance", "drama_spent"]

    def new_character(self, character: Character) -> None:
        character.endurance = endurance_max(character.sheet)
        character.drama_spent = 0

    def on_sheet_change(self, character: Character, before: Mapping[str, Any], *, by_gm: bool) -> list[str]:
        """A sheet edit never gives Endurance; a lower maximum cuts what is above it (less what
        went on drama dice, which stays spent until the next Adventure)."""
        ceiling = max(0, endurance_max(character.sheet) - character.drama_spent)
        if character.endurance > ceiling:
            character.endurance = ceiling
            return ["endurance"]
        return []

    def odds_context(self, system: Doubles, request: DoublesRequest, label: str) -> dict[str, Any]:
        """The roll form's odds: the chance to beat the Difficulty Number, and with drama dice."""
        context: dict[str, Any] = {
            "trait": label,
            "pool": pool_words(request.net),
            "dn": request.dn,
            "dn_name": _(DN_NAMES[request.dn]) if request.dn in DN_NAMES else "",
            "catastrophe": percent(system.chance_of_catastrophe(request)),
            "amazing": percent(system.chance_of_amazing(request)),
            "chance": "",
            "drama": [],
        }
        if request.dn is not None:
            context["chance"] = percent(system.chance(request))
            context["drama"] = [
                (count, percent(system.chance_with_drama(request, count))) for count in DRAMA_SHOWN
            ]
        return context

    def odds_that_apply(self, context: dict[str, Any], character: Character | None) -> dict[str, Any]:
        """DBL-10: a drama die costs Endurance, so only the counts the character can pay for
        are shown (none for someone without a sheet, who has no Endurance)."""
        if not context.get("drama"):
            return context
        affordable = 0 if character is None else character.endurance // DRAMA_COST
        return {
            **context,
            "drama": [(count, with_) for count, with_ in context["drama"] if count <= affordable],
        }
