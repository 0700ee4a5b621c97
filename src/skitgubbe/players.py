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

from .errors import ArgumentError, PlayerError
from .game import Game, GameResult
from .moves import Move
from .observation import Observation
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


def _table_game(players: int, rules: Rules | None, seed: int | None, game: Game | None) -> Game:
    """The game a table of ``players`` plays: ``game``, or a new deal from ``rules`` and ``seed``.

    >>> _table_game(3, None, 1, None).players
    3
    """
    if game is None:
        game = Game.new(Rules.classic(players=players) if rules is None else rules, seed=seed)
    elif rules is not None or seed is not None:
        raise ArgumentError("give rules and seed, or a game, not both")
    if players != game.players:
        raise ArgumentError(f"{game.players} players are needed, {players} were given")
    return game


def play_game(
    players: Sequence[Player],
    rules: Rules | None = None,
    *,
    seed: int | None = None,
    game: Game | None = None,
) -> GameResult:
    """Play a game to the end between ``players`` (seat ``i`` is ``players[i]``).

    A new game is dealt from ``seed`` (with ``rules``, by default the classic
    rules for ``len(players)``), or an existing ``game`` is played on. A player
    that raises or answers anything but a legal :class:`~skitgubbe.Move` is
    reported as :class:`~skitgubbe.PlayerError` with its seat; the game is left
    consistent, at the position where that player was to move.

    >>> import skitgubbe as sg
    >>> bots = [sg.bots.RandomBot(seed=seat) for seat in range(4)]
    >>> result = sg.play_game(bots, seed=3)
    >>> sorted(result.finish_order) == [0, 1, 2, 3] or result.truncated
    True
    """
    game = _table_game(len(players), rules, seed, game)
    for seat, player in enumerate(players):
        started = getattr(player, "game_started", None)
        if started is not None:
            started(game.observation(seat))
    while (to_move := game.to_move) is not None:
        seat = to_move
        observation = game.observation(seat)
        player = players[seat]
        try:
            answer = player.choose(observation)
        except Exception as exc:
            raise PlayerError(
                f"seat {seat} ({type(player).__name__}) raised {type(exc).__name__}: {exc}",
                seat=seat,
                cause=exc,
            ) from exc
        if not isinstance(answer, Move) or answer not in observation.legal_moves:
            shown = ", ".join(str(m) for m in observation.legal_moves)
            what = "illegal move" if isinstance(answer, Move) else "not a Move"
            raise PlayerError(
                f"seat {seat} ({type(player).__name__}) answered {answer!r}: {what}; "
                f"legal moves: {shown}",
                seat=seat,
                answer=answer,
            )
        game.play(answer)
    result = game.result
    assert result is not None
    for seat, player in enumerate(players):
        ended = getattr(player, "game_ended", None)
        if ended is not None:
            ended(game.observation(seat), result)
    return result
