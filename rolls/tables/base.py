"""What every dice system's table package implements: ``TableAdapter``.

The rules engine (``rolls.systems``) knows dice; an adapter knows the character sheet. It
builds the engine's request from the sheet and the roll form, tells the engine what the
character has (``resources``) and spends what a follow-up costs. Views and services ask the
adapter and never which system they serve.

A table package (``rolls/tables/<slug>/``) holds the adapter, its forms and its templates,
under ``templates/tables/<slug>/``, found by ``rolls.table_templates.Loader``:

``sheet_form.html``  the sheet form's fields, included by rolls/character_form.html
``sheet.html``       the sheet, read-only, included by rolls/sheet.html
``resources.html``   the resources line at the top of the roll screen (``character``)
``roll_form.html``   the roll form's fields, included by rolls/character.html
``odds.html``        the odds partial, rendered with ``odds_context``'s dict
``rules.html``       the system's rules page, in our own words, with the engine's odds tables

``TEMPLATES`` lists them; ``rolls.registry.register`` checks that a package has them all.
"""

from __future__ import annotations

import inspect
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from django.utils.translation import gettext as _

from rolls.systems import RulesError
from rolls.systems.base import DiceSystem, Param, State
from rolls.systems.words import N_, Text
from rolls.tables.waits import ALL_WAITS, Waits

if TYPE_CHECKING:
    # A development dependency (the type stubs): only the checker reads it.
    from django_stubs_ext import StrOrPromise

    from rolls.models import Contest, ContestSide, Roll
    from rolls.tables.forms import RollFormBase, SheetFormBase
    from tabletop.models import Character, Membership

TEMPLATES = ("sheet_form", "sheet", "resources", "roll_form", "odds", "rules")


@dataclass(frozen=True)
class Clock:
    """A GM control that moves a system's clock for every character (a new Mystery, a long
    rest...). ``apply`` changes one locked character and returns the fields it changed;
    ``event`` is what the log says, with ``{n}`` for the campaign's story counter. Both are
    lazy translations (``gettext_lazy``): read in the language active where they are drawn
    or logged."""

    label: StrOrPromise
    event: StrOrPromise
    apply: Callable[[Character], list[str]]


@dataclass(frozen=True)
class Correction:
    """A resource the GM may set directly on a sheet (each change is logged).

    ``maximum`` bounds the form's field; ``limit``, when the rules set one for this character,
    gives the character's own maximum and the rule that sets it, in words ("15 - age 14, SIX-8"):
    the service refuses a value above it under the character's row lock."""

    field: str  # the Character column
    label: StrOrPromise  # a lazy translation
    maximum: int
    limit: Callable[[Character], tuple[int, str]] | None = None

    def check(self, character: Character, value: int) -> None:
        """Raise RulesError when ``value`` is above what the rules let this character hold."""
        if self.limit is None:
            return
        most, why = self.limit(character)
        if value > most:
            raise RulesError(
                _("%(name)s holds at most %(most)d %(resource)s (%(why)s); %(value)d is too many.")
                % {"name": character.name, "most": most, "resource": self.label, "why": why, "value": value}
            )


def unchanged(character: Character) -> list[str]:
    """A clock that changes nothing on the sheet (Pride reads the campaign's counter)."""
    return []


@dataclass(frozen=True)
class ContestStep:
    """A step one side of a contest may take besides rolling (``TableAdapter.contest_steps``):
    its action, its button's label and the choices it needs, like a follow-up's."""

    action: str
    label: str
    params: tuple[Param, ...] = ()
    note: str = ""  # what it costs or does, under the button
    # The GM may take it for a player's side too (doubles DBL-9: dismiss a Complication the
    # amazing PC never names, so the settled contest leaves the panel).
    gm_may: bool = False


@dataclass(frozen=True)
class ContestStepDone:
    """A step taken: the side's ``extra`` now, the character's fields it changed (saved by
    the service), and the log's line; ``state``, when the step spends the side's own dice
    (sets: a critical hit), is its roll's state after it, logged as a follow-up of the roll."""

    extra: dict[str, Any]
    changed: list[str]
    text: str
    state: dict[str, Any] | None = None


