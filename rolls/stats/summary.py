"""The statistics of a campaign, a play session or a character, and a session's recap.

A statistics page adds up the sums the services keep as they write (``rolls.stats.tally``):
a few hundred tally rows for the whole campaign, fewer for a session or a character, never a
row per roll, so a page costs the same few queries at ten rolls or a hundred thousand. The
recap lists rolls (the luckiest, the notable), from the columns the services keep on each
``Roll`` and ``FollowUpUse`` (``rolls.stats.record``), by index. The arithmetic of luck and
fairness is ``rolls.stats.fairness``.

What counts: a voided roll counts nowhere. A roll entered by hand (``Roll.by_hand``) counts in
the rolls made, the success rates, the follow-ups and what was spent, but not in the fairness
figures (percentiles, face counts), since its dice were not the app's. A player's figures
leave out every roll they may not see (secret and blind rolls before the GM reveals them,
``rolls.sight.audience``), wholly: not its count, its faces, nor what a follow-up on it spent. The
GM's include them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.core.cache import cache
from django.db.models import Max, Min, OuterRef, Q, QuerySet, Subquery, Sum
from django.utils.translation import get_language, gettext_lazy
from django.utils.translation import gettext as _

from rolls import registry
from rolls.log.events import TableEvent
from rolls.log.reads import SessionTimes, session_events
from rolls.models import FollowUpTally, FollowUpUse, LogEntry, Roll, RollTally, Visibility
from rolls.stats import fairness
from rolls.stats.record import FACE_FIELDS
from rolls.stats.tally import NO_SHEET, ROLL_SUMS, WHOLE_CAMPAIGN
from tabletop.models import Campaign, Character, Membership, PlaySession

SUCCESS_TONES = ("success", "amazing")
FAIR = Q(by_hand=False, percentile__isnull=False)
# What each ``FollowUpUse`` amount column is called on the page.
# Translators: the resources a sheet spends (stars' Luck, sixes' Pride, doubles' Endurance):
# the published editions' words (docs/translations.md).
SPENT_NAMES = (
    ("luck", gettext_lazy("Luck")),
    ("pride", gettext_lazy("Pride")),
    ("endurance", gettext_lazy("Endurance")),
)


# Every cached figure's key starts so. Version 2: a verdict keeps its reading as a key and words
# it when read (issue 45); a figure cached before cannot be read back into the new shape. The
# language is in the key too: the figures hold a few words (the GM's row, the resources).
CACHE_PREFIX = "stats2:"


@dataclass(frozen=True)
class Scope:
    """Whose statistics: a campaign's, narrowed to a play session and/or a character."""

    campaign: Campaign
    session: PlaySession | None = None
    character: Character | None = None

    @property
    def title(self) -> str:
        if self.character is not None:
            return _("%(name)s's dice") % {"name": self.character.name}
        if self.session is not None:
            return _("Session %(number)s") % {"number": self.session.number}
        return self.campaign.name


def rolls_in(scope: Scope, membership: Membership) -> QuerySet[Roll]:
    """The rolls the statistics of ``scope`` count for this member."""
    rolls = Roll.objects.filter(campaign=scope.campaign, voided=False)
    if scope.session is not None:
        rolls = rolls.filter(session=scope.session)
    if scope.character is not None:
        rolls = rolls.filter(character=scope.character)
    return rolls if membership.is_gm else rolls.filter(seen_by_table())


def seen_by_table() -> Q:
    """A roll everyone at the table sees: public, or revealed by the GM."""
    return Q(visibility=Visibility.PUBLIC) | Q(revealed=True)


@dataclass(frozen=True)
class PoolRow:
    pool: int
    rolls: int
    measured: int  # rolls with something to meet (an exact chance)
    first: int  # of those, first throws that succeeded
    final: int  # of those, rolls that ended in success (after follow-ups)
    expected: float | None  # the mean exact chance of those rolls

    @property
    def first_rate(self) -> float | None:
        return self.first / self.measured if self.measured else None

    @property
    def final_rate(self) -> float | None:
        return self.final / self.measured if self.measured else None


@dataclass(frozen=True)
class FollowUpRow:
    action: str
    label: str
    uses: int
    converted: int


@dataclass(frozen=True)
class CharacterRow:
    character_id: int | None
    name: str
    rolls: int
    successes: int
    luck: fairness.Verdict


@dataclass
class Summary:
    rolls: int
    pools: list[PoolRow]
    follow_ups: list[FollowUpRow]
    spent: list[tuple[str, int]]  # (resource, amount), only what was spent
    conditions: int
    luck: fairness.Verdict
    characters: list[CharacterRow]
    faces: list[int]
    chi_square: float
    fairness: fairness.Verdict
    by_hand: int = 0  # rolls left out of the fairness figures
    tones: list[tuple[str, int]] = field(default_factory=list)


