"""The translations' catalogues are kept complete (issue 45, "Kept complete"): each shipped
language's ``tabletop/locale/<locale>/LC_MESSAGES/django.po`` holds exactly the messages the
source marks (``makemessages`` would change nothing), every one translated and none fuzzy,
each translation keeps its message's placeholders, and the committed ``.mo`` says what its
``.po`` says. README.md, "Translations: adding a language", has the commands.

Marked ``catalogues`` so the lead can run them alone (``pytest -m catalogues``); they run in
the normal suite too. They need gettext's tools (xgettext, msgmerge, msgfmt) and skip
without them; the app itself never does (the ``.mo`` files are committed).
"""

from __future__ import annotations

import ast
import gettext
import re
import shutil
import subprocess
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.test.utils import override_settings
from django.utils.translation import to_locale

pytestmark = pytest.mark.catalogues

ROOT = Path(settings.BASE_DIR)
LOCALE = ROOT / "tabletop" / "locale"
# Every language but the source's own has a catalogue.
SHIPPED = [to_locale(code) for code, _name in settings.LANGUAGES if code != settings.LANGUAGE_CODE]
# What README.md's makemessages command passes, besides the languages (the project's command
# adds the keyword N_ and its ignores itself: tabletop/management/commands/makemessages.py).
MAKEMESSAGES = {"add_location": "file", "no_obsolete": True}


def _needs(*tools: str) -> None:
    missing = [tool for tool in tools if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"gettext's {', '.join(missing)} not installed")


# -- a .po file, read ------------------------------------------------------------------------------


@dataclass
class Message:
    context: str | None = None
    msgid: str = ""
    plural: str | None = None
    msgstr: dict[int, str] = field(default_factory=dict)  # index 0 for a message without plural
    fuzzy: bool = False
    obsolete: bool = False

    @property
    def key(self) -> tuple[str | None, str, str | None]:
        return (self.context, self.msgid, self.plural)

    def __str__(self) -> str:
        context = f"[{self.context}] " if self.context else ""
        return f"{context}{self.msgid!r}"


def _unquote(text: str) -> str:
    # A .po string is a C string; Python's literal syntax reads the escapes .po files use.
    return str(ast.literal_eval(text.strip()))


def read_po(path: Path) -> list[Message]:
    """The messages of a .po file (the header included, as msgid "")."""
    messages: list[Message] = []
    current = Message()
    target: tuple[str, int] | None = None
    started = False

    def finish() -> None:
        nonlocal current, started, target
        if started:
            messages.append(current)
        current, started, target = Message(), False, None

    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        obsolete = line.startswith("#~")
        if obsolete:
            line = line[2:].strip()
        if not line:
            finish()
            continue
        if line.startswith("#,"):
            if started:
                finish()
            current.fuzzy = "fuzzy" in line
            continue
        if line.startswith("#"):
            if started and target is not None and target[0] == "msgstr":
                finish()
            continue
        if line.startswith("msgctxt "):
            if started and target is not None and target[0] == "msgstr":
                finish()
            current.context, target, started = _unquote(line[8:]), ("msgctxt", 0), True
        elif line.startswith("msgid_plural "):
            current.plural, target = _unquote(line[13:]), ("msgid_plural", 0)
        elif line.startswith("msgid "):
            if started and target is not None and target[0] == "msgstr":
                finish()
            current.msgid, target, started = _unquote(line[6:]), ("msgid", 0), True
        elif line.startswith("msgstr["):
            index = int(line[7 : line.index("]")])
            current.msgstr[index] = _unquote(line[line.index("]") + 1 :])
            target = ("msgstr", index)
        elif line.startswith("msgstr "):
            current.msgstr[0], target = _unquote(line[7:]), ("msgstr", 0)
        elif line.startswith('"') and target is not None:
            more = _unquote(line)
            kind, index = target
            if kind == "msgctxt":
                current.context = (current.context or "") + more
            elif kind == "msgid":
                current.msgid += more
            elif kind == "msgid_plural":
                current.plural = (current.plural or "") + more
            else:
                current.msgstr[index] += more
        current.obsolete = current.obsolete or obsolete
    finish()
    return messages


def live(messages: list[Message]) -> list[Message]:
    """The messages a catalogue serves: not its header, not an obsolete one."""
    return [m for m in messages if m.msgid and not m.obsolete]


def catalogue(locale: str, root: Path = LOCALE) -> Path:
    return root / locale / "LC_MESSAGES" / "django.po"


# -- placeholders -------------------------------------------------------------------------------------

NAMED = re.compile(r"%\((\w+)\)[-#0 +]*\d*(?:\.\d+)?[sdifrxXeEgGc]")
POSITIONAL = re.compile(r"%[-#0 +]*\d*(?:\.\d+)?([sdifrxXeEgGc])")
BRACED = re.compile(r"(?<!\{)\{(\w*)(?:![rsa])?(?::[^{}]*)?\}(?!\})")


def placeholders(text: str) -> tuple[Counter[str], tuple[str, ...], Counter[str]]:
    """The named (``%(name)s``), positional (``%s``, in order) and braced (``{name}``)
    placeholders of a message; ``%%`` is a percent sign."""
    text = text.replace("%%", "")
    return (
        Counter(NAMED.findall(text)),
        tuple(POSITIONAL.findall(NAMED.sub("", text))),
        Counter(BRACED.findall(text)),
    )


