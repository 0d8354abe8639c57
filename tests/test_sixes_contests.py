"""Kid versus kid through the services (SIX-18, SIX-19): two or more kids roll sealed, each on
their own phone; after the reveal each may push, spend Luck or use Pride; the most successes
wins; a tie after pushes is broken by successes bought with Conditions; still tied, the scene
is interrupted. Every step out of turn is refused and changes nothing."""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any

import pytest
from channels.db import database_sync_to_async

from rolls.contests import services as contests
from rolls.contests.sides import Side
from rolls.live import feed
from rolls.models import Contest, ContestSide, LogEntry, Roll
from rolls.play import services
from rolls.systems import RulesError
from rolls.systems.sixes import kid_versus_kid_odds
from rolls.systems.sixes import system as sixes
from tabletop.models import Character, Membership
from tests import factories
from tests.contest_sockets import assert_sealed, table_sockets
from tests.dice import ScriptedDice

FACE = re.compile(r'data-face="\d"')
# Body alone: three dice (every attribute is 3 on the test sheet).
BODY = {"attribute": "Body", "skill": "", "item": False, "need": 1, "threat": False, "group": False}


class Kids:
    """A sixes table: Olle (the player's), Kim (a second player's), Lea (a third's)."""

    def __init__(self) -> None:
        self.table = factories.table("sixes", character_name="Olle")
        self.second = factories.user("second")
        factories.member(self.table.campaign, self.second, name="Second")
        self.kim = factories.character(self.table.campaign, self.second, name="Kim")
        self.third = factories.user("third")
        factories.member(self.table.campaign, self.third, name="Third")
        self.lea = factories.character(self.table.campaign, self.third, name="Lea")

    @property
    def olle(self) -> Character:
        return self.table.character

    def owner(self, position: int, contest: Contest) -> Any:
        side = contest.sides.get(position=position)
        assert side.character is not None
        return side.character.owner


@pytest.fixture
def kids(db: None) -> Kids:
    return Kids()


def versus(kids: Kids, *characters: Character, intent: str = "the last bike") -> Contest:
    return contests.contest_open(
        campaign=kids.table.campaign,
        opener=kids.table.gm,
        sides=[Side(character, BODY) for character in characters],
        intent=intent,
    )


def side(contest: Contest, position: int) -> ContestSide:
    return contest.sides.get(position=position)


def roll(kids: Kids, contest: Contest, position: int, *faces: int) -> Roll:
    return contests.contest_roll(
        side=side(contest, position),
        user=kids.owner(position, contest),
        rng=ScriptedDice(*faces),
        is_gm=False,
    )


def buy(kids: Kids, contest: Contest, position: int, condition: str) -> Contest:
    return contests.contest_act(
        side=side(contest, position),
        user=kids.owner(position, contest),
        action="buy",
        params={"condition": condition},
        is_gm=False,
    )


def conditions(character: Character) -> dict[str, bool]:
    return Character.objects.get(pk=character.pk).sheet["conditions"]


def seen_by(user: Any, kids: Kids) -> str:
    membership = Membership.objects.get(campaign=kids.table.campaign, user=user)
    html, _ = feed.render_since(membership, 0)
    return html


def test_six_18_the_most_successes_wins_and_says_what_happens(kids: Kids) -> None:
    contest = versus(kids, kids.olle, kids.kim, kids.lea)
    roll(kids, contest, 0, 6, 6, 1)
    roll(kids, contest, 1, 6, 2, 3)
    assert Contest.objects.get().state == Contest.State.OPEN  # Lea has not rolled: all sealed
    roll(kids, contest, 2, 1, 2, 3)
    assert Contest.objects.get().state == Contest.State.REVEALED
    assert [s.winner for s in contests.standings(contest)] == [True, False, False]
    closed = contests.contest_close(contest=contest, gm=kids.table.gm)
    assert closed.verdict == "Olle wins, 2 to 1 to 0 successes, and says what happens."


