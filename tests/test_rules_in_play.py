"""Rules the server enforces that play turned up: what a sheet pays for goes only on a roll
of the open session and Mystery/Adventure (SIX-5, SIX-8, SIX-10, STR-12, DBL-10), a push is
described and names its Condition (SIX-23, SIX-11), group Trouble takes no helper (SIX-17),
and a sets roll is settled when blind or without a set (SET-3, SET-4). Through the views."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest
from django.http import HttpResponse
from django.test import Client
from django.urls import reverse

from rolls import registry
from rolls.campaigns import services as table_services
from rolls.models import LogEntry, Roll, Visibility
from rolls.play import services
from rolls.systems.stars import SKILLS, STATS
from tabletop.models import Campaign, Character
from tests import factories
from tests.factories import Script, ScriptedDice, Table, logged_in

SAID = "Olle grits his teeth and pedals harder"  # what the kid does to push (SIX-23)


def text(response: HttpResponse) -> str:
    return html.unescape(response.content.decode())


def visible(response: HttpResponse) -> str:
    """The words a reader sees: tags dropped, entities decoded, whitespace collapsed."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", response.content.decode())).split())


def roll(client: Client, table: Table, **data: Any) -> HttpResponse:
    return client.post(
        reverse("rolls:roll-create", args=[table.campaign.pk, table.character.pk]),
        data,
        HTTP_HX_REQUEST="true",
    )


def follow(client: Client, table: Table, made: Roll, action: str, **params: Any) -> HttpResponse:
    return client.post(
        reverse("rolls:follow-up", args=[table.campaign.pk, made.pk]),
        {"action": action, **params},
        HTTP_HX_REQUEST="true",
    )


def latest_roll() -> Roll:
    found = Roll.objects.order_by("-id").first()
    assert found is not None
    return found


def everything(campaign: Campaign) -> tuple[object, ...]:
    """All that a follow-up could change, to compare around a refusal."""
    campaign.refresh_from_db()
    return (
        Roll.objects.count(),
        LogEntry.objects.count(),
        campaign.last_seq,
        list(
            Character.objects.order_by("pk").values_list(
                "sheet", "luck", "endurance", "drama_spent", "pride_used_in"
            )
        ),
    )


def refused(response: HttpResponse, message: str, status: int = 422) -> None:
    assert response.status_code == status, text(response)
    assert message in text(response), text(response)


def new_session(table: Table) -> None:
    table_services.session_end(campaign=table.campaign, actor=table.gm)
    table_services.session_start(campaign=table.campaign, actor=table.gm)


def new_mystery(table: Table) -> None:
    table_services.mystery_start(campaign=table.campaign, actor=table.gm)


def sixes_failure(table: Table, dice: Script) -> Roll:
    dice(1, 2, 3, 4, 5, 1, 2)
    response = roll(logged_in(table.player), table, trait="Body", need=1)
    assert "Failure" in visible(response), visible(response)
    return latest_roll()


# -- SIX-5, SIX-8, SIX-10: Luck, Pride and a push on a roll of this session and Mystery -----------


def test_roll_records_the_mystery_it_was_made_in(table: Table, dice: Script) -> None:
    """SIX-5: "within its Mystery" needs the Mystery of each roll."""
    assert sixes_failure(table, dice).mystery == 1
    new_mystery(table)
    assert sixes_failure(table, dice).mystery == 2


@pytest.mark.parametrize(
    ("action", "params", "label"),
    [
        ("luck", {}, "Spend a Luck point"),
        ("pride", {}, "Use Pride"),
        ("push", {"condition": "Scared", "description": SAID}, "Push the roll"),
    ],
)
def test_six_8_six_10_luck_pride_and_a_push_go_only_on_a_roll_of_the_open_session(
    table: Table, dice: Script, action: str, params: dict[str, Any], label: str
) -> None:
    """SIX-8 (Luck is this session's), SIX-10 (a push follows the roll at once), SIX-5: last
    session's roll, still the kid's latest, takes nothing paid from the sheet of tonight."""
    made = sixes_failure(table, dice)
    new_session(table)
    before = everything(table.campaign)
    dice()

    response = follow(logged_in(table.player), table, made, action, **params)

    refused(
        response,
        f"“{label}” goes only on a roll of the play session in progress; "
        "this roll was made in an earlier session.",
    )
    assert everything(table.campaign) == before


