"""Statistics ("are my dice cursed?"): the percentile and chi-square arithmetic on fixed data,
the figures of a fixed set of rolls against values worked out by hand, what they leave out
(voided rolls, dice entered by hand, a secret roll a player may not see) and the backfill."""

from __future__ import annotations

import math
import random
import re
from fractions import Fraction
from typing import Any

import pytest
from django.urls import reverse

from rolls import registry
from rolls.history import marks
from rolls.models import FollowUpUse, LogEntry, Roll
from rolls.play import services
from rolls.stats import fairness, record
from rolls.stats import summary as stats
from rolls.systems.base import DiceSystem
from tabletop.models import DiceMode, Membership
from tests import factories
from tests.factories import ScriptedDice, Table

# Olle rolls Body alone: 3 dice, one six needed. Three d6 show k sixes with chance
# C(3,k) 5^(3-k) / 216: 125, 75, 15 and 1 in 216.
BODY = {"attribute": "Body", "need": 1}
THREE = {"0": Fraction(125, 216), "1": Fraction(75, 216), "2": Fraction(15, 216), "3": Fraction(1, 216)}


# -- the arithmetic, on fixed data ---------------------------------------------------------------


def test_a_results_mid_rank_percentile_and_its_variance() -> None:
    places = fairness.placements(THREE, ["0", "1", "2", "3"])
    # No six: half of the 125/216 below it; one six: all of them and half its own 75/216.
    assert places["0"].percentile == Fraction(125, 432)
    assert places["1"].percentile == Fraction(125, 216) + Fraction(75, 432)
    assert places["3"].percentile == 1 - Fraction(1, 432)
    # The mean is exactly one half, and the variance (1 - sum p^3) / 12.
    assert sum(THREE[k] * places[k].percentile for k in THREE) == Fraction(1, 2)
    cubes = sum(p**3 for p in THREE.values())
    assert places["0"].variance == (1 - cubes) / 12


def test_sets_orders_no_set_first_then_size_then_face() -> None:
    """SET-4: Size first, then Face; no set below any set."""
    sets = registry.engine("sets")
    assert sets.result_order(["2x6", "none", "3x1", "2x2"]) == ["none", "2x2", "2x6", "3x1"]


def test_a_system_without_numbers_keeps_the_order_of_its_outcomes() -> None:
    assert DiceSystem.result_order(registry.engine("sixes"), ["0", "1+"]) == ["0", "1+"]


def test_the_chi_square_survival_function_meets_the_tables() -> None:
    # The 5%, 1% and 95% points of chi-square with 5 degrees of freedom, from printed tables.
    assert fairness.chi2_sf_5(11.0705) == pytest.approx(0.05, abs=1e-4)
    assert fairness.chi2_sf_5(15.0863) == pytest.approx(0.01, abs=1e-4)
    assert fairness.chi2_sf_5(1.1455) == pytest.approx(0.95, abs=1e-4)
    assert fairness.chi2_sf_5(0) == 1.0


def test_fair_faces_say_nothing_unusual_and_lopsided_ones_look_unfair() -> None:
    statistic, verdict = fairness.faces_verdict([10, 10, 10, 10, 10, 10])
    assert (
        statistic == 0 and verdict.p_value == 1.0 and verdict.words == "nothing unusual: the faces look fair"
    )
    # 60 dice, 10 expected per face: (100 + 4 * 25 + 100) / 10 = 30.
    statistic, verdict = fairness.faces_verdict([20, 5, 5, 5, 5, 20])
    assert statistic == 30
    assert verdict.p_value is not None and verdict.p_value < 0.001
    assert verdict.unusual and verdict.words == "the faces look unfair"
    _, few = fairness.faces_verdict([5, 5, 5, 5, 5, 4])
    assert few.p_value is None and "too few dice" in few.words


def test_the_luck_verdict_in_plain_words() -> None:
    # Nine rolls summing to 5.4 with variances summing to 0.75: z = 0.9 / 0.866 = 1.039,
    # two-sided p = 0.299 (a normal table): nothing unusual, the 60th percentile.
    verdict = fairness.luck_verdict(9, 5.4, 0.75)
    assert verdict.p_value == pytest.approx(0.2987, abs=1e-3)
    assert verdict.words == "nothing unusual"
    assert verdict.percentile_text == "60th percentile" and verdict.p_text == "p = 0.30"
    # Sixteen rolls at the 10th percentile, each variance 1/12: z = -6.4 / 1.155 = -5.5.
    cursed = fairness.luck_verdict(16, 1.6, 16 / 12)
    assert cursed.p_value is not None and cursed.p_value < 1e-6
    assert cursed.words == "unusually unlucky" and cursed.p_text == "p < 0.001"
    assert fairness.luck_verdict(4, 3.9, 0.3).p_value is None  # fewer than five rolls


