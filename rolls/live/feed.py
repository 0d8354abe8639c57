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
panel of rolls against a player's character; the GM's own new roll goes on top of the GM's
panel as that socket drew it, ``next_viewer``). Which member gets what is decided by
``rolls.sight.audience.delivery``, for both paths: ``render_since`` (the database read) renders
what it names and uses the store for the rest; ``shared_since`` answers from the store alone,
for a member whose delivery is empty, or is the result card and resources line of their own
follow-up, which the writer drew once for their answer and their sockets (``rolls.sight.answers``).
With ``FAST_PATH`` "shared_markup" off, nothing is kept and every socket takes the database
path.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from django.db.models.signals import post_migrate
from django.template.loader import render_to_string

from rolls import registry
from rolls.contests.panels import contest_views
from rolls.live import announce
from rolls.log.events import VERDICTS, Refresh, TableEvent
from rolls.models import LogEntry, Roll, Visibility
from rolls.sight import answers, panels
from rolls.sight.audience import Delivery, Facts, GmPanel, Panel, Viewer, delivery
from rolls.sight.cards import Card, build_card
from rolls.sight.kept import Kept, sharing
from tabletop.access import character_or_none
from tabletop.models import Ban, Character, Membership
from tabletop.serving.compiled_query import CompiledList

# A page further behind than this reloads instead of replaying the evening.
MAX_CATCH_UP = 200
# Events drawn as the session is when they are sent: never kept or shared.
STATUS_EVENTS = tuple(event.value for event in TableEvent if event.refreshes & Refresh.STATUS)
# Rendered entries kept per process: a few minutes of a busy evening on many tables, a few MB.
SHARED_ENTRIES = 4096


# Read by every socket that renders for its member, after each entry: compiled once
# (tabletop/serving/compiled_query.py).
_SINCE = CompiledList(
    lambda campaign_id, since: (
        LogEntry.objects.filter(campaign_id=campaign_id, seq__gt=since)
        .select_related("roll", "roll__character", "roll__character__campaign", "roll__target")
        .order_by("seq")[: MAX_CATCH_UP + 1]
    ),
    "campaign_id",
    "since",
    related=("roll", "roll__character", "roll__character__campaign", "roll__target"),
)


@dataclass
class Drawn:
    """What a socket's page shows, as the batches it sent drew it: what ``delivery`` may
    leave as it is. A new socket knows nothing of the page it serves."""

    gm_panel: GmPanel = field(default_factory=GmPanel)  # the GM's waiting panel


def render_since(
    membership: Membership,
    since: int,
    result_for: int | None = None,
    roster: bool = False,
    drawn: Drawn | None = None,
) -> tuple[str, int]:
    """HTML for every entry after ``since`` that this member may see, and the last seq.
    ``result_for``: the character whose result panel the page holds (its roll screen), if any;
    ``roster``: the page lists their characters' resources (the campaign page); ``drawn``:
    what the socket's page shows, read and updated."""
    entries = _SINCE.all(campaign_id=membership.campaign_id, since=since)
    if not entries:
        return "", since
    if len(entries) > MAX_CATCH_UP:
        if drawn is not None:
            drawn.gm_panel = GmPanel()  # the page reloads, with whatever it then shows
        return render_to_string("rolls/_reload.html"), since
    viewer = _viewer(membership, drawn)
    # Follow-up buttons go only on a roll's newest state in this batch: an older state is
    # replaced a moment later in the same message and must never offer a stale button.
    newest = {entry.roll_id: entry.seq for entry in entries if entry.roll_id}
    # Rolls made in this batch: a result card sent for one replaces the whole result panel,
    # which holds no card of it yet (a contest's side, rolled and revealed at once).
    fresh = {entry.roll_id for entry in entries if entry.kind == LogEntry.Kind.ROLL and entry.roll_id}
    parts = []
    touched = Panel.NONE
    for entry in entries:
        facts = facts_of(entry)
        sent = delivery(facts, viewer, result_for, roster)
        viewer = next_viewer(viewer, membership, entry, facts, sent)
        touched |= sent.panels
        parts.append(_entry_for(membership, entry, sent, newest, result_for, fresh))
    if drawn is not None:
        drawn.gm_panel = viewer.gm_panel  # unless the panel is drawn again now
    parts.extend(_panels(membership, touched, drawn))
    if touched & Panel.RESOURCES:
        parts.append(_resources(membership, result_for))
    if touched & Panel.DICE and result_for is not None:
        parts.append(_roll_dice(membership, result_for))
    last = entries[-1].seq
    parts.append(render_to_string("rolls/_last_seq.html", {"last_seq": last}))
    return "".join(parts), last


