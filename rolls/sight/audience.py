"""What a given person at the table sees of a log entry: the one place that decides it.

Every path that shows an entry asks here: a page (the feed, the roll screen, the session
page, the history), a socket that renders for its member, a socket that sends the markup
the whole table shares, and the catch-up after a reconnect. So a secret roll stays secret
on all of them at once, and a button appears only for whoever may press it.

``sight`` says what a viewer sees of a roll (its dice, or "rolled in secret") and which of
its follow-ups they may ask for. ``delivery`` says what a socket sends its member for an
entry beyond the table's shared markup: their own card, a new result card on their roll
screen, panels to redraw. The shared markup is what ``TABLE`` (anyone at the table, who may
act on nothing) sees; a member whose ``delivery`` is empty is sent exactly that.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import Flag, auto
from typing import TYPE_CHECKING

from rolls.log.events import MARKS, VERDICTS, Refresh, TableEvent, refreshes
from rolls.tables.waits import ALL_WAITS, Waits

if TYPE_CHECKING:
    from rolls.models import LogEntry, Roll
    from tabletop.models import Membership


@dataclass(frozen=True)
class GmPanel:
    """The GM's waiting panel as a page shows it, as its socket last drew it
    (``rolls.sight.panels.gm_panel_and_room``); what entries may leave it as it is.

    ``room``: how many new rolls it takes before one pushes a roll it shows out of its window;
    0 also for a panel not known (a page drawn afresh, whose socket has drawn nothing yet),
    which every entry that may change some panel redraws. ``rolls``: the rolls it shows (a
    follow-up on one changes its card). ``characters``: the characters of those rolls and
    their targets, whose sheets its cards read (what a miracle or an answer costs), and whose
    new roll makes a roll it shows their latest no more."""

    room: int = 0
    rolls: frozenset[int] = frozenset()
    characters: frozenset[int] = frozenset()
    # Each card's markup, top first, as the socket sent them: the panel is drawn again from
    # these with the GM's new roll on top (``with_newest``), without reading the others.
    cards: tuple[str, ...] = ()

    @property
    def known(self) -> bool:
        return self.room > 0

    def after_new_roll(self) -> GmPanel:
        return replace(self, room=self.room - 1) if self.room > 0 else self

    def with_newest(self, card: str, roll_id: int, characters: frozenset[int], window: int) -> GmPanel:
        """The panel after its ``after_new_roll``, with that roll's ``card`` put on top: the
        newest of its ``window`` rolls, so its oldest card is no older than before (a panel
        that showed nothing now has the whole window but one)."""
        return GmPanel(
            room=min(self.room, window - 1),
            rolls=self.rolls | {roll_id},
            characters=self.characters | characters,
            cards=(card, *self.cards),
        )


@dataclass(frozen=True)
class Viewer:
    """Who looks: a member (their user and whether they run the table), or ``TABLE``.
    ``waits``: what can wait on a panel in their campaign's system (``Waits``).
    ``gm_panel``: the GM's waiting panel on their page, as their socket drew it (a page drawn
    afresh is not known: ``GmPanel()``)."""

    user_id: int | None
    is_gm: bool = False
    waits: Waits = ALL_WAITS
    gm_panel: GmPanel = GmPanel()

    @classmethod
    def of(
        cls, membership: Membership | None, waits: Waits = ALL_WAITS, gm_panel: GmPanel = GmPanel()
    ) -> Viewer:
        if membership is None:
            return TABLE
        return cls(user_id=membership.user_id, is_gm=membership.is_gm, waits=waits, gm_panel=gm_panel)

    def after(self, facts: Facts) -> Viewer:
        """The viewer of the next entry of a batch: a new roll takes one of the panel's room."""
        if facts.roll and not facts.follow_up and self.gm_panel.known:
            return replace(self, gm_panel=self.gm_panel.after_new_roll())
        return self


# Anyone at the table, acting on nothing: the markup every socket may share.
TABLE = Viewer(user_id=None)


