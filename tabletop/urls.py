"""The root URL configuration."""

from __future__ import annotations

from django.urls import include, path

urlpatterns = [
    path("", include("rolls.urls")),
    path("", include("tabletop.app_urls")),
    # Django's set_language, the switch of the pages outside a campaign (templates/_language_switch.html).
    path("i18n/", include("django.conf.urls.i18n")),
]

handler404 = "tabletop.errors.not_found"
handler403 = "tabletop.errors.forbidden"
handler500 = "tabletop.errors.server_error"