def facts_of(entry: LogEntry) -> Facts:
    """What the audience of an entry depends on (``rolls.sight.audience.Facts``), with whether its
    state may wait for the GM's decision, which its dice system tells (a doubles miracle asked)."""
    roll = entry.roll
    # A new roll too: one that names help waits for the GM's call on it (sets SET-11).
    awaits = (
        roll is not None
        and entry.kind in (LogEntry.Kind.FOLLOW_UP, LogEntry.Kind.ROLL)
        and registry.engine(roll.system).may_await_gm(entry.state or {})
    )
    return Facts.of(entry, awaits_gm=awaits)


def next_viewer(
    viewer: Viewer, membership: Membership, entry: LogEntry, facts: Facts, sent: Delivery
) -> Viewer:
    """The viewer of a batch's next entry, after ``entry`` was ``sent``: ``Viewer.after``,
    with the GM's panel as drawn taking the entry's card on top when it may
    (``Panel.GM_NEWEST``; drawn here, from the objects the batch read)."""
    viewer = viewer.after(facts)
    if not sent.panels & Panel.GM_NEWEST:
        return viewer
    assert entry.roll is not None  # a new roll (``rolls.sight.audience``)
    panel = panels.gm_panel_with_newest(viewer.gm_panel, entry.roll, entry.state or {}, entry.seq, membership)
    return replace(viewer, gm_panel=panel)


def _viewer(membership: Membership, drawn: Drawn | None = None) -> Viewer:
    """The member as ``delivery`` needs them: with what can wait on a panel in this campaign's
    system (the GM's, or a player's rolls made against them; the membership comes with its
    campaign), and what their page shows."""
    return Viewer.of(
        membership,
        waits=registry.table(membership.campaign.system).gm_waits,
        gm_panel=drawn.gm_panel if drawn is not None else GmPanel(),
    )


def _entry_for(
    membership: Membership,
    entry: LogEntry,
    sent: Delivery,
    newest: dict[int, int],
    result_for: int | None,
    fresh: set[int],
) -> str:
    """One entry's swap for this member: the shared markup, or what ``delivery`` names."""
    roll = entry.roll
    if roll is None:
        if sent.panels & Panel.STATUS:
            campaign = membership.campaign
            context = {
                "entry": entry,
                "status": True,
                "campaign": campaign,
                "session": campaign.open_session(),
                "announce": announce.markup(announce.for_entry(entry)),
            }
            return render_to_string("rolls/_event_oob.html", context)
        if entry.action in VERDICTS:
            return shared_markup(entry).html + _verdict_cards_for(membership, entry, result_for, newest)
        if entry.action == TableEvent.CONTEST_STEP and result_for is not None:
            # A step may pass the turn (sets SET-10: the winner is done with criticals): the
            # roll screen's result card of a side is drawn again, its buttons as they are now.
            return shared_markup(entry).html + _verdict_cards_for(membership, entry, result_for, newest)
        return shared_markup(entry).html
    if newest[roll.pk] != entry.seq or not (sent.own_card or sent.result_card):
        return shared_markup(entry).html
    state = entry.state or {}
    own = entry.seq if entry.kind == LogEntry.Kind.ROLL else None  # the roll's own number
    card = build_card(roll, state, entry.seq, place="feed", membership=membership, roll_seq=own)
    context = {
        "card": card,
        "entry": entry,
        "new": entry.kind == LogEntry.Kind.ROLL,
        # Said as this member sees it: the GM hears a secret roll's dice, the table does not.
        "announce": announce.markup(announce.for_entry(entry, card)),
    }
    if sent.result_card:
        context["result"] = build_card(
            roll, state, entry.seq, place="result", membership=membership, roll_seq=own
        )
        context["result_new"] = roll.pk in fresh
    return render_to_string("rolls/_card_oob.html", context)