def test_six_18_every_kid_may_push_after_the_reveal_but_not_before(kids: Kids) -> None:
    contest = versus(kids, kids.olle, kids.kim)
    olle = roll(kids, contest, 0, 1, 2, 3)
    # Sealed: no push, Luck or Pride before every kid has rolled.
    for action, params in (("push", {"condition": "Upset", "description": "I grit my teeth"}), ("pride", {})):
        with pytest.raises(RulesError, match="sealed until every side"):
            services.follow_up_apply(
                roll=olle, actor=kids.table.player, action=action, params=params, rng=ScriptedDice(6, 6, 6)
            )
    roll(kids, contest, 1, 6, 2, 3)
    assert [s.winner for s in contests.standings(contest)] == [False, True]
    services.follow_up_apply(
        roll=olle,
        actor=kids.table.player,
        action="push",
        params={"condition": "Upset", "description": "I grit my teeth"},
        rng=ScriptedDice(6, 6, 1),
    )
    assert conditions(kids.olle)["Upset"]
    assert [s.winner for s in contests.standings(contest)] == [True, False]
    # Kim's Pride brings her level: a tie again.
    kim = Roll.objects.get(character=kids.kim)
    services.follow_up_apply(roll=kim, actor=kids.second, action="pride", params={}, rng=ScriptedDice())
    assert [s.winner for s in contests.standings(contest)] == [False, False]


def test_six_19_a_tie_is_broken_by_a_success_bought_with_a_condition(kids: Kids) -> None:
    contest = versus(kids, kids.olle, kids.kim)
    roll(kids, contest, 0, 6, 1, 1)
    roll(kids, contest, 1, 6, 2, 2)
    assert [s.winner for s in contests.standings(contest)] == [False, False]
    buy(kids, contest, 1, "Scared")
    assert conditions(kids.kim)["Scared"]
    assert Contest.objects.get().sides.get(position=1).extra == {"bought": 1, "conditions": ["Scared"]}
    assert [s.winner for s in contests.standings(contest)] == [False, True]
    step = LogEntry.objects.get(action="contest-step")
    assert step.text == "Kim checks Scared to buy a success in the contest (1 bought)."
    # Kim is ahead alone now: she may not buy another.
    with pytest.raises(RulesError, match="not a step this side may take now"):
        buy(kids, contest, 1, "Upset")
    # Olle answers with Broken (SIX-19: Broken included): tied again, then he is out of Conditions? No: one more.
    buy(kids, contest, 0, "Broken")
    assert conditions(kids.olle)["Broken"]
    buy(kids, contest, 0, "Upset")
    closed = contests.contest_close(contest=contest, gm=kids.table.gm)
    assert closed.verdict == "Olle wins, 3 to 2 successes, and says what happens."


def test_six_19_still_tied_the_scene_is_interrupted(kids: Kids) -> None:
    contest = versus(kids, kids.olle, kids.kim)
    roll(kids, contest, 0, 6, 1, 1)
    roll(kids, contest, 1, 6, 2, 2)
    buy(kids, contest, 0, "Exhausted")
    buy(kids, contest, 1, "Injured")
    closed = contests.contest_close(contest=contest, gm=kids.table.gm)
    assert closed.verdict == "Still tied at 2 successes (Olle and Kim): the scene is interrupted."
    assert LogEntry.objects.filter(action="contest-end", text=closed.verdict).exists()


