"""English dates and times as the pages drew them before they were translated: a day as
"7 Dec 2026", a time on the 24-hour clock. Other languages keep Django's own formats."""

from __future__ import annotations

DATE_FORMAT = "j M Y"
TIME_FORMAT = "H:i"
DATETIME_FORMAT = "j M Y, H:i"
