"""The GM console's Discord panel (templates/rolls/_discord_panel.html), drawn where the
console includes it, with the webhooks read for it."""

from __future__ import annotations

from typing import Any

from django import template

from rolls.views.discord import panel_context
from tabletop.models import Campaign

register = template.Library()


@register.inclusion_tag("rolls/_discord_panel.html", takes_context=True)
def discord_panel(context: dict[str, Any], campaign: Campaign) -> dict[str, Any]:
    # The session page is the GM's alone (its view asks ``gm_or_403``).
    return panel_context(campaign, csrf_token=context.get("csrf_token"), request=context.get("request"))