def test_six_19_buying_is_refused_out_of_turn_for_the_other_side_twice_and_after_the_end(kids: Kids) -> None:
    contest = versus(kids, kids.olle, kids.kim, kids.lea)
    roll(kids, contest, 0, 6, 1, 1)
    # Before the reveal: nothing to buy.
    with pytest.raises(RulesError, match="not a step this side may take now"):
        buy(kids, contest, 0, "Upset")
    roll(kids, contest, 1, 6, 2, 2)
    roll(kids, contest, 2, 1, 2, 2)
    # Lea is behind on the dice: buying does not overturn a loss.
    with pytest.raises(RulesError, match="not a step this side may take now"):
        buy(kids, contest, 2, "Upset")
    # Kim's player cannot buy for Olle.
    with pytest.raises(RulesError, match="Only Olle's player acts for Olle"):
        contests.contest_act(
            side=side(contest, 0), user=kids.second, action="buy", params={"condition": "Upset"}, is_gm=False
        )
    # A Condition already checked cannot be checked again, nor a Condition that does not exist.
    sheet = Character.objects.get(pk=kids.olle.pk).sheet
    Character.objects.filter(pk=kids.olle.pk).update(
        sheet={**sheet, "conditions": {**sheet["conditions"], "Upset": True}}
    )
    with pytest.raises(RulesError, match="is Upset already"):
        buy(kids, contest, 0, "Upset")
    with pytest.raises(RulesError, match="Choose the Condition"):
        buy(kids, contest, 0, "Hungry")
    assert LogEntry.objects.filter(action="contest-step").count() == 0
    contests.contest_close(contest=contest, gm=kids.table.gm)
    with pytest.raises(RulesError, match="This contest is over"):
        buy(kids, contest, 0, "Scared")
    assert not conditions(kids.olle)["Scared"]


def test_six_19_a_kid_with_every_condition_checked_has_nothing_to_buy_with(kids: Kids) -> None:
    contest = versus(kids, kids.olle, kids.kim)
    roll(kids, contest, 0, 6, 1, 1)
    roll(kids, contest, 1, 6, 2, 2)
    everything = {name: True for name in conditions(kids.olle)}
    sheet = Character.objects.get(pk=kids.olle.pk).sheet
    Character.objects.filter(pk=kids.olle.pk).update(sheet={**sheet, "conditions": everything})
    with pytest.raises(RulesError, match="not a step this side may take now"):
        buy(kids, contest, 0, "Upset")


def test_six_18_a_kid_who_went_away_loses_when_the_gm_closes(kids: Kids) -> None:
    contest = versus(kids, kids.olle, kids.kim, kids.lea)
    first = roll(kids, contest, 0, 1, 1, 1)
    roll(kids, contest, 1, 6, 1, 1)
    closed = contests.contest_close(contest=contest, gm=kids.table.gm)
    assert closed.verdict == "Kim wins, 1 to 0 successes, and says what happens; Lea did not roll."
    assert Roll.objects.get(pk=first.pk).revealed


def test_six_18_a_challenge_between_two_kids(kids: Kids) -> None:
    challenge = contests.contest_open(
        campaign=kids.table.campaign,
        opener=kids.table.player,
        sides=[Side(kids.olle, BODY), Side(kids.kim, {})],
        intent="who climbs higher",
    )
    contests.contest_answer(contest=challenge, user=kids.second, accept=True, data=BODY)
    roll(kids, challenge, 1, 6, 6, 1)
    roll(kids, challenge, 0, 6, 1, 1)
    assert contests.contest_close(contest=challenge, gm=kids.table.gm).verdict == (
        "Kim wins, 2 to 1 successes, and says what happens."
    )


def test_six_18_nobody_helps_in_kid_versus_kid(kids: Kids) -> None:
    with pytest.raises(RulesError, match="Nobody helps in kid versus kid"):
        contests.contest_open(
            campaign=kids.table.campaign,
            opener=kids.table.gm,
            sides=[Side(kids.olle, {**BODY, "helper": True}), Side(kids.kim, BODY)],
            intent="",
        )
    assert not Contest.objects.exists()