def test_six_5_pride_goes_only_on_a_roll_of_this_mystery(table: Table, dice: Script) -> None:
    """SIX-5: Pride is once per Mystery: this Mystery's Pride cannot lift an old Mystery's roll."""
    made = sixes_failure(table, dice)
    new_mystery(table)
    before = everything(table.campaign)

    response = follow(logged_in(table.player), table, made, "pride")

    refused(response, "“Use Pride” goes only on a roll of this Mystery; this roll was made in Mystery 1.")
    assert everything(table.campaign) == before
    # On a roll of this Mystery it is there, and spent.
    fresh = sixes_failure(table, dice)
    assert follow(logged_in(table.player), table, fresh, "pride").status_code == 200
    table.character.refresh_from_db()
    assert table.character.pride_used_in == 2


def test_six_8_an_old_rolls_card_offers_nothing_paid_from_the_sheet(table: Table, dice: Script) -> None:
    """The roll screen of a kid whose latest roll is last session's shows it without the
    Luck, Pride and push buttons the server would refuse."""
    sixes_failure(table, dice)
    page = text(logged_in(table.player).get(table.character.get_absolute_url()))
    assert "follow-up-luck" in page
    new_session(table)

    page = text(logged_in(table.player).get(table.character.get_absolute_url()))

    assert f'id="result-roll-{latest_roll().pk}"' in page  # the card is there, without them
    for action in ("push", "luck", "pride"):
        assert f"follow-up-{action}" not in page


# -- SIX-23, SIX-11: a push says what the kid does and which Condition it checks -------------------


def test_six_11_the_push_picker_preselects_no_condition(table: Table, dice: Script) -> None:
    """SIX-11: the player chooses the Condition; the picker starts on an empty prompt."""
    dice(1, 2, 3, 4, 5, 1, 2)
    page = text(roll(logged_in(table.player), table, trait="Body", need=1))
    picker = re.search(r'<select name="condition" required>(.*?)</select>', page)
    assert picker is not None
    assert picker.group(1).startswith('<option value="">Choose a Condition</option><option value="Upset">')
    assert "selected" not in picker.group(1)
    assert 'name="description" maxlength="160" required' in page
    assert "What does the kid do to push themself?" in page


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"description": SAID}, "Choose the Condition the push checks: none is chosen for you."),
        (
            {"condition": "", "description": SAID},
            "Choose the Condition the push checks: none is chosen for you.",
        ),
        ({"condition": "Scared"}, "What the kid does to push is missing."),
        ({"condition": "Scared", "description": "   "}, "What the kid does to push is missing."),
        (
            {"condition": "Scared", "description": "x" * 161},
            "What the kid does to push must be at most 160 characters (got 161).",
        ),
        (
            {"condition": "Scared", "description": "I run\u202e faster"},
            "What the kid does to push cannot hold invisible or control characters (this one has U+202E).",
        ),
    ],
)
def test_six_23_a_push_without_its_line_or_its_condition_is_refused(
    table: Table, dice: Script, params: dict[str, Any], message: str
) -> None:
    """SIX-23, SIX-11: the push is described in one visible line and checks a chosen Condition;
    otherwise it is refused with a clear message and nothing changes (not even the dice)."""
    made = sixes_failure(table, dice)
    before = everything(table.campaign)
    dice()

    refused(follow(logged_in(table.player), table, made, "push", **params), message)
    assert everything(table.campaign) == before


def test_six_23_the_push_line_is_on_the_card_for_everyone_who_sees_the_roll(
    table: Table, dice: Script
) -> None:
    """SIX-23: what the kid did is kept with the push and shown on its card: to the roller,
    the GM, another player and the history."""
    kim = factories.member(table.campaign, name="Kim").user
    made = sixes_failure(table, dice)
    dice(6, then=1)

    response = follow(
        logged_in(table.player), table, made, "push", condition="Scared", description=f"  {SAID} "
    )

    assert response.status_code == 200
    assert f"Pushed, checking Scared “{SAID}”" in visible(response)
    entry = LogEntry.objects.filter(roll=made).order_by("-seq")[0]
    assert entry.state["steps"][-1]["description"] == SAID
    for who in (table.gm, kim, table.player):
        history = logged_in(who).get(reverse("rolls:history", args=[table.campaign.pk]))
        assert f"“{SAID}”" in visible(history)


# -- SIX-17: group Trouble on the roll form -------------------------------------------------------


