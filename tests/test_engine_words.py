"""The rules engine's words (``rolls/systems/words.py``): the hook a translator is installed in.

A small dictionary translator stands in for Django's here: what is tested is that the engine
speaks through whatever is installed, picks a plural by its count, is back to English without
one, and still imports nothing of Django. The catalogues themselves are tested elsewhere.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from rolls.systems import RulesError, words
from rolls.systems.base import dice_count
from rolls.systems.hand import EnteredDice
from rolls.systems.sixes import system as sixes

ROOT = Path(__file__).resolve().parents[1]

# A few of the engine's messages in a made-up language, marked so a test can tell them apart.
SINGULAR = {
    "Success: %(total)d of %(need)d needed": "[ok] %(total)d/%(need)d",
    "Rolled %(dice)s": "[rolled] %(dice)s",
    "Sixes": "[Sechser]",
    "The number of dice": "[Anzahl]",
    "%(label)s must be between %(minimum)d and %(maximum)d (got %(value)d).": (
        "[range] %(label)s %(minimum)d..%(maximum)d (%(value)d)"
    ),
}
PLURAL = {
    ("%(count)d die", "%(count)d dice"): ("%(count)d [one die]", "%(count)d [many dice]"),
    ("%(count)d extra success to buy effects.", "%(count)d extra successes to buy effects."): (
        "[one extra] %(count)d",
        "[many extra] %(count)d",
    ),
}


def fake_gettext(message: str) -> str:
    return SINGULAR.get(message, message)


def fake_ngettext(singular: str, plural: str, number: int) -> str:
    one, many = PLURAL.get((singular, plural), (singular, plural))
    return one if number == 1 else many


@pytest.fixture
def translated() -> Iterator[None]:
    """The fake translator installed for one test, then whatever was there before (Django's,
    installed by ``rolls.apps`` when the test run set Django up)."""
    previous = words.install(fake_gettext, fake_ngettext, lambda: "xx")
    try:
        yield
    finally:
        words.install(*previous)


@pytest.fixture
def english() -> Iterator[None]:
    """No translator at all: the engine on its own, as a script uses it."""
    previous = words.install(None, None)
    try:
        yield
    finally:
        words.install(*previous)


def roll(faces: list[int], **request: object) -> dict[str, object]:
    return sixes.roll(sixes.parse_request({"dice": len(faces), **request}), EnteredDice(faces))


def test_an_outcome_text_comes_out_translated(translated: None) -> None:
    state = roll([6, 2, 3])
    assert sixes.evaluate(state).headline == "[ok] 1/1"
    assert sixes.view(state)[0].title == "[rolled] 3 [many dice]"


def test_a_refusal_comes_out_translated(translated: None) -> None:
    with pytest.raises(RulesError) as refused:
        sixes.parse_request({"dice": 99})
    assert str(refused.value) == "[range] [Anzahl] 1..13 (99)"


def test_plurals_pick_the_form_by_count(translated: None) -> None:
    assert dice_count(1) == "1 [one die]"
    assert dice_count(2) == "2 [many dice]"
    assert dice_count(0) == "0 [many dice]"
    # Two sixes against a need of one: one extra success; three sixes: two.
    assert "[one extra] 1" in sixes.evaluate(roll([6, 6, 1])).details
    assert "[many extra] 2" in sixes.evaluate(roll([6, 6, 6])).details


def test_class_texts_are_read_in_the_language_active_then(translated: None) -> None:
    # A system's name is a ``words.Text``: translated when read, not frozen at import.
    assert sixes.name == "[Sechser]"
    words.install(None, None)
    assert sixes.name == "Sixes"


def test_without_a_translator_the_engine_speaks_english(english: None) -> None:
    state = roll([6, 2, 3])
    assert sixes.evaluate(state).headline == "Success: 1 of 1 needed"
    assert sixes.view(state)[0].title == "Rolled 3 dice"
    assert dice_count(1) == "1 die"
    assert sixes.evaluate(roll([6, 6, 6])).details[-1] == "2 extra successes to buy effects."
    assert sixes.name == "Sixes"
    assert words.language() is None


def test_the_empty_text_stays_empty(translated: None) -> None:
    # gettext("") answers a catalogue's header; the engine never asks for it.
    assert words._("") == ""


def test_rules_tables_are_kept_per_language(translated: None) -> None:
    """The rules page's tables are computed once per process and language: a table drawn in
    one language is not served in another."""
    foreign = sixes.rules_tables()
    assert sixes.rules_tables() is foreign
    words.install(None, None)
    english = sixes.rules_tables()
    assert english is not foreign
    assert english[0].columns == ("1 six", "2 sixes", "3 sixes")
    words.install(fake_gettext, fake_ngettext, lambda: "xx")
    assert sixes.rules_tables() is foreign


def test_the_engine_imports_no_django() -> None:
    """Every engine module, its words included, loads without Django in the process."""
    engine = sorted(
        f"rolls.systems.{path.stem}"
        for path in (ROOT / "rolls" / "systems").glob("*.py")
        if path.stem != "__init__"
    )
    script = (
        "import importlib, sys\n"
        f"for name in {engine!r}:\n"
        "    importlib.import_module(name)\n"
        "loaded = sorted(m for m in sys.modules if m == 'django' or m.startswith('django.'))\n"
        "assert not loaded, loaded\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr


def test_each_text_is_asked_of_the_translator_once_per_language() -> None:
    """A card's texts are kept per language (a roll asks for some thirty): the translator is
    asked once for a text in each language, and again after a new one is installed."""
    asked: list[tuple[str, str]] = []
    active = ["xx"]

    def counting(message: str) -> str:
        asked.append((active[0], message))
        return fake_gettext(message)

    previous = words.install(counting, fake_ngettext, lambda: active[0])
    try:
        assert [words._("Sixes"), words._("Sixes")] == ["[Sechser]", "[Sechser]"]
        active[0] = "yy"
        words._("Sixes")
        assert asked == [("xx", "Sixes"), ("yy", "Sixes")]
        words.install(counting, fake_ngettext, lambda: active[0])
        words._("Sixes")
        assert len(asked) == 3
    finally:
        words.install(*previous)


def test_changed_catalogue_settings_have_the_texts_read_again() -> None:
    """A test that points Django at other catalogues (``override_settings``) gets texts read
    from them, not the ones kept before (``rolls.apps``)."""
    from django.conf import settings
    from django.test import override_settings

    asked: list[str] = []

    def counting(message: str) -> str:
        asked.append(message)
        return message

    previous = words.install(counting, fake_ngettext, lambda: "xx")
    try:
        words._("Sixes")
        with override_settings(LOCALE_PATHS=list(settings.LOCALE_PATHS)):
            words._("Sixes")
        assert asked == ["Sixes", "Sixes"]
    finally:
        words.install(*previous)