def test_six_18_the_odds_for_three_kids_are_exact() -> None:
    """Three dice each, against each other: computed here by brute force over every face. The
    first kid's tie is their own chance of sharing the lead, not that any two kids tie."""
    import itertools

    wins = shared = total = 0
    for a, b, c in itertools.product(itertools.product(range(1, 7), repeat=3), repeat=3):
        counts = [a.count(6), b.count(6), c.count(6)]
        total += 1
        best = max(counts)
        if counts[0] == best and counts.count(best) > 1:
            shared += 1
        elif counts[0] == best:
            wins += 1
    odds = sixes.contest_among([sixes.parse_request({"dice": 3})] * 3)
    assert odds[0]["win"] == Fraction(wins, total) and odds[0]["tie"] == Fraction(shared, total)
    assert sum(odds[0].values()) == 1
    assert (
        odds[0]["win"]
        == kid_versus_kid_odds(
            {"a": sixes.parse_request({"dice": 3})}
            | {"b": sixes.parse_request({"dice": 3}), "c": sixes.parse_request({"dice": 3})}
        )["a"]
    )


def test_six_18_sealed_dice_reach_nobody_else_before_everyone_rolled(kids: Kids) -> None:
    contest = versus(kids, kids.olle, kids.kim)
    roll(kids, contest, 0, 6, 6, 5)
    assert 'data-face="6"' in seen_by(kids.table.player, kids)
    for other in (kids.second, kids.third):
        assert not FACE.search(seen_by(other, kids))


@pytest.mark.django_db(transaction=True)
async def test_six_18_the_bytes_of_other_sockets_hold_no_sealed_die() -> None:
    kids = await database_sync_to_async(Kids)()
    members = {"kim": kids.second, "lea": kids.third, "gm": kids.table.gm, "olle": kids.table.player}
    async with table_sockets(kids.table.campaign, members) as sockets:
        contest = await database_sync_to_async(versus)(kids, kids.olle, kids.kim)
        await database_sync_to_async(roll)(kids, contest, 0, 6, 6, 5)
        received = await sockets.received(2)
        assert_sealed(
            received, secrets=[FACE], kept_from=["kim", "lea"], seen_by=["olle", "gm"], seen=['data-face="6"']
        )
        assert "rolled, sealed" in received["kim"] and "rolled, sealed" in received["lea"]

        await database_sync_to_async(roll)(kids, contest, 1, 1, 1, 1)
        revealed = (await sockets.received(5, "lea"))["lea"]
        assert 'data-face="6"' in revealed and "Olle leads with 2 successes" in revealed


# -- group Trouble (SIX-17) ---------------------------------------------------------------------


def group(kids: Kids, *characters: Character, need: int = 1) -> Contest:
    return contests.contest_open(
        campaign=kids.table.campaign,
        opener=kids.table.gm,
        sides=[Side(character, BODY) for character in characters],
        intent="through the blizzard",
        kind=Contest.Kind.GROUP,
        setup={"need": str(need)},
    )


def give(kids: Kids, contest: Contest, position: int, to: str) -> Contest:
    return contests.contest_act(
        side=side(contest, position),
        user=kids.owner(position, contest),
        action="give",
        params={"to": to},
        is_gm=False,
    )


def test_six_17_each_kid_rolls_for_themself_and_a_spare_success_goes_to_a_friend(kids: Kids) -> None:
    contest = group(kids, kids.olle, kids.kim, kids.lea)
    assert all(s.data["need"] == 1 and s.data["group"] for s in contest.sides.all())
    roll(kids, contest, 0, 6, 6, 6)
    roll(kids, contest, 1, 1, 2, 3)
    roll(kids, contest, 2, 1, 2, 3)
    assert [s.winner for s in contests.standings(contest)] == [True, False, False]
    give(kids, contest, 0, "Kim")
    give(kids, contest, 0, "Lea")
    assert [s.winner for s in contests.standings(contest)] == [True, True, True]
    # Olle has no spare left: his third would make him fail; Kim cannot give hers on.
    with pytest.raises(RulesError, match="not a step this side may take now"):
        give(kids, contest, 0, "Kim")
    with pytest.raises(RulesError, match="not a step this side may take now"):
        give(kids, contest, 1, "Lea")
    assert LogEntry.objects.filter(action="contest-step").count() == 2
    closed = contests.contest_close(contest=contest, gm=kids.table.gm)
    assert closed.verdict == "Group Trouble: Everyone gets through."


