"""Statistics pages ("are my dice cursed?") for a campaign, a play session and a character,
and a play session's recap. Members only; a player's figures leave out what they may not see
(``rolls.stats.summary``)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _

from rolls import registry
from rolls.models import Roll
from rolls.stats import charts, fairness
from rolls.stats import summary as stats
from rolls.systems.base import dice_count, percent
from tabletop.access import MAX_ID, character_or_404, membership_or_404
from tabletop.models import Membership, PlaySession

FACES = ("1", "2", "3", "4", "5", "6")


def campaign_stats(request: HttpRequest, pk: int) -> HttpResponse:
    membership = membership_or_404(request.user, pk)
    return _render(request, membership, stats.Scope(membership.campaign))


def session_stats(request: HttpRequest, pk: int, session_id: int) -> HttpResponse:
    membership = membership_or_404(request.user, pk)
    session = _session_or_404(membership, session_id)
    return _render(request, membership, stats.Scope(membership.campaign, session=session))


def character_stats(request: HttpRequest, pk: int, character_id: int) -> HttpResponse:
    membership = membership_or_404(request.user, pk)
    character = character_or_404(membership.campaign, character_id)
    return _render(request, membership, stats.Scope(membership.campaign, character=character))


def session_recap(request: HttpRequest, pk: int, session_id: int) -> HttpResponse:
    membership = membership_or_404(request.user, pk)
    session = _session_or_404(membership, session_id)
    scope = stats.Scope(membership.campaign, session=session)
    recap = stats.recap(scope, membership)
    context = {
        **_context(scope, membership, recap.summary),
        "recap": recap,
        "luckiest": _placed(recap.luckiest),
        "unluckiest": _placed(recap.unluckiest),
        "tone_names": registry.engine(scope.campaign.system).tone_names,
    }
    return render(request, "rolls/recap.html", context)


def _placed(rolls: list[Roll]) -> list[dict[str, Any]]:
    """Rolls with their percentile as the recap says it ("97th percentile")."""
    return [
        {
            "roll": roll,
            "place": _("%(ordinal)s percentile")
            % {"ordinal": fairness.ordinal(fairness.percentile_number(roll.percentile or 0))},
        }
        for roll in rolls
    ]


def _session_or_404(membership: Membership, session_id: int) -> PlaySession:
    if not 0 < session_id <= MAX_ID:
        raise Http404("No such play session.")
    session = PlaySession.objects.filter(campaign_id=membership.campaign_id, pk=session_id).first()
    if session is None:
        raise Http404("No such play session.")
    return session


def _render(request: HttpRequest, membership: Membership, scope: stats.Scope) -> HttpResponse:
    summary = stats.summary(scope, membership)
    return render(request, "rolls/stats.html", _context(scope, membership, summary))


def _pct(share: float | None) -> str:
    return "-" if share is None else percent(Fraction(share).limit_denominator(10**6))


def sentence(who: str, verdict: fairness.Verdict) -> str:
    """ "Ana's dice this session: 31st percentile, p = 0.20: nothing unusual." """
    words = {"who": who, "words": verdict.words, "percentile": verdict.percentile_text, "p": verdict.p_text}
    if verdict.mean is None:
        return _("%(who)s: %(words)s.") % words
    if verdict.p_value is None:
        return _("%(who)s: %(percentile)s, %(words)s.") % words
    return _("%(who)s: %(percentile)s, %(p)s: %(words)s.") % words


def _whose(row: stats.CharacterRow, session: bool) -> str:
    """Whose figures a sentence reads: a character's dice, or a name without a sheet."""
    if row.character_id is not None:
        if session:
            return _("%(name)s's dice this session") % {"name": row.name}
        return _("%(name)s's dice") % {"name": row.name}
    if session:
        return _("%(name)s this session") % {"name": row.name}
    return row.name


def _headline_who(scope: stats.Scope) -> str:
    session = scope.session is not None
    if scope.character is not None:
        words = {"name": scope.character.name}
        return (_("%(name)s's dice this session") if session else _("%(name)s's dice")) % words
    return _("The table's dice this session") if session else _("The table's dice")


def pool_label(pool: int) -> str:
    return dice_count(pool) if pool > 0 else _("%(pool)s (negative dice)") % {"pool": pool}


def _context(scope: stats.Scope, membership: Membership, summary: stats.Summary) -> dict[str, Any]:
    measured = [row for row in summary.pools if row.measured]
    pools = [
        {
            "label": pool_label(row.pool),
            "rolls": row.rolls,
            "measured": row.measured,
            "first": row.first,
            "first_rate": _pct(row.first_rate),
            "expected": _pct(row.expected),
            "final_rate": _pct(row.final_rate),
        }
        for row in summary.pools
    ]
    pools_chart = charts.bars(
        _("Success on the first throw by pool, with the exact expected rate as a tick"),
        [
            charts.Bar(pool_label(row.pool), row.first_rate or 0.0, _pct(row.first_rate), row.expected)
            for row in measured
        ],
    )
    luck_rows = [row for row in summary.characters if row.luck.mean is not None]
    session = scope.session is not None
    luck_chart = charts.bars(
        _("Mean percentile of each character's first throws; the dashed line is the 50th"),
        [
            charts.Bar(
                row.name,
                row.luck.mean or 0.0,
                fairness.ordinal(fairness.percentile_number(row.luck.mean or 0)),
            )
            for row in luck_rows
        ],
        centre=0.5,
    )
    total_faces = sum(summary.faces)
    faces = [
        {"face": face, "count": count, "share": _pct(count / total_faces) if total_faces else "-"}
        for face, count in zip(FACES, summary.faces, strict=True)
    ]
    faces_chart = charts.columns(
        _("How often each face came up; the dashed line is what fair dice give on average"),
        FACES,
        summary.faces,
        total_faces / 6,
    )
    return {
        "campaign": scope.campaign,
        "membership": membership,
        "scope": scope,
        "summary": summary,
        "pools": pools,
        "pools_chart": pools_chart if measured else "",
        "luck_rows": [
            {"row": row, "sentence": sentence(_whose(row, session), row.luck)} for row in luck_rows
        ],
        "headline": sentence(_headline_who(scope), summary.luck),
        "luck_chart": luck_chart if luck_rows else "",
        "faces": faces,
        "faces_chart": faces_chart if total_faces else "",
        "expected_face": f"{total_faces / 6:.1f}",
        "follow_ups": [
            {"row": row, "rate": _pct(row.converted / row.uses) if row.uses else "-"}
            for row in summary.follow_ups
        ],
        "threshold": fairness.P_UNUSUAL,
        "min_rolls": fairness.MIN_ROLLS,
        "min_dice": fairness.MIN_DICE,
        "sessions": PlaySession.objects.filter(campaign=scope.campaign).order_by("-number")[:30],
    }