def test_six_17_group_trouble_is_on_the_roll_form_and_reaches_the_engine(table: Table, dice: Script) -> None:
    page = text(logged_in(table.player).get(table.character.get_absolute_url()))
    assert 'name="group"' in page and "Group Trouble: every kid faces it, nobody helps" in page
    dice(6, 6, 1, 1, 1, 1, 1)

    response = roll(logged_in(table.player), table, trait="Body", need=1, group="on")

    assert response.status_code == 200
    assert latest_roll().current_state()["request"]["group"] is True
    assert "Group Trouble: extra successes may go to the other kids." in visible(response)


def test_six_17_group_trouble_takes_no_helper(table: Table, dice: Script) -> None:
    """SIX-17: when every kid faces the Trouble at once nobody helps: refused, nothing rolled."""
    friend = factories.character(table.campaign, table.gm, name="Kim")
    before = everything(table.campaign)
    dice()

    response = roll(logged_in(table.player), table, trait="Body", need=1, group="on", helper=friend.pk)

    refused(response, "Nobody can help in group Trouble: everyone rolls for themself.")
    assert everything(table.campaign) == before


# -- STR-12, STR-11: stars Luck on a roll of this session and Adventure ----------------------------


@pytest.fixture
def stars(db: None) -> Table:
    sheet = {"stats": dict.fromkeys(STATS, 2), "skills": dict.fromkeys(SKILLS, "untrained"), "edges": {}}
    return factories.table("stars", character_name="Dave", sheet=sheet)


def stars_failure(table: Table, dice: Script) -> Roll:
    dice(1, 2)
    response = roll(logged_in(table.player), table, stat="Agility", skill="", advantage="none")
    assert response.status_code == 200, text(response)
    return latest_roll()


def guard_against(table: Table) -> Roll:
    return services.npc_roll_create(
        campaign=table.campaign,
        gm=table.gm,
        name="The guard",
        request=registry.engine("stars").parse_request({"dice": 3}),
        secret=False,
        target=table.character,
        intent="spots Dave",
        rng=ScriptedDice(6, 5, 1),
    )


def test_str_12_luck_goes_only_on_a_roll_of_the_open_session(stars: Table, dice: Script) -> None:
    """STR-11, STR-12: Luck is spent from the pool as it is now; last session's roll takes none."""
    made = stars_failure(stars, dice)
    new_session(stars)
    before = everything(stars.campaign)

    response = follow(logged_in(stars.player), stars, made, "luck")

    refused(
        response,
        "goes only on a roll of the play session in progress; this roll was made in an earlier session.",
    )
    assert everything(stars.campaign) == before


def test_str_12_luck_against_goes_only_on_a_roll_of_this_adventure(stars: Table, dice: Script) -> None:
    """STR-12: a new Adventure fills Luck; it does not reach back to the last Adventure's rolls,
    and a roll made against the hero is the same (its target pays)."""
    guard = guard_against(stars)
    new_mystery(stars)
    before = everything(stars.campaign)

    response = follow(logged_in(stars.player), stars, guard, "luck_against")

    refused(response, "goes only on a roll of this Adventure; this roll was made in Adventure 1.")
    assert everything(stars.campaign) == before
    # The panel of rolls against Dave offers no answer to it any more.
    page = text(logged_in(stars.player).get(stars.character.get_absolute_url()))
    assert "follow-up-luck_against" not in page


# -- DBL-10, DBL-11: drama dice and miracles on a roll of this session -------------------------------


@pytest.fixture
def doubles(db: None) -> Table:
    sheet = {"endurance_max": 40, "abilities": [{"name": "Fighting", "level": 1}], "weaknesses": []}
    return factories.table("doubles", character_name="Ace", sheet=sheet)


@pytest.mark.parametrize(("action", "params"), [("drama", {"count": "1"}), ("miracle", {})])
def test_dbl_10_drama_dice_and_miracles_go_only_on_a_roll_of_the_open_session(
    doubles: Table, dice: Script, action: str, params: dict[str, Any]
) -> None:
    dice(2, 3)
    roll(logged_in(doubles.player), doubles, dn="6", bonus="0", penalty="0")
    made = latest_roll()
    new_session(doubles)
    before = everything(doubles.campaign)
    dice()

    response = follow(logged_in(doubles.player), doubles, made, action, **params)

    refused(response, "goes only on a roll of the play session in progress")
    assert everything(doubles.campaign) == before


# -- SET-3, SET-4: blind rolls and opposed rolls without a set -----------------------------------------


@pytest.fixture
def sets(db: None) -> Table:
    sheet = {"stats": [{"name": "Insight", "dice": 5}], "notes": ""}
    return factories.table("sets", character_name="Wilcott", sheet=sheet)


