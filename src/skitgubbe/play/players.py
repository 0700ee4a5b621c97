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

from .._limits import NOT_GIVEN, NotGiven, check_move_time, move_time_or_timeout
from ..game.moves import Move
from ..game.observation import Observation
from ..game.rules import Rules
from ..game.state import Game, GameResult
from .referee import Referee

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
    move_time: float | None = None,
    timeout: float | NotGiven | None = NOT_GIVEN,
) -> GameResult:
    """Play a game to the end between the players of ``lineup`` (seat ``i`` is ``lineup[i]``).

    A new game is dealt from ``seed`` (with ``rules``, by default the classic
    rules for ``len(lineup)``), or an existing ``game`` is played on. The
    optional hooks are called before the first move and after the last. A
    player that raises or answers anything but a legal :class:`~skitgubbe.Move`
    is reported as :class:`~skitgubbe.PlayerError` with its seat; the game is
    left consistent, at the position where that player was to move. This is
    :meth:`Referee.run <skitgubbe.Referee.run>`.

    ``move_time`` is a time limit in seconds for every call to a player
    (``choose`` and the hooks; ``None``, the default: no limit). A player whose
    call returns later than that, by the monotonic clock, is reported as
    :class:`~skitgubbe.PlayerTimeoutError` (a :class:`~skitgubbe.PlayerError`
    with the seat and the limit) and its late answer is not played. The limit
    is checked when the call returns, so a player that never returns is not
    stopped here: the arena (:func:`~skitgubbe.run_match` with a move time)
    plays in worker processes it can stop, and
    :func:`~skitgubbe.play_game_async` cancels a ``choose`` that awaits.
    ``timeout`` is ``move_time``'s old name, deprecated for one release.

    >>> import skitgubbe as sg
    >>> bots = [sg.bots.RandomBot(seed=seat) for seat in range(4)]
    >>> result = sg.play_game(bots, seed=3)
    >>> sorted(result.finish_order) == [0, 1, 2, 3] or result.truncated
    True
    >>> import time
    >>> class Slow(sg.bots.GreedyBot):
    ...     def choose(self, observation: sg.Observation) -> sg.Move:
    ...         time.sleep(0.2)
    ...         return super().choose(observation)
    >>> game = sg.Game.new(seed=3)
    >>> sg.play_game([sg.bots.GreedyBot(), Slow(), sg.bots.GreedyBot()], game=game, move_time=0.05)
    Traceback (most recent call last):
        ...
    skitgubbe.errors.PlayerTimeoutError: seat 1 (Slow) did not answer within 0.05 s
    >>> game.to_move, game.moves_played  # the late answer was not played
    (1, 1)
    """
    referee = Referee(lineup, rules, seed=seed, game=game)
    value, name = move_time_or_timeout(move_time, timeout)
    return referee.run(move_time=check_move_time(value, name))
