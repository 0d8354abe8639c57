"""Template helpers for drawing dice, chances and a follow-up's choices."""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction
from typing import Any

from django import template
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from rolls.systems.base import Die, Param, percent

register = template.Library()


@register.filter
def pips(face: int) -> range:
    """One pip per point of the face, for the CSS that lays them out."""
    return range(int(face)) if 1 <= int(face) <= 6 else range(0)


@register.filter
def pip_marks(face: int) -> SafeString:
    """The pips of a face as the CSS lays them out: one ``<i>`` each."""
    return mark_safe("<i></i>" * len(pips(face)))  # constant markup, nothing from the user


# What a die that counts is, said in each system's words (a screen reader hears it; the
# colour says it to the eye): a kept die of a failed roll is no "success".
HIT_WORDS = {
    "sixes": gettext_lazy("a success"),
    "kinds": gettext_lazy("part of a set"),
    "sets": gettext_lazy("part of a set"),
    "doubles": gettext_lazy("counts toward the result"),
    # Translators: a die showing a Star (the stars system's symbol).
    "stars": gettext_lazy("a Star"),
}
COUNTS = gettext_lazy("counts")
# How a step's dice are laid out for reading at a glance: a set's dice side by side, apart
# from the loose dice (kinds, sets), the sixes first (sixes); the others as rolled.
SETS_APART = ("kinds", "sets")
SIXES_FIRST = ("sixes",)
# A set of dice as a screen reader hears it: "a pair of 3s".
SET_WORDS = {
    2: gettext_lazy("a pair of %(face)ss"),
    3: gettext_lazy("a three of %(face)ss"),
    4: gettext_lazy("a four of %(face)ss"),
    5: gettext_lazy("a five of %(face)ss"),
    6: gettext_lazy("a six of %(face)ss"),
}


@register.simple_tag
def dice(dice: Iterable[Die], system: str = "", action: str = "roll") -> SafeString:
    """A step's dice, laid out for ``system`` (see ``SETS_APART``, ``SIXES_FIRST``). Drawn
    here rather than by a template included once per die: the include cost more than the
    rest of a card (bench/load.py, profiled)."""
    dice = tuple(dice)
    # The words once per step, not once per die: a card draws many dice (bench/roll_cpu.py).
    hit = escape(HIT_WORDS.get(system, COUNTS))
    if system in SETS_APART and action == "roll":
        return mark_safe(_sets_apart(dice, hit, sizes=system == "sets"))  # each part escaped in _die
    if system in SIXES_FIRST:
        dice = tuple(sorted(dice, key=lambda die: not die.hit))  # stable: sixes first, as rolled
    return mark_safe("".join(_die(die, hit) for die in dice))  # each part escaped in _die


def _sets_apart(dice: tuple[Die, ...], hit: str, *, sizes: bool) -> str:
    """Each set's dice in a group (the biggest, then the highest, first), with its Size x Face
    when ``sizes``; the loose dice in a group after them."""
    by_face: dict[int, list[Die]] = {}
    for die in dice:
        by_face.setdefault(int(die.face), []).append(die)
    sets = sorted(
        ((face, group) for face, group in by_face.items() if len(group) >= 2),
        key=lambda item: (len(item[1]), item[0]),
        reverse=True,
    )
    loose = [die for die in dice if len(by_face[int(die.face)]) < 2]
    parts = []
    for face, group in sets:
        words = {"face": face, "size": len(group)}
        said = (
            SET_WORDS[len(group)] % words
            if len(group) in SET_WORDS
            else _("a set of %(size)s of %(face)ss") % words
        )
        if sizes:
            # Translators: a set's Size and Face (the sets system's words), after "a pair of 3s".
            said += _(" (Size %(size)s, Face %(face)s)") % words
        size = f'<b class="set-size" aria-hidden="true">{len(group)}x{face}</b>' if sizes else ""
        parts.append(
            f'<span class="dice-group set" role="group" aria-label="{escape(said)}">'
            f"{''.join(_die(die, hit) for die in group)}{size}</span>"
        )
    if loose:
        parts.append(
            f'<span class="dice-group loose" role="group" aria-label="{escape(_("loose dice"))}">'
            f"{''.join(_die(die, hit) for die in loose)}</span>"
        )
    return "".join(parts)


