"""Issue 42: the GM voids or reveals a roll older than the one a player's result panel shows.
The socket's update of that older card finds no card on the roll screen; it is dropped without
a word (static/js/live.js, "cards-shown"), not reported as htmx:oobErrorNoTarget, while the
feed's copy of the card still takes the change."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from rolls.contests import services as contests
from tests.browser.conftest import Browsers, Shot
from tests.browser.flows import (
    drop_socket,
    in_thread,
    join_with_character,
    open_table,
    roll,
    roll_id,
    sign_in,
    wait_live,
    wake_up,
)
from tests.factories import Script
from tests.test_contests_sets import Pair as SetsPair
from tests.test_contests_sets import bid as sets_bid
from tests.test_contests_sets import duel as sets_duel
from tests.test_contests_sets import roll as sets_roll

pytestmark = pytest.mark.browser


def test_a_void_or_reveal_of_an_older_roll_leaves_no_console_error(
    browsers: Browsers, dice: Script, shot: Shot
) -> None:
    gm = browsers.gm()
    link = open_table(gm)
    session_url = gm.url
    bo = join_with_character(browsers.phone(), link, "Bruno", "Bo").page
    errors_at = len(browsers.errors)

    # A blind roll, then two open ones: the result panel shows only the newest.
    dice(2, 3, then=1)
    bo.get_by_label("Roll blind").check()
    blind = roll_id(roll(bo))
    dice(3, 2, then=1)
    older = roll_id(roll(bo))
    dice(4, 4, then=1)
    newest = roll_id(roll(bo))
    expect(bo.locator("#result .card")).to_have_attribute("data-roll", str(newest))

    rolls = session_url.rsplit("/session/", 1)[0] + "/rolls"
    gm.goto(f"{rolls}/{blind}/")
    gm.get_by_role("button", name="Reveal it to the table").click()
    expect(bo.locator(f"#feed-roll-{blind} .die").first).to_be_visible()

    gm.goto(f"{rolls}/{older}/")
    gm.get_by_role("button", name="Void this roll").click()
    expect(bo.locator(f"#feed-roll-{older}.voided")).to_have_count(1)

    # The result panel still shows the newest roll, untouched; the console stayed quiet.
    expect(bo.locator("#result .card")).to_have_attribute("data-roll", str(newest))
    expect(bo.locator("#result .card.voided")).to_have_count(0)
    bo.wait_for_timeout(300)
    shot(bo, "phone-older-roll-voided-360", full_page=False)
    assert browsers.errors[errors_at:] == []


def test_a_phone_behind_by_a_whole_contest_gets_its_side_s_card_then_each_redraw_of_it(
    browsers: Browsers, shot: Shot
) -> None:
    """CI once saw htmx:oobErrorNoTarget for a contest side's card on its roller's screen: the
    socket's batch redrew the card (a bid, the reveal) before the part that brings it there.
    Bo's phone is offline while Ada rolls and bids, Bo rolls from his other phone and the GM
    closes the contest; back online, it catches up in one batch, without a console error."""
    # Offline, the page's reconnect attempts fail, and the browser and htmx say so.
    browsers.ignore(r"ERR_INTERNET_DISCONNECTED")
    browsers.ignore(r"^\[object Event\]$")
    pair = in_thread(SetsPair)
    duel = in_thread(lambda: sets_duel(pair))
    phone = browsers.phone()
    sign_in(phone, pair.second, browsers.base_url)
    phone.goto(pair.bo.get_absolute_url())
    wait_live(phone)
    expect(phone.locator("#contests-panel")).to_contain_text("a duel on the stairs")
    errors_at = len(browsers.errors)

    phone.context.set_offline(True)
    drop_socket(phone)

    def play() -> tuple[int, str]:
        sets_roll(duel, 0, pair.table.player, 4, 4, 2)
        sets_bid(duel, 0, pair.table.player, [0, 1])
        bo = sets_roll(duel, 1, pair.second, 6, 5, 1)  # from his other phone
        return bo.pk, contests.contest_close(contest=duel, gm=pair.table.gm).verdict

    bo, verdict = in_thread(play)

    phone.context.set_offline(False)
    wake_up(phone)
    wait_live(phone)
    card = phone.locator("#result .card")
    expect(card).to_have_attribute("data-roll", str(bo))
    expect(card.locator(".contest-verdict")).to_contain_text(verdict)
    expect(card.locator(".follow-ups")).to_have_count(0)
    shot(phone, "phone-caught-up-contest-360", full_page=False)
    assert browsers.errors[errors_at:] == []


def test_a_card_s_redraw_lands_only_after_the_part_of_the_message_that_brings_the_card(
    browsers: Browsers,
) -> None:
    """The page's side of the same guard (static/js/live.js, "cards-shown"): in one socket
    message, a redraw of a card the page does not hold yet is dropped, and a redraw after the
    part that brings the card lands on it."""
    pair = in_thread(SetsPair)
    phone = browsers.phone()
    sign_in(phone, pair.second, browsers.base_url)
    phone.goto(pair.bo.get_absolute_url())
    wait_live(phone)
    errors_at = len(browsers.errors)
    message = (
        '<li id="result-roll-990001" class="card" data-roll="990001">too early</li>'
        '<section id="result" hx-swap-oob="innerHTML"><ol class="result-card">'
        '<li id="result-roll-990001" class="card" data-roll="990001">brought</li></ol></section>'
        '<li id="result-roll-990001" class="card" data-roll="990001">redrawn</li>'
        '<li id="result-roll-990002" class="card" data-roll="990002">never held</li>'
    )
    phone.evaluate(
        "html => window.__lastSocket.dispatchEvent(new MessageEvent('message', {data: html}))", message
    )
    expect(phone.locator("#result .card")).to_have_text("redrawn")
    expect(phone.locator("#result-roll-990002")).to_have_count(0)
    assert browsers.errors[errors_at:] == []
