"""Search bots: perfect-information Monte Carlo and information-set MCTS, run in C."""

from __future__ import annotations

import random
from typing import Final

from .. import _engine
from ..errors import ArgumentError, ArgumentTypeError
from ..moves import Move
from ..observation import Observation
from .registry import _check_turn

__all__ = ["ISMCTSBot", "PIMCBot"]

_POLICIES: Final = {"random": 0, "greedy": 1, "mixed": 2}


def _policy(name: str) -> int:
    try:
        return _POLICIES[name]
    except KeyError:
        raise ArgumentError(
            f"rollout policy must be one of {', '.join(_POLICIES)}, not {name!r}"
        ) from None


def _positive(name: str, value: object) -> int:
    if type(value) is not int:
        raise ArgumentTypeError(f"{name} must be a positive int, not {value!r}")
    if value < 1:
        raise ArgumentError(f"{name} must be a positive int, not {value!r}")
    return value


class PIMCBot:
    """Perfect-information Monte Carlo: sample worlds, roll every move out, keep the best.

    For each of ``worlds`` worlds consistent with its observation (the unknown
    cards dealt uniformly into the unknown slots), it plays every legal move
    followed by ``rollouts`` rollouts with the ``rollout`` policy (``greedy``,
    ``random`` or ``mixed``), capped at ``rollout_cap`` moves, and picks the
    move with the best mean chance of not being the skitgubbe. It all runs in C.

    >>> import skitgubbe as sg
    >>> game = sg.Game.new(seed=4)
    >>> bot = sg.bots.PIMCBot(worlds=4, rollouts=1, seed=1)
    >>> bot.choose(game.observation(game.to_move)) in game.legal_moves
    True
    """

    def __init__(
        self,
        worlds: int = 32,
        rollouts: int = 2,
        rollout: str = "greedy",
        rollout_cap: int = 400,
        seed: int | None = None,
    ) -> None:
        self.worlds = _positive("worlds", worlds)
        self.rollouts = _positive("rollouts", rollouts)
        self.rollout = rollout
        self._policy = _policy(rollout)
        self.rollout_cap = _positive("rollout_cap", rollout_cap)
        self.seed = seed
        self._rng = random.Random(seed)

    def scores(self, observation: Observation) -> dict[Move, float]:
        """Each legal move's mean reward (1 = not the skitgubbe) over the samples."""
        pairs = _engine.pimc(
            observation.core_view,
            self.worlds,
            self.rollouts,
            self._policy,
            self.rollout_cap,
            self._rng.getrandbits(64),
        )
        return {Move.from_code(code): score for code, score in pairs}

    def choose(self, observation: Observation) -> Move:
        """The move with the best mean score (the first such in move order)."""
        _check_turn(observation)
        if len(observation.legal_moves) == 1:
            return observation.legal_moves[0]
        scores = self.scores(observation)
        return max(scores, key=scores.__getitem__)

    def __repr__(self) -> str:
        return (
            f"PIMCBot(worlds={self.worlds}, rollouts={self.rollouts}, "
            f"rollout={self.rollout!r}, seed={self.seed!r})"
        )


class ISMCTSBot:
    """Single-observer information-set MCTS with per-player rewards, run in C.

    Each iteration samples a world consistent with the observation, descends
    the one shared tree by UCB1 (``exploration``) among the moves legal in that
    world, adds a node, plays a rollout (``mixed``: greedy with a random move
    one time in four; capped at ``rollout_cap`` moves) and credits each node with
    the reward of the player who moved into it. The move chosen is the most
    visited. The budget is ``iterations`` (the default, reproducible from
    ``seed``) or ``time`` seconds of processor time per decision. The search
    releases the GIL.

    >>> import skitgubbe as sg
    >>> game = sg.Game.new(seed=4)
    >>> bot = sg.bots.ISMCTSBot(iterations=200, seed=1)
    >>> bot.choose(game.observation(game.to_move)) in game.legal_moves
    True
    """

    def __init__(
        self,
        iterations: int | None = None,
        time: float | None = None,
        exploration: float = 0.7,
        rollout: str = "mixed",
        rollout_cap: int = 200,
        seed: int | None = None,
    ) -> None:
        if iterations is None and time is None:
            iterations = 3000
        if iterations is not None:
            _positive("iterations", iterations)
        if time is not None:
            if not isinstance(time, (int, float)):
                raise ArgumentTypeError(f"time must be a positive number of seconds, not {time!r}")
            if not time > 0:
                raise ArgumentError(f"time must be a positive number of seconds, not {time!r}")
        self.iterations = iterations
        self.time = time
        self.exploration = float(exploration)
        self.rollout = rollout
        self._policy = _policy(rollout)
        self.rollout_cap = _positive("rollout_cap", rollout_cap)
        self.seed = seed
        self._rng = random.Random(seed)
        self.last_search: tuple[int, int, float] = (0, 0, 0.0)
        """(iterations, tree nodes, seconds) of the last search."""

    def visits(self, observation: Observation) -> dict[Move, int]:
        """Search and return the root's visit count of each legal move."""
        _best, root, iterations, nodes, seconds = _engine.ismcts(
            observation.core_view,
            self.iterations or 0,
            float(self.time or 0.0),
            self.exploration,
            self._policy,
            self.rollout_cap,
            self._rng.getrandbits(64),
        )
        self.last_search = (iterations, nodes, seconds)
        return {Move.from_code(code): count for code, count in root}

    def choose(self, observation: Observation) -> Move:
        """The most visited move after the search."""
        _check_turn(observation)
        if len(observation.legal_moves) == 1:
            return observation.legal_moves[0]
        visits = self.visits(observation)
        return max(visits, key=visits.__getitem__)

    def __repr__(self) -> str:
        budget = f"time={self.time}" if self.time else f"iterations={self.iterations}"
        return f"ISMCTSBot({budget}, rollout={self.rollout!r}, seed={self.seed!r})"
