"""Contests from the pages (``rolls.contests.services`` holds the rules of play): the GM opens one from
the session page, a player challenges from their roll screen, each side rolls from the
contests panel, the GM settles or calls it off.

Every answer to htmx is the contests panel as this member sees it now (their own roll, still
sealed, shows on their own card over the socket); a refusal goes next to the button that was
pressed, status 422, and changes nothing. Without JavaScript each form posts, redirects back
to the page it came from (post, redirect, get) and a message says what happened.
"""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from rolls import registry
from rolls.contests import extended, services
from rolls.contests.forms import ChallengeBuilder, ContestBuilder, intent_of, visible_line
from rolls.contests.panels import contest_views
from rolls.contests.sides import side_data, side_values
from rolls.log import randomness, resent
from rolls.log.events import TableEvent
from rolls.models import Contest, ContestSide, LogEntry
from rolls.systems import RulesError
from rolls.systems.hand import parse_faces
from rolls.views.confirm import ask_first, confirmed
from rolls.views.play import client_value
from rolls.views.refusals import refusal_partial
from tabletop.access import MAX_ID, character_to_act_for, gm_or_403, membership_or_404
from tabletop.http import HtmxRequest
from tabletop.models import Membership

PANEL = "rolls/_contests_panel.html"
# A refusal goes in the pressed form's own place, else the page's notice line.
REFUSAL_TARGET = "find [data-refusal], #notice"


def _back(membership: Membership) -> str:
    """Where a plain POST returns to: the GM's console, or the player's campaign page (both
    draw the contests panel)."""
    return reverse("rolls:session" if membership.is_gm else "rolls:campaign", args=[membership.campaign_id])


def _panel(request: HtmxRequest, membership: Membership, message: str) -> HttpResponse:
    if not request.htmx:
        messages.success(request, message)
        return redirect(_back(membership))
    context = {"contests": contest_views(membership.campaign_id, membership)}
    return render(request, PANEL, context)


def _refused(request: HtmxRequest, membership: Membership, error: RulesError) -> HttpResponse:
    if not request.htmx:
        messages.error(request, str(error))
        return redirect(_back(membership))
    return refusal_partial(request, str(error), REFUSAL_TARGET)


def _sent_before(membership: Membership, key: str | None, contest: Contest, *, roll: bool) -> bool:
    """Whether this tap was answered before (``rolls.log.resent``): the phone sends a step's
    one-time key again when the first answer was lost on the way, and gets the panel as it now
    stands instead of a second roll or step. RulesError when the key was spent on something
    else."""
    first = resent.first_answer(membership.campaign_id, membership.user_id, key)
    if first is None:
        return False
    if roll:
        same = first.kind == LogEntry.Kind.ROLL
    else:
        same = first.action == TableEvent.CONTEST_STEP and (first.state or {}).get("contest") == contest.pk
    if not same:
        raise RulesError(_(resent.KEY_REUSED))
    return True


def _contest(membership: Membership, contest_id: int) -> Contest:
    if not 0 < contest_id <= MAX_ID:
        raise Http404("No such contest.")
    return get_object_or_404(
        Contest.objects.select_related("campaign"), campaign=membership.campaign, pk=contest_id
    )


@require_POST
def contest_create(request: HtmxRequest, pk: int) -> HttpResponse:
    """The GM opens a contest between two sides, from the session page."""
    membership = gm_or_403(request.user, pk)
    try:
        builder = ContestBuilder(membership.campaign)
        kind, setup = builder.flow(request.POST)
        sides, intent = builder.parse(request.POST, kind)
        services.contest_open(
            campaign=membership.campaign,
            opener=membership.user,
            sides=sides,
            intent=intent,
            kind=kind,
            setup=setup,
            attacker=builder.attacker(request.POST) if kind == "contest" else None,
        )
    except RulesError as error:
        return _refused(request, membership, error)
    names = _(", ").join(side.character.name if side.character else side.name for side in sides)
    return _panel(request, membership, _("Open: %(names)s.") % {"names": names})


