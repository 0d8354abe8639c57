"""Writes to campaigns, memberships, characters and play sessions. Changes the table should
see go into the roll log as events, so the history tells the whole evening. Each function is
one transaction, like the roll services (``rolls.play.services``)."""

from __future__ import annotations

import logging
import secrets
from typing import TYPE_CHECKING, Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Max
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from rolls import registry
from rolls.contests.services import contest_cancel
from rolls.log import fairdice
from rolls.log.append import append_event
from rolls.log.events import TableEvent
from rolls.models import Contest
from rolls.systems import RulesError
from rolls.tables.base import Clock
from tabletop import language as languages
from tabletop.models import Ban, Campaign, Character, DiceMode, Membership, PlaySession, new_join_token

if TYPE_CHECKING:
    from django_stubs_ext import StrPromise

logger = logging.getLogger(__name__)

REMOVED = gettext_lazy("The GM removed you from this table. Ask them to let you back in.")


def campaign_create(
    *,
    gm: User,
    name: str,
    system: str,
    display_name: str,
    dice: str = DiceMode.DIGITAL,
    language: str = "en",
) -> Campaign:
    if system not in registry.slugs():
        raise RulesError(_("That dice system is not at the table."))
    if dice not in DiceMode.values:
        raise RulesError(_("Choose digital dice, real dice, or either."))
    if not languages.shipped(language):
        raise RulesError(_("Choose one of the languages the app speaks."))
    with transaction.atomic():
        campaign = Campaign.objects.create(
            name=name.strip(), system=system, gm=gm, dice=dice, language=language
        )
        Membership.objects.create(campaign=campaign, user=gm, display_name=display_name, is_gm=True)
        return campaign


DICE_MODE_TEXT: dict[str, StrPromise] = {
    DiceMode.DIGITAL: gettext_lazy("The GM set the dice: the app rolls them."),
    DiceMode.PHYSICAL: gettext_lazy("The GM set the dice: real dice, entered by hand."),
    DiceMode.EITHER: gettext_lazy(
        "The GM set the dice: each player chooses, real dice or the app's, for each roll."
    ),
}


def dice_mode_set(*, campaign: Campaign, gm: User, dice: str) -> None:
    """The GM chooses who rolls at this table from now on. Rolls already made keep how they
    were rolled (``Roll.by_hand``), and so do their follow-ups."""
    if dice not in DiceMode.values:
        raise RulesError(_("Choose digital dice, real dice, or either."))
    mode = DiceMode(dice)
    with transaction.atomic():
        Campaign.objects.filter(pk=campaign.pk).update(dice=mode)
        campaign.dice = mode
        append_event(
            campaign_id=campaign.pk, event=TableEvent.DICE_MODE, actor=gm, text=str(DICE_MODE_TEXT[mode])
        )


def language_set(*, campaign: Campaign, gm: User, language: str) -> None:
    """The GM chooses the language the table plays in. Refused (nothing changes) for a code the
    app does not ship, or the one it plays in already. The event's text is written in the new
    language, as every text the log keeps is written in the table's language of its moment, and
    its broadcast too: every open screen then draws itself again in it (rolls.live.consumers)."""
    if not languages.shipped(language):
        raise RulesError(
            _("The app does not speak that language. Choose one of: %(languages)s.")
            % {"languages": ", ".join(languages.NAMES.values())}
        )
    if language == campaign.language:
        raise RulesError(
            _("The table plays in %(language)s already.") % {"language": languages.NAMES[language]}
        )
    # Around the transaction, so its announcement on commit is drawn in the new language too.
    with translation.override(language), transaction.atomic():
        Campaign.objects.filter(pk=campaign.pk).update(language=language)
        campaign.language = language
        append_event(
            campaign_id=campaign.pk,
            event=TableEvent.LANGUAGE,
            actor=gm,
            # Translators: the language's name in its own words (Deutsch, Français...).
            text=_("The GM set the table's language: %(language)s.")
            % {"language": languages.NAMES[language]},
        )


def player_create(*, display_name: str) -> User:
    """A player who joined by link: a real account with no password yet (one can be set
    later, to log in from another device)."""
    user_model = get_user_model()
    while True:
        username = f"player-{secrets.token_hex(4)}"
        if not user_model.objects.filter(username=username).exists():
            break
    user = user_model(username=username, first_name=display_name[:150])
    user.set_unusable_password()
    user.save()
    return user


