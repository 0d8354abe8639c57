"""The feed as the socket sends it: entries after a sequence number, rendered for one user.

Each entry becomes one out-of-band swap: a new roll goes on top of the feed, a follow-up
replaces its roll's card (in the feed, and in the result panel of someone who may act on
it), an event goes on top of the feed. The last element records the sequence number the
page has now, which it sends back when it reconnects.
"""

from __future__ import annotations

from django.template.loader import render_to_string

from rolls.cards import build_card
from rolls.models import LogEntry
from tabletop.access import may_act_for
from tabletop.models import Membership

# A page further behind than this reloads instead of replaying the evening.
MAX_CATCH_UP = 200
# Events that change the "session N is on" line of every page.
STATUS_EVENTS = ("session-start", "session-end", "mystery-start")


def render_since(membership: Membership, since: int) -> tuple[str, int]:
    """HTML for every entry after ``since`` that this member may see, and the last seq."""
    entries = list(
        LogEntry.objects.filter(campaign_id=membership.campaign_id, seq__gt=since)
        .select_related("roll", "roll__character", "roll__character__campaign")
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
            continue
        state = entry.state or {}
        context = {
            "card": build_card(roll, state, entry.seq, place="feed"),
            "entry": entry,
            "new": entry.kind == LogEntry.Kind.ROLL,
        }
        if (
            newest[roll.pk] == entry.seq
            and roll.character is not None
            and may_act_for(membership, roll.character)
        ):
            context["result"] = build_card(roll, state, entry.seq, place="result", membership=membership)
        parts.append(render_to_string("rolls/_card_oob.html", context))
    last = entries[-1].seq
    parts.append(render_to_string("rolls/_last_seq.html", {"last_seq": last}))
    return "".join(parts), last
