"""What ``manage.py serve`` does before it serves."""

from __future__ import annotations

import pytest

from tabletop.management.commands.serve import prepare
from tabletop.models import Presence
from tests.conftest import Table


def _left_behind(table: Table) -> None:
    # Rows of sockets that a server which stopped without closing them never removed.
    Presence.objects.create(campaign=table.campaign, user=table.player, channel_name="gone.1")
    Presence.objects.create(campaign=table.campaign, user=table.gm, channel_name="gone.2")


@pytest.mark.django_db
def test_the_embedded_default_starts_with_nobody_at_the_table(table: Table) -> None:
    _left_behind(table)

    prepare(embedded=True)

    assert not Presence.objects.exists()


@pytest.mark.django_db
def test_with_several_servers_the_others_presence_stays(table: Table) -> None:
    _left_behind(table)

    prepare(embedded=False)

    assert Presence.objects.count() == 2
