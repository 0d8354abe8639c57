"""Error pages in the app's own look, with a plain message and a way back."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render


def not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return render(
        request, "error.html", {"title": "Not found", "message": "There is nothing here for you."}, status=404
    )


def forbidden(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    message = str(exception) if exception and str(exception) else "You may not do that."
    return render(request, "error.html", {"title": "Not allowed", "message": message}, status=403)


def server_error(request: HttpRequest) -> HttpResponse:
    return render(
        request,
        "error.html",
        {"title": "Something broke", "message": "The table hiccupped. Try again."},
        status=500,
    )
