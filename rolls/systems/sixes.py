"""`sixes`: count the sixes.

A pool of attribute + skill dice (+2 for the Iconic Item, +1 for one helper); every six is a
success; one success is enough unless the GM asks for two or three. After the roll the kid
may push (check a Condition, reroll everything but the sixes; once, and only while this is
still the kid's latest roll), spend one Luck point on a failed roll (reroll the failed dice)
and use Pride once per Mystery (one automatic success).

Rules choices where the document leaves room (also on the in-app rules page):

- **Broken (SIX-22).** Checking a Condition has no effect on dice in the document, so the
  four ordinary Conditions change no pool. A Broken kid is out of the action: they cannot
  roll until the GM clears Broken. A push may check Broken (a kid may push themself that far,
  as kid-versus-kid allows), and the pushed dice still count.
- **What a push may follow.** A push must be the very next thing the kid does with their
  dice: the table refuses it once the character has rolled again. Luck or Pride on the same
  roll in between does not spoil it (the document allows Luck before or after a push).
- **Luck rerolls "the failed dice"**: every die that is not a six, as a push does, but
  without checking a Condition and whether or not the roll was pushed. Neither a push nor
  Luck is offered when every die shows a six: there is nothing to reroll.
- **Pride on a pushed or lucky roll** is allowed: it adds a success to whatever the chain
  shows now. It can be used once per roll (it is once per Mystery anyway).
- **A second Condition (SIX-13)**: when the request says the Trouble threatened a Condition
  and a pushed roll still fails, the outcome says a second Condition must be checked; which
  one is the player's choice at the table, so the engine names no Condition.
- **Helping (SIX-15..17)**: one helper at most; none in group Trouble, where everyone rolls
  for themself (a box on the roll form says the Trouble is the group's; a helper is then
  refused). The helper shares a failure (the card says so); in group Trouble the card
  reminds that extra successes may go to the other kids.
- **A push is described (SIX-23, SIX-11).** The player says in one line (160 characters at
  most, nothing invisible in it) what the kid does to push themself, and chooses the
  Condition: none is chosen for them. The line is kept with the push and read on its card
  by everyone who sees the roll.
- **Luck, Pride and pushes on an older roll (SIX-5, SIX-8, SIX-10).** They are paid from the
  sheet as it is now, so the table takes them only on a roll of the play session in
  progress (Luck does not outlive its session, a push follows its roll) and of the current
  Mystery (Pride is once per Mystery, and spent in the Mystery of its roll).
- **Kid versus kid (SIX-18, 19)**: most successes wins; after pushes only the kids tied for
  the lead may buy successes with Conditions, one each; if still tied, the scene is
  interrupted.
- **Luck when losing kid versus kid (SIX-6 with SIX-18).** A kid who is losing has failed
  what they tried, whatever their sixes would make of an ordinary need: Luck is theirs, and
  it rerolls the dice that are not sixes. A kid level or ahead has not failed and is refused.
  The table tells the engine where the kid stands: ``resources["rivals"]`` (the other kids'
  successes on their dice) and ``resources["behind"]`` (someone has more, bought successes
  included). With ``rivals`` given, the buttons carry no chance of meeting the need (the
  contests panel shows the chance to win), and Pride that would only level the kid with the
  leader is labelled so (``PRIDE_TIES``).
- **Help is the GM's call (SIX-15).** A player names the helper and rolls; the GM may strike
  the help afterwards, once (``strike``, a GM-only follow-up that spends nothing). The
  helper's die is the pool's last (``parse_request`` counts it last); striking drops it from
  the dice as they lie now, after any push or Luck, and the helper is no longer bound to the
  outcome (SIX-16). A pool given as a bare number of dice names no die as the helper's, so it
  cannot be struck.
- **The GM describes a push that worked (SIX-23).** While a roll with a push stands as a
  success, its outcome carries ``PUSH_WORKED``: the card prompts the GM to narrate it, next
  to the player's own line.
- **Extended Trouble (SIX-20)**: every kid rolls for their part; the plan succeeds when the
  number of parts that succeeded reaches what the GM asked for (all of them by default).
  ``ExtendedTrouble`` tracks the parts: the plan is lost as soon as the parts left cannot
  reach that number any more, and its exact chance comes from each part's own chance. It
  records nothing once won or lost, so the table counts the parts that worked from every
  part's roll (``rolls.tables.sixes.plan``), those after the verdict included.
- **Contest odds (SIX-18).** ``system.contest`` compares the sixes two kids roll, before any
  push, Luck or Pride: more sixes wins, equal sixes are a tie (what pushes and bought
  successes are for). With more than two kids, ``kid_versus_kid_odds`` gives each kid's
  chance of leading alone (and anyone's chance of a shared lead), ``shared_lead_odds`` each
  kid's own chance of sharing the lead: what that kid's phone shows as a tie.
- **Group Trouble (SIX-17)**: every kid rolls for themself against the same number of
  successes. A kid may give a friend one success for each extra success they rolled
  (beyond those needed): giving never makes the giver fail, a kid cannot give to themself,
  and a success received cannot be given on (``group_trouble``).
- **A bound helper (SIX-16)**: when a helped roll fails as it stands now, the helper shares
  the failure (``helper_shares_failure``); the GM then checks the same Condition for both.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from functools import cache
from math import comb
from typing import Any

from .base import (
    Applied,
    ContestOdds,
    DiceSystem,
    Die,
    FollowUp,
    Outcome,
    Param,
    Rng,
    RulesError,
    State,
    StepView,
    Table,
    choice_labels,
    contest_odds,
    dice_count,
    get_bool,
    get_int,
    get_line,
    grid,
    higher_wins,
    new_state,
    roll_dice,
    steps_of,
    with_step,
)
from .dice import binomial
from .flags import IntRange
from .words import N_, Text, Texts, _, ngettext

# The Conditions are kept in English (on the sheet, in a push's step) and translated where drawn.
CONDITIONS = (N_("Upset"), N_("Scared"), N_("Exhausted"), N_("Injured"), N_("Broken"))
# Kept in English on the sheet and in requests; translated where drawn.
ATTRIBUTES = (N_("Body"), N_("Tech"), N_("Heart"), N_("Mind"))
# Three skills under each attribute, editable on the sheet.
DEFAULT_SKILLS: dict[str, tuple[str, ...]] = {
    "Body": (N_("Sneak"), N_("Force"), N_("Move")),
    "Tech": (N_("Tinker"), N_("Program"), N_("Calculate")),
    "Heart": (N_("Contact"), N_("Charm"), N_("Lead")),
    "Mind": (N_("Investigate"), N_("Comprehend"), N_("Empathize")),
}
MIN_AGE, MAX_AGE = 10, 15
MAX_DICE = 5 + 5 + 2 + 1  # attribute + skill + Iconic Item + one helper
# SIX-23: a push is described, in a line everyone who sees the roll reads on its card.
PUSH_PROMPT = N_("What does the kid do to push themself?")
PUSH_LABEL = N_("What the kid does to push")
PUSH_TEXT_MAX = 160
# SIX-23's other half: after a push that succeeds, the card prompts the GM to narrate it.
PUSH_WORKED = N_("The push worked: GM, describe what it did, alongside the player's words.")
SIX = Fraction(1, 6)
# SIX-15: help is the GM's call; the GM strikes it from a helped roll (the roll's page, the
# GM's cards), and the roll stands without the helper's die.
STRIKE_LABEL = N_("Strike the help: no helper on this roll")
# SIX-18: Pride in kid versus kid that brings the kid level with the leader, no further.
PRIDE_TIES = N_("Use Pride (it only ties the lead)")


def luck_max(age: int) -> int:
    """SIX-8: the most Luck points a kid of this age holds."""
    if not MIN_AGE <= age <= MAX_AGE:
        raise RulesError(_("Age must be between %(low)d and %(high)d.") % {"low": MIN_AGE, "high": MAX_AGE})
    return 15 - age


@dataclass(frozen=True)
class SixesRequest:
    dice: int
    need: int = 1
    attribute: int | None = None
    skill: int = 0
    item: bool = False
    helper: bool = False
    group: bool = False
    threat: bool = False


class Sixes(DiceSystem):
    slug = "sixes"
    follow_up_names = Texts(
        {"push": N_("Pushed"), "luck": N_("Luck point"), "pride": N_("Pride"), "strike": N_("Help struck")}
    )
    name = Text(N_("Sixes"))
    summary = Text(N_("Attribute plus skill dice; every six is a success. Push, Luck and Pride."))
    result_name = "sixes"

    # -- requests -----------------------------------------------------------------------------
    def parse_request(self, data: Mapping[str, Any]) -> SixesRequest:
        need = get_int(data, "need", _("Successes needed"), 1, 3, default=1)
        item = get_bool(data, "item")
        helper = get_bool(data, "helper")
        group = get_bool(data, "group")
        threat = get_bool(data, "threat")
        if helper and group:
            raise RulesError(_("Nobody can help in group Trouble: everyone rolls for themself."))
        if data.get("attribute") not in (None, ""):
            attribute = get_int(data, "attribute", _("The attribute"), 1, 5)
            skill = get_int(data, "skill", _("The skill"), 0, 5, default=0)
            dice = attribute + skill + 2 * item + helper
            return SixesRequest(dice, need, attribute, skill, item, helper, group, threat)
        dice = get_int(data, "dice", _("The number of dice"), 1, MAX_DICE)
        return SixesRequest(dice, need, None, 0, item, helper, group, threat)

    # -- rolling ------------------------------------------------------------------------------
    def roll(self, request: SixesRequest, rng: Rng) -> State:
        return new_state(self, request, {"action": "roll", "dice": roll_dice(rng, request.dice)})

    def drawn(self, step: Mapping[str, Any]) -> list[int]:
        # A push or a Luck point keeps the whole pool; it drew only the dice it rerolled.
        if "rerolled" in step:
            return [int(step["dice"][i]) for i in step["rerolled"]]
        return super().drawn(step)

    @staticmethod
    def _dice(state: State) -> list[int]:
        """The dice as they lie now: the last step that rolled any."""
        for step in reversed(state["steps"]):
            if "dice" in step:
                return list(step["dice"])
        raise RulesError(_("This roll has no dice."))  # pragma: no cover - states always start rolled

    def successes(self, state: State) -> int:
        return self._dice(state).count(6) + len(steps_of(state, "pride"))

    def evaluate(self, state: State) -> Outcome:
        request = state["request"]
        need = request["need"]
        sixes = self._dice(state).count(6)
        total = self.successes(state)
        pushed = bool(steps_of(state, "push"))
        details: list[str] = []
        if total >= need:
            if pushed:
                # SIX-23: the player said what the push was; the GM says what it did.
                details.append(_(PUSH_WORKED))
            extra = total - need
            if extra:
                details.append(
                    ngettext(
                        "%(count)d extra success to buy effects.",
                        "%(count)d extra successes to buy effects.",
                        extra,
                    )
                    % {"count": extra}
                )
                if request.get("group"):
                    details.append(_("Group Trouble: extra successes may go to the other kids."))
            headline = _("Success: %(total)d of %(need)d needed") % {"total": total, "need": need}
            tone = "success"
        else:
            headline = _("Failure: %(total)d of %(need)d needed") % {"total": total, "need": need}
            tone = "failure"
            details.append(
                _("The situation changes: the GM picks a Condition, new Trouble or a Complication.")
            )
            if request["helper"] and not struck(state):
                details.append(_("The helper suffers the same effects."))
            if pushed and request["threat"]:
                details.append(_("Pushed and still failed against a threat: check a second Condition."))
        return Outcome(
            success=total >= need,
            headline=headline,
            key=str(sixes),
            tone=tone,
            details=tuple(details),
            margin=max(0, total - need),
        )

    def view(self, state: State) -> tuple[StepView, ...]:
        views = []
        for step in state["steps"]:
            action = step["action"]
            if action == "pride":
                views.append(StepView(action, _("Pride: one automatic success")))
                continue
            if action == "strike":
                # SIX-15: the GM said no to the help; the helper's die (the last) leaves the pool.
                dice = tuple(Die(face, hit=face == 6) for face in step["dice"])
                views.append(StepView(action, _("The GM struck the help: the helper's die is gone"), dice))
                continue
            fresh = set(step.get("rerolled", range(len(step["dice"]))))
            dice = tuple(Die(face, hit=face == 6, new=i in fresh) for i, face in enumerate(step["dice"]))
            if action == "roll":
                views.append(StepView(action, _("Rolled %(dice)s") % {"dice": dice_count(len(dice))}, dice))
            elif action == "push":
                # SIX-23: what the kid did to push themself, as the player said it (older
                # pushes, from before it was asked, have none).
                said = step.get("description", "")
                views.append(
                    StepView(
                        action,
                        _("Pushed, checking %(condition)s") % {"condition": _(step["condition"])},
                        dice,
                        _("“%(said)s”") % {"said": said} if said else "",
                    )
                )
            else:
                views.append(StepView(action, _("Luck point: rerolled the failed dice"), dice))
        return tuple(views)

    # -- follow-ups ---------------------------------------------------------------------------
    def follow_ups(self, state: State, resources: Mapping[str, Any]) -> list[FollowUp]:
        """What the kid (or, for ``strike``, the GM) may do now. In kid versus kid
        (``resources["rivals"]``: the other kids' successes as they stand) the figures that
        count are the chances to win, which the contests panel shows: the buttons carry none
        of the need's, and Pride that only ties the lead says so."""
        rivals = resources.get("rivals")
        now = Fraction(int(self.evaluate(state).success or False))
        allowed = []
        for action in ("push", "luck", "pride", "strike"):
            try:
                self._check(state, action, resources)
            except RulesError:
                continue
            before: Fraction | None = now
            after: Fraction | None = self._chance_after(state, action) if action != "strike" else None
            if rivals or action == "strike":
                before = after = None
            if action == "push":
                choices = tuple(resources.get("conditions", ()))
                allowed.append(
                    FollowUp(
                        "push",
                        _("Push the roll"),
                        cost=_("a checked Condition"),
                        params=(
                            Param(
                                "condition",
                                _("Condition to check"),
                                choices,
                                labels=choice_labels(choices),
                                prompt=_("Choose a Condition"),
                            ),
                            Param("description", _(PUSH_PROMPT), maximum=PUSH_TEXT_MAX, text=True),
                        ),
                        chance_before=before,
                        chance_after=after,
                        spends=True,
                    )
                )
            elif action == "luck":
                allowed.append(
                    FollowUp(
                        "luck", _("Spend a Luck point"), _("1 Luck point"), (), before, after, spends=True
                    )
                )
            elif action == "pride":
                label = _("Use Pride")
                if rivals and self.successes(state) + 1 == max(rivals):
                    label = _(PRIDE_TIES)
                allowed.append(
                    FollowUp("pride", label, _("Pride, once per Mystery"), (), before, after, spends=True)
                )
            else:
                allowed.append(FollowUp("strike", _(STRIKE_LABEL), gm_only=True))
        return allowed

    def _check(self, state: State, action: str, resources: Mapping[str, Any]) -> None:
        """Raise RulesError unless ``action`` is allowed now (SIX-5..7, SIX-10..12, SIX-14,
        SIX-15's strike, SIX-18's Luck for a kid losing the contest)."""
        if action == "push":
            if steps_of(state, "push"):
                raise RulesError(_("This roll has been pushed already; a roll is pushed once."))
            if not resources.get("latest", False):
                raise RulesError(_("Only the character's latest roll can be pushed."))
            if not resources.get("conditions"):
                raise RulesError(_("Every Condition is checked already: there is none left to push with."))
            self._check_something_to_reroll(state)
        elif action == "luck":
            if steps_of(state, "luck"):
                raise RulesError(_("A Luck point has been spent on this roll already; one per roll."))
            if resources.get("rivals"):
                # SIX-6, SIX-18 (our reading): in kid versus kid a kid who is behind (``behind``:
                # another kid has more successes, bought ones included) has failed what they
                # tried, whatever the need says; level or ahead, they have not.
                if not resources.get("behind"):
                    raise RulesError(
                        _("Luck is spent after a failed roll, and this kid is not losing the contest.")
                    )
            elif self.evaluate(state).success:
                raise RulesError(_("Luck is spent after a failed roll, and this one succeeded."))
            if int(resources.get("luck", 0)) < 1:
                raise RulesError(_("No Luck points left."))
            self._check_something_to_reroll(state)
        elif action == "pride":
            if steps_of(state, "pride"):
                raise RulesError(_("Pride has been used on this roll already."))
            if not resources.get("pride", False):
                raise RulesError(_("Pride has been used already in this Mystery."))
        elif action == "strike":
            if not state["request"].get("helper"):
                raise RulesError(_("Nobody helped this roll: there is no help to strike."))
            if state["request"].get("attribute") is None:
                # A pool given as a number of dice counts no die as the helper's.
                raise RulesError(_("This roll's dice were given as a number: none of them is the helper's."))
            if struck(state):
                raise RulesError(_("The GM has struck this roll's help already."))
        else:
            raise RulesError(_("%(action)s is not a follow-up in this system.") % {"action": repr(action)})

    def _check_something_to_reroll(self, state: State) -> None:
        if all(face == 6 for face in self._dice(state)):
            raise RulesError(_("Every die shows a six already: there is nothing to reroll."))

    def apply(
        self,
        state: State,
        action: str,
        params: Mapping[str, Any],
        resources: Mapping[str, Any],
        rng: Rng,
    ) -> Applied:
        self._check(state, action, resources)
        if action == "pride":
            return Applied(with_step(state, {"action": "pride"}), {"pride": 1})
        if action == "strike":
            # SIX-15: the helper's die is the pool's last (``parse_request`` counts it last);
            # it leaves the dice as they lie now, whatever a push or Luck made of it.
            dice = self._dice(state)[:-1]
            return Applied(with_step(state, {"action": "strike", "dice": dice, "rerolled": []}), {})
        condition = description = ""
        if action == "push":
            # Checked before any die is drawn: a refused push changes nothing, not even the dice.
            condition = str(params.get("condition", "") or "").strip().capitalize()
            if not condition:
                raise RulesError(_("Choose the Condition the push checks: none is chosen for you."))
            if condition not in resources.get("conditions", ()):
                raise RulesError(_("Choose a Condition that is not checked yet to push the roll."))
            description = get_line(params, "description", _(PUSH_LABEL), PUSH_TEXT_MAX)
        dice = self._dice(state)
        rerolled = [i for i, face in enumerate(dice) if face != 6]
        for i in rerolled:
            dice[i] = rng.randint(1, 6)
        step: dict[str, Any] = {"action": action, "dice": dice, "rerolled": rerolled}
        if action == "luck":
            return Applied(with_step(state, step), {"luck": 1})
        step["condition"] = condition
        step["description"] = description
        return Applied(with_step(state, step), {"condition": condition})

    # -- odds ---------------------------------------------------------------------------------
    def outcomes(self, request: SixesRequest) -> dict[str, Fraction]:
        return {str(k): p for k, p in enumerate(binomial(request.dice, SIX))}

    def chance(self, request: SixesRequest) -> Fraction:
        return chance_with_rerolls(request.dice, request.need, 0)

    def chance_with(
        self, request: SixesRequest, *, push: bool = False, luck: bool = False, pride: bool = False
    ) -> Fraction:
        """The chance of success before rolling when the kid will push, spend Luck and/or use
        Pride if the dice fail: what the roll form shows next to the plain chance."""
        need = request.need - int(pride)
        return chance_with_rerolls(request.dice, need, int(push) + int(luck))

    def _chance_after(self, state: State, action: str) -> Fraction:
        need = state["request"]["need"]
        dice = self._dice(state)
        have = self.successes(state)
        if action == "pride":
            return Fraction(int(have + 1 >= need))
        return chance_with_rerolls(len(dice) - dice.count(6), need - have, 0)

    # -- statistics ---------------------------------------------------------------------------

    def step_costs(self, step: Mapping[str, Any]) -> Mapping[str, Any]:
        action = step.get("action")
        if action == "push":
            return {"condition": step["condition"]}
        return {action: 1} if action in ("luck", "pride") else {}

    # -- command line -------------------------------------------------------------------------
    def add_cli_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument(
            "--dice",
            type=IntRange(1, MAX_DICE),
            required=True,
            help=_("pool size, 1-%(maximum)d") % {"maximum": MAX_DICE},
        )
        parser.add_argument(
            "--need", type=IntRange(1, 3), default=1, help=_("successes needed, 1-3 (default 1)")
        )

    def request_from_cli(self, options: argparse.Namespace) -> SixesRequest:
        return self.parse_request({"dice": options.dice, "need": options.need})

    def cli_extra_odds(self, request: SixesRequest) -> dict[str, Fraction]:
        """Extra lines for ``manage.py odds``: the chance with each follow-up in hand."""
        return {
            "with a push": self.chance_with(request, push=True),
            "with a push and Luck": self.chance_with(request, push=True, luck=True),
            "with Pride": self.chance_with(request, pride=True),
        }

    # -- contests -----------------------------------------------------------------------------
    contest_rule = Text(
        N_(
            "the most sixes wins; equal sixes are a tie, which pushes and then successes bought "
            "with Conditions may break (SIX-18, SIX-19)"
        )
    )

    def contest(self, request_a: SixesRequest, request_b: SixesRequest) -> ContestOdds:
        """SIX-18: kid against kid, before any push, Luck or Pride: the sixes each kid rolls
        (two independent binomials); more wins, equal is a tie."""
        return contest_odds(self.outcomes_by_count(request_a), self.outcomes_by_count(request_b), higher_wins)

    # SIX-18: two or more kids; eight is a whole table and then some.
    contest_sides = (2, 8)

    def contest_request(self, request: SixesRequest) -> SixesRequest:
        """SIX-15, SIX-17, SIX-18: in kid versus kid (and a group Trouble) every kid rolls
        for themself: no helper."""
        if request.helper:
            raise RulesError(_("Nobody helps in kid versus kid: every kid rolls for themself."))
        return request

    def contest_winner(self, states: Sequence[State], extras: Sequence[Mapping[str, Any]] = ()) -> int | None:
        """SIX-18, SIX-19: the kid with the most successes (after pushes, Luck and Pride), or
        None while the lead is shared. ``extras[i]["bought"]`` is the successes kid ``i``
        bought with Conditions; they count only for the kids tied for the lead on their
        dice (a kid overtaken by a later push bought in vain: the Conditions stay checked)."""
        if len(states) < 2:
            raise RulesError(_("A contest needs at least two kids."))
        rolled = {str(i): self.successes(state) for i, state in enumerate(states)}
        leaders = set(contest_leaders(rolled))
        bought = {str(i): int(extra.get("bought", 0)) for i, extra in enumerate(extras) if str(i) in leaders}
        winner = kid_versus_kid(rolled, bought)
        return None if winner is None else int(winner)

    def contest_chance_after(
        self, states: Sequence[State], position: int, action: str, target: int
    ) -> Fraction | None:
        """SIX-18: the exact chance that kid ``position`` ends with more successes than every
        other kid as they stand, once a push or a point of Luck rerolls their dice that are not
        sixes (each new six one more success), or Pride adds one. A tie is not a win: it goes to
        the Conditions (SIX-19)."""
        if target != position or action not in ("push", "luck", "pride"):
            return None
        best_other = max(self.successes(state) for i, state in enumerate(states) if i != position)
        have = self.successes(states[position])
        if action == "pride":
            return Fraction(int(have + 1 > best_other))
        dice = self._dice(states[position])
        rerolled = len(dice) - dice.count(6)
        needed = best_other + 1 - have  # new sixes it takes to lead alone
        return sum(
            (
                Fraction(comb(rerolled, sixes))
                * Fraction(1, 6) ** sixes
                * Fraction(5, 6) ** (rerolled - sixes)
                for sixes in range(max(needed, 0), rerolled + 1)
            ),
            Fraction(0),
        )

    def contest_option_chances(
        self, states: Sequence[State], position: int, follow_up: FollowUp, target: int
    ) -> list[tuple[str, Fraction]]:
        """SIX-18: the phone's line for each follow-up, the chance to win after it; Pride that
        brings the kid level with the leader says it only ties."""
        chance = self.contest_chance_after(states, position, follow_up.action, target)
        if chance is None:
            return []
        label = follow_up.label.split(":")[0]
        if follow_up.action == "pride":
            best_other = max(self.successes(state) for i, state in enumerate(states) if i != position)
            label = _(PRIDE_TIES) if self.successes(states[position]) + 1 == best_other else _("Use Pride")
        return [(label, chance)]

    def contest_among(self, requests: Sequence[SixesRequest]) -> list[ContestOdds]:
        """SIX-18: each kid's exact odds among any number of kids: leading alone
        (``kid_versus_kid_odds``), sharing the lead with someone (``shared_lead_odds``: this
        kid's own chance, not that any two kids tie), and the rest."""
        if len(requests) == 2:
            return super().contest_among(requests)
        kids = {str(i): request for i, request in enumerate(requests)}
        alone, shared = kid_versus_kid_odds(kids), shared_lead_odds(kids)
        return [
            {"win": alone[str(i)], "tie": shared[str(i)], "lose": 1 - alone[str(i)] - shared[str(i)]}
            for i in range(len(requests))
        ]

    @staticmethod
    def outcomes_by_count(request: SixesRequest) -> dict[int, Fraction]:
        """The exact distribution of the number of sixes, keyed by the number itself."""
        return dict(enumerate(binomial(request.dice, SIX)))

    # -- the rules page and the warm-up ----------------------------------------------------
    def build_rules_tables(self) -> tuple[Table, ...]:
        chance = self.chance
        plain = grid(
            _("Chance of success by number of dice and successes needed (without push or Luck)"),
            _("Dice"),
            [(str(n), n) for n in range(1, 14)],
            [(ngettext("%(count)d six", "%(count)d sixes", k) % {"count": k}, k) for k in (1, 2, 3)],
            lambda n, k: chance(self.parse_request({"dice": n, "need": k})),
        )
        pushed = grid(
            _("One six needed: plain, with a push, with a push and a Luck point"),
            _("Dice"),
            [(str(n), n) for n in range(1, 14)],
            [(_("plain"), (False, False)), (_("push"), (True, False)), (_("push + Luck"), (True, True))],
            lambda n, how: self.chance_with(
                self.parse_request({"dice": n, "need": 1}), push=how[0], luck=how[1]
            ),
        )
        return (plain, pushed)

    def typical_requests(self) -> tuple[dict[str, Any], ...]:
        return tuple({"dice": n, "need": k} for n in range(1, 14) for k in (1, 2, 3))


@cache
def chance_with_rerolls(dice: int, need: int, rerolls: int) -> Fraction:
    """P(at least ``need`` sixes) when, after a failure, the non-sixes may be rerolled up to
    ``rerolls`` times (a push and a Luck point both reroll exactly those dice)."""
    if need <= 0:
        return Fraction(1)
    if dice <= 0:
        return Fraction(0)
    total = Fraction(0)
    for sixes, p in enumerate(binomial(dice, SIX)):
        if sixes >= need:
            total += p
        elif rerolls:
            total += p * chance_with_rerolls(dice - sixes, need - sixes, rerolls - 1)
    return total


# -- the table around the dice ------------------------------------------------------------------


def kid_versus_kid(successes: Mapping[str, int], bought: Mapping[str, int] | None = None) -> str | None:
    """SIX-18/19: the winner of a contest between kids, or None when it stays tied.

    ``successes`` are each kid's successes after any pushes; ``bought`` the extra successes
    each kid bought by checking Conditions (one per Condition, Broken included)."""
    if len(successes) < 2:
        raise RulesError(_("A contest needs at least two kids."))
    bought = bought or {}
    if any(count < 0 for count in (*successes.values(), *bought.values())):
        raise RulesError(_("Successes cannot be negative."))
    best_rolled = max(successes.values())
    if any(bought.get(kid) and count < best_rolled for kid, count in successes.items()):
        # SIX-19: buying successes breaks a tie; it does not overturn a loss.
        raise RulesError(_("Only kids tied for the lead after their pushes may buy extra successes."))
    totals = {kid: count + bought.get(kid, 0) for kid, count in successes.items()}
    best = max(totals.values())
    leaders = [kid for kid, total in totals.items() if total == best]
    return leaders[0] if len(leaders) == 1 else None


def kid_versus_kid_odds(requests: Mapping[str, SixesRequest]) -> dict[str, Fraction]:
    """SIX-18: before anyone rolls, each kid's exact chance of rolling strictly the most sixes
    (before pushes, Luck or Pride), and under the key ``"tie"`` the chance that two or more
    kids share the lead. With two kids these are ``system.contest``'s win, lose and tie."""
    if len(requests) < 2:
        raise RulesError(_("A contest needs at least two kids."))
    if "tie" in requests:
        raise RulesError(_("A kid cannot be called tie here; give them another name."))
    counts = {kid: Sixes.outcomes_by_count(request) for kid, request in requests.items()}

    def below(kid: str, value: int) -> Fraction:
        return sum((p for count, p in counts[kid].items() if count < value), Fraction(0))

    odds: dict[str, Fraction] = {}
    for kid, mine in counts.items():
        odds[kid] = Fraction(0)
        for value, p in mine.items():
            others = Fraction(1)
            for other in counts:
                if other != kid:
                    others *= below(other, value)
            odds[kid] += p * others
    odds["tie"] = 1 - sum(odds.values(), Fraction(0))
    return odds


def shared_lead_odds(requests: Mapping[str, SixesRequest]) -> dict[str, Fraction]:
    """SIX-18, SIX-19: before anyone rolls, each kid's exact chance of sharing the lead: rolling
    the most sixes with at least one other kid level (a tie for them, which pushes and then
    Conditions may break). With two kids both are ``system.contest``'s tie."""
    if len(requests) < 2:
        raise RulesError(_("A contest needs at least two kids."))
    counts = {kid: Sixes.outcomes_by_count(request) for kid, request in requests.items()}

    def at_most(kid: str, value: int, *, below: bool) -> Fraction:
        return sum((p for count, p in counts[kid].items() if count < value + (not below)), Fraction(0))

    shared: dict[str, Fraction] = {}
    for kid, mine in counts.items():
        others = [other for other in counts if other != kid]
        shared[kid] = Fraction(0)
        for value, p in mine.items():
            level_or_below = below = Fraction(1)
            for other in others:
                level_or_below *= at_most(other, value, below=False)
                below *= at_most(other, value, below=True)
            # Nobody above, and not everyone below: someone is level.
            shared[kid] += p * (level_or_below - below)
    return shared


def contest_leaders(successes: Mapping[str, int]) -> tuple[str, ...]:
    """SIX-19: the kids tied for the lead after their pushes, in the order given: those who
    may buy extra successes with Conditions. One kid alone leads: nobody needs to buy."""
    if not successes:
        raise RulesError(_("A contest needs at least two kids."))
    best = max(successes.values())
    return tuple(kid for kid, count in successes.items() if count == best)


def struck(state: State) -> bool:
    """SIX-15: whether the GM struck the help from this roll (it then had no helper)."""
    return bool(steps_of(state, "strike"))


def helper_shares_failure(state: State) -> bool:
    """SIX-16: whether the kid who helped this roll suffers its failure with the roller: the
    roll had a helper the GM did not strike and, as it stands now (after any push, Luck or
    Pride), it fails."""
    return bool(state["request"].get("helper")) and not struck(state) and not system.evaluate(state).success


@dataclass(frozen=True)
class GroupTrouble:
    """SIX-17: the end of a group Trouble, after the gifts.

    ``rolled`` is each kid's own successes, ``successes`` the same after the gifts (given
    away and received), ``gifts`` each success handed over as (giver, receiver)."""

    need: int
    rolled: Mapping[str, int]
    successes: Mapping[str, int]
    gifts: tuple[tuple[str, str], ...]

    @property
    def passed(self) -> tuple[str, ...]:
        return tuple(kid for kid, count in self.successes.items() if count >= self.need)

    @property
    def failed(self) -> tuple[str, ...]:
        return tuple(kid for kid, count in self.successes.items() if count < self.need)

    @property
    def everyone_passed(self) -> bool:
        return not self.failed


def spare_successes(rolled: int, need: int, given: int = 0) -> int:
    """SIX-17, SIX-21: successes a kid may still give away: those beyond what they need."""
    return max(0, rolled - need - given)


def group_trouble(
    successes: Mapping[str, int], need: int = 1, gifts: Sequence[tuple[str, str]] = ()
) -> GroupTrouble:
    """SIX-17: everyone faces the same Trouble, nobody helps; a kid may give a friend a success
    bought with an extra success of their own. ``successes`` is what each kid rolled (after
    their own pushes, Luck and Pride); ``gifts`` one (giver, receiver) pair per success given.

    Refuses a gift from or to someone outside the group, to oneself, a success the giver
    does not have to spare, or a success received being given on."""
    if not successes:
        raise RulesError(_("Group Trouble needs at least one kid."))
    if not 1 <= need <= 3:
        raise RulesError(_("The Trouble needs 1 to 3 successes."))
    if any(count < 0 for count in successes.values()):
        raise RulesError(_("Successes cannot be negative."))
    given: dict[str, int] = dict.fromkeys(successes, 0)
    received: dict[str, int] = dict.fromkeys(successes, 0)
    for giver, receiver in gifts:
        if giver not in successes or receiver not in successes:
            raise RulesError(_("A success can only go between kids facing this Trouble."))
        if giver == receiver:
            raise RulesError(_("A kid cannot give a success to themself."))
        if spare_successes(successes[giver], need, given[giver]) < 1:
            raise RulesError(
                _(
                    "%(kid)s has no extra success to give: only successes beyond the %(need)d needed can go to a friend."
                )
                % {"kid": giver, "need": need}
            )
        given[giver] += 1
        received[receiver] += 1
    final = {kid: count - given[kid] + received[kid] for kid, count in successes.items()}
    return GroupTrouble(need, dict(successes), final, tuple((g, r) for g, r in gifts))


@dataclass(frozen=True)
class ExtendedTrouble:
    """SIX-20: a plan in parts, one kid's roll each; the plan succeeds when ``needed`` parts
    succeed (all of them when None). Immutable: ``record`` returns the plan with one more part
    settled, in the order the parts were played."""

    parts: tuple[str, ...]  # each part's name (the kid and their task), unique
    needed: int | None = None
    results: tuple[tuple[str, bool], ...] = field(default=())

    def __post_init__(self) -> None:
        if not self.parts:
            raise RulesError(_("Extended Trouble needs at least one kid's part."))
        if len(set(self.parts)) != len(self.parts):
            raise RulesError(_("Each part of the plan needs its own name."))
        if not 1 <= self.target <= len(self.parts):
            raise RulesError(
                _("The plan needs between 1 and %(parts)d successful parts.") % {"parts": len(self.parts)}
            )

    @property
    def target(self) -> int:
        """How many parts must succeed."""
        return len(self.parts) if self.needed is None else self.needed

    @property
    def succeeded(self) -> int:
        return sum(success for _, success in self.results)

    @property
    def remaining(self) -> tuple[str, ...]:
        """The parts not played yet, in the plan's order."""
        done = {part for part, _ in self.results}
        return tuple(part for part in self.parts if part not in done)

    def result_of(self, part: str) -> bool | None:
        """How a part went, or None while it is not played."""
        return dict(self.results).get(part)

    @property
    def status(self) -> str:
        """ "won" once enough parts succeeded, "lost" once the parts left cannot make up the
        difference, else "going"."""
        if self.succeeded >= self.target:
            return "won"
        if self.succeeded + len(self.remaining) < self.target:
            return "lost"
        return "going"

    def record(self, part: str, success: bool) -> ExtendedTrouble:
        if part not in self.parts:
            raise RulesError(_("%(part)s is not a part of this plan.") % {"part": repr(part)})
        if self.result_of(part) is not None:
            raise RulesError(_("The part %(part)s has been played already.") % {"part": repr(part)})
        if self.status != "going":
            raise RulesError(
                _("This plan is settled: it is won.")
                if self.status == "won"
                else _("This plan is settled: it is lost.")
            )
        return replace(self, results=(*self.results, (part, bool(success))))

    def chance(self, chances: Mapping[str, Fraction]) -> Fraction:
        """The exact chance that the plan succeeds, given each remaining part's chance of
        success (parts already played count as they went)."""
        missing = [part for part in self.remaining if part not in chances]
        if missing:
            raise RulesError(_("The chance of the part %(part)s is missing.") % {"part": repr(missing[0])})
        # Distribution of successes among the remaining parts, one part at a time.
        counts = {self.succeeded: Fraction(1)}
        for part in self.remaining:
            p = Fraction(chances[part])
            nxt: dict[int, Fraction] = {}
            for have, q in counts.items():
                nxt[have + 1] = nxt.get(have + 1, Fraction(0)) + q * p
                nxt[have] = nxt.get(have, Fraction(0)) + q * (1 - p)
            counts = nxt
        return sum((q for have, q in counts.items() if have >= self.target), Fraction(0))


def extended_trouble(parts: Sequence[bool], needed: int | None = None) -> bool:
    """SIX-20: the plan succeeds when enough kids' parts succeeded (all of them by default)."""
    if not parts:
        raise RulesError(_("Extended Trouble needs at least one kid's part."))
    needed = len(parts) if needed is None else needed
    if not 1 <= needed <= len(parts):
        raise RulesError(
            _("The plan needs between 1 and %(parts)d successful parts.") % {"parts": len(parts)}
        )
    return sum(parts) >= needed


system = Sixes()
