"""Whole random games played inside the C core: :func:`simulate`."""

from __future__ import annotations

import attrs

from . import _engine
from .errors import SkitgubbeError
from .game import _check_supported
from .rules import Rules

__all__ = ["SimulationResult", "simulate"]


@attrs.frozen
class SimulationResult:
    """Totals over a batch of random games.

    ``losses[seat]`` counts the games seat lost; ``no_loser`` the games that
    ended with nobody holding cards; ``truncated`` the games the move cap ended.

    >>> import skitgubbe as sg
    >>> result = sg.simulate(sg.Rules.classic(), 100, seed=1)
    >>> result.games, sum(result.losses) + result.no_loser + result.truncated
    (100, 100)
    """

    games: int
    moves: int
    losses: tuple[int, ...]
    no_loser: int
    truncated: int

    @property
    def loss_rates(self) -> tuple[float, ...]:
        """Each seat's share of the games lost."""
        return tuple(n / self.games if self.games else 0.0 for n in self.losses)

    @property
    def moves_per_game(self) -> float:
        """Mean moves per game."""
        return self.moves / self.games if self.games else 0.0


def simulate(rules: Rules | None = None, games: int = 1000, *, seed: int = 0) -> SimulationResult:
    """Play ``games`` games with uniformly random legal moves, entirely in C.

    Game ``i`` is dealt and played from its own seed derived from ``seed`` and
    ``i``, so totals do not depend on how the work is split. The GIL is
    released while the games run.

    >>> import skitgubbe as sg
    >>> a = sg.simulate(sg.Rules.classic(players=4), 50, seed=9)
    >>> a == sg.simulate(sg.Rules.classic(players=4), 50, seed=9)
    True
    """
    rules = Rules.classic() if rules is None else rules
    _check_supported(rules)
    if type(games) is not int or games < 0:
        raise SkitgubbeError(f"games must be a non-negative int, not {games!r}")
    if type(seed) is not int or not 0 <= seed < 2**64:
        raise SkitgubbeError(f"seed must be an int 0 <= seed < 2**64, not {seed!r}")
    played, moves, losses, no_loser, truncated = _engine.simulate(
        rules.core_tuple(), seed, 0, games
    )
    return SimulationResult(played, moves, losses[: rules.players], no_loser, truncated)
