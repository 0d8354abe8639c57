"""``./manage.py makemessages -l de ...``: Django's own, with what this project always needs.

- ``N_``: the rules engine marks its module-level constants with this no-op
  (``rolls/systems/words.py``), translated where they are used; Django's command has no option
  for another keyword, so it is added here (``xgettext_options``, the attribute Django's
  documentation names for this).
- The folders whose strings no player reads are left out: the virtualenv, the tests (their
  made-up system), the bench, the collected static files and the docs. ``--ignore`` adds more.

README.md, "Translations: adding a language", has the whole command.
"""

from __future__ import annotations

from typing import Any

from django.core.management.commands import makemessages

IGNORED = [".venv", "tests", "bench", "staticfiles", "docs"]


class Command(makemessages.Command):
    xgettext_options = [*makemessages.Command.xgettext_options, "--keyword=N_"]

    def handle(self, *args: Any, **options: Any) -> str | None:
        options["ignore_patterns"] = [*options["ignore_patterns"], *IGNORED]
        return super().handle(*args, **options)
