"""Without JavaScript: every form posts to a real action with its CSRF token, and a plain POST
(no htmx) answers with a whole page: a redirect to the page that shows what it did, or the
page again with the refusal next to the form. Every request here goes through Django's CSRF
check (``enforce_csrf_checks``), with the token taken from the page the form is on, as a
browser without scripts sends it.

The htmx answers stay as cheap as they were: no CSRF field in them, nor in what the socket
sends the whole table (htmx sends the page's token in a header)."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import AbstractBaseUser
from django.test import Client
from django.urls import reverse

from rolls.live import feed
from rolls.models import LogEntry, Roll, RollCall
from rolls.play import services
from tests import factories
from tests.factories import Script, Table, npc_baseline, sheet_of
from tests.markup import Page
from tests.test_table_doubles import doubles_sheet
from tests.test_table_sets import sets_sheet

pytestmark = pytest.mark.django_db

TOKEN = "csrfmiddlewaretoken"


def browser(user: AbstractBaseUser | None = None) -> Client:
    """A browser without JavaScript: no htmx header, and the CSRF check as in production."""
    client = Client(enforce_csrf_checks=True)
    if user is not None:
        client.force_login(user)  # type: ignore[arg-type]
    return client


def open_page(client: Client, url: str) -> Page:
    response = client.get(url)
    assert response.status_code == 200, response.content[:300]
    return Page(response.content.decode())


def went_to(client: Client, response: Any, url: str) -> Page:
    """The response is a redirect to ``url`` (a fragment allowed); the page it leads to."""
    assert response.status_code == 302, response.content[:500]
    assert response["Location"].split("#")[0] == url
    return open_page(client, response["Location"].split("#")[0])


def roll_screen(table: Table) -> str:
    return reverse("rolls:character", args=[table.campaign.pk, table.character.pk])


def session_page(table: Table) -> str:
    return reverse("rolls:session", args=[table.campaign.pk])


def latest_roll() -> Roll:
    found = Roll.objects.order_by("-id").first()
    assert found is not None
    return found


def everything(table: Table) -> tuple[object, ...]:
    table.campaign.refresh_from_db()
    return (Roll.objects.count(), LogEntry.objects.count(), table.campaign.last_seq, RollCall.objects.count())


# -- a player's roll and follow-ups ------------------------------------------------------------------


def test_a_post_without_the_token_is_refused_so_the_checks_below_are_real(table: Table, dice: Script) -> None:
    dice()
    url = reverse("rolls:roll-create", args=[table.campaign.pk, table.character.pk])

    response = browser(table.player).post(url, {"trait": "Body", "need": "1"})

    assert response.status_code == 403
    assert not Roll.objects.exists()


def test_a_plain_roll_goes_back_to_the_roll_screen_showing_its_result(table: Table, dice: Script) -> None:
    phone = browser(table.player)
    form = open_page(phone, roll_screen(table)).form(id="roll-form")
    assert form.action == reverse("rolls:roll-create", args=[table.campaign.pk, table.character.pk])
    assert form.method == "post" and form.value(TOKEN)
    dice(6, 2, 3)

    response = phone.post(form.action, form.data(trait="Body", intent="I climb the fence"))

    page = went_to(phone, response, roll_screen(table))
    made = latest_roll()
    assert response["Location"].endswith("#result")
    assert (made.trait, made.intent) == ("Body", "I climb the fence")
    assert f"result-roll-{made.pk}" in page.ids
    assert "Success: 1 of 1 needed" in page.text
    # The result's follow-ups work without JavaScript too: each carries the token.
    push = page.form(css="follow-up-push")
    assert push.value(TOKEN) and push.value("place") == "result"


def test_six_11_a_plain_push_goes_back_to_the_roll_screen_showing_the_pushed_roll(
    table: Table, dice: Script
) -> None:
    phone = browser(table.player)
    form = open_page(phone, roll_screen(table)).form(id="roll-form")
    dice(6, 1, 2)
    went_to(phone, phone.post(form.action, form.data(trait="Body")), roll_screen(table))
    made = latest_roll()
    push = open_page(phone, roll_screen(table)).form(css="follow-up-push")
    dice(6, 4)

    response = phone.post(push.action, push.data(condition="Scared", description="climbs the drainpipe"))

    page = went_to(phone, response, roll_screen(table))
    assert response["Location"].endswith(f"#result-roll-{made.pk}")
    entry = LogEntry.objects.filter(roll=made).order_by("-seq")[0]
    assert (entry.action, entry.state["steps"][-1]["dice"]) == ("push", [6, 6, 4])
    assert "Pushed, checking Scared" in page.text
    assert "climbs the drainpipe" in page.text  # SIX-23: what the kid does, on the card
    assert "Success: 2 of 1 needed" in page.text
    table.character.refresh_from_db()
    assert table.character.sheet["conditions"]["Scared"] is True


def test_set_5_a_plain_bid_of_ticked_dice_goes_back_to_the_roll_screen(db: None, dice: Script) -> None:
    table = factories.table("sets", character_name="Wilcott", sheet=sets_sheet())
    phone = browser(table.player)
    form = open_page(phone, roll_screen(table)).form(id="roll-form")
    dice(4, 4, 2, 1)
    roll = form.data(stat="Insight", bar="2", face="3", bonus="1")
    went_to(phone, phone.post(form.action, roll), roll_screen(table))
    bid = open_page(phone, roll_screen(table)).form(css="follow-up-bid")
    assert ("dice", "0") in bid.boxes and ("dice", "1") in bid.boxes
    dice()

    response = phone.post(bid.action, bid.data(dice=["0", "1"]))

    page = went_to(phone, response, roll_screen(table))
    entry = LogEntry.objects.filter(roll=latest_roll()).order_by("-seq")[0]
    assert (entry.action, entry.state["steps"][-1]["bid"]) == ("bid", "2x4")
    assert "2x4" in page.text


def test_dbl_10_a_plain_drama_die_goes_back_to_the_roll_screen(db: None, dice: Script) -> None:
    table = factories.table("doubles", character_name="Mara", sheet=doubles_sheet())
    phone = browser(table.player)
    form = open_page(phone, roll_screen(table)).form(id="roll-form")
    dice(2, 3)
    went_to(phone, phone.post(form.action, form.data(dn="6")), roll_screen(table))
    drama = open_page(phone, roll_screen(table)).form(css="follow-up-drama")
    dice(3, 6)

    response = phone.post(drama.action, drama.data(count="2"))

    page = went_to(phone, response, roll_screen(table))
    assert "Drama: 2 more dice for 10 Endurance" in page.text
    table.character.refresh_from_db()
    assert (table.character.endurance, table.character.drama_spent) == (20, 10)


def test_str_2_without_javascript_a_ticked_box_rolls_the_d3(db: None, dice: Script) -> None:
    """The d3 button needs a script; without one, the Roll button sends a d3 when its box is
    ticked (a second submit button would take Enter from Roll)."""
    table = factories.table("stars", character_name="Kit", sheet=sheet_of("stars"))
    phone = browser(table.player)
    form = open_page(phone, roll_screen(table)).form(id="roll-form")
    assert ("kind", "d3") in form.boxes
    dice(6)

    response = phone.post(form.action, form.data(kind="d3"))

    page = went_to(phone, response, roll_screen(table))
    assert latest_roll().trait == "d3"
    assert "d3: 3" in page.text


def test_str_11_a_plain_answer_to_a_roll_against_one_goes_back_to_that_panel(db: None, dice: Script) -> None:
    """The answer to a GM roll made against a character is posted from that character's
    roll screen (its card at "against"), and comes back there."""
    table = factories.table("stars", character_name="Dave", sheet=sheet_of("stars"))
    gm = browser(table.gm)
    url = reverse("rolls:npc-roll", args=[table.campaign.pk])
    quick = open_page(gm, session_page(table)).form(action=url)
    dice(6, 6, 6)
    attack = {
        **npc_baseline(table.campaign),
        "name": "Bouncer",
        "flag_dice": "3",
        "target": str(table.character.pk),
    }
    went_to(gm, gm.post(url, quick.data(**attack)), session_page(table))
    made = Roll.objects.get(npc=True)
    phone = browser(table.player)
    luck = open_page(phone, roll_screen(table)).form(css="follow-up-luck_against")
    assert luck.value("place") == "against" and luck.value(TOKEN)
    dice(1, 2, 3)

    response = phone.post(luck.action, luck.data())

    went_to(phone, response, roll_screen(table))
    assert response["Location"].endswith(f"#against-roll-{made.pk}")
    entry = LogEntry.objects.filter(roll=made).order_by("-seq")[0]
    assert (entry.action, entry.actor) == ("luck_against", table.player)


# -- refusals: the whole page again, the message next to the form ----------------------------------------


def test_a_refused_plain_roll_shows_the_roll_screen_again_with_the_message_by_the_form(
    table: Table, dice: Script
) -> None:
    phone = browser(table.player)
    form = open_page(phone, roll_screen(table)).form(id="roll-form")
    before = everything(table)
    dice()

    response = phone.post(form.action, form.data(trait="Body", need="4", intent="Over the wall"))

    assert response.status_code == 422
    page = Page(response.content.decode())
    assert "<html" in response.content.decode()
    assert "roll-refusal" in page.ids
    again = page.form(id="roll-form")
    assert again.value(TOKEN)  # try again, still without JavaScript
    assert again.value("intent") == "Over the wall"  # as it was typed
    assert ("button", "aria-describedby", "roll-refusal") in page.references
    assert "Select a valid choice" in page.text
    assert everything(table) == before


def test_a_refused_plain_follow_up_shows_the_page_again_with_the_message_on_its_card(
    table: Table, dice: Script
) -> None:
    phone = browser(table.player)
    form = open_page(phone, roll_screen(table)).form(id="roll-form")
    dice(6, 1, 2)
    phone.post(form.action, form.data(trait="Body"))
    made = latest_roll()
    push = open_page(phone, roll_screen(table)).form(css="follow-up-push")
    before = everything(table)
    dice()

    response = phone.post(push.action, push.data(condition="Sleepy"))

    assert response.status_code == 422
    page = Page(response.content.decode())
    assert f"result-roll-{made.pk}-refusal" in page.ids
    assert page.form(css="follow-up-push").value(TOKEN)
    assert everything(table) == before


def test_six_10_a_stale_push_is_refused_with_the_message_at_the_top_when_its_card_is_gone(
    table: Table, dice: Script
) -> None:
    phone = browser(table.player)
    form = open_page(phone, roll_screen(table)).form(id="roll-form")
    dice(6, 1, 2)
    phone.post(form.action, form.data(trait="Body"))
    stale = open_page(phone, roll_screen(table)).form(css="follow-up-push")
    dice(1, 1, 1)
    phone.post(form.action, form.data(trait="Body"))  # another roll since
    before = everything(table)
    dice()

    response = phone.post(stale.action, stale.data(condition="Scared"))

    assert response.status_code == 422
    page = Page(response.content.decode())
    notice = response.content.decode().split('id="notice"')[1].split("</div>")[0]
    assert "flash error" in notice and "Only the character&#x27;s latest roll can be pushed." in notice
    assert "Only the character's latest roll can be pushed." in page.text
    assert everything(table) == before


# -- the GM ------------------------------------------------------------------------------------------------


def test_the_gms_plain_npc_roll_goes_back_to_the_session_page_with_a_message(
    table: Table, dice: Script
) -> None:
    gm = browser(table.gm)
    url = reverse("rolls:npc-roll", args=[table.campaign.pk])
    form = open_page(gm, session_page(table)).form(action=url)
    assert form.value(TOKEN)
    dice(then=6)

    response = gm.post(url, form.data(**{**npc_baseline(table.campaign), "name": "The warden"}))

    page = went_to(gm, response, session_page(table))
    assert Roll.objects.get().character_name == "The warden"
    assert "Rolled for The warden." in page.text


def test_a_refused_npc_roll_shows_the_session_page_again_with_the_message_by_its_form(
    table: Table, dice: Script
) -> None:
    gm = browser(table.gm)
    url = reverse("rolls:npc-roll", args=[table.campaign.pk])
    form = open_page(gm, session_page(table)).form(action=url)
    dice()

    response = gm.post(url, form.data(name=""))

    assert response.status_code == 422
    page = Page(response.content.decode())
    assert "npc-refusal" in page.ids
    assert page.form(action=url).value(TOKEN)
    assert not Roll.objects.exists()


def test_the_gm_asks_for_a_roll_without_javascript(table: Table) -> None:
    gm = browser(table.gm)
    page = open_page(gm, roll_screen(table))
    form = page.form(id="roll-form")
    call_url = reverse("rolls:call-create", args=[table.campaign.pk, table.character.pk])
    # The "ask" button sends the same form elsewhere: formaction, no script.
    assert f'formaction="{call_url}"' in gm.get(roll_screen(table)).content.decode()

    response = gm.post(call_url, form.data(trait="Body"))

    page = went_to(gm, response, roll_screen(table))
    assert RollCall.objects.get().characters.get() == table.character
    assert "Asked Olle to roll" in page.text


def test_a_player_answers_a_call_without_javascript(table: Table, dice: Script) -> None:
    call = services.call_create(
        campaign=table.campaign,
        gm=table.gm,
        characters=[table.character],
        data={"trait": "Body", "need": "1"},
        label="Body",
    )
    phone = browser(table.player)
    answer = open_page(phone, roll_screen(table)).form(id=f"call-{call.pk}-{table.character.pk}")
    dice(6, 6, 1)

    response = phone.post(answer.action, answer.data())

    page = went_to(phone, response, roll_screen(table))
    assert latest_roll().call == call
    assert f"call-{call.pk}-{table.character.pk}" not in page.ids


def test_the_gm_closes_a_call_without_javascript(table: Table) -> None:
    call = services.call_create(
        campaign=table.campaign, gm=table.gm, characters=[table.character], data={}, label="Body"
    )
    gm = browser(table.gm)
    url = reverse("rolls:call-close", args=[table.campaign.pk, call.pk])
    form = open_page(gm, session_page(table)).form(action=url)

    response = gm.post(url, form.data())

    page = went_to(gm, response, session_page(table))
    call.refresh_from_db()
    assert call.closed
    assert "The call for Body is closed." in page.text


def test_the_gm_ends_and_starts_a_session_without_javascript(table: Table) -> None:
    gm = browser(table.gm)
    end = reverse("rolls:session-end", args=[table.campaign.pk])
    start = reverse("rolls:session-start", args=[table.campaign.pk])

    # Without script the page's dialog cannot ask: the post answers with a page that does.
    asked = gm.post(end, open_page(gm, session_page(table)).form(action=end).data())
    assert asked.status_code == 200 and table.campaign.open_session() is not None
    confirm = Page(asked.content.decode()).form(action=end)
    page = went_to(gm, gm.post(end, confirm.data()), session_page(table))
    assert "The session has ended." in page.text
    assert table.campaign.open_session() is None
    # Starting a session changes no sheet before the evening: it asks nothing.
    page = went_to(gm, gm.post(start, page.form(action=start).data()), session_page(table))
    assert "The session has started." in page.text
    assert table.campaign.open_session() is not None


def test_a_phone_joins_without_javascript(table: Table) -> None:
    phone = browser()
    url = reverse("rolls:join", args=[table.campaign.join_token])
    form = open_page(phone, url).form(action=url)  # the join form (the other one: the language switch)
    assert form.method == "post" and form.value(TOKEN)

    response = phone.post(form.action or url, form.data(display_name="Ash"))

    went_to(phone, response, reverse("rolls:character-new", args=[table.campaign.pk]))
    assert table.campaign.memberships.filter(display_name="Ash").exists()


# -- what htmx and the socket get: no token ------------------------------------------------------------------


def test_the_htmx_answer_to_a_roll_and_a_follow_up_carries_no_token(table: Table, dice: Script) -> None:
    phone = factories.logged_in(table.player)
    url = reverse("rolls:roll-create", args=[table.campaign.pk, table.character.pk])
    dice(1, 1, 1)
    rolled = phone.post(url, {"trait": "Body", "need": "1"}, HTTP_HX_REQUEST="true")
    assert rolled.status_code == 200 and "follow-up-push" in rolled.content.decode()
    dice(1, 1, 1)
    pushed = phone.post(
        reverse("rolls:follow-up", args=[table.campaign.pk, latest_roll().pk]),
        {"action": "luck", "place": "result"},
        HTTP_HX_REQUEST="true",
    )

    assert pushed.status_code == 200
    assert TOKEN not in rolled.content.decode()
    assert TOKEN not in pushed.content.decode()


def test_what_the_socket_sends_carries_no_token(table: Table, dice: Script) -> None:
    phone = factories.logged_in(table.player)
    url = reverse("rolls:roll-create", args=[table.campaign.pk, table.character.pk])
    dice(1, 1, 1)
    phone.post(url, {"trait": "Body", "need": "1"}, HTTP_HX_REQUEST="true")
    dice(1, 1, 1)
    phone.post(
        reverse("rolls:follow-up", args=[table.campaign.pk, latest_roll().pk]),
        {"action": "luck", "place": "result"},
        HTTP_HX_REQUEST="true",
    )
    gm_member = table.campaign.memberships.get(user=table.gm)
    player_member = table.campaign.memberships.get(user=table.player)

    shared = [feed.prepare_entry(entry) for entry in LogEntry.objects.order_by("seq")]
    own, _ = feed.render_since(player_member, 0, result_for=table.character.pk)
    gms, _ = feed.render_since(gm_member, 0)

    assert "follow-up-" in own  # the player's own result card, with its buttons
    for markup in (*[str(each) for each in shared], own, gms):
        assert TOKEN not in markup
