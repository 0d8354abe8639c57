"""The console's panel of keys for the feed: the keys of a campaign, and the feed's address."""

from __future__ import annotations

from typing import Any

from django import template
from django.urls import reverse

from rolls.models import FeedToken
from tabletop.joinlink import public_base
from tabletop.models import Campaign

register = template.Library()


@register.simple_tag
def feed_tokens(campaign: Campaign) -> list[FeedToken]:
    """The campaign's keys, newest first, revoked ones too (the console says when they stopped)."""
    return list(FeedToken.objects.filter(campaign=campaign).order_by("-id"))


@register.simple_tag(takes_context=True)
def feed_url(context: dict[str, Any], campaign: Campaign) -> str:
    """The stream's full address, as another tool (on another machine) is given it."""
    return public_base(context["request"]) + reverse("rolls:feed-events", args=[campaign.pk])
