"""Campaigns, who belongs to them, their characters and their play sessions."""

from __future__ import annotations

import secrets
from typing import Any

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext, gettext_lazy

from tabletop import language as languages
from tabletop.serving.compiled_query import CompiledQuery


def new_join_token() -> str:
    # 24 bytes = 192 random bits: a join link cannot be guessed.
    return secrets.token_urlsafe(24)


class DiceMode(models.TextChoices):
    """Who rolls the dice at this table (issue 17). The app's odds, rules and follow-ups are
    the same either way; only where the faces come from changes."""

    DIGITAL = "digital", gettext_lazy("Digital: the app rolls")
    PHYSICAL = "physical", gettext_lazy("Real dice: everyone rolls and enters the faces")
    EITHER = "either", gettext_lazy("Either: each player chooses for each roll")


class Campaign(models.Model):
    name = models.CharField(max_length=80)
    # A dice system's slug, checked against ``rolls.registry`` where a campaign is made (a
    # new system needs no migration).
    system = models.CharField(max_length=16)
    gm = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="campaigns_run")
    join_token = models.CharField(max_length=64, unique=True, default=new_join_token)
    # The table display's link (the TV or projector): shows what the whole table may see,
    # to whoever holds it, without a login. Its own token, so it is replaced on its own.
    display_token = models.CharField(max_length=64, unique=True, default=new_join_token)
    # The stream overlay's link (a browser source in OBS): the latest rolls alone, as the
    # display shows them. Its own token, because a streamer shows it on screen: handing it
    # over must not hand over the display, whose QR code lets anyone join the table.
    overlay_token = models.CharField(max_length=64, unique=True, default=new_join_token)
    # Counts Mysteries (sixes) / Adventures: Pride is spent "in Mystery N".
    mystery = models.PositiveIntegerField(default=1)
    dice = models.CharField(max_length=8, choices=DiceMode.choices, default=DiceMode.DIGITAL)
    # The language the table plays in: every page, card, TV and log text drawn for it
    # (tabletop/language.py; docs/translations.md). Chosen at creation, changed by the GM.
    language = models.CharField(max_length=8, choices=settings.LANGUAGES, default="en")
    # The last sequence number handed to a log entry; bumped under a row lock.
    last_seq = models.PositiveBigIntegerField(default=0)
    # The hash of that entry (rolls/log/chain.py): the next entry chains to it.
    last_hash = models.CharField(max_length=64, default="0" * 64)
    # Whether a Discord webhook of the campaign is on (``DiscordWebhook``): read with
    # ``last_seq`` by the statement that numbers each entry (rolls/log/append.py), so a roll
    # learns for free whether to wake the poster, and a table without one pays nothing.
    discord = models.BooleanField(default=False)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created"]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("rolls:campaign", args=[self.pk])

    @classmethod
    def from_db(cls, db: str | None, field_names: Any, values: Any, **kwargs: Any) -> Campaign:
        campaign = super().from_db(db, field_names, values, **kwargs)
        # The request under this campaign is drawn in its language from the moment the view
        # has read it, with no read of its own (tabletop/language.py).
        languages.loaded(campaign)
        return campaign

    # Not a column: the open session, on an instance whose reader has it already (the GM's
    # panel reads it with its rolls); read from the database otherwise.
    known_open_session: PlaySession | None = None

    def open_session(self) -> PlaySession | None:
        if self.known_open_session is not None:
            return self.known_open_session
        # At most one is open (the "one_open_session" constraint). Read on every roll.
        session = _OPEN_SESSION.get_or_none(campaign_id=self.pk)
        if session is not None:
            session.campaign = self
        return session


class Membership(models.Model):
    """A user at a campaign's table. The GM has one too, with ``is_gm``."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships")
    display_name = models.CharField(max_length=40)
    is_gm = models.BooleanField(default=False)
    joined = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-is_gm", "display_name"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "user"], name="one_membership_per_user"),
            models.UniqueConstraint(fields=["campaign"], condition=Q(is_gm=True), name="one_gm_per_campaign"),
        ]

    def __str__(self) -> str:
        return f"{self.display_name} in {self.campaign}"


class Ban(models.Model):
    """An account the GM removed from a campaign: its join link refuses them until the GM lets
    them back in. Apart from ``Membership``, so a removal still takes the membership and its
    characters away, and the rest of the table keeps its link."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="bans")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    display_name = models.CharField(max_length=40)  # their name at the table when removed
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["display_name"]
        constraints = [models.UniqueConstraint(fields=["campaign", "user"], name="one_ban_per_user")]

    def __str__(self) -> str:
        return f"{self.display_name} removed from {self.campaign}"


