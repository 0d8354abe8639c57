"""Kid versus kid through the pages (SIX-18, SIX-19): the GM ticks the kids on the console,
each phone rolls its own side with the exact odds of winning, the display shows who has
rolled and then every result, and a tie is broken from the phone by checking a Condition."""

from __future__ import annotations

import html
import itertools
import re
from fractions import Fraction
from typing import Any

import pytest
from django.conf import settings
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from rolls.contests.panels import contest_views
from rolls.models import Contest, LogEntry
from rolls.systems.base import percent
from tabletop.models import Membership
from tests.dice import Script
from tests.factories import CONFIRMED, logged_in
from tests.test_sixes_contests import Kids

FACE = re.compile(r'data-face="\d"')
HX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def kids(db: None) -> Kids:
    return Kids()


def open_versus(kids: Kids, *ticked: Any, intent: str = "The last bike") -> Any:
    data: dict[str, Any] = {"sides": [str(c.pk) for c in ticked], "intent": intent}
    for character in ticked:
        data[f"s{character.pk}-trait"] = "Body"
        data[f"s{character.pk}-need"] = "1"
    return logged_in(kids.table.gm).post(
        reverse("rolls:contest-create", args=[kids.table.campaign.pk]), data, **HX
    )


def page(client: Any, name: str, *args: Any) -> str:
    response = client.get(reverse(name, args=args))
    assert response.status_code == 200
    return html.unescape(response.content.decode())


def panel_of(text: str) -> str:
    return text.split('id="contests-panel"')[1].split("</section>")[0]


def post_side(kids: Kids, user: Any, position: int, name: str, data: dict[str, Any] | None = None) -> Any:
    contest = Contest.objects.get()
    side = contest.sides.get(position=position)
    url = reverse(name, args=[kids.table.campaign.pk, contest.pk, side.pk])
    return logged_in(user).post(url, data or {}, **HX)


def three_against_three() -> tuple[Fraction, Fraction]:
    """SIX-18 by brute force over every face: the first kid's chance to lead alone, and a tie."""
    wins = ties = total = 0
    for a in itertools.product(range(1, 7), repeat=3):
        for b in itertools.product(range(1, 7), repeat=3):
            total += 1
            wins += a.count(6) > b.count(6)
            ties += a.count(6) == b.count(6)
    return Fraction(wins, total), Fraction(ties, total)


def test_six_18_the_gm_ticks_two_kids_and_each_phone_shows_its_exact_odds(kids: Kids) -> None:
    answer = open_versus(kids, kids.olle, kids.kim)
    assert answer.status_code == 200
    assert "Contest: Kim against Olle" in html.unescape(answer.content.decode())
    win, tie = three_against_three()
    phone = panel_of(
        page(logged_in(kids.table.player), "rolls:character", kids.table.campaign.pk, kids.olle.pk)
    )
    assert f"Olle's chance to win: <b>{percent(win)}</b>, a tie: {percent(tie)}" in phone
    assert f"(exact: {win})" in phone and "Roll Body" in phone
    # Lea is not in it: nothing to press on her phone.
    other = panel_of(page(logged_in(kids.third), "rolls:campaign", kids.table.campaign.pk))
    assert "Kim against Olle" in other and "<button" not in other


def test_six_18_the_console_refuses_a_contest_of_one_kid_or_a_kid_from_elsewhere(kids: Kids) -> None:
    url = reverse("rolls:contest-create", args=[kids.table.campaign.pk])
    gm = logged_in(kids.table.gm)
    alone = gm.post(url, {"sides": [str(kids.olle.pk)], f"s{kids.olle.pk}-trait": "Body"}, **HX)
    assert alone.status_code == 422 and "Tick 2 to 8" in html.unescape(alone.content.decode())
    stranger = gm.post(url, {"sides": ["999999"]}, **HX)
    assert stranger.status_code == 422 and "Tick only characters from this table" in html.unescape(
        stranger.content.decode()
    )
    assert not Contest.objects.exists()


