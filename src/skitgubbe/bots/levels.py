"""Strength levels for people: ``easy``, ``medium``, ``hard`` and ``expert``.

Each level is a bot name (``skitgubbe play --bots expert``, the browser lobby,
``bots.make("hard")``) that stands for a built-in bot at a fixed budget, from
the rule-based greedy player up to a search on two threads. Where the shipped
network was not trained for the rules (:func:`~skitgubbe.bots.net.covers`), the
levels that use it play the plain search at the same budget instead.

>>> from skitgubbe import bots
>>> [name for name in LEVELS]
['easy', 'medium', 'hard', 'expert']
>>> bots.make("expert", seed=1)
LevelBot('expert', seed=1)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from ..errors import ArgumentError
from ..game.moves import Move
from ..game.observation import Observation
from ..game.rules import Rules
from .net import covers
from .registry import check_turn

if TYPE_CHECKING:
    from ..play.players import Player

__all__ = ["LEVELS", "LevelBot", "easy", "expert", "hard", "medium"]

LEVELS: Final[dict[str, tuple[str, str | None]]] = {
    "easy": ("greedy", None),
    "medium": ("net", None),
    # The default search: equivalent moves merged, one thread, about 10 ms a decision.
    "hard": ("ismcts", None),
    # The search on two threads within 0.1 s of wall time a decision (0.095 s of searching,
    # the rest for the threads and the bot's own work), endgames of up to 20 cards in two
    # hands solved. The iterations bound it too (about what 0.1 s buys on a 2-core machine
    # of 2026) so that an analysis with it is reproducible (docs/analysis.md); measured in
    # docs/strength.md.
    "expert": ("ismcts:threads=2,iterations=100000,time=0.095,solver=20", None),
}
"""Each level's bot spec, and the spec it plays where the network does not cover the
rules (None: the same bot everywhere). docs/strength.md gives their measured strength
and time per decision."""


class LevelBot:
    """The bot of a strength level (see :data:`LEVELS`).

    >>> import skitgubbe as sg
    >>> game = sg.Game.new(seed=4)
    >>> LevelBot("hard", seed=2).choose(game.observation(game.to_move)) in game.legal_moves
    True
    >>> LevelBot("superhuman")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    skitgubbe.errors.ArgumentError: no strength level 'superhuman'; levels: easy, ...
    """

    def __init__(self, level: str, seed: int | None = None) -> None:
        if level not in LEVELS:
            raise ArgumentError(f"no strength level {level!r}; levels: {', '.join(LEVELS)}")
        from .registry import make

        self.level = level
        self.seed = seed
        spec, fallback = LEVELS[level]
        self.bot: Player = make(spec, seed=seed)
        """The bot the level plays."""
        self.fallback: Player | None = None if fallback is None else make(fallback, seed=seed)
        """The bot it plays where the network does not cover the rules (None: ``bot``)."""
        self._covered: dict[Rules, bool] = {}

    def choose(self, observation: Observation) -> Move:
        """The level's bot's move (its fallback's where the network does not cover the rules)."""
        check_turn(observation)
        bot = self.bot
        if self.fallback is not None:
            rules = observation.rules
            if rules not in self._covered:
                self._covered[rules] = covers(rules)
            if not self._covered[rules]:
                bot = self.fallback
        return bot.choose(observation)

    def __repr__(self) -> str:
        return f"LevelBot({self.level!r}, seed={self.seed!r})"


def easy(seed: int | None = None) -> LevelBot:
    """The ``easy`` level (the rule-based greedy player).

    >>> easy(seed=1)
    LevelBot('easy', seed=1)
    """
    return LevelBot("easy", seed)


def medium(seed: int | None = None) -> LevelBot:
    """The ``medium`` level (the network's policy alone).

    >>> medium(seed=1)
    LevelBot('medium', seed=1)
    """
    return LevelBot("medium", seed)


def hard(seed: int | None = None) -> LevelBot:
    """The ``hard`` level (the default search, about 10 ms a decision).

    >>> hard(seed=1)
    LevelBot('hard', seed=1)
    """
    return LevelBot("hard", seed)


def expert(seed: int | None = None) -> LevelBot:
    """The ``expert`` level: the strongest measured, at most 0.1 s per decision on two threads.

    >>> expert(seed=1).level
    'expert'
    """
    return LevelBot("expert", seed)
