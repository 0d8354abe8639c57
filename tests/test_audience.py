"""Who sees what of an entry (rolls.sight.audience): the one rule that the pages, the socket's
database path and its shared path all follow. Plain facts in, no database."""

from __future__ import annotations

from dataclasses import asdict

import pytest

from rolls.live.feed import Shared
from rolls.sight.audience import (
    ALL_WAITS,
    TABLE,
    Facts,
    GmPanel,
    Panel,
    Sight,
    Viewer,
    Waits,
    delivery,
    sight,
)

GM, ROLLER, TARGET, OTHER = 1, 2, 3, 4
CHARACTER, TARGETED, ANOTHER = 20, 21, 22  # the roll's character, the one it is made against, another

VIEWERS = {GM: Viewer(GM, is_gm=True), ROLLER: Viewer(ROLLER), TARGET: Viewer(TARGET), OTHER: Viewer(OTHER)}


def own_cards(facts: Facts, result_for: int | None = None) -> set[int]:
    """Who gets their own card, each on a page with ``result_for``'s result panel (or none)."""
    sent = {user: delivery(facts, viewer, result_for) for user, viewer in VIEWERS.items()}
    return {user for user, each in sent.items() if each.own_card or each.result_card}


def personal(facts: Facts, result_for: int | None = None) -> set[int]:
    return {user for user, viewer in VIEWERS.items() if delivery(facts, viewer, result_for).personal}


def roll(**facts: object) -> Facts:
    return Facts(action="roll", roll=True, **facts)  # type: ignore[arg-type]


def test_a_plain_roll_is_the_same_for_everyone() -> None:
    plain = roll(owner_id=ROLLER, character_id=CHARACTER)
    assert own_cards(plain) == set()
    assert personal(plain) == {GM}  # it may push a waiting roll off the GM's panel
    assert delivery(plain, Viewer(GM, is_gm=True, waits=Waits.NOTHING)) == delivery(plain, TABLE)
    assert delivery(plain, TABLE) == delivery(plain, VIEWERS[OTHER])


# -- the GM's waiting panel: redrawn only by what can change it in the campaign's system ------------

NOTHING_WAITS = Viewer(GM, is_gm=True, waits=Waits.NOTHING)  # sixes, kinds
SETS = Viewer(GM, is_gm=True, waits=Waits.NPC | Waits.BLIND)
DOUBLES = Viewer(GM, is_gm=True, waits=Waits.DECISIONS | Waits.SHEETS)
STARS = Viewer(GM, is_gm=True, waits=Waits.AGAINST | Waits.SHEETS)


def redraws(facts: Facts, viewer: Viewer) -> bool:
    return bool(delivery(facts, viewer).panels & Panel.GM_WAITING)


def test_where_nothing_waits_for_the_gm_nothing_redraws_their_panel() -> None:
    for facts in (
        roll(npc=True),
        roll(npc=True, hidden=True, target_id=TARGETED, target_owner_id=TARGET),
        roll(hidden=True, blind=True, owner_id=ROLLER, character_id=CHARACTER),
        roll(follow_up=True, owner_id=ROLLER, character_id=CHARACTER),
        Facts(action="roll-void", roll=True, npc=True),
        Facts(action="session-end"),
        Facts(action="gm-correction"),
    ):
        assert not redraws(facts, NOTHING_WAITS), facts


def test_where_rolls_wait_every_new_roll_may_push_one_off_the_panel() -> None:
    plain = roll(owner_id=ROLLER, character_id=CHARACTER)
    assert all(redraws(plain, viewer) for viewer in (SETS, DOUBLES, STARS, VIEWERS[GM]))


