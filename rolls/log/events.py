"""The table events of the log, and what each one refreshes on the pages that show it.

Rolls and follow-ups are entries too (``LogEntry.Kind``); their actions are the rules
engine's ("roll", "push", "luck", ...) and refresh only the cards and panels the audience
function names (``rolls.sight.audience``). A table event is one of these, written by the services
and read by the live side from this one list.
"""

from __future__ import annotations

from enum import Flag, StrEnum, auto


class Refresh(Flag):
    """What a page redraws besides the feed when an entry arrives."""

    NOTHING = 0
    STATUS = auto()  # the "session N is on" line of every page, drawn as it is when sent
    CALLS = auto()  # the calls for a roll waiting on the phones, and their status for the GM
    MEMBERS = auto()  # the GM's list of members
    RESOURCES = auto()  # what a character has to spend (Luck, Pride, Endurance, Conditions)
    CONTESTS = auto()  # the contests in play: who is in, who has rolled, who is winning
    DICE = auto()  # who rolls the dice (the app, real dice): the roll form's keypad


class TableEvent(StrEnum):
    MEMBER_JOINED = "member-joined"
    MEMBER_REMOVED = "member-removed"
    MEMBER_READMITTED = "member-readmitted"  # the GM lets a removed member join again
    SESSION_START = "session-start"
    SESSION_END = "session-end"
    STORY = "mystery-start"  # a new Mystery or Adventure: the system's story clock
    LONG_REST = "long-rest"
    CHARACTER_NEW = "character-new"
    SHEET_CHANGE = "sheet-change"
    GM_CORRECTION = "gm-correction"
    LUCK_ABILITY = "luck-ability"  # a point of Luck fuels an item's or a power's ability (STR-14)
    CALL = "call"
    CALL_CLOSED = "call-closed"
    JOIN_LINK = "join-link"  # the GM replaced the join link
    DISPLAY_LINK = "display-link"  # the GM replaced the table display's link
    OVERLAY_LINK = "overlay-link"  # the GM replaced the stream overlay's link
    # The GM's marks on a roll made earlier; their entry names the roll and carries its state,
    # so the live side sends its card again, struck through or now showing its dice.
    ROLL_VOID = "roll-void"
    ROLL_REVEAL = "roll-reveal"
    DICE_MODE = "dice-mode"  # the GM chose who rolls: the app, real dice, or either
    # The GM chose the table's language: its text is written in the new one, and every open
    # screen draws itself again in it (its socket sends the page a reload: rolls.live.consumers).
    LANGUAGE = "language"
    # Contests (``rolls.contests.services``). Each sealed roll's reveal is an entry naming the roll and
    # carrying its state, like ROLL_REVEAL, so every page draws its card again with its dice.
    CONTEST_OPEN = "contest-open"
    CONTEST_ANSWER = "contest-answer"  # the challenged side accepted or refused
    CONTEST_REVEAL = "contest-reveal"
    CONTEST_STEP = "contest-step"  # a side's step besides rolling (``TableAdapter.contest_step``)
    CONTEST_END = "contest-end"
    CONTEST_CANCEL = "contest-cancel"

    @property
    def refreshes(self) -> Refresh:
        return _REFRESHES.get(self, Refresh.NOTHING)


_REFRESHES = {
    # A new session, Mystery or Adventure refills what the clocks refill (Luck, Pride...).
    TableEvent.SESSION_START: Refresh.STATUS | Refresh.RESOURCES,
    TableEvent.SESSION_END: Refresh.STATUS,
    TableEvent.STORY: Refresh.STATUS | Refresh.RESOURCES,
    TableEvent.LONG_REST: Refresh.RESOURCES,
    TableEvent.GM_CORRECTION: Refresh.RESOURCES,
    # A point of Luck spent on an ability (STR-14) leaves one less on every page that shows it.
    TableEvent.LUCK_ABILITY: Refresh.RESOURCES,
    # A checked or cleared Condition shows on the resources line.
    TableEvent.SHEET_CHANGE: Refresh.RESOURCES,
    TableEvent.CALL: Refresh.CALLS,
    TableEvent.CALL_CLOSED: Refresh.CALLS,
    TableEvent.MEMBER_JOINED: Refresh.MEMBERS,
    TableEvent.MEMBER_REMOVED: Refresh.MEMBERS,
    TableEvent.MEMBER_READMITTED: Refresh.MEMBERS,
    TableEvent.CONTEST_OPEN: Refresh.CONTESTS,
    TableEvent.CONTEST_ANSWER: Refresh.CONTESTS,
    TableEvent.CONTEST_REVEAL: Refresh.CONTESTS,
    # A step may spend from a sheet (a Condition checked to buy a success).
    TableEvent.CONTEST_STEP: Refresh.CONTESTS | Refresh.RESOURCES,
    TableEvent.CONTEST_END: Refresh.CONTESTS,
    TableEvent.CONTEST_CANCEL: Refresh.CONTESTS,
    # Real dice switched on or off: an open roll screen shows the keypad, or hides it, at once.
    TableEvent.DICE_MODE: Refresh.DICE,
}

# The table's decisions: each is a line of its own on every screen that shows the log, the
# television's too (which shows no other event), live and after a reload (issue 42).
DECISIONS = frozenset(
    {
        TableEvent.SESSION_START,
        TableEvent.SESSION_END,
        TableEvent.STORY,
        TableEvent.LONG_REST,
        TableEvent.GM_CORRECTION,
        TableEvent.CALL,
        TableEvent.CALL_CLOSED,
        TableEvent.DICE_MODE,
        TableEvent.LANGUAGE,
        TableEvent.CONTEST_OPEN,
        TableEvent.CONTEST_ANSWER,
        # A side's step: a bid sealed ("Ada has bid, sealed", never the bid), the bids
        # revealed, a critical hit, a Complication, a success bought, an extended action's
        # count. Each table's step text says only what every member may see.
        TableEvent.CONTEST_STEP,
        TableEvent.CONTEST_END,
        TableEvent.CONTEST_CANCEL,
    }
)
# A verdict on a contest: its rolls are final (``rolls.play.final``), and every card of them is
# drawn again, with the verdict and without a button, wherever a page shows one.
VERDICTS = frozenset({TableEvent.CONTEST_END, TableEvent.CONTEST_CANCEL})
# The GM's marks on a roll made earlier: its card is drawn again wherever a page shows one,
# its roller's result card too (a voided roll offers nothing more).
MARKS = frozenset({TableEvent.ROLL_VOID, TableEvent.ROLL_REVEAL, TableEvent.CONTEST_REVEAL})


def refreshes(action: str) -> Refresh:
    """What an entry with this action refreshes: a table event's, or nothing for a roll or a
    follow-up (whose action is the engine's)."""
    try:
        return TableEvent(action).refreshes
    except ValueError:
        return Refresh.NOTHING
