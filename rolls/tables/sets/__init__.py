"""The `sets` system at the table: pools from derived stats, Bars and opposed rolls.

Table choices (the rules choices are in ``rolls/systems/sets.py``):

- **Derived stats.** The rules document names its stats in a section we do not have (its
  example rolls Insight), so a new sheet offers five, each 3 dice, all renamable: Might
  (force, endurance, fighting up close), Finesse (speed, aim, stealth), Insight
  (perception, reasoning, finding clues), Resolve (will, nerve, resisting sorcery) and
  Presence (charm, command, deceit). A stat is 1 to 10 dice.
- **Bonus and penalty dice** come from abilities, sorcery and circumstances (SET-1): the
  sheet keeps abilities and sorcery as notes, and the roll form counts the dice the Judge
  grants. Significant helpers give a die each, three lesser helpers one die (SET-11).
- **The Bar** is chosen on the roll form (SET-5): Apprentice, Journeyman or Master, its Face
  chosen by the Judge or rolled by the server with the dice; or an opposed roll, with no Bar,
  as the attacker (wins ties) or the defender (SET-4).
- **No resources**: bids and criticals spend dice of the roll, never anything on the sheet.
  The story clock counts Adventures and changes no sheet; there is no long rest.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from rolls.systems import RulesError
from rolls.systems.base import State, percent
from rolls.systems.sets import (
    BAR_LEVELS,
    Sets,
    SetsRequest,
    best_bid_distribution,
    chance_against_bar,
    extra_bid,
    system,
    usual_bid,
    with_carried,
)
from rolls.systems.words import N_, Text
from rolls.tables.base import Clock, ContestStep, ContestStepDone, TableAdapter, unchanged
from rolls.tables.sets import contest as sealed
from rolls.tables.sets.carried import carried_for, carried_words
from rolls.tables.sets.forms import OPPOSED, ROLLED, SetsRollForm, SetsSheetForm
from rolls.tables.waits import Waits
from tabletop.models import Character

if TYPE_CHECKING:
    from rolls.models import Contest, ContestSide


def _bar_words(size: int, face: int | None) -> str:
    if face:
        return _("the %(level)s Bar (%(bar)s)") % {"level": _(BAR_LEVELS[size]), "bar": f"{size}x{face}"}
    return _("the %(level)s Bar (Size %(size)d, Face rolled)") % {"level": _(BAR_LEVELS[size]), "size": size}


class SetsTable(TableAdapter[Sets, SetsRequest]):
    # The GM's own rolls and players' blind rolls wait for their bids; no sheet pays for them.
    # SET-11: and a player's roll that names help, until the GM says whether it counts.
    gm_waits = Waits.NPC | Waits.BLIND | Waits.DECISIONS
    slug = "sets"
    sheet_form = SetsSheetForm
    roll_form = SetsRollForm
    call_traits = ("stat",)
    call_needs = ("bar", "face", "side", "bonus", "penalty")
    call_extras = ("assists", "lesser_assists")
    roll_initial = {
        "bar": "2",
        "face": ROLLED,
        "side": "attacker",
        "bonus": 0,
        "penalty": 0,
        "assists": 0,
        "lesser_assists": 0,
    }
    # SET-4: a contest's side bids against the other side, never a Bar, and who attacks is
    # the GM's call (``contest_role``): the form's Bar and attacker/defender fields mean
    # nothing there.
    contest_data = {"bar": OPPOSED, "face": ROLLED, "side": "attacker"}
    contest_npc_ignored = ("bar", "defender")
    # SET-4: who attacks is the GM's call (``contest_role`` writes it into each side's roll).
    contest_attacker_chosen = True
    # SET-4: when the GM plays a side, a player's dice and bid are sealed from the GM too.
    contest_sealed_from_gm = True

    def contest_role(self, data: Mapping[str, Any], *, npc: bool, attacking: bool) -> dict[str, Any]:
        if npc:
            return {**data, "attacker": attacking}
        return {**data, "side": "attacker" if attacking else "defender"}

    def contest_follow_up_wait(
        self, contest: Contest, side: ContestSide, sides: Sequence[ContestSide], action: str
    ) -> str:
        """SET-10: once the bids are revealed the winner spends its criticals first; the
        loser's criticals (a flinch, defy death, clean break, an effect) wait until the winner
        has spent or declined them, and the winner spends none after saying it is done."""
        win = sealed.winner_of(sides)
        if win is None or contest.state != contest.State.REVEALED:
            return ""
        winner = sides[win]
        done = bool(winner.extra.get("hits_done"))
        if side.position != win and not done:
            return _(
                "%(name)s won the bids and spends criticals first: answer once they have spent or declined them."
            ) % {"name": winner.name}
        if side.position == win and done:
            return _("You said you were done with criticals; the other side answers now.")
        return ""

    story = Clock(gettext_lazy("New Adventure"), gettext_lazy("Adventure {n} begins."), unchanged)

    def pool(self, character: Character, data: Mapping[str, Any]) -> tuple[dict[str, Any], str]:
        """The engine request and a label (the stat's name) for the roll form's choices.

        ``data``: ``stat`` (a stat's name on the sheet), ``bonus``, ``penalty``, ``assists``,
        ``lesser_assists``, ``bar`` (2-4, or "opposed"), ``face`` (1-6 or "rolled") and ``side``
        ("attacker" or "defender", for an opposed roll). ``helper`` is not used: helpers are
        counted."""
        stats = {stat["name"]: stat["dice"] for stat in character.sheet.get("stats", [])}
        name = str(data.get("stat", ""))
        if name not in stats:
            raise RulesError(_("Choose a stat: %(stats)s.") % {"stats": ", ".join(stats)})
        opposed = str(data.get("bar", "")) == OPPOSED
        request: dict[str, Any] = {
            "stat": stats[name],
            "bonus": data.get("bonus", 0),
            "penalty": data.get("penalty", 0),
            "assists": data.get("assists", 0),
            "lesser_assists": data.get("lesser_assists", 0),
            "opposed": opposed,
        }
        if opposed:
            request["attacker"] = str(data.get("side", "attacker")) != "defender"
        else:
            request["bar_size"] = data.get("bar", 2)
            request["bar_face"] = data.get("face", ROLLED)
        # SET-8: a critical effect's die goes into this character's next roll (``carried``).
        dice = carried_for(character)
        if dice:
            taken = system.request_dict(with_carried(system.parse_request(request), dice))
            taken["opposed"] = opposed
            return taken, f"{name}, {carried_words(dice)}"
        return request, name

    def waiting_step(self, state: Mapping[str, Any], *, unseen: bool) -> tuple[str, dict[str, Any]] | None:
        """A roll with a set waits for its bid, and a table always bids (SET-5: an unbid roll
        has no result): the usual bid, or on a blind roll its roller's unseen best bid."""
        if unseen:
            offered = {each.action for each in system.blind_follow_ups(dict(state), {})}
            return ("bid_best", {}) if "bid_best" in offered else None
        if "bid" not in {each.action for each in system.follow_ups(dict(state), {})}:
            return None
        return "bid", {"dice": [str(index) for index in usual_bid(dict(state))]}

    def odds_context(self, system: Sets, request: SetsRequest, label: str) -> dict[str, Any]:
        """The roll form's odds: the chance to meet the Bar, and of any set at all."""
        any_set = 1 - best_bid_distribution(request.dice).get(None, Fraction(0))
        context: dict[str, Any] = {
            "trait": label,
            "dice": request.dice,
            "any_set": percent(any_set),
            "bar": "",
            "chance": "",
            "others": [],
            "attacker": request.attacker,
        }
        if request.bar_size is not None:
            context["bar"] = _bar_words(request.bar_size, request.bar_face)
            context["chance"] = percent(system.chance(request))
            context["others"] = [
                (_(name), percent(chance_against_bar(request.dice, size, request.bar_face)))
                for size, name in BAR_LEVELS.items()
                if size != request.bar_size
            ]
        return context

    # -- contests: sealed bids (rolls.tables.sets.contest) ------------------------------------
    contest_waiting = Text(
        N_(
            "Every side has rolled. The dice and the bids stay sealed until both sides have bid "
            "and the GM has named the attacker."
        )
    )

    def contest_steps(
        self, contest: Contest, side: ContestSide, sides: Sequence[ContestSide]
    ) -> list[ContestStep]:
        return sealed.steps(contest, side) + sealed.critical_steps(contest, side, sides)

    def contest_step(
        self,
        contest: Contest,
        side: ContestSide,
        sides: Sequence[ContestSide],
        step: ContestStep,
        params: Mapping[str, Any],
        character: Character | None,
    ) -> ContestStepDone:
        return sealed.take(side, sides, step, params)

    def contest_ready(self, contest: Contest, sides: Sequence[ContestSide]) -> bool:
        return sealed.ready(sides)

    def contest_revealed(
        self, contest: Contest, sides: Sequence[ContestSide]
    ) -> tuple[dict[int, dict[str, Any]], str]:
        return sealed.revealed(sides)

    def contest_closing(self, kind: str) -> str:
        # ``sealed.revealed``: a side that has not bid yet reveals no bid, which is no set.
        return _(
            "Close it now? The rolls made so far are revealed; a side that has not rolled loses, "
            "and one that has not bid yet bids no set."
        )

    def contest_verdict(self, contest: Contest, sides: Sequence[ContestSide], states: Sequence[State]) -> str:
        if len(sides) != 2:
            return ""
        said = sealed.words(sides, [extra_bid(side.extra) for side in sides])
        damage = sealed.damage_words(sides)
        return f"{said} {damage}" if damage else said

    def _side_request(self, contest: Contest, side: ContestSide) -> SetsRequest:
        """The engine request a side rolls (its dice count is what the bid odds need)."""
        engine = system
        if side.npc:
            return engine.contest_request(engine.parse_request(side.data))
        if side.character is None:
            raise RulesError(_("%(name)s has left the table.") % {"name": side.name})
        data, _label = self.pool(side.character, side.data)
        return engine.contest_request(engine.parse_request(data))

    def contest_side(
        self, contest: Contest, side: ContestSide, sides: Sequence[ContestSide], *, sees: bool, acts: bool
    ) -> dict[str, Any] | None:
        bid = side.extra.get("bid")
        # SET-4: when the GM plays a side (someone without a sheet) the bids are sealed from
        # the GM too: the GM sees a player's bid only when both are revealed.
        judge_plays = any(each.npc for each in sides)
        if not acts and judge_plays and contest.state == contest.State.OPEN:
            sees = False
        extra: dict[str, Any] = {
            "attacking": bool(side.extra.get("attacking")),
            "named": sealed.attacker_of(sides) is not None,
            "bid": (bid.get("bid") if bid else "") if sees else "",
            "has_bid": bid is not None,
            "steps": [],
            # SET-10: the critical hits compared set against set, seen by all once revealed.
            "exchanges": sealed.exchanges_of(sides) if side.position == sealed.winner_of(sides) else [],
            "damage": sealed.damage_words(sides) if side.position == sealed.winner_of(sides) else "",
            "critical_turn": False,
            # Whose turn it is, said to everyone (the TV too): only what is public by now.
            "turn": sealed.turn_words(contest, side, sides),
        }
        if acts and contest.state == contest.State.REVEALED:
            extra["steps"] = sealed.critical_steps(contest, side, sides)
            extra["critical_turn"] = bool(extra["steps"])
            if extra["steps"]:
                extra["faces"] = sealed.faces_of(side)
        elif acts:
            extra["steps"] = sealed.steps(contest, side)
            if extra["steps"]:
                extra["faces"] = sealed.faces_of(side)
                if extra["steps"][0].action == sealed.BID:
                    extra["options"] = sealed.options(contest, side, sides, self._side_request)
                else:
                    extra["chance"] = sealed.no_set_chance(contest, side, sides, self._side_request)
        return extra
