"""Real dice at the table (issue 17): the campaign's dice mode, rolls and follow-ups entered by
hand through the services and the views of each system, every refusal changing nothing, the
GM's quick rolls, and the GM's setting. The engine side is tests/systems/test_hand.py."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest
from django.http import HttpResponse
from django.test import Client
from django.urls import reverse

from rolls import registry
from rolls.models import LogEntry, Roll
from rolls.play import services
from rolls.sight.cards import _default
from rolls.systems import RulesError
from rolls.systems.base import FollowUp
from rolls.systems.hand import dice_needed
from tabletop.models import Campaign, Character, DiceMode
from tests import factories
from tests.factories import Script, ScriptedDice, Table, logged_in
from tests.markup import Page

pytestmark = pytest.mark.django_db

SYSTEMS = ("sixes", "kinds", "doubles", "sets", "stars")
TEMPLATE_SYNTAX = ("{#", "{%", "{{")
SAID = "Olle throws himself at the fence"  # what the kid does to push (SIX-23)


def hand_table(system: str, mode: str = DiceMode.PHYSICAL) -> Table:
    made = factories.table(system, sheet=None if system == "sixes" else factories.sheet_of(system))
    Campaign.objects.filter(pk=made.campaign.pk).update(dice=mode)
    made.campaign.refresh_from_db()
    made.character.refresh_from_db()
    return made


def visible(response: HttpResponse) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", response.content.decode())).split())


def everything() -> tuple[object, ...]:
    """All a refused roll or follow-up could change, to compare before and after it."""
    return (
        Roll.objects.count(),
        LogEntry.objects.count(),
        list(Campaign.objects.order_by("pk").values_list("last_seq", "dice")),
        list(
            Character.objects.order_by("pk").values_list(
                "sheet", "luck", "endurance", "drama_spent", "pride_used_in"
            )
        ),
    )


def roll_data(table: Table, **extra: Any) -> dict[str, Any]:
    data = factories.roll_data(table.campaign.system, table.character)
    if table.campaign.system == "sixes":
        data.update(trait="Body", need="1")
    return {**data, **extra}


def needed(table: Table, **extra: Any) -> int:
    """How many dice the roll form's request rolls: the faces a player enters for it."""
    system = registry.engine(table.campaign.system)
    adapter = registry.table(system.slug)
    form = adapter.roll_form(factories.posted(roll_data(table, **extra)), character=table.character)
    assert form.is_valid(), form.errors
    request_data, _ = adapter.pool(table.character, {**form.engine_data(), "helper": False})
    request = system.parse_request(request_data)
    return dice_needed(lambda rng: system.roll(request, rng))


def roll(client: Client, table: Table, **data: Any) -> HttpResponse:
    return client.post(
        reverse("rolls:roll-create", args=[table.campaign.pk, table.character.pk]),
        roll_data(table, **data),
        HTTP_HX_REQUEST="true",
    )


def follow(client: Client, table: Table, made: Roll, action: str, **params: Any) -> HttpResponse:
    return client.post(
        reverse("rolls:follow-up", args=[table.campaign.pk, made.pk]),
        {"action": action, **params},
        HTTP_HX_REQUEST="true",
    )


def spaced(faces: list[int]) -> str:
    return " ".join(str(face) for face in faces)


def latest() -> Roll:
    found = Roll.objects.order_by("-id").first()
    assert found is not None
    return found


def refused(response: HttpResponse, message: str, before: tuple[object, ...]) -> None:
    assert response.status_code == 422, visible(response)
    assert message in visible(response), visible(response)
    assert everything() == before


# -- a roll by hand, each system -------------------------------------------------------------------


