"""Issue 43: every roll form of a character can send every legal pool its own roll form can,
in all five systems (DBL-2, DBL-3 for doubles: any number of Abilities and Weaknesses, none
included).

Each kind of pool is chosen on each form as a person would choose it (``Form.can_send``: the
page's tick boxes, selects and fields, no value the page cannot send), through the pages: the
character's own roll form, the GM's call (and the phone's answer), the GM's contest side, a
player's challenge and, in doubles, an extended action. The roll each path makes has the same
pool as the character's own roll of that choice."""

from __future__ import annotations

import html
from typing import Any

import pytest
from django.urls import reverse

from rolls import registry
from rolls.campaigns import services as campaigns
from rolls.models import Contest, ContestSide, Roll, RollCall
from rolls.tables.kinds.forms import FIELDS
from tabletop.models import Character
from tests import factories
from tests.factories import Table, logged_in
from tests.markup import Form, Page
from tests.test_console_npc import SHEETS

HX = {"HTTP_HX_REQUEST": "true"}

# Each kind of legal pool, as the values of the roll form's fields (a list: tick boxes).
POOLS: dict[str, list[dict[str, Any]]] = {
    "doubles": [
        {"abilities": [], "weaknesses": []},  # two dice: no Ability, no Weakness
        {"abilities": ["Notice"], "weaknesses": []},  # one Ability, no Weakness
        {"abilities": ["Fighting", "Athletics"], "weaknesses": ["Slow"]},  # several and one
        {"abilities": [], "weaknesses": ["Reckless", "Slow"], "penalty": "1"},  # negative dice
        {"abilities": ["Fighting", "Athletics", "Notice"], "weaknesses": [], "bonus": "2"},
        # DBL-14: Kit teams up (the call's answer adds the helper, a side chooses it).
        {"abilities": ["Notice"], "weaknesses": ["Slow"], "helpers": ["Kit"]},
    ],
    "sixes": [{"trait": "Body"}, {"trait": "Mind"}, {"trait": "skill-1"}],
    "kinds": [{"trait": "skill-0"}, {"trait": "skill-4", "other_field": FIELDS[0]}],
    "sets": [{"stat": "first"}, {"stat": "second", "bonus": "1", "penalty": "2"}],
    "stars": [{"stat": "Vigor", "skill": ""}, {"stat": "Vigor", "skill": "Melee"}],
}
CASES = [(system, index) for system, pools in POOLS.items() for index in range(len(pools))]


def _pool(table: Table, system: str, index: int) -> dict[str, Any]:
    pool = dict(POOLS[system][index])
    if "helpers" in pool:  # the helpers' ids, among the characters at the table
        helpers = Character.objects.filter(campaign=table.campaign, name__in=pool["helpers"])
        pool["helpers"] = [str(pk) for pk in helpers.values_list("pk", flat=True)]
    if system == "sets":  # the sheet's own stat names
        stats = [stat["name"] for stat in table.character.sheet["stats"]]
        pool["stat"] = stats[0] if pool["stat"] == "first" else stats[1]
    return pool


def _listed(value: Any) -> list[str]:
    return [str(each) for each in value] if isinstance(value, list) else [str(value)]


def chosen(form: Form, prefix: str, pool: dict[str, Any], **more: Any) -> dict[str, Any]:
    """What ``form`` sends with ``pool`` chosen in its fields under ``prefix`` (or unprefixed,
    a field asked once for everyone): each value must be one the page lets a person send; a
    field the form does not draw stays as it is."""
    changes: dict[str, Any] = {}
    for name, value in pool.items():
        drawn = {each for each, _ in (*form.fields, *form.boxes, *form.selects)}
        # A character's own field, or one the form asks once for everyone (the call's needs).
        key = next((each for each in (prefix + name, name) if each in drawn), None)
        if key is None:
            continue
        assert form.can_send(key, _listed(value)), f"the form cannot send {key}={value!r}"
        changes[key] = _listed(value) if isinstance(value, list) else str(value)
    return form.data(**changes, **more)