@dataclass(frozen=True)
class Facts:
    """What the audience of an entry depends on, read from the entry and its roll without
    rendering anything; plain data, so a broadcast can carry it to other processes."""

    action: str
    roll: bool = False  # a roll or a follow-up (not a table event)
    follow_up: bool = False
    hidden: bool = False  # secret or blind: only the GM sees the dice
    blind: bool = False  # blind: a player's roll whose dice only the GM sees
    # sealed: a side of a contest not revealed yet; its roller and the GM see its dice
    sealed: bool = False
    # sealed from the GM too: a player's side of a contest in which the GM plays the other
    # side, in a system that seals bids from everyone then (sets SET-4), until the reveal
    judge_sealed: bool = False
    contest: bool = False  # a side of a contest: the contest panels show who has rolled
    npc: bool = False  # rolled by the GM for someone without a sheet
    call: bool = False  # an answer to a call for a roll
    roll_id: int | None = None  # the roll: a follow-up on one the GM's panel shows changes its card
    # a roll or follow-up whose new state may wait for the GM's decision (doubles: a miracle
    # asked; sets: help named; ``DiceSystem.may_await_gm``, which may say yes where nothing waits)
    awaits_gm: bool = False
    owner_id: int | None = None  # the player of the roll's character (None: no character)
    character_id: int | None = None  # the roll's character: its roll screen has a result panel
    target_id: int | None = None  # the character the roll is made against
    target_owner_id: int | None = None  # its player

    @classmethod
    def of(cls, entry: LogEntry, *, awaits_gm: bool) -> Facts:
        """``awaits_gm``: whether the entry's state may wait for the GM's decision, which only
        its dice system can tell (``rolls.live.feed.facts_of`` asks it; nothing here knows one)."""
        from rolls.models import LogEntry

        if entry.roll is None:
            return cls(action=entry.action)
        follow_up = entry.kind == LogEntry.Kind.FOLLOW_UP
        return cls.of_roll(entry.roll, action=entry.action, follow_up=follow_up, awaits_gm=awaits_gm)

    @classmethod
    def of_roll(
        cls, roll: Roll, *, action: str = "roll", follow_up: bool = False, awaits_gm: bool = False
    ) -> Facts:
        from rolls.models import Visibility

        sealed = roll.visibility == Visibility.SEALED and not roll.revealed
        return cls(
            action=action,
            roll=True,
            follow_up=follow_up,
            # A revealed roll is the table's from then on (``Roll.revealed``).
            hidden=roll.visibility != Visibility.PUBLIC and not roll.revealed,
            blind=roll.visibility == Visibility.BLIND,
            sealed=sealed,
            judge_sealed=sealed and not roll.npc and _judge_plays_against(roll),
            contest=roll.visibility == Visibility.SEALED,
            npc=roll.npc,
            call=roll.call_id is not None,
            roll_id=roll.pk,
            awaits_gm=awaits_gm,
            owner_id=roll.character.owner_id if roll.character is not None else None,
            character_id=roll.character_id,
            target_id=roll.target_id,
            target_owner_id=roll.target.owner_id if roll.target is not None else None,
        )


def _judge_plays_against(roll: Roll) -> bool:
    """Whether ``roll`` is a side of a contest in which the GM rolls another side (someone
    without a sheet), in a system whose bids are then sealed from the GM too
    (``TableAdapter.contest_sealed_from_gm``). Asked only of a sealed roll, one query."""
    from rolls import registry
    from rolls.models import ContestSide

    if not registry.table(roll.system).contest_sealed_from_gm:
        return False
    return ContestSide.objects.filter(contest__sides__roll_id=roll.pk, npc=True).exists()


@dataclass(frozen=True)
class Sight:
    dice: bool  # the dice, the intent and the outcome; otherwise "rolled in secret"
    acts: bool  # may ask for the roller's follow-ups: their character's roll, or the GM
    answers: bool  # may answer it: it is made against their character (or they are the GM)
    # May ask for what needs no look at the dice (``DiceSystem.blind_follow_ups``, a sets bid
    # made unseen): the player of a blind roll's character, who does not see its dice.
    unseen: bool = False


def sight(facts: Facts, viewer: Viewer) -> Sight:
    """What ``viewer`` sees of the roll an entry belongs to. The GM sees and may act on
    everything; a player sees a hidden roll as "rolled in secret", acts on their own
    character's rolls and answers the GM's rolls made against their character. On their own
    blind roll a player acts unseen: only on what needs no look at its dice."""
    if viewer.is_gm and facts.sealed:
        # SET-4: where the GM plays the other side, the GM sees a player's side at the reveal.
        return Sight(dice=not facts.judge_sealed, acts=False, answers=False)
    if viewer.is_gm:
        return Sight(
            dice=True, acts=facts.owner_id is not None or facts.npc, answers=facts.target_owner_id is not None
        )
    mine = viewer.user_id is not None
    if facts.sealed:
        # A side of a contest before the reveal: its player sees their own dice, and nobody
        # acts on it until every side's dice are on the table (``rolls.contests.services``).
        own = mine and facts.owner_id == viewer.user_id
        return Sight(dice=own, acts=False, answers=False)
    return Sight(
        dice=not facts.hidden,
        acts=mine and not facts.hidden and facts.owner_id == viewer.user_id,
        answers=mine and not facts.hidden and facts.target_owner_id == viewer.user_id,
        unseen=mine and facts.blind and facts.owner_id == viewer.user_id,
    )


