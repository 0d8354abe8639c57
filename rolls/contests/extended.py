"""Extended actions (doubles DBL-13): the party works at one lengthy task.

The GM opens one with a Difficulty Number, the successes needed and the failures that end it
(``Contest.kind`` "extended", those three in ``Contest.setup``). Then any player rolls for it
with their own character, from the contests panel, as often as they like until it ends: each
roll is a plain roll of that character against the action's Difficulty Number, public like any
roll (there is nothing to hide in a shared effort), and becomes one more ``ContestSide`` of the
contest in the order rolled. The tally (``tally``: the engine's ``ExtendedAction``) is read
from those rolls as they stand now, so drama dice or a miracle on a contribution count.

When the tally is won or lost no more rolls are taken and the GM settles it (the contest's
verdict); the GM may also close it early or call it off (``rolls.contests.services``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from rolls.contests.services import contest_event, write_open_contest
from rolls.log.events import TableEvent
from rolls.models import Contest, ContestSide, Roll
from rolls.play.services import roll_create
from rolls.systems import RulesError
from rolls.systems.base import Rng
from rolls.systems.doubles import DN_NAMES, ExtendedAction
from rolls.tables.doubles.contest import tally
from tabletop.models import Campaign, Character, Membership

INTENT_LENGTH = 200


def extended_open(
    *, campaign: Campaign, gm: User, dn: int, successes: int, failures: int, intent: str
) -> Contest:
    """The GM opens an extended action for the party (DBL-13)."""
    if campaign.system != "doubles":
        raise RulesError(_("Extended actions are a rule of Doubles."))
    if not Membership.objects.filter(campaign=campaign, user=gm, is_gm=True).exists():
        raise RulesError(_("Only the GM opens an extended action."))
    ExtendedAction(dn, successes, failures)  # refuses what the rules cannot hold
    intent = intent.strip()[:INTENT_LENGTH]
    words = {
        "intent": intent,
        "successes": ngettext("%(count)s success", "%(count)s successes", successes) % {"count": successes},
        "failures": ngettext("%(count)s failure", "%(count)s failures", failures) % {"count": failures},
        "difficulty": _(str(DN_NAMES[dn])),
        "dn": dn,
    }
    if intent:
        text = (
            _(
                "The GM opened an extended action (%(intent)s): %(successes)s against %(difficulty)s (%(dn)s) "
                "before %(failures)s."
            )
            % words
        )
    else:
        text = (
            _(
                "The GM opened an extended action: %(successes)s against %(difficulty)s (%(dn)s) before %(failures)s."
            )
            % words
        )
    with transaction.atomic():
        return write_open_contest(
            campaign=campaign,
            opener=gm,
            kind=Contest.Kind.EXTENDED,
            intent=intent,
            setup={"dn": dn, "successes": successes, "failures": failures},
            text=text,
        )


def extended_roll(
    *,
    contest: Contest,
    character: Character,
    user: User,
    data: Mapping[str, Any],
    rng: Rng,
    faces: list[int] | None = None,
    client: str | None = None,
    key: str | None = None,
) -> Roll:
    """One roll for the action by a player's own character, against its Difficulty Number;
    refused once the action is won, lost, closed or called off. ``key``: the request's one-time
    key (``rolls.log.resent``): the same tap sent twice rolls once."""
    with transaction.atomic():
        contest = (
            Contest.objects.select_for_update(no_key=True, of=("self",))
            .select_related("campaign")
            .get(pk=contest.pk)
        )
        if contest.kind != Contest.Kind.EXTENDED:
            raise RulesError(_("That is not an extended action."))
        if contest.state not in (Contest.State.OPEN, Contest.State.REVEALED):
            raise RulesError(_("This extended action is over."))
        if character.campaign_id != contest.campaign_id or character.owner_id != user.pk:
            raise RulesError(_("Only %(name)s's player rolls for %(name)s.") % {"name": character.name})
        sides = list(contest.sides.select_related("roll").order_by("position"))
        before = tally(contest, sides)
        if before.status != "going":
            raise RulesError(
                _("This extended action is won: the GM settles it.")
                if before.status == "won"
                else _("This extended action is lost: the GM settles it.")
            )
        roll = roll_create(
            character=character,
            roller=user,
            data={**data, "dn": contest.setup["dn"]},
            helper=None,
            intent=contest.intent,
            rng=rng,
            faces=faces,
            flow=True,
            client=client,
            key=key,
        )
        side = ContestSide.objects.create(
            contest=contest,
            position=len(sides),
            character=character,
            name=character.name,
            data={**data, "dn": contest.setup["dn"]},
            roll=roll,
        )
        after = tally(contest, [*sides, side])
        contest.state = Contest.State.OPEN if after.status == "going" else Contest.State.REVEALED
        contest.save(update_fields=["state"])
        words = {
            "name": character.name,
            "successes": after.successes,
            "needed": after.successes_needed,
            "failures": after.failures,
            "allowed": after.failures_allowed,
        }
        if after.successes > before.successes:
            text = (
                _(
                    "%(name)s rolls for the extended action: a success "
                    "(%(successes)s of %(needed)s successes, %(failures)s of %(allowed)s failures)."
                )
                % words
            )
        else:
            text = (
                _(
                    "%(name)s rolls for the extended action: a failure "
                    "(%(successes)s of %(needed)s successes, %(failures)s of %(allowed)s failures)."
                )
                % words
            )
        if after.status == "won":
            text += " " + _("The action is won.")
        elif after.status != "going":
            text += " " + _("The action is lost.")
        contest_event(contest, TableEvent.CONTEST_STEP, user, text)
        return roll
