"""The roll log: append-only.

A ``Roll`` names who rolled what; its dice live in ``LogEntry`` rows, one for the roll and one
for each follow-up, each holding the whole state after it. Entries are never edited, so the
chain of a roll is its history, and every entry carries a per-campaign sequence number that a
reconnecting page uses to ask for what it missed.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from tabletop.models import Campaign, Character, PlaySession
from tabletop.serving.compiled_query import CompiledList, CompiledQuery


class Visibility(models.TextChoices):
    PUBLIC = "public", gettext_lazy("Everyone sees it")
    SECRET = "secret", gettext_lazy("GM only (secret)")
    BLIND = "blind", gettext_lazy("Blind: only the GM sees the result")
    # A side of a contest (``Contest``): its roller and the GM see its dice at once, everyone
    # else when every side has rolled (the contest reveals them all at the same moment).
    SEALED = "sealed", gettext_lazy("Sealed until every side of the contest has rolled")


class RollCall(models.Model):
    """The GM asks one or several characters for a roll; each phone shows it with the pool
    filled in, and the session page shows who has answered.

    ``data`` holds the roll form's values for everyone asked; ``per_character``, when the GM
    picked a trait for each character from their own sheet, holds each one's values and label
    by character id (``{"12": {"data": {...}, "label": "Body + Sneak"}}``) and wins over it."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="calls")
    session = models.ForeignKey(PlaySession, on_delete=models.CASCADE, related_name="calls")
    characters = models.ManyToManyField(Character, related_name="calls")
    trait = models.CharField(max_length=80)  # the roll form's trait value, as the GM chose it
    label = models.CharField(max_length=120)  # "Body + Sneak, 2 successes"
    data = models.JSONField(default=dict)  # the roll form's values (difficulty...)
    per_character = models.JSONField(default=dict, blank=True)
    intent = models.CharField(max_length=200, blank=True)  # what the GM asks them to try
    created = models.DateTimeField(auto_now_add=True)
    closed = models.BooleanField(default=False)

    class Meta:
        ordering = ["-id"]

    def __str__(self) -> str:
        return self.label

    def data_for(self, character_id: int) -> dict[str, Any]:
        """The roll form's values for one character asked."""
        own = self.per_character.get(str(character_id))
        return dict(own["data"]) if own else dict(self.data)

    def label_for(self, character_id: int) -> str:
        own = self.per_character.get(str(character_id))
        return str(own["label"]) if own else self.label

    def inputs(self, character_id: int | None = None) -> list[tuple[str, str]]:
        """The roll form's values as (name, value) pairs, a list value giving several."""
        data = self.data if character_id is None else self.data_for(character_id)
        return [
            (key, str(item))
            for key, value in data.items()
            for item in (value if isinstance(value, list) else [value])
        ]


