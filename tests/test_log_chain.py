"""The log's hash chain: every entry written is chained to the one before, and ``verify_log``
(the command and the history page's button) finds a changed, a deleted and a moved entry."""

from __future__ import annotations

import io
import threading
from importlib import import_module

import pytest
from django.apps import apps
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection
from django.urls import reverse

from rolls.history.export import entry_content
from rolls.log import chain
from rolls.models import LogEntry
from rolls.play import services
from tabletop.models import Campaign, Character
from tests import factories
from tests.factories import Script, ScriptedDice, Table, logged_in


def play(table: Table, dice: Script, rolls: int = 3) -> None:
    dice(6, 2, 3, then=1)
    client = logged_in(table.player)
    url = reverse("rolls:roll-create", args=[table.campaign.pk, table.character.pk])
    for _ in range(rolls):
        assert client.post(url, {"trait": "Body", "need": 1}).status_code in (200, 302)


def verify(campaign: Campaign) -> tuple[int, str]:
    """``verify_log``'s exit code and what it said."""
    out, err = io.StringIO(), io.StringIO()
    try:
        call_command("verify_log", str(campaign.pk), stdout=out, stderr=err)
    except SystemExit as exit:
        return int(exit.code or 0), err.getvalue()
    return 0, out.getvalue()


def swap(campaign: Campaign, a: int, b: int) -> None:
    """Move two entries past each other, as someone with the database could."""
    log = LogEntry.objects.filter(campaign=campaign)
    log.filter(seq=a).update(seq=10_000)
    log.filter(seq=b).update(seq=a)
    log.filter(seq=10_000).update(seq=b)


@pytest.mark.django_db
def test_every_entry_is_chained_to_the_one_before(table: Table, dice: Script) -> None:
    play(table, dice)

    previous = chain.GENESIS
    entries = list(LogEntry.objects.filter(campaign=table.campaign).order_by("seq"))
    assert [e.seq for e in entries] == list(range(1, len(entries) + 1))
    assert sum(e.kind == LogEntry.Kind.ROLL for e in entries) == 3
    for entry in entries:
        assert len(entry.salt) == 32  # version 2: every entry has its salt
        about = None
        if entry.kind == LogEntry.Kind.ROLL and entry.roll is not None:
            roll = entry.roll
            about = {
                "session": roll.session.number,
                "system": roll.system,
                "character_name": roll.character_name,
                "helper_name": roll.helper_name,
                "target_name": roll.target_name,
                "intent": roll.intent,
                "trait": roll.trait,
                "visibility": roll.visibility,
                "npc": roll.npc,
                "mystery": roll.mystery,
                "by_hand": roll.by_hand,
            }
        content = chain.content(
            campaign=table.campaign.pk,
            seq=entry.seq,
            kind=entry.kind,
            action=entry.action,
            roll=entry.roll_id,
            actor=entry.actor_id,
            state=entry.state,
            text=entry.text,
            created=chain.timestamp(entry.created),
            dice=entry.dice,  # where the dice came from: the session's seal on its start
            salt=entry.salt,
            about=about,  # what the pages show of the roll, on its first entry
        )
        assert entry.hash == chain.link(previous, chain.digest(content))
        previous = entry.hash
    table.campaign.refresh_from_db()
    assert table.campaign.last_hash == previous


@pytest.mark.django_db
def test_an_intact_log_exits_0_and_says_so(table: Table, dice: Script) -> None:
    play(table, dice)

    code, said = verify(table.campaign)

    table.campaign.refresh_from_db()
    assert code == 0
    assert f"is intact: its {table.campaign.last_seq} entries match" in said


@pytest.mark.django_db
def test_a_changed_entry_exits_1_naming_it(table: Table, dice: Script) -> None:
    play(table, dice)
    entry = LogEntry.objects.filter(campaign=table.campaign, kind=LogEntry.Kind.ROLL).order_by("seq")[1]
    state = {**entry.state, "steps": [{**entry.state["steps"][0], "dice": [6, 6, 6]}]}
    LogEntry.objects.filter(pk=entry.pk).update(state=state)  # as someone with the database could

    code, said = verify(table.campaign)

    assert code == 1
    assert f"Entry {entry.seq} does not match" in said and "changed" in said


@pytest.mark.django_db
def test_a_deleted_entry_exits_1_naming_it(table: Table, dice: Script) -> None:
    play(table, dice)
    LogEntry.objects.filter(campaign=table.campaign, seq=2).delete()

    code, said = verify(table.campaign)

    assert code == 1
    assert "Entry 2 does not match: it is missing" in said


@pytest.mark.django_db
def test_deleting_the_newest_entry_shows_too(table: Table, dice: Script) -> None:
    play(table, dice)
    newest = LogEntry.objects.filter(campaign=table.campaign).order_by("seq").last()
    assert newest is not None
    newest.delete()

    code, said = verify(table.campaign)

    assert code == 1
    assert f"Entry {newest.seq} does not match: it is missing" in said


@pytest.mark.django_db
def test_a_moved_entry_exits_1_naming_the_first_out_of_place(table: Table, dice: Script) -> None:
    play(table, dice)
    swap(table.campaign, 2, 3)

    code, said = verify(table.campaign)

    assert code == 1
    assert "Entry 2 does not match" in said


