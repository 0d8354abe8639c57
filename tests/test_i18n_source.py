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


def _binds_underscore(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether ``function`` binds ``_`` as a local (``a, _ = ...``, ``for _ in``), outside a
    comprehension (which has a scope of its own) and outside nested functions."""
    stack: list[tuple[ast.AST, bool]] = [(child, False) for child in ast.iter_child_nodes(function)]
    while stack:
        node, in_comprehension = stack.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
            continue
        inner = in_comprehension or isinstance(
            node, ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp
        )
        if isinstance(node, ast.Name) and node.id == "_" and isinstance(node.ctx, ast.Store) and not inner:
            return True
        stack.extend((child, inner) for child in ast.iter_child_nodes(node))
    return False


def test_no_function_that_translates_binds_underscore_as_a_local() -> None:
    # ``request, _ = pool(...)`` makes ``_`` local to the whole function: its ``_("...")`` then
    # raises UnboundLocalError, on the path (a refusal) that tests reach least.
    calls = {where.rsplit(":", 1)[0] for where, call in _calls() if call.func.id == "_"}  # type: ignore[attr-defined]
    found = []
    for path in sorted([*ROOT.glob("rolls/**/*.py"), *ROOT.glob("tabletop/**/*.py")]):
        if str(path.relative_to(ROOT)) not in calls:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and _binds_underscore(node):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name}")
    assert found == []