@require_POST
def challenge_create(request: HtmxRequest, pk: int, character_id: int) -> HttpResponse:
    """A player challenges another player's character with their own."""
    membership = membership_or_404(request.user, pk)
    character = character_to_act_for(membership, character_id)
    try:
        if character.owner_id != membership.user_id:
            raise RulesError(_("Challenge with a character of your own."))
        sides, intent = ChallengeBuilder(membership.campaign, character).parse(request.POST)
        services.contest_open(
            campaign=membership.campaign, opener=membership.user, sides=sides, intent=intent
        )
    except RulesError as error:
        return _refused(request, membership, error)
    other = sides[1].character
    if other is None:
        said = _("You challenged them; they choose to accept.")
    else:
        said = _("You challenged %(name)s; they choose to accept.") % {"name": other.name}
    return _panel(request, membership, said)


@require_POST
def contest_answer(request: HtmxRequest, pk: int, contest_id: int) -> HttpResponse:
    """The challenged player accepts, with the roll they choose, or refuses."""
    membership = membership_or_404(request.user, pk)
    contest = _contest(membership, contest_id)
    accept = request.POST.get("accept") == "yes"
    try:
        side = contest.sides.select_related("character__campaign").filter(accepted=False).first()
        if side is None or side.character is None or side.character.owner_id != membership.user_id:
            raise RulesError(_("Only the challenged character's player answers a challenge."))
        data = side_data(side.character, request.POST) if accept else None
        services.contest_answer(contest=contest, user=membership.user, accept=accept, data=data)
    except RulesError as error:
        return _refused(request, membership, error)
    return _panel(request, membership, _("Challenge accepted: roll!") if accept else _("Challenge refused."))


@require_POST
def contest_roll(request: HtmxRequest, pk: int, contest_id: int, side_id: int) -> HttpResponse:
    """Roll one side: a player their character's, the GM a side without a sheet."""
    membership = membership_or_404(request.user, pk)
    contest = _contest(membership, contest_id)
    if not 0 < side_id <= MAX_ID:
        raise Http404("No such side.")
    side = get_object_or_404(ContestSide, contest=contest, pk=side_id)
    try:
        key = client_value(request)
        if _sent_before(membership, key, contest, roll=True):
            return _panel(request, membership, _("%(name)s has rolled.") % {"name": side.name})
        raw = request.POST.get("faces", "").strip()
        faces = parse_faces(raw) if raw else None
        services.contest_roll(
            side=side,
            user=membership.user,
            rng=randomness.RNG,
            is_gm=membership.is_gm,
            faces=faces,
            client=key,
            key=key,
        )
    except RulesError as error:
        return _refused(request, membership, error)
    # Its card reaches its roller's roll screen over the socket (``audience.delivery``): this
    # panel may be redrawn by the socket while the request is on its way.
    return _panel(request, membership, _("%(name)s has rolled.") % {"name": side.name})


# What a step's form sends besides its choices.
STEP_FIELDS = ("csrfmiddlewaretoken", "action", "client_random")


@require_POST
def contest_attacker(request: HtmxRequest, pk: int, contest_id: int) -> HttpResponse:
    """The GM names the side that attacks (sets SET-4: ties and critical hits go to it)."""
    membership = gm_or_403(request.user, pk)
    contest = _contest(membership, contest_id)
    raw = request.POST.get("position", "")
    try:
        if raw not in ("0", "1"):
            raise RulesError(_("Choose which side attacks."))
        services.contest_attacker(contest=contest, gm=membership.user, position=int(raw))
    except RulesError as error:
        return _refused(request, membership, error)
    return _panel(request, membership, _("The attacker is named."))


@require_POST
def contest_close(request: HtmxRequest, pk: int, contest_id: int) -> HttpResponse:
    """The GM settles a contest (one that stalled: after asking once)."""
    membership = gm_or_403(request.user, pk)
    contest = _contest(membership, contest_id)
    if contest.state == Contest.State.OPEN and not confirmed(request):
        return ask_first(
            request, contest.campaign, registry.table(contest.system).contest_closing(contest.kind)
        )
    try:
        closed = services.contest_close(contest=contest, gm=membership.user)
    except RulesError as error:
        return _refused(request, membership, error)
    return _panel(request, membership, closed.verdict)


