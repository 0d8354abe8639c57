"""A roll's own page: the whole chain, who did what and when, the engine's exact odds at each
step, the GM's note; and a hidden roll shows a player nothing but that it was rolled."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from rolls import registry
from rolls.models import Roll, RollNote
from rolls.play import services
from rolls.systems.base import percent
from tests.factories import ScriptedDice, Table, logged_in
from tests.test_history import roll, secret_roll


def url(table: Table, made: Roll) -> str:
    return reverse("rolls:roll", args=[table.campaign.pk, made.pk])


@pytest.mark.django_db
def test_the_page_shows_the_chain_step_by_step_with_the_odds_SIX_23(table: Table) -> None:
    made = roll(table, 1, 2, 3)
    services.follow_up_apply(
        roll=made,
        actor=table.player,
        action="push",
        params={"condition": "Scared", "description": "Ada runs for it"},
        rng=ScriptedDice(6, then=1),
    )
    html = logged_in(table.player).get(url(table, made)).content.decode()

    engine = registry.engine("sixes")
    fresh = engine.chance(engine.parse_request({"dice": 3, "need": 1}))
    assert fresh is not None
    steps = html[html.index('class="roll-steps"') :]
    assert steps.count("<li") == 2
    # The roll: its chance as rolled; the push (SIX-23): the engine's odds before and after.
    assert f"Chance of success: {percent(fresh)}" in steps
    first = made.entries.order_by("seq").first()
    assert first is not None and first.state is not None
    resources = registry.table("sixes").resources(table.character, latest=True)
    push = {f.action: f for f in engine.follow_ups(first.state, resources)}["push"]
    assert push.chance_before is not None and push.chance_after is not None
    assert f"Chance of success: {percent(push.chance_before)} -&gt; {percent(push.chance_after)}" in steps
    assert "Player" in steps  # who did it
    assert re.search(r'<time datetime="[^"]+">', steps)
    assert "Success" in steps and "Failure" in steps  # the headline after each step


@pytest.mark.django_db
def test_the_gm_keeps_a_note_that_only_the_gm_sees(table: Table) -> None:
    made = roll(table, 6, 1, 1)
    note_url = reverse("rolls:roll-note", args=[table.campaign.pk, made.pk])
    gm, player = logged_in(table.gm), logged_in(table.player)

    assert player.post(note_url, {"note": "Mine now"}).status_code == 403
    assert gm.post(note_url, {"note": "The lock was trapped."}).status_code == 302
    assert RollNote.objects.get(roll=made).text == "The lock was trapped."
    assert "The lock was trapped." in gm.get(url(table, made)).content.decode()
    assert "The lock was trapped." not in player.get(url(table, made)).content.decode()
    assert "Your note" not in player.get(url(table, made)).content.decode()

    refused = gm.post(note_url, {"note": "x" * 2001})
    assert refused.status_code == 422
    assert "A note holds at most 2000 characters." in refused.content.decode()
    assert RollNote.objects.get(roll=made).text == "The lock was trapped."
    # A NUL would make PostgreSQL refuse the row: refused in words first, on every database.
    refused = gm.post(note_url, {"note": "trap\x00door"})
    assert refused.status_code == 422
    assert "A note cannot hold control characters." in refused.content.decode()
    assert gm.post(note_url, {"note": "Two lines:\nthe lock,\tthe trap."}).status_code == 302


def _without_ids(html: str, made: Roll) -> str:
    """The page without what differs between any two requests or two rolls alike: the
    script nonce, the roll's id, number and time."""
    html = re.sub(rf'-roll-{made.pk}"', '-roll-ID"', html)
    html = re.sub(rf"/rolls/{made.pk}/", "/rolls/ID/", html)
    html = re.sub(rf'data-roll="{made.pk}"', 'data-roll="ID"', html)
    html = re.sub(r"#\d+", "#N", html)
    html = re.sub(r'datetime="[^"]+"', 'datetime=""', html)
    html = re.sub(r"\d\d:\d\d", "HH:MM", html)
    html = re.sub(r'data-seq="\d+"', 'data-seq=""', html)
    html = re.sub(r'nonce="[^"]+"', 'nonce=""', html)
    html = re.sub(r'"X-CSRFToken": "[^"]+"', '"X-CSRFToken": ""', html)
    return re.sub(r'name="csrfmiddlewaretoken" value="[^"]+"', "", html)


