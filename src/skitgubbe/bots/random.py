"""A player that picks uniformly among its legal moves."""

from __future__ import annotations

import random

from ..game.moves import Move
from ..game.observation import Observation

__all__ = ["RandomBot"]


class RandomBot:
    """Uniformly random over the legal moves; reproducible from ``seed``.

    >>> import skitgubbe as sg
    >>> game = sg.Game.new(seed=4)
    >>> bot = sg.bots.RandomBot(seed=0)
    >>> bot.choose(game.observation(game.to_move)) in game.legal_moves
    True
    """

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed
        self._rng = random.Random(seed)

    def choose(self, observation: Observation) -> Move:
        """Pick one of ``observation.legal_moves`` at random."""
        moves = observation.legal_moves
        return moves[self._rng.randrange(len(moves))]

    def __repr__(self) -> str:
        return f"RandomBot(seed={self.seed!r})"