def test_six_17_nobody_helps_and_only_the_gm_opens_it(kids: Kids) -> None:
    with pytest.raises(RulesError, match="Nobody helps"):
        contests.contest_open(
            campaign=kids.table.campaign,
            opener=kids.table.gm,
            sides=[Side(kids.olle, {**BODY, "helper": True}), Side(kids.kim, BODY)],
            intent="",
        )
    with pytest.raises(RulesError, match="Only the GM opens that"):
        contests.contest_open(
            campaign=kids.table.campaign,
            opener=kids.table.player,
            sides=[Side(kids.olle, BODY), Side(kids.kim, BODY)],
            intent="",
            kind=Contest.Kind.GROUP,
            setup={"need": "1"},
        )
    with pytest.raises(RulesError, match="Only characters from the table"):
        contests.contest_open(
            campaign=kids.table.campaign,
            opener=kids.table.gm,
            sides=[Side(kids.olle, BODY), Side(None, {"dice": 2}, name="Dog")],
            intent="",
            kind=Contest.Kind.GROUP,
            setup={"need": "1"},
        )
    with pytest.raises(RulesError, match="1 to 3 successes"):
        group(kids, kids.olle, kids.kim, need=4)
    assert not Contest.objects.exists()


def test_six_17_a_gift_is_refused_for_another_kid_to_oneself_and_after_the_end(kids: Kids) -> None:
    contest = group(kids, kids.olle, kids.kim, need=1)
    roll(kids, contest, 0, 6, 6, 1)
    with pytest.raises(RulesError, match="not a step this side may take now"):
        give(kids, contest, 0, "Kim")  # Kim has not rolled: nothing is revealed yet
    roll(kids, contest, 1, 1, 1, 1)
    with pytest.raises(RulesError, match="Choose a friend"):
        give(kids, contest, 0, "Olle")
    with pytest.raises(RulesError, match="Only Olle's player acts for Olle"):
        contests.contest_act(
            side=side(contest, 0), user=kids.second, action="give", params={"to": "Kim"}, is_gm=False
        )
    closed = contests.contest_close(contest=contest, gm=kids.table.gm)
    assert closed.verdict == "Group Trouble: Olle gets through; Kim fails."
    with pytest.raises(RulesError, match="This contest is over"):
        give(kids, contest, 0, "Kim")


def test_six_17_a_kid_who_went_away_fails_when_the_gm_closes(kids: Kids) -> None:
    contest = group(kids, kids.olle, kids.kim, kids.lea, need=2)
    roll(kids, contest, 0, 6, 6, 1)
    closed = contests.contest_close(contest=contest, gm=kids.table.gm)
    assert closed.verdict == "Group Trouble: Olle gets through; Kim and Lea fail."


def test_six_18_after_the_reveal_each_kid_sees_the_chance_to_win_with_a_push_luck_or_pride(
    kids: Kids,
) -> None:
    """Olle has one six of three dice, Kim two: a push or Luck rerolls Olle's two other dice
    and wins only if both come up six (he must lead alone; a tie goes to the Conditions);
    Pride brings him level, which is no win."""
    contest = versus(kids, kids.olle, kids.kim)
    roll(kids, contest, 0, 6, 1, 1)
    roll(kids, contest, 1, 6, 6, 2)
    states = [side(contest, i).roll.current_state() for i in (0, 1)]  # type: ignore[union-attr]
    assert sixes.contest_chance_after(states, 0, "push", 0) == Fraction(1, 36)
    assert sixes.contest_chance_after(states, 0, "luck", 0) == Fraction(1, 36)
    assert sixes.contest_chance_after(states, 0, "pride", 0) == 0
    # Kim, ahead, keeps the lead whatever she rerolls: already more than Olle.
    assert sixes.contest_chance_after(states, 1, "push", 1) == 1
    membership = Membership.objects.get(campaign=kids.table.campaign, user=kids.table.player)
    from rolls.contests.panels import contest_views

    (view,) = contest_views(kids.table.campaign.pk, membership)
    assert ("Push the roll", "3%") in view.options


