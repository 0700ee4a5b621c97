"""What each viewer's frames show: a seat's view, the public part of the table, and the
seats' names, told apart.

>>> import skitgubbe as sg
>>> from skitgubbe.server.frames import distinct_names, public_json
>>> distinct_names(["Ann", "easy", "easy"])
['Ann', 'easy 1', 'easy 2']
>>> public_json(sg.Game.new(seed=7).observation(0))["stock_size"]
43
"""

from __future__ import annotations

import collections
from collections.abc import Sequence
from typing import Any, Final

from ..engine import protocol
from ..game.observation import Observation

__all__ = ["PUBLIC_KEYS", "distinct_names", "public_json", "seat_json"]


def distinct_names(names: Sequence[str]) -> list[str]:
    """The seats' ``names``, each told apart from the others: a name that two or more seats
    share is numbered, in seat order (``easy 1``, ``easy 2``); a number that would make it
    another seat's name gives way to the seat's own number (``easy (seat 2)``).

    >>> distinct_names(["Ann", "easy", "easy"])
    ['Ann', 'easy 1', 'easy 2']
    >>> distinct_names(["easy 1", "easy", "easy"])
    ['easy 1', 'easy (seat 1)', 'easy 2']
    >>> distinct_names(["x (seat 1)", "x", "x 1", "x"])  # chosen to collide
    ['seat 0: x (seat 1)', 'seat 1: x', 'seat 2: x 1', 'seat 3: x']
    """
    counts = collections.Counter(names)
    numbered: list[str] = []
    seen: collections.Counter[str] = collections.Counter()
    for name in names:
        if counts[name] > 1:
            seen[name] += 1
            name = f"{name} {seen[name]}"
        numbered.append(name)
    result: list[str] = []
    taken = collections.Counter(numbered)
    for seat, (name, given) in enumerate(zip(numbered, names, strict=True)):
        if taken[name] > 1 and name != given:  # "easy 1" is someone's own name already
            taken[name] -= 1
            name = f"{given} (seat {seat})"
        result.append(name)
    if len(set(result)) < len(result):  # names chosen to collide: every seat says its number
        result = [f"seat {seat}: {given}" for seat, given in enumerate(names)]
    return result


def seat_json(view: Observation) -> dict[str, Any]:
    """A seat's view as its frames carry it: the engine protocol's observation without the
    raw ``core_view`` and the ``unknown`` cards (which follow from the rest), so that a frame
    names no card the seat may not see.

    >>> import skitgubbe as sg
    >>> data = seat_json(sg.Game.new(seed=7).observation(0))
    >>> len(data["hand"]), "core_view" in data, "unknown" in data
    (3, False, False)
    """
    data = protocol.observation_json(view)
    # The engine's raw view is of no use to a browser; the cards the seat cannot place
    # follow from the rest, and a frame then names no card the seat may not see.
    del data["core_view"], data["unknown"]
    return data


PUBLIC_KEYS: Final = (
    "phase",
    "to_move",
    "dealer",
    "trump",
    "table",
    "hand_sizes",
    "collection_sizes",
    "stock_size",
    "out_of_play",
    "hidden_holder",
    "finished",
    "moves_played",
    "upcard",
    "slough_winner",
)
"""The keys of an observation's JSON that every seat sees alike (the spectators' ``public``)."""


def public_json(view: Observation) -> dict[str, Any]:
    """What anyone at the rail sees: a seat's view without anything only that seat knows
    (:data:`PUBLIC_KEYS`).

    >>> import skitgubbe as sg
    >>> data = public_json(sg.Game.new(seed=7).observation(0))
    >>> data["hand_sizes"], "hand" in data
    ([3, 3, 3], False)
    """
    data = protocol.observation_json(view)
    return {key: data[key] for key in PUBLIC_KEYS}
