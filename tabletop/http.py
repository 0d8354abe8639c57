"""Request types for the views' signatures.

``HtmxMiddleware`` sets ``request.htmx`` on every request (django-htmx documents this class
for type checking); ``login_required`` guarantees a signed-in user."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.http import HttpRequest
from django_htmx.middleware import HtmxDetails


class HtmxRequest(HttpRequest):
    htmx: HtmxDetails


class AuthenticatedHttpRequest(HtmxRequest):
    user: User