def test_six_19_a_tie_broken_by_a_condition_from_the_phone(kids: Kids, dice: Script) -> None:
    open_versus(kids, kids.olle, kids.kim)  # Kim is side 0, Olle side 1 (the form's order)
    dice(6, 1, 1)
    assert post_side(kids, kids.second, 0, "rolls:contest-roll").status_code == 200
    # Sealed: Olle's phone and the display see that Kim rolled, not what.
    olle_page = page(logged_in(kids.table.player), "rolls:campaign", kids.table.campaign.pk)
    assert not FACE.search(olle_page) and "rolled, sealed" in panel_of(olle_page)
    display = page(logged_in(kids.third), "rolls:display", kids.table.campaign.display_token)
    assert not FACE.search(display) and "rolled, sealed" in panel_of(display)
    # Buying before the reveal is refused.
    early = post_side(kids, kids.second, 0, "rolls:contest-act", {"action": "buy", "condition": "Upset"})
    assert early.status_code == 422 and "not a step this side may take now" in early.content.decode()
    dice(6, 2, 2)
    post_side(kids, kids.table.player, 1, "rolls:contest-roll")

    kim = panel_of(page(logged_in(kids.second), "rolls:campaign", kids.table.campaign.pk))
    assert "Tied at 1 success: Kim and Olle" in kim
    assert kim.count("Buy a success: check a Condition") == 1  # her own side only
    # Olle's player cannot buy for Kim.
    theirs = post_side(
        kids, kids.table.player, 0, "rolls:contest-act", {"action": "buy", "condition": "Upset"}
    )
    assert theirs.status_code == 422 and "Only Kim's player acts for Kim" in html.unescape(
        theirs.content.decode()
    )
    bought = post_side(kids, kids.second, 0, "rolls:contest-act", {"action": "buy", "condition": "Scared"})
    assert bought.status_code == 200
    assert "Kim leads with 2 successes" in html.unescape(bought.content.decode())
    assert LogEntry.objects.filter(action="contest-step").count() == 1
    # Twice: Kim is ahead alone now.
    again = post_side(kids, kids.second, 0, "rolls:contest-act", {"action": "buy", "condition": "Upset"})
    assert again.status_code == 422

    display = panel_of(page(logged_in(kids.third), "rolls:display", kids.table.campaign.display_token))
    assert "2 successes (1 bought with Scared)" in display and "<form" not in display

    contest = Contest.objects.get()
    logged_in(kids.table.gm).post(
        reverse("rolls:contest-close", args=[kids.table.campaign.pk, contest.pk]), {}, **HX
    )
    assert Contest.objects.get().verdict == "Kim wins, 2 to 1 successes, and says what happens."


def test_six_17_the_gm_opens_group_trouble_and_a_spare_success_is_given_from_the_phone(
    kids: Kids, dice: Script
) -> None:
    data: dict[str, Any] = {
        "kind": "group",
        "setup-need": "1",
        "sides": [str(kids.olle.pk), str(kids.kim.pk)],
        "intent": "Through the blizzard",
    }
    for character in (kids.olle, kids.kim):
        data[f"s{character.pk}-trait"] = "Body"
        data[f"s{character.pk}-need"] = "1"
    url = reverse("rolls:contest-create", args=[kids.table.campaign.pk])
    answer = logged_in(kids.table.gm).post(url, data, **HX)
    assert answer.status_code == 200
    assert "Group Trouble: Kim, Olle" in html.unescape(answer.content.decode())
    assert Contest.objects.get().kind == Contest.Kind.GROUP
    phone = panel_of(page(logged_in(kids.second), "rolls:campaign", kids.table.campaign.pk))
    assert "Roll Body" in phone and "chance to win" not in phone
    dice(6, 6, 1)
    post_side(kids, kids.second, 0, "rolls:contest-roll")
    dice(1, 2, 3)
    post_side(kids, kids.table.player, 1, "rolls:contest-roll")
    kim = panel_of(page(logged_in(kids.second), "rolls:campaign", kids.table.campaign.pk))
    assert "2 successes of 1: passes" in kim and "0 successes of 1: fails" in kim
    assert "Kim gets through; Olle fails" in kim and "Give a spare success" in kim
    olle = panel_of(page(logged_in(kids.table.player), "rolls:campaign", kids.table.campaign.pk))
    assert "Give a spare success" not in olle
    given = post_side(kids, kids.second, 0, "rolls:contest-act", {"action": "give", "to": "Olle"})
    assert given.status_code == 200
    assert "Everyone gets through" in html.unescape(given.content.decode())
    again = post_side(kids, kids.second, 0, "rolls:contest-act", {"action": "give", "to": "Olle"})
    assert again.status_code == 422
    display = panel_of(page(logged_in(kids.third), "rolls:display", kids.table.campaign.display_token))
    assert "1 success of 1: passes (got 1 from Kim)" in display and "<form" not in display


def console_row(kids: Kids, character: Any) -> str:
    """The GM's contest form's fields for one kid (its inputs are named ``s<pk>-...``)."""
    console = page(logged_in(kids.table.gm), "rolls:session", kids.table.campaign.pk)
    form = console.split('id="contest-form"')[1].split("</form>")[0]
    return "".join(re.findall(rf"<(?:input|select)[^>]*name=\"s{character.pk}-[^\"]*\"[^>]*>", form))


