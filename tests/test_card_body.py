"""A card's body (header, dice, verdict) is drawn once per entry and process, and every place
that draws the entry (the table's feed, the roller's result panel) shows that same body
around its own id, buttons and time."""

from __future__ import annotations

import pytest
from django.template.loader import render_to_string
from pytest_django.fixtures import Settings

from rolls import cards, services
from rolls.cards import build_card, latest_card
from rolls.kept import Kept
from rolls.models import Roll
from tabletop.models import Membership
from tests.factories import ScriptedDice, Table


@pytest.fixture(autouse=True)
def _sharing(settings: Settings) -> None:
    """These tests are of the kept bodies, a piece of the fast path: on, whatever FAST_PATH says."""
    settings.FAST_PATH = {**settings.FAST_PATH, "shared_markup": True}


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the templates cards.py renders (the bodies it draws)."""
    drawn: list[str] = []

    def render(name: str, context: dict[str, object]) -> str:
        drawn.append(name)
        return render_to_string(name, context)

    monkeypatch.setattr(cards, "render_to_string", render)
    return drawn


def _roll(table: Table, *faces: int, blind: bool = False) -> Roll:
    return services.roll_create(
        character=table.character,
        roller=table.player,
        data={"attribute": "Body"},
        helper=None,
        intent="Jump the fence",
        rng=ScriptedDice(*faces, then=1),
        blind=blind,
    )


def test_the_feed_and_the_result_panel_draw_one_body(table: Table, counted: list[str]) -> None:
    roll = _roll(table, 6, 2)
    player = Membership.objects.get(campaign=table.campaign, user=table.player)
    feed = render_to_string("rolls/_card.html", {"card": latest_card(roll, place="feed")})
    result = render_to_string(
        "rolls/_card.html", {"card": latest_card(roll, place="result", membership=player)}
    )

    assert counted == ["rolls/_card.html#body"]
    body = latest_card(roll, place="feed").body
    assert "Jump the fence" in body and 'data-face="6"' in body
    assert body in feed and body in result
    assert f'id="feed-roll-{roll.pk}"' in feed and f'id="result-roll-{roll.pk}"' in result
    assert "follow-up" in result and "follow-up" not in feed


def test_a_follow_up_is_a_new_entry_with_a_body_of_its_own(table: Table, counted: list[str]) -> None:
    roll = _roll(table, 2, 2)
    before = latest_card(roll, place="feed").body
    entry = services.follow_up_apply(
        roll=roll,
        actor=table.player,
        action="push",
        params={"condition": "Scared", "description": "Olle grits his teeth"},
        rng=ScriptedDice(6, 6, then=1),
    )
    after = build_card(roll, entry.state or {}, entry.seq, place="feed").body

    assert len(counted) == 2
    assert after != before and after.count('data-face="6"') >= 1


def test_a_blind_roll_has_one_body_for_the_gm_and_another_for_the_table(
    table: Table, counted: list[str]
) -> None:
    roll = _roll(table, 6, 6, blind=True)
    gm = Membership.objects.get(campaign=table.campaign, user=table.gm)
    table_body = latest_card(roll, place="feed").body
    gm_body = latest_card(roll, place="feed", membership=gm).body

    assert len(counted) == 2
    assert 'data-face="6"' in gm_body
    assert "data-face" not in table_body and "only the GM sees the result" in table_body


def test_bodies_kept_are_bounded(table: Table, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cards, "_bodies", Kept(2))
    roll = _roll(table, 6)
    for seq in range(1, 5):
        assert build_card(roll, latest_card(roll, place="feed").state, seq, place="feed").body
    assert len(cards._bodies) == 2