CACHE_SECONDS = 24 * 3600


def summary(scope: Scope, membership: Membership) -> Summary:
    """The figures of a statistics page, kept in the cache until the campaign's log moves on.

    Everything they count changes only with a log entry, written in the same transaction
    (a roll, a follow-up, a void or a reveal, a contest's reveal, a member leaving with their
    characters), so the campaign's newest entry names one state of them: a key with its
    sequence number and hash (which covers the time it was written: a test database's
    reused ids do not meet an older campaign's figures) never answers figures older than the
    log the page was asked with. A player's figures are the same for every player
    (``seen_by_table``). Why keep it now that the figures come from the tallies: the first
    view after a roll (cold) costs some 30 ms at 100,000 rolls on SQLite, where it took 400
    ms from the rows; the cached page still saves about half of that between two rolls, for
    one cache read (``bench/history.py``, its "cold" pages)."""
    session = scope.session.pk if scope.session is not None else 0
    character = scope.character.pk if scope.character is not None else 0
    reader = "gm" if membership.is_gm else "table"
    key = f"{CACHE_PREFIX}{get_language()}:{scope.campaign.pk}:{scope.campaign.last_seq}:{scope.campaign.last_hash}:{session}:{character}:{reader}"
    found = cache.get(key)
    if not isinstance(found, Summary):
        found = _summary(scope, membership)
        cache.set(key, found, CACHE_SECONDS)
    return found


def _summary(scope: Scope, membership: Membership) -> Summary:
    """Every figure of a statistics page, from the scope's tallies (``rolls.stats.tally``): the
    rolls by character, pool and outcome (a few hundred groups at most, added up here), and
    the follow-ups by action."""
    groups = _roll_groups(scope, membership)
    tallies = FollowUpTally.objects.filter(
        campaign=scope.campaign, session_pk=scope.session.pk if scope.session is not None else WHOLE_CAMPAIGN
    )
    if scope.character is not None:
        # Its rolls' follow-ups, and those its sheet paid for on rolls the member sees.
        tallies = tallies.filter(Q(character_pk=scope.character.pk) | Q(payer_pk=scope.character.pk))
    if not membership.is_gm:
        tallies = tallies.filter(seen=True)
    by_action: list[dict[str, Any]] = [
        dict(row)
        for row in tallies.values("action")
        .annotate(
            uses_sum=Sum("uses"),
            converted_sum=Sum("converted"),
            conditions_sum=Sum("conditions"),
            **{f"{name}_spent": Sum(name) for name, _ in SPENT_NAMES},
        )
        .filter(uses_sum__gt=0)
        .order_by("-uses_sum", "action")
    ]
    for row in by_action:
        row["uses"], row["converted"], row["conditions"] = (
            row.pop("uses_sum"),
            row.pop("converted_sum"),
            row.pop("conditions_sum"),
        )
    return assembled(scope, groups, by_action)


def assembled(scope: Scope, groups: list[dict[str, Any]], by_action: list[dict[str, Any]]) -> Summary:
    """A page's figures from its roll groups (``_roll_groups``) and its follow-ups by action
    (``uses``, ``converted``, ``conditions`` and each ``<resource>_spent``, most used first)."""
    system = registry.engine(scope.campaign.system)
    names = system.follow_up_names
    follow_ups = [
        FollowUpRow(row["action"], names.get(row["action"], row["action"]), row["uses"], row["converted"])
        for row in by_action
    ]
    spent_totals = {name: sum(row[f"{name}_spent"] or 0 for row in by_action) for name, _ in SPENT_NAMES}
    spent = [(str(label), spent_totals[name]) for name, label in SPENT_NAMES if spent_totals[name]]
    faces = [sum(row[f"sum_{name}"] or 0 for row in groups) for name in FACE_FIELDS]
    statistic, faces_verdict = fairness.faces_verdict(faces)
    tone_names = system.tone_names
    tones = sorted(
        (
            (tone_names.get(outcome, outcome or "-"), n, outcome)
            for outcome, n in _added(groups, "outcome", ("n",)).items()
        ),
        key=lambda tone: (-tone[1], tone[2]),
    )
    return Summary(
        rolls=sum(row["n"] for row in groups),
        pools=_pools(groups),
        follow_ups=follow_ups,
        spent=spent,
        conditions=sum(row["conditions"] for row in by_action),
        luck=fairness.luck_verdict(
            sum(row["n_fair"] for row in groups),
            sum(row["percentiles"] or 0.0 for row in groups),
            sum(row["variances"] or 0.0 for row in groups),
        ),
        characters=_characters(groups) if scope.character is None else [],
        faces=faces,
        chi_square=statistic,
        fairness=faces_verdict,
        by_hand=sum(row["n_by_hand"] for row in groups),
        tones=[(label, n) for label, n, _ in tones],
    )


