"""A helper bound to a roll's outcome (sixes SIX-16): when a roll that a friend helped fails,
the helper suffers what the roller suffers. The GM checks the same Condition for both in one
step from the GM's card of that roll. And help is the GM's call (SIX-15): while the roll's
session runs the GM may strike it from the roll's page, a follow-up of the GM's own.

The roll's row is locked first (a push or a void on the same roll waits, so the failure we
read is the one that stands), then both characters by id, the campaign last (by the log).
Each character gets the ordinary sheet-change entry the table already knows, so every page
that shows Conditions draws them again.
"""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser, User
from django.db import transaction
from django.utils.translation import gettext as _

from rolls import registry
from rolls.log.append import append_event
from rolls.log.events import TableEvent
from rolls.models import Roll, Visibility
from rolls.play.services import follow_up_apply
from rolls.systems import RulesError
from rolls.systems.base import Rng
from tabletop.models import Character

# The engine's follow-up that strikes a helper (sixes SIX-15); a system without it offers none.
STRIKE = "strike"


def shared_choices(roll: Roll, state: dict[str, object]) -> list[str]:
    """The Conditions the GM may check for both the roller and the helper of ``roll`` as
    ``state`` stands: none unless it had a helper and now fails (SIX-16), only those neither
    has checked yet. Reads both sheets: the caller asks only for the GM's card."""
    if roll.helper_id is None or roll.character_id is None or roll.voided:
        return []
    adapter = registry.table(roll.system)
    if not state or not adapter.helper_shares(state):
        return []
    characters = list(Character.objects.filter(pk__in=(roll.character_id, roll.helper_id)))
    if len(characters) != 2:
        return []
    first, second = (adapter.shared_conditions(character) for character in characters)
    return [condition for condition in first if condition in second]


def check_for_both(*, roll: Roll, gm: AbstractBaseUser, condition: str) -> list[Character]:
    """Check ``condition`` for the roller and the helper of a failed roll (SIX-16). Refused,
    nothing changed, unless the roll had a helper and fails as it stands now, and neither of
    them has that Condition checked already."""
    with transaction.atomic():
        roll = (
            Roll.objects.select_for_update(no_key=True, of=("self",))
            .select_related("campaign")
            .get(pk=roll.pk)
        )
        if roll.campaign.gm_id != gm.pk:
            raise RulesError(_("Only the GM checks a Condition for a helper."))
        if roll.voided:
            raise RulesError(_("This roll is voided: it binds nobody."))
        if roll.helper_id is None or roll.character_id is None:
            raise RulesError(_("Nobody helped this roll: there is no helper to share it."))
        adapter = registry.table(roll.system)
        if not adapter.helper_shares(roll.current_state()):
            raise RulesError(_("This roll did not fail: the helper has nothing to share."))
        characters = list(
            Character.objects.select_for_update(no_key=True, of=("self",))
            .filter(pk__in=(roll.character_id, roll.helper_id), campaign_id=roll.campaign_id)
            .order_by("pk")
        )
        if len(characters) != 2:
            raise RulesError(_("The roller or the helper has left the table."))
        for character in characters:
            if condition not in adapter.shared_conditions(character):
                if character.sheet.get("conditions", {}).get(condition):
                    raise RulesError(
                        _("%(name)s has %(condition)s checked already.")
                        % {"name": character.name, "condition": condition}
                    )
                raise RulesError(_("Choose one of the Conditions."))
        # Why, in the log, only where the table saw the roll fail.
        why = roll.visibility == Visibility.PUBLIC
        for character in characters:
            changed = adapter.spend(character, {"condition": condition})
            character.save(update_fields=changed)
            words = {"name": character.name, "condition": condition}
            if why and character.pk == roll.helper_id:
                text = _("%(name)s: checked %(condition)s (bound to a failed roll they helped).") % words
            else:
                text = _("%(name)s: checked %(condition)s.") % words
            append_event(campaign_id=roll.campaign_id, event=TableEvent.SHEET_CHANGE, actor=gm, text=text)
        return characters


def may_strike(roll: Roll, state: dict[str, object]) -> bool:
    """SIX-15: whether the GM may still strike the help from ``roll`` as ``state`` stands: it
    had a helper, the help is not struck yet, the roll is not voided and its session runs.
    The engine decides the rest (``strike``, a GM-only follow-up)."""
    if not roll.helper_name or roll.voided or not state or roll.session.ended is not None:
        return False
    offered = registry.engine(roll.system).follow_ups(dict(state), {})
    return any(follow_up.action == STRIKE for follow_up in offered)


def strike_help(*, roll: Roll, gm: User, rng: Rng) -> None:
    """SIX-15: the GM says no to a friend's help after the roll: the roll stands without the
    helper's die and the helper is no longer bound to it. One follow-up entry, the GM's, on
    the roll's own chain (``rolls.play.services.follow_up_apply`` locks and writes it)."""
    if roll.campaign.gm_id != gm.pk:
        raise RulesError(_("Only the GM strikes a friend's help."))
    if roll.session.ended is not None:
        raise RulesError(_("That roll's play session is over: its help stands."))
    follow_up_apply(roll=roll, actor=gm, action=STRIKE, params={}, rng=rng, by_gm=True)
