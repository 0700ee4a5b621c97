"""The table loop: a :class:`Referee` runs a game between a lineup of players.

Every way of playing a game between players drives one referee:
:func:`~skitgubbe.play_game` (:meth:`Referee.run`), the asyncio runner
:func:`~skitgubbe.play_game_async` (which adds time limits, disconnects and
stand-ins around the same steps) and the arena's matches. So a player's answer
is checked, timed and recorded in one place, :meth:`Referee.accept`, whoever
asks the question and however the answer arrives (a function call, an awaited
socket, another process).

The steps, for a driver of its own:

1. ``Referee(lineup, rules, seed=...)`` (or ``game=``) seats the lineup: seat
   ``i`` is ``lineup[i]``.
2. :meth:`~Referee.start` gives the ``game_started`` hooks to call.
3. While :meth:`~Referee.turn` gives a :class:`PlayerCall` (the seat to move,
   its player and its observation), get that player's answer and hand it to
   :meth:`~Referee.accept`: a :class:`~skitgubbe.Move` that is legal is played
   and recorded as a :class:`Decision`; anything else is a
   :class:`~skitgubbe.PlayerError` and the game is left as it was.
4. :meth:`~Referee.finish` gives the ``game_ended`` hooks; :attr:`~Referee.result`
   is the :class:`~skitgubbe.GameResult`.

A call that raises becomes a :class:`~skitgubbe.PlayerError` by
:meth:`PlayerCall.failed`, naming the seat, the player and the cause.

>>> import skitgubbe as sg
>>> referee = sg.Referee([sg.bots.GreedyBot(), sg.bots.RandomBot(seed=1)], seed=4)
>>> while (turn := referee.turn()) is not None:
...     events = referee.accept(turn, turn())  # turn() asks the player: choose(observation)
>>> referee.result == referee.game.result, len(referee.decisions) == referee.game.moves_played
(True, True)
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any, Generic, Literal, TypeVar

import attrs

from .._limits import NOT_GIVEN, NotGiven, check_move_time, move_time_or_timeout
from ..errors import (
    ArgumentError,
    EngineTimeoutError,
    IllegalMoveError,
    PlayerDisconnectedError,
    PlayerError,
    PlayerTimeoutError,
    SkitgubbeError,
)
from ..game.moves import Move
from ..game.observation import Observation
from ..game.rules import Rules
from ..game.state import Events, Game, GameResult

__all__ = ["Decision", "PlayerCall", "Referee"]

P = TypeVar("P")
"""The type of the players of a referee's lineup."""

Method = Literal["choose", "game_started", "game_ended"]
"""The methods a referee calls on a player."""


def _describe(error: BaseException) -> str:
    """``Type: message`` of an exception, even when its ``__str__`` fails."""
    try:
        text = str(error)
    except Exception:
        text = "<exception str() failed>"
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def _show(value: object) -> str:
    """The ``repr`` of a player's answer, even when its ``__repr__`` fails."""
    try:
        return repr(value)
    except Exception:
        return f"<{type(value).__name__} object (repr() failed)>"


def _check_timeout(value: object, name: str = "timeout") -> float | None:
    """:func:`skitgubbe._limits.check_move_time` under its old name, for arena.py, which
    imports it until it switches to ``check_move_time`` (issue 24); then this goes."""
    return check_move_time(value, name)


