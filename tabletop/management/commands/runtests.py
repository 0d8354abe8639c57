"""``./manage.py runtests [pytest args]``: set up and run the whole test suite.

Installs Debian's chromium for the browser tests when it is missing (apt-get, as root or
through sudo), then runs pytest. With CI=true the suite runs twice: on the embedded default
(SQLite + in-memory layer), then on PostgreSQL + Redis (TEST_DATABASE_URL / TEST_REDIS_URL,
default 127.0.0.1), where those tests must run rather than skip.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from typing import Any

from django.core.management.base import BaseCommand, CommandError

CHROMIUM = "/usr/bin/chromium"
PRODUCTION_DATABASE = "postgres://postgres@127.0.0.1:5432/test"
PRODUCTION_REDIS = "redis://127.0.0.1:6379/0"


def ensure_chromium() -> None:
    if os.path.exists(CHROMIUM):
        return
    if not shutil.which("apt-get"):
        raise CommandError(
            f"The browser tests need Chromium at {CHROMIUM}; install Debian's 'chromium' package."
        )
    prefix = [] if os.geteuid() == 0 else ["sudo", "-n"]
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    print("runtests: installing Debian's chromium for the browser tests", file=sys.stderr)
    subprocess.run([*prefix, "apt-get", "update", "-q"], check=True, env=env)
    subprocess.run([*prefix, "apt-get", "install", "-y", "-q", "chromium"], check=True, env=env)


class Command(BaseCommand):
    help = (
        "Run every test (installs Debian's chromium for the browser tests when missing). "
        "Arguments go to pytest as they are; --production also runs on PostgreSQL + Redis."
    )

    def run_from_argv(self, argv: list[str]) -> None:
        # Every argument belongs to pytest (-k, -x, paths...), so Django's parser stays out.
        args = argv[2:]
        production = "--production" in args
        self.execute(pytest_args=[a for a in args if a != "--production"], production=production)

    def execute(self, *args: Any, **options: Any) -> None:
        self.handle(**options)

    def handle(self, *args: Any, pytest_args: list[str], production: bool, **options: Any) -> None:
        ensure_chromium()
        base = [sys.executable, "-m", "pytest", *pytest_args]
        runs: list[tuple[str, dict[str, str]]] = [("embedded default (SQLite + in-memory channel layer)", {})]
        if production or os.environ.get("CI") == "true":
            runs.append(
                (
                    "production configuration (PostgreSQL + Redis)",
                    {
                        "TEST_PRODUCTION": "1",
                        "DATABASE_URL": os.environ.get("TEST_DATABASE_URL", PRODUCTION_DATABASE),
                        "REDIS_URL": os.environ.get("TEST_REDIS_URL", PRODUCTION_REDIS),
                    },
                )
            )
        for name, extra in runs:
            print(f"== Tests on the {name}", flush=True)
            result = subprocess.run(base, env={**os.environ, **extra}, check=False)
            if result.returncode != 0:
                print(f"Tests failed on the {name} (pytest exit code {result.returncode}).", file=sys.stderr)
                sys.exit(result.returncode)
