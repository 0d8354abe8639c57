"""The campaign's history (filters, keyset pages, rolls and events) and each roll's own page,
with the GM's marks on a roll: void, reveal, and the GM's note."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from rolls import registry
from rolls.contests.history import ContestEntry, contest_entries, contest_parts, contest_status, standing_line
from rolls.history import browse, marks
from rolls.history.odds import step_odds
from rolls.log import randomness
from rolls.log.reads import newest_states
from rolls.models import Contest, LogEntry, Roll, RollNote
from rolls.play.bound_helper import check_for_both, may_strike, shared_choices, strike_help
from rolls.sight.audience import Facts, Viewer, sight
from rolls.sight.cards import Card, build_card
from rolls.systems import RulesError
from tabletop.access import MAX_ID, gm_or_403, membership_or_404
from tabletop.models import Membership, PlaySession
from tabletop.text import names_and


def history_page(request: HttpRequest, pk: int) -> HttpResponse:
    """Every roll and table event of the campaign, newest first, filtered, a page at a time."""
    membership = membership_or_404(request.user, pk)
    filters = browse.HistoryFilters(request.GET, membership=membership)
    context: dict[str, Any] = {"campaign": membership.campaign, "membership": membership, "filters": filters}
    if not filters.is_valid():
        # A clear message beside the form, and no list: what was asked for cannot be read.
        context["export_options"] = browse.export_options(filters.session_numbers)
        return render(request, "rolls/history.html", context, status=400)
    found = browse.page(filters)
    roll_ids = [entry.roll_id for entry in found.entries if entry.kind == LogEntry.Kind.ROLL]
    states = newest_states([i for i in roll_ids if i is not None])
    opened = contest_entries(found.entries, membership)
    items: list[Card | LogEntry | ContestEntry] = []
    sessions: list[PlaySession | None] = []
    for entry in found.entries:
        roll = entry.roll
        if entry.seq in opened:
            # A contest: one entry, its rolls inside it (``rolls.contests.history``).
            items.append(opened[entry.seq])
            sessions.append(opened[entry.seq].contest.session)
            continue
        if entry.kind == LogEntry.Kind.ROLL and roll is not None:
            state, seq = states.get(roll.pk, (entry.state or {}, entry.seq))
            items.append(
                build_card(roll, state, seq, place="history", membership=membership, roll_seq=entry.seq)
            )
        else:
            items.append(entry)
        # A roll goes under its session; an event (a void or a reveal too) under the session
        # it happened in (``browse._relate``).
        if entry.kind == LogEntry.Kind.EVENT:
            sessions.append(found.happened.get(entry.seq))
        elif roll is not None:
            sessions.append(roll.session)
        else:
            sessions.append(None)
    return render(
        request,
        "rolls/history.html",
        {
            **context,
            "page": found,
            "groups": _grouped(items, sessions),
            "export_options": browse.export_options(filters.session_numbers),
        },
    )


def _grouped(
    items: list[Card | LogEntry | ContestEntry], sessions: list[PlaySession | None]
) -> list[dict[str, Any]]:
    """The page's items under their play session's heading. An item without one (an event of
    a campaign with no session yet) takes the session of the item below it, or, at the bottom
    of the page, of the one above."""
    resolved: list[PlaySession | None] = []
    current = next((s for s in reversed(sessions) if s is not None), None)
    for session in reversed(sessions):
        current = session or current
        resolved.append(current)
    resolved.reverse()
    groups: list[dict[str, Any]] = []
    for item, session in zip(items, resolved, strict=True):
        if not groups or groups[-1]["session"] != session:
            groups.append({"session": session, "items": []})
        groups[-1]["items"].append(item)
    return groups


@dataclass
class Step:
    """One link of a roll's chain on its page: who did what, when, and the odds around it."""

    entry: LogEntry
    who: str
    title: str
    headline: str
    odds: str  # "42% -> 67%", "42%", or ""


def _who(entry: LogEntry, names: dict[int, str]) -> str:
    if entry.actor_id is None:
        return _("someone who has left")
    name = names.get(entry.actor_id)
    return name if name is not None else _("someone who has left")


def _steps(roll: Roll, chain: list[LogEntry], membership: Membership) -> list[Step]:
    """The chain step by step, with the engine's exact odds: the chance of a fresh roll of the
    request for the roll itself; for a follow-up, the chances the engine gives it from the
    state before it (``FollowUp.chance_before``/``chance_after``), as it would offer it now
    with what the paying character has now; none when it would not offer it now."""
    system = registry.engine(roll.system)
    names = dict(
        Membership.objects.filter(campaign_id=roll.campaign_id).values_list("user_id", "display_name")
    )
    steps: list[Step] = []
    previous: dict[str, Any] | None = None
    for entry in chain:
        state = entry.state or previous or {}
        odds = step_odds(roll, entry, previous)
        views = system.view(state) if state else ()
        title = entry.text or (views[-1].title if views else entry.action)
        headline = system.evaluate(state).headline if entry.kind != LogEntry.Kind.EVENT and state else ""
        steps.append(Step(entry, _who(entry, names), title, headline, odds))
        if entry.state:
            previous = entry.state
    return steps