@attrs.frozen(eq=False)
class PlayerCall(Generic[P]):
    """One call the referee wants made: ``player.method(*args)`` for ``seat``.

    ``method`` is ``"choose"`` (``args`` is the seat's observation: see
    :attr:`observation`), ``"game_started"`` (the observation) or
    ``"game_ended"`` (the observation and the result). Calling the object makes
    the call and returns what the player returned (an awaitable, for an
    asynchronous player). ``stand_in`` says why another player answers for the
    seat (see :meth:`instead`), else ``None``.

    >>> import skitgubbe as sg
    >>> referee = sg.Referee([sg.bots.GreedyBot(), sg.bots.GreedyBot()], seed=4)
    >>> turn = referee.turn()
    >>> turn.seat, turn.method, turn.observation.seat, turn.stand_in
    (0, 'choose', 0, None)
    >>> turn() in turn.observation.legal_moves
    True
    """

    seat: int
    player: P
    method: Method
    args: tuple[Any, ...]
    stand_in: str | None = None

    @property
    def observation(self) -> Observation:
        """The observation of the seat the call is for.

        >>> import skitgubbe as sg
        >>> referee = sg.Referee([sg.bots.GreedyBot()] * 3, seed=1)
        >>> referee.turn().observation.legal_moves == referee.game.legal_moves
        True
        """
        observation: Observation = self.args[0]
        return observation

    def __call__(self) -> Any:
        return getattr(self.player, self.method)(*self.args)

    def instead(self, player: P, reason: str) -> PlayerCall[P]:
        """The same call made to ``player``, standing in for the seat for ``reason``.

        The answer of a stand-in is checked and recorded like any other, with
        ``stand_in=reason`` in its :class:`Decision`.

        >>> import skitgubbe as sg
        >>> referee = sg.Referee([sg.bots.RandomBot(seed=1)] * 3, seed=1)
        >>> turn = referee.turn().instead(sg.bots.GreedyBot(), "timeout")
        >>> _ = referee.accept(turn, turn())
        >>> referee.decisions[0].stand_in
        'timeout'
        """
        return attrs.evolve(self, player=player, stand_in=reason)

    def _who(self) -> str:
        return f"seat {self.seat} ({type(self.player).__name__})"

    def failed(self, cause: BaseException) -> PlayerError:
        """The :class:`~skitgubbe.PlayerError` for this call having raised ``cause``.

        It names the seat, the player's type and the method, and keeps ``cause``;
        the message holds even when ``str(cause)`` itself fails. An
        :class:`~skitgubbe.EngineTimeoutError` (an engine process that did not
        answer in its time) is the seat's timeout: a
        :class:`~skitgubbe.PlayerTimeoutError` with the engine's limit, keeping
        the engine's error as ``cause``.

        >>> import skitgubbe as sg
        >>> referee = sg.Referee([sg.bots.GreedyBot()] * 3, seed=1)
        >>> error = referee.turn().failed(KeyError("gone"))
        >>> print(error)
        seat 0 (GreedyBot) raised KeyError: 'gone' in choose
        >>> error.seat, type(error.cause).__name__
        (0, 'KeyError')
        >>> late = sg.EngineTimeoutError("engine 'x' timeout: no move within 0.1 s", 0.1)
        >>> error = referee.turn().failed(late)
        >>> print(error)
        seat 0 (GreedyBot) did not answer within 0.1 s
        >>> type(error).__name__, error.timeout, error.cause is late
        ('PlayerTimeoutError', 0.1, True)
        """
        if isinstance(cause, EngineTimeoutError):
            timeout = self.timed_out(cause.limit)
            timeout.cause = cause
            return timeout
        standing_in = " (standing in)" if self.stand_in is not None else ""
        return PlayerError(
            f"{self._who()} raised {_describe(cause)} in {self.method}{standing_in}",
            seat=self.seat,
            cause=cause,
        )

    def timed_out(self, limit: float) -> PlayerTimeoutError:
        """The :class:`~skitgubbe.PlayerTimeoutError` for this call not ending within ``limit`` s.

        For a hook, the message names it.

        >>> import skitgubbe as sg
        >>> referee = sg.Referee([sg.bots.GreedyBot()] * 3, seed=1)
        >>> error = referee.turn().timed_out(30)
        >>> print(error)
        seat 0 (GreedyBot) did not answer within 30 s
        >>> error.seat, error.timeout
        (0, 30.0)
        >>> hook = sg.PlayerCall(2, sg.bots.GreedyBot(), "game_started", ())
        >>> print(hook.timed_out(0.5))
        seat 2 (GreedyBot) did not return from game_started within 0.5 s
        """
        late = "answer" if self.method == "choose" else f"return from {self.method}"
        return PlayerTimeoutError(
            f"{self._who()} did not {late} within {limit} s", self.seat, float(limit)
        )

    def disconnected(self, cause: BaseException) -> PlayerDisconnectedError:
        """The :class:`~skitgubbe.PlayerDisconnectedError` for this call having lost its player.

        ``cause`` is the ``ConnectionError`` (or the cancellation) that ended the call.

        >>> import skitgubbe as sg
        >>> referee = sg.Referee([sg.bots.GreedyBot()] * 3, seed=1)
        >>> print(referee.turn().disconnected(sg.DisconnectedError("socket closed")))
        seat 0 (GreedyBot) disconnected in choose: DisconnectedError: socket closed
        """
        return PlayerDisconnectedError(
            f"{self._who()} disconnected in {self.method}: {_describe(cause)}", self.seat, cause
        )


