"""The rules pages: each system in our own words, with its exact odds."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from rolls import registry


@require_GET
def rules_index(request: HttpRequest) -> HttpResponse:
    return render(request, "rolls/rules/index.html", {"systems": registry.all_systems()})


@require_GET
def rules_system(request: HttpRequest, slug: str) -> HttpResponse:
    if slug not in registry.slugs():
        raise Http404("No such dice system.")
    system = registry.get(slug)
    return render(
        request,
        system.table.rules_template,
        {"system": system.engine, "tables": system.engine.rules_tables()},
    )
