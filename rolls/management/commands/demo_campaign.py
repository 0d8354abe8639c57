"""``manage.py demo_campaign [--system S] [--rolls N] [--sessions S] [--characters C] [--seed N]``:
a new campaign played for a while through the table's own services (``rolls/demo.py``), to
look around in or to measure. Prints the logins and where to open it; the last line is the
campaign's id alone, for scripts (``ID=$(manage.py demo_campaign | tail -n 1)``)."""

from __future__ import annotations

import time
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.urls import reverse

from rolls import demo, registry
from rolls.systems import RulesError

MAX_ROLLS = 1_000_000


class Command(BaseCommand):
    help = "Create a campaign with a GM, players, characters and sessions of plausible play."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--system", default=demo.DEFAULT_SYSTEM, help=f"one of {', '.join(registry.slugs())}"
        )
        parser.add_argument("--rolls", type=int, default=60, help="rolls in all (default 60)")
        parser.add_argument("--sessions", type=int, default=3, help="play sessions (default 3)")
        parser.add_argument(
            "--characters", type=int, default=3, help="characters, one player each (default 3)"
        )
        parser.add_argument("--seed", type=int, default=1, help="the same seed plays the same campaign")
        parser.add_argument("--name", default="", help="the campaign's name")
        parser.add_argument(
            "--language",
            default=settings.LANGUAGE_CODE,
            choices=[code for code, _name in settings.LANGUAGES],
            help="the table's language, which its log is written in (default en)",
        )
        parser.add_argument(
            "--base-url",
            default="",
            help="where the app is served (default: PUBLIC_URL, else 127.0.0.1:8000)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if options["system"] not in registry.slugs():
            raise CommandError(
                f"Unknown system {options['system']!r}: choose one of {', '.join(registry.slugs())}."
            )
        for name, low, high in (("rolls", 0, MAX_ROLLS), ("sessions", 1, 10_000), ("characters", 1, 100)):
            if not low <= options[name] <= high:
                raise CommandError(f"--{name} must be between {low} and {high}.")
        started = time.perf_counter()
        verbose = options["verbosity"] > 1
        plan = demo.Plan(
            system=options["system"],
            rolls=options["rolls"],
            sessions=options["sessions"],
            characters=options["characters"],
            seed=options["seed"],
            name=options["name"],
            language=options["language"],
            progress=(lambda session, rolls: self.stderr.write(f"session {session}: {rolls} rolls"))
            if verbose
            else None,
        )
        try:
            played = demo.create(plan)
        except RulesError as error:
            raise CommandError(str(error)) from None
        self._report(played, options["base_url"] or settings.PUBLIC_URL or "http://127.0.0.1:8000", started)

    def _report(self, played: demo.Played, base: str, started: float) -> None:
        campaign = played.campaign
        base = base.rstrip("/")
        write = self.stdout.write
        write(
            f"{campaign.name}: {played.sessions} sessions, {played.rolls} rolls "
            f"({played.npc_rolls} by the GM, {played.secret_rolls} secret, {played.blind_rolls} blind), "
            f"{played.follow_ups} follow-ups, {played.calls} calls, "
            f"new {registry.table(campaign.system).story_name}: {played.stories}, long rests: {played.long_rests}, "
            f"{played.reveals} reveals, {played.voids} voids; {campaign.last_seq} log entries "
            f"in {time.perf_counter() - started:.1f} s."
        )
        write(f"Log in at {base}{reverse('tabletop:login')} as:")
        for person in (played.gm, *played.players):
            write(f"  {person.user.first_name:<20} {person.user.username:<20} password {person.password}")
        write(f"The table:   {base}{reverse('rolls:campaign', args=[campaign.pk])}")
        write(f"The history: {base}{reverse('rolls:history', args=[campaign.pk])}")
        write(str(campaign.pk))