def page(client: Any, name: str, *args: Any) -> Page:
    response = client.get(reverse(name, args=args))
    assert response.status_code == 200
    return Page(html.unescape(response.content.decode()))


def request_of(roll: Roll) -> dict[str, Any]:
    return dict(roll.current_state()["request"])


def pool_size(system: str, request: dict[str, Any]) -> int:
    engine = registry.engine(system)
    return engine.pool_size(engine.parse_request(request))


@pytest.fixture
def two(request: pytest.FixtureRequest, db: None) -> tuple[Table, Character, Any]:
    """A table of the system: Olle (the player's) and Bo (a second player's), the same sheet."""
    system = request.param
    table = factories.table(system, sheet=SHEETS[system])
    second = factories.user("second")
    factories.member(table.campaign, second, name="Second")
    bo = campaigns.character_create(
        campaign=table.campaign, owner=second, name="Bo", sheet=table.character.sheet
    )
    # Kit: a third character, who may team up (doubles DBL-14).
    campaigns.character_create(campaign=table.campaign, owner=second, name="Kit", sheet=table.character.sheet)
    return table, bo, second


def own_roll(table: Table, pool: dict[str, Any]) -> dict[str, Any]:
    """The character's own roll form, as the phone draws it, with ``pool`` chosen."""
    campaign, olle = table.campaign.pk, table.character.pk
    client = logged_in(table.player)
    form = page(client, "rolls:character", campaign, olle).form(id="roll-form")
    response = client.post(reverse("rolls:roll-create", args=[campaign, olle]), chosen(form, "", pool), **HX)
    assert response.status_code == 200, response.content
    return request_of(Roll.objects.filter(character_id=olle).latest("pk"))


def check_every_form(system: str, two: tuple[Table, Character, Any], index: int) -> None:
    table, bo, second = two
    pool = _pool(table, system, index)
    olle = table.character
    campaign = table.campaign.pk
    gm = logged_in(table.gm)
    own = own_roll(table, pool)
    expected = pool_size(system, own)

    # The GM's call: Olle's own fields under c<id>-, what is needed once for everyone.
    console = page(gm, "rolls:session", campaign)
    sent = chosen(console.form(id="call-form"), f"c{olle.pk}-", pool, ask=str(olle.pk))
    response = gm.post(reverse("rolls:calls-create", args=[campaign]), sent, **HX)
    assert response.status_code == 200, response.content
    made = RollCall.objects.latest("pk")
    # What the phone's answer posts: the call's values as hidden inputs, and the call.
    answer: dict[str, Any] = {"call": str(made.pk)}
    for key, value in made.inputs(olle.pk):
        answer.setdefault(key, []).append(value)
    if "helpers" in pool:  # a call's extra: the player names who teams up when answering
        call_form = page(logged_in(table.player), "rolls:character", campaign, olle.pk).form(
            id=f"call-{made.pk}-{olle.pk}"
        )
        assert call_form.can_send("helpers", pool["helpers"])
        answer["helpers"] = pool["helpers"]
    response = logged_in(table.player).post(
        reverse("rolls:roll-create", args=[campaign, olle.pk]), answer, **HX
    )
    assert response.status_code == 200, response.content
    called = request_of(Roll.objects.get(call=made))
    assert called == own, "the call's roll is not the roll of the character's own form"

    # The GM's contest: Olle's side chosen with its own fields under s<id>-.
    contest_form = next((form for form in console.forms if form.attrs.get("id") == "contest-form"), None)
    if contest_form is not None:
        names = {name for name, _ in contest_form.fields}
        sides = (
            {"sides": [str(olle.pk), str(bo.pk)]}
            if any(name == "sides" for name, _ in contest_form.boxes)
            else {"first": str(olle.pk), "second": str(bo.pk)}
        )
        kind = {"kind": contest_form.value("kind")} if "kind" in names else {}
        sent = chosen(contest_form, f"s{olle.pk}-", pool, **sides, **kind)
        response = gm.post(reverse("rolls:contest-create", args=[campaign]), sent, **HX)
        assert response.status_code == 200, response.content
        side = ContestSide.objects.filter(character=olle).latest("pk")
        check_side(table, side, expected, own)

    # A player's challenge from the roll screen, Olle against Bo.
    phone = page(logged_in(table.player), "rolls:character", campaign, olle.pk)
    challenge = next((form for form in phone.forms if form.attrs.get("id") == "challenge-form"), None)
    if challenge is not None:
        sent = chosen(challenge, f"s{olle.pk}-", pool, opponent=str(bo.pk))
        response = logged_in(table.player).post(
            reverse("rolls:challenge-create", args=[campaign, olle.pk]), sent, **HX
        )
        assert response.status_code == 200, response.content
        contest = Contest.objects.latest("pk")
        answer_url = reverse("rolls:contest-answer", args=[campaign, contest.pk])
        # Bo's player accepts with the roll the answer form starts with.
        bo_phone = page(logged_in(second), "rolls:character", campaign, bo.pk)
        accept = next(form for form in bo_phone.forms if form.action == answer_url)
        response = logged_in(second).post(answer_url, accept.data(accept="yes"), **HX)
        assert response.status_code == 200, response.content
        check_side(table, contest.sides.get(character=olle), expected, own)