def member_join(*, campaign: Campaign, user: User, display_name: str) -> Membership:
    """Join the table; refused to an account the GM removed, until the GM lets it back in."""
    # The join link's page follows the browser; what the table reads, its own language.
    with translation.override(campaign.language), transaction.atomic():
        if Ban.objects.filter(campaign=campaign, user=user).exists():
            raise RulesError(str(REMOVED))
        membership, created = Membership.objects.get_or_create(
            campaign=campaign, user=user, defaults={"display_name": display_name.strip()}
        )
        if created:
            append_event(
                campaign_id=campaign.pk,
                event=TableEvent.MEMBER_JOINED,
                actor=user,
                text=_("%(name)s joined the table.") % {"name": membership.display_name},
            )
        return membership


def member_remove(
    *, campaign: Campaign, actor: User, membership: Membership, renew_link: bool = False
) -> None:
    """Remove a member and ban the account. ``renew_link``: also replace the join link, so the
    same person cannot come back as someone new from a fresh browser with the old one."""
    if membership.is_gm:
        raise RulesError(_("The GM cannot be removed from their own campaign."))
    with transaction.atomic():
        # Their characters leave with them; the history keeps their rolls by name.
        Character.objects.filter(campaign=campaign, owner=membership.user).delete()
        membership.delete()
        # The same phone would be back in with the same link: the account waits for the GM.
        Ban.objects.get_or_create(
            campaign=campaign, user_id=membership.user_id, defaults={"display_name": membership.display_name}
        )
        append_event(
            campaign_id=campaign.pk,
            event=TableEvent.MEMBER_REMOVED,
            actor=actor,
            text=_("%(name)s was removed from the table.") % {"name": membership.display_name},
        )
        if renew_link:
            join_link_rotate(campaign=campaign, actor=actor)


def member_readmit(*, campaign: Campaign, actor: User, ban: Ban) -> None:
    """The GM lets a removed account join again (with the join link, as anyone)."""
    with transaction.atomic():
        deleted, _kinds = Ban.objects.filter(pk=ban.pk, campaign=campaign).delete()
        if not deleted:
            raise RulesError(_("%(name)s may join already.") % {"name": ban.display_name})
        append_event(
            campaign_id=campaign.pk,
            event=TableEvent.MEMBER_READMITTED,
            actor=actor,
            text=_("The GM let %(name)s back in.") % {"name": ban.display_name},
        )


def join_link_rotate(*, campaign: Campaign, actor: User | None = None) -> None:
    """A new join link; the old one stops. In the log, so the history says when, and so the
    table display (which shows the link's QR code) hears of it and draws the new one."""
    with transaction.atomic():
        campaign.join_token = new_join_token()
        campaign.save(update_fields=["join_token"])
        append_event(
            campaign_id=campaign.pk,
            event=TableEvent.JOIN_LINK,
            actor=actor,
            text=_("The GM made a new join link; the old one no longer works."),
        )


def display_link_rotate(*, campaign: Campaign, actor: User) -> None:
    """A new display link; the old one stops at once. The event in the log is also what tells
    an open display: its socket reads its token again for every entry, finds it gone, closes."""
    _link_rotate(
        campaign,
        actor,
        field="display_token",
        event=TableEvent.DISPLAY_LINK,
        text=_("The GM made a new table display link; the old one no longer works."),
    )


def overlay_link_rotate(*, campaign: Campaign, actor: User) -> None:
    """A new stream overlay link; the old one stops at once, the display's stays. As for the
    display, the event in the log is what closes an open overlay's socket."""
    _link_rotate(
        campaign,
        actor,
        field="overlay_token",
        event=TableEvent.OVERLAY_LINK,
        text=_("The GM made a new stream overlay link; the old one no longer works."),
    )


def _link_rotate(campaign: Campaign, actor: User, *, field: str, event: TableEvent, text: str) -> None:
    with transaction.atomic():
        Campaign.objects.filter(pk=campaign.pk).update(**{field: new_join_token()})
        append_event(campaign_id=campaign.pk, event=event, actor=actor, text=text)
    logger.info("%s of campaign %s replaced by user %s", field, campaign.pk, actor.pk)


