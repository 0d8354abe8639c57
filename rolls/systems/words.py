"""The engine's words: how the rules engine marks the texts a person reads.

The engine imports nothing of Django, yet its texts (outcomes, follow-ups, odds, refusals)
are drawn in the table's language. It marks them with ``_``, ``ngettext`` and ``N_`` from
here; ``rolls.apps`` installs Django's ``gettext``/``ngettext`` at start-up, and without a
translator installed (a script, a test of the engine alone) the texts stay English.
``makemessages`` finds the marks by these keywords (``--keyword=N_``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import lru_cache


def _english(message: str) -> str:
    return message


def _no_language() -> str | None:
    return None


def _english_plural(singular: str, plural: str, number: int) -> str:
    return singular if number == 1 else plural


# Rebound by ``install``: ``_`` and ``ngettext`` read them at each call, so a module that
# imported ``_`` before the translator was installed still speaks the table's language.
_gettext: Callable[[str], str] = _english
_ngettext: Callable[[str, str, int], str] = _english_plural
_language: Callable[[], str | None] = _no_language


def _(message: str) -> str:
    """``message`` in the active language (English without a translator). The empty text
    stays empty (gettext would answer a catalogue's header)."""
    return _translated(_language(), message) if message else message


# A roll asks for some thirty of the engine's texts, and Django's ``gettext`` walks the active
# language's chain of catalogues for each (a miss in every one for English): kept here per
# language, the answer costs one read of the active language. Room for the engine's some 700
# texts in each of the six languages, bounded because a caller may pass a text built at run
# time; emptied by ``install`` and ``forget``.
@lru_cache(maxsize=16384)
def _translated(language: str | None, message: str) -> str:
    return _gettext(message)


def forget() -> None:
    """Drop the texts kept per language: the catalogues changed (a test's settings)."""
    _translated.cache_clear()


def ngettext(singular: str, plural: str, number: int) -> str:
    """The form of a sentence ``number`` asks for, in the active language."""
    return _ngettext(singular, plural, number)


def N_(message: str) -> str:
    """A mark only: ``message`` is a text to translate, but not yet (a module-level constant,
    read before any language is active). It is translated where it is used: ``_(CONSTANT)``."""
    return message


def language() -> str | None:
    """The active language's code (None without a translator): what keeps texts computed
    once per process (the rules page's tables) apart by language."""
    return _language()


Translator = tuple[Callable[[str], str], Callable[[str, str, int], str], Callable[[], str | None]]


def install(
    gettext: Callable[[str], str] | None,
    plural: Callable[[str, str, int], str] | None,
    active: Callable[[], str | None] | None = None,
) -> Translator:
    """Have the engine speak through ``gettext`` and ``plural``, in the language ``active``
    names (None: back to English). Returns the translator it replaces, so a test can put it
    back: ``install(*previous)``."""
    global _gettext, _ngettext, _language
    previous = (_gettext, _ngettext, _language)
    _gettext = gettext or _english
    _ngettext = plural or _english_plural
    _language = active or _no_language
    forget()
    return previous


class Text:
    """A class attribute that is a text to translate (a system's name, its summary): read,
    it is in the language active at that moment, never frozen at import."""

    __slots__ = ("message",)

    def __init__(self, message: str) -> None:
        self.message = message

    def __get__(self, instance: object, owner: type | None = None) -> str:
        return _(self.message)


class Texts:
    """A class attribute that maps keys to texts to translate (the names of a system's
    outcomes for the history's filter): read, a new mapping in the active language."""

    __slots__ = ("messages",)

    def __init__(self, messages: Mapping[str, str]) -> None:
        self.messages = dict(messages)

    def __get__(self, instance: object, owner: type | None = None) -> dict[str, str]:
        return {key: _(message) for key, message in self.messages.items()}
