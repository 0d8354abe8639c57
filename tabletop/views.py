"""Accounts: the home page, signing up, and setting a username and password."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import login, update_session_auth_hash
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from tabletop.forms import ClaimAccountForm, SignupForm
from tabletop.models import Membership


def home(request: HttpRequest) -> HttpResponse:
    memberships = []
    if request.user.is_authenticated:
        memberships = list(Membership.objects.filter(user=request.user).select_related("campaign"))
    return render(request, "tabletop/home.html", {"memberships": memberships})


@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    form = SignupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user)
        messages.success(
            request, _("Welcome, %(name)s. Create your first campaign.") % {"name": user.get_username()}
        )
        return redirect("rolls:campaign-new")
    return render(request, "tabletop/signup.html", {"form": form})


@login_required
@require_http_methods(["GET", "POST"])
def account(request: HttpRequest) -> HttpResponse:
    """Set (or change) a username and password, so a phone-joined player can log in elsewhere."""
    form = ClaimAccountForm(
        request.user, request.POST or None, initial={"username": request.user.get_username()}
    )
    if request.method == "POST" and form.is_valid():
        user = form.save()
        update_session_auth_hash(request, user)
        messages.success(request, _("Saved. You can now log in with this username and password anywhere."))
        return redirect("tabletop:home")
    return render(request, "tabletop/account.html", {"form": form})
