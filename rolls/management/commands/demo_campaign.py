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
from django.utils.translation import gettext as _

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
                _("Unknown system %(system)s: choose one of %(systems)s.")
                % {"system": repr(options["system"]), "systems": ", ".join(registry.slugs())}
            )
        for name, low, high in (("rolls", 0, MAX_ROLLS), ("sessions", 1, 10_000), ("characters", 1, 100)):
            if not low <= options[name] <= high:
                raise CommandError(
                    _("--%(name)s must be between %(low)s and %(high)s.")
                    % {"name": name, "low": low, "high": high}
                )
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
            progress=(
                lambda session, rolls: self.stderr.write(
                    _("session %(session)s: %(rolls)s rolls") % {"session": session, "rolls": rolls}
                )
            )
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
            _(
                "%(name)s: %(sessions)s sessions, %(rolls)s rolls "
                "(%(npc)s by the GM, %(secret)s secret, %(blind)s blind), "
                "%(follow_ups)s follow-ups, %(calls)s calls, "
                "new %(story)s: %(stories)s, long rests: %(rests)s, "
                "%(reveals)s reveals, %(voids)s voids; %(entries)s log entries "
                "in %(seconds)s s."
            )
            % {
                "name": campaign.name,
                "sessions": played.sessions,
                "rolls": played.rolls,
                "npc": played.npc_rolls,
                "secret": played.secret_rolls,
                "blind": played.blind_rolls,
                "follow_ups": played.follow_ups,
                "calls": played.calls,
                "story": _(str(registry.table(campaign.system).story_name)),
                "stories": played.stories,
                "rests": played.long_rests,
                "reveals": played.reveals,
                "voids": played.voids,
                "entries": campaign.last_seq,
                "seconds": f"{time.perf_counter() - started:.1f}",
            }
        )
        write(_("Log in at %(url)s as:") % {"url": f"{base}{reverse('tabletop:login')}"})
        for person in (played.gm, *played.players):
            write(
                f"  {person.user.first_name:<20} {person.user.username:<20} "
                + _("password %(password)s") % {"password": person.password}
            )
        write(_("The table:   %(url)s") % {"url": f"{base}{reverse('rolls:campaign', args=[campaign.pk])}"})
        write(_("The history: %(url)s") % {"url": f"{base}{reverse('rolls:history', args=[campaign.pk])}"})
        write(str(campaign.pk))
