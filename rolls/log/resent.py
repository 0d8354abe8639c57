"""A request sent twice: the phone keeps a roll's or follow-up's one-time key (its
``client_random``, static/js/table.js) until an answer comes back, so a tap repeated after the
first answer was lost on the way (the network dropped after the POST) carries the same key.
The entry the first request wrote is found by it, and the view answers with that instead of
rolling again.

Keys are per campaign and member: the lookup names the member who sends it, so another
member's key (even the same value) never finds someone else's roll. One indexed lookup
(``log_one_entry_per_key``), and only when a request that carries a key fails: refused by the
rules (the first request closed the call it answered, spent what a push costs), or stopped by
that unique index as it writes its entry (everything it wrote goes with its transaction). A
first request, nearly every one, goes straight to its write: the lookup cost 0.16 ms of every
roll (``bench/roll_cpu.py``'s tables, 2026-12-07).
"""

from __future__ import annotations

from django.utils.translation import gettext_noop

from rolls.models import LogEntry
from tabletop.serving.compiled_query import CompiledQuery

# What a key sent again for something else than the first request was says: the phone makes a
# fresh key for each action, so only a hand-made request gets it.
KEY_REUSED = gettext_noop("This was already sent once for something else. Reload the page and try again.")


# Asked when a roll or follow-up a phone sends fails (each carries its key): compiled once, as
# the roll path's other reads are (``tabletop.serving.compiled_query``). At most one row: the
# key is unique per campaign and member (``log_one_entry_per_key``).
_BY_KEY: CompiledQuery[LogEntry] = CompiledQuery(
    lambda campaign_id, actor_id, key: LogEntry.objects.select_related("roll").filter(
        campaign_id=campaign_id, actor_id=actor_id, key=key
    ),
    "campaign_id",
    "actor_id",
    related=("roll",),
    key=str,
)


def first_answer(campaign_id: int, member_id: int, key: str | None) -> LogEntry | None:
    """The entry this member's request with ``key`` wrote before, or None (a first request)."""
    if key is None:
        return None
    return _BY_KEY.get_or_none(campaign_id=campaign_id, actor_id=member_id, key=key)
