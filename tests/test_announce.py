"""The announcer's sentences (rolls/live/announce.py, issue 45): one per entry the socket sends,
drawn for what its audience may see, so a secret's dice, name and intent never reach a player
by ear either."""

from __future__ import annotations

import html
import re

from django.urls import reverse

from rolls import registry
from rolls.live import announce, feed
from rolls.log.events import TableEvent
from rolls.models import LogEntry, Roll
from rolls.play import services as roll_services
from rolls.play.npc import NpcRollForm
from rolls.sight.cards import build_card
from tabletop.models import Membership
from tests import factories
from tests.factories import Script, ScriptedDice, Table, npc_baseline, posted

SAID = re.compile(r'<div id="announcer" hx-swap-oob="innerHTML">(.*?)</div>', re.S)
HX = {"HTTP_HX_REQUEST": "true"}


def said(markup: str) -> list[str]:
    """The sentences a batch puts in the announcer, in order: the page is left saying the last."""
    return [html.unescape(sentence) for sentence in SAID.findall(markup)]


def batch(table: Table, user: object, since: int, **options: object) -> str:
    membership = Membership.objects.select_related("campaign").get(campaign=table.campaign, user=user)
    markup, _ = feed.render_since(membership, since, **options)  # type: ignore[arg-type]
    return markup


def roll(table: Table, dice: Script, *faces: int) -> Roll:
    dice(*faces)
    answer = factories.logged_in(table.player).post(
        reverse("rolls:roll-create", args=[table.campaign.pk, table.character.pk]),
        {"trait": "Body", "need": "1"},
        **HX,
    )
    assert answer.status_code == 200, answer.content
    return Roll.objects.latest("pk")


def luck(table: Table, dice: Script, made: Roll, *faces: int) -> None:
    dice(*faces)
    answer = factories.logged_in(table.player).post(
        reverse("rolls:follow-up", args=[table.campaign.pk, made.pk]),
        {"action": "luck", "place": "result"},
        **HX,
    )
    assert answer.status_code == 200, answer.content


def newest_seq() -> int:
    return LogEntry.objects.latest("seq").seq


def test_a_roll_is_one_sentence_for_every_screen(table: Table, dice: Script) -> None:
    since = newest_seq()
    roll(table, dice, 1, 1, 1)

    expected = ["Olle rolled 3 dice: Failure: 0 of 1 needed."]
    assert said(batch(table, table.gm, since)) == expected
    assert said(batch(table, table.player, since, result_for=table.character.pk)) == expected
    # The markup the table's sockets share (and the TV shows) says the same.
    assert said(feed.shared_markup(LogEntry.objects.latest("seq")).html) == expected


def test_a_follow_up_says_what_was_done_and_what_came_of_it(table: Table, dice: Script) -> None:
    made = roll(table, dice, 1, 1, 1)
    since = newest_seq()
    luck(table, dice, made, 6, 1, 1)

    expected = ["Olle, Luck point: rerolled the failed dice: Success: 1 of 1 needed."]
    assert said(batch(table, table.gm, since)) == expected
    assert said(batch(table, table.player, since, result_for=table.character.pk)) == expected


def test_a_batch_of_several_entries_leaves_the_last_ones_sentence(table: Table, dice: Script) -> None:
    """A page that catches up gets a sentence per entry, in order: it ends on the newest."""
    since = newest_seq()
    made = roll(table, dice, 1, 1, 1)
    luck(table, dice, made, 6, 1, 1)

    sentences = said(batch(table, table.gm, since))
    assert len(sentences) == 2
    assert sentences[-1] == "Olle, Luck point: rerolled the failed dice: Success: 1 of 1 needed."


def test_a_secret_gm_roll_says_nothing_of_it_to_a_player(table: Table) -> None:
    """A player hears what the card shows them (audience.sight): no name, intent or dice; the
    GM hears the dice."""
    form = NpcRollForm(posted(npc_baseline(table.campaign)), campaign=table.campaign)
    assert form.is_valid(), form.errors
    since = newest_seq()
    roll_services.npc_roll_create(
        campaign=table.campaign,
        gm=table.gm,  # type: ignore[arg-type]
        name="Goon",
        request=form.engine_request(),
        secret=True,
        target=None,
        intent="sneaks behind the kids",
        rng=ScriptedDice(6, then=1),
    )

    assert said(batch(table, table.player, since)) == ["The GM rolled in secret."]
    (gms,) = said(batch(table, table.gm, since))
    assert gms.startswith("Goon rolled ")
    assert "sneaks" not in gms  # the intent is on the card, not in the sentence


def test_a_hidden_rolls_follow_up_sounds_like_the_roll_itself(table: Table) -> None:
    """The table gets a blind roll's card again unchanged after each follow-up; its sentence
    must not tell that something was done either."""
    form = registry.table("sixes").roll_form(
        posted(factories.roll_data("sixes", table.character)), character=table.character
    )
    assert form.is_valid(), form.errors
    made = roll_services.roll_create(
        character=table.character,
        roller=table.player,  # type: ignore[arg-type]
        data=form.engine_data(),
        helper=None,
        intent="listens at the door",
        rng=ScriptedDice(6, then=1),
        blind=True,
    )
    entry = LogEntry.objects.latest("seq")
    card = build_card(made, entry.state or {}, entry.seq, place="feed")  # as the table sees it
    follow_up = LogEntry(kind=LogEntry.Kind.FOLLOW_UP, action="luck", campaign_id=table.campaign.pk)

    assert announce.for_entry(entry, card) == "Olle rolled blind."
    assert announce.for_entry(follow_up, card) == "Olle rolled blind."
    assert said(batch(table, table.player, entry.seq - 1)) == ["Olle rolled blind."]


def test_a_contest_verdict_says_the_contest_is_settled() -> None:
    verdict = LogEntry(kind=LogEntry.Kind.EVENT, action=TableEvent.CONTEST_END, text="Kim wins: 3 against 1.")
    assert announce.for_entry(verdict) == "Contest settled: Kim wins: 3 against 1."


def test_a_verdict_of_several_sentences_is_said_as_one() -> None:
    verdict = LogEntry(
        kind=LogEntry.Kind.EVENT,
        action=TableEvent.CONTEST_END,
        text="Ada bid 2x5, Bo (attacking) bid 3x3. Bo wins: the larger Size wins.",
    )
    assert announce.for_entry(verdict) == (
        "Contest settled: Ada bid 2x5, Bo (attacking) bid 3x3; Bo wins: the larger Size wins."
    )


def test_an_events_line_is_its_sentence_with_one_stop() -> None:
    called = LogEntry(kind=LogEntry.Kind.EVENT, action=TableEvent.CALL, text="The GM asks Olle to roll Body")
    ended = LogEntry(kind=LogEntry.Kind.EVENT, action=TableEvent.SESSION_END, text="Session 1 ended.")
    silent = LogEntry(kind=LogEntry.Kind.EVENT, action=TableEvent.JOIN_LINK, text="")

    assert announce.for_entry(called) == "The GM asks Olle to roll Body."
    assert announce.for_entry(ended) == "Session 1 ended."
    assert announce.for_entry(silent) == ""
    assert announce.markup("") == ""


def test_the_sentence_is_text_never_markup() -> None:
    assert announce.markup("<b>Ana</b> rolled.") == (
        '<div id="announcer" hx-swap-oob="innerHTML">&lt;b&gt;Ana&lt;/b&gt; rolled.</div>'
    )
