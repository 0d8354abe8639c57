"""The GM's quick roll for someone without a sheet, on the console: real widgets from each
system's command-line flags, the engine's exact odds as the form changes (GM only), and no
value the GM may type answers 500."""

from __future__ import annotations

import html
from typing import Any

import pytest
from django.template.loader import render_to_string
from django.urls import reverse

from rolls import registry
from rolls.models import LogEntry, Roll
from rolls.play.npc import NpcRollForm
from rolls.sight.cards import build_card, latest_card
from rolls.systems.base import percent
from tests import factories
from tests.factories import Script, Table, logged_in, npc_baseline
from tests.test_table_doubles import doubles_sheet
from tests.test_table_kinds import kinds_sheet
from tests.test_table_sets import sets_sheet
from tests.test_table_stars import stars_sheet

SHEETS = {
    "sixes": None,
    "kinds": kinds_sheet(),
    "doubles": doubles_sheet(),
    "sets": sets_sheet(),
    "stars": stars_sheet(),
}


def table_of(system: str) -> Table:
    return factories.table(system, sheet=SHEETS[system])


def page_of(table: Table) -> str:
    response = logged_in(table.gm).get(reverse("rolls:session", args=[table.campaign.pk]))
    assert response.status_code == 200
    return html.unescape(response.content.decode())


def npc_odds(table: Table, data: dict[str, Any], user: Any = None) -> Any:
    return logged_in(user or table.gm).get(reverse("rolls:npc-odds", args=[table.campaign.pk]), data)


def npc_roll(table: Table, data: dict[str, Any]) -> Any:
    return logged_in(table.gm).post(
        reverse("rolls:npc-roll", args=[table.campaign.pk]), data, HTTP_HX_REQUEST="true"
    )


# -- the widgets ----------------------------------------------------------------------------------


def test_sixes_dice_and_need_are_number_inputs_with_the_rules_bounds(db: None) -> None:
    page = page_of(table_of("sixes"))
    assert 'type="number" name="flag_dice"' in page and 'min="1" max="13"' in page
    assert 'name="flag_need"' in page and 'min="1" max="3"' in page
    assert "pool size, 1-13" in page  # the flag's help under its field


def test_kinds_offers_the_challenge_level_as_a_select(db: None) -> None:
    page = page_of(table_of("kinds"))
    assert '<select name="flag_level"' in page
    for label in ("No Challenge level", "Basic", "Critical", "Extreme", "Impossible"):
        assert f">{label}</option>" in page
    assert 'type="checkbox" name="flag_danger"' in page


def test_doubles_offers_the_difficulty_number_as_a_select(db: None) -> None:
    page = page_of(table_of("doubles"))
    assert '<select name="flag_dn"' in page
    assert '<option value="8">Difficult (8)</option>' in page
    assert 'name="flag_bonus"' in page and 'min="0" max="10"' in page
    assert 'type="checkbox" name="flag_degree_matters"' in page


def test_sets_offers_the_bar_as_a_size_and_a_face(db: None) -> None:
    page = page_of(table_of("sets"))
    assert '<select name="flag_bar_0"' in page and '<select name="flag_bar_1"' in page
    assert '<option value="journeyman">Journeyman (Size 3)</option>' in page
    assert '<option value="rolled">Rolled</option>' in page


def test_stars_offers_training_as_a_select_and_advantage_as_a_checkbox(db: None) -> None:
    page = page_of(table_of("stars"))
    assert '<select name="flag_training"' in page and '<option value="adept">Adept</option>' in page
    assert 'name="flag_difficulty"' in page and 'min="2" max="6"' in page
    assert 'type="checkbox" name="flag_advantage"' in page


def test_two_forms_share_the_systems_flags_but_not_their_fields(db: None) -> None:
    """The flags are read from the system once per process; each form still gets fields of
    its own, so one request's cleaning or choices never show in another's."""
    table = table_of("sets")
    first, second = NpcRollForm(campaign=table.campaign), NpcRollForm(campaign=table.campaign)
    assert first.flag_names == second.flag_names
    for name in first.flag_names:
        assert first.fields[name] is not second.fields[name]
    first.fields["flag_bar_0"].choices = [("", "None")]
    assert len(second.fields["flag_bar_0"].choices) > 1


# -- the odds -------------------------------------------------------------------------------------


@pytest.mark.parametrize("system", SHEETS)
def test_the_npc_odds_are_the_engines_own(db: None, system: str) -> None:
    table = table_of(system)
    data = npc_baseline(table.campaign)
    response = npc_odds(table, data)
    assert response.status_code == 200
    form = NpcRollForm(factories.posted(data), campaign=table.campaign)
    assert form.is_valid()
    engine = registry.engine(system)
    request = form.engine_request()
    chance = engine.chance(request)
    if chance is not None:
        assert f"<b>{percent(chance)}</b>" in response.content.decode()


