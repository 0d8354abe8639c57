"""A card's body (header, dice, verdict) is drawn once per entry and process, and every place
that draws the entry (the table's feed, the roller's result panel) shows that same body
around its own id, buttons and time. Its follow-up forms are drawn once per shape (the same
buttons at the same place, and the dice where the forms show them), the roll's ids filled in
per card: each is what drawing them afresh gives."""

from __future__ import annotations

import dataclasses

import pytest
from django.template.loader import render_to_string
from pytest_django.fixtures import Settings

from rolls.models import Roll
from rolls.play import services
from rolls.sight import cards
from rolls.sight.cards import Card, FollowUpButton, build_card, latest_card
from rolls.sight.kept import Kept
from tabletop.models import Membership
from tests import factories
from tests.factories import ScriptedDice, Table
from tests.test_table_sets import sets_sheet


@pytest.fixture(autouse=True)
def _sharing(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests are of the kept bodies and forms, a piece of the fast path: on, whatever
    FAST_PATH says, and nothing kept from the tests before (forms are kept by shape)."""
    settings.FAST_PATH = {**settings.FAST_PATH, "shared_markup": True}
    monkeypatch.setattr(cards, "_forms", Kept(cards.FORMS))


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

    assert counted == ["rolls/_card.html#body", "rolls/_card.html#follow-ups"]
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


def _afresh(card: Card) -> str:
    """The card's follow-up forms drawn from the card itself, nothing kept."""
    return render_to_string("rolls/_card.html#follow-ups", {"card": card})


def test_rolls_that_offer_the_same_buttons_draw_their_forms_once_each_with_its_own_ids(
    table: Table, counted: list[str]
) -> None:
    """SIX-10, SIX-14: a push and Luck, both offered on the card, on two rolls of the same
    pool with other dice."""
    player = Membership.objects.get(campaign=table.campaign, user=table.player)
    # Each card as its roller's answer draws it: the character's latest roll.
    cards_drawn = [
        latest_card(_roll(table, *faces), place="result", membership=player, latest=True)
        for faces in ((2, 2), (3, 4))
    ]
    first = cards_drawn[0].roll
    assert [b.action for b in cards_drawn[0].follow_ups] == [b.action for b in cards_drawn[1].follow_ups]
    assert {"push", "luck"} <= {b.action for b in cards_drawn[0].follow_ups}

    forms = [card.follow_ups_markup for card in cards_drawn]

    assert counted.count("rolls/_card.html#follow-ups") == 1
    for card, markup in zip(cards_drawn, forms, strict=True):
        assert markup == _afresh(card)
        assert f'hx-target="#result-roll-{card.roll.pk}"' in markup
        assert f"/rolls/{card.roll.pk}/" in markup and "\x00" not in markup
    assert forms[0] != forms[1]
    # Another place is another shape: the GM's panel draws its own.
    gm = Membership.objects.get(campaign=table.campaign, user=table.gm)
    at_gm = latest_card(first, place="gm", membership=gm)
    if at_gm.follow_ups:
        assert at_gm.follow_ups_markup == _afresh(at_gm)
        assert f'hx-target="#gm-roll-{first.pk}"' in at_gm.follow_ups_markup


def test_forms_that_show_the_dice_are_kept_with_them(db: None, counted: list[str]) -> None:
    """SET-3, SET-6: a sets bid names the dice of each set, every set together first: two
    rolls with the same buttons but other faces draw their own bids."""
    sets = factories.table("sets", character_name="Wilcott", sheet=sets_sheet())
    player = Membership.objects.get(campaign=sets.campaign, user=sets.player)

    def sets_roll(*faces: int) -> Roll:
        return services.roll_create(
            character=sets.character,
            roller=sets.player,
            data={"stat": "Insight", "bar": 2, "face": 3},
            helper=None,
            intent="",
            rng=ScriptedDice(*faces, then=1),
        )

    drawn = [
        latest_card(sets_roll(*faces), place="result", membership=player)
        for faces in ((4, 4, 2, 1), (1, 5, 5, 2), (4, 4, 2, 1))
    ]
    assert all(any(b.action == "bid" for b in card.follow_ups) for card in drawn)
    forms = [card.follow_ups_markup for card in drawn]

    for card, markup in zip(drawn, forms, strict=True):
        assert markup == _afresh(card)
    assert 'name="dice" value="0"' in forms[0] and 'name="dice" value="0"' not in forms[1]
    # The third roll's dice are the first's: its forms were kept, with its own ids.
    assert counted.count("rolls/_card.html#follow-ups") == 2


def test_a_forms_shape_names_every_field_of_a_button() -> None:
    """A field added to FollowUpButton shows on its form: the shape must name it, or two
    buttons that differ by it would share their forms (cards._button_key)."""
    named = {"follow_up", "odds", "dice", "per_choice", "choice_param", "hint"}
    assert {f.name for f in dataclasses.fields(FollowUpButton)} == named


def test_without_the_fast_path_every_card_draws_its_forms(
    table: Table, counted: list[str], settings: Settings
) -> None:
    settings.FAST_PATH = {**settings.FAST_PATH, "shared_markup": False}
    player = Membership.objects.get(campaign=table.campaign, user=table.player)
    for faces in ((6, 2), (6, 2)):
        card = latest_card(_roll(table, *faces), place="result", membership=player)
        assert card.follow_ups_markup == _afresh(card)
    assert counted.count("rolls/_card.html#follow-ups") == 2


def _whole(card: Card) -> str:
    """The card drawn whole from the card itself, nothing kept."""
    return render_to_string("rolls/_card.html", {"card": card})


def test_one_frame_per_entry_draws_every_place_as_the_whole_template_does(
    table: Table, counted: list[str]
) -> None:
    roll = _roll(table, 6, 2)
    player = Membership.objects.get(campaign=table.campaign, user=table.player)
    gm = Membership.objects.get(campaign=table.campaign, user=table.gm)
    drawn = [
        latest_card(roll, place="feed"),
        latest_card(roll, place="result", membership=player),
        latest_card(roll, place="gm", membership=gm),
        latest_card(roll, place="history"),
    ]
    markups = [card.markup for card in drawn]

    assert counted.count("rolls/_card.html") == 1  # the frame, once for the four places
    assert drawn[1].follow_ups and not drawn[0].follow_ups
    for card, markup in zip(drawn, markups, strict=True):
        assert markup == _whole(card)
        assert f'id="{card.place}-roll-{roll.pk}"' in markup and "\x00" not in markup


def test_a_frame_fills_in_no_stand_in_that_a_card_shows_as_text(table: Table) -> None:
    """The words a card shows are drawn escaped, so the frame's stand-ins cannot be spelled in
    them (PostgreSQL stores no NUL at all; the roll is changed in memory only)."""
    roll = _roll(table, 6)
    roll.intent = "<\x00place> and <\x00forms>"
    card = latest_card(roll, place="feed")

    assert card.markup == _whole(card)
    assert "&lt;\x00place&gt; and &lt;\x00forms&gt;" in card.markup


def test_a_hidden_card_and_a_refused_one_draw_as_the_template_does(table: Table) -> None:
    roll = _roll(table, 6, 6, blind=True)
    gm = Membership.objects.get(campaign=table.campaign, user=table.gm)
    for card in (latest_card(roll, place="feed"), latest_card(roll, place="gm", membership=gm)):
        assert card.markup == _whole(card)
    refused = latest_card(roll, place="gm", membership=gm)
    refused.refusal = "Not now."
    assert refused.markup == _whole(refused) and "Not now." in refused.markup


def test_a_cards_links_are_what_reverse_gives_under_any_script_prefix(table: Table) -> None:
    from django.urls import reverse, set_script_prefix

    roll = _roll(table, 6, 2)
    player = Membership.objects.get(campaign=table.campaign, user=table.player)
    ids = [table.campaign.pk, roll.pk]
    try:
        for prefix in ("/", "/tabletop/"):
            set_script_prefix(prefix)
            card = latest_card(roll, place="result", membership=player)
            assert card.follow_up_url == reverse("rolls:follow-up", args=ids)
            assert card.page_url == reverse("rolls:roll", args=ids)
            assert card.page_url.startswith(prefix)
    finally:
        set_script_prefix("/")


def test_a_card_with_the_pages_form_field_is_not_drawn_without_its_request(table: Table) -> None:
    card = latest_card(_roll(table, 6, 2), place="result", membership=table.player.memberships.get())
    card.form_token = True
    with pytest.raises(ValueError, match="with the request"):
        _ = card.markup
