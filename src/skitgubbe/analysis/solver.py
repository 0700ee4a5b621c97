"""With every card open, who loses and how: the exact endgame solver.

Once only two players hold cards in phase 2, and every card is known, the
rest of the game is a two-player game of complete information (with two
players it always is: docs/rules.md §8). :func:`solve` plays it out exactly
in C (``src/_core/solve.c``): who ends as the skitgubbe when both play their
best, a best move, and each legal move's outcome, like bridge's double-dummy
solver. It looks at every card, so it is a tool for analysing a finished game
or an open-hands position, not a player: give it a :class:`~skitgubbe.Game`
(the referee's view) or a game record, or an :class:`~skitgubbe.Observation`
whose seat can place every card (in phase 2 with two players holding cards,
the holders' own views can).

>>> import skitgubbe as sg
>>> from skitgubbe.analysis import solve
>>> game = sg.Game.from_shedding(None, ["9D QD", "JD AD"], trump="S", leader=0)
>>> solution = solve(game)
>>> solution.outcome, solution.loser, solution.length
(<Outcome.LOSS: 'loss'>, 0, 3)
>>> print(solution)
seat 0 to move loses: seat 0 ends as the skitgubbe within 3 moves (best 9♦, 4 positions searched)
"""

from __future__ import annotations

import enum
import time
from collections.abc import Mapping
from typing import Any, Final

import attrs

from .. import _core
from ..errors import ArgumentError, ArgumentTypeError
from ..game.moves import Move
from ..game.observation import Observation, Phase
from ..game.state import Game

__all__ = ["DEFAULT_SOLVE_BUDGET", "Outcome", "Solution", "SolvedMove", "solve"]

DEFAULT_SOLVE_BUDGET: Final = 5_000_000
"""The positions :func:`solve` searches unless told otherwise: a second or two
at most (the solver searches about four million a second, docs/performance.md)."""

DEFAULT_TABLE_ENTRIES: Final = 2**18
"""The solver's transposition table unless told otherwise: 2**18 entries of 64
bytes, 16 MiB."""

_MAX_TABLE_ENTRIES: Final = 2**24
_MAX_BUDGET: Final = 2**64 - 1


class Outcome(enum.Enum):
    """What best play by both players gives the player to move.

    >>> Outcome("win"), Outcome.DRAW.value
    (<Outcome.WIN: 'win'>, 'draw')
    """

    WIN = "win"
    """The other player ends as the skitgubbe."""
    DRAW = "draw"
    """Neither can make the other lose: play goes on until the move cap ends the game
    with no loser (docs/rules.md §6.8)."""
    LOSS = "loss"
    """The player to move ends as the skitgubbe."""
    UNKNOWN = "unknown"
    """The search stopped (its budget ran out) before it knew."""

    def __neg__(self) -> Outcome:
        """The same result from the other player's side.

        >>> -Outcome.WIN, -Outcome.DRAW
        (<Outcome.LOSS: 'loss'>, <Outcome.DRAW: 'draw'>)
        """
        return _OPPOSITE[self]


_OPPOSITE: Final = {
    Outcome.WIN: Outcome.LOSS,
    Outcome.LOSS: Outcome.WIN,
    Outcome.DRAW: Outcome.DRAW,
    Outcome.UNKNOWN: Outcome.UNKNOWN,
}
_OUTCOMES: Final = {number: Outcome(name) for number, name in _core.SOLVE_VALUES.items()}
_VERBS: Final = {
    Outcome.WIN: "wins",
    Outcome.LOSS: "loses",
    Outcome.DRAW: "draws",
    Outcome.UNKNOWN: "is not solved",
}


@attrs.frozen
class SolvedMove:
    """One legal move and what it leads to with best play by both.

    ``outcome`` is the mover's (the player to move before ``move``); ``length``,
    for a win or a loss, is the number of moves (this one included) within
    which the game ends when the winner plays the solver's line: an upper
    bound, not always the fastest; ``None`` for a draw or an unknown outcome.

    >>> import skitgubbe as sg
    >>> str(SolvedMove(sg.Move.parse("9D"), Outcome.LOSS, 3))
    '9♦: loses within 3 moves'
    """

    move: Move
    outcome: Outcome
    length: int | None

    def to_dict(self) -> dict[str, Any]:
        """The move as JSON-able data.

        >>> import skitgubbe as sg
        >>> SolvedMove(sg.Move.parse("9D"), Outcome.LOSS, 3).to_dict()
        {'move': '9♦', 'outcome': 'loss', 'length': 3}
        """
        return {"move": str(self.move), "outcome": self.outcome.value, "length": self.length}

    def __str__(self) -> str:
        within = "" if self.length is None else f" within {self.length} moves"
        return f"{self.move}: {_VERBS[self.outcome]}{within}"


