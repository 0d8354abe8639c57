"""The newest entries of the log as one viewer sees them: what a page opens with before its
socket takes over (the campaign page, the GM's console, the roll screen, the table display).

One query reads the newest entries; each roll gets one card, drawn as it stands at its newest
entry, and a table event keeps its own line where the page shows events. The page's socket
then asks for what came after the last sequence number returned here."""

from __future__ import annotations

from collections.abc import Collection

from rolls.models import LogEntry
from rolls.sight.cards import Card, build_card
from tabletop.models import Campaign, Membership

# How far back one page's opening read looks: enough entries for its cards, however many
# follow-ups and events stand between them.
LOOK_BACK = 200


def newest_items(
    campaign: Campaign,
    *,
    membership: Membership | None,
    limit: int,
    events: bool | Collection[str],
    count_events: bool = True,
) -> tuple[list[Card | LogEntry], int]:
    """Up to ``limit`` items, newest first: each roll's card (as ``membership`` sees it; None:
    the table, who sees no hidden dice and no button), and with ``events`` each table event's
    entry above the card of the roll it marks (or, given actions, only those events: the
    television's decisions). ``count_events=False``: ``limit`` counts the cards alone (the
    television draws its decisions as lines above its cards, which they never push out). Also
    the last sequence number they include."""
    entries = list(
        LogEntry.objects.filter(campaign=campaign)
        .select_related("roll", "roll__character", "roll__target")
        .order_by("-seq")[:LOOK_BACK]
    )
    last_seq = entries[0].seq if entries else campaign.last_seq
    items: list[Card | LogEntry] = []
    seen: set[int] = set()
    counted = 0
    for entry in entries:
        shown = events is True or (not isinstance(events, bool) and entry.action in events)
        if shown and entry.kind == LogEntry.Kind.EVENT:
            # A table event, or the GM's mark on a roll (voided, revealed): its line, and the
            # roll's card below it as it is now.
            items.append(entry)
            counted += count_events
        roll = entry.roll
        if roll is not None and roll.pk not in seen:
            seen.add(roll.pk)
            items.append(build_card(roll, entry.state or {}, entry.seq, place="feed", membership=membership))
            counted += 1
        if counted >= limit:
            break
    return items, last_seq
