"""Random rule configurations for tests that run over every variant.

The fields and their allowed values come from the one table of rule fields
(``Rules.fields()``), so a new field is drawn here without a change.
"""

from __future__ import annotations

import random

import skitgubbe as sg
from skitgubbe.errors import RulesError

# Caps a random game's length: the table allows any cap up to 2**32 - 1.
MAX_MOVES_CHOICES = (60, 3000, 3000, 3000)


def _draw(field: sg.RuleField, rng: random.Random) -> object:
    if field.name == "max_moves":
        return rng.choice(MAX_MOVES_CHOICES)
    if field.kind == "bool":
        return rng.random() < 0.5
    if field.kind == "enum":
        return rng.choice(field.values)
    numbers = range(field.minimum, field.maximum + 1, field.step)
    if field.kind == "optional_int":
        return rng.choice([None, None, rng.choice(numbers)])
    return rng.choice(numbers)


def random_rules(rng: random.Random) -> sg.Rules:
    """Every rule field drawn at random; a refused combination is drawn again."""
    while True:
        fields = {field.name: _draw(field, rng) for field in sg.Rules.fields()}
        try:
            return sg.Rules(**fields)
        except RulesError:
            continue
