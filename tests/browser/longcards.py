"""The longest cards each dice system draws, built through the services: the biggest pool the
roll form allows, the longest name and intent (with a word of 60 letters), and every follow-up
the rules still offer, taken one after another. For the TV's layout tests."""

from __future__ import annotations

import random
from typing import Any

from rolls import registry
from rolls.models import Roll
from rolls.play import services as roll_services
from rolls.systems import RulesError
from rolls.systems.base import FollowUp
from tabletop.models import Character
from tests import factories

LONG_WORD = "Unbreakable" + "x" * 49  # 60 characters, no space to wrap at
LONG_NAME = "Bartholomew Featherstonehaugh-Ravensworth of the Seven Hills"[:60]
LONG_INTENT = (
    f"climbs the {LONG_WORD} tower while the guards argue about the weather and the bells ring " * 3
)[:200]

# The roll form's values that make each system's longest card: the most dice and every option.
LONGEST: dict[str, dict[str, Any]] = {
    "sixes": {"trait": "skill-0", "need": "3", "item": "on"},
    "kinds": {"level": "impossible", "net": "3", "danger": "on"},
    "doubles": {
        "abilities": ["Athletics", "Fighting", "Notice"],
        "weaknesses": ["Reckless"],
        "bonus": "4",
        "penalty": "2",
        "dn": "12",
        "degree_matters": "on",
    },
    "sets": {"bonus": "6", "penalty": "3", "assists": "3", "lesser_assists": "3", "bar": "4"},
    "stars": {"advantage": "disadvantage"},
}


def _params(follow_up: FollowUp) -> dict[str, Any]:
    params: dict[str, Any] = {}
    for param in follow_up.params:
        if param.multiple:
            params[param.name] = list(param.choices)
        elif param.text:
            params[param.name] = "pushes on with everything the kid has"
        elif param.choices:
            params[param.name] = param.choices[0]
        else:
            params[param.name] = param.maximum or param.minimum
    return params


def follow_everything(roll: Roll, actor: Any, gm: Any, seed: int) -> int:
    """Apply offered follow-ups until none is left (or eight): how many were applied."""
    applied = 0
    for step in range(8):
        for follow_up in factories.offered(roll):
            try:
                roll_services.follow_up_apply(
                    roll=roll,
                    actor=gm if follow_up.gm_only else actor,
                    action=follow_up.action,
                    params=_params(follow_up),
                    rng=random.Random(seed * 100 + step),
                    by_gm=follow_up.gm_only,
                )
            except RulesError:
                continue
            applied += 1
            break
        else:
            return applied
    return applied


def longest_roll(system: str, table: factories.Table, seeds: range = range(6)) -> Roll:
    """The roll with the most follow-ups among ``seeds``, each fully followed up, made once
    more as the table's latest roll (the same seed draws the same dice)."""
    data = {**factories.roll_data(system, table.character), **LONGEST[system]}
    form = registry.table(system).roll_form(factories.posted(data), character=table.character)
    assert form.is_valid(), (system, form.errors)
    best: tuple[int, int] | None = None
    # Each try starts from the same sheet: a push may break a kid, a bid spend every point.
    sheet = Character.objects.filter(pk=table.character.pk).values().get()
    del sheet["id"]

    def played(seed: int) -> tuple[int, Roll]:
        Character.objects.filter(pk=table.character.pk).update(**sheet)
        table.character.refresh_from_db()
        roll = roll_services.roll_create(
            character=table.character,
            roller=table.player,
            data=form.engine_data(),
            helper=None,
            intent=LONG_INTENT,
            rng=random.Random(seed),
        )
        return follow_everything(roll, table.player, table.gm, seed), roll

    for seed in seeds:
        applied, _ = played(seed)
        if best is None or applied > best[0]:
            best = (applied, seed)
    assert best is not None
    return played(best[1])[1]
