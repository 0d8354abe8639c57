"""Accounts, campaigns, joining by link, play sessions, Mysteries and members, through the views."""

from __future__ import annotations

import random

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from rolls.campaigns import services
from rolls.models import LogEntry, Roll
from rolls.play import services as roll_services
from rolls.systems import RulesError
from tabletop.models import Campaign, Character, Membership, PlaySession
from tests import factories
from tests.factories import Table, logged_in

User = get_user_model()
NEW_PASSWORD = "a-long-walk-by-the-loop"


def text(response: object) -> str:
    return response.content.decode()  # type: ignore[attr-defined]


def events(campaign: Campaign) -> list[str]:
    return list(
        LogEntry.objects.filter(campaign=campaign, kind=LogEntry.Kind.EVENT)
        .order_by("seq")
        .values_list("action", flat=True)
    )


# -- signing up and logging in -------------------------------------------------------------------


@pytest.mark.real_passwords
def test_signup_creates_an_account_logs_in_and_opens_the_campaign_form(db: None, client: Client) -> None:
    response = client.post(
        reverse("tabletop:signup"),
        {"username": "gunilla", "password1": NEW_PASSWORD, "password2": NEW_PASSWORD},
    )

    assert response.status_code == 302
    assert response["Location"] == reverse("rolls:campaign-new")
    user = User.objects.get(username="gunilla")
    assert user.check_password(NEW_PASSWORD)
    assert client.get(reverse("rolls:campaign-new")).status_code == 200


def test_signup_refuses_passwords_that_do_not_match(db: None, client: Client) -> None:
    response = client.post(
        reverse("tabletop:signup"),
        {"username": "gunilla", "password1": NEW_PASSWORD, "password2": NEW_PASSWORD + "x"},
    )

    assert response.status_code == 200
    assert "The two password fields didn" in text(response)
    assert not User.objects.filter(username="gunilla").exists()


def test_signup_refuses_a_username_that_is_taken(db: None, client: Client) -> None:
    factories.user("gunilla")

    response = client.post(
        reverse("tabletop:signup"),
        {"username": "gunilla", "password1": NEW_PASSWORD, "password2": NEW_PASSWORD},
    )

    assert response.status_code == 200
    assert User.objects.filter(username="gunilla").count() == 1


@pytest.mark.real_passwords
def test_login_with_username_and_password_opens_the_home_page(db: None, client: Client) -> None:
    factories.user("gunilla")

    response = client.post(reverse("tabletop:login"), {"username": "gunilla", "password": factories.PASSWORD})

    assert response.status_code == 302
    assert response["Location"] == reverse("tabletop:home")
    assert "Your campaigns" in text(client.get(reverse("tabletop:home")))


@pytest.mark.real_passwords
def test_login_refuses_a_wrong_password(db: None, client: Client) -> None:
    factories.user("gunilla")

    response = client.post(reverse("tabletop:login"), {"username": "gunilla", "password": "wrong"})

    assert response.status_code == 200
    assert "_auth_user_id" not in client.session


def test_logout_ends_the_session(table: Table) -> None:
    client = logged_in(table.player)

    response = client.post(reverse("tabletop:logout"))

    assert response.status_code == 302
    # Signed out now: the campaign's page asks to sign in again.
    after = client.get(reverse("rolls:campaign", args=[table.campaign.pk]))
    assert after.status_code == 302
    assert after["Location"].startswith(reverse("tabletop:login"))


def test_home_lists_the_users_campaigns_and_nobody_elses(table: Table) -> None:
    factories.campaign(table.outsider, name="Elsewhere")

    page = text(logged_in(table.player).get(reverse("tabletop:home")))

    assert "The Loop" in page
    assert "you play as Player" in page
    assert "Elsewhere" not in page


# -- creating a campaign -------------------------------------------------------------------------