def _roll_groups(scope: Scope, membership: Membership) -> list[dict[str, Any]]:
    """The scope's rolls by character, pool and outcome, each group with its sums (as
    ``stats_tally.ROLL_SUMS``, the faces as ``sum_face1``...) and the greatest name its rolls
    were written with. A character id that names no character any more (deleted, its rolls'
    ``character`` now NULL) counts with the rolls without a sheet, as the rows would."""
    tallies = RollTally.objects.filter(
        campaign=scope.campaign, session_pk=scope.session.pk if scope.session is not None else WHOLE_CAMPAIGN
    )
    if scope.character is not None:
        tallies = tallies.filter(character_pk=scope.character.pk)
    if not membership.is_gm:
        tallies = tallies.filter(seen=True)
    rows: list[dict[str, Any]] = [
        dict(row)
        for row in tallies.values("character_pk", "name", "pool", "outcome")
        .annotate(**{f"{name}_sum": Sum(name) for name in ROLL_SUMS})
        .order_by()
    ]
    ids: set[int] = {row["character_pk"] for row in rows} - {NO_SHEET}
    present = set(Character.objects.filter(pk__in=ids).values_list("pk", flat=True)) if ids else set()
    named: dict[tuple[Any, ...], dict[str, Any]] = {}
    for row in rows:
        character = row["character_pk"] if row["character_pk"] in present else None
        key = (character, row["name"], row["pool"], row["outcome"])
        into = named.setdefault(key, dict.fromkeys(ROLL_SUMS, 0))
        for name in ROLL_SUMS:
            into[name] += row[f"{name}_sum"] or 0
    groups: dict[tuple[Any, ...], dict[str, Any]] = {}
    for (character, name, pool, outcome), sums in named.items():
        if sums["n"] <= 0:
            continue  # every roll of the group voided, revealed away or followed on
        group = groups.get((character, pool, outcome))
        if group is None:
            groups[(character, pool, outcome)] = {
                "character_id": character,
                "pool": pool,
                "outcome": outcome,
                "name": name,
                **{f"sum_{each}" if each in FACE_FIELDS else each: sums[each] for each in ROLL_SUMS},
            }
            continue
        group["name"] = max(group["name"], name)
        for each in ROLL_SUMS:
            group[f"sum_{each}" if each in FACE_FIELDS else each] += sums[each]
    return list(groups.values())


def _added(groups: list[dict[str, Any]], key: str, columns: tuple[str, ...]) -> dict[Any, Any]:
    """The groups' ``columns`` added up by ``key``: one number per key for one column, a dict
    of them for several."""
    found: dict[Any, dict[str, Any]] = {}
    for row in groups:
        into = found.setdefault(row[key], dict.fromkeys(columns, 0))
        for column in columns:
            into[column] += row[column] or 0
    if len(columns) == 1:
        return {each: added[columns[0]] for each, added in found.items()}
    return found


def _pools(groups: list[dict[str, Any]]) -> list[PoolRow]:
    by_pool = _added(groups, "pool", ("n", "measured", "first", "chances"))
    final = _added([row for row in groups if row["outcome"] in SUCCESS_TONES], "pool", ("measured",))
    return [
        PoolRow(
            pool,
            added["n"],
            added["measured"],
            added["first"],
            final.get(pool, 0),
            added["chances"] / added["measured"] if added["measured"] else None,
        )
        for pool, added in sorted(by_pool.items())
    ]


def _characters(groups: list[dict[str, Any]]) -> list[CharacterRow]:
    """Each character's rolls and luck; the GM's rolls without a sheet together."""
    added = _added(groups, "character_id", ("n", "n_fair", "percentiles", "variances"))
    successes = _added([row for row in groups if row["outcome"] in SUCCESS_TONES], "character_id", ("n",))
    named: dict[Any, str] = {}
    for row in groups:  # the greatest name a character's rolls were written with, as Max gave
        if row["character_id"] not in named or row["name"] > named[row["character_id"]]:
            named[row["character_id"]] = row["name"]
    found = [
        CharacterRow(
            character_id,
            named[character_id] if character_id is not None else _("The GM's rolls (no sheet)"),
            each["n"],
            successes.get(character_id, 0),
            fairness.luck_verdict(each["n_fair"], each["percentiles"], each["variances"]),
        )
        for character_id, each in added.items()
    ]
    # As the query ordered them: most rolls first, then by the name written on the rolls.
    return sorted(found, key=lambda row: (-row.rolls, named[row.character_id]))


