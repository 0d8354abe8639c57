"""Checking a campaign's stored log against its hash chain (``rolls/log/chain.py``): what
``manage.py verify_log`` and the history page's button run."""

from __future__ import annotations

from collections.abc import Iterator

from rolls.history.export import CHUNK, entry_content
from rolls.log import chain
from rolls.models import LogEntry
from tabletop.models import Campaign


def verify_log(campaign: Campaign) -> chain.Break | None:
    """The first entry that does not match, or None when the whole log is intact."""
    campaign = Campaign.objects.only("last_seq", "last_hash").get(pk=campaign.pk)
    return chain.check(_links(campaign), head=(campaign.last_seq, campaign.last_hash))


def _links(campaign: Campaign) -> Iterator[chain.Link]:
    entries = LogEntry.objects.filter(campaign=campaign).order_by("seq").iterator(chunk_size=CHUNK)
    for entry in entries:
        yield chain.Link(seq=entry.seq, digest=chain.digest(entry_content(entry)), hash=entry.hash)


def verdict(found: chain.Break | None, campaign: Campaign) -> str:
    """The check's answer in words."""
    if found is None:
        return f"The log of {campaign.name} is intact: its {campaign.last_seq} entries match their hashes."
    return f"The log of {campaign.name} was changed. {found}."