class Character(models.Model):
    """A character sheet. ``sheet`` holds the system's traits (each table package's forms); the
    resources that rules spend are columns, so the database guards their bounds."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="characters")
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="characters")
    name = models.CharField(max_length=60)
    sheet = models.JSONField(default=dict)
    luck = models.PositiveSmallIntegerField(default=0)
    # doubles: current Endurance, and the part spent on drama dice, which only
    # comes back with a new Adventure.
    endurance = models.PositiveSmallIntegerField(default=0)
    drama_spent = models.PositiveSmallIntegerField(default=0)
    # The Mystery in which Pride was last used; Pride is available in any other.
    pride_used_in = models.PositiveIntegerField(null=True, blank=True)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]
        constraints = [models.CheckConstraint(condition=Q(luck__lte=15), name="luck_at_most_15")]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("rolls:character", args=[self.campaign_id, self.pk])

    @property
    def pride_available(self) -> bool:
        return self.pride_used_in != self.campaign.mystery


class PlaySession(models.Model):
    """One evening at the table. At most one is open per campaign."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="sessions")
    number = models.PositiveIntegerField()
    started = models.DateTimeField(auto_now_add=True)
    ended = models.DateTimeField(null=True, blank=True)
    # The secret the session's dice are drawn from (rolls/log/fairdice.py), as hex: its hash is
    # shown from the start, the seed itself only once the session has ended. Empty for a
    # session started before the dice had seeds.
    seed = models.CharField(max_length=64, blank=True, default="")
    # SHA-256 of the seed (hex), the commitment every screen shows. A column of its own: an
    # imported session keeps it even when the seed, not revealed yet, stayed behind.
    seed_hash = models.CharField(max_length=64, blank=True, default="")
    # The seed the session's next secret or blind roll will take as its own (hex): drawn, and
    # its hash logged, before that roll's random value arrives (rolls/play/services.py).
    hidden_seed = models.CharField(max_length=64, blank=True, default="")

    class Meta:
        ordering = ["-number"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "number"], name="session_numbers_unique"),
            models.UniqueConstraint(
                fields=["campaign"], condition=Q(ended__isnull=True), name="one_open_session"
            ),
        ]

    def __str__(self) -> str:
        return gettext("Session %(number)s") % {"number": self.number}

    @property
    def revealed_seed(self) -> str:
        """The seed, once the session is over (before that, nobody but the server has it)."""
        return self.seed if self.ended is not None else ""


_OPEN_SESSION = CompiledQuery(
    lambda campaign_id: PlaySession.objects.filter(campaign_id=campaign_id, ended__isnull=True), "campaign_id"
)


class Presence(models.Model):
    """A socket open on a campaign page right now: who is at the table."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="presences")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE)
    channel_name = models.CharField(max_length=200, unique=True)
    connected = models.DateTimeField(auto_now_add=True)
    # The serving process that holds the socket, and its last heartbeat (tabletop/presence.py).
    server = models.CharField(max_length=100, default="", db_index=True)
    seen = models.DateTimeField(default=timezone.now, db_index=True)

    def __str__(self) -> str:
        return f"{self.user} at {self.campaign}"


class DiscordWebhook(models.Model):
    """A Discord channel the table's entries are posted to (rolls/discord/, docs/discord.md):
    the public channel's (what everyone at the table may see) or the GM's own (the secret and
    blind rolls). Its URL holds the webhook's token: shown to nobody but the GM, masked, and
    in no export. ``cursor``: the sequence number of the last entry posted or passed over, so
    each entry goes out once and in order."""

    class Audience(models.TextChoices):
        TABLE = "table", gettext_lazy("The table's channel")
        GM = "gm", gettext_lazy("The GM's channel")

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="discord_webhooks")
    audience = models.CharField(max_length=8, choices=Audience.choices)
    url = models.CharField(max_length=300)
    # Where the GM saved it from (scheme and host): the posts' links to a roll's page when
    # PUBLIC_URL is not set.
    origin = models.CharField(max_length=200, blank=True)
    cursor = models.PositiveBigIntegerField(default=0)
    # Posts that failed in a row (a 5xx, a timeout, no answer): the next try waits longer.
    failures = models.PositiveIntegerField(default=0)
    # Not before then: the next try after a failure (its backoff).
    retry_at = models.DateTimeField(null=True, blank=True)
    # Why it was turned off (Discord answered 404: the webhook was deleted), for the GM; empty
    # while it posts.
    note = models.CharField(max_length=300, blank=True)
    changed = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["audience"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "audience"], name="one_discord_webhook_per_audience")
        ]

    def __str__(self) -> str:
        return f"{self.audience} webhook of campaign {self.campaign_id}"

    @property
    def on(self) -> bool:
        return not self.note


class DiscordFeed(models.Model):
    """The small row a flush of a campaign's posts claims (rolls/discord/flush.py): one flush
    at a time per campaign, across worker processes. ``pending``: a flush is queued, so a roll
    queues no other. ``holder`` and ``held_until``: the worker posting now, until when (a
    lease it renews after each post; a worker that died leaves it to lapse)."""

    campaign = models.OneToOneField(Campaign, on_delete=models.CASCADE, primary_key=True, related_name="+")
    pending = models.BooleanField(default=False)
    holder = models.CharField(max_length=40, blank=True)
    held_until = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"discord feed of campaign {self.campaign_id}"