@pytest.mark.parametrize("system", SYSTEMS)
def test_a_roll_entered_by_hand_is_the_engine_s_roll_of_those_faces(system: str, dice: Script) -> None:
    table = hand_table(system)
    count = needed(table)
    faces = [(i % 6) + 1 for i in range(count)]
    dice()  # the app rolls nothing
    response = roll(logged_in(table.player), table, faces=spaced(faces))
    assert response.status_code == 200, visible(response)
    made = latest()
    assert made.by_hand
    assert "rolled by hand" in visible(response)
    engine = registry.engine(system)
    assert made.current_state() == engine.roll(
        engine.parse_request(made.current_state()["request"]), ScriptedDice(*faces)
    )


@pytest.mark.parametrize("system", SYSTEMS)
def test_every_refused_entry_changes_nothing(system: str, dice: Script) -> None:
    table = hand_table(system)
    client = logged_in(table.player)
    count = needed(table)
    before = everything()
    refused(
        roll(client, table, faces=spaced([2] * (count + 1))),
        f"Enter exactly {count} dice; you entered {count + 1}",
        before,
    )
    refused(roll(client, table, faces=spaced([2] * (count - 1))), f"you entered {count - 1}", before)
    refused(roll(client, table, faces="2 7 3"), "“7” is not a face of a die", before)
    refused(roll(client, table, faces="2 x"), "is not a face of a die", before)
    refused(roll(client, table), "This table rolls real dice: enter the faces you rolled.", before)
    refused(
        roll(client, table, faces=spaced([2] * count), blind="on"),
        "A blind roll is rolled by the app",
        before,
    )
    Campaign.objects.filter(pk=table.campaign.pk).update(dice=DiceMode.DIGITAL)
    before = everything()
    refused(roll(client, table, faces=spaced([2] * count)), "This table rolls digital dice", before)


def test_policy_per_dice_mode(dice: Script) -> None:
    """Digital: the app rolls. Physical: faces, except a blind roll, which the app rolls.
    Either: the player chooses; ticking real dice and entering none is an entry of no dice."""
    table = hand_table("sixes", DiceMode.DIGITAL)
    client = logged_in(table.player)
    dice(6, then=2)
    assert roll(client, table).status_code == 200
    assert not latest().by_hand

    Campaign.objects.filter(pk=table.campaign.pk).update(dice=DiceMode.PHYSICAL)
    dice(6, then=2)
    assert roll(client, table, blind="on").status_code == 200
    assert not latest().by_hand and latest().visibility == "blind"

    Campaign.objects.filter(pk=table.campaign.pk).update(dice=DiceMode.EITHER)
    dice(6, then=2)
    assert roll(client, table).status_code == 200
    assert not latest().by_hand
    count = needed(table)
    before = everything()
    refused(roll(client, table, by_hand="1"), f"Enter exactly {count} dice; you entered 0", before)
    dice()
    assert roll(client, table, by_hand="1", faces=spaced([6] * count)).status_code == 200
    assert latest().by_hand


def test_the_service_holds_the_policy_without_a_view() -> None:
    table = hand_table("sixes", DiceMode.PHYSICAL)
    form = registry.table("sixes").roll_form(factories.posted(roll_data(table)), character=table.character)
    assert form.is_valid(), form.errors
    data = form.engine_data()

    def make(**kwargs: Any) -> Roll:
        return services.roll_create(
            character=table.character,
            roller=table.player,
            data=data,
            helper=None,
            intent="",
            rng=ScriptedDice(6, then=6),
            **kwargs,
        )

    before = everything()
    with pytest.raises(RulesError, match="enter the faces"):
        make()
    with pytest.raises(RulesError, match="blind roll is rolled by the app"):
        make(blind=True, faces=[6, 6, 6])
    assert everything() == before
    assert make(faces=[6, 1, 2]).by_hand
    assert not make(blind=True).by_hand


# -- follow-ups by hand ask only for what the rules reroll ------------------------------------------