def _die(die: Die, hit: str) -> str:
    # Plain formatting, not format_html: that passes every argument through Django's escaping
    # (a third of a card's render, profiled). The face is an int and the classes and label are
    # built from constants; the caption is the one text, and it is escaped.
    face = int(die.face)
    classes = "".join(
        name for name, on in ((" hit", die.hit), (" new", die.new), (" dropped", die.dropped)) if on
    )
    label = f"{face}{f', {hit}' if die.hit else ''}{escape(_(', not kept')) if die.dropped else ''}"
    html = (
        f'<span class="die d{face}{classes}" role="img" aria-label="{label}" data-face="{face}">'
        f"{pip_marks(face)}</span>"
    )
    if die.label:
        html += f'<small class="die-label">{escape(die.label)}</small>'
    return html


@register.filter
def bid_buttons(faces: list[int], follow_up: Any) -> list[tuple[str, list[str]]]:
    """The one-tap bids of a sets "bid" follow-up: the one the rules suggest first
    (``FollowUp.suggested``), then the others (``bids``)."""
    return bids(faces, follow_up.params[0].choices, follow_up.suggested)


def bids(
    faces: list[int], choices: Iterable[str], suggested: Iterable[str] = ()
) -> list[tuple[str, list[str]]]:
    """The bids the unspent dice ``choices`` (indices into ``faces``) allow, for one tap each:
    the ``suggested`` dice first when given, then every set together (the strongest bid),
    then each set alone, strongest first. Each is its label ("3x5") and the dice indices to
    send, each bid once."""
    from rolls.systems.sets import score_bid

    options = _bids(faces, choices)
    first = [str(index) for index in suggested]
    if not first:
        return options
    try:
        label = str(score_bid(int(faces[int(index)]) for index in first))
    except (ValueError, IndexError, TypeError):
        return options
    return [(label, first), *(option for option in options if option[1] != first)]


def _bids(faces: list[int], choices: Iterable[str]) -> list[tuple[str, list[str]]]:
    from rolls.systems.sets import Bid, score_bid

    by_face: dict[int, list[str]] = {}
    for choice in choices:
        try:
            by_face.setdefault(int(faces[int(choice)]), []).append(str(choice))
        except (ValueError, IndexError, TypeError):
            continue
    sets = {face: indices for face, indices in by_face.items() if len(indices) >= 2}
    options: list[tuple[Bid, list[str]]] = [
        (score_bid([face] * len(indices)), indices) for face, indices in sets.items()
    ]
    options.sort(key=lambda option: option[0], reverse=True)
    if len(sets) > 1:
        together = sorted((index for indices in sets.values() for index in indices), key=int)
        faces_of = [face for face, indices in sets.items() for _ in indices]
        options.insert(0, (score_bid(faces_of), together))
    return [(str(bid), indices) for bid, indices in options]


@register.filter
def options(choices: Iterable[str]) -> SafeString:
    """A select's options, each choice its own value and text: one filter instead of a loop
    of two variables per option (a push's five Conditions were a tenth of a result card)."""
    return mark_safe("".join(f'<option value="{escape(c)}">{escape(c)}</option>' for c in choices))


@register.filter
def param_options(param: Param) -> SafeString:
    """A follow-up choice's options: an empty first option when nothing may be chosen for
    the player (``Param.prompt``), and each choice's own text when it says more than its
    value (``Param.labels``: a drama die count with its odds)."""
    html = f'<option value="">{escape(param.prompt)}</option>' if param.prompt else ""
    if not param.labels:
        return mark_safe(html + options(param.choices))
    pairs = zip(param.choices, param.labels, strict=True)
    return mark_safe(html + "".join(f'<option value="{escape(c)}">{escape(t)}</option>' for c, t in pairs))


@register.filter
def pct(chance: Fraction | None) -> str:
    return percent(chance)


@register.filter
def at(items: list[int], index: str | int) -> int | str:
    """``items[index]`` for a die picker: the face of the die a choice names."""
    try:
        return items[int(index)]
    except (ValueError, IndexError, TypeError):
        return ""
