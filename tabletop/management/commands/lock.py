"""``./manage.py lock [uv pip compile args]``: regenerate requirements/*.txt from pyproject.toml.

The set-up installs only what these locks pin, with their hashes, so that every machine gets
the same packages. After a change to the dependencies in ``pyproject.toml``, run this and
commit the locks with it. Pins that still satisfy pyproject.toml are kept; pass ``--upgrade``
(everything) or ``--upgrade-package NAME`` to move them.

The resolution is universal (every platform, Python 3.12 and newer), so the same locks serve
Linux, macOS and Windows machines.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

# dev.txt first: app.txt is then resolved within its pins, so switching between the two
# commands of README.md never changes a version.
LOCKS: list[tuple[str, list[str]]] = [
    ("requirements/dev.txt", ["--extra", "dev"]),
    ("requirements/app.txt", ["--constraint", "requirements/dev.txt"]),
]


class Command(BaseCommand):
    help = (
        "Regenerate requirements/app.txt and requirements/dev.txt (with hashes) from pyproject.toml. "
        "Other arguments go to 'uv pip compile' (--upgrade, --upgrade-package NAME)."
    )

    def run_from_argv(self, argv: list[str]) -> None:
        # Arguments belong to uv, so Django's parser stays out.
        self.handle(uv_args=argv[2:])

    def handle(self, *args: Any, uv_args: list[str], **options: Any) -> None:
        base = Path(settings.BASE_DIR)
        # The locks' header then names the command to run instead of uv's own.
        env = {**os.environ, "UV_CUSTOM_COMPILE_COMMAND": "./manage.py lock"}
        for lock, extra in LOCKS:
            command = [
                sys.executable,
                "-m",
                "uv",
                "pip",
                "compile",
                "pyproject.toml",
                "--universal",
                "--python-version",
                "3.12",
                "--generate-hashes",
                "--quiet",
                *extra,
                "--output-file",
                lock,
                *uv_args,
            ]
            if subprocess.run(command, cwd=base, env=env, check=False).returncode != 0:
                raise CommandError(f"uv could not write {lock}: see its message above.")
            print(f"lock: wrote {lock}")
