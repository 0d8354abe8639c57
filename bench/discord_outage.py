"""A roll's CPU with a Discord webhook on every table while Discord does not answer (issue 46:
posting never slows or fails a roll), beside the same roll without one.

It measures as ``bench/roll_cpu.py`` does (the same phones, the cheapest batch's CPU per roll
in this process), first on tables without a webhook, then on tables whose campaign posts to a
webhook whose server takes the connection and never answers. A worker of the tasks framework
(``db_worker``) runs beside it all the while, as ``serve`` runs one, and waits out its posts'
timeouts in its own process. What the roll itself pays is the wake on commit: one UPDATE of
the campaign's ``DiscordFeed`` row, and one INSERT of the task when none is queued.

    .venv/bin/python bench/discord_outage.py --rolls 100
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import harness, roll_cpu

ROOT = Path(__file__).resolve().parent.parent
WEBHOOK = "https://discord.com/api/webhooks/123456789012345678/" + "t" * 68


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rolls", type=int, default=1000, help="rolls measured each way (default 1000)")
    parser.add_argument("--batches", type=int, default=5, help="batches to take the cheapest of (default 5)")
    args = parser.parse_args()

    # A server that takes connections and never answers them: Discord in an outage.
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(1024)
    os.environ["DISCORD_API_URL"] = f"http://127.0.0.1:{silent.getsockname()[1]}"
    os.environ["DISCORD_TIMEOUT"] = "2"
    environment = harness.prepare("embedded")
    worker = subprocess.Popen(
        [sys.executable, "manage.py", "db_worker", "--no-reload", "--interval", "0.2", "--verbosity", "0"],
        cwd=ROOT,
        env=os.environ.copy(),
        stdin=subprocess.DEVNULL,
    )
    hooked = {"on": False}
    build_tables = harness.build_tables

    def tables_with_webhooks(*given: Any, **options: Any) -> list[harness.Table]:
        from rolls.discord import webhooks
        from tabletop.models import Campaign

        tables = build_tables(*given, **options)
        if hooked["on"]:
            for table in tables:
                campaign = Campaign.objects.get(pk=table.campaign_id)
                webhooks.save(campaign=campaign, audience="table", url=WEBHOOK, origin="http://127.0.0.1")
        return tables

    harness.build_tables = tables_with_webhooks  # type: ignore[assignment]
    try:
        without = roll_cpu.measure(args.rolls, args.batches, None)
        hooked["on"] = True
        with_hook = roll_cpu.measure(args.rolls, args.batches, None)
        from django_tasks_db.models import DBTaskResult

        from tabletop.models import DiscordWebhook

        waiting = DiscordWebhook.objects.filter(failures__gt=0).count()
        print(f"{without:.3f} ms of CPU per sixes roll without a webhook (cheapest batch)")
        print(f"{with_hook:.3f} ms of CPU per sixes roll with a webhook whose server never answers")
        print(
            f"(worker beside it: {DBTaskResult.objects.count()} flushes queued or run, {waiting} webhooks waiting)"
        )
    finally:
        worker.terminate()
        worker.wait(timeout=30)
        silent.close()
        harness.cleanup(environment)


if __name__ == "__main__":
    main()
