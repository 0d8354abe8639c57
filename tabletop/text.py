"""Text that a person types and everyone at the table sees: names."""

from __future__ import annotations

import unicodedata

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

# Unicode categories of characters a name must not hold: controls (Cc), format characters
# (Cf: the bidirectional overrides and isolates, zero-width spaces and joiners, marks),
# surrogates (Cs), private use (Co), unassigned code points (Cn), and the line and paragraph
# separators (Zl, Zp). "\u202eevil joined the table" draws the line backwards for everyone
# else; a zero-width space makes two names that look the same. A zero-width joiner is a Cf
# too, so a family emoji built with it is refused with the rest: a name is a few words.
INVISIBLE = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})


def visible_name(value: str) -> None:
    """Validator: refuse a name holding a character nobody sees (``INVISIBLE``), naming it."""
    for char in value:
        if unicodedata.category(char) in INVISIBLE:
            raise ValidationError(
                gettext_lazy("A name cannot hold invisible or control characters (this one has U+%(code)s)."),
                code="invisible",
                params={"code": f"{ord(char):04X}"},
            )


def names_and(names: list[str]) -> str:
    """Names listed in a sentence in the active language: "Ana", "Ana and Kim", "Ana, Bo and Kim";
    "" for none."""
    if len(names) < 2:
        return "".join(names)
    # Translators: the names of a list but the last are joined by this ("Ana, Bo and Kim").
    head = _(", ").join(names[:-1])
    # Translators: a list's last name joined to the ones before it ("Ana, Bo and Kim").
    return _("%(names)s and %(last)s") % {"names": head, "last": names[-1]}