def check_side(table: Table, side: ContestSide, expected: int, own: dict[str, Any]) -> None:
    """Olle rolls his side: its roll has the pool of his own roll of the same choice."""
    campaign = table.campaign.pk
    if side.roll_id is None:
        url = reverse("rolls:contest-roll", args=[campaign, side.contest_id, side.pk])
        response = logged_in(table.player).post(url, {}, **HX)
        assert response.status_code == 200, response.content
        side.refresh_from_db()
    assert side.roll is not None
    rolled = request_of(side.roll)
    assert pool_size(table.campaign.system, rolled) == expected
    if table.campaign.system == "doubles":
        for key in ("abilities", "weaknesses", "bonus", "penalty"):
            assert rolled[key] == own[key], key


@pytest.mark.parametrize("index", range(len(POOLS["sixes"])))
@pytest.mark.parametrize("two", ["sixes"], indirect=True)
def test_sixes_every_form_sends_each_legal_pool(two: tuple[Table, Character, Any], index: int) -> None:
    check_every_form("sixes", two, index)


@pytest.mark.parametrize("index", range(len(POOLS["kinds"])))
@pytest.mark.parametrize("two", ["kinds"], indirect=True)
def test_kinds_every_form_sends_each_legal_pool(two: tuple[Table, Character, Any], index: int) -> None:
    check_every_form("kinds", two, index)


@pytest.mark.parametrize("index", range(len(POOLS["sets"])))
@pytest.mark.parametrize("two", ["sets"], indirect=True)
def test_sets_every_form_sends_each_legal_pool(two: tuple[Table, Character, Any], index: int) -> None:
    check_every_form("sets", two, index)


@pytest.mark.parametrize("index", range(len(POOLS["stars"])))
@pytest.mark.parametrize("two", ["stars"], indirect=True)
def test_stars_every_form_sends_each_legal_pool(two: tuple[Table, Character, Any], index: int) -> None:
    check_every_form("stars", two, index)


@pytest.mark.parametrize("index", range(len(POOLS["doubles"])))
@pytest.mark.parametrize("two", ["doubles"], indirect=True)
def test_dbl_2_dbl_3_every_doubles_form_sends_any_abilities_and_weaknesses_none_included(
    two: tuple[Table, Character, Any], index: int
) -> None:
    """DBL-2, DBL-3: own roll, call, contest side, challenge and extended action each send
    any set of Abilities and Weaknesses, none included, and roll the pool the own form rolls."""
    check_every_form("doubles", two, index)
    table, _, _ = two
    pool = _pool(table, "doubles", index)
    own = request_of(Roll.objects.filter(character=table.character).earliest("pk"))  # the own form's
    campaign = table.campaign.pk
    gm = logged_in(table.gm)
    made = gm.post(
        reverse("rolls:extended-create", args=[campaign]),
        {"dn": "6", "successes": "3", "failures": "3", "intent": "Climb"},
        **HX,
    )
    assert made.status_code == 200
    contest = Contest.objects.get(kind=Contest.Kind.EXTENDED)
    url = reverse("rolls:extended-roll", args=[campaign, contest.pk, table.character.pk])
    phone = page(logged_in(table.player), "rolls:character", campaign, table.character.pk)
    form = phone.form(action=url)
    response = logged_in(table.player).post(url, chosen(form, f"s{table.character.pk}-", pool), **HX)
    assert response.status_code == 200, response.content
    rolled = request_of(contest.sides.get().roll)  # type: ignore[union-attr]
    assert rolled == {**own, "dn": 6}


