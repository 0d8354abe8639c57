"""Every rule has a test: each line of the shared RULES.md (``- SIX-10 ...``) is named by at
least one test, in its name (``test_six_10_...``) or its docstring (``SIX-10: ...``), as
RULES.md asks. The file sits beside the repository (``../shared/RULES.md``, where the issues
point); a checkout without it skips this check rather than failing."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT.parent / "shared" / "RULES.md"
RULE_LINE = re.compile(r"^- ([A-Z]+)-(\d+)\b", re.MULTILINE)


def rule_ids(text: str) -> list[tuple[str, str]]:
    return RULE_LINE.findall(text)


def suite_texts() -> str:
    """The name and docstring of every test in the suite, one after the other."""
    texts = []
    for path in sorted((ROOT / "tests").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("test_"):
                texts.append(f"{node.name}\n{ast.get_docstring(node) or ''}")
    return "\n".join(texts)


def named(prefix: str, number: str, texts: str) -> bool:
    """``SIX-1`` as itself or as ``six_1`` in a name, never as a part of ``SIX-10``."""
    pattern = rf"(?<![A-Za-z0-9]){prefix}-{number}(?!\d)|(?<![A-Za-z0-9]){prefix.lower()}_{number}(?!\d)"
    return re.search(pattern, texts) is not None


def test_the_check_reads_ids_whole() -> None:
    assert rule_ids("- SIX-1 one\n- SET-10 two\nnot - SIX-3\n") == [("SIX", "1"), ("SET", "10")]
    assert named("SIX", "1", "test_six_1_pool") and named("SIX", "1", '"""SIX-1: the pool"""')
    assert not named("SIX", "1", "test_six_10_push SIX-10") and not named("SIX", "1", "test_xsix_1")


def test_every_line_of_rules_md_has_a_test_carrying_its_id() -> None:
    if not RULES.exists():
        pytest.skip(f"{RULES} is not beside this checkout")
    ids = rule_ids(RULES.read_text(encoding="utf-8"))
    assert len(ids) > 50, "RULES.md lists the rules one per line: '- SIX-1 ...'"
    texts = suite_texts()
    missing = [f"{prefix}-{number}" for prefix, number in ids if not named(prefix, number, texts)]
    assert not missing, f"No test names these rules (in its name or docstring): {', '.join(missing)}"
