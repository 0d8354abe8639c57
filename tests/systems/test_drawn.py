"""Each system names the faces a step drew (``DiceSystem.drawn``), in the order it drew them:
what ``manage.py verify_dice`` compares with the stream of a revealed seed. Checked against a
source that records every ``randint``, for every request the forms can make and every
follow-up the rules then offer."""

from __future__ import annotations

import random
from typing import Any

import pytest

from rolls.systems import doubles, kinds, sets, sixes, stars
from rolls.systems.base import DiceSystem, FollowUp, RulesError

SYSTEMS = [sixes.system, kinds.system, doubles.system, sets.system, stars.system]
# Enough of everything for any follow-up to be offered.
PLENTY = {"luck": 5, "conditions": ["Upset", "Scared"], "pride": True, "endurance": 99, "latest": True}


class Recording(random.Random):
    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.drawn: list[int] = []

    def randint(self, a: int, b: int) -> int:
        face = super().randint(a, b)
        self.drawn.append(face)
        return face


def params_for(follow_up: FollowUp) -> dict[str, Any]:
    params: dict[str, Any] = {}
    for param in follow_up.params:
        if param.multiple:
            params[param.name] = [param.choices[0]] if param.choices else []
        elif param.choices:
            params[param.name] = (
                param.choices[0][0] if isinstance(param.choices[0], tuple) else param.choices[0]
            )
        elif param.text:
            params[param.name] = "with a shout"
        else:
            params[param.name] = param.minimum
    return params


@pytest.mark.parametrize("system", SYSTEMS, ids=lambda s: s.slug)
def test_a_steps_drawn_faces_are_the_dice_it_drew_in_order(system: DiceSystem) -> None:
    follow_ups = 0
    for n, data in enumerate(system.typical_requests()):
        request = system.parse_request(data)
        source = Recording(n)
        state = system.roll(request, source)
        assert system.drawn(state["steps"][-1]) == source.drawn, data
        for follow_up in system.follow_ups(state, PLENTY):
            source = Recording(1000 + n)
            try:
                applied = system.apply(state, follow_up.action, params_for(follow_up), PLENTY, source)
            except RulesError:
                continue  # a choice this generic filler cannot make; others cover the action
            assert system.drawn(applied.state["steps"][-1]) == source.drawn, (data, follow_up.action)
            follow_ups += source.drawn != []
    if system.slug in ("sixes", "doubles", "stars"):
        assert follow_ups > 0  # their rerolls and extra dice were among those checked