def test_a_new_roll_leaves_the_panel_as_drawn_while_it_has_room_unless_it_can_wait_there() -> None:
    """A socket knows how many new rolls the GM's panel it drew takes before one pushes a
    roll it shows out of its window: it passes over a player's open roll while there is room.
    The GM's own and blind rolls can wait there themselves."""
    plain = roll(owner_id=ROLLER, character_id=CHARACTER)
    for viewer in (SETS, DOUBLES, STARS, VIEWERS[GM]):
        roomy = Viewer(GM, is_gm=True, waits=viewer.waits, gm_panel=GmPanel(room=2))
        assert not redraws(plain, roomy)
        assert delivery(plain, roomy) == delivery(plain, TABLE)  # the shared markup alone
        assert redraws(plain, Viewer(GM, is_gm=True, waits=viewer.waits))  # a panel not known
        # The GM's own roll goes on top of the panel as drawn, which it changes in nothing
        # else; a panel not known is drawn whole.
        for npc in (roll(npc=True), roll(npc=True, hidden=True, target_id=TARGETED, target_owner_id=TARGET)):
            assert delivery(npc, roomy).panels & Panel.GM_NEWEST and not redraws(npc, roomy)
            assert redraws(npc, Viewer(GM, is_gm=True, waits=viewer.waits))
            assert not delivery(npc, Viewer(GM, is_gm=True, waits=viewer.waits)).panels & Panel.GM_NEWEST
        # A side of a contest, or the GM's mark on their roll, takes the long way.
        assert redraws(roll(npc=True, contest=True, hidden=True, sealed=True), roomy)
        assert redraws(Facts(action="roll-void", roll=True, npc=True), roomy)
        assert redraws(roll(hidden=True, blind=True, owner_id=ROLLER, character_id=CHARACTER), roomy)
        # What else can change it does, whatever room it has.
        assert redraws(Facts(action="roll-void", roll=True), roomy)
        assert redraws(Facts(action="session-end"), roomy)
    # A new roll of a character whose roll the panel shows: that one is no longer its latest.
    showing = Viewer(
        GM, is_gm=True, waits=DOUBLES.waits, gm_panel=GmPanel(room=5, characters=frozenset({CHARACTER}))
    )
    assert redraws(plain, showing)
    assert not redraws(roll(owner_id=OTHER, character_id=ANOTHER), showing)


def test_each_new_roll_of_a_batch_takes_one_of_the_panels_room() -> None:
    viewer = Viewer(GM, is_gm=True, waits=SETS.waits, gm_panel=GmPanel(room=2, rolls=frozenset({7})))
    plain = roll(owner_id=ROLLER, character_id=CHARACTER)
    assert viewer.after(roll(follow_up=True, owner_id=ROLLER)).gm_panel.room == 2
    assert viewer.after(Facts(action="call")).gm_panel.room == 2
    assert viewer.after(roll(npc=True)).gm_panel.room == 1  # it pushes the window too
    third = viewer.after(plain).after(plain)
    assert third.gm_panel.room == 0 and redraws(plain, third)
    assert third.after(plain).gm_panel.room == 0
    assert third.gm_panel.rolls == frozenset({7})


def test_a_follow_up_redraws_the_panel_where_it_can_change_what_waits() -> None:
    players = roll(follow_up=True, owner_id=ROLLER, character_id=CHARACTER)
    npcs = roll(follow_up=True, npc=True)
    blind = roll(follow_up=True, hidden=True, blind=True, owner_id=ROLLER, character_id=CHARACTER)
    against = roll(follow_up=True, npc=True, target_id=TARGETED, target_owner_id=TARGET)
    # Sets: a bid on a player's open roll changes nothing the GM has to do.
    assert not redraws(players, SETS)
    assert redraws(npcs, SETS) and redraws(blind, SETS)
    # Doubles: any follow-up may ask for a miracle, or spend the Endurance one would cost,
    # where the panel as drawn is not known.
    assert redraws(players, DOUBLES)
    # Stars: Luck spent anywhere may be the Luck a roll against that character waits on.
    assert redraws(players, STARS) and redraws(against, STARS)


def test_the_gms_events_redraw_the_panel_where_they_change_what_waits() -> None:
    for event in ("session-start", "session-end", "mystery-start", "roll-void"):
        facts = Facts(action=event, roll=event == "roll-void")
        assert redraws(facts, SETS) and redraws(facts, DOUBLES) and redraws(facts, STARS)
    correction = Facts(action="gm-correction")
    assert redraws(correction, DOUBLES) and redraws(correction, STARS)
    assert not redraws(correction, SETS)
    assert not redraws(Facts(action="call"), SETS)
    assert ALL_WAITS == Waits.NPC | Waits.AGAINST | Waits.BLIND | Waits.DECISIONS | Waits.SHEETS