def test_ordinals() -> None:
    assert [fairness.ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 31, 100)] == [
        "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "31st", "100th",
    ]  # fmt: skip


class Recording(random.Random):
    """A seeded source that remembers every face it gave."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.drawn: list[int] = []

    def randint(self, a: int, b: int) -> int:
        face = super().randint(a, b)
        self.drawn.append(face)
        return face


@pytest.mark.parametrize("slug", registry.slugs())
def test_each_system_names_every_die_its_roll_drew(slug: str) -> None:
    system = registry.engine(slug)
    for index, data in enumerate(system.typical_requests()[:40]):
        request = system.parse_request(data)
        rng = Recording(index)
        state = system.roll(request, rng)
        assert sorted(system.drawn(state["steps"][0])) == sorted(rng.drawn), data
        # The first throw's result is a key of the request's distribution, so it has a place.
        assert fairness.placement(system, request, system.evaluate(state).key) is not None


# -- a fixed set of rolls ------------------------------------------------------------------------


def _roll(table: Table, *faces: int, by_hand: bool = False) -> Roll:
    return services.roll_create(
        character=table.character,
        roller=table.player,
        data=BODY,
        helper=None,
        intent="",
        rng=ScriptedDice(*faces) if not by_hand else ScriptedDice(),
        faces=list(faces) if by_hand else None,
    )


def _follow(table: Table, roll: Roll, action: str, *faces: int, **params: str) -> None:
    services.follow_up_apply(
        roll=roll, actor=table.player, action=action, params=params, rng=ScriptedDice(*faces)
    )


@pytest.fixture
def evening(table: Table) -> dict[str, Roll]:
    """Five rolls the statistics count, and one voided:

    A 6 2 3: one six, a success (percentile 325/432).
    B 1 2 3: a failure (125/432), then a Luck point rerolls all three: 6 4 4, a success.
    C 5 5 5: a failure (125/432), then a push checking Scared: 1 1 2, still a failure.
    D 6 6 1 entered by hand: a success, out of the luck and the faces.
    E 6 6 6, voided by the GM: counts nowhere.
    F the GM's secret roll of 2 dice for a Goon: 6 6 (71/72), the GM's alone.
    """
    table.campaign.dice = DiceMode.EITHER
    table.campaign.save(update_fields=["dice"])
    rolls = {"A": _roll(table, 6, 2, 3), "B": _roll(table, 1, 2, 3)}
    _follow(table, rolls["B"], "luck", 6, 4, 4)
    rolls["C"] = _roll(table, 5, 5, 5)
    _follow(table, rolls["C"], "push", 1, 1, 2, condition="Scared", description="Runs at the door")
    rolls["D"] = _roll(table, 6, 6, 1, by_hand=True)
    rolls["E"] = _roll(table, 6, 6, 6)
    marks.roll_void(roll=rolls["E"], gm=table.gm)
    sixes = registry.engine("sixes")
    rolls["F"] = services.npc_roll_create(
        campaign=table.campaign,
        gm=table.gm,
        name="Goon",
        request=sixes.parse_request({"dice": 2}),
        secret=True,
        target=None,
        intent="",
        rng=ScriptedDice(6, 6),
    )
    return rolls


def _membership(table: Table, user: Any) -> Membership:
    return table.campaign.memberships.get(user=user)


def test_the_gms_figures_of_the_evening_against_the_hand_count(
    table: Table, evening: dict[str, Roll]
) -> None:
    summary = stats.summary(stats.Scope(table.campaign), _membership(table, table.gm))

    assert summary.rolls == 5  # A B C D F; E is voided
    three, two = {row.pool: row for row in summary.pools}[3], {row.pool: row for row in summary.pools}[2]
    # Pool 3: A and D succeeded at once, B only after Luck; each had 91/216 to succeed.
    assert (three.rolls, three.measured, three.first, three.final) == (4, 4, 2, 3)
    assert three.expected == pytest.approx(91 / 216)
    assert (two.rolls, two.first, two.final) == (1, 1, 1) and two.expected == pytest.approx(11 / 36)
    uses = {row.action: (row.uses, row.converted) for row in summary.follow_ups}
    assert uses == {"luck": (1, 1), "push": (1, 0)}
    assert summary.spent == [("Luck", 1)] and summary.conditions == 1
    # Luck: A, B, C and F (D was entered by hand).
    assert summary.luck.count == 4
    expected_sum = Fraction(325, 432) + Fraction(125, 432) * 2 + Fraction(71, 72)
    assert summary.luck.mean == pytest.approx(float(expected_sum) / 4)
    # Faces of A (6 2 3), B (1 2 3, then 6 4 4), C (5 5 5, then 1 1 2), F (6 6); not D's, not E's.
    assert summary.faces == [3, 3, 2, 2, 3, 4]
    assert summary.chi_square == pytest.approx(sum((c - 17 / 6) ** 2 / (17 / 6) for c in [3, 3, 2, 2, 3, 4]))
    assert summary.fairness.p_value is None  # 17 dice: too few to tell
    assert summary.by_hand == 1


def test_a_player_never_counts_the_secret_roll(table: Table, evening: dict[str, Roll]) -> None:
    summary = stats.summary(stats.Scope(table.campaign), _membership(table, table.player))
    assert summary.rolls == 4
    assert [row.pool for row in summary.pools] == [3]
    assert summary.faces == [3, 3, 2, 2, 3, 2]  # F's two sixes are not there
    assert summary.luck.count == 3
    assert [row.name for row in summary.characters] == ["Olle"]


def test_no_page_shows_a_player_the_secret_roll(table: Table, evening: dict[str, Roll]) -> None:
    """The bytes of every statistics page a player opens hold nothing of the GM's secret roll."""
    campaign, session = table.campaign.pk, evening["F"].session_id
    urls = [
        reverse("rolls:stats", args=[campaign]),
        reverse("rolls:stats-session", args=[campaign, session]),
        reverse("rolls:stats-character", args=[campaign, table.character.pk]),
        reverse("rolls:recap", args=[campaign, session]),
    ]
    player, gm = factories.logged_in(table.player), factories.logged_in(table.gm)
    for url in urls:
        seen = player.get(url)
        assert seen.status_code == 200
        assert b"Goon" not in seen.content and b"GM's rolls" not in seen.content, url
        assert b"2 dice" not in seen.content, url
    page = gm.get(urls[0]).content.decode()
    assert "Goon" in page or "The GM&#x27;s rolls (no sheet)" in page
    assert "2 dice" in page
    # The player's face table counts 2 sixes; the GM's 4.
    assert '<tr><th scope="row">6</th><td>2</td>' in player.get(urls[0]).content.decode()
    assert '<tr><th scope="row">6</th><td>4</td>' in page