@require_POST
def contest_cancel(request: HtmxRequest, pk: int, contest_id: int) -> HttpResponse:
    membership = gm_or_403(request.user, pk)
    contest = _contest(membership, contest_id)
    if not confirmed(request):
        return ask_first(request, contest.campaign, _("Call this contest off?"))
    try:
        services.contest_cancel(contest=contest, gm=membership.user)
    except RulesError as error:
        return _refused(request, membership, error)
    return _panel(request, membership, _("The contest is called off."))


@require_POST
def contest_act(request: HtmxRequest, pk: int, contest_id: int, side_id: int) -> HttpResponse:
    """A side's step besides rolling (``TableAdapter.contest_steps``: a Complication, a success
    bought with a Condition, a sealed bid...), from its own player's phone (the GM's, for a side
    without a sheet), with the step's choices as posted."""
    membership = membership_or_404(request.user, pk)
    contest = _contest(membership, contest_id)
    if not 0 < side_id <= MAX_ID:
        raise Http404("No such side.")
    side = get_object_or_404(ContestSide, contest=contest, pk=side_id)
    # Only the step's own choices reach the table (``ContestStep.params``), which checks each.
    params = {
        key: [value[:200] for value in values] if len(values) > 1 else values[0][:200]
        for key, values in request.POST.lists()
        if key not in STEP_FIELDS
    }
    try:
        once = client_value(request)
        if _sent_before(membership, once, contest, roll=False):
            return _panel(request, membership, _("Done."))
        for key, value in params.items():
            for each in value if isinstance(value, list) else [value]:
                visible_line(each, key.replace("_", " ").capitalize())
        services.contest_act(
            side=side,
            user=membership.user,
            action=request.POST.get("action", "")[:40],
            params=params,
            is_gm=membership.is_gm,
            key=once,
        )
    except RulesError as error:
        return _refused(request, membership, error)
    return _panel(request, membership, _("Done."))


@require_POST
def extended_create(request: HtmxRequest, pk: int) -> HttpResponse:
    """The GM opens an extended action (doubles DBL-13) from the session page."""
    membership = gm_or_403(request.user, pk)
    try:
        dn, successes, failures = (
            _whole(request.POST.get(name, ""), label)
            for name, label in (
                ("dn", _("The Difficulty Number must be a whole number.")),
                ("successes", _("The successes needed must be a whole number.")),
                ("failures", _("The failures allowed must be a whole number.")),
            )
        )
        extended.extended_open(
            campaign=membership.campaign,
            gm=membership.user,
            dn=dn,
            successes=successes,
            failures=failures,
            intent=intent_of(request.POST),
        )
    except RulesError as error:
        return _refused(request, membership, error)
    return _panel(request, membership, _("Extended action open: the party rolls for it."))


@require_POST
def extended_roll(request: HtmxRequest, pk: int, contest_id: int, character_id: int) -> HttpResponse:
    """A player rolls their own character for an extended action, from the contests panel."""
    membership = membership_or_404(request.user, pk)
    contest = _contest(membership, contest_id)
    character = character_to_act_for(membership, character_id)
    try:
        if character.owner_id != membership.user_id:
            raise RulesError(_("Only %(name)s's player rolls for %(name)s.") % {"name": character.name})
        key = client_value(request)
        if _sent_before(membership, key, contest, roll=True):
            return _panel(
                request,
                membership,
                _("%(name)s has rolled for the extended action.") % {"name": character.name},
            )
        raw = request.POST.get("faces", "").strip()
        data = side_values(character, request.POST, {"dn": str(contest.setup.get("dn", ""))})
        extended.extended_roll(
            contest=contest,
            character=character,
            user=membership.user,
            data=data,
            rng=randomness.RNG,
            faces=parse_faces(raw) if raw else None,
            client=key,
            key=key,
        )
    except RulesError as error:
        return _refused(request, membership, error)
    return _panel(
        request, membership, _("%(name)s has rolled for the extended action.") % {"name": character.name}
    )


def _whole(raw: str, refusal: str) -> int:
    """``raw`` as a small whole number; RulesError(``refusal``) otherwise (names the field)."""
    raw = raw.strip()
    if not raw.isdecimal() or len(raw) > 3:
        raise RulesError(refusal)
    return int(raw)
