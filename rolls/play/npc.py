"""The GM's roll for someone without a sheet, in the command line's own terms.

Every system already describes a bare request through its ``roll``/``odds`` command-line
flags (``--dice``, ``--need``, ``--dn``, ``--bar``...). This form is built from those same
flags, so the GM's quick roll and the command line can never disagree about what a request
is, and a new system brings its GM form with its flags.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from functools import cache
from typing import Any, cast

from django import forms
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from rolls import registry
from rolls.systems import RulesError
from rolls.systems.base import DiceSystem
from rolls.systems.flags import IntRange, OneOf, OneOfEach
from tabletop.access import character_or_none
from tabletop.models import Campaign, Character, DiceMode
from tabletop.serving.fields import CopiedFieldsMetaclass
from tabletop.text import visible_name

# How the form shows a flag, from the ``action=`` keyword a system passed to add_argument.
FLAG, CHOICE, VALUE = "flag", "choice", "value"
KNOWN_ACTIONS = ("store", "store_true", "append")
SHEETLESS_FLAG = "npc"


@dataclass(frozen=True)
class CliFlag:
    """One ``add_argument`` call of a system: the Action argparse returned for it (whose
    ``dest``, ``default``, ``choices``, ``help``, ``nargs``, ``required`` and ``type`` are
    public) and the ``action=`` it was asked for."""

    action: argparse.Action
    action_name: str

    @property
    def kind(self) -> str:
        if self.action_name == "store_true":
            return FLAG
        if self.action.choices:
            return CHOICE
        return VALUE

    @property
    def many(self) -> bool:
        """Whether the value is a list: a repeated flag, or one that takes several words."""
        return self.action_name == "append" or self.action.nargs not in (None, "?")


class _RecordingParser(argparse.ArgumentParser):
    """A parser that keeps each flag a system adds, in order.

    argparse has no public accessor for the actions a parser holds, so the calls are
    recorded as they are made; the parser still builds every Action itself, so dest,
    defaults and types come out exactly as the command line sees them.
    """

    def __init__(self) -> None:
        self.flags: list[CliFlag] = []
        self.recording = False
        super().__init__(add_help=False)
        self.recording = True

    def add_argument(self, *args: Any, **kwargs: Any) -> argparse.Action:
        name = kwargs.get("action", "store")
        if name not in KNOWN_ACTIONS:
            # A flag the form cannot show would silently be missing from the GM's roll.
            raise TypeError(f"The GM's roll form does not know action={name!r} (flag {args}).")
        action = super().add_argument(*args, **kwargs)
        self.flags.append(CliFlag(action, name))
        return action

    def add_argument_group(self, *args: Any, **kwargs: Any) -> Any:
        # A group's add_argument does not pass through this parser, so a system's flags added
        # there would be missing from the form. (The parser makes its own groups while it is
        # built; those hold nothing of the system's.)
        if self.recording:
            raise TypeError("The GM's roll form reads only flags added with parser.add_argument.")
        return super().add_argument_group(*args, **kwargs)

    def add_mutually_exclusive_group(self, *args: Any, **kwargs: Any) -> Any:
        if self.recording:
            raise TypeError("The GM's roll form reads only flags added with parser.add_argument.")
        return super().add_mutually_exclusive_group(*args, **kwargs)


@cache
def _cli_flags(system: DiceSystem) -> tuple[CliFlag, ...]:
    """The system's flags, read once per process: a system's flags are fixed in its code, and
    building the parser again was a tenth of each quick roll's request (built twice a roll:
    the form's fields, then the request)."""
    parser = _RecordingParser()
    system.add_cli_arguments(parser)
    # ``--npc`` says on the command line that a side is the GM's without a sheet; here every
    # roll is, and a contest marks its side itself (``DiceSystem.sheetless``): no checkbox.
    return tuple(flag for flag in parser.flags if flag.action.dest != SHEETLESS_FLAG)


class TargetField(forms.ModelChoiceField):
    """The character a quick roll is made against: one of the campaign's, looked up with the
    compiled read the views use (``access.character_or_none``). The ORM's ``get`` on the
    field's queryset built and compiled its query on every roll made against someone, an
    eighth of the request; the queryset still lists the choices when the form is drawn."""

    campaign: Campaign | None = None  # None until ``of_campaign``: every value is refused

    def of_campaign(self, campaign: Campaign) -> None:
        """Offer the campaign's characters and take only those: the list the form shows and
        the read that checks a choice come from the one campaign."""
        self.queryset = campaign.characters.all()
        self.campaign = campaign

    def to_python(self, value: Any) -> Character | None:
        if value in self.empty_values:
            return None
        self.validate_no_null_characters(value)
        try:
            pk = int(str(value))
        except ValueError:
            pk = 0  # not an id: no character has it
        character = character_or_none(self.campaign, pk) if self.campaign is not None else None
        if character is None:
            raise forms.ValidationError(
                self.error_messages["invalid_choice"], code="invalid_choice", params={"value": value}
            )
        return character