def test_a_push_asks_only_for_the_dice_that_are_not_sixes_SIX_5_SIX_23(dice: Script) -> None:
    table = hand_table("sixes")
    client = logged_in(table.player)
    count = needed(table)
    faces = [6] + [2] * (count - 1)
    dice()
    roll(client, table, faces=spaced(faces))
    made = latest()
    page = client.get(reverse("rolls:character", args=[table.campaign.pk, table.character.pk]))
    rerolled = count - 1
    assert f'data-need="{rerolled}"' in page.content.decode()
    assert f"Reroll the {rerolled} dice that are not sixes" in visible(page)

    before = everything()
    push = {"condition": "Scared", "description": SAID}
    refused(follow(client, table, made, "push", **push), f"Enter the {rerolled} dice you rerolled.", before)
    refused(
        follow(client, table, made, "push", faces="6 6", **push)
        if rerolled != 2
        else follow(client, table, made, "push", faces="6", **push),
        "Enter exactly",
        before,
    )
    refused(
        follow(client, table, made, "push", faces=spaced([9] * rerolled), **push),
        "is not a face of a die",
        before,
    )
    response = follow(client, table, made, "push", faces=spaced([6] * rerolled), **push)
    assert response.status_code == 200, visible(response)
    assert made.current_state()["steps"][-1]["dice"] == [6] * count
    table.character.refresh_from_db()
    assert table.character.sheet["conditions"]["Scared"]


def test_a_luck_point_asks_for_the_failed_dice_SIX_8(dice: Script) -> None:
    table = hand_table("sixes")
    client = logged_in(table.player)
    count = needed(table)
    dice()
    roll(client, table, faces=spaced([2] * count))
    made = latest()
    before = everything()
    refused(follow(client, table, made, "luck"), f"Enter the {count} dice you rerolled.", before)
    response = follow(client, table, made, "luck", faces=spaced([6] + [3] * (count - 1)))
    assert response.status_code == 200, visible(response)
    table.character.refresh_from_db()
    assert (table.character.luck, LogEntry.objects.filter(roll=made).count()) == (before[3][0][1] - 1, 2)  # type: ignore[index]


def test_a_digital_roll_s_follow_up_refuses_faces(table: Table, dice: Script) -> None:
    client = logged_in(table.player)
    dice(2, then=2)
    roll(client, table)
    made = latest()
    before = everything()
    refused(follow(client, table, made, "luck", faces="6 6 6"), "The app rolled this roll", before)
    dice(6, then=6)
    assert follow(client, table, made, "luck").status_code == 200


def _offered(made: Roll, table: Table, action: str) -> FollowUp:
    resources = registry.table(made.system).resources(table.character, latest=True)
    found = {f.action: f for f in registry.engine(made.system).follow_ups(made.current_state(), resources)}
    assert action in found, sorted(found)
    return found[action]


def test_doubles_drama_dice_ask_for_the_dice_bought(dice: Script) -> None:
    table = hand_table("doubles")
    client = logged_in(table.player)
    count = needed(table, dn="8") if "dn" in roll_data(table) else needed(table)
    dice()
    assert roll(client, table, faces=spaced([1] + [3] * (count - 1))).status_code == 200
    made = latest()
    drama = _offered(made, table, "drama")
    page = client.get(reverse("rolls:character", args=[table.campaign.pk, table.character.pk]))
    assert 'data-choice-param="count"' in page.content.decode()
    assert "One face for each of the drama dice" in visible(page)
    before = everything()
    refused(
        follow(client, table, made, "drama", count="2", faces="5"),
        "Enter exactly 2 dice; you entered 1",
        before,
    )
    refused(follow(client, table, made, "drama", count="2"), "Enter the 2 dice you rerolled", before)
    response = follow(client, table, made, "drama", count="2", faces="5 5")
    assert response.status_code == 200, visible(response)
    assert made.current_state()["steps"][-1]["dice"] == [5, 5]
    assert drama.spends