def _roll_or_404(membership: Membership, roll_id: int) -> Roll:
    if not 0 < roll_id <= MAX_ID:
        raise Http404("No such roll.")
    return get_object_or_404(
        Roll.objects.select_related("session", "character", "target"),
        campaign=membership.campaign,
        pk=roll_id,
    )


def roll_page(request: HttpRequest, pk: int, roll_id: int) -> HttpResponse:
    """A roll's permalink: its card, the whole chain with the odds at each step, and, for the
    GM, the note and the marks. A hidden roll shows anyone else only its "rolled in secret"
    card: nothing of its chain, its times or its actors."""
    membership = membership_or_404(request.user, pk)
    return _render_roll(request, membership, _roll_or_404(membership, roll_id))


def _render_roll(
    request: HttpRequest, membership: Membership, roll: Roll, *, error: str = "", status: int = 200
) -> HttpResponse:
    seen = sight(Facts.of_roll(roll), Viewer.of(membership))
    chain = list(roll.entries.order_by("seq"))
    newest = chain[-1] if chain else None
    state = (newest.state or {}) if newest else {}
    card = build_card(roll, state, newest.seq if newest else 0, place="history", membership=membership)
    context: dict[str, Any] = {
        "campaign": membership.campaign,
        "membership": membership,
        "roll": roll,
        "card": card,
        # The roll's own number, its first entry's: the card's is its newest entry's.
        "number": chain[0].seq if chain else card.seq,
        "error": error,
    }
    if seen.dice:
        context["steps"] = _steps(roll, chain, membership)
    if membership.is_gm:
        context["note"] = RollNote.objects.filter(roll=roll).values_list("text", flat=True).first() or ""
        # SIX-16: a failed roll's helper shares it; the Conditions the GM may check for both.
        context["shared"] = shared_choices(roll, state)
        # SIX-15: help is the GM's call; a helped roll of the running session may lose it.
        context["strike"] = may_strike(roll, state)
    return render(request, "rolls/roll.html", context, status=status)


def _mark(request: HttpRequest, pk: int, roll_id: int, mark: str, note: str = "") -> HttpResponse:
    """The GM's marks on a roll; a refusal is the page again with the reason (422)."""
    membership = gm_or_403(request.user, pk)
    roll = _roll_or_404(membership, roll_id)
    try:
        if mark == "void":
            marks.roll_void(roll=roll, gm=membership.user)
            messages.success(request, _("The roll is voided: struck through everywhere."))
        elif mark == "helper":
            both = check_for_both(roll=roll, gm=membership.user, condition=note)
            messages.success(
                request,
                _("%(condition)s checked for %(names)s.")
                % {"condition": note, "names": names_and([c.name for c in both])},
            )
        elif mark == "strike":
            strike_help(roll=roll, gm=membership.user, rng=randomness.RNG)
            messages.success(
                request,
                _("%(name)s's help is struck: the roll stands without it.") % {"name": roll.helper_name},
            )
        elif mark == "reveal":
            marks.roll_reveal(roll=roll, gm=membership.user)
            messages.success(request, _("The roll is revealed: the table sees its dice from now on."))
        else:
            marks.note_save(roll=roll, text=note)
            messages.success(request, _("Note kept."))
    except RulesError as error:
        return _render_roll(request, membership, roll, error=str(error), status=422)
    return redirect("rolls:roll", pk, roll.pk)


@require_POST
def roll_void(request: HttpRequest, pk: int, roll_id: int) -> HttpResponse:
    return _mark(request, pk, roll_id, "void")


@require_POST
def roll_reveal(request: HttpRequest, pk: int, roll_id: int) -> HttpResponse:
    return _mark(request, pk, roll_id, "reveal")


@require_POST
def roll_helper_condition(request: HttpRequest, pk: int, roll_id: int) -> HttpResponse:
    """SIX-16: the GM checks one Condition for a failed roll's roller and helper at once."""
    return _mark(request, pk, roll_id, "helper", note=request.POST.get("condition", "")[:40])


@require_POST
def roll_helper_strike(request: HttpRequest, pk: int, roll_id: int) -> HttpResponse:
    """SIX-15: the GM strikes a friend's help from a roll; it stands without the helper's die."""
    return _mark(request, pk, roll_id, "strike")


@require_POST
def roll_note(request: HttpRequest, pk: int, roll_id: int) -> HttpResponse:
    return _mark(request, pk, roll_id, "note", note=request.POST.get("note", ""))


def contest_page(request: HttpRequest, pk: int, contest_id: int) -> HttpResponse:
    """A contest's own page: its sides, how it ended (or stands), and every part in order."""
    membership = membership_or_404(request.user, pk)
    if not 0 < contest_id <= MAX_ID:
        raise Http404("No such contest.")
    contest = get_object_or_404(
        Contest.objects.select_related("campaign", "session"), campaign=membership.campaign, pk=contest_id
    )
    context = {
        "campaign": membership.campaign,
        "membership": membership,
        "contest": contest,
        "sides": list(contest.sides.all()),
        "parts": contest_parts(contest, membership),
        "standing": standing_line(contest),
        "status": contest_status(contest),
    }
    return render(request, "rolls/contest.html", context)