@attrs.frozen
class Solution:
    """The solver's answer for one position: the outcome for the seat to move.

    ``loser`` is the seat that ends as the skitgubbe with best play (``None``
    for a draw, or when the outcome is unknown); ``best`` a move that achieves
    the outcome (for a loss, the one that loses last the solver found);
    ``length`` as :class:`SolvedMove` says; ``moves`` every legal move's
    outcome in the order of ``legal_moves`` (empty when not asked for);
    ``nodes`` the positions searched; ``stopped`` why the outcome is unknown
    (``"budget"``; ``"depth"``, a line longer than the solver's path;
    ``"memory"``), else ``None``.

    >>> import skitgubbe as sg
    >>> game = sg.Game.from_shedding(None, ["9D QD", "JD AD"], trump="S", leader=0)
    >>> solution = solve(game)
    >>> solution.exact, solution.seat, [str(m) for m in solution.moves]
    (True, 0, ['9♦: loses within 3 moves', 'Q♦: loses within 3 moves'])
    >>> solution.move(sg.Move.parse("QD")).outcome
    <Outcome.LOSS: 'loss'>
    """

    seat: int
    outcome: Outcome
    loser: int | None
    best: Move | None
    length: int | None
    moves: tuple[SolvedMove, ...]
    nodes: int
    stopped: str | None
    seconds: float = attrs.field(eq=False)

    @property
    def exact(self) -> bool:
        """Whether the outcome is known (the search finished within its budget).

        >>> import skitgubbe as sg
        >>> game = sg.Game.from_shedding(None, ["9D QD", "JD AD"], trump="S", leader=0)
        >>> solve(game, budget=1).exact
        False
        """
        return self.outcome is not Outcome.UNKNOWN

    def move(self, move: Move) -> SolvedMove:
        """The outcome of ``move``; a move that is not legal here (or moves not
        asked for) raises :class:`~skitgubbe.errors.ArgumentError`.

        >>> import skitgubbe as sg
        >>> game = sg.Game.from_shedding(None, ["9D QD", "JD AD"], trump="S", leader=0)
        >>> solve(game).move(sg.Move.parse("AD"))
        Traceback (most recent call last):
            ...
        skitgubbe.errors.ArgumentError: A♦ is not a legal move here; legal: 9♦, Q♦
        """
        for solved in self.moves:
            if solved.move == move:
                return solved
        legal = ", ".join(str(m.move) for m in self.moves) or "none solved (moves=False)"
        raise ArgumentError(f"{move} is not a legal move here; legal: {legal}")

    def to_dict(self) -> dict[str, Any]:
        """The solution as JSON-able data.

        >>> import skitgubbe as sg
        >>> game = sg.Game.from_shedding(None, ["9D QD", "JD AD"], trump="S", leader=0)
        >>> data = solve(game).to_dict()
        >>> data["outcome"], data["loser"], data["best"], sorted(data)
        ('loss', 0, '9♦', ['best', 'length', 'loser', 'moves', 'nodes', 'outcome', 'seat', \
'seconds', 'stopped'])
        """
        return {
            "seat": self.seat,
            "outcome": self.outcome.value,
            "loser": self.loser,
            "best": None if self.best is None else str(self.best),
            "length": self.length,
            "moves": [m.to_dict() for m in self.moves],
            "nodes": self.nodes,
            "stopped": self.stopped,
            "seconds": self.seconds,
        }

    def __str__(self) -> str:
        head = f"seat {self.seat} to move {_VERBS[self.outcome]}"
        if self.outcome is Outcome.UNKNOWN:
            return f"{head}: the search stopped ({self.stopped}) after {self.nodes} positions"
        if self.loser is None:
            what = "nobody can be made the skitgubbe; the move cap ends the game"
        else:
            what = f"seat {self.loser} ends as the skitgubbe within {self.length} moves"
        return f"{head}: {what} (best {self.best}, {self.nodes} positions searched)"


def _count(name: str, value: object, low: int, high: int) -> int:
    if type(value) is not int:
        raise ArgumentTypeError(f"{name} must be an int from {low} to {high}, not {value!r}")
    if not low <= value <= high:
        raise ArgumentError(f"{name} must be an int from {low} to {high}, not {value!r}")
    return value


def _holders(hand_sizes: tuple[int, ...]) -> list[int]:
    return [seat for seat, size in enumerate(hand_sizes) if size]


