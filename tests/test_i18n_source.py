"""The Python side of the translations (issue 45), read from the source with ``ast``: every
message handed to ``_``/``gettext``/``ngettext``/``pgettext`` (and their lazy and no-op forms,
and the engine's ``N_``) is a literal the catalogue can hold, never an f-string or a
concatenation; a message with ``%(name)s`` placeholders is formatted with them, and a plural's
two forms name the same placeholders, so no language can drop one. Plus the words that join a
list of names (``tabletop.text.names_and``), in English."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

from tabletop.text import names_and

ROOT = Path(__file__).resolve().parents[1]
SINGULAR = {"_", "gettext", "gettext_lazy", "gettext_noop", "N_"}
PLURAL = {"ngettext", "ngettext_lazy"}
CONTEXT = {"pgettext", "pgettext_lazy"}
MARKERS = SINGULAR | PLURAL | CONTEXT
PLACEHOLDER = re.compile(r"%\((\w+)\)s")


def _calls() -> Iterator[tuple[str, ast.Call]]:
    for path in sorted([*ROOT.glob("rolls/**/*.py"), *ROOT.glob("tabletop/**/*.py")]):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in MARKERS:
                yield f"{path.relative_to(ROOT)}:{node.lineno}", node


def _messages(call: ast.Call) -> list[ast.expr]:
    name = call.func.id  # type: ignore[attr-defined]
    if name in PLURAL:
        return call.args[:2]
    if name in CONTEXT:
        return call.args[1:2]
    return call.args[:1]


def test_it_marks_only_literal_messages() -> None:
    # A call with a variable translates a message marked elsewhere (gettext_noop, N_): allowed.
    # An f-string or "a" + b is a message no catalogue holds, or one that differs per value.
    found = [
        where
        for where, call in _calls()
        for message in _messages(call)
        if isinstance(message, ast.JoinedStr | ast.BinOp)
    ]
    assert found == []


def test_a_plurals_forms_name_the_same_placeholders() -> None:
    found = []
    for where, call in _calls():
        forms = _messages(call)
        if call.func.id in PLURAL and all(isinstance(f, ast.Constant) for f in forms):  # type: ignore[attr-defined]
            names = [set(PLACEHOLDER.findall(f.value)) for f in forms]  # type: ignore[attr-defined]
            if names[0] != names[1]:
                found.append(where)
    assert found == []


def test_it_lists_names_with_the_languages_words() -> None:
    assert [names_and(names) for names in ([], ["Ana"], ["Ana", "Kim"], ["Ana", "Bo", "Kim"])] == [
        "",
        "Ana",
        "Ana and Kim",
        "Ana, Bo and Kim",
    ]
