"""``./manage.py runtests [--lint] [--production] [pytest args]``: set up and run the tests.

Installs Debian's chromium for the browser tests when it is missing (apt-get, as root or
through sudo), then runs every test once on the embedded default (SQLite + in-memory layer),
on every core (pytest-xdist ``-n auto --dist loadfile``, unless the arguments name ``-n``).

With ``--lint`` it first runs ``ruff check .``, ``ruff format --check .`` and ``mypy`` and
stops on any error. With ``--production`` it then runs the tests marked ``production`` (the tests
that commit, the files of the parts that speak SQL, the cache or the channel layer themselves,
and a few browser tests; the markers are given at collection, tests/conftest.py) on PostgreSQL + Redis (TEST_DATABASE_URL /
TEST_REDIS_URL, default 127.0.0.1), where they must run rather than skip. CI=true means both,
plus the tests marked ``serving`` (what a serving piece replaces) on the embedded default with
FAST_PATH=off, since the app must work without the fast path too; that pass is left out when
no serving piece is left to switch off. A pass that fails or collects no test fails the command.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
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
# Both cores of CI's machine (every core elsewhere), one test file per worker at a time: a
# file's tests share their module's set-up, and the browser tests their server and browser.
PARALLEL = ["-n", "auto", "--dist", "loadfile"]


def parallel_args(pytest_args: list[str]) -> list[str]:
    """PARALLEL, unless the arguments choose for themselves (``-n 0`` runs in one process)."""
    chosen = any(
        arg in ("-n", "--numprocesses", "--dist") or arg.startswith(("-n", "--numprocesses=", "--dist="))
        for arg in pytest_args
    )
    return [] if chosen or "no:xdist" in pytest_args else PARALLEL


def selected(pytest_args: list[str], marker: str) -> list[str]:
    """``pytest_args`` narrowed to the tests marked ``marker``, and to the caller's own ``-m``."""
    args, expression = [], marker
    words = iter(pytest_args)
    for arg in words:
        if arg == "-m":
            expression = f"({next(words, '')}) and {marker}"
        elif arg.startswith("-m") and len(arg) > 2:
            expression = f"({arg[2:]}) and {marker}"
        else:
            args.append(arg)
    return [*args, "-m", expression]


def serving_pieces() -> tuple[str, ...]:
    """The serving pieces FAST_PATH=off switches off: none left, no pass for them."""
    try:
        from tabletop.serving import PIECES
    except ImportError:
        return ()
    return tuple(PIECES)


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
        "Run every test once, on every core (installs Debian's chromium for the browser tests "
        "when missing). Arguments go to pytest as they are; --lint first runs ruff and mypy, "
        "--production then runs the tests marked production on PostgreSQL + Redis; CI=true "
        "means both and the tests marked serving with FAST_PATH=off."
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
        base = [sys.executable, "-m", "pytest", *parallel_args(pytest_args)]
        # (name, pytest's arguments, extra environment)
        runs: list[tuple[str, list[str], dict[str, str]]] = [
            ("embedded default (SQLite + in-memory channel layer)", pytest_args, {})
        ]
        if production:
            runs.append(
                (
                    "production configuration (PostgreSQL + Redis)",
                    selected(pytest_args, "production"),
                    {
                        "TEST_PRODUCTION": "1",
                        "DATABASE_URL": os.environ.get("TEST_DATABASE_URL", PRODUCTION_DATABASE),
                        "REDIS_URL": os.environ.get("TEST_REDIS_URL", PRODUCTION_REDIS),
                    },
                )
            )
        if fast_path_off and serving_pieces():
            runs.append(
                (
                    "embedded default with the fast path off (FAST_PATH=off)",
                    selected(pytest_args, "serving"),
                    {"FAST_PATH": "off"},
                )
            )
        for name, arguments, extra in runs:
            print(f"== Tests on the {name}", flush=True)
            started = time.monotonic()
            result = subprocess.run([*base, *arguments], env={**os.environ, **extra}, check=False)
            print(f"== {name}: {(time.monotonic() - started) / 60:.1f} minutes", flush=True)
            if result.returncode == NO_TESTS_COLLECTED:
                print(
                    f"No tests ran on the {name} (pytest collected none): that is a failure.", file=sys.stderr
                )
                sys.exit(result.returncode)
            if result.returncode != 0:
                print(f"Tests failed on the {name} (pytest exit code {result.returncode}).", file=sys.stderr)
                sys.exit(result.returncode)
