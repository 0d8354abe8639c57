"""Who gets an entry rendered for them, and who the shared markup (rolls.feed.Audience): the
one rule both the database path and the shared path of the sockets follow."""

from __future__ import annotations

from dataclasses import asdict

import pytest

from rolls.feed import Audience, Shared
from tabletop.models import Membership

GM, ROLLER, TARGET, OTHER = 1, 2, 3, 4
CHARACTER, ANOTHER = 20, 21  # the roll's character, and another one


def member(user_id: int) -> Membership:
    return Membership(user_id=user_id, is_gm=user_id == GM)


def own_cards(audience: Audience, result_for: int | None = None) -> set[int]:
    """Who gets their own card, each on a page with ``result_for``'s result panel (or none)."""
    users = (GM, ROLLER, TARGET, OTHER)
    return {user for user in users if audience.own_card(member(user), result_for)}


def personal(audience: Audience, result_for: int | None = None) -> set[int]:
    users = (GM, ROLLER, TARGET, OTHER)
    return {user for user in users if audience.personal_for(member(user), result_for)}


def test_a_plain_roll_is_the_same_for_everyone() -> None:
    plain = Audience(roll=True, owner_id=ROLLER)
    assert own_cards(plain) == set()
    assert personal(plain) == set()


def test_a_hidden_roll_is_the_gms_own() -> None:
    assert own_cards(Audience(roll=True, hidden=True, owner_id=ROLLER)) == {GM}


def test_an_npc_roll_or_an_answer_to_a_call_touches_the_gms_panels_only() -> None:
    touched = Audience(roll=True, gm_panels=True, owner_id=ROLLER)
    assert own_cards(touched) == set()
    assert personal(touched) == {GM}


def test_a_roll_against_a_character_touches_its_players_panel() -> None:
    against = Audience(roll=True, gm_panels=True, target_owner_id=TARGET)
    assert own_cards(against) == set()
    assert personal(against) == {GM, TARGET}


def test_a_follow_up_replaces_the_result_card_on_its_characters_roll_screen() -> None:
    follow_up = Audience(
        roll=True, follow_up=True, owner_id=ROLLER, target_owner_id=TARGET, character_id=CHARACTER
    )
    # On that character's roll screen, whoever may act on the roll gets the result card.
    assert own_cards(follow_up, CHARACTER) == {GM, ROLLER}
    assert personal(follow_up, CHARACTER) == {GM, ROLLER, TARGET}
    # Any other page holds no result card of it: the shared card will do. The GM's waiting
    # panel (a miracle asked) and the panel of rolls made against a player are still theirs.
    assert own_cards(follow_up) == own_cards(follow_up, ANOTHER) == set()
    assert personal(follow_up) == personal(follow_up, ANOTHER) == {GM, TARGET}


def test_a_hidden_follow_up_is_the_gms_own_on_every_page() -> None:
    hidden = Audience(roll=True, follow_up=True, hidden=True, owner_id=ROLLER, character_id=CHARACTER)
    assert own_cards(hidden) == {GM}
    assert own_cards(hidden, CHARACTER) == {GM, ROLLER}


@pytest.mark.parametrize(
    "audience",
    [Audience(roll=False), Audience(roll=True, follow_up=True, owner_id=2, character_id=CHARACTER)],
)
def test_shared_markup_survives_the_trip_through_a_broadcast(audience: Audience) -> None:
    shared = Shared(html="<li>card</li>", tail='<span id="last-seq"></span>', audience=audience)
    assert Shared.from_data(asdict(shared)) == shared
