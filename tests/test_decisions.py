"""Every decision of the table reaches every screen (issue 42): the TV shows each as a line the
room reads, live (its socket's batch, ``rolls.live.display.display_since``) and after a reload
(its page); a verdict draws its contest's cards again with it and without buttons; a void takes
its roller's buttons at once; a secret roll revealed goes on top of the TV; real dice switched
on reach an open roll screen; a socket-drawn form posts with the page's token. And what the TV
and players may not see stays off them."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.test import Client
from django.urls import reverse

from rolls.campaigns import services as campaigns
from rolls.contests import services as contests
from rolls.history import marks
from rolls.live import display
from rolls.live.feed import render_since
from rolls.models import LogEntry
from rolls.play import services
from tabletop.models import Campaign, Membership
from tests.factories import ScriptedDice, logged_in, table
from tests.test_contests import stars_sheet
from tests.test_contests_sets import Pair, duel
from tests.test_contests_sets import bid as sets_bid
from tests.test_contests_sets import roll as sets_roll
from tests.test_display import (
    SECRET_INTENT,
    bytes_until,
    empty_channel_layer,  # noqa: F401  (a fixture, used by name)
    open_display,
    secret_roll,
)
from tests.test_sixes_contests import Kids, versus
from tests.test_sixes_contests import roll as kid_roll

FACE = re.compile(r'data-face="\d"')


def tv_since(campaign: Campaign, since: int = 0) -> str:
    text, _ = display.display_since(Campaign.objects.get(pk=campaign.pk), since)
    return html.unescape(text)


def tv_page(campaign: Campaign) -> str:
    campaign = Campaign.objects.get(pk=campaign.pk)
    response = Client().get(reverse("rolls:display", args=[campaign.display_token]))
    assert response.status_code == 200
    return html.unescape(response.content.decode())


def socket_of(user: Any, campaign: Campaign, since: int, result_for: int | None = None) -> str:
    membership = Membership.objects.select_related("campaign").get(campaign=campaign, user=user)
    text, _ = render_since(membership, since, result_for)
    return html.unescape(text)


def last_seq(campaign: Campaign) -> int:
    return Campaign.objects.get(pk=campaign.pk).last_seq


def settled_kids() -> tuple[Kids, Any, int]:
    """Olle (3 dice: one six) against Kim (none), both revealed; the seq before the GM settles."""
    kids = Kids()
    contest = versus(kids, kids.olle, kids.kim)
    kid_roll(kids, contest, 0, 6, 2, 1)
    kid_roll(kids, contest, 1, 3, 2, 1)
    before = last_seq(kids.table.campaign)
    return kids, contest, before


def test_six_18_the_tv_shows_who_won_live_and_after_a_reload(db: None) -> None:
    kids, contest, before = settled_kids()
    closed = contests.contest_close(contest=contest, gm=kids.table.gm)
    assert closed.verdict.startswith("Olle wins")
    live = tv_since(kids.table.campaign, before)
    assert closed.verdict in live
    # Both cards drawn again with the verdict under their own outcome.
    for side in contest.sides.all():
        assert f'id="feed-roll-{side.roll_id}"' in live
    assert live.count(f"Settled: {closed.verdict}") == 2
    page = tv_page(kids.table.campaign)
    assert closed.verdict in page and f"Settled: {closed.verdict}" in page


def test_six_18_after_the_verdict_the_rollers_screen_loses_its_buttons_live(db: None) -> None:
    kids, contest, before = settled_kids()
    olle = contest.sides.get(position=0).roll
    follow_up = reverse("rolls:follow-up", args=[kids.table.campaign.pk, olle.pk])
    ahead = socket_of(kids.table.player, kids.table.campaign, 0, result_for=kids.olle.pk)
    assert f'action="{follow_up}"' in ahead  # the push Olle had
    contests.contest_close(contest=contest, gm=kids.table.gm)
    after = socket_of(kids.table.player, kids.table.campaign, before, result_for=kids.olle.pk)
    assert f'id="result-roll-{olle.pk}"' in after and f'id="feed-roll-{olle.pk}"' in after
    assert f'action="{follow_up}"' not in after
    gm = socket_of(kids.table.gm, kids.table.campaign, before, result_for=kids.olle.pk)
    assert f'action="{follow_up}"' not in gm


def test_a_contest_called_off_is_a_line_on_the_tv(db: None) -> None:
    kids, contest, before = settled_kids()
    contests.contest_cancel(contest=contest, gm=kids.table.gm)
    live = tv_since(kids.table.campaign, before)
    assert "The GM called it off: no contest between Olle and Kim." in live
    assert live.count("The GM called this contest off.") == 2


def test_set_4_a_sealed_bid_and_the_bids_revealed_are_lines_on_the_tv_the_bid_only_once_revealed(
    db: None,
) -> None:
    pair = Pair()
    contest = duel(pair)
    sets_roll(contest, 0, pair.table.player, 4, 4, 2)
    sets_roll(contest, 1, pair.second, 6, 6, 1)
    before = last_seq(pair.table.campaign)

    sets_bid(contest, 0, pair.table.player, ["0", "1"])
    sealed = tv_since(pair.table.campaign, before)
    assert "Ada has bid, sealed." in sealed
    assert "2x4" not in sealed and "2x4" not in tv_page(pair.table.campaign)

    sets_bid(contest, 1, pair.second, ["0", "1"])
    revealed = tv_since(pair.table.campaign, before)
    assert "Bo has bid, sealed." in revealed
    assert re.search(r'class="event event-contest-step"[^>]*>Bids revealed: [^<]*2x4', revealed)
    assert "Bids revealed:" in tv_page(pair.table.campaign)


def test_session_mystery_and_calls_are_lines_on_the_tv(db: None) -> None:
    t = table("sixes")
    before = last_seq(t.campaign)
    campaigns.mystery_start(campaign=t.campaign, actor=t.gm)
    campaigns.session_end(campaign=t.campaign, actor=t.gm)
    campaigns.session_start(campaign=t.campaign, actor=t.gm)
    campaigns.dice_mode_set(campaign=t.campaign, gm=t.gm, dice="physical")
    live = tv_since(t.campaign, before)
    for line in ("Mystery 2 begins.", "Session 1 ended.", "Session 2 started.", "real dice, entered by hand"):
        assert line in live, line
    page = tv_page(t.campaign)
    assert "Session 2 started." in page and "real dice, entered by hand" in page


def test_str_a_long_rest_is_a_line_on_the_tv(db: None) -> None:
    t = table("stars", sheet=stars_sheet())
    before = last_seq(t.campaign)
    campaigns.long_rest(campaign=t.campaign, actor=t.gm)
    entry = LogEntry.objects.filter(campaign=t.campaign).order_by("-seq").first()
    assert entry is not None and entry.text in tv_since(t.campaign, before)


def test_a_void_takes_the_rollers_buttons_at_once(db: None) -> None:
    t = table("sixes")
    roll = services.roll_create(
        character=t.character,
        roller=t.player,
        data={"attribute": "Body", "skill": "", "need": 1},
        helper=None,
        intent="",
        rng=ScriptedDice(3, 2, 1),
    )
    follow_up = reverse("rolls:follow-up", args=[t.campaign.pk, roll.pk])
    before = last_seq(t.campaign)
    marks.roll_void(roll=roll, gm=t.gm)
    phone = socket_of(t.player, t.campaign, before, result_for=t.character.pk)
    assert f'id="result-roll-{roll.pk}"' in phone
    assert f'action="{follow_up}"' not in phone
    assert "voided" in phone


def test_a_revealed_secret_roll_goes_on_top_of_the_tv_and_not_before(db: None) -> None:
    t = table("sixes")
    roll = secret_roll(t)
    hidden = tv_since(t.campaign, 0)
    assert not FACE.search(hidden) and SECRET_INTENT not in hidden
    before = last_seq(t.campaign)
    marks.roll_reveal(roll=roll, gm=t.gm)
    live = tv_since(t.campaign, before)
    assert f'<li id="feed-roll-{roll.pk}" hx-swap-oob="delete"></li>' in live
    assert 'hx-swap-oob="afterbegin:#feed"' in live and FACE.search(live)


def test_decision_lines_leak_no_sealed_or_secret_dice_to_the_tv_or_players(db: None) -> None:
    """The new lines carry what the table may see: a contest still sealed shows no die, and a
    secret roll's intent stays the GM's, on the TV and on the other player's socket."""
    kids = Kids()
    contest = versus(kids, kids.olle, kids.kim)
    kid_roll(kids, contest, 0, 6, 6, 6)
    secret_roll(kids.table)
    for seen in (
        tv_since(kids.table.campaign),
        tv_page(kids.table.campaign),
        socket_of(kids.second, kids.table.campaign, 0, result_for=kids.kim.pk),
    ):
        assert not FACE.search(seen)
        assert SECRET_INTENT not in seen