def placeholder_faults(message: Message) -> list[str]:
    faults = []
    for index, translated in sorted(message.msgstr.items()):
        if not translated:
            continue  # an untranslated message is the other test's
        if message.plural is None:
            allowed = [placeholders(message.msgid)]
        else:
            # A plural form holds the singular's or the plural's: a language whose "one" form
            # serves one alone may write "ein Erfolg" where English writes "a success".
            allowed = [placeholders(message.msgid), placeholders(message.plural)]
        if placeholders(translated) not in allowed:
            faults.append(f"{message} -> msgstr[{index}] {translated!r}")
    return faults


# -- the tests --------------------------------------------------------------------------------------


def test_every_shipped_language_has_a_catalogue_and_its_mo() -> None:
    for locale in SHIPPED:
        assert catalogue(locale).exists(), f"no catalogue for {locale}: README.md, adding a language"
        assert catalogue(locale).with_suffix(".mo").exists(), f"{locale}: django.mo not compiled"


@pytest.mark.parametrize("locale", SHIPPED)
def test_makemessages_changes_no_catalogue(
    locale: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The catalogue holds every message the source marks, and no other: a string wrapped or
    changed without ``makemessages`` fails here (the command is in README.md)."""
    _needs("xgettext", "msgmerge", "msguniq")
    copy = tmp_path / "locale"
    shutil.copytree(LOCALE, copy)
    real = catalogue(locale).read_bytes()
    monkeypatch.chdir(ROOT)  # makemessages reads the tree it is run in
    with override_settings(LOCALE_PATHS=[copy]):
        # The committed folder left out: makemessages writes the messages of the files beside a
        # "locale" folder it walks past into that folder, and this run writes into the copy only.
        call_command(
            "makemessages",
            locale=[locale],
            verbosity=0,
            ignore_patterns=[str(LOCALE.relative_to(ROOT))],
            **MAKEMESSAGES,
        )
    assert catalogue(locale).read_bytes() == real, "the committed catalogue was written to"
    committed = {m.key for m in live(read_po(catalogue(locale)))}
    made = {m.key for m in live(read_po(catalogue(locale, copy)))}
    missing = sorted(str(key) for key in made - committed)
    stale = sorted(str(key) for key in committed - made)
    assert not missing and not stale, (
        f"{locale}: run makemessages (README.md). New in the source: {missing[:20]}; gone from it: {stale[:20]}"
    )


@pytest.mark.parametrize("locale", SHIPPED)
def test_every_message_is_translated(locale: str) -> None:
    messages = live(read_po(catalogue(locale)))
    untranslated = [str(m) for m in messages if not m.msgstr or not all(m.msgstr.values())]
    fuzzy = [str(m) for m in messages if m.fuzzy]
    assert not untranslated, f"{locale}: {len(untranslated)} untranslated, e.g. {untranslated[:10]}"
    assert not fuzzy, f"{locale}: {len(fuzzy)} fuzzy (check, then drop the flag), e.g. {fuzzy[:10]}"


@pytest.mark.parametrize("locale", SHIPPED)
def test_translations_keep_their_placeholders(locale: str) -> None:
    faults = [fault for m in live(read_po(catalogue(locale))) for fault in placeholder_faults(m)]
    assert not faults, f"{locale}: a placeholder dropped or added: {faults[:10]}"


def test_the_placeholder_check_sees_a_dropped_one() -> None:
    """The check itself: a name dropped, a positional added and a plural form that keeps the
    singular's are told apart."""
    dropped = Message(msgid="%(name)s rolled %(n)s dice", msgstr={0: "%(name)s hat gewürfelt"})
    added = Message(msgid="Roll", msgstr={0: "Wurf %s"})
    braced = Message(msgid="In Mystery {n}", msgstr={0: "Im Mysterium {m}"})
    plural = Message(
        msgid="a success", plural="%(count)s successes", msgstr={0: "ein Erfolg", 1: "%(count)s Erfolge"}
    )
    percent = Message(msgid="100%% sure: %(name)s", msgstr={0: "%(name)s, zu 100%% sicher"})
    assert placeholder_faults(dropped) and placeholder_faults(added) and placeholder_faults(braced)
    assert not placeholder_faults(plural) and not placeholder_faults(percent)


@pytest.mark.parametrize("locale", SHIPPED)
def test_the_committed_mo_matches_its_po(locale: str, tmp_path: Path) -> None:
    """The app reads the ``.mo`` (no gettext tools where it runs): compiled again from the
    ``.po``, every message reads back the same from both."""
    _needs("msgfmt")
    po = catalogue(locale)
    fresh = tmp_path / "django.mo"
    subprocess.run(["msgfmt", "--check-format", "-o", str(fresh), str(po)], check=True)
    with po.with_suffix(".mo").open("rb") as handle:
        committed = gettext.GNUTranslations(handle)
    with fresh.open("rb") as handle:
        compiled = gettext.GNUTranslations(handle)
    differ = []
    for message in live(read_po(po)):
        for n in (0, 1, 2, 5, 11, 21, 101) if message.plural else (None,):
            if message.plural is not None:
                assert n is not None
                if message.context is None:
                    ours = committed.ngettext(message.msgid, message.plural, n)
                    theirs = compiled.ngettext(message.msgid, message.plural, n)
                else:
                    ours = committed.npgettext(message.context, message.msgid, message.plural, n)
                    theirs = compiled.npgettext(message.context, message.msgid, message.plural, n)
            elif message.context is None:
                ours, theirs = committed.gettext(message.msgid), compiled.gettext(message.msgid)
            else:
                ours = committed.pgettext(message.context, message.msgid)
                theirs = compiled.pgettext(message.context, message.msgid)
            if ours != theirs:
                differ.append(f"{message} (n={n}): {ours!r} in the .mo, {theirs!r} from the .po")
    assert not differ, f"{locale}: compilemessages (README.md): {differ[:10]}"
