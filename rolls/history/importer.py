"""A GM's JSON export (``rolls.history.export``) loaded as a new campaign: new ids everywhere, the
people it names as new accounts without a password (the GM as an existing account when one is
given), and its log rewritten entry for entry, chained anew since each entry's hash covers the
ids it names. A file whose chain does not verify, or whose shape or values the app's forms would
not take, is refused, and nothing is written (``rolls.history.importcheck``)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from datetime import datetime
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction

from rolls import registry
from rolls.campaigns.services import player_create
from rolls.history.importcheck import ImportRefused as ImportRefused
from rolls.history.importcheck import check_file, revealed_seeds
from rolls.log import chain
from rolls.log.content import covers_roll, roll_about
from rolls.log.events import TableEvent
from rolls.log.reads import newest_states
from rolls.models import FollowUpUse, LogEntry, Roll
from rolls.stats import record, tally
from tabletop.models import Campaign, Character, Membership, PlaySession

BATCH = 1000


_CONTENT_KEYS = ("campaign", "seq", "kind", "action", "roll", "actor", "state", "text", "created")


def import_campaign(*, data: Any, gm: User | None = None) -> Campaign:
    check_file(data)
    session_seeds, roll_seeds = revealed_seeds(data)
    with transaction.atomic():
        users = _people(data["members"], gm)
        gm_id = next(m["id"] for m in data["members"] if m.get("gm"))
        source = data["campaign"]
        campaign = Campaign.objects.create(
            name=source["name"], system=source["system"], gm=users[gm_id], mystery=source["mystery"]
        )
        Membership.objects.bulk_create(
            Membership(campaign=campaign, user=users[m["id"]], display_name=m["name"], is_gm=m["gm"])
            for m in data["members"]
            if not m.get("left")
        )
        sessions = _sessions(campaign, data["sessions"], session_seeds)
        characters = _characters(campaign, data["characters"], users)
        rolls = _rolls(campaign, data["rolls"], users, sessions, characters, roll_seeds)
        previous = chain.GENESIS
        for batch in _batches(data["entries"]):
            made = []
            for entry in batch:
                roll = rolls.get(entry["roll"]) if entry["roll"] is not None else None
                actor = users.get(entry["actor"]) if entry["actor"] is not None else None
                dice = _dice_with_new_ids(entry.get("dice"), rolls)
                salt = entry.get("salt") or ""
                made_entry = LogEntry(kind=entry["kind"], roll=roll, salt=salt)
                content = chain.content(
                    **{
                        **{key: entry[key] for key in _CONTENT_KEYS},
                        "campaign": campaign.pk,
                        "roll": roll.pk if roll is not None else None,
                        "actor": actor.pk if actor is not None else None,
                        "dice": dice,
                        "salt": salt,
                        # The roll's facts as its new row holds them (the check compared the
                        # file's list of rolls with its chained facts).
                        "about": roll_about(roll) if roll is not None and covers_roll(made_entry) else None,
                    }
                )
                previous = chain.link(previous, chain.digest(content))
                made.append(
                    LogEntry(
                        campaign=campaign,
                        seq=entry["seq"],
                        kind=entry["kind"],
                        action=entry["action"],
                        roll=roll,
                        actor=actor,
                        state=entry["state"],
                        text=entry["text"],
                        dice=dice,
                        salt=salt,
                        created=_moment(entry["created"]),
                        hash=previous,
                    )
                )
            LogEntry.objects.bulk_create(made)
        _marks(campaign, list(rolls.values()))
        # The statistics' columns, from the entries just written (rolls.stats.record).
        record.refill(Roll, LogEntry, FollowUpUse, [roll.pk for roll in rolls.values()])
        tally.rebuild(campaign.pk)
        Campaign.objects.filter(pk=campaign.pk).update(last_seq=data["head"]["seq"], last_hash=previous)
        campaign.refresh_from_db()
        return campaign


def _marks(campaign: Campaign, rolls: list[Roll]) -> None:
    """What the ``Roll`` row says of the log, read back from the entries just written: its
    outcome now (the engine's, on its newest state), whether the GM voided it, whether it was
    revealed (by the GM, or by its contest). The export carries the log, not these."""
    marked = LogEntry.objects.filter(campaign=campaign, roll__isnull=False)
    voided = set(marked.filter(action=TableEvent.ROLL_VOID).values_list("roll_id", flat=True))
    revealed = set(
        marked.filter(action__in=(TableEvent.ROLL_REVEAL, TableEvent.CONTEST_REVEAL)).values_list(
            "roll_id", flat=True
        )
    )
    newest = newest_states([roll.pk for roll in rolls])
    for roll in rolls:
        state = newest.get(roll.pk, ({}, 0))[0]
        roll.outcome = registry.engine(roll.system).evaluate(state).tone if state else ""
        roll.voided = roll.pk in voided
        roll.revealed = roll.pk in revealed
    Roll.objects.bulk_update(rolls, ["outcome", "voided", "revealed"], batch_size=500)


def _dice_with_new_ids(dice: Any, rolls: dict[int, Roll]) -> Any:
    """A reveal's dice name the roll whose seed they reveal: by its new id."""
    if isinstance(dice, dict) and isinstance(dice.get("roll"), int) and dice["roll"] in rolls:
        return {**dice, "roll": rolls[dice["roll"]].pk}
    return dice


def _people(members: list[dict[str, Any]], gm: User | None) -> dict[int, User]:
    users: dict[int, User] = {}
    for member in members:
        if member.get("gm") and gm is not None:
            users[member["id"]] = gm
        else:
            users[member["id"]] = player_create(display_name=member["name"])
    return users


def _moment(text: str) -> datetime:
    return datetime.fromisoformat(text)


def _maybe_moment(text: str | None) -> datetime | None:
    return _moment(text) if text is not None else None


def _sessions(
    campaign: Campaign, sessions: list[dict[str, Any]], seeds: dict[int, str]
) -> dict[int, PlaySession]:
    made = {}
    for s in sessions:
        open_ = s["ended"] is None
        session = PlaySession.objects.create(
            campaign=campaign,
            number=s["number"],
            ended=_maybe_moment(s["ended"]),
            # Only a seed the log revealed travels (an ended session's): an open session rolls
            # on without one, or the file would have chosen its next dice.
            seed=seeds.get(s["number"], ""),
            seed_hash="" if open_ else s.get("seed_hash") or "",
        )
        # ``started`` is set on creation: the export's time replaces it.
        PlaySession.objects.filter(pk=session.pk).update(started=_moment(s["started"]))
        made[s["number"]] = session
    return made


def _characters(
    campaign: Campaign, characters: list[dict[str, Any]], users: dict[int, User]
) -> dict[int, Character]:
    made = {}
    for c in characters:
        made[c["id"]] = Character.objects.create(
            campaign=campaign,
            owner=users[c["owner"]],
            name=c["name"],
            sheet=c["sheet"],
            luck=c["luck"],
            endurance=c["endurance"],
            drama_spent=c["drama_spent"],
            pride_used_in=c["pride_used_in"],
        )
        Character.objects.filter(pk=made[c["id"]].pk).update(created=_moment(c["created"]))
    return made


def _rolls(
    campaign: Campaign,
    rolls: list[dict[str, Any]],
    users: dict[int, User],
    sessions: dict[int, PlaySession],
    characters: dict[int, Character],
    seeds: dict[int, str],
) -> dict[int, Roll]:
    made: dict[int, Roll] = {}
    for batch in _batches(rolls):
        new = [
            Roll(
                campaign=campaign,
                session=sessions[r["session"]],
                character=characters.get(r["character"]) if r["character"] is not None else None,
                character_name=r["character_name"],
                roller=users.get(r["roller"]) if r["roller"] is not None else None,
                helper=characters.get(r["helper"]) if r["helper"] is not None else None,
                helper_name=r["helper_name"],
                system=r["system"],
                intent=r["intent"],
                trait=r["trait"],
                visibility=r["visibility"],
                npc=r["npc"],
                # Exports made before these were written hold neither.
                mystery=r.get("mystery", 1),
                by_hand=r.get("by_hand", False),
                # Only a seed the GM's reveal put in the log: a hidden roll not revealed draws
                # its follow-ups from its own seed, which a file must not choose.
                seed=seeds.get(r["id"], ""),
                seed_hash=r.get("seed_hash") or "",
                target=characters.get(r["target"]) if r["target"] is not None else None,
                target_name=r["target_name"],
            )
            for r in batch
        ]
        Roll.objects.bulk_create(new)
        # ``created`` is set on creation: the export's time replaces it.
        for r, roll in zip(batch, new, strict=True):
            roll.created = _moment(r["created"])
            made[r["id"]] = roll
        Roll.objects.bulk_update(new, ["created"])
    return made


def _batches[T](items: Iterable[T]) -> Iterator[list[T]]:
    batch: list[T] = []
    for item in items:
        batch.append(item)
        if len(batch) == BATCH:
            yield batch
            batch = []
    if batch:
        yield batch