def test_creating_a_campaign_makes_the_user_its_gm_and_opens_the_session_page(db: None) -> None:
    gm = factories.user("gunilla")
    client = logged_in(gm)

    response = client.post(
        reverse("rolls:campaign-new"),
        {"name": "  Summer of '85 ", "system": "sixes", "display_name": "Gun"},
    )

    campaign = Campaign.objects.get()
    assert response.status_code == 302
    assert response["Location"] == reverse("rolls:session", args=[campaign.pk])
    assert campaign.name == "Summer of '85"
    assert campaign.system == "sixes"
    assert campaign.gm == gm
    membership = Membership.objects.get(campaign=campaign)
    assert (membership.user, membership.display_name, membership.is_gm) == (gm, "Gun", True)
    assert client.get(response["Location"]).status_code == 200


def test_the_campaign_form_refuses_an_unknown_system(db: None) -> None:
    client = logged_in(factories.user("gunilla"))

    response = client.post(
        reverse("rolls:campaign-new"), {"name": "Elsewhere", "system": "d20", "display_name": "GM"}
    )

    assert response.status_code == 200
    assert "Select a valid choice" in text(response)
    assert not Campaign.objects.exists()


def test_the_campaign_form_requires_a_name(db: None) -> None:
    client = logged_in(factories.user("gunilla"))

    response = client.post(
        reverse("rolls:campaign-new"), {"name": "   ", "system": "sixes", "display_name": "GM"}
    )

    assert response.status_code == 200
    assert "This field is required." in text(response)
    assert not Campaign.objects.exists()


def test_the_campaign_service_refuses_a_system_the_registry_does_not_hold(db: None) -> None:
    with pytest.raises(RulesError, match="not at the table"):
        services.campaign_create(gm=factories.user(), name="Elsewhere", system="d20", display_name="GM")

    assert not Campaign.objects.exists()
    assert not Membership.objects.exists()


def test_creating_a_campaign_needs_a_login(db: None, client: Client) -> None:
    response = client.post(
        reverse("rolls:campaign-new"), {"name": "Elsewhere", "system": "sixes", "display_name": "GM"}
    )

    assert response.status_code == 302
    assert response["Location"].startswith(reverse("tabletop:login"))
    assert not Campaign.objects.exists()


# -- joining by link -----------------------------------------------------------------------------


def join_path(campaign: Campaign) -> str:
    return reverse("rolls:join", args=[campaign.join_token])


def test_joining_by_link_makes_a_player_account_logs_it_in_and_tells_the_table(
    table: Table, client: Client
) -> None:
    users_before = User.objects.count()

    page = client.get(join_path(table.campaign))
    response = client.post(join_path(table.campaign), {"display_name": "  Kim  "})

    assert page.status_code == 200
    assert "Join The Loop" in text(page)
    assert response.status_code == 302
    assert response["Location"] == reverse("rolls:character-new", args=[table.campaign.pk])
    assert User.objects.count() == users_before + 1
    membership = Membership.objects.get(campaign=table.campaign, display_name="Kim")
    assert not membership.is_gm
    assert not membership.user.has_usable_password()
    assert client.get(reverse("rolls:campaign", args=[table.campaign.pk])).status_code == 200
    last = LogEntry.objects.filter(campaign=table.campaign).order_by("-seq").first()
    assert last is not None
    assert (last.action, last.text) == ("member-joined", "Kim joined the table.")


def test_joining_by_link_when_logged_in_uses_the_account(table: Table) -> None:
    client = logged_in(table.outsider)
    users_before = User.objects.count()

    response = client.post(join_path(table.campaign), {"display_name": "Outi"})

    assert response.status_code == 302
    assert User.objects.count() == users_before
    assert Membership.objects.get(campaign=table.campaign, user=table.outsider).display_name == "Outi"


def test_opening_the_join_link_again_as_a_member_goes_to_the_campaign(table: Table) -> None:
    client = logged_in(table.player)

    response = client.post(join_path(table.campaign), {"display_name": "Someone else"})

    assert response.status_code == 302
    assert response["Location"] == reverse("rolls:campaign", args=[table.campaign.pk])
    assert Membership.objects.filter(campaign=table.campaign, user=table.player).count() == 1
    assert Membership.objects.get(campaign=table.campaign, user=table.player).display_name == "Player"