def test_stars_luck_asks_for_a_second_whole_roll_STR_11(dice: Script) -> None:
    table = hand_table("stars")
    client = logged_in(table.player)
    count = needed(table)
    dice()
    assert roll(client, table, faces=spaced([2] * count)).status_code == 200
    made = latest()
    _offered(made, table, "luck")
    before = everything()
    refused(
        follow(client, table, made, "luck"),
        f"Enter the {count} {'die' if count == 1 else 'dice'} you rerolled",
        before,
    )
    response = follow(client, table, made, "luck", faces=spaced([6] * count))
    assert response.status_code == 200, visible(response)
    assert [6] * count == made.current_state()["steps"][-1]["dice"]


def test_a_sets_bid_on_a_roll_by_hand_draws_no_dice(dice: Script) -> None:
    table = hand_table("sets")
    client = logged_in(table.player)
    count = needed(table)
    assert count >= 2
    dice()
    assert roll(client, table, faces=spaced([5, 5, *[1, 2, 3, 4, 6][: count - 2]])).status_code == 200
    made = latest()
    bid = _offered(made, table, "bid")
    before = everything()
    refused(
        follow(client, table, made, "bid", dice=["0", "1"], faces="3"),
        "This step rolls no dice: enter none.",
        before,
    )
    response = follow(client, table, made, "bid", dice=["0", "1"])
    assert response.status_code == 200, visible(response)
    assert LogEntry.objects.filter(roll=made).count() == 2
    assert _default(bid.params[0]) == [bid.params[0].choices[0]]


@pytest.mark.parametrize("system", SYSTEMS)
def test_each_follow_up_of_a_roll_by_hand_takes_exactly_its_count(system: str, dice: Script) -> None:
    """Whatever a system offers after a roll by hand (kinds offers none): refused without its
    dice, applied with exactly them."""
    table = hand_table(system)
    client = logged_in(table.player)
    count = needed(table)
    dice()
    assert roll(client, table, faces=spaced([2] * count)).status_code == 200
    made = latest()
    engine = registry.engine(system)
    resources = registry.table(system).resources(table.character, latest=True)
    state = made.current_state()
    for follow_up in engine.follow_ups(state, resources):
        if follow_up.gm_only:
            continue
        params = {p.name: _default(p) for p in follow_up.params}
        if follow_up.action == "push":
            params.update(condition="Scared", description=SAID)
        try:
            rerolls = dice_needed(
                lambda rng, f=follow_up, p=params: engine.apply(state, f.action, p, resources, rng)
            )
        except RulesError:
            continue
        if not rerolls:
            continue
        before = everything()
        refused(follow(client, table, made, follow_up.action, **params), "you rerolled", before)
        refused(
            follow(client, table, made, follow_up.action, faces=spaced([4] * (rerolls + 1)), **params),
            "Enter exactly",
            before,
        )
        response = follow(client, table, made, follow_up.action, faces=spaced([4] * rerolls), **params)
        assert response.status_code == 200, (follow_up.action, visible(response))
        return
    assert system in ("kinds", "sets"), f"{system} offered no follow-up that rerolls"


# -- the GM's quick rolls -----------------------------------------------------------------------------


def npc(client: Client, table: Table, **extra: Any) -> HttpResponse:
    data = {**factories.npc_baseline(table.campaign), **extra}
    return client.post(reverse("rolls:npc-roll", args=[table.campaign.pk]), data, HTTP_HX_REQUEST="true")


def test_the_gm_s_quick_rolls_may_be_entered_or_digital_secret_ones_too(dice: Script) -> None:
    table = hand_table("sixes", DiceMode.PHYSICAL)
    gm = logged_in(table.gm)
    page = gm.get(reverse("rolls:session", args=[table.campaign.pk]))
    assert "Faces rolled by hand" in visible(page)
    dice(6, then=2)
    assert npc(gm, table, secret="on").status_code == 200
    assert not latest().by_hand and latest().visibility == "secret"
    dice()
    count = dice_needed(
        lambda rng: registry.engine("sixes").roll(registry.engine("sixes").parse_request({"dice": 2}), rng)
    )
    assert npc(gm, table, secret="on", flag_dice="2", faces=spaced([6] * count)).status_code == 200
    assert latest().by_hand
    before = everything()
    refused(npc(gm, table, flag_dice="2", faces="6"), "Enter exactly 2 dice; you entered 1", before)


