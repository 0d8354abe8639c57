"""``./manage.py serve``: set up and serve the table on port 8000 of every interface.

Migrates the database, collects static files, prints the addresses phones can open and runs
uvicorn (HTTP and websockets). ``--host`` and ``--port`` choose where it listens; on a
loopback address (``--host 127.0.0.1``) only this machine reaches it, and it says so instead
of printing a network address that would not answer. With ``--workers N`` (PostgreSQL +
Redis only) it runs N worker processes. Beside them it runs one worker of Django's tasks
framework (``db_worker``, which posts rolls to Discord: docs/discord.md), stopped with it;
``--no-tasks`` leaves that to a ``db_worker`` run on its own.
"""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path
from types import FrameType
from typing import Any

import uvicorn
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils.translation import gettext as _

from tabletop.network import (
    EVERY_INTERFACE,
    is_loopback,
    listening_on,
    local_addresses,
    phone_address,
    url_host,
)


class Command(BaseCommand):
    help = "Set up the database and static files, then serve Tabletop (HTTP + websockets)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--host",
            default="0.0.0.0",
            help="address to listen on (default 0.0.0.0: every interface, so phones reach it; "
            "127.0.0.1: this machine only)",
        )
        parser.add_argument("--port", type=int, default=8000, help="port to listen on (default 8000)")
        parser.add_argument(
            "--workers", type=int, default=1, help="worker processes (needs PostgreSQL + Redis)"
        )
        parser.add_argument(
            "--no-tasks",
            action="store_true",
            help="run no worker of the background tasks (Discord posts): run './manage.py db_worker' yourself",
        )

    def handle(
        self, *args: Any, host: str, port: int, workers: int, no_tasks: bool = False, **options: Any
    ) -> None:
        embedded = settings.DATABASES["default"]["ENGINE"].endswith("sqlite3")
        if workers > 1 and (
            embedded or "redis" not in str(settings.CHANNEL_LAYERS["default"]["BACKEND"]).lower()
        ):
            raise CommandError(
                _("Several workers need DATABASE_URL (PostgreSQL) and REDIS_URL: see docs/deploy.md.")
            )
        prepare(embedded=embedded)
        listening_on(host)  # before uvicorn starts its workers: the join link reads it
        self.stdout.write(self.style.SUCCESS(_("Tabletop is up on port %(port)s.") % {"port": port}))
        for line in addresses(host=host, port=port, public_url=settings.PUBLIC_URL):
            self.stdout.write(f"  {line}")
        self.stdout.write("  " + _("Stop with Ctrl+C."))
        # A deploy stops the server with SIGTERM. Uvicorn shuts down gracefully, puts this
        # handler back and raises the signal again; the handler ends the command through the
        # ``finally`` below, where the default action would end the process at once and leave
        # the tasks' worker running on its own.
        previous = signal.signal(signal.SIGTERM, _terminated)
        tasks = None if no_tasks else start_tasks_worker()
        try:
            uvicorn.run("tabletop.asgi:application", **uvicorn_options(host=host, port=port, workers=workers))
        finally:
            signal.signal(signal.SIGTERM, previous)
            if tasks is not None:
                stop_tasks_worker(tasks)


def _terminated(signum: int, frame: FrameType | None) -> None:
    raise SystemExit(128 + signum)  # the shell's status for a process ended by that signal


def start_tasks_worker() -> subprocess.Popen[bytes]:
    """The background tasks' worker (Discord's posts), a process of its own beside the server,
    so a post's wait never holds up a request: ``./manage.py db_worker``, quiet, checking the
    queue every second."""
    manage = Path(settings.BASE_DIR) / "manage.py"
    command = [sys.executable, str(manage), "db_worker", "--no-reload", "--interval", "1", "--verbosity", "0"]
    return subprocess.Popen(command, cwd=settings.BASE_DIR, stdin=subprocess.DEVNULL)


