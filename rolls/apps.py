from __future__ import annotations

import os
import sys
from typing import Any

from django.apps import AppConfig
from django.core.signals import setting_changed

# The live side's receiver of a committed entry, by name: a bench that fills a campaign
# without sockets disconnects it (bench/history.py).
LIVE_RECEIVER = "rolls.live.publish"
# The Discord poster's, woken when an entry of a campaign with a webhook commits.
DISCORD_RECEIVER = "rolls.discord.wake"


class RollsConfig(AppConfig):
    name = "rolls"

    def ready(self) -> None:
        # The rules engine speaks through Django's translations (in the language active
        # while a card is drawn or a log text written), without importing Django itself.
        from django.utils.translation import get_language, gettext, ngettext

        from rolls.systems import words

        words.install(gettext, ngettext, get_language)
        # The engine keeps each text per language; a test that points Django at other
        # catalogues has it read them again.
        setting_changed.connect(_catalogues_changed, dispatch_uid="rolls.systems.words.forget")

        # The log announces each committed entry and the live side publishes it: connected
        # here, so the writes never import the side that draws.
        from rolls.live.publish import on_entry_committed
        from rolls.log.append import entry_committed

        entry_committed.connect(on_entry_committed, dispatch_uid=LIVE_RECEIVER)
        from rolls.discord import wake

        entry_committed.connect(wake.on_entry_committed, dispatch_uid=DISCORD_RECEIVER)

        # Only a serving process fills the odds caches; tests and management commands that
        # compute a few odds do not pay for all of them.
        serving = "uvicorn" in sys.modules or os.environ.get("TABLETOP_WARM_ODDS") == "1"
        if serving and os.environ.get("TABLETOP_WARM_ODDS") != "0":
            from rolls.warmup import warm_in_background

            warm_in_background()


def _catalogues_changed(*, setting: str, **kwargs: Any) -> None:
    if setting in ("LANGUAGES", "LANGUAGE_CODE", "LOCALE_PATHS", "INSTALLED_APPS"):
        from rolls.systems import words

        words.forget()