def test_six_18_the_console_marks_need_and_threat_as_unused_in_kid_versus_kid(kids: Kids) -> None:
    """SIX-18 (most successes wins), SIX-17 (the group's need), SIX-20 (each part its own):
    the need is not shown for kid versus kid or group Trouble, the threat not for kid versus
    kid; the stylesheet hides what the chosen kind marks, and the trait is always there."""
    fields = console_row(kids, kids.olle)
    need = re.search(rf"<select[^>]*name=\"s{kids.olle.pk}-need\"[^>]*>", fields)
    threat = re.search(rf"<input[^>]*name=\"s{kids.olle.pk}-threat\"[^>]*>", fields)
    trait = re.search(rf"<select[^>]*name=\"s{kids.olle.pk}-trait\"[^>]*>", fields)
    assert need is not None and 'data-unused-in="contest group"' in need.group()
    assert threat is not None and 'data-unused-in="contest"' in threat.group()
    assert trait is not None and "data-unused-in" not in trait.group()
    css = (settings.BASE_DIR / "static/css/console.css").read_text()
    for kind in ("contest", "group", "plan"):
        assert f"option[value={kind}]:checked) .console-field:has([data-unused-in~={kind}])" in css


def test_six_18_a_challenge_asks_no_need_or_threat(kids: Kids) -> None:
    """SIX-18: a challenge is always kid versus kid, so neither field is drawn at all."""
    screen = page(logged_in(kids.table.player), "rolls:character", kids.table.campaign.pk, kids.olle.pk)
    challenge = screen.split('class="challenge"')[1].split("</form>")[0]
    assert f"s{kids.olle.pk}-trait" in challenge
    assert f"s{kids.olle.pk}-need" not in challenge and f"s{kids.olle.pk}-threat" not in challenge


def test_six_18_a_need_or_threat_posted_for_kid_versus_kid_is_ignored(kids: Kids) -> None:
    """SIX-18: what the form does not show does nothing: every kid rolls with need 1 and no
    threat, whatever was posted (as doubles drops a Difficulty Number)."""
    data: dict[str, Any] = {"sides": [str(kids.olle.pk), str(kids.kim.pk)], "intent": "The bike"}
    for character in (kids.olle, kids.kim):
        data[f"s{character.pk}-trait"] = "Body"
        data[f"s{character.pk}-need"] = "3"
        data[f"s{character.pk}-threat"] = "on"
    url = reverse("rolls:contest-create", args=[kids.table.campaign.pk])
    assert logged_in(kids.table.gm).post(url, data, **HX).status_code == 200
    for side in Contest.objects.get().sides.all():
        assert side.data["need"] == 1 and side.data["threat"] is False


def test_six_17_six_20_group_and_plan_read_what_they_show(kids: Kids) -> None:
    """SIX-17: a group kid's need is the group's, their threat their own; SIX-20: a part keeps
    its own need and threat."""
    url = reverse("rolls:contest-create", args=[kids.table.campaign.pk])
    for kind, setup in (("group", {"setup-need": "2"}), ("plan", {"setup-parts": "Lure; Grab"})):
        data: dict[str, Any] = {"kind": kind, "sides": [str(kids.olle.pk), str(kids.kim.pk)], **setup}
        for character in (kids.olle, kids.kim):
            data[f"s{character.pk}-trait"] = "Body"
            data[f"s{character.pk}-need"] = "3"
            data[f"s{character.pk}-threat"] = "on"
        assert logged_in(kids.table.gm).post(url, data, **HX).status_code == 200
        contest = Contest.objects.get(kind=kind)
        for side in contest.sides.all():
            assert side.data["need"] == (2 if kind == "group" else 3)
            assert side.data["threat"] is True
        contests_cancel(contest, kids)


def contests_cancel(contest: Contest, kids: Kids) -> None:
    url = reverse("rolls:contest-cancel", args=[kids.table.campaign.pk, contest.pk])
    assert logged_in(kids.table.gm).post(url, CONFIRMED, **HX).status_code == 200


def test_six_18_someone_without_a_sheet_is_asked_no_need_either(kids: Kids) -> None:
    """SIX-18: against a kid only the sixes count, so the side without a sheet has its dice
    asked and no need; a need posted anyway is not read."""
    console = page(logged_in(kids.table.gm), "rolls:session", kids.table.campaign.pk)
    form = console.split('id="contest-form"')[1].split("</form>")[0]
    assert 'name="npc-flag_dice"' in form and 'name="npc-flag_need"' not in form
    data: dict[str, Any] = {
        "sides": [str(kids.olle.pk), "npc"],
        f"s{kids.olle.pk}-trait": "Body",
        "npc-name": "The bully",
        "npc-flag_dice": "3",
        "npc-flag_need": "3",
    }
    url = reverse("rolls:contest-create", args=[kids.table.campaign.pk])
    assert logged_in(kids.table.gm).post(url, data, **HX).status_code == 200
    npc = Contest.objects.get().sides.get(npc=True)
    assert npc.data["dice"] == 3 and npc.data.get("need", 1) == 1


