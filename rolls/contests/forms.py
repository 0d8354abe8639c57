"""The forms that open a contest (``rolls.contests.services``): the GM's on the session page, a
player's challenge on their roll screen, and the challenged player's answer.

Each character's side is chosen with its own roll fields (``rolls.contests.sides``). Someone without a sheet is described by the GM's quick-roll fields, which are
the system's command-line flags (``rolls.play.npc``), under the prefix ``npc``.
"""

from __future__ import annotations

import unicodedata

from django.http import QueryDict
from django.utils.translation import gettext as _

from rolls import registry
from rolls.contests.sides import Side, SideRow, side_data, side_row
from rolls.play.npc import NpcRollForm
from rolls.systems import RulesError
from rolls.systems.base import INVISIBLE, Param
from tabletop.access import MAX_ID
from tabletop.models import Campaign, Character

NPC = "npc"
INTENT_MAX = 200


def intent_of(post: QueryDict) -> str:
    intent = post.get("intent", "").strip()
    if len(intent) > INTENT_MAX:
        raise RulesError(_("Say what is at stake in at most %(max)s characters.") % {"max": INTENT_MAX})
    return visible_line(intent, _("What is at stake"))


def visible_line(text: str, label: str) -> str:
    """``text`` when everyone can read it: no control or invisible character (a NUL, which
    PostgreSQL refuses to store, a reversed line). RulesError names the field otherwise."""
    for char in text:
        if unicodedata.category(char) in INVISIBLE:
            raise RulesError(
                _("%(label)s cannot hold invisible or control characters (this one has U+%(code)s).")
                % {"label": label, "code": f"{ord(char):04X}"}
            )
    return text


def _chosen(characters: list[Character], raw: str) -> Character | None:
    if raw.isdecimal() and 0 < int(raw) <= MAX_ID:
        return next((c for c in characters if c.pk == int(raw)), None)
    return None


