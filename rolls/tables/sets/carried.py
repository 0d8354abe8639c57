"""A critical effect's one die carried into the next roll (SET-8), read from the log.

Nothing new is stored: the critical effect's entry is the record. A bonus die goes to the
next roll of the character who chose the effect; a penalty die to the next roll of the
character the roll was made against (the other side of a contest, or whoever the GM's roll
targeted). Each is carried into exactly one roll: the first one that character makes after the
effect, since a roll made after the effect is later in the log. A penalty against someone
without a sheet (a side the GM rolls) has no sheet to follow: the card says it, and the GM
takes the die off that side's next quick roll.
"""

from __future__ import annotations

from rolls.systems.sets import CarriedDie
from tabletop.models import Character


def carried_for(character: Character) -> tuple[CarriedDie, ...]:
    """The dice carried into ``character``'s next roll, oldest first."""
    from django.db.models import Q

    from rolls.models import LogEntry, Roll, Visibility

    if character.pk is None:
        return ()
    last = Roll.objects.filter(character=character).order_by("-id").first()
    since = 0
    if last is not None:
        since = last.entries.order_by("seq").values_list("seq", flat=True).first() or 0
    entries = (
        LogEntry.objects.filter(campaign_id=character.campaign_id, action="critical_effect", seq__gt=since)
        .filter(Q(roll__character=character) | Q(roll__target=character))
        .filter(Q(roll__visibility=Visibility.PUBLIC) | Q(roll__revealed=True), roll__voided=False)
        .select_related("roll")
        .order_by("seq")
    )
    carried = []
    for entry in entries:
        assert entry.roll is not None and entry.state is not None
        step = entry.state["steps"][-1]
        effect = step.get("effect")
        if effect == "bonus" and entry.roll.character_id == character.pk:
            carried.append(CarriedDie(1, f"a bonus die from {entry.roll.character_name}'s critical effect"))
        elif effect == "penalty" and entry.roll.target_id == character.pk:
            carried.append(
                CarriedDie(-1, f"a penalty die from {entry.roll.character_name}'s critical effect")
            )
    return tuple(carried)


def carried_words(carried: tuple[CarriedDie, ...]) -> str:
    """For the label on the roll form and the card: "+1 carried die"."""
    change = sum(die.change for die in carried)
    if not carried:
        return ""
    dice = "die" if abs(change) == 1 else "dice"
    return f"{change:+d} carried {dice}" if change else "carried dice cancel out"
