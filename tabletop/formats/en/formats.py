"""English dates as the pages drew them before they were translated."""

from __future__ import annotations

DATE_FORMAT = "j M Y"
