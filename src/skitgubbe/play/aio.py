"""Play games inside an asyncio program: await human seats, mix in bots, push updates.

:func:`play_game_async` is the asyncio twin of :func:`~skitgubbe.play_game`.
A seat is an :class:`AsyncPlayer` (``async def choose(observation) -> Move``:
a person answering over a websocket or HTTP, awaited without threads) or any
ordinary synchronous :class:`~skitgubbe.Player` (the bots), called in the loop;
wrap a slow bot in :class:`AsyncBot` with ``in_thread=True`` so its search runs
in a worker thread and the loop stays responsive.

A seat that times out or disconnects never costs game state: by default the
runner raises :class:`~skitgubbe.PlayerTimeoutError` or
:class:`~skitgubbe.PlayerDisconnectedError` (both :class:`~skitgubbe.PlayerError`,
with the seat) and leaves the game exactly
where that seat is to move, so a server that passed ``game=`` can resume it
with the same call once the person is back. With ``on_timeout="bot"`` or
``on_disconnect="bot"`` a stand-in bot moves for the seat instead. The
``on_event`` callback receives a :class:`TableUpdate` per seat and one for
spectators after every move, each holding only what its viewer may see.

>>> import asyncio
>>> import skitgubbe as sg
>>> class Human:
...     '''A person whose answers arrive through a queue (from a socket, say).'''
...     def __init__(self) -> None:
...         self.moves: asyncio.Queue[sg.Move] = asyncio.Queue()
...     async def choose(self, observation: sg.Observation) -> sg.Move:
...         self.moves.put_nowait(observation.legal_moves[0])  # the person "answers"
...         return await self.moves.get()
>>> async def main() -> sg.GameResult:
...     table = [Human(), sg.bots.GreedyBot(), sg.bots.RandomBot(seed=2)]
...     return await sg.play_game_async(table, seed=7, move_time=30)
>>> result = asyncio.run(main())
>>> sorted(result.finish_order) == [0, 1, 2] or result.truncated
True
"""

from __future__ import annotations

import asyncio
import inspect
import threading
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from typing import Any, Final, Literal, Protocol, TypeVar, runtime_checkable

import attrs

from .. import bots
from .._limits import NOT_GIVEN, NotGiven, check_move_time, move_time_or_timeout
from ..errors import (
    ArgumentError,
    ArgumentTypeError,
    DisconnectedError,
    EngineTimeoutError,
    PlayerDisconnectedError,
    PlayerError,
    PlayerTimeoutError,
)
from ..game.events import Event
from ..game.moves import Move
from ..game.observation import Observation
from ..game.rules import Rules
from ..game.state import Game, GameResult
from .players import Player
from .referee import PlayerCall, Referee

__all__ = [
    "AsyncBot",
    "AsyncPlayer",
    "DisconnectedError",
    "PlayerDisconnectedError",
    "PlayerTimeoutError",
    "TableUpdate",
    "play_game_async",
]

_T = TypeVar("_T")

Policy = Literal["raise", "bot"]
"""What the runner does when a seat times out or disconnects."""

_POLICIES: Final = ("raise", "bot")


@runtime_checkable
class AsyncPlayer(Protocol):
    """A seat whose answer is awaited: ``async def choose(observation) -> Move``.

    ``choose`` gets the observation of the player's seat (with
    ``legal_moves`` filled in) and returns one of those moves, taking as long
    as it likes (the runner's ``move_time`` bounds it). Two optional hooks are
    awaited when present: ``async def game_started(observation)`` at the start
    of every :func:`play_game_async` call (also when a game is resumed, so a
    reconnected person gets the position) and ``async def game_ended(observation,
    result)`` at the end. Raise :class:`~skitgubbe.DisconnectedError` (or any
    ``ConnectionError``) from ``choose`` when the person is gone.

    >>> import asyncio, skitgubbe as sg
    >>> class FirstMove:
    ...     async def choose(self, observation: sg.Observation) -> sg.Move:
    ...         await asyncio.sleep(0)  # a real seat awaits a socket here
    ...         return observation.legal_moves[0]
    >>> isinstance(FirstMove(), sg.AsyncPlayer)
    True
    >>> game = sg.Game.new(seed=1)
    >>> asyncio.run(FirstMove().choose(game.observation(0))) in game.legal_moves
    True
    """

    async def choose(self, observation: Observation) -> Move:
        """Return one of ``observation.legal_moves``."""
        ...