class NpcRollForm(forms.Form, metaclass=CopiedFieldsMetaclass):
    name = forms.CharField(
        label=gettext_lazy("Who rolls"), max_length=60, initial="GM", validators=[visible_name]
    )
    intent = forms.CharField(label=gettext_lazy("What they try"), max_length=200, required=False)
    secret = forms.BooleanField(
        label=gettext_lazy("In secret: players see only that you rolled"), required=False
    )
    target = TargetField(
        queryset=Character.objects.none(),
        required=False,
        label=gettext_lazy("Against (optional)"),
        empty_label=gettext_lazy("Nobody"),
    )

    def __init__(self, *args: Any, campaign: Campaign, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.system: DiceSystem = registry.engine(campaign.system)
        cast(TargetField, self.fields["target"]).of_campaign(campaign)
        if campaign.dice != DiceMode.DIGITAL:
            # The GM may roll real dice too, or leave it empty and let the app roll (a secret
            # roll, say, whose dice nobody at the table should see fall).
            self.fields["faces"] = forms.CharField(
                label=gettext_lazy("Faces rolled by hand"),
                required=False,
                max_length=120,
                help_text=gettext_lazy("Empty: the app rolls. Or the faces you rolled, e.g. 6 3 1."),
            )
        self.flag_names: list[str] = []
        # A flag shown as several fields (one select per word of ``--bar SIZE FACE``): its fields.
        self.word_fields: dict[str, list[str]] = {}
        for flag in _cli_flags(self.system):
            name = f"flag_{flag.action.dest}"
            fields = _fields_for(flag)
            if len(fields) > 1:
                self.word_fields[name] = [f"{name}_{i}" for i in range(len(fields))]
                names = self.word_fields[name]
            else:
                names = [name]
            for each, field in zip(names, fields, strict=True):
                self.fields[each] = field
                self.flag_names.append(each)

    def flag_fields(self) -> list[forms.BoundField]:
        return [self[name] for name in self.flag_names]

    def errors_text(self) -> str:
        """Every error, each after the label of its field: "Dice: Ensure this value is..."."""
        parts = []
        for name, errors in self.errors.items():
            label = self.fields[name].label if name in self.fields else ""
            parts += [f"{label}: {error}" if label else str(error) for error in errors]
        return " ".join(parts)

    def engine_request(self) -> Any:
        """The validated engine request; raises RulesError with the engine's own message."""
        values: dict[str, Any] = {}
        for flag in _cli_flags(self.system):
            name = f"flag_{flag.action.dest}"
            if name in self.word_fields:
                words = [str(self.cleaned_data.get(each) or "") for each in self.word_fields[name]]
                # All empty: the flag is not given. Some empty: the engine says what is missing.
                values[flag.action.dest] = [w for w in words if w] or flag.action.default
            else:
                values[flag.action.dest] = _convert(flag, self.cleaned_data.get(name))
        return self.system.request_from_cli(argparse.Namespace(**values))


def _label(dest: str) -> str:
    # A two-letter name is an abbreviation the rules use as such ("DN").
    return dest.upper() if len(dest) <= 2 else dest.replace("_", " ").capitalize()


def _fields_for(flag: CliFlag) -> list[forms.Field]:
    """The form fields that show one flag: a checkbox, a select, a number input with the
    rules' bounds, a select per word, or a text input for a list of values."""
    action = flag.action
    label = _label(action.dest)
    help_text = action.help or ""
    kind = action.type
    if flag.kind == FLAG:
        return [forms.BooleanField(label=label, required=False, help_text=help_text)]
    if flag.many and isinstance(kind, OneOfEach):
        metavars = action.metavar if isinstance(action.metavar, tuple) else ()
        return [
            forms.ChoiceField(
                label=f"{label}: {str(metavars[i]).capitalize()}" if i < len(metavars) else label,
                choices=[("", _("None")), *options],
                required=False,
                help_text=help_text if i == len(kind.words) - 1 else "",
            )
            for i, options in enumerate(kind.words)
        ]
    initial = action.default if action.default not in (None, False) else None
    if not flag.many and (isinstance(kind, OneOf) or action.choices):
        options = (
            list(kind.options)
            if isinstance(kind, OneOf)
            else [(str(c), str(c)) for c in action.choices or ()]
        )
        if not action.required and initial is None:
            options.insert(0, ("", _("None")))
        return [
            forms.ChoiceField(
                label=label, choices=options, required=action.required, initial=initial, help_text=help_text
            )
        ]
    if not flag.many and isinstance(kind, IntRange):
        return [
            forms.IntegerField(
                label=label,
                min_value=kind.low,
                max_value=kind.high,
                required=action.required,
                initial=initial,
                help_text=help_text,
            )
        ]
    return [
        forms.CharField(
            label=label, required=action.required, help_text=help_text, initial=initial, max_length=40
        )
    ]


def _convert(flag: CliFlag, raw: Any) -> Any:
    action = flag.action
    if flag.kind == FLAG:
        return bool(raw)
    if raw in (None, ""):
        return action.default
    text = str(raw).strip()
    parts = text.replace(",", " ").split()
    try:
        convert = action.type if callable(action.type) else str
        if flag.many:
            return [convert(part) for part in parts]
        return convert(text)
    except (TypeError, ValueError) as error:
        raise RulesError(
            _("%(field)s: %(value)s is not a valid value.")
            % {"field": action.dest.replace("_", " ").capitalize(), "value": repr(text)}
        ) from error