def sets_roll(table: Table, dice: Script, faces: tuple[int, ...], **data: Any) -> Roll:
    dice(*faces)
    response = roll(logged_in(table.player), table, **{"stat": "Insight", "bar": "2", "face": "3", **data})
    assert response.status_code == 200, text(response)
    return latest_roll()


def test_set_3_a_blind_roll_is_bid_unseen_from_the_phone(sets: Table, dice: Script) -> None:
    """SET-3, SET-6: the roller of a blind roll sees no dice, yet bids from the phone: the
    strongest bid the dice allow. The card still shows them nothing."""
    made = sets_roll(sets, dice, (4, 4, 3, 3, 1), blind="on")
    assert made.visibility == Visibility.BLIND
    page = text(logged_in(sets.player).get(sets.character.get_absolute_url()))
    assert "Bid your best set, unseen" in page and "follow-up-bid_best" in page
    assert "data-face" not in page.split('id="result-roll-')[1].split("</li>")[0]

    response = follow(logged_in(sets.player), sets, made, "bid_best")

    assert response.status_code == 200, text(response)
    assert "data-face" not in text(response) and "rolled blind" in visible(response)
    step = made.current_state()["steps"][-1]
    assert (step["action"], step["bid"], step["unseen"]) == ("bid", "3x3", True)
    gm_view = visible(logged_in(sets.gm).get(reverse("rolls:history", args=[sets.campaign.pk])))
    assert "Bid 3x3, unseen (a blind roll)" in gm_view and "meets the Apprentice Bar" in gm_view


def test_set_3_the_roller_of_a_blind_roll_cannot_pick_dice_they_do_not_see(sets: Table, dice: Script) -> None:
    made = sets_roll(sets, dice, (4, 4, 3, 3, 1), blind="on")
    before = everything(sets.campaign)

    response = follow(logged_in(sets.player), sets, made, "bid", dice=["0", "1"])

    refused(response, "Only the GM sees this blind roll's dice, so that is the GM's to do.")
    assert everything(sets.campaign) == before


def test_set_3_the_gm_resolves_a_blind_roll_from_the_session_page(sets: Table, dice: Script) -> None:
    """The GM, who alone sees a blind roll's dice, finds it waiting on the session page and
    bids for it there."""
    made = sets_roll(sets, dice, (4, 4, 3, 3, 1), blind="on")
    gm = logged_in(sets.gm)
    page = text(gm.get(reverse("rolls:session", args=[sets.campaign.pk])))
    assert f'id="gm-roll-{made.pk}"' in page and "follow-up-bid" in page

    response = follow(gm, sets, made, "bid", dice=["0", "1"], place="gm")

    assert response.status_code == 200, text(response)
    assert made.current_state()["steps"][-1]["bid"] == "2x4"


def test_set_4_an_opposed_roll_with_no_set_gets_a_verdict(sets: Table, dice: Script) -> None:
    """SET-4: no set to bid, but the other side's bid is recorded and any set beats none."""
    made = sets_roll(sets, dice, (1, 2, 3, 4, 5), bar="opposed", side="attacker")
    page = text(logged_in(sets.player).get(sets.character.get_absolute_url()))
    assert "follow-up-opposition" in page

    response = follow(logged_in(sets.player), sets, made, "opposition", size="2", face="3")

    assert response.status_code == 200, text(response)
    assert "No set loses to 2x3" in visible(response)
    assert "The other side spends further sets first." in visible(response)


def test_a_bid_spends_nothing_from_a_sheet_and_stays_open_after_the_session(
    sets: Table, dice: Script
) -> None:
    """Our reading: follow-ups that spend only the roll's own dice (a sets bid, criticals, the
    other side's bid) are not paid from a sheet, so a roll left unsettled when a session ended
    can still be settled."""
    made = sets_roll(sets, dice, (4, 4, 3, 2, 1))
    new_session(sets)

    response = follow(logged_in(sets.player), sets, made, "bid", dice=["0", "1"])

    assert response.status_code == 200, text(response)


def test_a_blind_sixes_roll_does_not_wait_on_the_gms_panel(table: Table, dice: Script) -> None:
    """A blind roll waits for the GM only while its own dice can settle it (a sets bid): a
    sixes roll is settled as rolled, and Luck or a push is the player's to ask for."""
    dice(1, 2, 3, 4, 5, 1, 2)
    roll(logged_in(table.player), table, trait="Body", need=1, blind="on")
    page = text(logged_in(table.gm).get(reverse("rolls:session", args=[table.campaign.pk])))
    assert f'id="gm-roll-{latest_roll().pk}"' not in page