class AsyncBot:
    """A synchronous :class:`~skitgubbe.Player` made awaitable.

    By default the bot's ``choose`` runs in the event loop (right for cheap
    bots: ``random``, ``greedy``). With ``in_thread=True`` it runs in a worker
    thread (:func:`asyncio.to_thread`) so a searching bot (ISMCTS, PIMC: their
    C search releases the GIL) does not stall the loop. Calls into one bot never
    overlap, even when a timed-out search is still finishing in its thread.
    The bot's ``game_started``/``game_ended`` hooks are passed on when it has them.

    >>> import asyncio, skitgubbe as sg
    >>> bot = AsyncBot(sg.bots.ISMCTSBot(iterations=100, seed=1), in_thread=True)
    >>> bot
    AsyncBot(ISMCTSBot(...), in_thread=True)
    >>> game = sg.Game.new(seed=3)
    >>> asyncio.run(bot.choose(game.observation(0))) in game.legal_moves
    True
    """

    def __init__(self, bot: Player, *, in_thread: bool = False) -> None:
        if not callable(getattr(bot, "choose", None)):
            raise ArgumentTypeError(f"AsyncBot needs a Player with choose(), not {bot!r}")
        self.bot = bot
        self.in_thread = in_thread
        self._lock = threading.Lock()

    def _locked(self, method: Callable[..., _T], *args: Any) -> _T:
        with self._lock:
            return method(*args)

    async def _run(self, method: Callable[..., _T], *args: Any) -> _T:
        if self.in_thread:
            return await asyncio.to_thread(self._locked, method, *args)
        return self._locked(method, *args)

    async def choose(self, observation: Observation) -> Move:
        """The wrapped bot's move."""
        return await self._run(self.bot.choose, observation)

    async def game_started(self, observation: Observation) -> None:
        """Pass the start of a game on to the bot, if it listens."""
        hook = getattr(self.bot, "game_started", None)
        if hook is not None:
            await self._run(hook, observation)

    async def game_ended(self, observation: Observation, result: GameResult) -> None:
        """Pass the end of a game on to the bot, if it listens."""
        hook = getattr(self.bot, "game_ended", None)
        if hook is not None:
            await self._run(hook, observation, result)

    def __repr__(self) -> str:
        return f"AsyncBot({self.bot!r}, in_thread={self.in_thread})"


@attrs.frozen
class TableUpdate:
    """What one viewer learns from one move (or, at the start of a run, so far).

    ``viewer`` is the seat this update is for, or ``None`` for spectators.
    ``seat`` moved ``move`` (both ``None`` in the opening update of a
    :func:`play_game_async` call); ``events`` are that move's events as the
    viewer sees them: a seat's are the new part of its own
    ``Observation.history``, a spectator's hide every dealt or drawn card.
    ``observation`` is the viewer's observation after the move (``None`` for
    spectators); ``to_move``, ``moves_played`` and ``result`` are public.
    ``stand_in`` is ``"timeout"`` or ``"disconnect"`` when the stand-in bot
    moved for ``seat``, else ``None``.

    >>> import asyncio, skitgubbe as sg
    >>> updates: list[TableUpdate] = []
    >>> async def record(update: TableUpdate) -> None:
    ...     updates.append(update)
    >>> bots = [sg.bots.GreedyBot() for _ in range(3)]
    >>> result = asyncio.run(sg.play_game_async(bots, seed=1, on_event=record))
    >>> opening = updates[0]  # seat 0's view of the game so far
    >>> opening.viewer, opening.move, [str(e) for e in opening.events][:2]
    (0, None, ['seat 0 is dealt ...', 'seat 1 is dealt 3 cards'])
    >>> mover, spectator = updates[4], updates[7]  # the first move, two views of it
    >>> str(mover.move), [str(e) for e in mover.events]
    ('6♥', ['seat 0 plays 6♥', 'seat 0 draws 5♦'])
    >>> spectator.viewer, [str(e) for e in spectator.events]
    (None, ['seat 0 plays 6♥', 'seat 0 draws 1 card'])
    >>> updates[-1].result == result
    True
    """

    viewer: int | None
    seat: int | None
    move: Move | None
    events: tuple[Event, ...]
    observation: Observation | None
    to_move: int | None
    moves_played: int
    result: GameResult | None
    stand_in: Literal["timeout", "disconnect"] | None = None


