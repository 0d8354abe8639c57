"""Finds each table package's templates in the package itself.

A package keeps them under ``templates/tables/<slug>/`` (the app-templates convention), and
this loader looks in the ``templates/`` folder of every registered package, so a new system
brings its templates along without a line in the settings.
"""

from __future__ import annotations

from pathlib import Path

from django.template.loaders import filesystem


class Loader(filesystem.Loader):
    def get_dirs(self) -> list[str | Path]:
        from rolls import registry  # the registry imports the forms, which need the apps loaded

        return [system.table.templates_dir for system in registry.all_systems()]