def test_six_18_the_panel_reads_every_kids_roll_in_one_query(kids: Kids, dice: Script) -> None:
    """SIX-18: the panel's reading asks for each kid's successes many times over (who leads,
    who may buy); every roll's newest state comes from one query for the whole panel."""
    open_versus(kids, kids.olle, kids.kim, kids.lea)
    for position, user in enumerate((kids.second, kids.third, kids.table.player)):  # by name
        dice(6, 1, 1)
        assert post_side(kids, user, position, "rolls:contest-roll").status_code == 200
    membership = Membership.objects.get(campaign=kids.table.campaign, user=kids.table.player)
    with CaptureQueriesContext(connection) as queries:
        (view,) = contest_views(kids.table.campaign.pk, membership)
    assert [side.result for side in view.sides] == ["1 success"] * 3
    log_reads = [query["sql"] for query in queries if '"rolls_logentry"' in query["sql"]]
    assert len(log_reads) == 1, log_reads


def test_six_17_group_trouble_shows_each_kid_the_exact_chance_before_rolling(kids: Kids) -> None:
    """SIX-17: before rolling, a kid's phone in group Trouble shows the exact chance of the
    successes the group needs (Body alone: three dice, two sixes)."""
    data: dict[str, Any] = {
        "kind": "group",
        "setup-need": "2",
        "sides": [str(kids.olle.pk), str(kids.kim.pk)],
        "intent": "Through the blizzard",
    }
    for character in (kids.olle, kids.kim):
        data[f"s{character.pk}-trait"] = "Body"
    url = reverse("rolls:contest-create", args=[kids.table.campaign.pk])
    assert logged_in(kids.table.gm).post(url, data, **HX).status_code == 200
    two_of_three = Fraction(3 * 5 + 1, 6**3)  # exactly two sixes, or three
    phone = panel_of(page(logged_in(kids.table.player), "rolls:campaign", kids.table.campaign.pk))
    assert f"Olle's chance to get 2 sixes: <b>{percent(two_of_three)}</b>" in phone
    assert f"(exact: {two_of_three})" in phone and "chance to win" not in phone


@pytest.mark.parametrize(("olle", "kim"), [(("Body", ""), ("Body", "0")), (("Body", "0"), ("Body", ""))])
def test_six_18_the_phones_show_the_odds_the_command_line_prints_for_either_side(
    kids: Kids, olle: tuple[str, str], kim: tuple[str, str]
) -> None:
    """SIX-18: each phone's chance to win is ``manage.py odds sixes --dice A --against --dice
    B`` with its own pool first, whichever order the sides are in."""
    import json
    from io import StringIO

    from django.core.management import call_command

    data: dict[str, Any] = {"sides": [str(kids.olle.pk), str(kids.kim.pk)], "intent": "The last bike"}
    for character, (trait, skill) in ((kids.olle, olle), (kids.kim, kim)):
        data[f"s{character.pk}-trait"] = trait if not skill else f"skill-{skill}"
    url = reverse("rolls:contest-create", args=[kids.table.campaign.pk])
    assert logged_in(kids.table.gm).post(url, data, **HX).status_code == 200
    pools = {}
    for name, character in (("Olle", kids.olle), ("Kim", kids.kim)):
        side = Contest.objects.get().sides.get(character=character)
        from rolls import registry

        request, _ = registry.table("sixes").pool(character, side.data)
        pools[name] = registry.engine("sixes").parse_request(request).dice
    assert pools["Olle"] != pools["Kim"]
    for name, user, other in (("Olle", kids.table.player, "Kim"), ("Kim", kids.second, "Olle")):
        out = StringIO()
        call_command(
            "odds",
            "sixes",
            "--dice",
            str(pools[name]),
            "--against",
            "--dice",
            str(pools[other]),
            "--json",
            stdout=out,
        )
        exact = json.loads(out.getvalue())["contest_exact"]
        phone = panel_of(page(logged_in(user), "rolls:campaign", kids.table.campaign.pk))
        assert f"{name}'s chance to win: <b>{percent(Fraction(exact['win']))}</b>" in phone
        assert f"a tie: {percent(Fraction(exact['tie']))}" in phone and f"(exact: {exact['win']})" in phone
