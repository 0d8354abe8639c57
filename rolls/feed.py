"""The feed as the socket sends it: entries after a sequence number, rendered for one user.

Each entry becomes one out-of-band swap: a new roll goes on top of the feed, a follow-up
replaces its roll's card (in the feed, and in the result panel of someone who may act on
it, when the page is that character's roll screen: the socket's ``?character=N``), an event
goes on top of the feed. The last element records the sequence number the page has now,
which it sends back when it reconnects.

Every socket of a table receives exactly the same markup for a plain new roll: the feed card.
The roller's result panel (with its follow-up buttons) comes with the HTTP response to the
roll, and nobody else's page holds that roll's result card yet. That markup is rendered once
per process, by the writer, and kept (entries never change), so a roll costs one render for
the whole table. Only what differs per member is rendered per member: a follow-up on the
roll screen of its character (it replaces the result card there), a secret or blind roll on the GM's
screen (the dice), and the panels a roll touches (the GM's waiting panel and call status, the
panel of rolls against a player's character). ``render_since`` (the database read) uses and
fills the same store; ``shared_since`` answers from it alone when it can.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from django.db.models.signals import post_migrate
from django.template.loader import render_to_string

from rolls import panels
from rolls.cards import build_card
from rolls.kept import Kept
from rolls.models import LogEntry, Visibility
from rolls.tables import adapter_for
from tabletop.access import may_act_for
from tabletop.models import Character, Membership

# A page further behind than this reloads instead of replaying the evening.
MAX_CATCH_UP = 200
# Events that change the "session N is on" line of every page.
STATUS_EVENTS = ("session-start", "session-end", "mystery-start")
# Events that change the calls for a roll waiting on the phones.
CALL_EVENTS = ("call", "call-closed")
# Events that change the GM's list of members.
MEMBER_EVENTS = ("member-joined", "member-removed")
# Rendered entries kept per process: a few minutes of a busy evening on many tables, a few MB.
SHARED_ENTRIES = 4096


def render_since(membership: Membership, since: int, result_for: int | None = None) -> tuple[str, int]:
    """HTML for every entry after ``since`` that this member may see, and the last seq.
    ``result_for``: the character whose result panel the page holds (its roll screen), if any."""
    entries = list(
        LogEntry.objects.filter(campaign_id=membership.campaign_id, seq__gt=since)
        .select_related("roll", "roll__character", "roll__character__campaign", "roll__target")
        .order_by("seq")[: MAX_CATCH_UP + 1]
    )
    if not entries:
        return "", since
    if len(entries) > MAX_CATCH_UP:
        return render_to_string("rolls/_reload.html"), since
    # Follow-up buttons go only on a roll's newest state in this batch: an older state is
    # replaced a moment later in the same message and must never offer a stale button.
    newest = {entry.roll_id: entry.seq for entry in entries if entry.roll_id}
    parts = []
    for entry in entries:
        roll = entry.roll
        if roll is None:
            context = {"entry": entry}
            if entry.action in STATUS_EVENTS:
                campaign = membership.campaign
                context.update(status=True, campaign=campaign, session=campaign.open_session())
                parts.append(render_to_string("rolls/_event_oob.html", context))
            else:
                parts.append(_shared(entry).html)
            continue
        if newest[roll.pk] == entry.seq and Audience.of(entry).own_card(membership, result_for):
            state = entry.state or {}
            new = entry.kind == LogEntry.Kind.ROLL
            context = {
                "card": build_card(roll, state, entry.seq, place="feed", membership=membership),
                "entry": entry,
                "new": new,
            }
            if (
                not new
                and roll.character is not None
                and roll.character_id == result_for
                and may_act_for(membership, roll.character)
            ):
                context["result"] = build_card(roll, state, entry.seq, place="result", membership=membership)
            parts.append(render_to_string("rolls/_card_oob.html", context))
        else:
            parts.append(_shared(entry).html)
    parts.extend(_panels(membership, entries))
    parts.extend(_resources(membership, entries))
    last = entries[-1].seq
    parts.append(render_to_string("rolls/_last_seq.html", {"last_seq": last}))
    return "".join(parts), last


def _resources(membership: Membership, entries: list[LogEntry]) -> list[str]:
    """The resources line of each character the batch spent from, for its player's screen
    (the HTTP response says the same, but the socket may arrive first)."""
    characters = {}
    for entry in entries:
        if entry.kind != LogEntry.Kind.FOLLOW_UP or entry.roll is None:
            continue
        for character in (entry.roll.character, entry.roll.target):
            if character is not None and character.owner_id == membership.user_id:
                characters[character.pk] = character
    if not characters:
        return []
    template = adapter_for(membership.campaign.system).RESOURCES_TEMPLATE
    fresh = Character.objects.select_related("campaign").filter(pk__in=characters)
    return [
        render_to_string("rolls/_resources_oob.html", {"character": c, "resources_template": template})
        for c in fresh
    ]


def _panels(membership: Membership, entries: list[LogEntry]) -> list[str]:
    """The panels of things waiting for this member, again, when the batch touched them."""
    rolls = [entry.roll for entry in entries if entry.roll is not None]
    calls = any(entry.action in CALL_EVENTS for entry in entries)
    campaign_id = membership.campaign_id
    parts = []
    if membership.is_gm:
        # A plain roll never waits on the GM: only the GM's own rolls and follow-ups (a miracle
        # asked, approved or refused) change this panel, so most batches skip it.
        if any(
            entry.roll is not None and (entry.roll.npc or entry.kind == LogEntry.Kind.FOLLOW_UP)
            for entry in entries
        ):
            parts.append(
                render_to_string(
                    "rolls/_gm_panel.html", {"gm_cards": panels.gm_panel(campaign_id, membership)}
                )
            )
        if calls or any(roll.call_id for roll in rolls):
            parts.append(
                render_to_string("rolls/_call_status.html", {"calls": panels.call_status(campaign_id)})
            )
        if any(entry.action in MEMBER_EVENTS for entry in entries):
            members = Membership.objects.filter(campaign_id=campaign_id)
            context = {"members": members, "campaign": membership.campaign}
            parts.append(render_to_string("tabletop/_members.html", context))
        return parts
    if calls:
        parts.append(
            render_to_string(
                "rolls/_calls_panel.html", {"open_calls": panels.open_calls(campaign_id, membership)}
            )
        )
    if any(roll.target is not None and may_act_for(membership, roll.target) for roll in rolls):
        against = panels.against_panel(campaign_id, membership)
        parts.append(render_to_string("rolls/_against_panel.html", {"against_cards": against}))
    return parts


# -- the markup every member who may not act on an entry receives --------------------------------


@dataclass(frozen=True)
class Audience:
    """Who at the table sees an entry otherwise than everyone else: facts of the entry, read
    without rendering it, in one place for the database path (``render_since``) and the
    shared path (``shared_since``)."""

    roll: bool  # a roll or a follow-up (not a table event)
    follow_up: bool = False  # replaces the result card of whoever may act on the roll
    hidden: bool = False  # secret or blind: only the GM sees the dice
    gm_panels: bool = False  # an NPC roll (the GM's waiting panel) or an answer to a call
    owner_id: int | None = None  # the player of the roll's character
    character_id: int | None = None  # the roll's character: its roll screen has a result panel
    target_owner_id: int | None = None  # the player of the character the roll is against

    @classmethod
    def of(cls, entry: LogEntry) -> Audience:
        roll = entry.roll
        if roll is None:
            return cls(roll=False)
        return cls(
            roll=True,
            follow_up=entry.kind == LogEntry.Kind.FOLLOW_UP,
            hidden=roll.visibility != Visibility.PUBLIC,
            gm_panels=roll.npc or roll.call_id is not None,
            owner_id=roll.character.owner_id if roll.character is not None else None,
            character_id=roll.character_id,
            target_owner_id=roll.target.owner_id if roll.target is not None else None,
        )

    def own_card(self, membership: Membership, result_for: int | None = None) -> bool:
        """Whether the entry's card is rendered for this member, on a page that holds the
        result panel of character ``result_for`` (its roll screen) or none. The GM's, when the
        roll's dice are hidden from the others. A follow-up's, for whoever may act on the roll
        on that character's roll screen: their result card, with the buttons still on offer,
        is replaced. The result card of a new roll comes with the HTTP response."""
        if membership.is_gm and self.hidden:
            return True
        return (
            self.follow_up
            and result_for is not None
            and result_for == self.character_id
            and (membership.is_gm or membership.user_id == self.owner_id)
        )

    def personal_for(self, membership: Membership, result_for: int | None = None) -> bool:
        """Whether ``render_since`` sends this member anything but the shared markup: their
        own card, or a panel the entry touches (the GM's waiting panel, which a follow-up may
        change, and call status; the panel of rolls made against a player's character)."""
        if membership.user_id == self.target_owner_id:
            return True
        if membership.is_gm and (self.gm_panels or self.follow_up):
            return True
        return self.own_card(membership, result_for)


@dataclass(frozen=True)
class Shared:
    html: str  # the entry's swap without a result panel
    tail: str  # the "#last-seq" element, for when the entry ends a batch
    audience: Audience

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> Shared:
        """Back from ``asdict`` (a broadcast's plain data)."""
        return cls(data["html"], data["tail"], Audience(**data["audience"]))


_store: Kept[tuple[int, int], Shared] = Kept(SHARED_ENTRIES)


def _shared(entry: LogEntry) -> Shared:
    """The entry's markup for members who may not act on it, rendered once. Not for the
    status events, which show the session as it is at the time of sending."""
    shared = _store.get((entry.campaign_id, entry.seq))
    if shared is not None:
        return shared
    roll = entry.roll
    if roll is None:
        html = render_to_string("rolls/_event_oob.html", {"entry": entry})
    else:
        context = {
            "card": build_card(roll, entry.state or {}, entry.seq, place="feed"),
            "entry": entry,
            "new": entry.kind == LogEntry.Kind.ROLL,
        }
        html = render_to_string("rolls/_card_oob.html", context)
    shared = Shared(
        html=html,
        tail=render_to_string("rolls/_last_seq.html", {"last_seq": entry.seq}),
        audience=Audience.of(entry),
    )
    _store.put((entry.campaign_id, entry.seq), shared)
    return shared


def prepare_entry(entry: LogEntry) -> dict[str, Any] | None:
    """Render (once) the shared markup of an entry just written, from the objects the writer
    holds, without reading it back. Returns it as plain data for the broadcast, so that the
    sockets of other server processes need not read and render it again (``receive_shared``);
    None for the status events, which every socket renders as the session is when it sends."""
    if entry.action in STATUS_EVENTS:
        return None
    return asdict(_shared(entry))


def receive_shared(campaign_id: int, seq: int, data: dict[str, Any]) -> None:
    """Keep the shared markup a broadcast carried (rendered by the writer's process)."""
    if (campaign_id, seq) not in _store:
        _store.put((campaign_id, seq), Shared.from_data(data))


def prepare_shared(campaign_id: int, since: int, until: int) -> None:
    """Render (once) the shared markup of the entries after ``since`` up to ``until``."""
    if until - since > MAX_CATCH_UP:
        return
    missing = [seq for seq in range(since + 1, until + 1) if (campaign_id, seq) not in _store]
    if not missing:
        return
    entries = (
        LogEntry.objects.filter(campaign_id=campaign_id, seq__gte=missing[0], seq__lte=until)
        .exclude(action__in=STATUS_EVENTS)
        .select_related("roll", "roll__character", "roll__character__campaign", "roll__target")
        .order_by("seq")
    )
    for entry in entries:
        _shared(entry)


def is_stored(campaign_id: int, since: int, until: int) -> bool:
    """Whether the shared markup of every entry after ``since`` up to ``until`` is stored."""
    return all((campaign_id, seq) in _store for seq in range(since + 1, until + 1))


def shared_since(
    membership: Membership, since: int, until: int, result_for: int | None = None
) -> tuple[str, int] | None:
    """What ``render_since`` sends this member for the entries after ``since`` up to
    ``until``, from the rendered store alone, without the database: only when each of them is
    a roll or a follow-up that this member gets no personal rendering of (see
    ``Audience.personal_for``) and is stored. None otherwise, and the caller reads the database.

    Events take the long way on purpose: a status event shows the session as it is now, and
    the entry that removes a member is an event, so a removed member's socket reads its
    membership (gone) before anything after it."""
    if not 0 <= since < until or until - since > MAX_CATCH_UP:
        return None
    parts = []
    shared = None
    for seq in range(since + 1, until + 1):
        shared = _store.get((membership.campaign_id, seq))
        if shared is None or not shared.audience.roll or shared.audience.personal_for(membership, result_for):
            return None
        parts.append(shared.html)
    assert shared is not None
    parts.append(shared.tail)
    return "".join(parts), until


def _forget_all(**kwargs: object) -> None:
    """A flushed or migrated database (tests) may reuse campaign ids and sequence numbers."""
    _store.clear()


post_migrate.connect(_forget_all, dispatch_uid="rolls.feed.forget_all")