def stop_tasks_worker(process: subprocess.Popen[bytes]) -> None:
    """Stop the worker as Ctrl+C would: it finishes the post it is making, then exits."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def addresses(*, host: str, port: int, public_url: str) -> list[str]:
    """What ``serve`` prints about where to open the table: only addresses that answer when
    it listens on ``host``."""
    if public_url:  # a proxy in front, which may well reach a loopback address
        return [f"Phones open: {public_url}/"]
    if is_loopback(host):
        return [
            f"On this machine only: http://{url_host(host)}:{port}/",
            "Phones on the network cannot reach it: serve with --host 0.0.0.0 for them.",
        ]
    phone = phone_address(host)
    lines = [f"Phones on this network open: http://{phone}:{port}/"] if phone else []
    if host in EVERY_INTERFACE:
        lines.append(f"On this machine:              http://localhost:{port}/")
        others = [a for a in local_addresses() if a != phone]
        if others:
            lines.append(f"Also answers to: {', '.join(others)}")
    return lines


def prepare(*, embedded: bool) -> None:
    """Everything before serving: the database schema, the static files, the rows of old
    finished tasks and, for the embedded default, the presence rows a server that stopped
    without closing its sockets (a crash, a laptop lid shut) left behind. This process is
    then the only one serving that database, and no socket is open yet: nobody is at the
    table until their page reconnects. With several workers or machines, the others' rows
    are live and stay (a crashed worker's rows age out: tabletop/presence.py)."""
    # Imported here: bench/baseline.py takes ``uvicorn_options`` without this app's models.
    from tabletop.models import Presence

    call_command("migrate", interactive=False, verbosity=0)
    call_command("collectstatic", interactive=False, verbosity=0)
    # Each Discord post leaves a finished task row behind; a table's server is started every
    # evening, so at each start the rows of finished tasks older than ``TASKS_KEPT_DAYS`` go
    # (the library's own command; a server that runs for months runs it from cron: docs/discord.md).
    call_command("prune_db_task_results", min_age_days=TASKS_KEPT_DAYS, queue_name="*", verbosity=0)
    if embedded:
        Presence.objects.all().delete()


# Days a finished background task's row is kept for inspection (``prepare``).
TASKS_KEPT_DAYS = 14

# Seconds an idle HTTP connection stays open (nginx's default is 75).
KEEP_ALIVE = 75
# The largest websocket frame a page may send. It sends only ``{"since": N}``, a few bytes;
# uvicorn's default (16 MiB) let one member's 15 MB frames hold up everyone's rolls (from tens
# of milliseconds to most of a second), all to be refused by the consumer. Over this, uvicorn
# closes the socket with 1009 as soon as it reads the frame's length, and the page reconnects.
WS_MAX_SIZE = 4096


# Seconds a stopping server gives the requests in flight (uvicorn_options).
GRACEFUL_SHUTDOWN = 5


def uvicorn_options(*, host: str, port: int, workers: int) -> dict[str, Any]:
    """How ``serve`` runs uvicorn; bench/ starts its servers with the same options."""
    return {
        "host": host,
        "port": port,
        "workers": workers,
        "log_level": "warning",
        "proxy_headers": True,
        "forwarded_allow_ips": settings.FORWARDED_ALLOW_IPS,
        "ws_ping_interval": 20,
        "ws_ping_timeout": 20,
        # Measured with bench/load.py: compressing every frame cost CPU on each send and
        # about 50 KB per socket, for cards of a few KB; the sans-I/O websockets protocol
        # costs less per frame than the legacy one that "auto" picks (PostgreSQL + Redis, 2
        # workers, 50 rolls/s: p99 118 -> 50 ms).
        "ws_per_message_deflate": False,
        "ws": "websockets-sansio",
        "ws_max_size": WS_MAX_SIZE,
        # A phone rolls every minute or so and keeps its connection open for minutes, as
        # browsers do; uvicorn's default (5 s) closed it between rolls, so nearly every roll
        # paid for a new connection on both sides.
        "timeout_keep_alive": KEEP_ALIVE,
        # A stopping server waits this long for the requests in flight, then cancels them: the
        # feed's streams (docs/feed.md) never end on their own, and their clients reconnect to
        # the next server from where they were. uvicorn's default waits for ever.
        "timeout_graceful_shutdown": GRACEFUL_SHUTDOWN,
    }
