"""The table display: the page on the television or projector, opened by its own secret link.

It shows what everyone at the table may see and nothing more: each roll as ``audience.TABLE``
sees it (the markup the table's sockets share, ``rolls.live.feed``), so a secret or blind roll is
"rolled in secret" / "rolled blind" there as on every phone. It may act on nothing, holds no
membership and is nobody at the table. Its link is a token of its own on the campaign; the GM
replaces it, and the old one stops at once: pages, sockets and catch-ups all look it up again.
"""

from __future__ import annotations

import logging

from django.template.loader import render_to_string

from rolls.contests.panels import contest_views
from rolls.live import announce
from rolls.live.feed import MAX_CATCH_UP, facts_of, shared_markup, stored_since
from rolls.log.events import DECISIONS, Refresh, TableEvent, refreshes
from rolls.models import LogEntry
from rolls.sight import panels
from rolls.sight.cards import build_card
from tabletop.joinlink import looks_like_token
from tabletop.models import Campaign

logger = logging.getLogger(__name__)

# The rolls the page opens with: the latest one large, the few before it smaller.
SHOWN = 5
# What the page refreshes its list of open calls on, besides a roll that answers one: a call
# opened or closed, and a session started or ended (calls end with their session).
CALLS_CHANGE = Refresh.CALLS | Refresh.STATUS
# Marks on a roll that show the room what it could not see before: its card goes on top.
SHOWN_AGAIN = frozenset({TableEvent.ROLL_REVEAL})


def campaign_for(token: str) -> Campaign | None:
    """The campaign whose display link holds ``token``, or None (a replaced link, garbage)."""
    if not looks_like_token(token):
        return None
    return Campaign.objects.filter(display_token=token).first()


def panels_context(campaign: Campaign) -> dict[str, object]:
    return {
        "campaign": campaign,
        "session": campaign.open_session(),
        "calls": panels.call_status(campaign.pk),
        # No membership: the contests as the room sees them, with no button.
        "contests": contest_views(campaign.pk, None),
    }


def display_stored(campaign_id: int, since: int, until: int) -> tuple[str, int] | None:
    """What ``display_since`` sends for the entries after ``since`` up to ``until``, from the
    markup the table's sockets share, without the database: only when each is a stored roll
    or follow-up that neither answers a call nor is a side of a contest (those redraw a panel
    from the database), nor is a secret roll revealed (its card goes on top: ``display_since``).
    None otherwise, and the socket reads, token and all. A replaced link is an event, which
    always takes that long way: the display still closes on the very entry that replaced it."""
    return stored_since(
        campaign_id,
        since,
        until,
        lambda seq, shared: (
            None
            if shared.facts.call or shared.facts.contest or shared.facts.action in SHOWN_AGAIN
            else shared.html
        ),
    )


def on_top(entry: LogEntry) -> str:
    """A roll's card taken from where it was and put on top of the feed, as the table sees it."""
    assert entry.roll is not None
    card = build_card(entry.roll, entry.state or {}, entry.seq, place="feed")
    gone = f'<li id="{card.dom_id}" hx-swap-oob="delete"></li>'
    said = announce.markup(announce.for_entry(entry, card))
    return gone + render_to_string(
        "rolls/_card_oob.html", {"card": card, "entry": entry, "new": True, "announce": said}
    )


def entries_after(campaign: Campaign, since: int) -> list[LogEntry]:
    """The log after ``since`` with what a shared card needs, one more than a socket catches
    up on (``MAX_CATCH_UP``: past it the page reloads instead): the display's and the overlay's
    read."""
    return list(
        LogEntry.objects.filter(campaign_id=campaign.pk, seq__gt=since)
        .select_related("roll", "roll__character", "roll__character__campaign", "roll__target")
        .order_by("seq")[: MAX_CATCH_UP + 1]
    )


def display_since(campaign: Campaign, since: int) -> tuple[str, int]:
    """What the display's socket sends for the entries after ``since``: each roll's markup as
    the table shares it, each decision of the table as a line (``DECISIONS``: a verdict drawn
    again on its rolls' cards too), the session line and the open calls when the batch changed
    them, and the last sequence number. Other events are not shown: the display is for the
    dice and what the table decides."""
    entries = entries_after(campaign, since)
    if not entries:
        return "", since
    if len(entries) > MAX_CATCH_UP:
        return render_to_string("rolls/_reload.html"), since
    parts = []
    status = calls = contests = False
    for entry in entries:
        if entry.action == TableEvent.JOIN_LINK:
            # The QR code on the screen names the old link: the page draws itself again.
            return render_to_string("rolls/_reload.html"), since
        if entry.roll is not None:
            facts = facts_of(entry)
            if entry.action in SHOWN_AGAIN:
                # The room sees it now (the GM revealed a secret roll): on top, as a new roll,
                # where an old "rolled in secret" card further down would go unnoticed.
                parts.append(on_top(entry))
            else:
                parts.append(shared_markup(entry).html)
            calls = calls or facts.call
            contests = contests or facts.contest
            continue
        if entry.action in DECISIONS:
            # The room reads it as a line of the feed: who won, a session begins...
            parts.append(shared_markup(entry).html)
        changed = refreshes(entry.action)
        status = status or bool(changed & Refresh.STATUS)
        calls = calls or bool(changed & CALLS_CHANGE)
        contests = contests or bool(changed & Refresh.CONTESTS)
    if status or calls or contests:
        context = panels_context(campaign)
        if status:
            parts.append(render_to_string("rolls/_display_status.html", context))
        if calls:
            parts.append(render_to_string("rolls/_display_calls.html", context))
        if contests:
            parts.append(render_to_string("rolls/_contests_panel.html", context))
    last = entries[-1].seq
    parts.append(render_to_string("rolls/_last_seq.html", {"last_seq": last}))
    return "".join(parts), last