class Roll(models.Model):
    # Indexed alone, unlike the session and the character: its index also walks a campaign's
    # rolls in the order they were made (the exports, the GM's panel).
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="rolls")
    # Not indexed alone: every index of a roll is one more B-tree page written as it is made,
    # and an index below starts with the session (and one with the character) in id order.
    session = models.ForeignKey(PlaySession, on_delete=models.PROTECT, related_name="rolls", db_index=False)
    # The campaign's Mystery (sixes) or Adventure when the roll was made: Pride, Luck and the
    # other follow-ups paid from a sheet go only on a roll of the Mystery in progress.
    mystery = models.PositiveIntegerField(default=1)
    character = models.ForeignKey(
        Character, on_delete=models.SET_NULL, null=True, related_name="rolls", db_index=False
    )
    # Kept as written at the time, so history reads the same after a rename or a deletion.
    character_name = models.CharField(max_length=60)
    roller = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    helper = models.ForeignKey(
        Character, on_delete=models.SET_NULL, null=True, blank=True, related_name="rolls_helped"
    )
    helper_name = models.CharField(max_length=60, blank=True)
    system = models.CharField(max_length=16)
    intent = models.CharField(max_length=200, blank=True)
    trait = models.CharField(max_length=80, blank=True)  # "Mind + Comprehend"
    visibility = models.CharField(max_length=8, choices=Visibility.choices, default=Visibility.PUBLIC)
    # Rolled by the GM for someone without a sheet (a character deleted later is not one).
    npc = models.BooleanField(default=False)
    # Its faces were read off real dice and entered (issue 17), and so are its follow-ups':
    # fairness statistics leave it out and the export marks it.
    by_hand = models.BooleanField(default=False)
    call = models.ForeignKey(RollCall, on_delete=models.SET_NULL, null=True, blank=True, related_name="rolls")
    # A GM roll made against a character (an attack): that character's player may answer it
    # with a follow-up paid from their own resources (Luck against it, in stars).
    target = models.ForeignKey(
        Character, on_delete=models.SET_NULL, null=True, blank=True, related_name="rolls_against"
    )
    # Kept as written at the time, like ``character_name``: the target may leave with its player.
    target_name = models.CharField(max_length=60, blank=True)
    created = models.DateTimeField(auto_now_add=True)
    # What the log says of the roll now, kept on its row so the history can filter on it. The
    # log is the record and is never edited; these columns are derived from it and updated by
    # the service in the transaction that appends the entry they follow from:
    # ``outcome`` is the engine's ``Outcome.tone`` of the newest state ("success", "failure",
    # "catastrophe", "amazing", "neutral"), ``voided`` and ``revealed`` follow the GM's
    # VOID and REVEAL events (``rolls.history.marks``).
    outcome = models.CharField(max_length=12, blank=True, default="")
    voided = models.BooleanField(default=False)
    revealed = models.BooleanField(default=False)
    # Rolled as a side of a contest or a flow (sealed for a contest; in the open for doubles'
    # extended action), set once when the roll is made: the cards and the follow-up service read
    # its contest only for such a roll, so a plain roll costs no read (``rolls.play.final``).
    contested = models.BooleanField(default=False)
    # What the statistics add up (``rolls.stats.summary``), written with the roll and its follow-ups
    # (``rolls.stats.record``) so a page sums columns instead of reading states: the pool the
    # system groups by, the engine's exact chance of success of the request (null: nothing to
    # meet), whether the first throw met it, the first throw's mid-rank percentile in the
    # request's exact distribution and that percentile's variance under fair dice
    # (``rolls.stats.fairness``), and how many of each face every throw of the roll showed.
    pool = models.SmallIntegerField(default=0)
    chance = models.FloatField(null=True, blank=True)
    first_success = models.BooleanField(null=True, blank=True)
    percentile = models.FloatField(null=True, blank=True)
    percentile_var = models.FloatField(null=True, blank=True)
    face1 = models.PositiveIntegerField(default=0)
    face2 = models.PositiveIntegerField(default=0)
    face3 = models.PositiveIntegerField(default=0)
    face4 = models.PositiveIntegerField(default=0)
    face5 = models.PositiveIntegerField(default=0)
    face6 = models.PositiveIntegerField(default=0)
    # A secret or blind roll's own dice seed (hex; rolls/log/fairdice.py): the session's seed is
    # revealed when the session ends, this one only when the GM reveals the roll. Never shown
    # or exported before then, to anyone.
    seed = models.CharField(max_length=64, blank=True, default="")
    seed_hash = models.CharField(max_length=64, blank=True, default="")  # its SHA-256, shown to all

    # Not a column: the entry a service wrote for this roll in this request, so the view that
    # asked for it renders it without reading it back (``rolls.sight.cards.latest_card``).
    last_entry: LogEntry | None = None
    # Not a column: the roll's newest state, where a page that only reads read those of many
    # rolls in one query (``rolls.contests.panels``); ``current_state`` returns it then.
    known_state: dict[str, Any] | None = None
    # Not a column: whether it is its character's newest roll, where a service has read it
    # (``rolls.play.services.follow_up_apply``); ``is_latest`` returns it then.
    known_latest: bool | None = None

    class Meta:
        ordering = ["-id"]
        indexes = [
            models.Index(fields=["character", "-id"]),
            models.Index(fields=["campaign", "outcome"], name="roll_campaign_outcome"),
            models.Index(fields=["session", "-id"], name="roll_session_newest"),
            # Who rolled in a campaign (an export's members): read from the index, not the rolls.
            models.Index(fields=["campaign", "roller"], name="roll_campaign_roller"),
        ]

    def __str__(self) -> str:
        return f"{self.character_name}: {self.trait or 'roll'}"

    @property
    def revealed_seed(self) -> str:
        return self.seed if self.revealed else ""

    @property
    def hidden(self) -> bool:
        """Secret or blind and not revealed yet: only the GM sees its dice."""
        return self.visibility != Visibility.PUBLIC and not self.revealed

    def current_state(self) -> dict[str, Any]:
        """The state after the roll's newest entry."""
        if self.known_state is not None:
            return self.known_state
        entry = next(iter(_NEWEST_ENTRY.all(roll_id=self.pk)), None)
        assert entry is not None and entry.state is not None
        return entry.state

    @staticmethod
    def of_campaign(campaign_id: int, roll_id: int) -> Roll | None:
        """The campaign's roll of that id with its character and target, or None: the read a
        follow-up starts with, compiled once (``CompiledQuery``)."""
        return _ROLL_OF_CAMPAIGN.get_or_none(campaign_id=campaign_id, pk=roll_id)

    def is_latest(self) -> bool:
        """Whether this is its character's most recent roll not voided (a push must follow
        the roll)."""
        if self.known_latest is not None:
            return self.known_latest
        if self.character_id is None:
            return False
        latest = _LATEST_OF_CHARACTER.all(character_id=self.character_id)
        return bool(latest) and latest[0].pk == self.pk

    def stale_for(self, campaign: Campaign, label: str, story_name: str) -> str:
        """Why a follow-up paid from a sheet (``label``: "Use Pride") may not go on this roll
        now, or "" when it may: only a roll of the open play session and of the Mystery (or
        Adventure, ``story_name``) in progress can be followed up at a cost."""
        session = campaign.open_session()
        if session is None:
            return _("%(label)s needs a play session in progress; the GM has not started one.") % {
                "label": label
            }
        if session.pk != self.session_id:
            return _(
                "%(label)s goes only on a roll of the play session in progress; "
                "this roll was made in an earlier session."
            ) % {"label": label}
        if self.mystery != campaign.mystery:
            # Translators: story is the table's word for a story (Mystery, Adventure), translated.
            return _(
                "%(label)s goes only on a roll of this %(story)s; this roll was made in %(story)s %(number)s."
            ) % {"label": label, "story": _(str(story_name)), "number": self.mystery}
        return ""