@pytest.mark.parametrize("name", ["", "   "])
def test_joining_needs_a_display_name_and_creates_nothing_without_one(
    table: Table, client: Client, name: str
) -> None:
    users_before = User.objects.count()
    members_before = Membership.objects.count()

    response = client.post(join_path(table.campaign), {"display_name": name})

    assert response.status_code == 200
    assert "This field is required." in text(response)
    assert User.objects.count() == users_before
    assert Membership.objects.count() == members_before
    assert "_auth_user_id" not in client.session


def test_a_display_name_longer_than_40_characters_is_refused(table: Table, client: Client) -> None:
    members_before = Membership.objects.count()

    response = client.post(join_path(table.campaign), {"display_name": "K" * 41})

    assert response.status_code == 200
    assert "at most 40 characters" in text(response)
    assert Membership.objects.count() == members_before


def test_a_rotated_join_link_shows_the_link_does_not_work_page(table: Table, client: Client) -> None:
    old = join_path(table.campaign)

    response = logged_in(table.gm).post(reverse("rolls:join-link-rotate", args=[table.campaign.pk]))
    table.campaign.refresh_from_db()

    assert response.status_code == 302
    assert join_path(table.campaign) != old
    refused = client.post(old, {"display_name": "Kim"})
    assert refused.status_code == 404
    assert "This join link does not work" in text(refused)
    assert not Membership.objects.filter(display_name="Kim").exists()
    assert client.get(join_path(table.campaign)).status_code == 200


def test_an_unknown_join_token_shows_the_link_does_not_work_page(db: None, client: Client) -> None:
    response = client.get(reverse("rolls:join", args=["no-such-token"]))

    assert response.status_code == 404
    assert "This join link does not work" in text(response)


@pytest.mark.parametrize("token", ["%00", "a%00b", "%E2%80%AEevil", "x" * 300])
def test_a_join_link_that_no_token_looks_like_shows_the_link_does_not_work_page(
    db: None, client: Client, token: str
) -> None:
    # PostgreSQL refuses a NUL byte in a query; this path asks it nothing.
    response = client.get(f"/join/{token}/")

    assert response.status_code == 404
    assert "This join link does not work" in text(response)


# -- claiming an account -------------------------------------------------------------------------