def test_the_npc_odds_follow_the_form_sixes(db: None) -> None:
    table = table_of("sixes")
    base = npc_baseline(table.campaign)
    engine = registry.engine("sixes")
    for dice, need in ((2, 1), (6, 2), (10, 3)):
        response = npc_odds(table, {**base, "flag_dice": dice, "flag_need": need})
        expected = percent(engine.chance(engine.parse_request({"dice": dice, "need": need})))
        assert f"<b>{expected}</b>" in response.content.decode()


def test_the_npc_odds_say_what_is_wrong(db: None) -> None:
    table = table_of("sixes")
    response = npc_odds(table, {**npc_baseline(table.campaign), "flag_dice": 40})
    assert response.status_code == 200
    assert "Dice: Ensure this value is less than or equal to 13." in html.unescape(response.content.decode())


def test_only_the_gm_sees_the_npc_odds(db: None) -> None:
    table = table_of("sixes")
    assert npc_odds(table, npc_baseline(table.campaign), user=table.player).status_code == 403
    assert npc_odds(table, npc_baseline(table.campaign), user=table.outsider).status_code == 404


# -- refusals -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "bar, message",
    [
        (("journeyman", ""), "The Bar is a Size and a Face"),
        (("3", "4"), "Bar: Size: Select a valid choice. 3 is not one of the available choices."),
        (("", "4"), "The Bar is a Size and a Face"),
        (("grandmaster", "4"), "Select a valid choice"),
    ],
)
def test_sets_a_bar_without_its_face_is_refused_clearly(db: None, bar: tuple[str, str], message: str) -> None:
    table = table_of("sets")
    before = (Roll.objects.count(), LogEntry.objects.count())
    data = {**npc_baseline(table.campaign), "flag_bar_0": bar[0], "flag_bar_1": bar[1]}
    response = npc_roll(table, data)
    assert response.status_code == 422
    assert message in html.unescape(response.content.decode())
    assert (Roll.objects.count(), LogEntry.objects.count()) == before


def test_sets_a_bar_with_its_size_and_face_rolls(db: None) -> None:
    table = table_of("sets")
    data = {**npc_baseline(table.campaign), "flag_bar_0": "journeyman", "flag_bar_1": "rolled"}
    assert npc_roll(table, data).status_code == 200
    assert Roll.objects.filter(npc=True).count() == 1


def test_a_roll_against_a_character_takes_only_one_of_this_tables(db: None) -> None:
    """The target is looked up among the campaign's characters: one of another table, a
    number no character has and a value that is no number are each refused as a choice that
    does not exist, and write nothing; this table's character is taken."""
    table = table_of("sixes")
    elsewhere = factories.campaign(table.outsider, name="Another table")
    other = factories.character(elsewhere, table.outsider, name="Stranger")
    before = (Roll.objects.count(), LogEntry.objects.count())
    for value in (str(other.pk), "999999", "2**63", "x1", str(2**63)):
        response = npc_roll(table, {**npc_baseline(table.campaign), "target": value})
        assert response.status_code == 422, value
        assert "Select a valid choice" in html.unescape(response.content.decode()), value
        assert (Roll.objects.count(), LogEntry.objects.count()) == before, value
    response = npc_roll(table, {**npc_baseline(table.campaign), "target": f" {table.character.pk} "})
    assert response.status_code == 200
    assert Roll.objects.get(npc=True).target == table.character


# -- where the answer goes ----------------------------------------------------------------------


@pytest.mark.parametrize("system", SHEETS)
def test_the_answer_goes_on_the_waiting_panel_only_when_something_is_left_to_do(
    db: None, system: str, dice: Script
) -> None:
    """The console puts the answer on top of the panel of rolls waiting for the GM (hx-target
    #gm-panel): only a roll with follow-ups left waits there. One without any is on the feed
    (the socket's), and the answer tells htmx to swap nothing, so the panel looks the same
    whichever of the answer and the socket's panel comes first. sets: the pair waits with its
    bid (SET-4); sixes: an NPC has no sheet to push or spend Luck from (SIX-10)."""
    dice(5, 5, 2, then=3)
    table = table_of(system)
    response = npc_roll(table, {**npc_baseline(table.campaign), "name": "The warden"})
    assert response.status_code == 200
    answer = response.content.decode()
    roll = Roll.objects.get(npc=True)
    assert f'id="gm-roll-{roll.pk}"' in answer  # the card, for whoever asked, either way
    waits = 'class="follow-ups"' in answer
    assert response.get("HX-Reswap") == (None if waits else "none")
    if system == "sets":
        assert waits
    if system in ("sixes", "kinds"):
        assert not waits


