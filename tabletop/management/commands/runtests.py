"""``./manage.py runtests [--lint] [--production] [pytest args]``: set up and run the tests.

Installs Debian's chromium for the browser tests when it is missing (apt-get, as root or
through sudo), then runs pytest on the embedded default (SQLite + in-memory layer).

With ``--lint`` it first runs ``ruff check .``, ``ruff format --check .`` and ``mypy`` and
stops on any error. With ``--production`` it also runs pytest on PostgreSQL + Redis
(TEST_DATABASE_URL / TEST_REDIS_URL, default 127.0.0.1), where those tests must run rather
than skip. CI=true means both, plus a third pytest run on the embedded default with
FAST_PATH=off, since the suite must pass without the fast path too.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

CHROMIUM = "/usr/bin/chromium"
PRODUCTION_DATABASE = "postgres://postgres@127.0.0.1:5432/test"
PRODUCTION_REDIS = "redis://127.0.0.1:6379/0"
# The flags runtests keeps for itself; every other argument goes to pytest.
OWN_FLAGS = ("--lint", "--production")
LINTERS: list[tuple[str, list[str]]] = [
    ("ruff check", ["-m", "ruff", "check", "."]),
    ("ruff format --check", ["-m", "ruff", "format", "--check", "."]),
    ("mypy", ["-m", "mypy"]),  # files and settings: [tool.mypy] in pyproject.toml
]
# pytest's exit code when it collected no test: a run that tested nothing has not passed.
NO_TESTS_COLLECTED = 5


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


def run_linters() -> None:
    """Run every linter (so one run reports all of them), then fail if any did."""
    failed = []
    for name, args in LINTERS:
        print(f"== {name}", flush=True)
        if subprocess.run([sys.executable, *args], cwd=settings.BASE_DIR, check=False).returncode != 0:
            failed.append(name)
    if failed:
        print(f"Lint failed: {', '.join(failed)}.", file=sys.stderr)
        sys.exit(1)


class Command(BaseCommand):
    help = (
        "Run every test (installs Debian's chromium for the browser tests when missing). "
        "Arguments go to pytest as they are; --lint first runs ruff and mypy, --production also "
        "runs on PostgreSQL + Redis; CI=true means both and a run with FAST_PATH=off."
    )

    def run_from_argv(self, argv: list[str]) -> None:
        # Every argument belongs to pytest (-k, -x, paths...), so Django's parser stays out.
        args = argv[2:]
        ci = os.environ.get("CI") == "true"
        self.execute(
            pytest_args=[a for a in args if a not in OWN_FLAGS],
            lint="--lint" in args or ci,
            production="--production" in args or ci,
            fast_path_off=ci,
        )

    def execute(self, *args: Any, **options: Any) -> None:
        self.handle(**options)

    def handle(
        self,
        *args: Any,
        pytest_args: list[str],
        lint: bool,
        production: bool,
        fast_path_off: bool,
        **options: Any,
    ) -> None:
        if lint:
            run_linters()
        ensure_chromium()
        base = [sys.executable, "-m", "pytest", *pytest_args]
        runs: list[tuple[str, dict[str, str]]] = [("embedded default (SQLite + in-memory channel layer)", {})]
        if production:
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
        if fast_path_off:
            runs.append(("embedded default with the fast path off (FAST_PATH=off)", {"FAST_PATH": "off"}))
        for name, extra in runs:
            print(f"== Tests on the {name}", flush=True)
            result = subprocess.run(base, env={**os.environ, **extra}, check=False)
            if result.returncode == NO_TESTS_COLLECTED:
                print(
                    f"No tests ran on the {name} (pytest collected none): that is a failure.", file=sys.stderr
                )
                sys.exit(result.returncode)
            if result.returncode != 0:
                print(f"Tests failed on the {name} (pytest exit code {result.returncode}).", file=sys.stderr)
                sys.exit(result.returncode)
