"""The app reads no private name of Django, asgiref, Channels or the standard library: the
names issue 41 listed, searched for in rolls/ and tabletop/. The one reliance kept, what
Channels' consumer ``dispatch`` does, lives in tabletop/serving/consumer.py with its measured
gain, and tests/test_serving_switches.py checks it against the installed Channels."""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# What tabletop/serving/ read until 2026-12-06, each as it would be written to read it.
PRIVATE = [
    r"get_related_populators",
    r"\bklass_info\b",
    r"\bcol_count\b",
    r"annotation_col_map",
    r"\bget_converters\(",
    r"_fetch_mode",
    r"fetch_mode=",
    r"\bInsertQuery\b",
    r"\bUpdateQuery\b",
    r"\bDeleteQuery\b",
    r"returning_fields\s*=",
    r"_prepare_related_fields_for_save",
    r"\.query\.chain\(",
    r"add_update_fields",
    r"sql_with_params",
    r"FORMAT_QMARK_REGEX",
    r"\.create_cursor\(",
    r"wrap_database_errors",
    r"validate_no_broken_transaction",
    r"validate_thread_sharing",
    r"queries_logged",
    r"\.execute_wrappers\b",
    r"close_if_health_check_failed",
    r"\bread_body\(",
    r"\bcreate_request\(",
    r"\bsend_response\(",
    r"listen_for_disconnect",
    r"handlers\.asgi",
    r"ThreadSensitiveContext",
    r"\._clean_expired",
    r"\._queue\b",
    r"\bInMemoryChannelLayer\)",
    r"_resource_closers",
    r"ContextDict",
    r"\._choices\b",
    r"_get_connection_pool_index",
    r"\._pools\b",
    r"_pool_class",
    r"_pool_options",
    r"\._servers\b",
    r"_get_session_from_db",
    r"\._session_key\b",
    r"\._cache\b",
    r"\._session\b",
    r"create_connection\(",
    # What tabletop/serving/cycles.py wrote until 2026-12-07 to cut the request's cycles.
    r"_bound_fields_cache",
    r"\._messages\b",
    r"_upload_handlers",
    r"\._wrapped\b",
    r"_setupfunc",
]

# The same names read by name, as a string (``request.__dict__["_setupfunc"]``, ``getattr()``).
PRIVATE_BY_NAME = ["_bound_fields_cache", "_messages", "_upload_handlers", "_wrapped", "_setupfunc"]


def _sources() -> list[Path]:
    return sorted(
        path
        for folder in ("rolls", "tabletop")
        for path in (ROOT / folder).rglob("*.py")
        if "migrations" not in path.parts
    )


def _strings(path: Path) -> list[tuple[int, str]]:
    return [
        (token.start[0], token.string)
        for token in tokenize.generate_tokens(io.StringIO(path.read_text()).readline)
        if token.type in (tokenize.STRING, tokenize.FSTRING_MIDDLE)
    ]


def _code(path: Path) -> list[tuple[int, str]]:
    """Each line's code, without its strings and comments (a docstring may tell the history)."""
    lines: dict[int, list[str]] = {}
    for token in tokenize.generate_tokens(io.StringIO(path.read_text()).readline):
        if token.type in (tokenize.STRING, tokenize.COMMENT, tokenize.FSTRING_MIDDLE):
            continue
        lines.setdefault(token.start[0], []).append(token.string)
    return [(number, re.sub(r"\s*([.(=])\s*", r"\1", " ".join(parts))) for number, parts in lines.items()]


CODE = {path: _code(path) for path in _sources()}


@pytest.mark.parametrize("pattern", PRIVATE)
def test_no_private_name_is_read(pattern: str) -> None:
    found = [
        f"{path.relative_to(ROOT)}:{number}: {line}"
        for path, lines in CODE.items()
        for number, line in lines
        if re.search(pattern, line)
    ]
    assert found == []


STRINGS = {path: _strings(path) for path in _sources()}


@pytest.mark.parametrize("name", PRIVATE_BY_NAME)
def test_no_private_name_is_read_by_name(name: str) -> None:
    found = [
        f"{path.relative_to(ROOT)}:{number}: {string}"
        for path, strings in STRINGS.items()
        for number, string in strings
        if re.fullmatch(r"[rbuf]*(['\"])" + name + r"\1", string)
    ]
    assert found == []
