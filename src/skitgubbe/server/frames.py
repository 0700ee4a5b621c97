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
import unicodedata
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Final

from ..engine import protocol
from ..game.observation import Observation

if TYPE_CHECKING:
    from .config import TableConfig

__all__ = [
    "MAX_MARKS",
    "MAX_NAME",
    "PUBLIC_KEYS",
    "distinct_names",
    "is_text",
    "name_problem",
    "public_json",
    "seat_json",
    "summary_json",
]

MAX_NAME: Final = 40
"""The longest name a person may give, in characters."""
MAX_MARKS: Final = 2
"""The most combining marks (accents) a name's letter may carry."""


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


def summary_json(
    table_id: str,
    config: TableConfig,
    status: str,
    seats: list[dict[str, Any]],
    *,
    moves: int,
    result: dict[str, Any] | None,
    created: float,
    names: list[str],
    dealer: int,
    rematch: str | None,
) -> dict[str, Any]:
    """A table's summary as the lobby lists it (a live :class:`Table`'s, or a finished one's
    served from the store): public, with no token and no card.

    >>> from skitgubbe.server.config import TableConfig
    >>> config = TableConfig.from_json({"seats": ["greedy", "greedy"]})
    >>> summary = summary_json("t", config, "over", [], moves=9, result=None, created=0.0,
    ...                        names=["greedy 1", "greedy 2"], dealer=1, rematch=None)
    >>> summary["players"], summary["moves"], summary["after"]
    (2, 9, None)
    """
    return {
        "id": table_id,
        "status": status,
        "players": len(config.seats),
        "seats": seats,
        "rules": config.rules.to_dict(),
        "move_time": config.move_time,
        "spectator_delay": config.spectator_delay,
        # As the spectators see it: spectator_delay seconds late.
        "moves": moves,
        "result": result,
        "created": created,
        "hints": config.hints,
        "names": names,
        "dealer": dealer,
        "after": config.after,
        "rematch": rematch,
    }


def name_problem(name: object) -> str | None:
    """What is wrong with a person's name, or ``None``: 1 … :data:`MAX_NAME` printable
    characters (after NFC), starting with a letter, digit or sign, no letter carrying more
    than :data:`MAX_MARKS` combining marks (a name of stacked accents reads as nothing).

    >>> name_problem("Åsa"), name_problem("Zoë")
    (None, None)
    >>> name_problem("\u0301" * 40)
    'a name starts with a letter, digit or sign, not an accent'
    >>> name_problem("Ann" + "\u0301" * 4)
    'a name carries at most 2 accents on a letter'
    """
    if not isinstance(name, str) or not is_text(name):
        return f"a name is 1 … {MAX_NAME} printable characters"
    name = unicodedata.normalize("NFC", name.strip())
    if not 1 <= len(name) <= MAX_NAME or not name.isprintable():
        return f"a name is 1 … {MAX_NAME} printable characters"
    if unicodedata.combining(name[0]) or unicodedata.category(name[0]).startswith("M"):
        return "a name starts with a letter, digit or sign, not an accent"
    run = 0
    for char in name:
        run = run + 1 if unicodedata.category(char).startswith("M") else 0
        if run > MAX_MARKS:
            return f"a name carries at most {MAX_MARKS} accents on a letter"
    return None


def is_text(text: str) -> bool:
    """Whether ``text`` can be written as UTF-8 (JSON lets a lone surrogate through).

    >>> is_text("Åsa"), is_text("x\\ud800")
    (True, False)
    """
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


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