def session_start(*, campaign: Campaign, actor: User) -> PlaySession:
    adapter = registry.table(campaign.system)
    with transaction.atomic():
        characters = _locked_characters(campaign)
        campaign = Campaign.objects.select_for_update(no_key=True).get(pk=campaign.pk)
        if campaign.open_session() is not None:
            raise RulesError(_("A play session is already running."))
        number = (campaign.sessions.aggregate(n=Max("number"))["n"] or 0) + 1
        # The session's dice seed: secret until the session ends, its hash shown from now on,
        # and in the log before any die is drawn from it (rolls/log/fairdice.py).
        seed, hidden = fairdice.new_seed(), fairdice.new_seed()
        session = PlaySession.objects.create(
            campaign=campaign,
            number=number,
            seed=seed.hex(),
            seed_hash=fairdice.commitment(seed),
            hidden_seed=hidden.hex(),
        )
        changed = {field for character in characters for field in adapter.on_new_session(character)}
        if changed:
            Character.objects.bulk_update(characters, sorted(changed))
        append_event(
            campaign_id=campaign.pk,
            event=TableEvent.SESSION_START,
            actor=actor,
            text=(_("Session %(number)s started.") % {"number": number} + f" {adapter.session_note}").strip(),
            # And the hash of the seed its first secret or blind roll will take.
            dice={"session": number, "commit": session.seed_hash, "next_hidden": fairdice.commitment(hidden)},
        )
        return session


def session_end(*, campaign: Campaign, actor: User) -> None:
    with transaction.atomic():
        # Its contests end with it. First: a contest's lock comes before a character's.
        for contest in Contest.objects.filter(campaign=campaign, state__in=Contest.LIVE):
            contest_cancel(contest=contest, gm=actor, because=_("The session ended"))
        # A follow-up on its way finishes first: Luck tapped as the GM ends the session is
        # spent in the session it was tapped in.
        _locked_characters(campaign)
        session = campaign.open_session()
        if session is None:
            raise RulesError(_("No play session is running."))
        session.ended = timezone.now()
        session.save(update_fields=["ended"])
        # Its dice seed is revealed with the end: anyone may now recompute every die drawn from
        # it. A secret or blind roll's own seed stays the GM's until the roll is revealed.
        append_event(
            campaign_id=campaign.pk,
            event=TableEvent.SESSION_END,
            actor=actor,
            text=_("Session %(number)s ended.") % {"number": session.number},
            dice={"session": session.number, "seed": session.seed} if session.seed else None,
        )


def mystery_start(*, campaign: Campaign, actor: User) -> None:
    """The system's story clock: a new Mystery (Pride is available again, SIX-5) or a new
    Adventure (Luck full, Endurance spent on drama back...). Counted on the campaign."""
    with transaction.atomic():
        characters = _locked_characters(campaign)
        campaign = Campaign.objects.select_for_update(no_key=True).get(pk=campaign.pk)
        campaign.mystery += 1
        campaign.save(update_fields=["mystery"])
        _advance(campaign, characters, actor, registry.table(campaign.system).story, TableEvent.STORY)


def long_rest(*, campaign: Campaign, actor: User) -> None:
    """A long rest for every character, in the systems that have one."""
    clock = registry.table(campaign.system).rest
    if clock is None:
        raise RulesError(_("This dice system has no long rest."))
    with transaction.atomic():
        _advance(campaign, _locked_characters(campaign), actor, clock, TableEvent.LONG_REST)


def _locked_characters(campaign: Campaign) -> list[Character]:
    """Every character of the campaign, each row locked, in the order of their ids.

    The order of locks, in every write: a roll, then characters (by id when several), then
    the play session's row (a hidden roll taking its seed, the end of a session), then the
    campaign row last (the log's UPDATE of its sequence number, or the clocks' own). A
    follow-up that holds its roll and its character and a GM's clock then never wait for each
    other in a circle (on PostgreSQL: a deadlock, and one of them fails). Every row lock is
    FOR NO KEY UPDATE: a new row that names a locked one (a roll against a character, its
    helper, its session) has its key checked with a share lock, which FOR UPDATE refused, so
    a GM's roll holding the campaign waited for a kid's roll holding the kid, and the kid's
    roll for the campaign (tests/test_concurrency.py)."""
    return list(
        Character.objects.select_for_update(no_key=True, of=("self",))
        .filter(campaign=campaign)
        .select_related("campaign")
        .order_by("pk")
    )


def _advance(
    campaign: Campaign, characters: list[Character], actor: User, clock: Clock, event: TableEvent
) -> None:
    """Move a clock for every character of the campaign (``characters``, locked), and log it
    (inside a transaction)."""
    for character in characters:
        character.campaign = campaign  # the clock reads the campaign as it is now (its Mystery)
        changed = clock.apply(character)
        if changed:
            character.save(update_fields=changed)
    append_event(
        campaign_id=campaign.pk,
        event=event,
        actor=actor,
        text=clock.event.format(n=campaign.mystery),
    )


