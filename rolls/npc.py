"""The GM's roll for someone without a sheet, in the command line's own terms.

Every system already describes a bare request through its ``roll``/``odds`` command-line
flags (``--dice``, ``--need``, ``--dn``, ``--bar``...). This form is built from those same
flags, so the GM's quick roll and the command line can never disagree about what a request
is, and a new system brings its GM form with its flags.
"""

from __future__ import annotations

import argparse
from typing import Any

from django import forms

from rolls import registry
from rolls.systems import RulesError
from rolls.systems.base import DiceSystem
from tabletop.models import Campaign, Character


def _cli_actions(system: DiceSystem) -> list[argparse.Action]:
    parser = argparse.ArgumentParser(add_help=False)
    system.add_cli_arguments(parser)
    return list(parser._actions)  # argparse keeps them here; there is no public accessor


class NpcRollForm(forms.Form):
    name = forms.CharField(label="Who rolls", max_length=60, initial="GM")
    intent = forms.CharField(label="What they try", max_length=200, required=False)
    secret = forms.BooleanField(label="In secret: players see only that you rolled", required=False)
    target = forms.ModelChoiceField(
        queryset=Character.objects.none(), required=False, label="Against (optional)", empty_label="Nobody"
    )

    def __init__(self, *args: Any, campaign: Campaign, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.system: DiceSystem = registry.engine(campaign.system)
        self.fields["target"].queryset = campaign.characters.all()
        self.flag_names: list[str] = []
        for action in _cli_actions(self.system):
            name = f"flag_{action.dest}"
            label = action.dest.replace("_", " ").capitalize()
            help_text = (action.help or "").replace("%", "%%") if action.help else ""
            if isinstance(action, argparse._StoreTrueAction):
                field: forms.Field = forms.BooleanField(label=label, required=False, help_text=help_text)
            elif action.choices:
                field = forms.ChoiceField(
                    label=label, choices=[(str(c), str(c)) for c in action.choices], required=action.required
                )
            else:
                initial = action.default if action.default not in (None, False) else None
                field = forms.CharField(
                    label=label, required=action.required, help_text=help_text, initial=initial, max_length=40
                )
            self.fields[name] = field
            self.flag_names.append(name)

    def flag_fields(self) -> list[forms.BoundField]:
        return [self[name] for name in self.flag_names]

    def engine_request(self) -> Any:
        """The validated engine request; raises RulesError with the engine's own message."""
        values: dict[str, Any] = {}
        for action in _cli_actions(self.system):
            raw = self.cleaned_data.get(f"flag_{action.dest}")
            values[action.dest] = _convert(action, raw)
        return self.system.request_from_cli(argparse.Namespace(**values))


def _convert(action: argparse.Action, raw: Any) -> Any:
    if isinstance(action, argparse._StoreTrueAction):
        return bool(raw)
    if raw in (None, ""):
        return action.default
    text = str(raw).strip()
    parts = text.replace(",", " ").split()
    try:
        convert = action.type if callable(action.type) else str
        if isinstance(action, argparse._AppendAction):
            return [convert(part) for part in parts]
        if action.nargs not in (None, "?"):
            return [convert(part) if action.type else part for part in parts]
        return convert(text)
    except (TypeError, ValueError) as error:
        raise RulesError(
            f"{action.dest.replace('_', ' ').capitalize()}: {text!r} is not a valid value."
        ) from error