class _TimedOutError(Exception):
    """The seat's awaitable did not finish in time."""


class _GoneError(Exception):
    """The seat disconnected: its awaitable raised ConnectionError or ended cancelled."""

    def __init__(self, cause: BaseException) -> None:
        super().__init__(cause)
        self.cause = cause


class _FailedError(Exception):
    """The seat's awaitable raised any other exception."""

    def __init__(self, cause: BaseException) -> None:
        super().__init__(cause)
        self.cause = cause


def _retrieve(task: asyncio.Future[Any]) -> None:
    # A seat's task abandoned on cancellation may still fail; reading the
    # exception keeps asyncio from logging "exception was never retrieved".
    if not task.cancelled():
        task.exception()


async def _settle(call: Coroutine[Any, Any, _T], limit: float | None) -> _T:
    """Await ``call`` in its own task, within ``limit`` seconds, classifying how it ends.

    Cancelling the caller cancels the seat's task too (and propagates); a seat
    task that ends cancelled on its own is a disconnect.
    """
    task = asyncio.ensure_future(call)
    task.add_done_callback(_retrieve)
    try:
        done, _ = await asyncio.wait({task}, timeout=limit)
    except BaseException:
        task.cancel()
        raise
    if not done:
        task.cancel()
        await asyncio.wait({task})
        raise _TimedOutError
    if task.cancelled():
        raise _GoneError(asyncio.CancelledError())
    error = task.exception()
    if error is None:
        return task.result()
    if isinstance(error, ConnectionError):
        raise _GoneError(error)
    if isinstance(error, Exception):
        raise _FailedError(error)
    raise error


async def _perform(call: PlayerCall[AsyncPlayer | Player]) -> object:
    """Make ``call``, awaiting what it returns when that is awaitable."""
    outcome: object = call()
    if inspect.isawaitable(outcome):
        outcome = await outcome
    return outcome


async def _tell(on_event: Callable[[TableUpdate], object], update: TableUpdate) -> None:
    outcome = on_event(update)
    if inspect.isawaitable(outcome):
        await outcome


def _limits(move_time: object, name: str, players: int) -> list[float | None]:
    """Each seat's move time: one for all (a number or None), or one per seat (a
    sequence), each checked by :func:`~skitgubbe._limits.check_move_time`."""
    if not isinstance(move_time, Sequence) or isinstance(move_time, str):
        return [check_move_time(move_time, name)] * players
    limits = [check_move_time(limit, f"{name}[{seat}]") for seat, limit in enumerate(move_time)]
    if len(limits) != players:
        raise ArgumentError(
            f"{name} lists one limit per seat: {players} needed, {len(limits)} given"
        )
    return limits


def _stand_ins(fallback: Player | AsyncPlayer | str, players: int) -> list[Player | AsyncPlayer]:
    if isinstance(fallback, str):
        return [bots.make(fallback, seed=seat) for seat in range(players)]
    if not callable(getattr(fallback, "choose", None)):
        raise ArgumentTypeError(f"fallback must be a bot spec or a player, not {fallback!r}")
    return [fallback] * players


