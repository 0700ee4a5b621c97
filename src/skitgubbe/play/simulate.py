"""Whole random games played inside the C core: :func:`simulate`."""

from __future__ import annotations

import attrs

from .. import _core
from ..errors import ArgumentError, ArgumentTypeError
from ..game.rules import Rules

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
    moves_played: int
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
        return self.moves_played / self.games if self.games else 0.0


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
    for name, value, low, high, wanted in (
        ("games", games, 0, None, "a non-negative int"),
        ("seed", seed, 0, 2**64, "an int 0 <= seed < 2**64"),
        ("threads", threads, 1, None, "a positive int"),
    ):
        if type(value) is not int:
            raise ArgumentTypeError(f"{name} must be {wanted}, not {value!r}")
        if value < low or (high is not None and value >= high):
            raise ArgumentError(f"{name} must be {wanted}, not {value!r}")
    core_rules = rules._core_values()
    if threads == 1 or games < 2:
        parts = [_core.simulate(core_rules, seed, 0, games)]
    else:
        # Imported here: concurrent.futures is not part of what `import skitgubbe` loads.
        from concurrent.futures import ThreadPoolExecutor

        # Contiguous blocks, one per thread: each runs in C without the GIL.
        bounds = [games * k // threads for k in range(threads + 1)]
        with ThreadPoolExecutor(max_workers=threads) as pool:
            parts = list(
                pool.map(
                    lambda k: _core.simulate(
                        core_rules, seed, bounds[k], bounds[k + 1] - bounds[k]
                    ),
                    range(threads),
                )
            )
    return SimulationResult(
        games=sum(p[0] for p in parts),
        moves_played=sum(p[1] for p in parts),
        losses=tuple(sum(p[2][seat] for p in parts) for seat in range(rules.players)),
        no_loser=sum(p[3] for p in parts),
        truncated=sum(p[4] for p in parts),
    )