def verdict_cards(entry: LogEntry, *, place: str, membership: Membership | None = None) -> list[Card]:
    """The cards of the rolls of the contest a verdict (``VERDICTS``) names, each at its newest
    state, as ``membership`` sees them at ``place`` (None: the table): drawn again with the
    verdict, and without a button, wherever a page shows one."""
    contest_id = (entry.state or {}).get("contest")
    if not isinstance(contest_id, int):
        return []
    rolls = Roll.objects.filter(contest_side__contest_id=contest_id).select_related(
        "character", "character__campaign", "target", "campaign"
    )
    return [_verdict_card(roll, entry, place, membership) for roll in rolls.order_by("pk")]


def _verdict_card(roll: Roll, verdict: LogEntry, place: str, membership: Membership | None) -> Card:
    """The roll's card at its newest state, numbered with the verdict's entry: the card a page
    holds of that state is not the same card (the phone leaves a copy of the card it shows
    alone, by its number: static/js/table.js)."""
    newest = roll.entries.order_by("-seq").first()
    assert newest is not None
    return build_card(roll, newest.state or {}, verdict.seq, place=place, membership=membership)


def _verdict_cards_for(
    membership: Membership, entry: LogEntry, result_for: int | None, newest: dict[int, int]
) -> str:
    """The result card of a verdict's roll on the roll screen of its character, for its player
    (or the GM): drawn again with the verdict, without a button. The GM's panel and a player's
    panel of rolls against them are drawn again whole (``rolls.sight.audience.delivery``).
    ``newest``: each roll's newest entry in the batch (``render_since``)."""
    parts = []
    for card in verdict_cards(entry, place="result", membership=membership):
        roll = card.roll
        if newest.get(roll.pk, 0) > entry.seq:
            # A later entry of this batch draws this card (its reveal, or the roll itself,
            # which brings it to a page that was behind): a redraw before it may find no card.
            continue
        owner = roll.character.owner_id if roll.character is not None else None
        mine = membership.is_gm or owner == membership.user_id
        # Only a sealed side's card is on its roller's screen: a flow's open roll (doubles'
        # extended action) is rolled from its board, and no result card of it is there to swap.
        sealed = roll.visibility == Visibility.SEALED
        if result_for is not None and result_for == roll.character_id and mine and sealed:
            parts.append(card.markup)
    return "".join(parts)


def _roll_dice(membership: Membership, result_for: int) -> str:
    """The roll form's real dice as the campaign's dice mode is now, on the roll screen of
    ``result_for``: the GM switched real dice on or off while it was open."""
    context = {"campaign": membership.campaign, "character_id": result_for, "oob": True, "sent": {}}
    return render_to_string("rolls/_roll_dice.html", context)


def _resources(membership: Membership, result_for: int | None) -> str:
    """The resources lines the page shows, as they are now: the roll screen's character
    (``result_for``), or every character this member plays (the campaign page's list)."""
    template = registry.table(membership.campaign.system).resources_template
    if result_for is not None:
        # A roll screen's one character, after every follow-up that spends from it: compiled,
        # with the campaign the membership was read with (this batch's).
        character = character_or_none(membership.campaign, result_for)
        characters = [] if character is None else [character]
    else:
        every = Character.objects.select_related("campaign").filter(campaign_id=membership.campaign_id)
        if not membership.is_gm:
            every = every.filter(owner_id=membership.user_id)
        characters = list(every.order_by("pk"))
    # A character gone with its player sends nothing: that page is about to close.
    return "".join(
        render_to_string("rolls/_resources_oob.html", {"character": c, "resources_template": template})
        for c in characters
    )