# Read by every follow-up and by the cards that offer them: compiled once.
_NEWEST_ENTRY = CompiledList(
    lambda roll_id: LogEntry.objects.filter(roll_id=roll_id).order_by("-seq")[:1], "roll_id"
)
# A voided roll is no character's latest: voiding the newest gives the roll before it back the
# follow-ups that go only on the newest (rolls.play.void).
_LATEST_OF_CHARACTER = CompiledList(
    lambda character_id: (
        Roll.objects.filter(character_id=character_id, voided=False).only("id").order_by("-id")[:1]
    ),
    "character_id",
)
_ROLL_OF_CAMPAIGN = CompiledQuery(
    lambda campaign_id, pk: Roll.objects.select_related("character", "target").filter(
        campaign_id=campaign_id, pk=pk
    ),
    "campaign_id",
    "pk",
    related=("character", "target"),
)


class LogEntry(models.Model):
    class Kind(models.TextChoices):
        ROLL = "roll", gettext_lazy("Roll")
        FOLLOW_UP = "follow-up", gettext_lazy("Follow-up")
        EVENT = "event", gettext_lazy("Table event")

    # Not indexed alone: it leads the unique key and every index below (see Roll.session).
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="log", db_index=False)
    seq = models.PositiveBigIntegerField()
    kind = models.CharField(max_length=12, choices=Kind.choices)
    roll = models.ForeignKey(Roll, on_delete=models.CASCADE, null=True, blank=True, related_name="entries")
    action = models.CharField(max_length=32)  # "roll", "push", "luck", "session-start", ...
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    state = models.JSONField(null=True, blank=True)  # the roll's whole state after this entry
    text = models.CharField(max_length=300, blank=True)
    # Where the dice of this entry came from (rolls/log/fairdice.py, docs/verify.md): which seed,
    # the roller's random value and the faces drawn; a session's commitment or a revealed
    # seed on its events. Null for everything else. In the hashed content only when set.
    dice = models.JSONField(null=True, blank=True)
    # 16 random bytes (hex) the log drew for the entry, in its hashed content (rolls/log/chain.py,
    # version 2): a withheld entry's digest cannot be matched by trying every face it might
    # hold. Empty on the entries written before (version 1).
    salt = models.CharField(max_length=32, blank=True, default="")
    # The one-time key of the phone's request that wrote the entry (its ``client_random``, kept
    # by the phone until an answer comes back): the same request sent again, its first answer
    # lost on the way, finds this entry instead of rolling again (``rolls.log.resent``). Null
    # for entries written without one. Not in the hashed content: it says how the request
    # travelled, not what happened at the table.
    key = models.CharField(max_length=32, null=True, blank=True, default=None)  # noqa: DJ001 (NULL: no key, out of the partial index)
    # Set by the log before the entry is written, as its hash covers it (rolls/log/chain.py).
    created = models.DateTimeField(default=timezone.now)
    # Hex SHA-256 over the previous entry's hash and this entry's content (rolls/log/chain.py).
    hash = models.CharField(max_length=64)

    class Meta:
        ordering = ["seq"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "seq"], name="one_seq_per_campaign"),
            # One entry per member's key, and the index the repeat's lookup reads. Partial: the
            # entries without a key (the GM's events, plain POSTs) write no index page.
            models.UniqueConstraint(
                fields=["campaign", "actor", "key"],
                condition=models.Q(key__isnull=False),
                name="log_one_entry_per_key",
            ),
        ]
        # The history pages newest first through one kind (rolls, events) by ``seq``: a
        # keyset page (``seq < before``) is one index range at any depth.
        # The export's session slice and the history's session and date filters find where a
        # time falls in the log (``created``, which follows ``seq``: both are taken under the
        # campaign row's lock): without this, a scan of the whole log.
        indexes = [
            models.Index(fields=["campaign", "kind", "-seq"], name="log_campaign_kind_seq"),
            models.Index(fields=["campaign", "created"], name="log_campaign_created"),
            # Who the log names (an export's members): read from the index, not the entries.
            models.Index(fields=["campaign", "actor"], name="log_campaign_actor"),
        ]

    # Not a column: its campaign posted to Discord when it was written (``rolls.log.append``);
    # the poster is woken once it commits (``rolls.discord.wake``).
    posts: bool = False

    def __str__(self) -> str:
        return f"#{self.seq} {self.action}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        # Append-only: an entry is written once and never changed.
        if self.pk is not None:
            raise ValueError("Log entries are never edited.")
        super().save(*args, **kwargs)


