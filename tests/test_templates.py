"""Templates say nothing they did not mean to: a ``{# #}`` comment ends on its own line (one
over several lines is printed as text, as it was over the session page's feed)."""

from __future__ import annotations

import re
from pathlib import Path

from rolls import registry

ROOT = Path(__file__).resolve().parents[1]


def template_files() -> list[Path]:
    folders = [ROOT / "templates", *(system.table.templates_dir for system in registry.all_systems())]
    return sorted(path for folder in folders for path in folder.rglob("*.html"))


def test_no_template_comment_runs_over_several_lines() -> None:
    files = template_files()
    assert len(files) > 30
    broken = [
        f"{path.relative_to(ROOT)}:{text[: match.start()].count(chr(10)) + 1}"
        for path in files
        for text in [path.read_text()]
        for match in re.finditer(r"\{#(?:(?!#\}).)*\n", text, flags=re.S)
    ]
    assert not broken, f"multi-line {{# #}} comments print themselves; use {{% comment %}}: {broken}"


def test_no_template_tag_or_variable_runs_over_several_lines() -> None:
    """``{% ... %}`` and ``{{ ... }}`` split over lines are not parsed either: they print."""
    broken = [
        f"{path.relative_to(ROOT)}:{text[: match.start()].count(chr(10)) + 1}"
        for path in template_files()
        for text in [path.read_text()]
        for match in re.finditer(r"\{%(?:(?!%\}).)*\n|\{\{(?:(?!\}\}).)*\n", text, flags=re.S)
    ]
    assert not broken, f"a tag or variable over several lines prints itself: {broken}"
