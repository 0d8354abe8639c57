"""What the statistics need of a roll, kept when the roll and its follow-ups are written.

The statistics pages (``rolls.stats.summary``) add up columns with the database; nothing there reads
a state. So the services write, with each roll, the figures of its first throw (``roll_figures``:
the pool, the exact chance, first-throw success, its percentile and variance, its faces), and
with each follow-up a ``FollowUpUse`` row and the faces it rolled (``follow_up_figures``). The
odds come from the engine's caches and ``rolls.stats.fairness`` keeps each request's placements, so
this costs a roll a few dictionary look-ups.

``refill`` computes the same from the log for rolls written without them (the migration that
added the columns, an imported campaign): one pass over their entries, a roll at a time.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from rolls import registry
from rolls.stats import fairness
from rolls.systems.base import DiceSystem, Outcome, State, first_throw

FACE_FIELDS = ("face1", "face2", "face3", "face4", "face5", "face6")
# The resources a follow-up's costs name, kept as columns of ``FollowUpUse``. ``drama`` (the
# share of doubles' Endurance that waits for the next Adventure) is part of ``endurance``.
SPENT_AMOUNTS = ("luck", "pride", "endurance")


def face_counts(faces: Iterable[int]) -> dict[str, int]:
    counts = dict.fromkeys(FACE_FIELDS, 0)
    for face in faces:
        counts[FACE_FIELDS[face - 1]] += 1
    return counts


def roll_figures(system: DiceSystem, request: Any, state: State, first: Outcome) -> dict[str, Any]:
    """The ``Roll`` columns of a new roll: ``state`` as rolled, ``first`` its outcome."""
    place = fairness.placement(system, request, first.key)
    return {
        "pool": system.pool_size(request),
        "chance": fairness.chance(system, request),
        "first_success": system.first_success(state, first),
        "percentile": None if place is None else place[0],
        "percentile_var": None if place is None else place[1],
        **face_counts(system.drawn(state["steps"][0])),
    }


def follow_up_figures(
    system: DiceSystem, before: Outcome, after: State, after_outcome: Outcome, costs: Mapping[str, Any]
) -> tuple[dict[str, Any], dict[str, int]]:
    """A follow-up's ``FollowUpUse`` fields (but the roll, its entry and the payer) and the
    faces its step rolled."""
    use = {
        "action": after["steps"][-1]["action"],
        "converted": before.success is False and after_outcome.success is True,
        "condition": str(costs.get("condition", ""))[:40],
        **{name: int(costs.get(name, 0)) for name in SPENT_AMOUNTS},
    }
    return use, face_counts(system.drawn(after["steps"][-1]))


def add_faces(roll: Any, faces: Mapping[str, int]) -> list[str]:
    """Add a follow-up's faces to its roll's counts, on the row read under the roll's lock
    (so its counts are the database's); the names of the columns changed, to save."""
    changed = [name for name, count in faces.items() if count]
    for name in changed:
        setattr(roll, name, getattr(roll, name) + faces[name])
    return changed


def refill(roll_model: Any, entry_model: Any, use_model: Any, roll_ids: Iterable[int] | None = None) -> None:
    """Compute the statistics columns and follow-up rows of rolls from their log entries.
    Takes the models as arguments so a migration passes its historical ones."""
    # The roll's entry and its follow-ups' (a void or a reveal is an event that names the roll).
    entries = entry_model.objects.filter(
        roll__isnull=False, state__isnull=False, kind__in=("roll", "follow-up")
    ).order_by("roll_id", "seq")
    if roll_ids is not None:
        entries = entries.filter(roll_id__in=list(roll_ids))
    rows = entries.values_list(
        "roll_id",
        "seq",
        "roll__system",
        "roll__character_id",
        "roll__character_name",
        "roll__target_id",
        "roll__target_name",
        "state",
    )
    current: list[Any] = []
    for row in rows.iterator(chunk_size=2000):
        if current and current[0][0] != row[0]:
            _refill_one(roll_model, use_model, current)
            current = []
        current.append(row)
    if current:
        _refill_one(roll_model, use_model, current)


def _refill_one(roll_model: Any, use_model: Any, rows: list[Any]) -> None:
    roll_id, _, slug, character_id, character_name, target_id, target_name, _ = rows[0]
    try:
        system = registry.engine(slug)
        newest = rows[-1][-1]
        request = system.parse_request(newest["request"])
        first = first_throw(newest)
        figures = roll_figures(system, request, first, system.evaluate(first))
        uses = []
        state = first
        for _, seq, *_, after in rows[1:]:
            step = after["steps"][-1]
            # A void or reveal entry carries the state unchanged: no follow-up in it.
            if len(after["steps"]) == len(state["steps"]):
                continue
            use, faces = follow_up_figures(
                system, system.evaluate(state), after, system.evaluate(after), system.step_costs(step)
            )
            for name, count in faces.items():
                figures[name] += count
            paid_by_target = use["action"] in system.target_actions
            uses.append(
                use_model(
                    roll_id=roll_id,
                    seq=seq,
                    payer_id=target_id if paid_by_target else character_id,
                    payer_name=(target_name if paid_by_target else character_name)[:60],
                    **use,
                )
            )
            state = after
    except (KeyError, ValueError, TypeError, LookupError, IndexError):
        return  # a system gone from this install, or a state it no longer reads
    roll_model.objects.filter(pk=roll_id).update(**figures)
    use_model.objects.filter(roll_id=roll_id).delete()
    use_model.objects.bulk_create(uses)