class FollowUpUse(models.Model):
    """One follow-up applied to a roll, as the statistics count it (``rolls.stats.record``):
    written with its log entry, never edited. ``converted``: the roll had failed before it
    and succeeded after it. What it cost is kept by resource, as ``Character`` keeps them
    (a system that spends something new adds a column here too); ``payer`` is whose sheet
    paid (the roll's character, or the character a roll was made against)."""

    roll = models.ForeignKey(Roll, on_delete=models.CASCADE, related_name="follow_up_uses")
    seq = models.PositiveBigIntegerField()  # its log entry's
    action = models.CharField(max_length=32)
    converted = models.BooleanField(default=False)
    payer = models.ForeignKey(Character, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    payer_name = models.CharField(max_length=60, blank=True)
    luck = models.PositiveIntegerField(default=0)
    pride = models.PositiveIntegerField(default=0)
    endurance = models.PositiveIntegerField(default=0)
    condition = models.CharField(max_length=40, blank=True)  # the Condition a push checked

    class Meta:
        ordering = ["seq"]

    def __str__(self) -> str:
        return f"{self.action} on roll {self.roll_id}"


class RollTally(models.Model):
    """Sums of the statistics' ``Roll`` columns, kept by the services as rolls are made,
    followed up, voided and revealed (``rolls.stats.tally``), so a page adds up a few hundred
    of these instead of every roll. One row per group the pages tell apart, at two grains:
    each play session (``session_pk``) and the whole campaign (``session_pk`` 0), so the
    campaign's page reads no row per session. Integers, not foreign keys, for the session and
    the character: 0 stands for "the whole campaign" and "no sheet" in the unique key (a NULL
    would never conflict there on SQLite), and a character deleted later keeps its rows (the
    pages count them with the rolls without a sheet, as the rolls' own SET_NULL does)."""

    # Not indexed alone: it leads the unique key, which every upsert writes (see Roll.session).
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="+", db_index=False)
    session_pk = models.IntegerField()
    character_pk = models.IntegerField()
    name = models.CharField(max_length=60)  # ``Roll.character_name``: the page shows the greatest
    seen = models.BooleanField()  # by the whole table (``rolls.stats.summary.seen_by_table``)
    pool = models.SmallIntegerField()
    outcome = models.CharField(max_length=12)
    n = models.IntegerField(default=0)
    n_by_hand = models.IntegerField(default=0)
    n_fair = models.IntegerField(default=0)
    percentiles = models.FloatField(default=0.0)
    variances = models.FloatField(default=0.0)
    measured = models.IntegerField(default=0)
    first = models.IntegerField(default=0)
    chances = models.FloatField(default=0.0)
    face1 = models.IntegerField(default=0)
    face2 = models.IntegerField(default=0)
    face3 = models.IntegerField(default=0)
    face4 = models.IntegerField(default=0)
    face5 = models.IntegerField(default=0)
    face6 = models.IntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["campaign", "session_pk", "character_pk", "name", "seen", "pool", "outcome"],
                name="one_roll_tally_per_group",
            )
        ]

    def __str__(self) -> str:
        return f"{self.n} rolls of {self.name} in campaign {self.campaign_id}"


