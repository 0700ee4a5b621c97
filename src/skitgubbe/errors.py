"""The exceptions skitgubbe raises.

Every error the library raises on purpose is a :class:`SkitgubbeError`, so one
``except SkitgubbeError`` catches them all. Each subclass keeps, as attributes,
what went wrong (the field, the text, the move, the seat), and every one of them
survives :mod:`pickle` with its attributes intact, so errors can cross process
boundaries (arenas run games in worker processes).

>>> import pickle
>>> error = ParseError("not a card: 'XY'", "XY")
>>> copy = pickle.loads(pickle.dumps(error))
>>> isinstance(copy, SkitgubbeError), str(copy), copy.text
(True, "not a card: 'XY'", 'XY')
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .game.moves import Move

__all__ = [
    "ArgumentError",
    "ArgumentTypeError",
    "ConcurrentUseError",
    "DisconnectedError",
    "EngineError",
    "EngineTimeoutError",
    "FieldError",
    "IllegalActionError",
    "IllegalMoveError",
    "ParseError",
    "ParseTypeError",
    "PlayerDisconnectedError",
    "PlayerError",
    "PlayerTimeoutError",
    "PolicyError",
    "RecordError",
    "RulesError",
    "SkitgubbeError",
    "StateError",
]


class SkitgubbeError(Exception):
    """Base class of every error skitgubbe raises on purpose.

    >>> try:
    ...     raise RulesError("Rules.players must be 2, 3 or 4; got 7", "players")
    ... except SkitgubbeError as error:
    ...     print(type(error).__name__, error)
    RulesError Rules.players must be 2, 3 or 4; got 7
    """


class ArgumentError(SkitgubbeError, ValueError):
    """An argument whose value is not allowed (a seat out of range, a negative count …).

    Also a :class:`ValueError`, so code that catches the standard error keeps
    working, as with python-chess's ``IllegalMoveError``.

    >>> try:
    ...     raise ArgumentError("seat must be 0..2, not 5")
    ... except ValueError as error:
    ...     print(error)
    seat must be 0..2, not 5
    """


class ArgumentTypeError(SkitgubbeError, TypeError):
    """An argument of the wrong type (a string where a :class:`~skitgubbe.Move` is needed …).

    Also a :class:`TypeError`.

    >>> isinstance(ArgumentTypeError("a seat is an int, not 'two'"), TypeError)
    True
    """


class FieldError(SkitgubbeError, ValueError):
    """A value refused because of one field, named by ``field`` (``None`` when no single
    field is to blame): the base of :class:`RulesError` and of the engine protocol's
    ``ProtocolError``.

    >>> error = FieldError("seat must be an int, not '0'", "seat")
    >>> error.field, isinstance(error, ValueError)
    ('seat', True)
    """

    field: str | None

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.args[0], self.field), self.__dict__)


class RulesError(FieldError):
    """A :class:`~skitgubbe.game.rules.Rules` value or combination that is not allowed.

    ``field`` is the name of the offending field (or unknown keyword), or
    ``None`` when no single field is to blame.

    >>> error = RulesError("Rules.hand_size must be 3 or 5; got 4", "hand_size")
    >>> error.field
    'hand_size'
    """


class StateError(FieldError):
    """A game from outside the process (an unpickled :class:`~skitgubbe.Game`) that
    the engine cannot have made: its state fails the C core's whole-state check
    (``sg_state_check``), or its pickled rules, start, moves or slough do not fit it.

    ``field`` names what is at fault: a member of the core's state (``"table_len"``,
    ``"follower"`` …), or a part of the pickle (``"rules"``, ``"start"``,
    ``"events"``, ``"seed"``, ``"moves"``, ``"slough"``); ``None`` for bytes that
    are no state at all.

    >>> error = StateError("not a state of a game: its 'table_len' is wrong", "table_len")
    >>> error.field, isinstance(error, ValueError)
    ('table_len', True)
    """


class ParseError(SkitgubbeError, ValueError):
    """Text (or a numeric code) that does not describe a card, card set or move.

    ``text`` is the whole input that was rejected (for a code, its ``repr``).

    >>> error = ParseError("not a card: '1H'", "1H")
    >>> error.text
    '1H'
    """

    text: str

    def __init__(self, message: str, text: str) -> None:
        super().__init__(message)
        self.text = text

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.args[0], self.text), self.__dict__)


class ParseTypeError(ParseError, ArgumentTypeError):
    """A value of the wrong type where a card, card set or move is parsed (``Card.parse(7)``).

    Both a :class:`ParseError` (``text`` is the value's ``repr``), so code that
    catches bad input keeps working, and a :class:`TypeError`, as a wrong type
    is everywhere else.

    >>> error = ParseTypeError("not card text: 7; expected a str", "7")
    >>> isinstance(error, ParseError), isinstance(error, TypeError), error.text
    (True, True, '7')
    """


class IllegalMoveError(SkitgubbeError, ValueError):
    """A move that is not legal in the position it was played in.

    Keeps the ``move``, the ``reason`` it is illegal and the ``legal_moves`` of
    the position (a tuple), so a caller can show the choice or retry.

    >>> from skitgubbe.game.moves import Move
    >>> error = IllegalMoveError(
    ...     "illegal move 7♥: not in hand",
    ...     Move.parse("7H"),
    ...     "not in hand",
    ...     [Move.parse("8H"), Move.flip()],
    ... )
    >>> error.move, error.reason
    (Move.parse('7♥'), 'not in hand')
    >>> error.legal_moves
    (Move.parse('8♥'), Move.flip())
    """

    move: Move
    reason: str
    legal_moves: tuple[Move, ...]

    def __init__(self, message: str, move: Move, reason: str, legal: Iterable[Move]) -> None:
        super().__init__(message)
        self.move = move
        self.reason = reason
        self.legal_moves = tuple(legal)

    def __reduce__(self) -> tuple[Any, ...]:
        return (
            type(self),
            (self.args[0], self.move, self.reason, self.legal_moves),
            self.__dict__,
        )


class IllegalActionError(SkitgubbeError, ValueError):
    """An integer action that is not legal in the position it was taken in.

    Keeps the ``action``, the ``reason`` and the ``legal_actions`` of the
    position (a tuple, ascending). See :mod:`skitgubbe.game.actions`.

    >>> error = IllegalActionError("illegal action 7: not in hand", 7, "not in hand", [3, 507])
    >>> error.action, error.reason, error.legal_actions
    (7, 'not in hand', (3, 507))
    """

    action: int
    reason: str
    legal_actions: tuple[int, ...]

    def __init__(self, message: str, action: int, reason: str, legal: Iterable[int]) -> None:
        super().__init__(message)
        self.action = action
        self.reason = reason
        self.legal_actions = tuple(legal)

    def __reduce__(self) -> tuple[Any, ...]:
        return (
            type(self),
            (self.args[0], self.action, self.reason, self.legal_actions),
            self.__dict__,
        )


class PlayerError(SkitgubbeError):
    """A player that raised, or answered something that is not a legal move.

    ``seat`` is the player's seat, ``cause`` the exception it raised (if any)
    and ``answer`` what it returned (if it returned at all).

    >>> error = PlayerError("seat 1 answered 42, not a Move", 1, answer=42)
    >>> error.seat, error.cause, error.answer
    (1, None, 42)
    """

    seat: int
    cause: BaseException | None
    answer: object

    def __init__(
        self,
        message: str,
        seat: int,
        cause: BaseException | None = None,
        answer: object = None,
    ) -> None:
        super().__init__(message)
        self.seat = seat
        self.cause = cause
        self.answer = answer

    def __reduce__(self) -> tuple[Any, ...]:
        return (
            type(self),
            (self.args[0], self.seat, self.cause, self.answer),
            self.__dict__,
        )


class DisconnectedError(ConnectionError):
    """Raised by an asynchronous player (:class:`~skitgubbe.AsyncPlayer`) whose person has gone.

    Any ``ConnectionError`` (and a ``choose`` that ends cancelled) counts as a
    disconnect; this class is the one to raise on purpose. It is the player's
    error, not the library's: a :class:`ConnectionError`, not a
    :class:`SkitgubbeError`.

    >>> import pickle
    >>> error = pickle.loads(pickle.dumps(DisconnectedError("seat 1 closed the socket")))
    >>> isinstance(error, ConnectionError), str(error)
    (True, 'seat 1 closed the socket')
    """


class PlayerTimeoutError(PlayerError):
    """A seat did not answer within its time limit.

    Raised by :func:`~skitgubbe.play_game_async` with ``on_timeout="raise"``,
    and by :func:`~skitgubbe.play_game` (and :meth:`Referee.run
    <skitgubbe.Referee.run>`) with a ``timeout``; the arena records it as the
    reason a bot lost a game. ``seat`` is the seat and ``timeout`` the limit in
    seconds. Nothing was played: the game is at the position where ``seat`` is
    to move.

    >>> error = PlayerTimeoutError("seat 1 did not answer within 30 s", 1, 30.0)
    >>> error.seat, error.timeout, isinstance(error, PlayerError)
    (1, 30.0, True)
    """

    timeout: float

    def __init__(self, message: str, seat: int, timeout: float) -> None:
        super().__init__(message, seat)
        self.timeout = timeout

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.args[0], self.seat, self.timeout), self.__dict__)


class PlayerDisconnectedError(PlayerError):
    """A seat disconnected.

    Raised by :func:`~skitgubbe.play_game_async` with ``on_disconnect="raise"``:
    ``choose`` (or a hook) raised a ``ConnectionError`` such as
    :class:`DisconnectedError`, or ended cancelled; ``cause`` is that exception.
    Nothing was played: the game is at the position where ``seat`` is to move
    (or over, when it was ``game_ended`` that failed).

    >>> error = PlayerDisconnectedError("seat 2 disconnected", 2, DisconnectedError("gone"))
    >>> error.seat, type(error.cause).__name__
    (2, 'DisconnectedError')
    """

    def __init__(self, message: str, seat: int, cause: BaseException | None = None) -> None:
        super().__init__(message, seat, cause=cause)

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.args[0], self.seat, self.cause), self.__dict__)


class EngineError(SkitgubbeError):
    """An engine process (:class:`~skitgubbe.engine.EnginePlayer`) that broke down.

    ``kind`` says how: ``"start"`` (the command could not be run), ``"handshake"``
    (no proper ``id`` or ``readyok`` in time), ``"timeout"`` (no move in time: see
    :class:`EngineTimeoutError`), ``"exit"`` (the engine exited or closed its
    standard output), ``"garbage"`` (a line that is not a JSON message),
    ``"oversized"`` (a line longer than the limit) or ``"protocol"`` (a known
    message with a bad field). ``returncode`` is the process's exit status once
    it was reaped (negative: the signal that ended it; ``None``: never started),
    ``stderr`` the tail of its standard error (about 4 kB). The referee has
    killed the engine's process group by the time this is raised.

    >>> import pickle
    >>> error = EngineError("engine 'x' exited: exit code 3", "exit", 3, "bye\\n")
    >>> copy = pickle.loads(pickle.dumps(error))
    >>> copy.kind, copy.returncode, copy.stderr, str(copy)
    ('exit', 3, 'bye\\n', "engine 'x' exited: exit code 3")
    """

    kind: str
    returncode: int | None
    stderr: str

    def __init__(
        self, message: str, kind: str, returncode: int | None = None, stderr: str = ""
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.returncode = returncode
        self.stderr = stderr

    def __reduce__(self) -> tuple[Any, ...]:
        return (
            type(self),
            (self.args[0], self.kind, self.returncode, self.stderr),
            self.__dict__,
        )


class EngineTimeoutError(EngineError):
    """An engine that did not answer a ``go`` within its time: ``limit`` seconds (its
    move time or remaining game time, whichever was less; the grace came on top).

    The referee (:func:`~skitgubbe.play_game`, :func:`~skitgubbe.play_game_async`)
    reports it as a :class:`PlayerTimeoutError` of the seat, and the asyncio runner's
    stand-in can take over as for any timeout.

    >>> import pickle
    >>> error = EngineTimeoutError("engine 'x' timeout: no move within 0.5 s", 0.5, -9, "")
    >>> copy = pickle.loads(pickle.dumps(error))
    >>> copy.kind, copy.limit, copy.returncode, isinstance(copy, EngineError)
    ('timeout', 0.5, -9, True)
    """

    limit: float

    def __init__(
        self, message: str, limit: float, returncode: int | None = None, stderr: str = ""
    ) -> None:
        super().__init__(message, "timeout", returncode, stderr)
        self.limit = limit

    def __reduce__(self) -> tuple[Any, ...]:
        return (
            type(self),
            (self.args[0], self.limit, self.returncode, self.stderr),
            self.__dict__,
        )


class RecordError(SkitgubbeError, ValueError):
    """A game record that fails validation.

    ``move_index`` is the 0-based index of the offending move in the record,
    or ``None`` when the problem is not in a move (e.g. a bad header).

    >>> error = RecordError("move 12 (7♥) is illegal: not in hand", 12)
    >>> error.move_index
    12
    """

    move_index: int | None

    def __init__(self, message: str, move_index: int | None = None) -> None:
        super().__init__(message)
        self.move_index = move_index

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.args[0], self.move_index), self.__dict__)


class PolicyError(SkitgubbeError):
    """A rollout policy or evaluation of the search's (:mod:`skitgubbe.bots.policy`) that failed:
    a C source that does not compile (the message holds the compiler's), one compiled for
    another version of ``skitgubbe_policy.h``, or one that answered out of range or raised
    during a search, which then stopped. ``policy`` names it.

    >>> error = PolicyError("policy 'low.c:choose' returned move index 7 of 3", "low.c:choose")
    >>> error.policy
    'low.c:choose'
    """

    policy: str

    def __init__(self, message: str, policy: str = "") -> None:
        super().__init__(message)
        self.policy = policy

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.args[0], self.policy), self.__dict__)


class ConcurrentUseError(SkitgubbeError, RuntimeError):
    """An object that serves one caller at a time was called while a call was still inside it.

    A :class:`~skitgubbe.learn.vector.VectorEnv` steps its games in C without the GIL, so
    a second thread could otherwise change them under the first; it refuses the
    second call instead (and so does a call made from inside its own step, by a
    policy of the caller's). Nothing changed: retry once the other call is done,
    or give each thread an environment of its own. Also a :class:`RuntimeError`.

    >>> isinstance(ConcurrentUseError("VectorEnv is in use by another thread"), RuntimeError)
    True
    """
