"""What templates ask of a campaign's dice system: its name, and the values about a
character that its table package computes (``TableAdapter.sheet_view``)."""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from rolls import registry

register = template.Library()


@register.filter
def system_name(slug: str) -> str:
    """A campaign's ``system`` as the table calls it: "sixes" -> its engine's name."""
    try:
        return registry.engine(slug).name
    except registry.RulesError:
        return slug


@register.filter
def sheet_view(character: Any) -> dict[str, Any]:
    return registry.table(character.campaign.system).sheet_view(character)


@register.filter
def story_name(slug: str) -> str:
    """What a campaign's story counter counts: "Mystery" in sixes, "Adventure" elsewhere."""
    try:
        return registry.table(slug).story_name
    except registry.RulesError:
        return _("Adventure")


@register.filter
def count_of(number: int, noun: str = "die") -> str:
    """A count of dice, said right: ``3|count_of`` is "3 dice", ``1|count_of`` "1 die"; ``2|count_of:"Star"`` "2 Stars"."""
    try:
        n = int(number)
    except (TypeError, ValueError):
        n = None
    if noun == "die":
        # The language's plural rules (ngettext), by the count; a count that is no number reads as many.
        return ngettext("%(count)s die", "%(count)s dice", 2 if n is None else abs(n)) % {
            "count": number if n is None else n
        }
    plural = f"{noun}s"
    if n is None:
        return f"{number} {plural}"
    return f"{n} {noun if abs(n) == 1 else plural}"
