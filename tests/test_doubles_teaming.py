"""Teaming up in doubles (DBL-14): the leader names the characters who help, among the others
at the table; each adds one die, the card names them, and nobody else pays or risks anything
(the document gives helpers no share of the outcome). The engine's bare count stays for the
GM's quick roll, where nobody has a sheet."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest
from django.urls import reverse

from rolls import registry
from rolls.campaigns import services
from rolls.models import LogEntry, Roll
from rolls.systems import RulesError
from rolls.systems.base import percent
from tabletop.models import Character
from tests import factories
from tests.factories import Script, Table, logged_in
from tests.test_table_doubles import doubles_sheet

HX = {"HTTP_HX_REQUEST": "true"}


class Team:
    """A doubles table: Mara (the player's) leads; Ann and Bo (a second player's) may help."""

    def __init__(self) -> None:
        self.table: Table = factories.table("doubles", character_name="Mara", sheet=doubles_sheet())
        self.second = factories.user("second")
        factories.member(self.table.campaign, self.second, name="Second")
        self.ann = self._character("Ann")
        self.bo = self._character("Bo")

    def _character(self, name: str) -> Character:
        return services.character_create(
            campaign=self.table.campaign, owner=self.second, name=name, sheet=doubles_sheet()
        )

    @property
    def mara(self) -> Character:
        return self.table.character


def elsewhere() -> Character:
    """A character at another table."""
    gm = factories.user("elsewhere")
    other = factories.campaign(gm, name="Elsewhere", system="doubles")
    return services.character_create(campaign=other, owner=gm, name="Zed", sheet=doubles_sheet())


@pytest.fixture
def team(db: None) -> Team:
    return Team()


def roll(team: Team, **data: Any) -> Any:
    data.setdefault("dn", "6")
    url = reverse("rolls:roll-create", args=[team.table.campaign.pk, team.mara.pk])
    return logged_in(team.table.player).post(url, data, **HX)


def visible(response: Any) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", response.content.decode())).split())


def test_dbl_14_the_leader_rolls_one_more_die_per_named_helper_and_the_card_names_them(
    team: Team, dice: Script
) -> None:
    dice(2, 3, 4, 5)
    page = visible(roll(team, helpers=[str(team.ann.pk), str(team.bo.pk)]))
    assert "2 + helpers 2 = 4" in page
    made = Roll.objects.get()
    assert made.trait == "Two dice, with Ann and Bo"
    assert "Two dice, with Ann and Bo" in page
    entry = LogEntry.objects.filter(roll=made).get()
    assert entry.state is not None and len(entry.state["steps"][0]["dice"]) == 4
    # The whole table reads the names on the card.
    seen = html.unescape(
        logged_in(team.second).get(reverse("rolls:campaign", args=[team.table.campaign.pk])).content.decode()
    )
    assert "Two dice, with Ann and Bo" in seen


def test_dbl_14_helpers_risk_nothing_the_document_gives_them_no_share(team: Team, dice: Script) -> None:
    before = {c.pk: (c.endurance, c.drama_spent) for c in Character.objects.all()}
    dice(1, 1, 1)  # all ones: a catastrophe for the leader alone
    page = visible(roll(team, helpers=[str(team.ann.pk)]))
    assert "atastroph" in page
    assert "shares the outcome" not in page
    made = Roll.objects.get()
    assert made.helper_id is None and made.helper_name == ""
    after = {c.pk: (c.endurance, c.drama_spent) for c in Character.objects.all()}
    assert after == before


def test_dbl_14_the_roll_form_offers_the_others_at_the_table_as_chips(team: Team) -> None:
    page = html.unescape(
        logged_in(team.table.player)
        .get(reverse("rolls:character", args=[team.table.campaign.pk, team.mara.pk]))
        .content.decode()
    )
    form = page.split('class="traits doubles-helpers"')[1].split("</fieldset>")[0]
    assert f'name="helpers" value="{team.ann.pk}"' in form and f'value="{team.bo.pk}"' in form
    assert f'value="{team.mara.pk}"' not in form  # the leader does not help themself


def test_dbl_14_a_lone_character_has_nobody_to_team_up_with(db: None) -> None:
    table = factories.table("doubles", character_name="Mara", sheet=doubles_sheet())
    page = logged_in(table.player).get(
        reverse("rolls:character", args=[table.campaign.pk, table.character.pk])
    )
    assert "doubles-helpers" not in page.content.decode()


@pytest.mark.parametrize(
    ("helpers", "message"),
    [
        ("self", "Select a valid choice."),
        ("elsewhere", "Select a valid choice."),
        (["x"], "Select a valid choice. x is not one of the available choices."),
    ],
)
def test_dbl_14_a_helper_who_is_not_another_character_here_is_refused(
    team: Team, dice: Script, helpers: Any, message: str
) -> None:
    dice()
    if helpers == "self":
        helpers = [str(team.mara.pk)]
    elif helpers == "elsewhere":
        helpers = [str(elsewhere().pk)]
    response = roll(team, helpers=helpers)
    assert response.status_code == 422
    assert message in visible(response)
    assert not Roll.objects.exists()


def test_dbl_14_the_table_checks_the_helpers_again_under_the_form(team: Team) -> None:
    adapter = registry.table("doubles")
    stranger = elsewhere()
    for given, message in (
        ([team.mara.pk], "Mara leads this roll and cannot also help it."),
        ([team.ann.pk, team.ann.pk], "Each helper counts once."),
        ([stranger.pk], "Name the helpers among the characters at this table."),
        (["lots"], "Name the helpers among the characters at this table."),
        ([*range(10**6, 10**6 + 7)], "At most 6 characters help one leader."),
    ):
        with pytest.raises(RulesError, match=re.escape(message)):
            adapter.pool(team.mara, {"helpers": given, "dn": "6"})
    request, label = adapter.pool(team.mara, {"helpers": [team.bo.pk], "dn": "6"})
    assert request["helpers"] == 1 and label == "Two dice, with Bo"


def test_dbl_14_a_bare_count_still_counts_where_nobody_is_named(team: Team) -> None:
    """Sides and calls stored before helpers had names, and the GM's quick roll (a flag)."""
    request, label = registry.table("doubles").pool(team.mara, {"helpers": 2, "dn": "6"})
    assert request["helpers"] == 2 and label == "Two dice"
    system = registry.engine("doubles")
    assert system.parse_request({"helpers": 3, "dn": 6}).net == 5


def test_dbl_14_the_odds_count_the_named_helpers(team: Team) -> None:
    url = reverse("rolls:odds", args=[team.table.campaign.pk, team.mara.pk])
    client = logged_in(team.table.player)
    helped = visible(client.get(url, {"dn": "6", "helpers": [str(team.ann.pk), str(team.bo.pk)]}))
    system = registry.engine("doubles")
    four = percent(system.chance(system.parse_request({"helpers": 2, "dn": 6})))
    assert helped.startswith(f"Two dice, with Ann and Bo: 4 dice {four} to beat Challenging (6)")


def test_dbl_14_a_long_list_of_names_is_counted_on_the_card(team: Team) -> None:
    names = [
        services.character_create(
            campaign=team.table.campaign,
            owner=team.second,
            name=f"Helper number {i} the Bold",
            sheet=doubles_sheet(),
        )
        for i in range(3)
    ]
    _, label = registry.table("doubles").pool(team.mara, {"helpers": [c.pk for c in names], "dn": "6"})
    assert label == "Two dice, with 3 helpers"
