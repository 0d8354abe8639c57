#!/usr/bin/env python3
"""Django's command-line utility for Tabletop.

On a fresh machine it first sets itself up (virtual environment on Python 3.12+, packages):
see tabletop/bootstrap.py. ``./manage.py serve`` runs the table, ``./manage.py runtests``
runs every test.
"""

import os
import sys


def main() -> None:
    from tabletop import bootstrap

    bootstrap.ensure_environment()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tabletop.settings")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