@pytest.mark.real_passwords
def test_a_player_who_joined_by_link_claims_an_account_and_logs_in_with_it_elsewhere(
    table: Table, client: Client
) -> None:
    client.post(join_path(table.campaign), {"display_name": "Kim"})

    response = client.post(
        reverse("tabletop:account"),
        {"username": "kim", "new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD},
    )

    assert response.status_code == 302
    # The phone stays logged in after the password change.
    assert client.get(reverse("rolls:campaign", args=[table.campaign.pk])).status_code == 200
    laptop = Client()
    login = laptop.post(reverse("tabletop:login"), {"username": "kim", "password": NEW_PASSWORD})
    assert login.status_code == 302
    assert laptop.get(reverse("rolls:campaign", args=[table.campaign.pk])).status_code == 200


@pytest.mark.real_passwords
def test_a_player_who_joined_by_link_is_shown_where_to_set_a_password_until_they_have(
    table: Table, client: Client
) -> None:
    client.post(join_path(table.campaign), {"display_name": "Kim"})
    account = reverse("tabletop:account")
    pages = [reverse("tabletop:home"), reverse("rolls:campaign", args=[table.campaign.pk])]
    for page in pages:
        assert f'<a href="{account}">Set a user name and password</a>' in text(client.get(page)), page

    client.post(account, {"username": "kim", "new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD})

    for page in pages:
        assert "Set a user name and password" not in text(client.get(page)), page
    # The GM signed up with a password: nothing to point them to.
    gm = logged_in(table.gm)
    assert "Set a user name and password" not in text(gm.get(pages[1]))


def test_claiming_a_username_that_is_taken_is_refused(table: Table, client: Client) -> None:
    client.post(join_path(table.campaign), {"display_name": "Kim"})

    response = client.post(
        reverse("tabletop:account"),
        {"username": "GM", "new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD},
    )

    assert response.status_code == 200
    assert "That username is taken." in text(response)
    assert User.objects.filter(username__iexact="gm").count() == 1


@pytest.mark.parametrize(
    ("username", "password1", "password2", "message"),
    [
        ("kim", NEW_PASSWORD, NEW_PASSWORD + "!", "The two password fields didn"),
        ("kim", "12345678", "12345678", "too common"),
        ("kim lee", NEW_PASSWORD, NEW_PASSWORD, "Enter a valid username"),
    ],
)
def test_claiming_an_account_with_bad_values_changes_nothing(
    table: Table, client: Client, username: str, password1: str, password2: str, message: str
) -> None:
    client.post(join_path(table.campaign), {"display_name": "Kim"})
    user = Membership.objects.get(display_name="Kim").user
    before = user.get_username()

    response = client.post(
        reverse("tabletop:account"),
        {"username": username, "new_password1": password1, "new_password2": password2},
    )

    assert response.status_code == 200
    assert message in text(response)
    user.refresh_from_db()
    assert user.get_username() == before
    assert not user.has_usable_password()


# -- play sessions and Mysteries -----------------------------------------------------------------


def test_the_gm_ends_the_session_and_the_table_is_told(table: Table) -> None:
    response = logged_in(table.gm).post(
        reverse("rolls:session-end", args=[table.campaign.pk]), {"confirmed": "yes"}
    )

    assert response.status_code == 302
    assert response["Location"] == reverse("rolls:session", args=[table.campaign.pk])
    assert table.campaign.open_session() is None
    assert events(table.campaign)[-1] == "session-end"


def test_the_gm_starts_a_new_session_with_the_next_number(table: Table) -> None:
    client = logged_in(table.gm)
    client.post(reverse("rolls:session-end", args=[table.campaign.pk]), {"confirmed": "yes"})

    response = client.post(reverse("rolls:session-start", args=[table.campaign.pk]), follow=True)

    session = table.campaign.open_session()
    assert session is not None
    assert session.number == 2
    assert "The session has started." in text(response)
    assert "Session 2 is on" in text(response)
    assert LogEntry.objects.filter(campaign=table.campaign).order_by("-seq")[0].text == (
        "Session 2 started. Luck points are full again."
    )


def test_starting_a_session_while_one_runs_is_refused_with_a_message(table: Table) -> None:
    entries_before = LogEntry.objects.count()

    response = logged_in(table.gm).post(reverse("rolls:session-start", args=[table.campaign.pk]), follow=True)

    assert response.status_code == 200
    assert "A play session is already running." in text(response)
    assert PlaySession.objects.filter(campaign=table.campaign).count() == 1
    assert LogEntry.objects.count() == entries_before


def test_ending_a_session_when_none_runs_is_refused_with_a_message(table: Table) -> None:
    client = logged_in(table.gm)
    client.post(reverse("rolls:session-end", args=[table.campaign.pk]), {"confirmed": "yes"})
    entries_before = LogEntry.objects.count()

    response = client.post(
        reverse("rolls:session-end", args=[table.campaign.pk]), {"confirmed": "yes"}, follow=True
    )

    assert "No play session is running." in text(response)
    assert LogEntry.objects.count() == entries_before


def test_six_5_the_gm_starts_a_new_mystery(table: Table) -> None:
    response = logged_in(table.gm).post(
        reverse("rolls:mystery-start", args=[table.campaign.pk]), {"confirmed": "yes"}, follow=True
    )

    table.campaign.refresh_from_db()
    assert table.campaign.mystery == 2
    assert "Mystery 2" in text(response)
    last = LogEntry.objects.filter(campaign=table.campaign).order_by("-seq")[0]
    assert (last.action, last.text) == ("mystery-start", "Mystery 2 begins. Pride is available again.")


def test_a_gm_control_sent_by_htmx_answers_with_a_client_redirect(table: Table) -> None:
    response = logged_in(table.gm).post(
        reverse("rolls:mystery-start", args=[table.campaign.pk]), {"confirmed": "yes"}, HTTP_HX_REQUEST="true"
    )

    assert response.status_code == 200
    assert response["HX-Redirect"] == reverse("rolls:session", args=[table.campaign.pk])


def test_the_session_page_shows_the_gm_the_join_link_qr_code_and_members(table: Table) -> None:
    response = logged_in(table.gm).get(reverse("rolls:session", args=[table.campaign.pk]))

    page = text(response)
    assert response.status_code == 200
    assert join_path(table.campaign) in page
    assert "<svg" in page
    assert "Remove Player" in page
    assert "End session 1" in page


# -- members -------------------------------------------------------------------------------------


def test_the_gm_removes_a_member_whose_characters_leave_and_whose_rolls_stay(
    table: Table, rng: random.Random
) -> None:
    roll = roll_services.roll_create(
        character=table.character,
        roller=table.player,
        data={"attribute": "Body"},
        helper=None,
        intent="",
        rng=rng,
    )
    membership = Membership.objects.get(campaign=table.campaign, user=table.player)

    response = logged_in(table.gm).post(
        reverse("rolls:member-remove", args=[table.campaign.pk, membership.pk])
    )

    assert response.status_code == 302
    assert not Membership.objects.filter(pk=membership.pk).exists()
    assert not Character.objects.filter(pk=table.character.pk).exists()
    roll.refresh_from_db()
    assert (roll.character, roll.character_name) == (None, "Olle")
    assert events(table.campaign)[-1] == "member-removed"
    assert logged_in(table.player).get(reverse("rolls:campaign", args=[table.campaign.pk])).status_code == 404
    # The history still shows the roll, by the character's name.
    history = text(logged_in(table.gm).get(reverse("rolls:history", args=[table.campaign.pk])))
    assert f'id="history-roll-{roll.pk}"' in history


def test_the_gm_cannot_remove_themself(table: Table) -> None:
    membership = Membership.objects.get(campaign=table.campaign, user=table.gm)

    response = logged_in(table.gm).post(
        reverse("rolls:member-remove", args=[table.campaign.pk, membership.pk]), follow=True
    )

    assert "The GM cannot be removed from their own campaign." in text(response)
    assert Membership.objects.filter(pk=membership.pk).exists()


def test_removing_a_member_of_another_campaign_is_not_found(table: Table) -> None:
    elsewhere = factories.campaign(table.outsider, name="Elsewhere")
    stranger = factories.member(elsewhere)

    response = logged_in(table.gm).post(reverse("rolls:member-remove", args=[table.campaign.pk, stranger.pk]))

    assert response.status_code == 404
    assert Membership.objects.filter(pk=stranger.pk).exists()


def _remove(table: Table, user: object) -> Membership:
    membership = Membership.objects.get(campaign=table.campaign, user=user)
    response = logged_in(table.gm).post(
        reverse("rolls:member-remove", args=[table.campaign.pk, membership.pk])
    )
    assert response.status_code == 302
    return membership


def test_a_removed_member_cannot_come_straight_back_with_the_same_link(table: Table) -> None:
    _remove(table, table.player)
    phone = logged_in(table.player)

    page = phone.get(join_path(table.campaign))
    posted = phone.post(join_path(table.campaign), {"display_name": "Player again"})

    for response in (page, posted):
        assert response.status_code == 403
        assert "The GM removed you from this table" in text(response)
        assert 'name="display_name"' not in text(response)
    assert not Membership.objects.filter(campaign=table.campaign, user=table.player).exists()
    assert events(table.campaign)[-1] == "member-removed"
    # The rest of the table keeps its link.
    assert Client().get(join_path(table.campaign)).status_code == 200


def test_the_gm_lets_a_removed_member_back_in_and_they_join_again(table: Table) -> None:
    _remove(table, table.player)
    gm = logged_in(table.gm)
    session = text(gm.get(reverse("rolls:session", args=[table.campaign.pk])))
    assert "Let Player back in" in session
    ban = table.campaign.bans.get()
    assert ban.user == table.player

    response = gm.post(reverse("rolls:member-readmit", args=[table.campaign.pk, ban.pk]))

    assert response.status_code == 302
    assert not table.campaign.bans.exists()
    assert "Let Player back in" not in text(gm.get(reverse("rolls:session", args=[table.campaign.pk])))
    joined = logged_in(table.player).post(join_path(table.campaign), {"display_name": "Player"})
    assert joined.status_code == 302
    assert Membership.objects.filter(campaign=table.campaign, user=table.player).exists()
    assert events(table.campaign)[-3:] == ["member-removed", "member-readmitted", "member-joined"]
    last = LogEntry.objects.filter(campaign=table.campaign).order_by("-seq")[:2]
    assert [entry.text for entry in last] == ["Player joined the table.", "The GM let Player back in."]


def test_only_the_gm_lets_a_removed_member_back_in(table: Table) -> None:
    other = factories.member(table.campaign, name="Kim")
    _remove(table, other.user)
    ban = table.campaign.bans.get()
    url = reverse("rolls:member-readmit", args=[table.campaign.pk, ban.pk])
    elsewhere = factories.campaign(table.outsider, name="Elsewhere")

    assert logged_in(table.player).post(url).status_code == 403
    assert logged_in(table.outsider).post(url).status_code == 404
    assert (
        logged_in(table.outsider)
        .post(reverse("rolls:member-readmit", args=[elsewhere.pk, ban.pk]))
        .status_code
        == 404
    )
    assert logged_in(table.gm).get(url).status_code == 405
    assert (
        logged_in(table.gm).post(reverse("rolls:member-readmit", args=[table.campaign.pk, 2**64])).status_code
        == 404
    )
    assert table.campaign.bans.get() == ban


def test_the_join_service_refuses_a_removed_account(table: Table) -> None:
    _remove(table, table.player)

    with pytest.raises(RulesError, match="removed you"):
        services.member_join(campaign=table.campaign, user=table.player, display_name="Sneaky")

    assert not Membership.objects.filter(campaign=table.campaign, user=table.player).exists()


# -- only the GM controls the table --------------------------------------------------------------

GM_CONTROLS = ["session-start", "session-end", "mystery-start", "join-link-rotate"]


def table_state(campaign: Campaign) -> tuple[object, ...]:
    campaign.refresh_from_db()
    return (
        campaign.mystery,
        campaign.join_token,
        campaign.last_seq,
        list(campaign.sessions.values_list("number", "ended")),
        Membership.objects.filter(campaign=campaign).count(),
    )


@pytest.mark.parametrize("control", GM_CONTROLS)
def test_a_player_may_not_use_gm_controls(table: Table, control: str) -> None:
    before = table_state(table.campaign)

    response = logged_in(table.player).post(reverse(f"rolls:{control}", args=[table.campaign.pk]))

    assert response.status_code == 403
    assert "Only the GM can do that." in text(response)
    assert table_state(table.campaign) == before


@pytest.mark.parametrize("control", GM_CONTROLS)
def test_gm_controls_of_a_campaign_are_not_found_for_outsiders(table: Table, control: str) -> None:
    before = table_state(table.campaign)

    response = logged_in(table.outsider).post(reverse(f"rolls:{control}", args=[table.campaign.pk]))

    assert response.status_code == 404
    assert table_state(table.campaign) == before


@pytest.mark.parametrize("control", GM_CONTROLS)
def test_gm_controls_refuse_get(table: Table, control: str) -> None:
    before = table_state(table.campaign)

    response = logged_in(table.gm).get(reverse(f"rolls:{control}", args=[table.campaign.pk]))

    assert response.status_code == 405
    assert table_state(table.campaign) == before


def test_a_player_may_not_remove_a_member(table: Table) -> None:
    other = factories.member(table.campaign, name="Kim")

    response = logged_in(table.player).post(
        reverse("rolls:member-remove", args=[table.campaign.pk, other.pk])
    )

    assert response.status_code == 403
    assert Membership.objects.filter(pk=other.pk).exists()


def test_the_campaign_page_offers_the_session_page_to_the_gm_only(table: Table) -> None:
    session_url = reverse("rolls:session", args=[table.campaign.pk])

    gm_page = text(logged_in(table.gm).get(reverse("rolls:campaign", args=[table.campaign.pk])))
    player_page = text(logged_in(table.player).get(reverse("rolls:campaign", args=[table.campaign.pk])))

    assert session_url in gm_page
    assert session_url not in player_page


def test_removing_a_member_keeps_the_rolls_of_their_characters_by_name(
    table: Table, rng: random.Random
) -> None:
    kim = factories.member(table.campaign, name="Kim")
    bea = factories.character(table.campaign, kim.user, name="Bea")
    roll_services.roll_create(
        character=bea, roller=kim.user, data={"attribute": "Mind"}, helper=None, intent="", rng=rng
    )

    logged_in(table.gm).post(reverse("rolls:member-remove", args=[table.campaign.pk, kim.pk]))

    assert Character.objects.filter(campaign=table.campaign).get() == table.character
    assert Roll.objects.filter(character_name="Bea", character__isnull=True).count() == 1


def test_the_remove_button_of_a_live_list_removes_and_reloads_the_session_page(table: Table) -> None:
    # The list the socket sends has no CSRF field: htmx posts it with the page's token.
    kim = factories.member(table.campaign, name="Kim")
    gm = Client(enforce_csrf_checks=True)
    gm.force_login(table.gm)
    token = "".join(["ab"] * 16)
    gm.cookies["csrftoken"] = token

    response = gm.post(
        reverse("rolls:member-remove", args=[table.campaign.pk, kim.pk]),
        headers={"HX-Request": "true", "X-CSRFToken": token},
    )

    assert response.status_code == 200
    assert response["HX-Redirect"] == reverse("rolls:session", args=[table.campaign.pk])
    assert not Membership.objects.filter(pk=kim.pk).exists()
    assert "Kim was removed." in text(gm.get(response["HX-Redirect"]))


@pytest.mark.real_passwords
def test_changing_a_password_that_was_set_takes_the_current_one(table: Table) -> None:
    """A laptop left logged in on the big screen must not hand the GM's account to anyone."""
    client = logged_in(table.gm)
    form = {"username": "gm", "new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD}

    page = client.get(reverse("tabletop:account"))
    missing = client.post(reverse("tabletop:account"), form)
    wrong = client.post(reverse("tabletop:account"), {**form, "old_password": "guess"})
    table.gm.refresh_from_db()
    unchanged = table.gm.check_password(factories.PASSWORD)
    right = client.post(reverse("tabletop:account"), {**form, "old_password": factories.PASSWORD})

    assert "Current password" in text(page)
    assert missing.status_code == 200
    assert "This field is required." in text(missing)
    assert wrong.status_code == 200
    assert "That is not your current password." in text(wrong)
    assert unchanged
    assert right.status_code == 302
    table.gm.refresh_from_db()
    assert table.gm.check_password(NEW_PASSWORD)


def test_a_player_who_joined_by_link_is_not_asked_for_a_current_password(
    table: Table, client: Client
) -> None:
    client.post(join_path(table.campaign), {"display_name": "Kim"})

    page = client.get(reverse("tabletop:account"))

    assert "Current password" not in text(page)