def _view(position: object) -> bytes:
    """The core view the solver reads: one in which every card is placed (or only
    one seat's cards are unplaced, so that they are the rest)."""
    if isinstance(position, Mapping):
        position = Game.from_record(position)
    if isinstance(position, Game):
        if position.phase is not Phase.SHEDDING:
            raise ArgumentError(
                "the solver takes phase 2 only, "
                + ("and the game is over" if position.phase is Phase.OVER else "not phase 1")
            )
        holders = _holders(tuple(len(hand) for hand in position.hands))
        if len(holders) != 2:
            raise ArgumentError(
                f"the solver takes two players holding cards, not {len(holders)} "
                f"(seats {', '.join(map(str, holders))})"
            )
        # A holder's view leaves only the other holder's cards unplaced: they are the rest.
        seat = position.to_move
        assert seat is not None  # phase 2: somebody is to move
        return position.observation(seat).core_view
    if isinstance(position, Observation):
        if position.phase is not Phase.SHEDDING:
            raise ArgumentError(
                "the solver takes phase 2 only, "
                + ("and the game is over" if position.phase is Phase.OVER else "not phase 1")
            )
        holders = _holders(position.hand_sizes)
        if len(holders) != 2:
            raise ArgumentError(
                f"the solver takes two players holding cards, not {len(holders)} "
                f"(seats {', '.join(map(str, holders))})"
            )
        hiding = [seat for seat, slots in enumerate(position.unknown_slots) if slots]
        if len(hiding) > 1:
            raise ArgumentError(
                f"seat {position.seat} cannot place every card: its unknown cards may lie "
                f"with seats {' or '.join(map(str, hiding))} (solve the Game instead)"
            )
        return position.core_view
    raise ArgumentTypeError(
        f"solve takes a Game, an Observation or a game record, not {type(position).__name__}"
    )


def solve(
    position: Game | Observation | Mapping[str, Any],
    *,
    budget: int = DEFAULT_SOLVE_BUDGET,
    moves: bool = True,
    table_entries: int = DEFAULT_TABLE_ENTRIES,
) -> Solution:
    """Solve a phase-2 position with two players holding cards, every card open.

    ``position`` is a :class:`~skitgubbe.Game` (the solver sees every card, as the
    referee does), a game record (:meth:`~skitgubbe.Game.record`), or an
    :class:`~skitgubbe.Observation` whose seat can place every card. The search
    stops after ``budget`` positions (the outcome is then
    :attr:`Outcome.UNKNOWN`); with ``moves=True`` it also solves every legal move
    (each as a position of its own, sharing the budget: once it runs out, the
    remaining moves are unknown). ``table_entries`` (2 to 2**24) sizes its
    transposition table, 64 bytes an entry. The search runs in C without the GIL.

    Anything but phase 2 with exactly two players holding cards raises
    :class:`~skitgubbe.errors.ArgumentError`:

    >>> import skitgubbe as sg
    >>> solve(sg.Game.new(seed=1))
    Traceback (most recent call last):
        ...
    skitgubbe.errors.ArgumentError: the solver takes phase 2 only, not phase 1
    >>> three = sg.Game.from_shedding(None, ["9D", "JD", "AD"], trump="S", leader=0)
    >>> solve(three)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    skitgubbe.errors.ArgumentError: the solver takes two players holding cards, not 3 (seats ...)

    A holder's own observation is enough in phase 2 (the other holder has every
    card it cannot place), and gives the same answer:

    >>> game = sg.Game.from_shedding(None, ["9D QD 5C", "JD AD 4C"], trump="S", leader=0)
    >>> solve(game.observation(0)) == solve(game)
    True
    >>> print(solve(game).best)
    5♣
    """
    budget = _count("budget", budget, 0, _MAX_BUDGET)
    entries = _count("table_entries", table_entries, 2, _MAX_TABLE_ENTRIES)
    if not isinstance(moves, bool):
        raise ArgumentTypeError(f"moves must be true or false, not {moves!r}")
    view = _view(position)
    start = time.perf_counter()
    try:
        value, loser, best, length, nodes, stop, to_move, per_move = _core.solve(
            view, budget, entries, moves
        )
    except _core.CoreError as refused:  # the checks above let through nothing the core refuses
        raise ArgumentError(f"the solver cannot take this position: {refused.args[1]}") from None
    seconds = time.perf_counter() - start
    outcome = _OUTCOMES[value]
    decisive = outcome in (Outcome.WIN, Outcome.LOSS)
    solved = tuple(
        SolvedMove(
            Move.from_code(code),
            _OUTCOMES[v],
            n if _OUTCOMES[v] in (Outcome.WIN, Outcome.LOSS) else None,
        )
        for code, v, n in per_move
    )
    return Solution(
        seat=to_move,
        outcome=outcome,
        loser=loser if decisive else None,
        best=Move.from_code(best) if best else None,
        length=length if decisive else None,
        moves=solved,
        nodes=nodes,
        stopped=_core.SOLVE_STOPS[stop],
        seconds=seconds,
    )
