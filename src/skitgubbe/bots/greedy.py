"""A sensible rule-based player, played by the C core's greedy policy."""

from __future__ import annotations

from .. import _core
from ..game.moves import Move
from ..game.observation import Observation
from .registry import check_turn

__all__ = ["GreedyBot"]


class GreedyBot:
    """Rule-based play, using only its own hand and public information.

    Phase 1: win a trick with the cheapest card that takes it when the trick is
    worth it, otherwise throw the lowest card; try its luck with a weak hand
    (nothing above an eight); throw low cards onto other players' tricks in a
    slough window. Phase 2: lead its cheapest card (the longest run from it,
    where runs are allowed), beat with the cheapest card that does (trumps and
    high cards are dear), and pick up rather than spend a high trump on a low
    card. It is also the rollout policy of the search bots. ``seed`` is
    accepted for the bot registry; the policy is deterministic.

    >>> import skitgubbe as sg
    >>> game = sg.Game.new(seed=4)
    >>> bot = sg.bots.GreedyBot()
    >>> bot.choose(game.observation(game.to_move)) in game.legal_moves
    True
    """

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed

    def choose(self, observation: Observation) -> Move:
        """The greedy move for this seat."""
        check_turn(observation)
        return Move.from_code(_core.greedy_move(observation.core_view))

    def __repr__(self) -> str:
        return "GreedyBot()"