class Panel(Flag):
    """The parts of a page an entry can change besides its card."""

    NONE = 0
    GM_WAITING = auto()  # the GM's "waiting for you": their own rolls, miracles to approve
    # The same panel as the GM's socket drew it, with only the GM's new roll put on top (when
    # it waits there): the other cards are sent again as they were drawn (``GmPanel.cards``).
    GM_NEWEST = auto()
    CALL_STATUS = auto()  # the GM's view of who has answered a call
    MEMBERS = auto()  # the GM's list of members
    CALLS = auto()  # a player's calls for a roll to answer
    AGAINST = auto()  # a player's panel of GM rolls made against their characters
    RESOURCES = auto()  # the resources lines a page shows: a follow-up spent, the GM changed them
    STATUS = auto()  # the "session N is on" line
    CONTESTS = auto()  # the contests panel: who is in, who has rolled, who is winning
    DICE = auto()  # the roll form's real dice (its keypad), on a roll screen


@dataclass(frozen=True)
class Delivery:
    own_card: bool = False  # their feed card differs from the table's (a hidden roll, to the GM)
    result_card: bool = False  # the result card on their roll screen is replaced, with buttons
    panels: Panel = Panel.NONE

    @property
    def personal(self) -> bool:
        """Whether this member is sent anything but the table's shared markup."""
        return self.own_card or self.result_card or bool(self.panels)


def delivery(facts: Facts, viewer: Viewer, result_for: int | None = None, roster: bool = False) -> Delivery:
    """What a socket sends ``viewer`` for an entry, besides the shared markup, on a page that
    holds the result panel of character ``result_for`` (their roll screen) or none; ``roster``:
    the page lists the characters they play with their resources (the campaign page).

    A new roll's result card comes with the HTTP answer to the roll, so only a follow-up
    replaces one, and only for whoever may act on it. Table events redraw what their
    ``TableEvent.refreshes`` names: a GM's clock or correction redraws the resources of a
    page that shows some, and only of those."""
    panels = Panel.NONE
    refresh = refreshes(facts.action)
    if refresh & Refresh.STATUS:
        panels |= Panel.STATUS
    if refresh & Refresh.CONTESTS or facts.contest:
        panels |= Panel.CONTESTS
    if not facts.roll:
        if viewer.is_gm and _changes_gm_panel(facts, viewer, refresh):
            panels |= Panel.GM_WAITING
        if refresh & Refresh.RESOURCES and viewer.user_id is not None and (result_for is not None or roster):
            panels |= Panel.RESOURCES
        if refresh & Refresh.CALLS:
            panels |= Panel.CALL_STATUS if viewer.is_gm else Panel.CALLS
        if refresh & Refresh.MEMBERS and viewer.is_gm:
            panels |= Panel.MEMBERS
        if refresh & Refresh.DICE and result_for is not None and viewer.user_id is not None:
            panels |= Panel.DICE
        if facts.action in VERDICTS and viewer.user_id is not None:
            # The contest's rolls take no more follow-ups: where a panel offers some, it is
            # drawn again without them (the roll screen's result card comes with the entry).
            if viewer.is_gm and viewer.waits:
                panels |= Panel.GM_WAITING
            elif not viewer.is_gm and viewer.waits & Waits.AGAINST:
                panels |= Panel.AGAINST
        return Delivery(panels=panels)
    seen = sight(facts, viewer)
    if viewer.is_gm:
        if _takes_newest(facts, viewer):
            panels |= Panel.GM_NEWEST
        elif _changes_gm_panel(facts, viewer, refresh):
            panels |= Panel.GM_WAITING
        if facts.call:
            panels |= Panel.CALL_STATUS
    elif (
        viewer.user_id is not None
        and viewer.user_id == facts.target_owner_id
        and seen.dice
        and viewer.waits & Waits.AGAINST
    ):
        # A hidden roll against their character is not theirs to answer, and in a system in
        # which nobody answers a roll made against them there is nothing to answer: no redraw.
        panels |= Panel.AGAINST
    on_its_screen = result_for is not None and result_for == facts.character_id
    # A roll revealed now (a contest's, or one the GM reveals) gets its buttons back on its
    # roller's screen: the card there was drawn without them; a roll voided now loses them.
    marked_now = facts.action in MARKS
    # A side of a contest is rolled from the contests panel, not the roll form: its new card
    # reaches its roller's result panel over the socket.
    contest_roll = facts.contest and not facts.follow_up and facts.action == "roll"
    if facts.follow_up and result_for is not None and viewer.user_id is not None:
        spent_from = [(facts.character_id, facts.owner_id)]
        if seen.dice or viewer.is_gm:
            spent_from.append((facts.target_id, facts.target_owner_id))
        if (result_for, viewer.user_id) in spent_from:
            panels |= Panel.RESOURCES
    if facts.follow_up and roster and viewer.user_id is not None:
        payers = {facts.owner_id, facts.target_owner_id if seen.dice else None}
        if viewer.is_gm or viewer.user_id in payers:
            panels |= Panel.RESOURCES
    return Delivery(
        own_card=seen.dice != sight(facts, TABLE).dice,
        # The roll screen of a character they play (any, for the GM) shows its new result card.
        result_card=(facts.follow_up or marked_now or contest_roll)
        and on_its_screen
        and (viewer.is_gm or viewer.user_id == facts.owner_id),
        panels=panels,
    )