def test_a_digital_table_s_quick_roll_has_no_faces_field_and_the_service_refuses_them(table: Table) -> None:
    page = logged_in(table.gm).get(reverse("rolls:session", args=[table.campaign.pk]))
    assert "Faces rolled by hand" not in visible(page)
    engine = registry.engine("sixes")
    before = everything()
    with pytest.raises(RulesError, match="digital dice"):
        services.npc_roll_create(
            campaign=table.campaign,
            gm=table.gm,
            name="Goon",
            request=engine.parse_request({"dice": 2}),  # type: ignore[arg-type]
            secret=False,
            target=None,
            intent="",
            rng=ScriptedDice(),
            faces=[6, 6],
        )
    assert everything() == before


# -- the odds say how many to enter ---------------------------------------------------------------------


def test_the_odds_say_how_many_dice_to_enter(dice: Script) -> None:
    table = hand_table("stars", DiceMode.EITHER)
    client = logged_in(table.player)
    url = reverse("rolls:odds", args=[table.campaign.pk, table.character.pk])
    count = needed(table)
    answer = client.get(url, roll_data(table), HTTP_HX_REQUEST="true").content.decode()
    assert f'id="hand-needed" data-needed="{count}" hx-swap-oob="true"' in answer
    with_advantage = client.get(
        url, roll_data(table, advantage="advantage"), HTTP_HX_REQUEST="true"
    ).content.decode()
    assert f'data-needed="{2 * count}"' in with_advantage  # two whole rolls (STR-6)
    Campaign.objects.filter(pk=table.campaign.pk).update(dice=DiceMode.DIGITAL)
    assert "hand-needed" not in client.get(url, roll_data(table), HTTP_HX_REQUEST="true").content.decode()


# -- the entry stays as it was made ------------------------------------------------------------------------


def test_an_entry_by_hand_never_changes(dice: Script) -> None:
    table = hand_table("sixes")
    dice()
    roll(logged_in(table.player), table, faces=spaced([6] * needed(table)))
    entry = LogEntry.objects.get(roll=latest())
    entry.state = {**(entry.state or {}), "steps": []}
    with pytest.raises(ValueError, match="never edited"):
        entry.save()


# -- the GM's setting -----------------------------------------------------------------------------------------


def test_the_gm_sets_the_dice_and_the_table_reads_it_in_the_log(table: Table) -> None:
    url = reverse("rolls:dice-mode", args=[table.campaign.pk])
    response = logged_in(table.gm).post(url, {"dice": "physical"})
    assert response.status_code == 302
    table.campaign.refresh_from_db()
    assert table.campaign.dice == DiceMode.PHYSICAL
    event = LogEntry.objects.filter(action="dice-mode").get()
    assert event.text == "The GM set the dice: real dice, entered by hand."


def test_only_the_gm_sets_the_dice(table: Table) -> None:
    url = reverse("rolls:dice-mode", args=[table.campaign.pk])
    before = everything()
    assert logged_in(table.player).post(url, {"dice": "physical"}).status_code == 403
    assert logged_in(table.outsider).post(url, {"dice": "physical"}).status_code in (403, 404)
    assert logged_in(table.gm).get(url).status_code == 405
    logged_in(table.gm).post(url, {"dice": "loaded"})
    assert everything() == before


def test_a_new_campaign_chooses_its_dice(db: None) -> None:
    gm = factories.user("gm")
    response = logged_in(gm).post(
        reverse("rolls:campaign-new"),
        {"name": "Lanterns", "system": "sixes", "display_name": "GM", "dice": "either"},
    )
    assert response.status_code == 302
    assert Campaign.objects.get(name="Lanterns").dice == DiceMode.EITHER


