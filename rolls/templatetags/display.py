"""The table display's and the stream overlay's addresses, as the GM types them on the
television or pastes them in a streaming program."""

from __future__ import annotations

from typing import Any

from django import template
from django.urls import reverse

from tabletop.joinlink import public_base
from tabletop.models import Campaign

register = template.Library()


@register.simple_tag(takes_context=True)
def display_url(context: dict[str, Any], campaign: Campaign) -> str:
    """The full address (the one phones reach, like the join link's): the TV is another device."""
    return public_base(context["request"]) + reverse("rolls:display", args=[campaign.display_token])


@register.simple_tag(takes_context=True)
def overlay_url(context: dict[str, Any], campaign: Campaign) -> str:
    """The full address of the stream overlay: the streaming program may run on another machine."""
    return public_base(context["request"]) + reverse("rolls:overlay", args=[campaign.overlay_token])
