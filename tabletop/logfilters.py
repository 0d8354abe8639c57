"""Filters for the logging configuration. Loaded with the settings, before the apps: this
module imports nothing of Django's models."""

from __future__ import annotations

import logging


class OneLineRefusals(logging.Filter):
    """On ``django.request``: a refused request (403 and the other 4xx) in one line, with the
    refusal's reason, not its traceback. Django logs a PermissionDenied with the exception
    attached, so each player who taps a GM control wrote a dozen lines of stack; a refusal
    is the app working as it should. 5xx keep their traceback.

    A signed-out visitor's PermissionDenied is answered with a redirect to sign in
    (``tabletop.errors.forbidden``), which Django still logs as "Forbidden (Permission
    denied)": a redirect refuses nothing, so it is not logged at all."""

    def filter(self, record: logging.LogRecord) -> bool:
        status = getattr(record, "status_code", None)
        if isinstance(status, int) and status < 400:
            return False
        if record.exc_info and isinstance(status, int) and status < 500:
            reason = str(record.exc_info[1])
            if reason and isinstance(record.args, tuple):
                # Escaped as Django escapes the path: one line, whatever the message holds.
                record.msg = f"{record.msg} (%s)"
                record.args = (*(record.args or ()), reason.encode("unicode_escape").decode("ascii"))
            record.exc_info = None
            record.exc_text = None
        return True
