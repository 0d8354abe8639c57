"""A critical effect's one die carried into the next roll (SET-8), read from the log.

Nothing new is stored: the critical effect's entry is the record. A bonus die goes to the
next roll of the character who chose the effect; a penalty die to the next roll of the
character the roll was made against (the other side of a contest, or whoever the GM's roll
targeted). Each is carried into exactly one roll: the first one that character makes after the
effect, since a roll made after the effect is later in the log. A voided roll (the GM's void
or the roller's take-back) counts for nothing, so the die it took waits for the next one. A penalty against someone
without a sheet (a side the GM rolls) has no sheet to follow: the card says it, and the GM
takes the die off that side's next quick roll.
"""

from __future__ import annotations

from django.db.models import Q, QuerySet, Subquery
from django.db.models.functions import Coalesce
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from rolls.models import LogEntry, Roll, Visibility
from rolls.systems.sets import CarriedDie
from tabletop.models import Character
from tabletop.serving.compiled_query import CompiledList


def _effects_since_last_roll(
    campaign_id: int, character_id: int, rolled_by: int, made_against: int
) -> QuerySet[LogEntry]:
    """The critical effects of the campaign's rolls made by or against a character (the same id
    three times: each stand-in of a compiled query appears once), the public or revealed
    ones not voided, written after that character's latest roll: those not carried yet."""
    # The entry of the character's latest roll: through the roll's indexes (its character's
    # newest id, then its entries), never a walk of the campaign's log. A voided roll is no
    # character's latest (as ``Roll.is_latest`` says): the die it took is carried again.
    latest_roll = (
        Roll.objects.filter(character_id=character_id, voided=False).order_by("-id").values("id")[:1]
    )
    latest = (
        LogEntry.objects.filter(roll_id=Subquery(latest_roll), kind=LogEntry.Kind.ROLL)
        .order_by("seq")
        .values("seq")[:1]
    )
    return (
        LogEntry.objects.filter(
            campaign_id=campaign_id, action="critical_effect", seq__gt=Coalesce(Subquery(latest), 0)
        )
        .filter(Q(roll__character_id=rolled_by) | Q(roll__target_id=made_against))
        .filter(Q(roll__visibility=Visibility.PUBLIC) | Q(roll__revealed=True), roll__voided=False)
        .select_related("roll")
        .order_by("seq")
    )


# Read by every sets roll, twice (its form's label and the roll): compiled once, one query
# (tabletop/serving/compiled_query.py).
_EFFECTS = CompiledList(
    _effects_since_last_roll, "campaign_id", "character_id", "rolled_by", "made_against", related=("roll",)
)


def carried_for(character: Character) -> tuple[CarriedDie, ...]:
    """The dice carried into ``character``'s next roll, oldest first."""
    if character.pk is None:
        return ()
    carried = []
    for entry in _EFFECTS.all(
        campaign_id=character.campaign_id,
        character_id=character.pk,
        rolled_by=character.pk,
        made_against=character.pk,
    ):
        assert entry.roll is not None and entry.state is not None
        step = entry.state["steps"][-1]
        effect = step.get("effect")
        if effect == "bonus" and entry.roll.character_id == character.pk:
            carried.append(
                CarriedDie(
                    1, _("a bonus die from %(name)s's critical effect") % {"name": entry.roll.character_name}
                )
            )
        elif effect == "penalty" and entry.roll.target_id == character.pk:
            carried.append(
                CarriedDie(
                    -1,
                    _("a penalty die from %(name)s's critical effect") % {"name": entry.roll.character_name},
                )
            )
    return tuple(carried)


def carried_words(carried: tuple[CarriedDie, ...]) -> str:
    """For the label on the roll form and the card: "+1 carried die"."""
    change = sum(die.change for die in carried)
    if not carried:
        return ""
    if not change:
        return _("carried dice cancel out")
    return ngettext("%(change)s carried die", "%(change)s carried dice", abs(change)) % {
        "change": f"{change:+d}"
    }
