"""Removal keeps someone out (issue 44): removing a member offers a new join link, and with it
the removed person cannot come back through the old link from a fresh browser."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from rolls.models import LogEntry
from tabletop.models import Membership
from tests.factories import Table, logged_in

pytestmark = pytest.mark.django_db


def remove(table: Table, **data: str) -> str:
    membership = Membership.objects.get(campaign=table.campaign, user=table.player)
    url = reverse("rolls:member-remove", args=[table.campaign.pk, membership.pk])
    response = logged_in(table.gm).post(url, data, follow=True)
    assert response.status_code == 200
    return response.content.decode()


def test_the_members_list_offers_a_new_join_link_with_each_removal(table: Table) -> None:
    page = logged_in(table.gm).get(reverse("rolls:session", args=[table.campaign.pk])).content.decode()

    assert '<input type="checkbox" name="renew" value="on" checked> and a new join link' in page


def test_a_removed_person_cannot_rejoin_from_a_fresh_browser_once_the_link_is_renewed(table: Table) -> None:
    old = reverse("rolls:join", args=[table.campaign.join_token])
    members = Membership.objects.filter(campaign=table.campaign).count()

    said = remove(table, renew="on")

    assert "Player was removed. The join link is new: the old one no longer works." in said
    fresh = Client()  # another browser: no account, no cookie the ban would know
    assert fresh.get(old).status_code == 404
    assert fresh.post(old, {"display_name": "Player again"}).status_code == 404
    assert Membership.objects.filter(campaign=table.campaign).count() == members - 1
    table.campaign.refresh_from_db()
    assert reverse("rolls:join", args=[table.campaign.join_token]) != old
    actions = (
        LogEntry.objects.filter(campaign=table.campaign).order_by("-seq").values_list("action", flat=True)
    )
    assert list(actions[:2]) == ["join-link", "member-removed"]


def test_without_the_renewal_the_gm_is_told_the_old_link_still_works(table: Table) -> None:
    old = reverse("rolls:join", args=[table.campaign.join_token])

    said = remove(table)

    assert "The old join link still lets anyone join" in said
    assert Client().get(old).status_code == 200