def test_dbl_2_mira_called_for_notice_rolls_the_notice_pool_not_notice_and_a_weakness(db: None) -> None:
    """DBL-2, DBL-3, the issue's own case: a call for Notice alone at Challenging (6) gives the
    dice and the odds of her own roll form (3 dice), not Notice less her first Weakness."""
    from tests.test_table_doubles import doubles_sheet

    table = factories.table("doubles", character_name="Mira", sheet=doubles_sheet())
    console = page(logged_in(table.gm), "rolls:session", table.campaign.pk)
    mira = table.character.pk
    sent = chosen(console.form(id="call-form"), f"c{mira}-", {"abilities": ["Notice"], "weaknesses": []})
    sent = {**sent, "ask": str(mira), "dn": "6"}
    response = logged_in(table.gm).post(reverse("rolls:calls-create", args=[table.campaign.pk]), sent, **HX)
    assert response.status_code == 200
    assert RollCall.objects.get().label_for(mira) == "Notice"


@pytest.mark.parametrize("two", ["doubles"], indirect=True)
def test_dbl_14_a_side_cannot_be_helped_by_its_opponent_nor_one_helper_help_both(
    two: tuple[Table, Character, Any],
) -> None:
    """DBL-14 in a contest, our reading: Bo opposes Olle and cannot team up with him; Kit helps
    one side, not both. Refused with a message, and nothing is opened."""
    table, bo, _ = two
    olle = table.character
    kit = Character.objects.get(campaign=table.campaign, name="Kit")
    url = reverse("rolls:contest-create", args=[table.campaign.pk])
    gm = logged_in(table.gm)
    sides = {"first": str(olle.pk), "second": str(bo.pk)}
    opposed = gm.post(url, {**sides, f"s{olle.pk}-helpers": str(bo.pk)}, **HX)
    assert opposed.status_code == 422
    assert "Bo takes part in this contest and cannot help a side." in html.unescape(opposed.content.decode())
    both = gm.post(url, {**sides, f"s{olle.pk}-helpers": str(kit.pk), f"s{bo.pk}-helpers": str(kit.pk)}, **HX)
    assert both.status_code == 422
    assert "helps one side of a contest, not both" in html.unescape(both.content.decode())
    assert not Contest.objects.exists()


def test_a_compacted_optional_single_choice_keeps_none_and_a_required_one_stays_as_it_was() -> None:
    """Issue 43, in every system: a single choice drawn as radios becomes a select; when the
    choice is optional the select starts with a blank "None", so not choosing stays possible;
    a field of several choices keeps its tick boxes."""
    from django import forms

    from rolls.tables.forms import RollFormBase

    class Form(RollFormBase):
        edge = forms.ChoiceField(choices=[("a", "A"), ("b", "B")], required=False, widget=forms.RadioSelect)
        stat = forms.ChoiceField(choices=[("a", "A"), ("b", "B")], widget=forms.RadioSelect)
        traits = forms.MultipleChoiceField(
            choices=[("a", "A")], required=False, widget=forms.CheckboxSelectMultiple
        )

    form = Form(character=None).compacted()  # type: ignore[arg-type]
    sent = Page(f"<form>{form['edge']}{form['stat']}{form['traits']}</form>").forms[0]
    assert sent.can_send("edge", []) and sent.can_send("edge", ["b"])
    assert not sent.can_send("stat", []) and sent.can_send("stat", ["b"])
    assert sent.can_send("traits", []) and sent.can_send("traits", ["a"])