class FollowUpTally(models.Model):
    """Sums of ``FollowUpUse`` rows, kept like ``RollTally``: by the roll's session (0: the
    whole campaign), the roll's character and the payer (0: none), whether the table sees the
    roll, and the action. A character's page counts the follow-ups on its rolls and those its
    sheet paid for, so both are in the key."""

    # Not indexed alone: it leads the unique key, which every upsert writes (see Roll.session).
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="+", db_index=False)
    session_pk = models.IntegerField()
    character_pk = models.IntegerField()
    payer_pk = models.IntegerField()
    seen = models.BooleanField()
    action = models.CharField(max_length=32)
    uses = models.IntegerField(default=0)
    converted = models.IntegerField(default=0)
    conditions = models.IntegerField(default=0)
    luck = models.IntegerField(default=0)
    pride = models.IntegerField(default=0)
    endurance = models.IntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["campaign", "session_pk", "character_pk", "payer_pk", "seen", "action"],
                name="one_follow_up_tally_per_group",
            )
        ]

    def __str__(self) -> str:
        return f"{self.uses} {self.action} in campaign {self.campaign_id}"


class RollNote(models.Model):
    """The GM's own note on a roll ("the lock was trapped; she never knew"): the GM's alone,
    shown only to the GM on the roll's page, never to players, the display or an export. Kept
    apart from the log, which it does not change: the GM may rewrite it at will."""

    roll = models.OneToOneField(Roll, on_delete=models.CASCADE, related_name="note")
    text = models.TextField(max_length=2000, blank=True)
    updated = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"note on roll {self.roll_id}"