def test_the_recap_tells_the_session(table: Table, evening: dict[str, Roll]) -> None:
    scope = stats.Scope(table.campaign, session=evening["A"].session)
    recap = stats.recap(scope, _membership(table, table.gm))
    # F 71/72, A 325/432, then B and C tie at 125/432 (the older first); none is in both lists.
    assert recap.luckiest == [evening["F"], evening["A"], evening["B"]]
    assert recap.unluckiest == [evening["C"]]
    assert recap.conditions == [("Olle", "Scared (pushing)")]
    assert [(row["payer_name"], row["luck_spent"]) for row in recap.spent_by] == [("Olle", 1)]
    page = factories.logged_in(table.gm).get(
        reverse("rolls:recap", args=[table.campaign.pk, evening["A"].session_id])
    )
    assert page.status_code == 200
    assert "Scared (pushing)" in page.content.decode()


def test_the_backfill_gives_what_the_services_wrote(table: Table, evening: dict[str, Roll]) -> None:
    columns = ["pool", "chance", "first_success", "percentile", "percentile_var", *record.FACE_FIELDS]
    uses = ["roll_id", "seq", "action", "converted", "payer_id", "luck", "pride", "endurance", "condition"]
    written = list(Roll.objects.order_by("id").values_list(*columns))
    used = list(FollowUpUse.objects.order_by("seq").values_list(*uses))
    Roll.objects.update(pool=0, chance=None, first_success=None, percentile=None, face6=0)
    FollowUpUse.objects.all().delete()

    record.refill(Roll, LogEntry, FollowUpUse)

    assert list(Roll.objects.order_by("id").values_list(*columns)) == written
    assert list(FollowUpUse.objects.order_by("seq").values_list(*uses)) == used


