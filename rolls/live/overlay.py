"""The stream overlay: the latest rolls alone, laid over a stream's video by a browser source,
opened by a secret link of its own.

It is the table display's view of the dice and nothing else: each roll as ``audience.TABLE``
sees it (the markup the table's sockets share), so a secret or blind roll is "rolled in secret"
/ "rolled blind" without its dice, as on the TV. No join code, no session hash, no calls, no
contests panel, no list of who is here: a streamer shows this link on screen, and whoever reads
it must learn no way into the table. Its token is its own (``Campaign.overlay_token``): the
display's opens no overlay and the overlay's no display, and the GM replaces it on its own.
"""

from __future__ import annotations

from django.template.loader import render_to_string

from rolls.live.display import SHOWN_AGAIN, entries_after, on_top
from rolls.live.feed import MAX_CATCH_UP, shared_markup, stored_since, verdict_cards
from rolls.log.events import VERDICTS
from tabletop.joinlink import looks_like_token
from tabletop.models import Campaign

# The rolls the page shows, newest on top: what a corner of a stream has room for.
SHOWN = 3


def campaign_for(token: str) -> Campaign | None:
    """The campaign whose overlay link holds ``token``, or None (a replaced link, the display's
    link, garbage)."""
    if not looks_like_token(token):
        return None
    return Campaign.objects.filter(overlay_token=token).first()


def overlay_stored(campaign_id: int, since: int, until: int) -> tuple[str, int] | None:
    """What ``overlay_since`` sends for the rolls after ``since`` up to ``until``, from the markup
    the table's sockets share, without the database. The overlay draws no panel, so every stored
    roll and follow-up goes as it is, but a secret roll revealed (its card goes on top:
    ``overlay_since``); an event takes the long way (None), token and all, so the entry that
    replaces the link closes the socket."""
    return stored_since(
        campaign_id,
        since,
        until,
        lambda seq, shared: None if shared.facts.action in SHOWN_AGAIN else shared.html,
    )


def overlay_since(campaign: Campaign, since: int) -> tuple[str, int]:
    """What the overlay's socket sends for the entries after ``since``: each roll's markup as the
    table shares it (a revealed one on top, as new), a contest's cards again when its verdict
    lands, and the last sequence number. No event's line: the overlay shows the dice alone."""
    entries = entries_after(campaign, since)
    if not entries:
        return "", since
    if len(entries) > MAX_CATCH_UP:
        return render_to_string("rolls/_reload.html"), since
    parts = []
    for entry in entries:
        if entry.roll is not None:
            parts.append(on_top(entry) if entry.action in SHOWN_AGAIN else shared_markup(entry).html)
        elif entry.action in VERDICTS:
            # The contest's cards drawn again with the verdict (their update is dropped by the
            # page for a card it no longer holds: static/js/live.js, cards-shown).
            parts.extend(card.markup for card in verdict_cards(entry, place="feed"))
    last = entries[-1].seq
    parts.append(render_to_string("rolls/_last_seq.html", {"last_seq": last}))
    return "".join(parts), last