# -- the pages of a table that rolls real dice ------------------------------------------------------------


@pytest.mark.parametrize("mode", [DiceMode.PHYSICAL, DiceMode.EITHER])
def test_the_pages_of_a_real_dice_table_are_whole(mode: str, dice: Script) -> None:
    """The keypads (the roll form's, a by-hand card's follow-ups'), the GM's dice setting and
    the quick roll's faces: every id a page names is on it, every form has an action and its
    CSRF token, and no template syntax shows."""
    table = hand_table("sixes", mode)
    player = logged_in(table.player)
    dice()
    roll(player, table, faces=spaced([2] * needed(table)))
    pk = table.campaign.pk
    pages = {
        "roll screen": player.get(reverse("rolls:character", args=[pk, table.character.pk])),
        "session": logged_in(table.gm).get(reverse("rolls:session", args=[pk])),
        "display": Client().get(reverse("rolls:display", args=[table.campaign.display_token])),
        "refused roll": player.post(
            reverse("rolls:roll-create", args=[pk, table.character.pk]), {"faces": "9"}
        ),
    }
    problems = []
    for what, response in pages.items():
        assert response.status_code in (200, 422), what
        html_text = response.content.decode()
        page = Page(html_text)
        ids = set(page.ids)
        problems += [f"{what}: names #{name}" for _, _, name in page.references if name not in ids]
        problems += [f"{what}: {mark}" for mark in TEMPLATE_SYNTAX if mark in html_text]
        for form in page.forms:
            if not form.action:
                problems.append(f"{what}: a form without an action")
            if form.method == "post" and not any(f == "csrfmiddlewaretoken" and v for f, v in form.fields):
                problems.append(f"{what}: a form without its CSRF token")
    assert not problems, problems
    screen = visible(pages["roll screen"])
    assert "Faces you rolled, e.g. 6 3 1" in screen
    assert "Reroll the 3 dice that are not sixes" in screen
    assert "rolled by hand" in visible(pages["display"])
    assert ("Real dice: I roll and enter the faces" in screen) == (mode == DiceMode.EITHER)


def test_without_script_the_faces_are_typed_into_the_form(dice: Script) -> None:
    """The keypad's fallback: the text field, posted as a plain form (post, redirect, get)."""
    table = hand_table("sixes")
    player = logged_in(table.player)
    dice()
    url = reverse("rolls:roll-create", args=[table.campaign.pk, table.character.pk])
    response = player.post(url, roll_data(table, faces="6, 2 4"))
    assert response.status_code == 302
    assert latest().by_hand and latest().current_state()["steps"][0]["dice"] == [6, 2, 4]
    before = everything()
    again = player.post(url, roll_data(table, faces="6 2"))
    assert again.status_code == 422 and everything() == before
    assert 'value="6 2"' in again.content.decode()  # what was typed stays, to correct


def test_a_call_for_a_roll_is_answered_with_real_dice(dice: Script) -> None:
    """At a real-dice table the call's one-tap form carries a keypad for the call's pool."""
    table = hand_table("sixes")
    data = {"trait": "Body", "need": "1"}
    call = services.call_create(
        campaign=table.campaign, gm=table.gm, characters=[table.character], data=data, label="Body"
    )
    player = logged_in(table.player)
    page = player.get(
        reverse("rolls:character", args=[table.campaign.pk, table.character.pk])
    ).content.decode()
    form = page[page.index(f'id="call-{call.pk}-{table.character.pk}"') :]
    count = needed(table)
    assert f'data-need="{count}"' in form[: form.index("</form>")]
    dice()
    url = reverse("rolls:roll-create", args=[table.campaign.pk, table.character.pk])
    response = player.post(
        url, {**data, "call": call.pk, "faces": spaced([6] * count)}, HTTP_HX_REQUEST="true"
    )
    assert response.status_code == 200, visible(response)
    assert latest().by_hand and latest().call_id == call.pk