@pytest.mark.parametrize("secret", ["", "on"])
@pytest.mark.parametrize("system", ["sets", "sixes"])
def test_the_answer_is_the_card_as_its_template_draws_it_with_no_form_field(
    db: None, system: str, secret: str, dice: Script
) -> None:
    """The answer is the GM's card from the drawing kept per entry and view (its frame and its
    follow-up forms), the same markup ``rolls/_card.html`` gives that card, and no CSRF
    field: htmx sends the page's token as a header. A secret roll's answer is the GM's view,
    with the dice, not the table's hidden card drawn as the entry was published."""
    dice(5, 5, 2, then=3)
    table = table_of(system)
    response = npc_roll(table, {**npc_baseline(table.campaign), "name": "The warden", "secret": secret})
    assert response.status_code == 200
    answer = response.content.decode()
    roll = Roll.objects.get(npc=True)
    membership = table.campaign.memberships.get(user=table.gm)
    card = latest_card(roll, place="gm", membership=membership)
    assert bool(card.follow_ups) == (system == "sets")  # sets: the pair waits with its bid
    assert answer == render_to_string("rolls/_card.html", {"card": card})
    assert "csrfmiddlewaretoken" not in answer
    assert 'class="dice"' in answer and "hidden-roll" not in answer
    assert ("The GM rolled in secret" in shared_card(table, roll)) == bool(secret)


def shared_card(table: Table, roll: Roll) -> str:
    """The roll's card as the table's feed draws it (what every other socket gets)."""
    entry = roll.entries.get(kind=LogEntry.Kind.ROLL)
    return render_to_string(
        "rolls/_card.html", {"card": build_card(roll, entry.state or {}, entry.seq, place="feed")}
    )


BAD = [
    "",
    " ",
    "-1",
    "0",
    "999999999999999999999999",
    "abc",
    "3.5",
    "1e3",
    "\x00",
    "٣",
    "none",
    "[]",
    "journeyman",
]


@pytest.mark.parametrize("system", SHEETS)
def test_no_bad_value_in_any_npc_field_answers_500(db: None, system: str, settings: Any) -> None:
    """Every field of the GM's quick roll, one at a time, with each bad value, posted and
    asked for odds: a refusal or a roll, never an error page; a refusal writes nothing."""
    # Hundreds of posts in a second: past the GM's rate limit, which is not what this asks.
    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "rolls:npc-roll": (10**6, 60)}
    table = table_of(system)
    base = npc_baseline(table.campaign)
    names = list(NpcRollForm(campaign=table.campaign).fields)
    for name in names:
        for value in BAD:
            data = {**base, name: value}
            odds = npc_odds(table, data)
            assert odds.status_code == 200, (name, value)
            before = (Roll.objects.count(), LogEntry.objects.count())
            response = npc_roll(table, data)
            assert response.status_code in (200, 422), (name, value, response.status_code)
            if response.status_code == 422:
                assert (Roll.objects.count(), LogEntry.objects.count()) == before, (name, value)
                assert response.content.strip(), (name, value)


@pytest.mark.parametrize("system", SHEETS)
def test_the_npc_odds_of_a_form_not_filled_in_yet_show_no_error(db: None, system: str) -> None:
    """The panel opens with its form as the page drew it (the dice left empty): no "This field
    is required" before the GM has typed anything."""
    table = table_of(system)
    unfilled = {name: "" for name in NpcRollForm(campaign=table.campaign).fields} | {"name": "GM"}
    response = npc_odds(table, unfilled)
    assert response.status_code == 200
    assert "required" not in response.content.decode()


def test_the_npc_odds_still_say_what_is_wrong_beside_an_empty_field(db: None) -> None:
    table = table_of("sixes")
    response = npc_odds(table, {"name": "", "flag_dice": 40})
    assert "Dice: Ensure this value is less than or equal to 13." in html.unescape(response.content.decode())


def test_six_6_six_10_the_npc_odds_show_no_push_or_luck_without_a_sheet(db: None) -> None:
    """SIX-6, SIX-10: a push checks a Condition and Luck spends a point; someone the GM rolls
    without a sheet has neither, so the quick roll's odds show the plain chance alone."""
    table = table_of("sixes")
    response = npc_odds(table, {**npc_baseline(table.campaign), "flag_dice": 4, "flag_need": 1})
    shown = response.content.decode()
    assert "<b>52%</b>" in shown
    assert "push" not in shown.lower() and "luck" not in shown.lower()


def test_dbl_10_the_npc_odds_show_no_drama_dice_without_endurance(db: None) -> None:
    """DBL-10: drama dice cost Endurance, which someone without a sheet does not have."""
    table = table_of("doubles")
    response = npc_odds(table, {**npc_baseline(table.campaign), "flag_dice": 5, "flag_dn": "6"})
    shown = response.content.decode()
    assert "<b>57%</b>" in shown and "drama" not in shown.lower()