def _panels(membership: Membership, touched: Panel, drawn: Drawn | None = None) -> list[str]:
    """The panels of things waiting for this member, again, when the batch touched them."""
    campaign_id = membership.campaign_id
    parts: list[str] = []
    if touched & Panel.GM_WAITING:
        gm_panel = panels.gm_panel_and_room(campaign_id, membership)[1]
        parts.append(panels.gm_panel_markup(gm_panel))
        if drawn is not None:
            drawn.gm_panel = gm_panel
    elif touched & Panel.GM_NEWEST and drawn is not None:
        # The panel as this socket drew it, with the new rolls' cards on top (``render_since``).
        parts.append(panels.gm_panel_markup(drawn.gm_panel))
    if touched & Panel.CALL_STATUS:
        parts.append(render_to_string("rolls/_call_status.html", {"calls": panels.call_status(campaign_id)}))
    if touched & Panel.MEMBERS:
        members = Membership.objects.filter(campaign_id=campaign_id)
        removed = Ban.objects.filter(campaign_id=campaign_id)
        context = {"members": members, "removed": removed, "campaign": membership.campaign}
        parts.append(render_to_string("rolls/_members.html", context))
    if touched & Panel.CALLS:
        calls = panels.open_calls(campaign_id, membership)
        parts.append(render_to_string("rolls/_calls_panel.html", {"open_calls": calls}))
    if touched & Panel.CONTESTS:
        parts.append(
            render_to_string(
                "rolls/_contests_panel.html", {"contests": contest_views(campaign_id, membership)}
            )
        )
    if touched & Panel.AGAINST:
        against = panels.against_panel(campaign_id, membership)
        parts.append(render_to_string("rolls/_against_panel.html", {"against_cards": against}))
    return parts


# -- the markup every member who may not act on an entry receives --------------------------------


@dataclass(frozen=True)
class Shared:
    html: str  # the entry's swap as the table sees it (``audience.TABLE``)
    tail: str  # the "#last-seq" element, for when the entry ends a batch
    facts: Facts

    def to_data(self) -> dict[str, Any]:
        """As plain data for a broadcast: what ``asdict`` gives, without its walk through
        every value (the facts are flat: strings, flags and ids)."""
        return {"html": self.html, "tail": self.tail, "facts": dict(vars(self.facts))}

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> Shared:
        """Back from ``to_data`` (a broadcast's plain data)."""
        return cls(data["html"], data["tail"], Facts(**data["facts"]))


_store: Kept[tuple[int, int], Shared] = Kept(SHARED_ENTRIES)


def shared_markup(entry: LogEntry) -> Shared:
    """The entry's markup as the table sees it, rendered once (when sharing). Not for the
    status events, which show the session as it is at the time of sending."""
    key = (entry.campaign_id, entry.seq)
    shared = _store.get(key)
    if shared is not None:
        return shared
    roll = entry.roll
    if roll is None:
        cards = verdict_cards(entry, place="feed") if entry.action in VERDICTS else []
        context = {"entry": entry, "announce": announce.markup(announce.for_entry(entry))}
        html = render_to_string("rolls/_event_oob.html", context) + "".join(c.markup for c in cards)
    else:
        card = build_card(
            roll,
            entry.state or {},
            entry.seq,
            place="feed",
            roll_seq=entry.seq if entry.kind == LogEntry.Kind.ROLL else None,
        )
        context = {
            "card": card,
            "entry": entry,
            "new": entry.kind == LogEntry.Kind.ROLL,
            # The sentence the page's announcer says, as the table sees the entry.
            "announce": announce.markup(announce.for_entry(entry, card)),
        }
        html = render_to_string("rolls/_card_oob.html", context)
    shared = Shared(
        html=html,
        tail=render_to_string("rolls/_last_seq.html", {"last_seq": entry.seq}),
        facts=facts_of(entry),
    )
    if sharing():
        _store.put(key, shared)
    return shared


