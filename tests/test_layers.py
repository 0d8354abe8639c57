"""The house's floors (docs/architecture.md, "Layers"): no import circle anywhere in rolls/
or tabletop/; tabletop stands below rolls (only the project's wiring, its URL and socket
routing, names the rolls app); the packages of rolls/ stand in the order a roll travels, each
importing only those below it; and no write imports what draws. Read from the source with
``ast``, nothing imported."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("rolls", "tabletop")
# The project's wiring stands on top of both apps: the root URLs and the ASGI routing.
WIRING = {"tabletop.urls", "tabletop.asgi", "tabletop.routing"}

# The floors of rolls/, from the ground up. A module may import its own floor and those below
# (and anything in tabletop/, which stands below them all), never one above: a new package
# takes its place in this list, and an import that climbs fails the suite.
FLOORS: list[tuple[str, ...]] = [
    ("rolls.systems",),  # the rules engine: no Django (test below)
    ("rolls.models",),
    ("rolls.log",),  # append, chain, events, fair dice, the shared reads
    ("rolls.tables",),  # one package per dice system
    ("rolls.registry",),
    ("rolls.stats",),
    ("rolls.play",),  # rolls, follow-ups, NPC rolls, calls
    ("rolls.sight",),  # what one member sees: the audience rule, cards, panels
    ("rolls.contests",),
    ("rolls.campaigns",),
    ("rolls.history",),
    ("rolls.live",),  # publish, feed, sockets, the display
    ("rolls.bridges",),  # the feed for other tools: its keys, its events, its stream
    ("rolls.discord",),  # the posts to Discord, after the commit, by the tasks' worker
    # The top: what Django or the command line calls.
    (
        "rolls.views",
        "rolls.urls",
        "rolls.management",
        "rolls.templatetags",
        "rolls.table_templates",
        "rolls.apps",
        "rolls.demo",
        "rolls.warmup",
    ),
]
# The writes: each one transaction that changes the log. They announce what they wrote
# (``rolls.log.append.entry_committed``) and never load the side that draws it.
WRITES = (
    "rolls.log.append",
    "rolls.play.services",
    "rolls.contests.services",
    "rolls.campaigns.services",
    "rolls.history.marks",
)
DRAWING = ("rolls.sight", "rolls.live")


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            # Not the templates: test_catalogues' makemessages, on another worker, writes a
            # passing ``*.html.py`` beside each template it reads.
            if "migrations" not in path.parts and "templates" not in path.parts:
                found[module_name(path)] = path
    return found


def imports(name: str, path: Path, known: set[str]) -> set[str]:
    """The project modules ``name`` imports, at any depth of its code (a deferred import
    inside a function is still an edge of the house)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            targets = [f"{base}.{alias.name}" for alias in node.names] + [base]
        for target in targets:
            # The longest known module the name falls in: "rolls.live.feed.sharing" -> rolls.live.feed.
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def graph() -> dict[str, set[str]]:
    found = modules()
    known = set(found)
    return {name: imports(name, path, known) for name, path in found.items()}


def test_no_module_of_rolls_or_tabletop_imports_itself_round_a_circle() -> None:
    edges = graph()
    # Package __init__ modules are folders here: importing rolls.tables.sixes loads rolls.tables,
    # which is a docstring and nothing else, not an arrow back.
    state: dict[str, int] = {}
    path: list[str] = []
    circles: list[list[str]] = []

    def visit(node: str) -> None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                circles.append([*path[path.index(nxt) :], nxt])
            elif nxt not in state:
                visit(nxt)
        path.pop()
        state[node] = 2

    for node in sorted(edges):
        if node not in state:
            visit(node)
    assert not circles, "import circles: " + "; ".join(" -> ".join(circle) for circle in circles)


def test_tabletop_stands_below_rolls() -> None:
    upward = {
        (name, target)
        for name, targets in graph().items()
        if name.startswith("tabletop") and name not in WIRING
        for target in targets
        if target.startswith("rolls")
    }
    assert not upward, f"tabletop modules that import rolls: {sorted(upward)}"


def test_the_rules_engine_imports_nothing_of_the_table() -> None:
    engine = {name: targets for name, targets in graph().items() if name.startswith("rolls.systems")}
    assert engine
    assert all(target.startswith("rolls.systems") for targets in engine.values() for target in targets)


def floor_of(name: str) -> int | None:
    for number, floor in enumerate(FLOORS):
        if any(name == top or name.startswith(top + ".") for top in floor):
            return number
    return None


def test_every_module_of_rolls_stands_on_a_floor() -> None:
    unplaced = sorted(
        name
        for name in graph()
        if name.startswith("rolls.") and ".migrations" not in name and floor_of(name) is None
    )
    assert not unplaced, f"modules on no floor of FLOORS: {unplaced}"


def test_no_package_of_rolls_imports_one_above_it() -> None:
    climbing = sorted(
        f"{name} -> {target}"
        for name, targets in graph().items()
        if (own := floor_of(name)) is not None
        for target in targets
        if (other := floor_of(target)) is not None and other > own
    )
    assert not climbing, "imports that climb the floors: " + "; ".join(climbing)


def test_no_write_reaches_the_drawing_side_through_its_imports() -> None:
    edges = graph()
    for write in WRITES:
        seen: set[str] = set()
        stack = [write]
        while stack:
            for target in edges.get(stack.pop(), ()):
                if target not in seen:
                    seen.add(target)
                    stack.append(target)
        drawn = sorted(name for name in seen if name.startswith(DRAWING))
        assert not drawn, f"{write} loads the drawing side: {drawn}"