async def play_game_async(
    lineup: Sequence[AsyncPlayer | Player],
    rules: Rules | None = None,
    *,
    seed: int | None = None,
    game: Game | None = None,
    move_time: float | Sequence[float | None] | None = None,
    timeout: float | Sequence[float | None] | NotGiven | None = NOT_GIVEN,
    on_timeout: Policy = "raise",
    on_disconnect: Policy = "raise",
    fallback: Player | AsyncPlayer | str = "greedy",
    on_event: Callable[[TableUpdate], Awaitable[None] | None] | None = None,
) -> GameResult:
    """Play a game to the end in the event loop (seat ``i`` is ``lineup[i]``).

    A new game is dealt from ``seed`` (with ``rules``, by default the classic
    rules for ``len(lineup)``), or the given ``game`` is played on in place:
    pass your own ``game`` when you may want to resume it. Each seat's
    ``choose(observation)`` is awaited (an :class:`AsyncPlayer`) or called
    (a synchronous :class:`~skitgubbe.Player`, in the loop; see
    :class:`AsyncBot` for slow bots). Optional ``game_started`` and
    ``game_ended`` hooks, sync or async, are called at the start and end of
    every call.

    ``move_time`` bounds each answer in seconds: one number for every seat, or
    one per seat (``None``: wait forever), each a positive, finite number or
    ``None`` (else an :class:`~skitgubbe.ArgumentError`, as in
    :func:`~skitgubbe.play_game`; ``timeout`` is its old name, deprecated for
    one release); it bites only while ``choose`` awaits
    (a bot computing in the loop cannot be interrupted). When a seat runs out
    of time its ``choose`` is cancelled and, by ``on_timeout``:

    * ``"raise"`` (default): :class:`~skitgubbe.PlayerTimeoutError` is raised
      with the seat;
    * ``"bot"``: the stand-in bot plays this one move for the seat, and the
      seat's player is asked again at its next turn.

    An :class:`~skitgubbe.EngineTimeoutError` from ``choose`` (an engine process,
    :class:`~skitgubbe.engine.EnginePlayer`, that missed its own clock) is a timeout
    too, handled by ``on_timeout`` the same way (raised as a
    :class:`~skitgubbe.PlayerTimeoutError` with the engine's limit).

    A seat whose ``choose`` (or hook) raises a ``ConnectionError`` such as
    :class:`~skitgubbe.DisconnectedError`, or ends cancelled, has disconnected; by
    ``on_disconnect``:

    * ``"raise"`` (default): :class:`~skitgubbe.PlayerDisconnectedError` is
      raised with the seat and the cause;
    * ``"bot"``: the stand-in bot plays the seat for the rest of this call and
      the seat's player is not called again (not even ``game_ended``).

    Any other exception from a player, or an answer that is not one of its
    legal moves, is a :class:`~skitgubbe.PlayerError`, as in
    :func:`~skitgubbe.play_game` (never handed to the stand-in: a bug should
    show). Whenever a seat fails in ``choose``, nothing is played for it:
    ``game`` is left exactly at the position where that seat is to move, and
    ``play_game_async(lineup, game=game)`` resumes it. Cancelling the call
    leaves the game the same way (the waiting seat's ``choose`` is cancelled
    with it). The stand-in is ``fallback``: a bot spec for
    :func:`skitgubbe.bots.make` (one bot per seat), or a player shared by the
    seats.

    ``on_event`` (sync or async) gets a :class:`TableUpdate` for every seat
    and then one for spectators at the start of the call and after every
    move; each holds only what its viewer may see. An exception from it
    propagates (the move it reported has been played).

    >>> import asyncio, skitgubbe as sg
    >>> class Silent:
    ...     '''A person who never answers.'''
    ...     async def choose(self, observation: sg.Observation) -> sg.Move:
    ...         await asyncio.Event().wait()
    ...         raise AssertionError("unreachable")
    >>> game = sg.Game.new(seed=5)
    >>> table = [sg.bots.GreedyBot(), Silent(), sg.bots.GreedyBot()]
    >>> asyncio.run(sg.play_game_async(table, game=game, move_time=0.01))
    Traceback (most recent call last):
        ...
    skitgubbe.errors.PlayerTimeoutError: seat 1 (Silent) did not answer within 0.01 s
    >>> game.to_move, game.moves_played
    (1, 1)
    >>> table[1] = sg.bots.GreedyBot()  # the person is back (here: a bot)
    >>> result = asyncio.run(sg.play_game_async(table, game=game))
    >>> result == game.result
    True
    >>> stand_in = asyncio.run(
    ...     sg.play_game_async([Silent()] * 3, seed=5, move_time=0.01, on_timeout="bot")
    ... )
    >>> stand_in.loser in (0, 1, 2) or stand_in.truncated
    True
    """
    referee: Referee[AsyncPlayer | Player] = Referee(lineup, rules, seed=seed, game=game)
    game = referee.game
    count = game.players
    for name, policy in (("on_timeout", on_timeout), ("on_disconnect", on_disconnect)):
        if policy not in _POLICIES:
            raise ArgumentError(f"{name} must be 'raise' or 'bot', not {policy!r}")
    value, name = move_time_or_timeout(move_time, timeout)
    limits = _limits(value, name, count)
    wants_bot = "bot" in (on_timeout, on_disconnect)
    stand_ins = _stand_ins(fallback, count) if wants_bot else []
    gone = [False] * count  # seats the stand-in holds after a disconnect

    def disconnected(call: PlayerCall[AsyncPlayer | Player], cause: BaseException) -> None:
        if on_disconnect == "raise":
            raise call.disconnected(cause) from cause
        gone[call.seat] = True

    for call in referee.start():
        try:
            await _settle(_perform(call), None)
        except _GoneError as exc:
            disconnected(call, exc.cause)
        except _FailedError as exc:
            raise call.failed(exc.cause) from exc.cause

    seen = [0] * count

    async def report(
        mover: int | None, move: Move | None, stand_in: Literal["timeout", "disconnect"] | None
    ) -> None:
        assert on_event is not None
        public: tuple[Event, ...] = ()
        to_move, played, result = game.to_move, game.moves_played, game.result
        for viewer in range(count):
            observation = game.observation(viewer)
            events = observation.history[seen[viewer] :]
            seen[viewer] = len(observation.history)
            if viewer == 0:
                # Spectators: seat 0's view with seat 0's own cards hidden too, so
                # even their events come from a seat's history, never the referee's.
                public = tuple([event.redacted() for event in events])
            update = TableUpdate(
                viewer, mover, move, events, observation, to_move, played, result, stand_in
            )
            await _tell(on_event, update)
        spectators = TableUpdate(None, mover, move, public, None, to_move, played, result, stand_in)
        await _tell(on_event, spectators)

    if on_event is not None:
        await report(None, None, None)

    while (turn := referee.turn()) is not None:
        seat = turn.seat
        stand_in: Literal["timeout", "disconnect"] | None = "disconnect" if gone[seat] else None
        if stand_in is None:
            try:
                answer = await _settle(_perform(turn), limits[seat])
            except _TimedOutError:
                if on_timeout == "raise":
                    raise turn.timed_out(limits[seat] or 0.0) from None
                stand_in = "timeout"
            except _GoneError as exc:
                disconnected(turn, exc.cause)
                stand_in = "disconnect"
            except _FailedError as exc:
                # An engine process that ran out of its time is a timeout like ours.
                if not isinstance(exc.cause, EngineTimeoutError) or on_timeout == "raise":
                    raise turn.failed(exc.cause) from exc.cause
                stand_in = "timeout"
        if stand_in is not None:
            turn = turn.instead(stand_ins[seat], stand_in)
            try:
                answer = await _settle(_perform(turn), None)
            except (_GoneError, _FailedError) as exc:
                raise turn.failed(exc.cause) from exc.cause
        referee.accept(turn, answer)
        if on_event is not None:
            assert isinstance(answer, Move)  # accept took it
            await report(seat, answer, stand_in)

    first_error: PlayerError | None = None
    for call in referee.finish():
        if gone[call.seat]:
            continue
        try:
            await _settle(_perform(call), None)
        except (_GoneError, _FailedError) as exc:
            if isinstance(exc, _GoneError) and on_disconnect == "bot":
                continue
            if first_error is None:
                first_error = (
                    call.disconnected(exc.cause)
                    if isinstance(exc, _GoneError)
                    else call.failed(exc.cause)
                )
    if first_error is not None:
        raise first_error
    result = referee.result
    assert result is not None
    return result