class ContestBuilder:
    """The GM's contest form on the session page (unbound, for the page) and its parsing."""

    def __init__(self, campaign: Campaign) -> None:
        self.campaign = campaign
        self.system = registry.engine(campaign.system)
        self.characters = list(campaign.characters.select_related("campaign").order_by("name", "pk"))

    @property
    def plays_contests(self) -> bool:
        """Whether the form is drawn: a head-to-head contest or a flow of the table's own."""
        return self.system.plays_contests or bool(self.kinds)

    @property
    def head_to_head(self) -> bool:
        """Whether sides may contest against one another (kinds plays only its one Danger)."""
        return self.system.plays_contests

    @property
    def flows_template(self) -> str:
        """The system's own forms for flows besides head to head, if it has any."""
        return registry.table(self.campaign.system).console_flows

    @property
    def many(self) -> bool:
        """Whether a contest may have more than two sides (sixes, SIX-18: two or more kids):
        the form then ticks who takes part instead of choosing a first and a second side."""
        return self.system.contest_sides[1] > 2 or not self.head_to_head

    @property
    def chooses_attacker(self) -> bool:
        """Whether the GM names the side that attacks (sets SET-4), on a form of two sides."""
        return registry.table(self.campaign.system).contest_attacker_chosen and not self.many

    def attacker(self, post: QueryDict) -> int | None:
        """The position of the side the GM names the attacker ("first" or "second"; the first
        when the form says nothing), or None where the table names none."""
        if not self.chooses_attacker:
            return None
        raw = post.get("attacker", "first")
        if raw not in ("first", "second"):
            raise RulesError(_("Choose which side attacks: the first or the second."))
        return 0 if raw == "first" else 1

    @property
    def kinds(self) -> tuple[tuple[str, str], ...]:
        """The flows besides head-to-head this table plays (group Trouble...), for the form."""
        return registry.table(self.campaign.system).contest_kinds

    @property
    def setup_params(self) -> tuple[Param, ...]:
        return registry.table(self.campaign.system).contest_setup_params

    def flow(self, post: QueryDict) -> tuple[str, dict[str, str]]:
        """Which flow the GM opens (``contest``, or one of ``kinds``) and its setup values."""
        kind = post.get("kind", "contest" if self.head_to_head or not self.kinds else self.kinds[0][0])
        if kind == "contest" and not self.head_to_head:
            raise RulesError(
                _("%(system)s has no contested rolls at this table.") % {"system": self.system.name}
            )
        if kind != "contest" and kind not in dict(self.kinds):
            raise RulesError(_("Choose what kind of contest to open."))
        setup = {
            param.name: visible_line(post.get(f"setup-{param.name}", "")[:200], str(param.label))
            for param in self.setup_params
        }
        return kind, setup

    @property
    def kind_values(self) -> tuple[str, ...]:
        """Every kind of flow the form may open: what a side's fields are drawn for."""
        return (("contest",) if self.head_to_head else ()) + tuple(value for value, _ in self.kinds)

    def rows(self) -> list[SideRow]:
        rows = [side_row(character, self.kind_values) for character in self.characters]
        for row in rows:
            for field in row.fields:
                # A character not chosen as a side must not block the form in the browser;
                # the server checks the chosen ones.
                field.form.use_required_attribute = False
        return rows

    def npc_form(self) -> NpcRollForm:
        form = self._npc_form(NpcRollForm(campaign=self.campaign, prefix=NPC))
        # Used only when a side is someone without a sheet: the server checks it then.
        form.use_required_attribute = False
        return form

    def _npc_form(self, form: NpcRollForm) -> NpcRollForm:
        """The quick-roll form without the flags a contest ignores (``contest_npc_ignored``):
        not shown, and their values not read."""
        for dest in registry.table(self.campaign.system).contest_npc_ignored:
            name = f"flag_{dest}"
            for each in [name, *form.word_fields.get(name, [])]:
                form.fields.pop(each, None)
                if each in form.flag_names:
                    form.flag_names.remove(each)
        return form

    def parse(self, post: QueryDict, kind: str = "contest") -> tuple[list[Side], str]:
        """The two sides (a character with its roll, or someone without a sheet) and what is
        at stake; RulesError says what is wrong, and nothing is opened. A flow of another
        ``kind`` counts its sides itself (``TableAdapter.contest_setup``)."""
        if self.many:
            return self._ticked(post, kind), intent_of(post)
        sides = []
        for key, label in (
            ("first", _("Choose who rolls for the first side.")),
            ("second", _("Choose who rolls for the second side.")),
        ):
            raw = post.get(key, "")
            if raw == NPC:
                sides.append(self._npc_side(post))
                continue
            character = _chosen(self.characters, raw)
            if character is None:
                raise RulesError(label)
            sides.append(Side(character, side_data(character, post, kind)))
        if all(side.character is None for side in sides):
            raise RulesError(_("A contest needs at least one character: choose one side from the table."))
        return sides, intent_of(post)

    def _ticked(self, post: QueryDict, kind: str) -> list[Side]:
        """The ticked characters, each with its own roll for a side of ``kind``, in the form's
        order, and someone without a sheet when that is ticked too. A head-to-head contest
        counts its sides here; another flow counts them itself."""
        counted = kind == "contest"
        ticked = set(post.getlist("sides"))
        known = {str(character.pk) for character in self.characters} | {NPC}
        if ticked - known:
            raise RulesError(_("Tick only characters from this table."))
        low, high = self.system.contest_sides
        if counted and not low <= len(ticked) <= high:
            raise RulesError(
                _("Tick %(low)s to %(high)s who take part in the contest.") % {"low": low, "high": high}
            )
        sides = [
            Side(character, side_data(character, post, kind))
            for character in self.characters
            if str(character.pk) in ticked
        ]
        if not sides:
            raise RulesError(_("A contest needs at least one character: tick who takes part."))
        if NPC in ticked:
            sides.append(self._npc_side(post))
        return sides

    def _npc_side(self, post: QueryDict) -> Side:
        form = self._npc_form(NpcRollForm(post, campaign=self.campaign, prefix=NPC))
        if not form.is_valid():
            raise RulesError(_("For the side without a sheet: %(errors)s") % {"errors": form.errors_text()})
        request = self.system.contest_request(self.system.sheetless(form.engine_request()))
        return Side(None, self.system.request_dict(request), name=form.cleaned_data["name"])


class ChallengeBuilder:
    """A player's challenge from their roll screen: their character's roll, and another
    player's character (who chooses their own roll when they accept)."""

    def __init__(self, campaign: Campaign, character: Character) -> None:
        self.campaign = campaign
        self.character = character
        self.opponents = list(
            campaign.characters.exclude(owner_id=character.owner_id)
            .select_related("campaign")
            .order_by("name", "pk")
        )

    def row(self) -> SideRow:
        return side_row(self.character)

    def parse(self, post: QueryDict) -> tuple[list[Side], str]:
        opponent = _chosen(self.opponents, post.get("opponent", ""))
        if opponent is None:
            raise RulesError(_("Choose another player's character to challenge."))
        return [Side(self.character, side_data(self.character, post)), Side(opponent, {})], intent_of(post)
