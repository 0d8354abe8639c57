"""The app's own date formats, per language, over Django's (``FORMAT_MODULE_PATH``).

Pages name a format (``{{ day|date:"DATE_FORMAT" }}``), never spell one out: each language
draws its dates its own way ("7. Dezember 2026", "7 décembre 2026"). English keeps the short
day the pages have always shown ("7 Dec 2026") instead of Django's "Dec. 7, 2026".
"""