def character_create(*, campaign: Campaign, owner: User, name: str, sheet: dict[str, Any]) -> Character:
    adapter = registry.table(campaign.system)
    with transaction.atomic():
        character = Character(campaign=campaign, owner=owner, name=name.strip(), sheet=sheet)
        adapter.new_character(character)
        character.save()
        append_event(
            campaign_id=campaign.pk,
            event=TableEvent.CHARACTER_NEW,
            actor=owner,
            text=_("%(name)s joins the story.") % {"name": character.name},
        )
        return character


def character_update(*, character: Character, actor: User, name: str, sheet: dict[str, Any]) -> Character:
    with transaction.atomic():
        character = (
            Character.objects.select_for_update(no_key=True, of=("self",))
            .select_related("campaign")
            .get(pk=character.pk)
        )
        before_sheet = character.sheet
        before = before_sheet.get("conditions", {})
        character.name = name.strip()
        character.sheet = sheet
        by_gm = actor.pk == character.campaign.gm_id
        changed = registry.table(character.campaign.system).on_sheet_change(
            character, before_sheet, by_gm=by_gm
        )
        character.save(update_fields=["name", "sheet", *changed])
        # A change of Conditions is visible to the table, never silent.
        after = sheet.get("conditions", {})
        changes = [
            # Translators: a Condition checked or cleared on a sheet (its name follows the glossary).
            (_("checked %(condition)s") if after.get(c) else _("cleared %(condition)s")) % {"condition": c}
            for c in after
            if bool(after.get(c)) != bool(before.get(c))
        ]
        if changes:
            append_event(
                campaign_id=character.campaign_id,
                event=TableEvent.SHEET_CHANGE,
                actor=actor,
                text=_("%(name)s: %(changes)s.") % {"name": character.name, "changes": ", ".join(changes)},
            )
        return character


def luck_for_ability(*, character: Character, actor: User, ability: str) -> Character:
    """STR-14: one point of Luck fuels an ability an item or a power gives, outside a roll.
    The view checks that ``actor`` may act for the character (its player or the GM); the
    point is taken under the character's row lock and the table sees it in the log."""
    ability = ability.strip()
    if not ability:
        raise RulesError(_("Name the ability the Luck point fuels."))
    adapter = registry.table(character.campaign.system)
    if not adapter.luck_for_abilities:
        raise RulesError(_("In this dice system Luck does not fuel abilities."))
    with transaction.atomic():
        character = (
            Character.objects.select_for_update(no_key=True).select_related("campaign").get(pk=character.pk)
        )
        if character.luck < 1:
            raise RulesError(_("%(name)s has no Luck left to spend.") % {"name": character.name})
        changed = adapter.spend(character, {"luck": 1})
        character.save(update_fields=changed)
        words = {"name": character.name, "ability": ability, "left": character.luck}
        if actor.pk == character.campaign.gm_id:
            text = _("The GM spends a point of Luck on %(name)s's %(ability)s: %(left)s left.") % words
        else:
            text = _("%(name)s spends a point of Luck on %(name)s's %(ability)s: %(left)s left.") % words
        append_event(campaign_id=character.campaign_id, event=TableEvent.LUCK_ABILITY, actor=actor, text=text)
        return character


def resources_correct(*, character: Character, gm: User, values: dict[str, int]) -> list[str]:
    """The GM sets a resource directly (Luck, Endurance...). Never silent: each change is a
    log entry the whole table sees, and never above what the rules let this character hold
    (``Correction.limit``): a refusal changes nothing. Returns the changes made."""
    corrections = {c.field: c for c in registry.table(character.campaign.system).corrections}
    with transaction.atomic():
        character = (
            Character.objects.select_for_update(no_key=True, of=("self",))
            .select_related("campaign")
            .get(pk=character.pk)
        )
        changes = []
        for field, value in values.items():
            if field not in corrections:
                raise RulesError(
                    _("%(field)s is not something the GM sets in this system.") % {"field": field}
                )
            before = getattr(character, field)
            if before != value:
                # Checked on the locked row: the sheet the limit reads cannot change meanwhile.
                corrections[field].check(character, value)
                setattr(character, field, value)
                changes.append(
                    # Translators: a resource corrected by the GM: "Luck 3 → 5".
                    _("%(resource)s %(before)s → %(after)s")
                    % {"resource": corrections[field].label, "before": before, "after": value}
                )
        if changes:
            character.save(update_fields=list(values))
            append_event(
                campaign_id=character.campaign_id,
                event=TableEvent.GM_CORRECTION,
                actor=gm,
                text=_("The GM corrected %(name)s: %(changes)s.")
                % {"name": character.name, "changes": ", ".join(changes)},
            )
        return changes