@pytest.mark.django_db
def test_a_secret_rolls_page_shows_a_player_only_that_it_was_rolled(table: Table) -> None:
    six = secret_roll(table, 6, 6, 6, name="Ghost")
    other = services.npc_roll_create(
        campaign=table.campaign,
        gm=table.gm,
        name="Ogre",
        request=registry.engine("sixes").parse_request({"dice": 5, "need": 2}),
        secret=True,
        target=None,
        intent="waits",
        rng=ScriptedDice(1, 2, 3, 4, 5),
    )
    player = logged_in(table.player)
    one, two = (player.get(url(table, made)) for made in (six, other))

    assert one.status_code == two.status_code == 200
    # Byte for byte the same page but for the id, the number and the time: nothing of the
    # request, the dice, the chain or the outcome gets through.
    assert _without_ids(one.content.decode(), six) == _without_ids(two.content.decode(), other)
    page = one.content.decode()
    assert "The GM rolled in secret." in page
    for secret in ("Ghost", "sneaks up", 'data-face="6"', "Success", "roll-steps", "Chance"):
        assert secret not in page
    # The GM sees it all.
    gm_page = logged_in(table.gm).get(url(table, six)).content.decode()
    assert "Ghost" in gm_page and "sneaks up" in gm_page and 'data-face="6"' in gm_page


@pytest.mark.django_db
def test_a_roll_of_another_campaign_is_not_found(table: Table) -> None:
    made = roll(table, 6, 1, 1)
    outsider = logged_in(table.outsider)
    assert outsider.get(url(table, made)).status_code == 404
    for roll_id in (made.pk + 1000, 2**63, 0):
        path = f"/c/{table.campaign.pk}/rolls/{roll_id}/"
        assert logged_in(table.player).get(path).status_code == 404


@pytest.mark.django_db
@pytest.mark.parametrize("system", registry.slugs())
def test_every_systems_roll_has_a_page_with_its_odds_and_a_history_filter(system: str) -> None:
    from tests import factories
    from tests.test_fuzz import a_roll, an_npc_roll, offered

    table = factories.table(system, sheet=factories.sheet_of(system))
    made = a_roll(system, table.character, table.player)
    # A follow-up when the engine offers one, so the page shows its odds too.
    for follow_up in offered(made)[:1]:
        params = {
            p.name: ([p.choices[0]] if p.multiple else p.choices[0]) if p.choices else p.minimum
            for p in follow_up.params
        }
        try:
            services.follow_up_apply(
                roll=made, actor=table.gm, action=follow_up.action, params=params,
                rng=ScriptedDice(then=6), by_gm=True,
            )  # fmt: skip
        except ValueError:
            pass  # a choice this roll cannot take: the page without a follow-up then
    npc = an_npc_roll(table.campaign, table.gm, table.character)
    for each in (made, npc):
        for user in (table.gm, table.player):
            response = logged_in(user).get(url(table, each))
            assert response.status_code == 200
            assert "roll-steps" in response.content.decode()
    engine = registry.engine(system)
    made.refresh_from_db()
    assert made.outcome in engine.tone_names or made.outcome in ("amazing", "catastrophe")
    history = reverse("rolls:history", args=[table.campaign.pk])
    for tone in engine.tone_names:
        assert logged_in(table.player).get(history, {"outcome": tone}).status_code == 200
    for action in engine.follow_up_names:
        assert logged_in(table.gm).get(history, {"follow_up": action}).status_code == 200
