from __future__ import annotations

import os
import sys

from django.apps import AppConfig


class RollsConfig(AppConfig):
    name = "rolls"

    def ready(self) -> None:
        # Only a serving process fills the odds caches; tests and management commands that
        # compute a few odds do not pay for all of them.
        serving = "uvicorn" in sys.modules or os.environ.get("TABLETOP_WARM_ODDS") == "1"
        if serving and os.environ.get("TABLETOP_WARM_ODDS") != "0":
            from rolls.warmup import warm_in_background

            warm_in_background()