@dataclass(frozen=True)
class ContestReading:
    """How a system reads its contest now, where the framework's head-to-head reading does
    not fit (kid versus kid, a group Trouble, a plan in parts): what each side shows (in
    ``sides`` order; "" for nothing yet), the phase line, the verdict if it ended now, and
    the positions shown as winning (or passing)."""

    results: list[str]
    phase: str
    verdict: str
    winners: frozenset[int] = frozenset()


class TableAdapter[E: DiceSystem, R](ABC):
    """One dice system at the table, for its engine ``E`` and that engine's request type
    ``R``. Subclasses are stateless; the registry holds one instance of each."""

    slug: ClassVar[str]
    sheet_form: ClassVar[type[SheetFormBase]]
    roll_form: ClassVar[type[RollFormBase]]
    roll_initial: ClassVar[Mapping[str, Any]]  # the roll form's first values
    story: ClassVar[Clock]  # the GM's "new Mystery/Adventure"
    # Read in the active language (``words.Text``): a subclass sets ``Text(N_("..."))``.
    story_name: ClassVar[Text] = Text(N_("Adventure"))  # what the story clock counts
    rest: ClassVar[Clock | None] = None  # the GM's "long rest", where the system has one
    session_note: ClassVar[Text] = Text("")  # what a new play session refills, for the log
    corrections: ClassVar[tuple[Correction, ...]] = ()
    # What can keep a roll waiting on the GM's panel (``rolls.tables.waits.Waits``): the entries
    # that redraw it on the GM's socket. A system that says nothing redraws it on every one.
    gm_waits: ClassVar[Waits] = ALL_WAITS
    # Whether a point of Luck may fuel an ability of an item or a power, outside a roll (stars,
    # STR-14): ``spend({"luck": 1})`` pays for it.
    luck_for_abilities: ClassVar[bool] = False
    # What the recap says a session cost: the resources its follow-ups spend, as the columns
    # the statistics keep of each (``rolls.stats.record.SPENT_AMOUNTS``) with their names on
    # the sheet, and whether they (and the GM's checks) give Conditions. A system that spends
    # nothing says nothing: no empty column of another system's resource.
    spent: ClassVar[tuple[tuple[str, str], ...]] = ()
    takes_conditions: ClassVar[bool] = False
    # The GM's call for a roll from the session page, in the roll form's field names: what the
    # GM picks for each character from that character's sheet (``call_traits``), what is
    # needed, the same for everyone (``call_needs``), and what the player may still add when
    # answering (``call_extras``: an Iconic Item, a helper...).
    call_traits: ClassVar[tuple[str, ...]] = ()
    call_needs: ClassVar[tuple[str, ...]] = ()
    call_extras: ClassVar[tuple[str, ...]] = ()
    # What a side of a contest (or a roll for a flow) may also choose beside ``call_traits``
    # and ``call_needs``, where its player chooses the whole roll (doubles: who teams up).
    side_extras: ClassVar[tuple[str, ...]] = ()

    # -- where its templates are ---------------------------------------------------------------
    @property
    def templates_dir(self) -> Path:
        """``templates/`` beside the module that defines the adapter."""
        return Path(inspect.getfile(type(self))).parent / "templates"

    def template(self, name: str) -> str:
        """The name of one of its ``TEMPLATES``: "tables/sixes/odds.html"."""
        return f"tables/{self.slug}/{name}.html"

    @property
    def sheet_form_template(self) -> str:
        return self.template("sheet_form")

    @property
    def sheet_template(self) -> str:
        return self.template("sheet")

    @property
    def resources_template(self) -> str:
        return self.template("resources")

    @property
    def roll_form_template(self) -> str:
        return self.template("roll_form")

    @property
    def odds_template(self) -> str:
        return self.template("odds")

    @property
    def rules_template(self) -> str:
        return self.template("rules")

    # -- the rules at the table ------------------------------------------------------------------
    @abstractmethod
    def pool(self, character: Character, data: Mapping[str, Any]) -> tuple[dict[str, Any], str]:
        """The engine request for the roll form's ``engine_data()`` (with ``helper``: whether
        a helper was named) and a label for the card ("Mind + Comprehend")."""

    @abstractmethod
    def odds_context(self, system: E, request: R, label: str) -> dict[str, Any]:
        """The context of ``odds.html`` for a parsed request."""

    def odds_that_apply(self, context: dict[str, Any], character: Character | None) -> dict[str, Any]:
        """``odds_context``'s figures less those of a follow-up ``character`` cannot take on this
        roll (None: someone the GM rolls without a sheet, who pays for nothing): a form shows
        only the odds of what can be done. Every figure applies by default."""
        return context

    # -- contests (rolls.contests.services) ---------------------------------------------------------------
    def contest_steps(
        self, contest: Contest, side: ContestSide, sides: Sequence[ContestSide]
    ) -> list[ContestStep]:
        """The steps ``side`` may take in ``contest`` now, beyond rolling and its roll's
        follow-ups (a success bought by checking a Condition; a sealed bid). None by default."""
        return []

    def check_contest_sides(self, sides: Sequence[tuple[Character | None, Mapping[str, Any]]]) -> None:
        """Refuse (RulesError) sides that cannot stand together: each is its character (None:
        someone without a sheet) and its roll form's values. Nothing to refuse by default."""
        return None

    # Whether a side may still take a step (``contest_steps``) once the GM has settled the
    # contest, its rolls final (doubles DBL-9: the amazing PC names the Complication then).
    steps_after_settle: ClassVar[bool] = False

    def contest_step(
        self,
        contest: Contest,
        side: ContestSide,
        sides: Sequence[ContestSide],
        step: ContestStep,
        params: Mapping[str, Any],
        character: Character | None,
    ) -> ContestStepDone:
        """Take ``step`` (one of ``contest_steps``) with ``params``: the side's new ``extra``,
        what it cost the (locked) character, and the line for the log. RulesError refuses it,
        and nothing is written."""
        raise RulesError(_("That is not a step of this contest."))

    # Values every character's side of a contest rolls with, whatever the form says (doubles:
    # no Difficulty Number); those fields are not asked for a side. For every kind of flow,
    # unless ``contest_fixed`` says otherwise for one.
    contest_data: ClassVar[Mapping[str, Any]] = {}

    def contest_fixed(self, kind: str) -> Mapping[str, Any]:
        """The values every character's side of a flow of ``kind`` rolls with, whatever its
        form says; the form does not show those fields while that kind is chosen, and the
        server writes these values over whatever was posted. A flow's own values
        (``contest_side_data``) come after them. ``contest_data`` for every kind by default."""
        return self.contest_data

    # Who attacks is the GM's call (sets SET-4: ties and critical hits go to the attacker by
    # role): the GM names the attacker when opening a contest, and a player's challenge waits
    # for the GM to name one (``rolls.contests.services.contest_attacker``). Each side's
    # ``ContestSide.extra["attacking"]`` says it; ``contest_role`` writes it into the roll.
    contest_attacker_chosen: ClassVar[bool] = False
    # Where the GM plays a side (someone without a sheet), a player's sealed side is sealed
    # from the GM too until the reveal (sets SET-4): the GM bids without seeing it.
    contest_sealed_from_gm: ClassVar[bool] = False

    def contest_role(self, data: Mapping[str, Any], *, npc: bool, attacking: bool) -> dict[str, Any]:
        """A side's roll data (a character's form values, or the engine request of someone
        without a sheet) as the attacker or the defender rolls it. Unchanged by default."""
        return dict(data)

    # The same for someone without a sheet: the GM's quick-roll flags (their ``dest``) that a
    # contest ignores, not shown on the contest form (sets: the Bar, the defender).
    contest_npc_ignored: ClassVar[tuple[str, ...]] = ()
    # The GM console's forms for this system's flows besides head to head ("" for none).
    console_flows: ClassVar[str] = ""
    # The flows drawn by a board of their own (``flow_view``, ``flow_verdict``, a template
    # ``flow_<kind>``) rather than as sides against one another: doubles' extended action.
    flow_boards: ClassVar[tuple[str, ...]] = ()

    def flow_verdict(self, contest: Contest) -> str:
        """How a flow of another kind than head to head ended (``Contest.kind``), in words."""
        raise RulesError(_("That is not a flow of this system."))

    def flow_view(self, contest: Contest, membership: Membership | None) -> Any:
        """The contests panel's view of a flow of another kind (``rolls.contests.panels``)."""
        raise RulesError(_("That is not a flow of this system."))

    # Flows besides head-to-head that this system plays (``Contest.Kind`` values and their
    # labels for the GM's form): their sides are checked by ``contest_setup``, not the engine.
    contest_kinds: ClassVar[tuple[tuple[str, str], ...]] = ()
    # The choices those flows need on the GM's form, sent as ``setup-<name>``.
    contest_setup_params: ClassVar[tuple[Param, ...]] = ()

    def contest_setup(self, kind: str, count: int, setup: Mapping[str, Any]) -> dict[str, Any]:
        """What a flow of ``kind`` with ``count`` sides keeps in ``Contest.setup``, checked
        (a DN, the successes needed...); RulesError refuses it and nothing is opened."""
        raise RulesError(_("This table does not play that kind of contest."))

    def contest_side_data(
        self, kind: str, setup: Mapping[str, Any], data: Mapping[str, Any]
    ) -> dict[str, Any]:
        """A character's roll form values as a side of ``kind`` rolls them (the flow's need
        for everyone...). Unchanged by default."""
        return dict(data)

    def contest_rolls_final(self, contest: Contest, sides: Sequence[ContestSide]) -> bool:
        """Whether the rolls of ``contest`` (every side) take no more follow-ups although the GM
        has not settled it yet: what the log said of them must stand (doubles: a Complication
        named, an extended action recorded as won or lost). A settled contest's rolls are
        final in every system (``rolls.play.services``). False by default."""
        return False

    def contest_reading(self, contest: Contest, sides: Sequence[ContestSide]) -> ContestReading | None:
        """This system's reading of ``contest`` (every side, in position order), or None for
        the framework's own. It reads only revealed rolls: a sealed one is nobody's yet."""
        return None

    def contest_follow_up_wait(
        self, contest: Contest, side: ContestSide, sides: Sequence[ContestSide], action: str
    ) -> str:
        """Why ``side``'s roll may not take the follow-up ``action`` yet in a contest being
        played (sets SET-10: the loser answers only after the winner's criticals), or "" when
        it may. Nothing waits by default."""
        return ""

    def contest_ready(self, contest: Contest, sides: Sequence[ContestSide]) -> bool:
        """Whether the sealed rolls may be revealed now that every side has rolled: at once by
        default; a system whose sides still act in secret after rolling (sets: sealed bids)
        says when. ``contest_act`` asks again after each step."""
        return True

    def contest_revealed(
        self, contest: Contest, sides: Sequence[ContestSide]
    ) -> tuple[dict[int, dict[str, Any]], str]:
        """At the reveal: each side's roll state as it is revealed, by side position (what
        the sides did in secret written into their rolls), and one line for the log saying
        what was revealed with the dice ("" for none). Nothing changes by default."""
        return {}, ""

    def contest_closing(self, kind: str) -> str:
        """The GM's question before closing a flow of ``kind`` that is still being rolled:
        what ``rolls.contests.services.contest_close`` does to it then, in words. By default the
        head-to-head reading (``rolls.contests.services.verdict``): the rolls made so far are revealed
        and compared, and a side that has not rolled loses."""
        return _("Close it now? The rolls made so far are revealed; a side that has not rolled loses.")

    # The contests panel's line once every side has rolled and ``contest_ready`` still waits.
    contest_waiting: ClassVar[Text] = Text("")

    def contest_side(
        self, contest: Contest, side: ContestSide, sides: Sequence[ContestSide], *, sees: bool, acts: bool
    ) -> dict[str, Any] | None:
        """What the contests panel shows of ``side`` beyond its roll, drawn by the system's
        ``contest_side.html`` with this dict as ``extra`` (None: nothing). ``sees``: the viewer
        may see what the side did in secret (its own side, or the GM); ``acts``: it is their
        side to act for. None by default."""
        return None

    # The one hook for a contest's verdict in a system's words. It is the adapter's, not the
    # engine's: the words may need what the table keeps beside the dice (sets: the sealed bids
    # and critical hits in ``ContestSide.extra``, who attacks), and the adapter reads those. An
    # engine with words of its own for the dice (doubles' opposed roll) keeps them as a pure
    # function of plain values that its adapter calls.
    def contest_verdict(self, contest: Contest, sides: Sequence[ContestSide], states: Sequence[State]) -> str:
        """The verdict in the system's own words once every side has rolled, ``states`` being
        their rolls as they stand, in ``sides`` order (read once, ``rolls.contests.services.reckon``); ""
        for the table's plain words (the winner and each side's result). RulesError: no
        verdict can be given yet (a miracle waits for the GM)."""
        return ""

    def scene_prompt(self, state: Mapping[str, Any], name: str, *, pc: bool) -> str:
        """A line the card puts to the table when the roll changes the story, beyond its
        verdict (doubles DBL-8: an Amazing Success changes the scene); ``name`` is whose roll,
        ``pc`` whether a player's character made it. None by default."""
        return ""

    def helper_shares(self, state: Mapping[str, Any]) -> bool:
        """Whether the friend who helped a roll (``Roll.helper``) now shares what it did to
        the roller (sixes SIX-16: a failure). Never, by default."""
        return False

    def names_helper(self) -> bool:
        """Whether a roll may name one friend who helps (``Roll.helper``: sixes SIX-16, who then
        shares the outcome). Other systems count their helpers on the roll form instead."""
        return "helper" in self.roll_form.base_fields

    def waiting_step(self, state: Mapping[str, Any], *, unseen: bool) -> tuple[str, dict[str, Any]] | None:
        """The follow-up a roll waits for before it has a result, as a table always takes it,
        with the choice a player usually makes: ``(action, params)``, or None when the roll
        waits for nothing. ``unseen``: asked by a blind roll's roller, who does not see the
        dice. The demo campaign plays it (``rolls.demo``). Nothing waits, by default."""
        return None

    def shared_conditions(self, character: Character) -> list[str]:
        """The Conditions the GM may check for a helper and roller together
        (``rolls.play.bound_helper``): none by default."""
        return []

    def check_can_roll(self, character: Character) -> None:
        """Raise RulesError when the character may not roll now. Anyone may, by default."""
        return None

    def resources(self, character: Character, *, latest: bool) -> dict[str, Any]:
        """What the engine may spend for this character (Luck, Pride...), and ``latest``:
        whether the roll is its character's newest. Nothing, by default."""
        return {}

    def roll_resources(self, roll: Roll, character: Character, *, latest: bool) -> dict[str, Any]:
        """``resources`` for a follow-up on ``roll``, with what the engine reads of the roll's
        place at the table (sixes: where a kid stands in a contest, ``contest_resources``).
        Every path that offers or applies a roll's own follow-ups asks this one."""
        return self.resources(character, latest=latest)

    def contest_chance(self, contest: Contest, request: R) -> tuple[str, Fraction] | None:
        """For a flow other than head to head, what a side's phone shows before it rolls: what
        the side tries for ("get 2 sixes") and the exact chance of it with ``request``. None by
        default: no line."""
        return None

    def contest_resources(
        self, contest: Contest, side: ContestSide, sides: Sequence[ContestSide]
    ) -> dict[str, Any]:
        """What the engine reads, beyond the sheet, for a follow-up on ``side``'s roll as the
        contest stands (the contests panel asks with the sides it holds). Nothing by default."""
        return {}

    def spend(self, character: Character, costs: Mapping[str, Any]) -> list[str]:
        """Spend ``Applied.costs`` on the locked character; the caller saves. Returns the
        fields changed. A system without resources pays for nothing."""
        if costs:
            raise RulesError(_("Nothing on this sheet pays for that."))
        return []

    def new_character(self, character: Character) -> None:
        """Fill the resources of a character being created (not saved yet). None, by default."""
        return None

    def on_new_session(self, character: Character) -> list[str]:
        """What a new play session refills on a locked character; the fields changed."""
        return []

    def on_sheet_change(self, character: Character, before: Mapping[str, Any], *, by_gm: bool) -> list[str]:
        """Guard an edited sheet (``character.sheet`` is the new one, ``before`` the old one):
        raise RulesError to refuse it; returns the fields changed besides the sheet."""
        return []

    def sheet_view(self, character: Character) -> dict[str, Any]:
        """Values about a character that its templates show and cannot compute themselves
        (``{{ character|sheet_view }}``): the stars Luck maximum, say."""
        return {}