def test_the_campaign_statistics_say_the_verdict_in_words(table: Table) -> None:
    for _ in range(6):
        _roll(table, 1, 1, 1)  # six failures, each at the 29th percentile (125/432)
    page = factories.logged_in(table.player).get(reverse("rolls:stats", args=[table.campaign.pk]))
    text = page.content.decode()
    # z = 6 (125/432 - 1/2) / sqrt(6 var), var = (1 - sum p^3) / 12.
    var = (1 - sum(float(p) ** 3 for p in THREE.values())) / 12
    z = 6 * (125 / 432 - 0.5) / math.sqrt(6 * var)
    p = math.erfc(abs(z) / math.sqrt(2))
    assert p < 0.05 and p > fairness.P_UNUSUAL
    assert f"Olle&#x27;s dice: 29th percentile, p = {p:.2f}: nothing unusual." in text


def _recap_page(table: Table) -> str:
    session = table.campaign.open_session()
    assert session is not None
    page = factories.logged_in(table.gm).get(reverse("rolls:recap", args=[table.campaign.pk, session.pk]))
    assert page.status_code == 200
    return str(page.content.decode())


def _spent_heads(page: str) -> list[str]:
    table = page.split('id="spent-table"', 1)[1].split("</thead>", 1)[0]
    return re.findall(r'<th scope="col">([^<]*)</th>', table)


@pytest.mark.django_db
def test_a_doubles_recap_shows_endurance_spent_and_nothing_of_sixes() -> None:
    from tests.test_table_doubles import doubles_sheet

    table = factories.table("doubles", character_name="Mara", sheet=doubles_sheet())
    plain = {"abilities": [], "weaknesses": [], "bonus": 0, "penalty": 0, "helpers": 0, "dn": "6"}
    made = services.roll_create(
        character=table.character, roller=table.player, data=plain, helper=None, intent="",
        rng=ScriptedDice(3, 2),
    )  # fmt: skip
    services.follow_up_apply(
        roll=made, actor=table.player, action="drama", params={"count": "1"}, rng=ScriptedDice(4)
    )
    page = _recap_page(table)
    assert _spent_heads(page) == ["Who", "Endurance"]
    assert "<td>5</td>" in page.split('id="spent-table"', 1)[1]
    assert "Pride" not in page and "Condition" not in page


@pytest.mark.django_db
def test_a_sets_recap_names_no_resource_the_system_does_not_have() -> None:
    from tests.test_table_sets import sets_sheet

    table = factories.table("sets", character_name="Wilcott", sheet=sets_sheet())
    services.roll_create(
        character=table.character, roller=table.player, data={"stat": "Insight", "bar": "2", "face": "3"},
        helper=None, intent="", rng=ScriptedDice(5, 5, 1),
    )  # fmt: skip
    page = _recap_page(table)
    assert 'id="spent-table"' not in page
    for sixes_word in ("Pride", "Condition", "Endurance", "resources spent", "from a sheet"):
        assert sixes_word not in page, sixes_word


@pytest.mark.django_db
def test_every_tables_spent_resources_are_columns_the_statistics_keep() -> None:
    for slug in registry.slugs():
        assert {name for name, _ in registry.table(slug).spent} <= set(record.SPENT_AMOUNTS), slug


@pytest.mark.django_db
def test_the_recap_numbers_a_roll_as_its_card_does() -> None:
    """The recap said "#7" (the row's id) of the roll whose card says "#19" (its entry's place
    in the campaign's log): one number, the log's."""
    from tests.test_table_doubles import doubles_sheet

    table = factories.table("doubles", character_name="Mara", sheet=doubles_sheet())
    from rolls.campaigns import services as campaigns

    for _ in range(3):  # the log runs ahead of the rolls' ids
        campaigns.session_end(campaign=table.campaign, actor=table.gm)
        campaigns.session_start(campaign=table.campaign, actor=table.gm)
    plain = {"abilities": [], "weaknesses": [], "bonus": 0, "penalty": 0, "helpers": 0, "dn": "6"}
    botched = services.roll_create(
        character=table.character, roller=table.player, data=plain, helper=None, intent="",
        rng=ScriptedDice(1, 1),
    )  # fmt: skip
    assert botched.outcome == "catastrophe"
    seq = LogEntry.objects.get(roll=botched, kind=LogEntry.Kind.ROLL).seq
    assert seq != botched.pk
    history = factories.logged_in(table.player).get(reverse("rolls:history", args=[table.campaign.pk]))
    assert f'aria-label="Roll #{seq}: its page">#{seq}</a>' in history.content.decode()

    notable = _recap_page(table).split('id="notable-heading"', 1)[1].split("</section>", 1)[0]
    assert f"#{seq} Mara" in notable and f"#{botched.pk} " not in notable
