"""The GM's Discord webhooks: checked, saved, shown masked, removed.

A webhook's URL is a secret (anyone holding it may post in the channel): only the GM's console
shows it, masked once saved, and no export, display or player's page reads it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from django.db import transaction
from django.utils.translation import gettext as _

from rolls.systems import RulesError
from tabletop.models import Campaign, DiscordFeed, DiscordWebhook

# Discord's webhook URLs: https only, on discord.com or discordapp.com (or their ptb. and
# canary. hosts), an optional API version, the webhook's id (a snowflake) and its token.
WEBHOOK_URL = re.compile(
    r"https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api(?:/v\d{1,2})?/webhooks/"
    r"(?P<id>\d{5,25})/(?P<token>[A-Za-z0-9_-]{20,120})/?"
)
Audience = DiscordWebhook.Audience


def checked_url(value: str) -> str:
    """The webhook URL as it will be kept, or a ``RulesError`` that says what is wrong."""
    url = value.strip()
    if not url:
        raise RulesError(
            _("Paste the webhook's URL: Discord shows it in the channel's settings, Integrations.")
        )
    if len(url) > 300:
        raise RulesError(_("That is too long for a Discord webhook URL."))
    if not url.lower().startswith("https://"):
        raise RulesError(_("A Discord webhook URL starts with https://."))
    if not WEBHOOK_URL.fullmatch(url):
        raise RulesError(
            _(
                "That is not a Discord webhook URL. It looks like "
                "https://discord.com/api/webhooks/<number>/<token>."
            )
        )
    return url.rstrip("/")


def masked(url: str) -> str:
    """What the console shows of a saved URL: where it posts, never its token."""
    found = WEBHOOK_URL.fullmatch(url)
    if found is None:
        return "…"
    return url[: found.start("token")] + "••••••••"


@dataclass(frozen=True)
class Shown:
    """A webhook as the GM's console shows it."""

    audience: str
    label: str
    masked: str = ""
    note: str = ""  # why it is off
    saved: bool = False


def shown(campaign: Campaign) -> list[Shown]:
    """The table's webhook and the GM's, as the console's panel lists them (unsaved ones too)."""
    saved = {hook.audience: hook for hook in DiscordWebhook.objects.filter(campaign_id=campaign.pk)}
    rows = []
    for audience, label in Audience.choices:
        hook = saved.get(audience)
        if hook is None:
            rows.append(Shown(audience, str(label)))
        else:
            rows.append(Shown(audience, str(label), masked(hook.url), hook.note, saved=True))
    return rows


def audience_of(value: str) -> str:
    if value not in Audience.values:
        raise RulesError(_("Choose the table's channel or the GM's."))
    return value


def save(*, campaign: Campaign, audience: str, url: str, origin: str) -> DiscordWebhook:
    """Save (or replace) the campaign's webhook for ``audience``. It posts the entries written
    from now on, not the log before it. ``origin``: the address the GM saved it from, for the
    posts' links when PUBLIC_URL is not set."""
    url = checked_url(url)
    audience = audience_of(audience)
    with transaction.atomic():
        # Locked: the entries numbered before this point are not posted, those after are.
        last_seq = Campaign.objects.select_for_update().values_list("last_seq", flat=True).get(pk=campaign.pk)
        hook, _created = DiscordWebhook.objects.update_or_create(
            campaign_id=campaign.pk,
            audience=audience,
            defaults={"url": url, "origin": origin[:200], "cursor": last_seq, "failures": 0, "note": ""},
        )
        DiscordFeed.objects.get_or_create(campaign_id=campaign.pk)
        _set_flag(campaign)
    return hook


def remove(*, campaign: Campaign, audience: str) -> bool:
    """Forget the campaign's webhook for ``audience``; whether there was one."""
    audience = audience_of(audience)
    with transaction.atomic():
        deleted, _rows = DiscordWebhook.objects.filter(campaign_id=campaign.pk, audience=audience).delete()
        _set_flag(campaign)
    return bool(deleted)


def turn_off(hook: DiscordWebhook, note: str) -> None:
    """The webhook posts no more (Discord answered that it is gone); the GM reads why."""
    with transaction.atomic():
        DiscordWebhook.objects.filter(pk=hook.pk, url=hook.url).update(note=note[:300])
        hook.note = note[:300]
        _set_flag(Campaign(pk=hook.campaign_id))


def _set_flag(campaign: Campaign) -> None:
    """``Campaign.discord``: whether any of its webhooks is on, read by each entry's number."""
    on = DiscordWebhook.objects.filter(campaign_id=campaign.pk, note="").exists()
    Campaign.objects.filter(pk=campaign.pk).update(discord=on)
    campaign.discord = on