def test_a_hidden_roll_is_the_gms_own() -> None:
    hidden = roll(hidden=True, owner_id=ROLLER, character_id=CHARACTER)
    assert own_cards(hidden) == {GM}
    assert sight(hidden, VIEWERS[GM]).dice
    assert not any(sight(hidden, VIEWERS[user]).dice for user in (ROLLER, TARGET, OTHER))
    assert not sight(hidden, TABLE).dice
    # Nobody but the GM acts on a roll whose result they cannot see, their own included.
    assert not sight(hidden, VIEWERS[ROLLER]).acts
    assert not any(sight(hidden, VIEWERS[user]).unseen for user in (GM, ROLLER, OTHER))


def test_the_player_of_a_blind_roll_acts_on_it_unseen_only() -> None:
    """A blind roll's dice are the GM's to see; its player may still ask for what needs no
    look at them (a sets bid, unseen). Nobody else may, and the GM acts on it in full."""
    blind = roll(hidden=True, blind=True, owner_id=ROLLER, character_id=CHARACTER)
    assert sight(blind, VIEWERS[ROLLER]) == Sight(dice=False, acts=False, answers=False, unseen=True)
    assert not any(sight(blind, VIEWERS[user]).unseen for user in (GM, TARGET, OTHER))
    assert not sight(blind, TABLE).unseen
    assert sight(blind, VIEWERS[GM]).acts


def test_a_players_blind_roll_waits_on_the_gms_panel() -> None:
    """Only the GM sees a blind roll's dice, so it waits for them on the session page (a sets
    bid to resolve): its arrival redraws the GM's waiting panel, and nobody else's."""
    blind = roll(hidden=True, owner_id=ROLLER, character_id=CHARACTER)
    assert delivery(blind, VIEWERS[GM]).panels & Panel.GM_WAITING
    assert not any(delivery(blind, VIEWERS[user]).panels & Panel.GM_WAITING for user in (ROLLER, OTHER))


def test_an_npc_roll_or_an_answer_to_a_call_touches_the_gms_panels_only() -> None:
    for touched in (roll(npc=True), roll(call=True, owner_id=ROLLER, character_id=CHARACTER)):
        assert own_cards(touched) == set()
        assert personal(touched) == {GM}


def test_a_roll_against_a_character_touches_its_players_panel() -> None:
    against = roll(npc=True, target_id=TARGETED, target_owner_id=TARGET)
    assert own_cards(against) == set()
    assert personal(against) == {GM, TARGET}
    assert delivery(against, VIEWERS[TARGET]).panels == Panel.AGAINST
    assert sight(against, VIEWERS[TARGET]).answers
    assert not sight(against, VIEWERS[OTHER]).answers


def test_a_roll_against_a_character_is_shared_markup_where_nobody_answers_one() -> None:
    # Only stars answers a roll made against a character (Luck against); in sixes, kinds,
    # doubles and sets its player's panel holds nothing, so their socket takes the table's markup.
    against = roll(npc=True, target_id=TARGETED, target_owner_id=TARGET)
    for waits in (Waits.NOTHING, Waits.NPC | Waits.BLIND, Waits.DECISIONS | Waits.SHEETS):
        assert not delivery(against, Viewer(TARGET, waits=waits)).personal
    assert delivery(against, Viewer(TARGET, waits=Waits.AGAINST | Waits.SHEETS)).panels == Panel.AGAINST


def test_a_follow_up_replaces_the_result_card_on_its_characters_roll_screen() -> None:
    follow_up = roll(
        follow_up=True, owner_id=ROLLER, character_id=CHARACTER, target_id=TARGETED, target_owner_id=TARGET
    )
    # On that character's roll screen, whoever may act on the roll gets the result card.
    assert own_cards(follow_up, CHARACTER) == {GM, ROLLER}
    assert personal(follow_up, CHARACTER) == {GM, ROLLER, TARGET}
    assert Panel.RESOURCES in delivery(follow_up, VIEWERS[ROLLER], CHARACTER).panels
    # Any other page holds no result card of it: the shared card will do. The GM's waiting
    # panel (a miracle asked) and the panel of rolls made against a player are still theirs.
    assert own_cards(follow_up) == own_cards(follow_up, ANOTHER) == set()
    assert personal(follow_up) == personal(follow_up, ANOTHER) == {GM, TARGET}
    # The target's own roll screen shows what the answer spent from its sheet.
    assert Panel.RESOURCES in delivery(follow_up, VIEWERS[TARGET], TARGETED).panels