def test_six_6_six_18_a_kid_losing_one_to_two_spends_luck_on_the_dice_that_are_not_sixes(kids: Kids) -> None:
    """SIX-6 with SIX-18 (our reading): Olle's one six meets the need of one, but he is losing
    1-2 to Kim, so he has failed what he tried: Luck is his, on the phone's panel with its
    chance to win and through the service, and it rerolls his two dice that are not sixes."""
    contest = versus(kids, kids.olle, kids.kim)
    olle = roll(kids, contest, 0, 6, 1, 1)
    roll(kids, contest, 1, 6, 6, 2)
    membership = Membership.objects.get(campaign=kids.table.campaign, user=kids.table.player)
    from rolls.contests.panels import contest_views

    (view,) = contest_views(kids.table.campaign.pk, membership)
    assert ("Spend a Luck point", "3%") in view.options  # both new dice sixes: 1/36
    luck = Character.objects.get(pk=kids.olle.pk).luck
    entry = services.follow_up_apply(
        roll=olle, actor=kids.table.player, action="luck", params={}, rng=ScriptedDice(6, 6)
    )
    assert entry.state["steps"][-1]["dice"] == [6, 6, 6]
    assert Character.objects.get(pk=kids.olle.pk).luck == luck - 1
    assert [s.winner for s in contests.standings(contest)] == [True, False]


def test_six_6_six_18_a_kid_level_or_ahead_in_kid_versus_kid_is_refused_luck(kids: Kids) -> None:
    """SIX-6: Kim, ahead 2-1, has not failed: refused, nothing spent; nor is Olle once level."""
    contest = versus(kids, kids.olle, kids.kim)
    olle = roll(kids, contest, 0, 6, 1, 1)
    kim = roll(kids, contest, 1, 6, 6, 2)
    luck = Character.objects.get(pk=kids.kim.pk).luck
    with pytest.raises(RulesError, match="not losing the contest"):
        services.follow_up_apply(roll=kim, actor=kids.second, action="luck", params={}, rng=ScriptedDice(6))
    assert Character.objects.get(pk=kids.kim.pk).luck == luck
    services.follow_up_apply(
        roll=olle, actor=kids.table.player, action="pride", params={}, rng=ScriptedDice()
    )
    with pytest.raises(RulesError, match="not losing the contest"):
        services.follow_up_apply(
            roll=olle, actor=kids.table.player, action="luck", params={}, rng=ScriptedDice(6, 6)
        )


def test_six_18_pride_that_only_ties_is_no_win_on_the_phone_or_the_card(kids: Kids) -> None:
    """SIX-18: Olle, no six against Kim's one: Pride brings him level. The phone's line says
    it only ties, 0% to win; his card shows no "0% -> 100%" of the need it would meet."""
    contest = versus(kids, kids.olle, kids.kim)
    olle = roll(kids, contest, 0, 1, 1, 2)
    roll(kids, contest, 1, 6, 1, 1)
    membership = Membership.objects.get(campaign=kids.table.campaign, user=kids.table.player)
    from rolls.contests.panels import contest_views
    from rolls.sight.cards import build_card

    (view,) = contest_views(kids.table.campaign.pk, membership)
    assert ("Use Pride (it only ties the lead)", "0%") in view.options
    olle.refresh_from_db()
    card = build_card(olle, olle.current_state(), 0, place="result", membership=membership)
    pride = next(button for button in card.follow_ups if button.action == "pride")
    assert pride.follow_up.label == "Use Pride (it only ties the lead)" and pride.odds == ""
    assert all(button.odds == "" for button in card.follow_ups)