@attrs.frozen
class Decision:
    """One answer the referee accepted: ``seat`` played ``move``.

    ``seconds`` is the wall time from the opening of the turn
    (:meth:`Referee.turn`) to the answer's acceptance; ``stand_in`` is the
    reason another player answered for the seat, else ``None``.

    >>> import skitgubbe as sg
    >>> referee = sg.Referee([sg.bots.GreedyBot()] * 2, seed=3)
    >>> _ = referee.run()
    >>> first = referee.decisions[0]
    >>> first.seat, first.move == referee.game.moves[0], first.seconds >= 0, first.stand_in
    (0, True, True, None)
    """

    seat: int
    move: Move
    seconds: float
    stand_in: str | None = None


def _run(call: PlayerCall[Any], limit: float | None = None) -> Any:
    """Make ``call``; an exception from the player becomes a PlayerError.

    With a ``limit``, a call that returns more than ``limit`` seconds after it
    was made (by the monotonic clock) is a PlayerTimeoutError instead.
    """
    started = time.monotonic()
    try:
        answer = call()
    except Exception as exc:
        raise call.failed(exc) from exc
    if limit is not None and time.monotonic() - started > limit:
        raise call.timed_out(limit)
    return answer


class Referee(Generic[P]):
    """A game and the lineup that plays it: whose turn, their observation, their answers.

    Seat ``i`` is ``lineup[i]``. A new game is dealt from ``seed`` (with
    ``rules``, by default the classic rules for ``len(lineup)``), or the given
    ``game`` is played on in place (``rules`` and ``seed`` are then not given).
    The lineup must have one player per seat. While a referee runs a game, the
    game changes only through :meth:`accept`.

    The referee never calls a player itself except in :meth:`run`; it hands out
    :class:`PlayerCall` objects, so that a driver can make each call as it
    needs (directly, awaited under a time limit, over a connection).

    >>> import skitgubbe as sg
    >>> class Lowest:
    ...     def choose(self, observation: sg.Observation) -> sg.Move:
    ...         return observation.legal_moves[0]
    >>> referee = sg.Referee([Lowest(), Lowest(), Lowest()], seed=5)
    >>> referee.to_move, referee.game.players
    (0, 3)
    >>> turn = referee.turn()
    >>> [str(event) for event in referee.accept(turn, sg.Move.parse("9S"))]
    Traceback (most recent call last):
        ...
    skitgubbe.errors.PlayerError: seat 0 (Lowest) answered Move.parse('9♠'): illegal move ...
    >>> [str(event) for event in referee.accept(turn, turn.observation.legal_moves[0])]
    ['seat 0 plays 10♣', 'seat 0 draws 10♥']
    >>> referee.run().loser in (0, 1, 2)
    True
    """

    __slots__ = ("_decisions", "_game", "_lineup", "_opened")

    _decisions: list[Decision]
    _game: Game
    _lineup: tuple[P, ...]
    _opened: float

    def __init__(
        self,
        lineup: Sequence[P],
        rules: Rules | None = None,
        *,
        seed: int | None = None,
        game: Game | None = None,
    ) -> None:
        seated = tuple(lineup)
        if game is None:
            rules = Rules.classic(players=len(seated)) if rules is None else rules
            game = Game.new(rules, seed=seed)
        elif rules is not None or seed is not None:
            raise ArgumentError("give rules and seed, or a game, not both")
        if len(seated) != game.players:
            raise ArgumentError(f"{game.players} players are needed, {len(seated)} were given")
        self._game = game
        self._lineup = seated
        self._decisions = []
        self._opened = time.perf_counter()

    @property
    def game(self) -> Game:
        """The game the referee runs (change it only through :meth:`accept`).

        >>> import skitgubbe as sg
        >>> game = sg.Game.new(seed=1)
        >>> sg.Referee([sg.bots.GreedyBot()] * 3, game=game).game is game
        True
        """
        return self._game

    @property
    def lineup(self) -> tuple[P, ...]:
        """The players, seat by seat.

        >>> import skitgubbe as sg
        >>> sg.Referee([sg.bots.GreedyBot(), sg.bots.RandomBot(seed=1)], seed=1).lineup
        (GreedyBot(), RandomBot(seed=1))
        """
        return self._lineup

    @property
    def to_move(self) -> int | None:
        """The seat to move, or ``None`` once the game is over.

        >>> import skitgubbe as sg
        >>> referee = sg.Referee([sg.bots.GreedyBot()] * 2, seed=1)
        >>> referee.to_move, referee.run() is not None, referee.to_move
        (0, True, None)
        """
        return self._game.to_move

    @property
    def result(self) -> GameResult | None:
        """The game's result, or ``None`` while it goes on.

        >>> import skitgubbe as sg
        >>> referee = sg.Referee([sg.bots.GreedyBot()] * 2, seed=1)
        >>> referee.result is None, referee.run() == referee.result
        (True, True)
        """
        return self._game.result

    @property
    def decisions(self) -> tuple[Decision, ...]:
        """Every answer accepted by this referee, in order.

        >>> import skitgubbe as sg
        >>> referee = sg.Referee([sg.bots.GreedyBot()] * 3, seed=2)
        >>> referee.decisions
        ()
        >>> _ = referee.run()
        >>> [d.move for d in referee.decisions] == list(referee.game.moves)
        True
        """
        return tuple(self._decisions)

    def _hooks(self, method: Method, *extra: object) -> tuple[PlayerCall[P], ...]:
        game = self._game
        return tuple(
            PlayerCall(seat, player, method, (game.observation(seat), *extra))
            for seat, player in enumerate(self._lineup)
            if getattr(player, method, None) is not None
        )

    def start(self) -> tuple[PlayerCall[P], ...]:
        """The ``game_started(observation)`` calls due, seat by seat.

        Only players that have the hook get a call.

        >>> import skitgubbe as sg
        >>> class Listening(sg.bots.GreedyBot):
        ...     def game_started(self, observation: sg.Observation) -> None:
        ...         print("seat", observation.seat, "holds", observation.hand)
        >>> referee = sg.Referee([sg.bots.GreedyBot(), Listening()], seed=1)
        >>> [(call.seat, call.method) for call in referee.start()]
        [(1, 'game_started')]
        >>> for call in referee.start():
        ...     call()
        seat 1 holds A♦ 7♥ J♠
        """
        return self._hooks("game_started")

    def turn(self) -> PlayerCall[P] | None:
        """Open the turn of the seat to move: its ``choose(observation)`` call.

        ``None`` once the game is over. Opening a turn starts its clock (see
        :attr:`Decision.seconds`); each call opens the turn anew.

        >>> import skitgubbe as sg
        >>> referee = sg.Referee([sg.bots.GreedyBot()] * 3, seed=2)
        >>> turn = referee.turn()
        >>> turn.seat, turn.method, turn.player
        (0, 'choose', GreedyBot())
        """
        game = self._game
        seat = game.to_move
        if seat is None:
            return None
        call = PlayerCall(seat, self._lineup[seat], "choose", (game.observation(seat),))
        self._opened = time.perf_counter()
        return call

    def _refused(self, turn: PlayerCall[P], answer: object, why: str) -> PlayerError:
        shown = ", ".join(str(move) for move in turn.observation.legal_moves)
        return PlayerError(
            f"{turn._who()} answered {_show(answer)}: {why}; legal moves: {shown}",
            seat=turn.seat,
            answer=answer,
        )

    def accept(self, turn: PlayerCall[P], answer: object) -> Events:
        """Check the ``answer`` to ``turn``; play it, record it and return its events.

        The answer must be a :class:`~skitgubbe.Move` (an instance of that
        class, not merely an object equal to one) that is legal in the game
        (:meth:`Game.play <skitgubbe.Game.play>` decides). Anything else raises
        :class:`~skitgubbe.PlayerError` naming the seat, the player (the one in
        ``turn``, a stand-in included), the answer and the legal moves, and
        leaves the game as it was: the turn can be asked again.

        >>> import skitgubbe as sg
        >>> referee = sg.Referee([sg.bots.GreedyBot()] * 3, seed=2)
        >>> turn = referee.turn()
        >>> referee.accept(turn, "flip")
        Traceback (most recent call last):
            ...
        skitgubbe.errors.PlayerError: seat 0 (GreedyBot) answered 'flip': not a Move; ...
        >>> [str(event) for event in referee.accept(turn, sg.Move.flip())]
        ['seat 0 tries their luck and turns up 5♠']
        >>> referee.decisions[0].move
        Move.flip()
        """
        game = self._game
        if turn.method != "choose" or turn.seat != game.to_move:
            raise ArgumentError(
                f"{turn.method} for seat {turn.seat} is not the turn to answer: "
                f"seat {game.to_move} is to move"
            )
        seconds = time.perf_counter() - self._opened
        if type(answer) is not Move:
            raise self._refused(turn, answer, "not a Move")
        try:
            events = game.play(answer)
        except IllegalMoveError as error:
            raise self._refused(turn, answer, f"illegal move ({error.reason})") from None
        self._decisions.append(Decision(turn.seat, answer, seconds, turn.stand_in))
        return events

    def finish(self) -> tuple[PlayerCall[P], ...]:
        """The ``game_ended(observation, result)`` calls due, seat by seat.

        Only players that have the hook get a call; the game must be over.

        >>> import skitgubbe as sg
        >>> class Listening(sg.bots.GreedyBot):
        ...     def game_ended(self, observation: sg.Observation, result: sg.GameResult) -> None:
        ...         print("seat", observation.seat, "sees loser", result.loser)
        >>> referee = sg.Referee([Listening(), Listening()], seed=1)
        >>> referee.finish()
        Traceback (most recent call last):
            ...
        skitgubbe.errors.SkitgubbeError: the game is not over: seat 0 is to move
        >>> while (turn := referee.turn()) is not None:
        ...     _ = referee.accept(turn, turn())
        >>> for call in referee.finish():
        ...     call()
        seat 0 sees loser 0
        seat 1 sees loser 0
        """
        result = self._game.result
        if result is None:
            raise SkitgubbeError(f"the game is not over: seat {self._game.to_move} is to move")
        return self._hooks("game_ended", result)

    def run(
        self, *, move_time: float | None = None, timeout: float | NotGiven | None = NOT_GIVEN
    ) -> GameResult:
        """Play the game to the end, calling the players directly; return the result.

        The ``game_started`` hooks, then every turn, then the ``game_ended``
        hooks (all of them, even after one fails). A player that raises, or
        answers anything but a legal move, is a :class:`~skitgubbe.PlayerError`
        (for ``game_ended``: the first one, after every player has been told);
        the game is left where that player was to move.

        ``move_time`` (seconds, ``None`` for no limit) bounds every call to a
        player, ``choose`` and the hooks: a call that returns later than that,
        by the monotonic clock, is a :class:`~skitgubbe.PlayerTimeoutError`
        and its answer is not played. The limit is checked when the call
        returns: a player that never returns cannot be stopped in its own
        thread (the arena's worker processes and
        :func:`~skitgubbe.play_game_async` can stop one). A move time that is
        not a positive, finite number of seconds is an
        :class:`~skitgubbe.ArgumentError` (:class:`~skitgubbe.ArgumentTypeError`
        when it is no number). ``timeout`` is its old name, deprecated (it
        warns; both given is an :class:`~skitgubbe.ArgumentError`).

        >>> import skitgubbe as sg
        >>> referee = sg.Referee([sg.bots.RandomBot(seed=s) for s in range(4)], seed=3)
        >>> result = referee.run(move_time=60)
        >>> result == referee.result == referee.game.result
        True
        """
        value, name = move_time_or_timeout(move_time, timeout)
        limit = check_move_time(value, name)
        for call in self.start():
            _run(call, limit)
        while (turn := self.turn()) is not None:
            self.accept(turn, _run(turn, limit))
        result = self._game.result
        assert result is not None
        failures: list[PlayerError] = []
        for call in self.finish():
            try:
                _run(call, limit)
            except PlayerError as error:
                failures.append(error)
        if failures:
            raise failures[0]
        return result

    def __repr__(self) -> str:
        names = ", ".join(type(player).__name__ for player in self._lineup)
        return f"<Referee [{names}], {self._game!r}>"