class Contest(models.Model):
    """Rolls that answer one another: a contested roll (stars STR-9), in which each side rolls
    on its own phone (or the GM for a side without a sheet) and more is better.

    Each side's roll is a ``Roll`` sealed while the contest is open: its roller and the GM
    see its dice, nobody else does, on any page or socket. When the last side has rolled (or
    the GM closes a contest that stalls), every sealed roll is revealed at the same moment,
    and the follow-ups the rules allow in a contest become possible. ``rolls.contests.services``
    holds the services; the engine (``DiceSystem.contest_winner``) says who wins."""

    class State(models.TextChoices):
        ASKED = "asked", gettext_lazy("Waiting for the other side to accept")
        OPEN = "open", gettext_lazy("Rolling")
        REVEALED = "revealed", gettext_lazy("Revealed")
        CLOSED = "closed", gettext_lazy("Decided")
        CANCELLED = "cancelled", gettext_lazy("Cancelled")
        REFUSED = "refused", gettext_lazy("Refused")

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="contests")
    session = models.ForeignKey(PlaySession, on_delete=models.PROTECT, related_name="contests")
    system = models.CharField(max_length=16)

    class Kind(models.TextChoices):
        CONTEST = "contest", gettext_lazy("Contest")  # sides against one another: the engine names a winner
        # doubles DBL-13: the party's rolls against one Difficulty Number, a side per roll
        EXTENDED = "extended", gettext_lazy("Extended action")
        GROUP = "group", gettext_lazy("Group Trouble")  # everyone against the same Trouble (sixes, SIX-17)
        PLAN = "plan", gettext_lazy("Extended Trouble")  # a plan in parts, a kid's roll each (sixes, SIX-20)
        # kinds KIN-6, KIN-8: several Adventurers facing one Danger, each their own Challenge
        DANGER = "danger", gettext_lazy("One Danger")

    kind = models.CharField(max_length=12, choices=Kind.choices, default=Kind.CONTEST)
    intent = models.CharField(max_length=200, blank=True)  # what is at stake
    state = models.CharField(max_length=10, choices=State.choices, default=State.OPEN)
    # What the flow needs beyond its sides (a plan's parts, a Difficulty Number...).
    setup = models.JSONField(default=dict, blank=True)
    opened_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created = models.DateTimeField(auto_now_add=True)
    # Written when it ends: the words the table reads ("Ada wins, 3 Stars to 2").
    verdict = models.CharField(max_length=200, blank=True)

    class Meta:
        ordering = ["-id"]
        indexes = [models.Index(fields=["campaign", "state"], name="contest_campaign_state")]

    def __str__(self) -> str:
        return f"contest {self.pk}: {self.intent or self.system}"

    # Still being played: asked, rolling, or revealed and open to follow-ups.
    LIVE = (State.ASKED, State.OPEN, State.REVEALED)

    @property
    def live(self) -> bool:
        return self.state in self.LIVE


class ContestSide(models.Model):
    """One side of a contest: a character (its player rolls it) or someone without a sheet
    (the GM rolls it). ``data`` is the roll form's values for a character, the engine's
    request for someone without a sheet. ``position`` 0 is the side that acts (the player's,
    or the challenger's): where the rules award a tie, they award it to that side."""

    contest = models.ForeignKey(Contest, on_delete=models.CASCADE, related_name="sides")
    position = models.PositiveSmallIntegerField()
    character = models.ForeignKey(
        Character, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    name = models.CharField(max_length=60)  # kept as written, like ``Roll.character_name``
    data = models.JSONField(default=dict)
    roll = models.OneToOneField(
        Roll, on_delete=models.SET_NULL, null=True, blank=True, related_name="contest_side"
    )
    npc = models.BooleanField(default=False)  # someone without a sheet: the GM rolls it
    accepted = models.BooleanField(default=True)  # a challenged side accepts first
    # What the side did besides rolling (``TableAdapter.contest_step``): successes bought, a bid.
    extra = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["position"]
        constraints = [models.UniqueConstraint(fields=["contest", "position"], name="one_side_per_position")]

    def __str__(self) -> str:
        return f"{self.name} in contest {self.contest_id}"


class LogCheck(models.Model):
    """How far a campaign's log was last found intact by the history page's button: the next
    press checks only the entries after ``seq`` (``rolls.history.verify.check_since``), from
    ``hash``, which the entry ``seq`` must still carry. ``manage.py verify_log`` checks all."""

    campaign = models.OneToOneField(Campaign, on_delete=models.CASCADE, primary_key=True, related_name="+")
    seq = models.PositiveBigIntegerField(default=0)
    hash = models.CharField(max_length=64)
    checked = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"{self.campaign_id} checked up to #{self.seq}"


class FeedToken(models.Model):
    """A key the GM gives another tool (a Foundry or Owlbear Rodeo bridge) to read the table's
    feed of public entries (``rolls.bridges``, docs/feed.md). The secret is shown once, when
    it is made; only its SHA-256 is kept, so a copy of the database lets nobody read the feed.
    A revoked key is kept, so the console can say when it stopped, and never works again."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="feed_tokens")
    name = models.CharField(max_length=60)  # what the GM calls it: "Foundry bridge"
    digest = models.CharField(max_length=64, unique=True)  # hex SHA-256 of the secret
    # The secret's first characters, so the GM tells two keys apart; says nothing of the rest.
    hint = models.CharField(max_length=16)
    created = models.DateTimeField(auto_now_add=True)
    last_used = models.DateTimeField(null=True, blank=True)  # a stream last opened with it
    revoked = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-id"]

    def __str__(self) -> str:
        return f"{self.name} ({self.hint}...)"

    @property
    def active(self) -> bool:
        return self.revoked is None