def uses_in(scope: Scope, membership: Membership, rolls: QuerySet[Roll]) -> QuerySet[FollowUpUse]:
    """The follow-ups a page counts: on the scope's rolls; for a character, those its sheet
    paid for (a Luck point against someone else's roll included) on rolls the member sees."""
    if scope.character is None:
        if scope.session is not None:
            # A session's rolls lie in a range of ids: bounded by it, PostgreSQL reads the
            # follow-ups' roll index over that range, where the subquery alone scanned every
            # follow-up of the campaign (8 ms a query at 100,000 rolls) and a list of the
            # session's ids cost more to send and to plan than to run (2-3 ms a query).
            bounds = rolls.aggregate(low=Min("pk"), high=Max("pk"))
            if bounds["low"] is None:
                return FollowUpUse.objects.none()
            return FollowUpUse.objects.filter(
                roll_id__gte=bounds["low"], roll_id__lte=bounds["high"], roll__in=rolls
            )
        return FollowUpUse.objects.filter(roll__in=rolls)
    paid = rolls_in(Scope(scope.campaign, scope.session), membership)
    return FollowUpUse.objects.filter(Q(roll__in=rolls) | Q(payer=scope.character, roll__in=paid))


@dataclass
class Recap:
    summary: Summary
    luckiest: list[Roll]
    unluckiest: list[Roll]
    notable: list[Roll]  # catastrophes and Amazing Successes (botches, Breathtaking...)
    conditions: list[tuple[str, str]]  # (who, what): pushes' Conditions and the GM's checks
    spent_by: list[dict[str, Any]]  # per payer: ``<resource>_spent`` and ``amounts`` in order
    # The system's own (``TableAdapter.spent``, ``takes_conditions``): what the recap names.
    spent_names: tuple[tuple[str, str], ...] = ()
    takes_conditions: bool = False


RECAP_ROLLS = 3
RECAP_FIELDS = ("id", "character_name", "trait", "outcome", "percentile")


def recap(scope: Scope, membership: Membership) -> Recap:
    """A play session told for the table: ``scope`` names the session."""
    assert scope.session is not None
    rolls = rolls_in(scope, membership)
    fair = rolls.filter(FAIR)
    uses = uses_in(scope, membership, rolls)
    # Each system's own resources, or none: Luck, Pride and Conditions are the sixes table's.
    adapter = registry.table(scope.campaign.system)
    conditions: list[tuple[str, str]] = []
    if adapter.takes_conditions:
        conditions = [
            (row["payer_name"], f"{row['condition']} (pushing)")
            for row in uses.exclude(condition="").values("payer_name", "condition").order_by("seq")
        ]
        checked = (
            LogEntry.objects.filter(
                campaign=scope.campaign, kind=LogEntry.Kind.EVENT, action=TableEvent.SHEET_CHANGE
            )
            .filter(session_events(SessionTimes.of(scope.session)), text__contains="checked")
            .order_by("seq")
            .values_list("text", flat=True)[:50]
        )
        conditions += [("", text) for text in checked]
    spent_by: list[dict[str, Any]] = []
    if adapter.spent:
        some = Q()
        for name, _label in adapter.spent:
            some |= Q(**{f"{name}_spent__gt": 0})
        rows: Any = (  # the stubs type these rows by literal keys; the names here are the adapter's
            uses.exclude(payer_name="")
            .values("payer_name")
            .annotate(**{f"{name}_spent": Sum(name) for name, _ in adapter.spent})
            .filter(some)
            .order_by("payer_name")
        )
        spent_by = [{**row, "amounts": [row[f"{name}_spent"] for name, _ in adapter.spent]} for row in rows]
    # What the recap names of a roll: its link, its number, its roller, its trait and where it
    # lies. Its number is the card's: its own entry's place in the campaign's log (``seq``),
    # which the roll's page, the history and the exports give it too; never the row's id, which
    # counts every campaign's rolls.
    number = Subquery(
        LogEntry.objects.filter(roll_id=OuterRef("pk"), kind=LogEntry.Kind.ROLL).values("seq")[:1]
    )
    fair = fair.only(*RECAP_FIELDS)
    luckiest = list(fair.order_by("-percentile", "id")[:RECAP_ROLLS])
    # A short evening has fewer than six rolls: none is both the luckiest and the unluckiest.
    unluckiest = list(
        fair.exclude(pk__in=[roll.pk for roll in luckiest]).order_by("percentile", "id")[:RECAP_ROLLS]
    )
    return Recap(
        summary=summary(scope, membership),
        luckiest=luckiest,
        unluckiest=unluckiest,
        notable=list(
            rolls.filter(outcome__in=("catastrophe", "amazing"))
            .only(*RECAP_FIELDS)
            .annotate(number=number)
            .order_by("id")[:20]
        ),
        conditions=conditions,
        spent_by=spent_by,
        spent_names=adapter.spent,
        takes_conditions=adapter.takes_conditions,
    )
