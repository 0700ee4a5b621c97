"""The :class:`Player` protocol and :func:`play_game`, which runs a game between players.

A player is any object with a ``choose(observation) -> Move`` method. It is
given only the frozen :class:`~skitgubbe.Observation` of its own seat, never
the :class:`~skitgubbe.Game`. Two optional hooks, ``game_started(observation)``
and ``game_ended(observation, result)``, are called when present.

>>> import skitgubbe as sg
>>> class Lowest:
...     def choose(self, observation: sg.Observation) -> sg.Move:
...         return observation.legal_moves[0]
>>> result = sg.play_game([Lowest(), Lowest(), Lowest()], seed=5)
>>> result.loser in (0, 1, 2)
True
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from .game import Game, GameResult
from .moves import Move
from .observation import Observation
from .referee import Referee
from .rules import Rules

__all__ = ["Player", "play_game"]


@runtime_checkable
class Player(Protocol):
    """What the engine needs from a bot or a seat's controller.

    ``choose`` gets the observation of the player's seat, with
    ``observation.legal_moves`` filled in, and returns one of those moves.

    >>> import skitgubbe as sg
    >>> isinstance(sg.bots.RandomBot(seed=1), sg.Player)
    True
    """

    def choose(self, observation: Observation) -> Move:
        """Return one of ``observation.legal_moves``."""
        ...


def play_game(
    lineup: Sequence[Player],
    rules: Rules | None = None,
    *,
    seed: int | None = None,
    game: Game | None = None,
) -> GameResult:
    """Play a game to the end between the players of ``lineup`` (seat ``i`` is ``lineup[i]``).

    A new game is dealt from ``seed`` (with ``rules``, by default the classic
    rules for ``len(lineup)``), or an existing ``game`` is played on. The
    optional hooks are called before the first move and after the last. A
    player that raises or answers anything but a legal :class:`~skitgubbe.Move`
    is reported as :class:`~skitgubbe.PlayerError` with its seat; the game is
    left consistent, at the position where that player was to move. This is
    :meth:`Referee.run <skitgubbe.Referee.run>`.

    >>> import skitgubbe as sg
    >>> bots = [sg.bots.RandomBot(seed=seat) for seat in range(4)]
    >>> result = sg.play_game(bots, seed=3)
    >>> sorted(result.finish_order) == [0, 1, 2, 3] or result.truncated
    True
    """
    return Referee(lineup, rules, seed=seed, game=game).run()