_TABLE_EVENTS = frozenset(event.value for event in TableEvent)


def _takes_newest(facts: Facts, viewer: Viewer) -> bool:
    """Whether the GM's panel as their socket drew it changes only by taking a new roll's card
    on top (``Panel.GM_NEWEST``): the GM's own roll for someone without a sheet, which has no
    character whose latest roll a card could be, and pushes none of the panel's cards out of
    its window while the panel has room (``GmPanel.room``). Whether its card waits there only
    drawing it tells. A side of a contest takes the long way, as does a panel not known."""
    return (
        bool(viewer.waits)
        and facts.npc
        and not facts.follow_up
        and not facts.contest
        and facts.action not in _TABLE_EVENTS
        and viewer.gm_panel.known
    )


def _changes_gm_panel(facts: Facts, viewer: Viewer, refresh: Refresh) -> bool:
    """Whether an entry can change the GM's waiting panel (``rolls.sight.panels.gm_panel``) in a
    system where ``viewer.waits`` can keep a roll there. Nothing waits there in a system that
    declares nothing (sixes: an NPC has no sheet to push or spend Luck from, no follow-up is the
    GM's alone, and every follow-up spends from a sheet, so no blind roll settles from its dice;
    kinds: no follow-ups at all)."""
    waits = viewer.waits
    if not waits:
        return False
    if not facts.roll:
        # A session started or ended (the panel shows the open one's rolls), a new Mystery or
        # Adventure (what a sheet pays for goes on its rolls only), or a sheet changed.
        return bool(refresh & Refresh.STATUS) or bool(refresh & Refresh.RESOURCES and waits & Waits.SHEETS)
    if facts.action in _TABLE_EVENTS:
        return True  # the GM's mark on a roll: voided, it offers nothing more
    panel = viewer.gm_panel
    if not facts.follow_up:
        # A new roll waits there itself only when it is the GM's own or blind (``DECISIONS``:
        # a player's waits once a follow-up asks). Any other may only push a roll the panel
        # shows out of its window, which the panel as drawn has room for (``GmPanel.room``), or
        # make a roll it shows its character's latest no more (what a card offers may depend
        # on that). In doubles and sets the GM's socket drew the panel after every roll.
        # A new roll that asks the GM a decision at once (sets SET-11: does the help count?).
        asks = bool(waits & Waits.DECISIONS and facts.awaits_gm)
        return asks or facts.npc or facts.blind or not panel.known or facts.character_id in panel.characters
    if (
        (facts.npc and waits & Waits.NPC)
        or (facts.target_id is not None and waits & Waits.AGAINST)
        or (facts.blind and waits & Waits.BLIND)
    ):
        return True
    if not waits & (Waits.DECISIONS | Waits.SHEETS):
        return False
    if not panel.known or facts.npc or facts.blind:
        return True
    # A follow-up changes the panel as drawn only through a roll it shows, a decision it now
    # asks of the GM, or a sheet the panel's cards read (it spends from its roll's character
    # or its target). In doubles the GM's socket drew the panel after every follow-up.
    return (
        facts.roll_id in panel.rolls
        or bool(waits & Waits.DECISIONS and facts.awaits_gm)
        or bool(waits & Waits.SHEETS and {facts.character_id, facts.target_id} & panel.characters)
    )
