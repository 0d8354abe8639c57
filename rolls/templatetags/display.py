"""The table display's address, as the GM types it on the television or sends it to it."""

from __future__ import annotations

from typing import Any

from django import template
from django.urls import reverse

from tabletop.joinlink import public_base
from tabletop.models import Campaign

register = template.Library()


@register.simple_tag(takes_context=True)
def display_url(context: dict[str, Any], campaign: Campaign, overlay: bool = False) -> str:
    """The full address (the one phones reach, like the join link's): the TV is another device."""
    url = public_base(context["request"]) + reverse("rolls:display", args=[campaign.display_token])
    return url + "?overlay=1" if overlay else url
