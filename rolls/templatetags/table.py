"""What templates ask of a campaign's dice system: its name, and the values about a
character that its table package computes (``TableAdapter.sheet_view``)."""

from __future__ import annotations

from typing import Any

from django import template

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
        return "Adventure"