@pytest.mark.django_db
def test_a_changed_hash_of_the_newest_entry_shows(table: Table, dice: Script) -> None:
    play(table, dice)
    last = table.campaign.log.order_by("seq").last()
    assert last is not None
    LogEntry.objects.filter(pk=last.pk).update(hash="f" * 64)

    code, said = verify(table.campaign)

    assert (code, f"Entry {last.seq} does not match" in said) == (1, True)


@pytest.mark.django_db
def test_one_campaigns_change_leaves_anothers_verdict_alone(table: Table, dice: Script) -> None:
    play(table, dice)
    other = factories.campaign(name="Another")
    LogEntry.objects.filter(campaign=table.campaign, seq=2).update(text="changed")

    assert verify(other)[0] == 0
    assert verify(table.campaign)[0] == 1


@pytest.mark.django_db
def test_an_unknown_campaign_is_a_clear_error() -> None:
    with pytest.raises(CommandError, match="No campaign 999"):
        call_command("verify_log", "999")


@pytest.mark.django_db
def test_the_data_migration_chains_the_entries_written_before_hashes(table: Table, dice: Script) -> None:
    play(table, dice)
    # The entries as they were before the dice had seeds (the migration that adds "dice" comes
    # after this one): chained anew by the migration as the log would chain them.
    LogEntry.objects.update(dice=None, salt="")
    expected, previous = [], chain.GENESIS
    for entry in LogEntry.objects.order_by("seq"):
        previous = chain.link(previous, chain.digest(entry_content(entry)))
        expected.append(previous)
    LogEntry.objects.update(hash="")
    Campaign.objects.update(last_hash=chain.GENESIS)

    import_module("rolls.migrations.0007_fill_log_hashes").fill(apps, None)

    assert list(LogEntry.objects.order_by("seq").values_list("hash", flat=True)) == expected
    assert verify(table.campaign)[0] == 0


def test_the_check_reads_plain_values() -> None:
    first = chain.link(chain.GENESIS, "a" * 64)
    second = chain.link(first, "b" * 64)
    links = [chain.Link(1, "a" * 64, first), chain.Link(2, "b" * 64, second)]

    assert chain.check(links, head=(2, second)) is None
    assert str(chain.check(links[::-1])).startswith("Entry 1 does not match")
    assert chain.check([links[1]], first_seq=2, previous=first) is None
    assert str(chain.check(links, head=(3, "c" * 64))).startswith("Entry 3 does not match")
    assert (
        str(chain.check(links, head=(1, first)))
        == "Entry 2 does not match: the log never wrote it: it was added"
    )
    assert str(chain.check(links, head=(2, first))).startswith("Entry 2 does not match")


@pytest.mark.django_db(transaction=True)
def test_rolls_made_at_the_same_moment_keep_one_chain(table: Table) -> None:
    """Each entry chains to the one written just before it, however the writers race: the
    previous hash comes from the campaign row that the sequence number's UPDATE locks."""
    heroes = [table.character] + [
        factories.character(table.campaign, factories.member(table.campaign).user, name=f"Hero {n}")
        for n in range(7)
    ]
    barrier = threading.Barrier(len(heroes))
    errors: list[str] = []

    def roll(hero: Character) -> None:
        try:
            barrier.wait()
            services.roll_create(
                character=hero,
                roller=hero.owner,
                data={"attribute": "Body", "skill": "", "need": 1},
                helper=None,
                intent="",
                rng=ScriptedDice(6, then=1),
            )
        except Exception as error:  # reported by name below
            errors.append(repr(error))
        finally:
            connection.close()

    threads = [threading.Thread(target=roll, args=(hero,)) for hero in heroes]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)

    assert errors == []
    assert LogEntry.objects.filter(campaign=table.campaign, kind=LogEntry.Kind.ROLL).count() == len(heroes)
    assert verify(table.campaign)[0] == 0


# -- the history page's button -------------------------------------------------------------------


@pytest.mark.django_db
def test_the_history_page_has_the_check_button(table: Table) -> None:
    html = logged_in(table.player).get(reverse("rolls:history", args=[table.campaign.pk])).content.decode()

    assert f'action="{reverse("rolls:verify-log", args=[table.campaign.pk])}"' in html
    assert "Check that the log is unchanged" in html


@pytest.mark.django_db
def test_the_button_says_the_log_is_intact(table: Table, dice: Script) -> None:
    play(table, dice)
    url = reverse("rolls:verify-log", args=[table.campaign.pk])

    response = logged_in(table.player).post(url, HTTP_HX_REQUEST="true")

    assert response.status_code == 200
    html = response.content.decode()
    assert 'id="log-tools"' in html and "<html" not in html
    table.campaign.refresh_from_db()
    assert f"The log of The Loop is intact: its {table.campaign.last_seq} entries match their hashes." in html


@pytest.mark.django_db
def test_the_button_names_the_changed_entry(table: Table, dice: Script) -> None:
    play(table, dice)
    LogEntry.objects.filter(campaign=table.campaign, seq=3).update(text="nothing happened")
    url = reverse("rolls:verify-log", args=[table.campaign.pk])

    html = logged_in(table.gm).post(url).content.decode()  # without script: a page of its own

    assert "<html" in html
    assert "The log of The Loop was changed. Entry 3 does not match" in html


@pytest.mark.django_db
def test_the_button_is_for_members_only(table: Table) -> None:
    url = reverse("rolls:verify-log", args=[table.campaign.pk])

    assert logged_in(table.outsider).post(url).status_code == 404
    assert logged_in(table.player).get(url).status_code == 405
