"""The campaign's history, browsed: the filters, and one page of entries by keyset.

The history lists the log's rolls (their ``ROLL`` entry, drawn as the roll is now) and its
table events, newest first. A page is the entries below a sequence number (``?before=``) or
above one (``?after=``, for the way back), never an OFFSET: page 500 is one index range like
page 1, and a roll made while someone reads never shifts what the next page holds.

Filters on what only a roll has (character, player, outcome, follow-up, secret) leave the
events out; play session and date keep both. What a player may not see decides the query as
well as the cards: a player's filter on an outcome or a follow-up never matches a hidden roll
(whose outcome would show through the match). The secret filter asks only what every card shows
(that a roll was rolled out of sight), so it answers a player as it answers the GM.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from datetime import time as dtime
from html import escape
from typing import Any

from django import forms
from django.db.models import Exists, OuterRef, Q, QuerySet
from django.forms.utils import flatatt
from django.http import QueryDict
from django.utils import dateformat, timezone
from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from rolls import registry
from rolls.log.events import TableEvent
from rolls.log.reads import SessionTimes, first_at_or_after, session_events, session_seqs
from rolls.models import LogEntry, Roll, Visibility
from tabletop.access import MAX_ID
from tabletop.models import Campaign, Character, Membership, PlaySession

PAGE_SIZE = 25
KINDS = (
    ("both", gettext_lazy("Rolls and events")),
    ("rolls", gettext_lazy("Rolls only")),
    ("events", gettext_lazy("Events only")),
)
ROLL_ONLY = ("character", "player", "outcome", "follow_up", "secret")
# A contest is one entry of the history, where it opened (``rolls.views.history``): its rolls
# and its later events are its parts, drawn inside it, not listed again on their own.
CONTEST_PARTS = tuple(
    event.value
    for event in (
        TableEvent.CONTEST_ANSWER,
        TableEvent.CONTEST_REVEAL,
        TableEvent.CONTEST_STEP,
        TableEvent.CONTEST_END,
        TableEvent.CONTEST_CANCEL,
    )
)


class QuickSelect(forms.Select):
    """A select of plain (value, label) strings (``PickField``'s), written here in Python: the
    markup of Django's select template without its template per option and its lazy escaping
    per string. A campaign of 200 sessions made the filter form's options cost more than the
    page's 25 cards (bench/history.py)."""

    def render(self, name: str, value: Any, attrs: Any = None, renderer: Any = None) -> SafeString:
        # What ``Select.optgroups`` decides: the first option whose value is the field's is
        # selected; a None value is "".
        values = self.format_value(value)
        chosen = False
        options = []
        pairs: list[tuple[str, str]] = self.choices  # type: ignore[assignment]
        for option_value, label in pairs:
            selected = not chosen and option_value in values
            chosen = chosen or selected
            options.append(
                f'\n  <option value="{escape(option_value)}"'
                f"{' selected' if selected else ''}>{escape(label)}</option>\n"
            )
        return format_html(
            '<select name="{}"{}>{}\n</select>',
            name,
            # The widget's attributes as Django's select has them (Widget's context: the
            # choice widget's own would build every option's, the part skipped here).
            flatatt(forms.Widget.get_context(self, name, value, attrs)["widget"]["attrs"]),
            mark_safe("".join(options)),  # each value and label escaped above
        )


def export_options(numbers: Iterable[int]) -> SafeString:
    """The export's session choices, newest first, written here: the template's loop over the
    campaign's sessions took 7 ms of a 37 ms history page at 200 sessions."""
    # Numbers only: nothing to escape (format_html per option cost 2 ms more).
    # The words once, the numbers per option (a gettext per option cost as much as the rest).
    before, _number, after = _("Session %(number)s").partition("%(number)s")
    return mark_safe(
        "".join(f'<option value="{int(n)}">{escape(before)}{int(n)}{escape(after)}</option>' for n in numbers)
    )


def session_numbers(campaign: Campaign) -> list[int]:
    return list(
        PlaySession.objects.filter(campaign=campaign).order_by("-number").values_list("number", flat=True)
    )


def _choices(pairs: Any, empty: str) -> list[tuple[str, str]]:
    return [("", empty), *((str(value), str(label)) for value, label in pairs)]


class PickField(forms.ChoiceField):
    """A choice among plain (value, label) strings, set per request, drawn by ``QuickSelect``.
    ``ChoiceField`` normalizes its choices on each assignment and walks them on each check,
    the widget copies them again: for 200 sessions, a millisecond of a page that has 50."""

    widget = QuickSelect

    def _get_choices(self) -> Any:
        return self._pairs

    def _set_choices(self, value: Any) -> None:
        self._pairs = self.widget.choices = list(value)
        self._values = {str(choice) for choice, _ in self._pairs}

    choices = property(_get_choices, _set_choices)

    def __deepcopy__(self, memo: dict[int, Any]) -> Any:
        # Field's copy (widget, messages, validators), then the pairs through the property.
        result = forms.Field.__deepcopy__(self, memo)
        result.choices = self._pairs
        return result

    def valid_value(self, value: Any) -> bool:
        return str(value) in self._values


class HistoryFilters(forms.Form):
    """The filters of the history page, read from its query string. Every value is a choice
    from this campaign (an id no one may guess further), a date, or a sequence number."""

    kind = PickField(label=gettext_lazy("Show"), choices=KINDS, required=False)
    session = PickField(label=gettext_lazy("Play session"), required=False)
    character = PickField(label=gettext_lazy("Character"), required=False)
    player = PickField(label=gettext_lazy("Player"), required=False)
    outcome = PickField(label=gettext_lazy("Outcome"), required=False)
    follow_up = PickField(label=gettext_lazy("Follow-up used"), required=False)
    secret = PickField(
        label=gettext_lazy("Secret or blind"),
        choices=(
            ("", gettext_lazy("Either")),
            ("yes", gettext_lazy("Secret or blind only")),
            ("no", gettext_lazy("Open rolls only")),
        ),
        required=False,
    )
    since = forms.DateField(
        label=gettext_lazy("From"),
        required=False,
        widget=forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"),
    )
    until = forms.DateField(
        label=gettext_lazy("To"),
        required=False,
        widget=forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"),
    )
    before = forms.IntegerField(min_value=1, max_value=MAX_ID, required=False, widget=forms.HiddenInput)
    after = forms.IntegerField(min_value=0, max_value=MAX_ID, required=False, widget=forms.HiddenInput)

    def __init__(self, data: QueryDict, *, membership: Membership) -> None:
        super().__init__(data)
        self.membership = membership
        campaign = membership.campaign
        system = registry.engine(campaign.system)
        fields = self.fields
        # Three columns, not the sessions: a campaign of years has hundreds of them, and a
        # model instance each was a tenth of the page's CPU. The label is ``PlaySession``'s
        # own ("Session 12") and its start's day.
        sessions = list(
            PlaySession.objects.filter(campaign=campaign)
            .order_by("-number")
            .values_list("pk", "number", "started")
        )
        # The session filter's part of the log (``SessionTimes.among``) and the export's
        # choice of session (``export_options``), from the same rows.
        self.sessions = sessions
        self.session_numbers = [number for _pk, number, _started in sessions]
        fields["session"].choices = _choices(  # type: ignore[attr-defined]
            (
                (
                    pk,
                    _("Session %(number)s · %(date)s")
                    % {"number": number, "date": dateformat.format(started, "d M Y")},
                )
                for pk, number, started in sessions
            ),
            _("Every session"),
        )
        # With their owners: who may see a page's cards, without joining the characters.
        self.characters = list(campaign.characters.order_by("name").values_list("pk", "name", "owner_id"))
        fields["character"].choices = _choices(  # type: ignore[attr-defined]
            ((pk, name) for pk, name, _owner in self.characters), _("Everyone")
        )
        members = campaign.memberships.values_list("user_id", "display_name")
        fields["player"].choices = _choices(members, _("Anyone"))  # type: ignore[attr-defined]
        fields["outcome"].choices = _choices(system.tone_names.items(), _("Any outcome"))  # type: ignore[attr-defined]
        fields["follow_up"].choices = _choices(  # type: ignore[attr-defined]
            system.follow_up_names.items(), _("Any, or none")
        )
        if not membership.is_gm:
            # Not offered to a player; still read, so that asking for it answers nothing.
            fields["secret"].widget = forms.HiddenInput()

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        since, until = data.get("since"), data.get("until")
        if since and until and since > until:
            raise forms.ValidationError(_("The first date comes after the last one."))
        return data

    @property
    def active(self) -> int:
        """How many filters are set (for the summary of the folded form)."""
        if not self.is_valid():
            return 0
        # The secret filter too for a player, whose form does not offer it: a link the GM
        # shared may hold it, and the list then says why it is shorter.
        shown = [name for name in self.fields if name not in ("before", "after")]
        return sum(1 for name in shown if self.cleaned_data.get(name) not in (None, "", "both"))

    @property
    def summary(self) -> str:
        """The filters set, in words, for the folded form's line ("Outcome: Success")."""
        if not self.is_valid():
            return ""
        said = []
        for name, each in self.fields.items():
            value = self.cleaned_data.get(name)
            if name in ("before", "after", "kind") or value in (None, ""):
                continue
            choices = dict(getattr(each, "choices", ()))
            said.append(_("%(label)s: %(value)s") % {"label": each.label, "value": choices.get(value, value)})
        kind = self.cleaned_data.get("kind")
        if kind and kind != "both":
            said.insert(0, str(dict(KINDS)[kind]))
        return "; ".join(said)

    def query(self, **changes: object) -> str:
        """The query string of these filters, with ``changes`` (a page's cursor)."""
        params = QueryDict(mutable=True)
        if self.is_valid():
            for name, value in self.cleaned_data.items():
                if name in ("before", "after") or value in (None, ""):
                    continue
                params[name] = value.isoformat() if hasattr(value, "isoformat") else str(value)
        for name, value in changes.items():
            params[name] = str(value)
        return params.urlencode()


def _midnight(day: date, *, days: int = 0) -> datetime | None:
    """The midnight starting ``day`` (plus ``days``) in UTC, or None past the calendar's ends
    (the first and last days there are: no bound)."""
    try:
        return timezone.make_aware(datetime.combine(day + timedelta(days=days), dtime.min)).astimezone(UTC)
    except OverflowError:
        return None


def entries(filters: HistoryFilters) -> QuerySet[LogEntry]:
    """The entries the (valid) filters select, for this member, unordered and unsliced."""
    membership = filters.membership
    campaign = membership.campaign
    data = filters.cleaned_data
    rolls = Q(kind=LogEntry.Kind.ROLL)
    events = Q(kind=LogEntry.Kind.EVENT)
    hidden = ~Q(roll__visibility=Visibility.PUBLIC) & Q(roll__revealed=False)
    span = Q()  # what rolls and events alike must be in
    if data.get("session"):
        times = SessionTimes.among(filters.sessions, int(data["session"]))
        rolls &= Q(roll__session_id=int(data["session"]))
        events &= session_events(times)
        # The same entries, and one index range to find them in: a session's rolls and events
        # all lie within its part of the log.
        first, last = session_seqs(campaign, times)
        span &= Q(seq__gte=first, seq__lte=last)
    # Days as a part of the log (from the first entry at or after the first midnight to the
    # last before the midnight after the last day, in the site's time zone): what
    # ``created__date`` means, found through the index on (campaign, created), then walked
    # by ``seq`` like any page. Sorting a range of times by ``seq`` would read all of it.
    if data.get("since") and (start := _midnight(data["since"])) is not None:
        span &= Q(seq__gte=first_at_or_after(campaign, start) or campaign.last_seq + 1)
    if data.get("until") and (end := _midnight(data["until"], days=1)) is not None:
        after = first_at_or_after(campaign, end)
        if after is not None:
            span &= Q(seq__lt=after)
    # Whose roll, asked of each entry's roll in turn (EXISTS by its primary key), not joined:
    # with a join SQLite starts from the character's (or roller's) index, reads every roll of
    # theirs and sorts them all by ``seq``, where a page needs the newest 26 of the log's walk.
    if data.get("character"):
        rolls &= Q(Exists(Roll.objects.filter(pk=OuterRef("roll_id"), character_id=int(data["character"]))))
    if data.get("player"):
        rolls &= Q(Exists(Roll.objects.filter(pk=OuterRef("roll_id"), roller_id=int(data["player"]))))
    if data.get("outcome"):
        rolls &= Q(roll__outcome=data["outcome"])
    if data.get("follow_up"):
        used = LogEntry.objects.filter(
            roll_id=OuterRef("roll_id"), kind=LogEntry.Kind.FOLLOW_UP, action=data["follow_up"]
        )
        rolls &= Q(Exists(used))
    if not membership.is_gm and (data.get("outcome") or data.get("follow_up")):
        # A match would tell the player what the hidden roll came to.
        rolls &= ~hidden
    # "Secret or blind": what was rolled out of the table's sight, the same rolls for the GM
    # and a player (each card then shows each member what they may see): secret and blind
    # rolls, revealed since or not, and a contest's side while it is sealed. A side once its
    # contest reveals it is an open roll: sealed only until every side had rolled, not hidden.
    out_of_sight = Q(roll__visibility__in=(Visibility.SECRET, Visibility.BLIND)) | Q(
        roll__visibility=Visibility.SEALED, roll__revealed=False
    )
    secret = data.get("secret")
    if secret == "yes":
        rolls &= out_of_sight
    elif secret == "no":
        rolls &= ~out_of_sight
    kind = data.get("kind") or "both"
    if kind != "rolls" and not any(data.get(name) for name in ROLL_ONLY):
        rolls &= Q(roll__contest_side__isnull=True)
        events &= ~Q(action__in=CONTEST_PARTS)
    if kind == "rolls" or any(data.get(name) for name in ROLL_ONLY):
        where = rolls
    elif kind == "events":
        where = events
    else:
        where = rolls | events
    return LogEntry.objects.filter(campaign=campaign).filter(span & where)


@dataclass
class Page:
    entries: list[LogEntry]
    older: str = ""  # the query string of the next page back in time, or ""
    newer: str = ""
    newest: bool = True  # the first page: nothing newer to show
    # The session each event of the page happened in, by the event's seq.
    happened: dict[int, PlaySession] = field(default_factory=dict)


def page(filters: HistoryFilters, *, size: int | None = None) -> Page:
    """One page of the (valid) filters' entries, newest first, by keyset on ``seq``."""
    size = size or PAGE_SIZE
    selected = entries(filters)
    before, after = filters.cleaned_data.get("before"), filters.cleaned_data.get("after")
    if after is not None and before is None:
        # The way back towards the newest: the ``size`` entries just above ``after``.
        rows = list(selected.filter(seq__gt=after).select_related("roll").order_by("seq")[: size + 1])
        more_newer = len(rows) > size
        rows = rows[:size][::-1]
        more_older = _any(selected.filter(seq__lte=after), "-seq")
    else:
        window = selected.filter(seq__lt=before) if before is not None else selected
        rows = list(window.select_related("roll").order_by("-seq")[: size + 1])
        more_older = len(rows) > size
        rows = rows[:size]
        more_newer = before is not None and _any(selected.filter(seq__gte=before), "seq")
    result = Page(rows, newest=not more_newer, happened=_relate(rows, filters))
    if rows and more_older:
        result.older = filters.query(before=rows[-1].seq)
    if rows and more_newer:
        result.newer = filters.query(after=rows[0].seq)
    elif more_newer:
        result.newer = filters.query()
    return result


def _relate(rows: list[LogEntry], filters: HistoryFilters) -> dict[int, PlaySession]:
    """The rolls' sessions and the sessions the page's events happened in (a page spans one
    or two: one query), and the rolls' characters (from the filter form's rows, with the owner
    the cards' audience asks for), set on each roll rather than joined: three more tables in
    the page's query took PostgreSQL longer to plan than to run, and a session and two
    characters per row more to build (bench/history.py). Returns the events' sessions by
    their seq."""
    rolls = [entry.roll for entry in rows if entry.roll is not None]
    # An event belongs to the session it happened in, by its time, as the session filter has
    # it (``SessionTimes``): the session started last at or before it (the form's rows are
    # newest first), or the first one for what came before it. Not its roll's session: a roll
    # of session 1 revealed in session 2 was revealed in session 2, and the events after the
    # reveal ("Session 2 ended") took its heading.
    oldest = filters.sessions[-1][0] if filters.sessions else None
    happened = {
        entry.seq: next((pk for pk, _, started in filters.sessions if started <= entry.created), oldest)
        for entry in rows
        if entry.kind == LogEntry.Kind.EVENT
    }
    sessions = PlaySession.objects.in_bulk(
        {roll.session_id for roll in rolls} | {pk for pk in happened.values() if pk is not None}
    )
    campaign_id = filters.membership.campaign_id
    characters = {
        pk: Character.from_db(None, CHARACTER_FIELDS, (pk, campaign_id, owner_id, name))
        for pk, name, owner_id in filters.characters
    }
    for roll in rolls:
        roll.session = sessions[roll.session_id]
        for name in ("character", "target"):
            known = characters.get(getattr(roll, f"{name}_id"))
            if known is not None:
                setattr(roll, name, known)
    return {seq: sessions[pk] for seq, pk in happened.items() if pk is not None}


# What the page's characters are built with; any other field of theirs is read when asked for.
CHARACTER_FIELDS = ["id", "campaign_id", "owner_id", "name"]


def _any(entries: QuerySet[LogEntry], order: str) -> bool:
    """Whether there is one, found walking the log from the page's edge. Not ``exists()``,
    which drops the order: PostgreSQL then merged two roll-id indexes whole to find the first
    entry of a rare follow-up (12 ms at 100,000 rolls, against 0.1 ms by ``seq``)."""
    return bool(entries.order_by(order).values_list("seq", flat=True)[:1])