def prepare_entry(entry: LogEntry) -> dict[str, Any] | None:
    """Render (once) the shared markup of an entry just written, from the objects the writer
    holds, without reading it back. Returns it as plain data for the broadcast, so that the
    sockets of other server processes need not read and render it again (``receive_shared``);
    None for the status events, which every socket renders as the session is when it sends,
    and when nothing is shared."""
    if entry.action in STATUS_EVENTS or not sharing():
        return None
    return shared_markup(entry).to_data()


def receive_shared(campaign_id: int, seq: int, data: dict[str, Any]) -> None:
    """Keep the shared markup a broadcast carried (rendered by the writer's process)."""
    if sharing() and (campaign_id, seq) not in _store:
        _store.put((campaign_id, seq), Shared.from_data(data))


def prepare_shared(campaign_id: int, since: int, until: int) -> None:
    """Render (once) the shared markup of the entries after ``since`` up to ``until``."""
    if until - since > MAX_CATCH_UP or not sharing():
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
        shared_markup(entry)


def is_stored(campaign_id: int, since: int, until: int) -> bool:
    """Whether the shared markup of every entry after ``since`` up to ``until`` is stored."""
    return all((campaign_id, seq) in _store for seq in range(since + 1, until + 1))


def shared_since(
    membership: Membership,
    since: int,
    until: int,
    result_for: int | None = None,
    roster: bool = False,
    drawn: Drawn | None = None,
) -> tuple[str, int] | None:
    """What ``render_since`` sends this member for the entries after ``since`` up to
    ``until``, from the rendered store alone, without the database: only when each of them is
    a roll or a follow-up whose ``delivery`` to this member is the shared markup alone, or that
    and the answer to their own follow-up (``rolls.sight.answers``), and is stored. None otherwise,
    and the caller reads the database.

    Events take the long way on purpose: a status event shows the session as it is now, and
    the entry that removes a member is an event, so a removed member's socket reads its
    membership (gone) before anything after it."""
    viewer = _viewer(membership, drawn)

    def markup(seq: int, shared: Shared) -> str | None:
        nonlocal viewer
        sent = delivery(shared.facts, viewer, result_for, roster)
        viewer = viewer.after(shared.facts)
        if not sent.personal:
            return shared.html
        # The answer is the roll's newest state and its character's one resources line: only
        # for a batch of that entry alone (a socket's usual batch, one entry as it commits).
        if until != since + 1:
            return None
        answer = answers.kept(membership.campaign_id, seq, membership.user_id, result_for)
        return shared.html + answer.html if answer is not None and answer.covers(sent) else None

    batch = stored_since(membership.campaign_id, since, until, markup)
    if batch is not None and drawn is not None:
        drawn.gm_panel = viewer.gm_panel
    return batch


def stored_since(
    campaign_id: int, since: int, until: int, markup: Callable[[int, Shared], str | None]
) -> tuple[str, int] | None:
    """The stored markup of the rolls and follow-ups after ``since`` up to ``until`` and the
    batch's tail, when every one of them is stored and ``markup`` draws what a socket sends for
    it from what is stored (the shared markup, or more that is kept); None otherwise (any event
    among them included)."""
    if not 0 <= since < until or until - since > MAX_CATCH_UP:
        return None
    parts = []
    shared = None
    for seq in range(since + 1, until + 1):
        shared = _store.get((campaign_id, seq))
        if shared is None or not shared.facts.roll:
            return None
        html = markup(seq, shared)
        if html is None:
            return None
        parts.append(html)
    assert shared is not None
    parts.append(shared.tail)
    return "".join(parts), until


def _forget_all(**kwargs: object) -> None:
    """A flushed or migrated database (tests) may reuse campaign ids and sequence numbers."""
    _store.clear()
    answers.forget_all()


post_migrate.connect(_forget_all, dispatch_uid="rolls.live.feed.forget_all")