def test_real_dice_switched_on_reach_an_open_roll_screen(db: None) -> None:
    t = table("sixes")
    before = last_seq(t.campaign)
    campaigns.dice_mode_set(campaign=t.campaign, gm=t.gm, dice="physical")
    phone = socket_of(t.player, t.campaign, before, result_for=t.character.pk)
    assert 'id="roll-dice" class="roll-dice" hx-swap-oob="true"' in phone
    assert "data-keypad" in phone
    odds = reverse("rolls:odds", args=[t.campaign.pk, t.character.pk])
    assert f'hx-get="{odds}"' in phone
    # And off again: the keypad goes.
    before = last_seq(t.campaign)
    campaigns.dice_mode_set(campaign=t.campaign, gm=t.gm, dice="digital")
    phone = socket_of(t.player, t.campaign, before, result_for=t.character.pk)
    assert 'id="roll-dice"' in phone and "data-keypad" not in phone
    # A page without a roll form is sent no keypad.
    assert "roll-dice" not in socket_of(t.player, t.campaign, before)


def test_a_follow_up_card_names_its_rolls_number_not_the_follow_ups(db: None) -> None:
    """Issue 44: after a push the card's footer said "#19" where its page says "Roll #7"."""
    t = table("sixes")
    roll = services.roll_create(
        character=t.character,
        roller=t.player,
        data={"attribute": "Body", "skill": "", "need": 1},
        helper=None,
        intent="",
        rng=ScriptedDice(3, 2, 1),
    )
    number = roll.entries.get(kind=LogEntry.Kind.ROLL).seq
    client = logged_in(t.player)
    url = reverse("rolls:follow-up", args=[t.campaign.pk, roll.pk])
    pushed = client.post(
        url,
        {"action": "push", "place": "result", "condition": "Scared", "description": "runs"},
        HTTP_HX_REQUEST="true",
    )
    assert pushed.status_code == 200, pushed.content
    newest = roll.entries.order_by("-seq").first()
    assert newest is not None and newest.seq > number
    page = html.unescape(
        client.get(reverse("rolls:character", args=[t.campaign.pk, t.character.pk])).content.decode()
    )
    assert f'aria-label="Roll #{number}: its page">#{number}</a>' in page
    assert f">#{newest.seq}</a>" not in page
    feed = socket_of(t.gm, t.campaign, number)
    assert f">#{number}</a>" in feed


