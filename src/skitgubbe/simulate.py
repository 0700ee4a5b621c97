"""Whole random games played inside the C core: :func:`simulate`."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import attrs

from . import _engine
from .errors import ArgumentTypeError, SkitgubbeError
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


def simulate(
    rules: Rules | None = None, games: int = 1000, *, seed: int = 0, threads: int = 1
) -> SimulationResult:
    """Play ``games`` games with uniformly random legal moves, entirely in C.

    Game ``i`` is dealt and played from its own seed derived from ``seed`` and
    ``i``, so totals do not depend on how the work is split: ``threads`` threads
    share the games (the GIL is released while they run) and give the same
    totals as one.

    >>> import skitgubbe as sg
    >>> a = sg.simulate(sg.Rules.classic(players=4), 50, seed=9)
    >>> a == sg.simulate(sg.Rules.classic(players=4), 50, seed=9, threads=2)
    True
    """
    rules = Rules.classic() if rules is None else rules
    if not isinstance(rules, Rules):
        raise ArgumentTypeError(f"rules must be a Rules or None, not {type(rules).__name__}")
    if type(games) is not int or games < 0:
        raise SkitgubbeError(f"games must be a non-negative int, not {games!r}")
    if type(seed) is not int or not 0 <= seed < 2**64:
        raise SkitgubbeError(f"seed must be an int 0 <= seed < 2**64, not {seed!r}")
    if type(threads) is not int or threads < 1:
        raise SkitgubbeError(f"threads must be a positive int, not {threads!r}")
    core_rules = rules._core_values()
    if threads == 1 or games < 2:
        parts = [_engine.simulate(core_rules, seed, 0, games)]
    else:
        # Contiguous blocks, one per thread: each runs in C without the GIL.
        bounds = [games * k // threads for k in range(threads + 1)]
        with ThreadPoolExecutor(max_workers=threads) as pool:
            parts = list(
                pool.map(
                    lambda k: _engine.simulate(
                        core_rules, seed, bounds[k], bounds[k + 1] - bounds[k]
                    ),
                    range(threads),
                )
            )
    return SimulationResult(
        games=sum(p[0] for p in parts),
        moves=sum(p[1] for p in parts),
        losses=tuple(sum(p[2][seat] for p in parts) for seat in range(rules.players)),
        no_loser=sum(p[3] for p in parts),
        truncated=sum(p[4] for p in parts),
    )
