"""The phone's pages hold each element id once (issue 42: an extended action's panel
duplicated ids on the phone, so a label named the wrong field)."""

from __future__ import annotations

import re
from collections import Counter

import pytest
from django.urls import reverse

from rolls.models import Contest
from tests.factories import logged_in
from tests.test_doubles_contest_views import HX, Duel

ID = re.compile(r'\sid="([^"]+)"')


def duplicate_ids(html: str) -> list[str]:
    return sorted(name for name, count in Counter(ID.findall(html)).items() if count > 1)


@pytest.mark.django_db
def test_an_extended_actions_panel_holds_each_id_once_on_the_phone_DBL_13() -> None:
    duel = Duel()
    campaign = duel.table.campaign.pk
    made = logged_in(duel.table.gm).post(
        reverse("rolls:extended-create", args=[campaign]),
        {"dn": "6", "successes": "2", "failures": "1", "intent": "Climb the tower"},
        **HX,
    )
    assert made.status_code == 200 and Contest.objects.exists()
    player = logged_in(duel.table.player)
    for url in (
        reverse("rolls:campaign", args=[campaign]),
        reverse("rolls:character", args=[campaign, duel.mara.pk]),
    ):
        html = player.get(url).content.decode()
        assert "Roll Mara for it" in html, url
        assert duplicate_ids(html) == [], url