def test_close_this_call_drawn_by_the_socket_posts_with_the_pages_token(db: None) -> None:
    """The form the socket draws has no token of its own: htmx sends the page's (``<body
    hx-headers>``), and the console gets the calls back, the call closed."""
    t = table("sixes")
    services.call_create(
        campaign=t.campaign,
        gm=t.gm,
        characters=[t.character],
        data={"attribute": "Body", "skill": "", "need": 1},
        label="Body",
        intent="",
    )
    call = t.campaign.calls.get()
    drawn = socket_of(t.gm, t.campaign, 0)
    close = reverse("rolls:call-close", args=[t.campaign.pk, call.pk])
    assert f'hx-post="{close}"' in drawn and "csrfmiddlewaretoken" not in drawn
    client = Client(enforce_csrf_checks=True)
    client.force_login(t.gm)
    page = client.get(reverse("rolls:session", args=[t.campaign.pk])).content.decode()
    token = re.search(r'"X-CSRFToken": "([^"]+)"', page)
    assert token is not None
    assert client.post(close, HTTP_HX_REQUEST="true").status_code == 403  # no token: refused
    answer = client.post(close, HTTP_HX_REQUEST="true", HTTP_X_CSRFTOKEN=token.group(1))
    assert answer.status_code == 200 and 'id="call-status"' in answer.content.decode()
    call.refresh_from_db()
    assert call.closed
    # A second tap (another of the GM's screens closed it first) gets the calls, no error.
    again = client.post(close, HTTP_HX_REQUEST="true", HTTP_X_CSRFTOKEN=token.group(1))
    assert again.status_code == 200


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("empty_channel_layer")
async def test_six_18_the_tvs_socket_hears_the_verdict_live_and_no_sealed_die_before_it() -> None:
    """Through the display's socket: a side rolled sealed shows no die, the reveal shows both,
    and the GM's settle arrives as the verdict's line with both cards drawn again."""
    kids = await database_sync_to_async(Kids)()
    contest = await database_sync_to_async(versus)(kids, kids.olle, kids.kim)
    campaign = await database_sync_to_async(Campaign.objects.get)(pk=kids.table.campaign.pk)
    communicator, connected = await open_display(campaign.display_token)
    assert connected
    await communicator.send_json_to({"since": campaign.last_seq})
    last = campaign.last_seq
    await database_sync_to_async(kid_roll)(kids, contest, 0, 6, 6, 1)
    sealed = await bytes_until(communicator, last + 1)
    assert not FACE.search(sealed)
    await database_sync_to_async(kid_roll)(kids, contest, 1, 3, 2, 1)
    closed = await database_sync_to_async(contests.contest_close)(contest=contest, gm=kids.table.gm)
    now = await database_sync_to_async(last_seq)(kids.table.campaign)
    live = html.unescape(await bytes_until(communicator, now))
    assert closed.verdict.startswith("Olle wins") and closed.verdict in live
    assert live.count(f"Settled: {closed.verdict}") == 2
    await communicator.disconnect()
