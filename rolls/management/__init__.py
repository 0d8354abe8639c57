"""What the dice commands (``manage.py roll`` and ``manage.py odds``) share.

Both take the dice system first and then that system's own flags: each system is an argparse
sub-command whose flags come from ``system.add_cli_arguments``, so ``manage.py odds --help``
lists the systems and ``manage.py odds sixes --help`` lists the sixes flags. The same parser
serves the command line and ``call_command``; a bad flag or a request the rules refuse ends
in a ``CommandError`` with the engine's message, never a traceback.

A command may also describe a second side (``odds ... --against <the other side's flags>``):
``other_side_request`` reads those words with a parser built from the same system flags, so
both sides take exactly the same flags; a bad flag there ends as argparse ends (usage and exit
code 2 on the command line, a ``CommandError`` under ``call_command``).
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils.translation import gettext as _

from rolls import registry
from rolls.systems import RulesError
from rolls.systems.base import DiceSystem


class SystemCommand(BaseCommand):
    """A command about one roll request: ``manage.py <command> SYSTEM [flags]``."""

    # The engine is pure Python: no database, nothing for the system checks to guard.
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: CommandParser) -> None:
        systems = parser.add_subparsers(
            title="dice systems",
            dest="system",
            metavar="SYSTEM",
            required=True,
            help="one of the systems below; 'SYSTEM --help' lists its flags",
        )
        for system in (each.engine for each in registry.all_systems()):
            sub = systems.add_parser(
                system.slug,
                help=system.summary,
                description=f"{self.help} {system.name}: {system.summary}",
            )
            system.add_cli_arguments(sub)
            self.add_common_arguments(sub)
            self.add_system_arguments(sub, system)

    def add_common_arguments(self, parser: argparse.ArgumentParser) -> None:
        """Flags every system takes (after its own, so they can come last on the line)."""
        parser.add_argument("--json", action="store_true", help="print JSON for scripts")

    def add_system_arguments(self, parser: argparse.ArgumentParser, system: DiceSystem) -> None:
        """Flags a command adds for one system, after the common ones. None by default."""

    def other_side_request(
        self, system: DiceSystem, words: list[str], flag: str
    ) -> tuple[Any, argparse.Namespace]:
        """The request a second side's words describe (the words after ``flag``), parsed with
        the same system flags as the first side's, and the parsed flags (``--json`` may come
        among them, at the end of the line). Bad flags end like argparse's own errors."""
        parser = CommandParser(
            prog=f"manage.py {self.command_name()} {system.slug} [flags] {flag}",
            description=f"The other side's flags: the same as for one {system.name} roll.",
            called_from_command_line=getattr(self, "_called_from_command_line", None),
        )
        system.add_cli_arguments(parser)
        self.add_common_arguments(parser)
        if not words:
            parser.error(f"{flag} needs the other side's flags, for example {flag} --dice 3")
        options = parser.parse_args(words)
        try:
            return system.request_from_cli(options), options
        except RulesError as error:
            raise CommandError(
                _("The other side (%(flag)s): %(error)s") % {"flag": flag, "error": error}
            ) from None

    def command_name(self) -> str:
        """The command's name as typed: the module's name (``odds`` for commands/odds.py)."""
        return type(self).__module__.rsplit(".", 1)[-1]

    def system_request(self, options: dict[str, Any]) -> tuple[DiceSystem, Any]:
        """The system and the validated request the flags describe."""
        try:
            system = registry.engine(options["system"])
            return system, system.request_from_cli(argparse.Namespace(**options))
        except RulesError as error:
            raise CommandError(str(error)) from None


def describe(system: DiceSystem, request: Any) -> str:
    """One line naming the request: "Sixes: dice 3, need 1"."""
    parts = []
    for key, value in system.request_dict(request).items():
        # Zeros and empty parts say nothing, but a net pool of 0 dice (doubles) does.
        if value is None or value is False or value in ((), [], "") or (value == 0 and key != "dice"):
            continue
        name = key.replace("_", " ")
        if value is True:
            parts.append(name)
        elif isinstance(value, (list, tuple)):
            parts.append(f"{name} {'+'.join(str(item) for item in value)}")
        else:
            parts.append(f"{name} {value}")
    return f"{system.name}: {', '.join(parts)}"


def key_order(key: str) -> tuple[Any, ...]:
    """Result keys in their natural order: words ("none") first, then numbers by value, and
    "SIZExFACE" bids by Size, then Face."""
    if re.fullmatch(r"-?\d+", key):
        return (1, int(key))
    bid = re.fullmatch(r"(\d+)x(\d+)", key)
    if bid:
        return (1, int(bid[1]), int(bid[2]))
    return (0, key)


def cli_percent(chance: Fraction) -> str:
    """A chance for the command line: two decimals, and never "0.00%" for a possible result."""
    if chance == 0:
        return "0%"
    if chance == 1:
        return "100%"
    value = float(chance) * 100
    if value < 0.005:
        return "<0.01%"
    if value > 99.995:
        return ">99.99%"
    return f"{value:.2f}%"


def columns(rows: Sequence[Sequence[str]], align: str) -> list[str]:
    """Rows of cells as aligned text; ``align`` has one "<" or ">" per column."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(align))]
    return [
        "  ".join(
            f"{cell:{how}{width}}" for cell, how, width in zip(row, align, widths, strict=True)
        ).rstrip()
        for row in rows
    ]