def test_a_hidden_follow_up_is_the_gms_own_on_every_page() -> None:
    hidden = roll(follow_up=True, hidden=True, owner_id=ROLLER, character_id=CHARACTER)
    assert own_cards(hidden) == {GM}
    # The roller's roll screen gets the new (still hidden) result card.
    assert own_cards(hidden, CHARACTER) == {GM, ROLLER}


@pytest.mark.parametrize("event", ["session-start", "session-end", "mystery-start"])
def test_a_status_event_redraws_the_status_line_for_everyone(event: str) -> None:
    facts = Facts(action=event)
    assert all(
        delivery(facts, viewer).panels == Panel.STATUS
        for viewer in (*VIEWERS.values(), TABLE)
        if not viewer.is_gm
    )
    # The GM's waiting panel too, in a system where rolls wait there (the session's rolls).
    assert delivery(facts, VIEWERS[GM]).panels == Panel.STATUS | Panel.GM_WAITING
    assert delivery(facts, NOTHING_WAITS).panels == Panel.STATUS


def test_calls_and_members_redraw_their_panels() -> None:
    assert delivery(Facts(action="call"), VIEWERS[GM]).panels == Panel.CALL_STATUS
    assert delivery(Facts(action="call-closed"), VIEWERS[ROLLER]).panels == Panel.CALLS
    assert delivery(Facts(action="member-joined"), VIEWERS[GM]).panels == Panel.MEMBERS
    assert delivery(Facts(action="member-joined"), VIEWERS[ROLLER]).panels == Panel.NONE
    assert delivery(Facts(action="character-new"), VIEWERS[GM]).panels == Panel.NONE


@pytest.mark.parametrize(
    "facts",
    [Facts(action="note"), roll(follow_up=True, owner_id=2, character_id=CHARACTER)],
)
def test_shared_markup_survives_the_trip_through_a_broadcast(facts: Facts) -> None:
    shared = Shared(html="<li>card</li>", tail='<span id="last-seq"></span>', facts=facts)
    assert shared.to_data() == asdict(shared)
    assert Shared.from_data(shared.to_data()) == shared


def test_a_follow_up_leaves_the_panel_as_drawn_unless_it_touches_what_the_panel_shows() -> None:
    """Doubles: a player's follow-up changes the GM's panel only when it asks for the GM's
    decision (a miracle), is made on a roll the panel shows, or spends from a sheet one of
    the panel's cards reads (the Endurance an approved miracle costs). Stars: Luck spent from
    the sheet of a character a roll on the panel is made against."""
    ROLL, SHOWN = 40, 41
    drawn = GmPanel(room=3, rolls=frozenset({SHOWN}), characters=frozenset({TARGETED}))
    doubles = Viewer(GM, is_gm=True, waits=DOUBLES.waits, gm_panel=drawn)
    stars = Viewer(GM, is_gm=True, waits=STARS.waits, gm_panel=drawn)
    drama = roll(follow_up=True, owner_id=ROLLER, character_id=CHARACTER, roll_id=ROLL)
    assert not redraws(drama, doubles)
    assert delivery(drama, doubles) == delivery(drama, TABLE)  # the shared markup alone
    assert not redraws(drama, stars)
    assert redraws(
        roll(follow_up=True, owner_id=ROLLER, character_id=CHARACTER, roll_id=ROLL, awaits_gm=True), doubles
    )
    # Awaiting the GM asks nothing of them where no follow-up is the GM's decision.
    assert not redraws(
        roll(follow_up=True, owner_id=ROLLER, character_id=CHARACTER, roll_id=ROLL, awaits_gm=True), stars
    )
    on_the_panel = roll(follow_up=True, owner_id=TARGET, character_id=ANOTHER, roll_id=SHOWN)
    assert redraws(on_the_panel, doubles) and redraws(on_the_panel, stars)
    spends_its_sheet = roll(follow_up=True, owner_id=TARGET, character_id=TARGETED, roll_id=ROLL)
    assert redraws(spends_its_sheet, doubles) and redraws(spends_its_sheet, stars)
    # The GM's own rolls and blind ones, and any follow-up where the panel is not known: drawn.
    assert redraws(roll(follow_up=True, npc=True, roll_id=ROLL), doubles)
    assert redraws(
        roll(follow_up=True, blind=True, hidden=True, owner_id=ROLLER, character_id=CHARACTER), doubles
    )
    assert redraws(drama, Viewer(GM, is_gm=True, waits=DOUBLES.waits, gm_panel=GmPanel(rolls=drawn.rolls)))
