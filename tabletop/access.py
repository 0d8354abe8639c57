"""Who may see and do what. Views and the consumer call these before anything else.

A campaign is visible to its members only (404 for everyone else signed in, so its existence
does not leak; a signed-out visitor is sent to sign in, whatever the campaign's id); a character is acted for by its player or the GM (403 for the other members).
"""

from __future__ import annotations

from django.contrib.auth.models import AnonymousUser, User
from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.utils.translation import gettext as _

from tabletop.models import Campaign, Character, Membership
from tabletop.serving.compiled_query import CompiledQuery

# The largest id a database column holds. A larger one in a URL matches nothing, but SQLite
# raises OverflowError on it in a foreign-key lookup instead of finding nothing.
MAX_ID = 2**63 - 1

# Read on every request that acts in a campaign: compiled once (tabletop/serving/compiled_query.py).
_MEMBERSHIP = CompiledQuery(
    lambda campaign_id, user_id: Membership.objects.select_related("campaign").filter(
        campaign_id=campaign_id, user_id=user_id
    ),
    "campaign_id",
    "user_id",
    related=("campaign",),
)
_CHARACTER = CompiledQuery(
    lambda campaign_id, character_id: Character.objects.filter(campaign_id=campaign_id, pk=character_id),
    "campaign_id",
    "character_id",
)


def membership_or_none(user: User | AnonymousUser, campaign_id: int) -> Membership | None:
    """``user``'s membership of the campaign, with the campaign; None for anyone else. The
    pages and the sockets both ask this (a socket's connect read it with the ORM, whose
    compiling of the query was two thirds of that read: bench/connect_cpu.py)."""
    if not user.is_authenticated or not 0 < campaign_id <= MAX_ID:
        return None
    membership = _MEMBERSHIP.get_or_none(campaign_id=campaign_id, user_id=user.pk)
    if membership is not None:
        membership.user = user  # the request's (or the socket's), already read
    return membership


class SignInFirst(PermissionDenied):
    """Nobody is signed in: a member who opened a shared link on a signed-out device is asked
    to sign in and comes back to it (``tabletop.errors.forbidden``). Raised before the campaign
    is read, for any campaign id, so it says nothing of whether the campaign exists."""


def membership_or_404(user: User | AnonymousUser, campaign_id: int) -> Membership:
    """The signed-in user's membership of the campaign; 404 for anyone else signed in
    (its existence does not leak), SignInFirst when nobody is signed in."""
    if not user.is_authenticated:
        raise SignInFirst(_("Sign in to see this campaign."))
    membership = membership_or_none(user, campaign_id)
    if membership is None:
        raise Http404("No such campaign.")
    return membership


def gm_or_403(user: User | AnonymousUser, campaign_id: int) -> Membership:
    membership = membership_or_404(user, campaign_id)
    if not membership.is_gm:
        raise PermissionDenied(_("Only the GM can do that."))
    return membership


def may_act_for(membership: Membership, character: Character) -> bool:
    return membership.is_gm or character.owner_id == membership.user_id


def character_or_404(campaign: Campaign, character_id: int) -> Character:
    character = character_or_none(campaign, character_id)
    if character is None:
        raise Http404("No such character.")
    return character


def character_or_none(campaign: Campaign, character_id: int) -> Character | None:
    """The campaign's character of that id, or None; one compiled read."""
    if not 0 < character_id <= MAX_ID:
        return None
    character = _CHARACTER.get_or_none(campaign_id=campaign.pk, character_id=character_id)
    if character is not None:
        character.campaign = campaign  # the membership's, already read: no second read or join
    return character


def character_to_act_for(membership: Membership, character_id: int) -> Character:
    character = character_or_404(membership.campaign, character_id)
    acting_for(membership, character)
    return character


def acting_for(membership: Membership, character: Character) -> None:
    """Refuses (403) a member who may not act for ``character``, a character of their
    campaign already read (a roll's, say)."""
    if not may_act_for(membership, character):
        raise PermissionDenied(_("Only this character's player or the GM can do that."))
