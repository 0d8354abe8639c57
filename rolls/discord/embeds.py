"""What a Discord post says: a roll as an embed (who, what, the dice as text, the outcome, the
exact odds, a link to the roll's page), or a decision of the table as a line. Drawn in the
campaign's language by the caller (``translation.override``), from the card the audience of
the webhook sees (``rolls.sight.cards.build_card``, which asks ``rolls.sight.audience``)."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _

from rolls.history.odds import step_odds
from rolls.models import LogEntry, Roll
from rolls.sight.cards import Card
from rolls.systems.base import Die, StepView
from tabletop.models import Campaign

# Discord's limits for one embed (its API refuses a message past them).
TITLE, DESCRIPTION, FIELD_NAME, FIELD_VALUE, FIELDS, FOOTER = 256, 4096, 256, 1024, 25, 2048
# The embed's stripe, by the card's tone.
COLOURS = {
    "success": 0x2E7D32,
    "amazing": 0xF9A825,
    "failure": 0xC62828,
    "catastrophe": 0x6A1B9A,
    "neutral": 0x607D8B,
}
# Nobody is pinged by a post, whatever a name or an intent holds ("@everyone").
NO_MENTIONS: dict[str, Any] = {"parse": []}


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _plain(text: str) -> str:
    """A player's words without Discord's markup read into them (``*``, ``_``, ``~``, ``|``...)."""
    for mark in ("\\", "*", "_", "~", "`", "|", ">", "#"):
        text = text.replace(mark, "\\" + mark)
    return text


def die_text(die: Die) -> str:
    """One die as text: a hit in bold, a die not kept struck through, its caption after it."""
    text = str(die.face)
    if die.hit:
        text = f"**{text}**"
    if die.dropped:
        text = f"~~{text}~~"
    if die.label:
        text += f" ({_plain(die.label)})"
    return text


def dice_text(step: StepView) -> str:
    dice = " · ".join(die_text(die) for die in step.dice)
    note = f" {_plain(step.note)}" if step.note else ""
    return _cut((dice or "-") + note, FIELD_VALUE)


def roll_embed(
    *, campaign: Campaign, entry: LogEntry, card: Card, link: str, previous: dict[str, Any] | None
) -> dict[str, Any]:
    """The post of a roll or a follow-up (or of a roll the table now sees, revealed), as the
    card ``card`` shows it to the webhook's audience."""
    roll: Roll = card.roll
    who = _plain(roll.character_name)
    if roll.target_name:
        who = _("%(name)s against %(target)s") % {"name": who, "target": _plain(roll.target_name)}
    title = f"{who}: {_plain(roll.trait)}" if roll.trait else who
    lines = []
    if entry.action in ("roll-reveal", "contest-reveal"):
        lines.append(_("Revealed."))
    elif entry.kind == LogEntry.Kind.FOLLOW_UP and card.steps:
        lines.append(_plain(card.steps[-1].title))
    if roll.intent:
        lines.append(f"“{_plain(roll.intent)}”")
    if roll.visibility == "secret" and not roll.revealed:
        lines.append(_("Secret: the table did not see this roll."))
    elif roll.visibility == "blind" and not roll.revealed:
        lines.append(_("Blind: only the GM sees the result."))
    if roll.by_hand:
        lines.append(_("Rolled by hand."))
    fields = [
        {"name": _cut(_plain(step.title), FIELD_NAME), "value": dice_text(step), "inline": False}
        for step in card.steps
    ][: FIELDS - 3]
    outcome = "\n".join([card.outcome.headline, *card.outcome.details]).strip()
    if card.verdict_line:
        outcome += "\n" + card.verdict_line
    fields.append({"name": _("Outcome"), "value": _cut(_plain(outcome) or "-", FIELD_VALUE), "inline": True})
    odds = step_odds(roll, entry if entry.kind != LogEntry.Kind.EVENT else _first(roll), previous)
    if odds:
        fields.append({"name": _("Odds"), "value": _cut(odds, FIELD_VALUE), "inline": True})
    embed: dict[str, Any] = {
        "title": _cut(title, TITLE),
        "description": _cut("\n".join(line for line in lines if line), DESCRIPTION),
        "color": COLOURS.get(card.outcome.tone, COLOURS["neutral"]),
        "fields": fields,
        "footer": {"text": _cut(f"{campaign.name} · #{card.number}", FOOTER)},
        "timestamp": entry.created.isoformat(),
    }
    if link:
        embed["url"] = link
    if not embed["description"]:
        del embed["description"]
    return {"embeds": [embed], "allowed_mentions": NO_MENTIONS}


def _first(roll: Roll) -> LogEntry:
    """A revealed roll's own first entry, whose odds its post shows."""
    entry = roll.entries.filter(kind=LogEntry.Kind.ROLL).order_by("seq").first()
    return entry if entry is not None else LogEntry(kind=LogEntry.Kind.EVENT)


def event_embed(*, campaign: Campaign, entry: LogEntry, link: str = "", number: int = 0) -> dict[str, Any]:
    """A decision of the table (a session begins, a contest is settled) as a line; a roll's mark
    (voided) with the roll's number and its link."""
    embed: dict[str, Any] = {
        "description": _cut(_plain(entry.text) or entry.action, DESCRIPTION),
        "color": COLOURS["neutral"],
        "footer": {"text": _cut(campaign.name, FOOTER)},
        "timestamp": entry.created.isoformat(),
    }
    if number:
        embed["title"] = _("Roll #%(number)s") % {"number": number}
    if link:
        embed["url"] = link
    return {"embeds": [embed], "allowed_mentions": NO_MENTIONS}


def test_embed(*, campaign: Campaign, audience_label: str) -> dict[str, Any]:
    embed = {
        "title": _("Tabletop is connected"),
        "description": _plain(
            _("This channel will get the rolls of %(campaign)s (%(audience)s).")
            % {"campaign": campaign.name, "audience": audience_label}
        ),
        "color": COLOURS["neutral"],
    }
    return {"embeds": [embed], "allowed_mentions": NO_MENTIONS}
