"""Tables: a game, its seats and its watchers, played in the event loop.

A :class:`Table` knows nothing of HTTP: it is given :class:`Connection` objects
(anything with ``async send(message)``) for seats and spectators, and moves
through :meth:`Table.submit`. Every move is written to the :class:`Store`
before any connection hears of it; :meth:`Lobby.restore
<skitgubbe.server.lobby.Lobby.restore>` rebuilds every table from the store after a
restart, and play goes on (the lobby, :mod:`skitgubbe.server.lobby`, was in this module
before; ``skitgubbe.server.tables.Lobby`` still finds it).

A table plays on a :class:`~skitgubbe.Referee`, the package's one table loop: the
referee opens each turn, a bot's seat is asked (in the loop, or in a worker thread
for a search or an engine), a person's waits for :meth:`Table.submit`, and every
answer, the stand-in's too, is checked and played by
:meth:`Referee.accept <skitgubbe.Referee.accept>`. The table adds what a server
needs around it: the store, the frames each viewer may see, the clocks.

Messages to a seat carry only what the seat's :class:`~skitgubbe.Observation`
allows (its JSON, as in the engine protocol, without the raw ``core_view``);
spectators get the public part of the table and events with every dealt or
drawn card hidden, after ``spectator_delay`` seconds.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import hmac
import logging
import secrets
from collections.abc import Callable, Coroutine, Mapping, Sequence
from typing import Any, Final, Protocol

import attrs

from .. import bots
from ..bots.command import EngineSpec
from ..engine import protocol
from ..errors import PlayerError, SkitgubbeError
from ..game.events import Event
from ..game.moves import Move
from ..game.observation import Observation
from ..game.state import Game
from ..play.players import Player
from ..play.referee import PlayerCall, Referee
from .advice import Advisor
from .commits import GroupCommit, retrying

# The names moved to skitgubbe.server.config and .errors in 0.1.0 (``X as X``) stay
# importable from here for one release.
from .config import BOT_PREFIX, CHEAP_BOTS
from .config import ENGINE_PREFIX as ENGINE_PREFIX
from .config import MAX_BOT_ITERATIONS as MAX_BOT_ITERATIONS
from .config import MAX_BOT_SECONDS as MAX_BOT_SECONDS
from .config import MAX_MOVES as MAX_MOVES
from .config import MAX_PLAYERS as MAX_PLAYERS
from .config import MAX_SPEC as MAX_SPEC
from .config import MIN_PLAYERS as MIN_PLAYERS
from .config import TableConfig as TableConfig
from .config import bot_cost as bot_cost
from .errors import TableError as TableError
from .errors import shorten
from .frames import distinct_names, public_json, seat_json
from .store import Store, StoredSeat, StoredTable, StoreError

__all__ = ["Connection", "Table", "hash_token"]

MAX_NAME: Final = 40
"""The longest name a person may give, in characters."""
MAX_SPECTATORS: Final = 100
"""The most spectators a table takes at once (each holds ``spectator_delay`` seconds of
updates in memory)."""

_log: Final = logging.getLogger("skitgubbe.server")

# Stored moves are parsed again on every restart, and a few hundred texts cover them all.
_parse_move: Final = functools.lru_cache(maxsize=4096)(Move.parse)


class Connection(Protocol):
    """One viewer's socket, as a table sees it.

    >>> class Recorder:
    ...     def __init__(self) -> None:
    ...         self.sent: list = []
    ...     async def send(self, message) -> None:
    ...         self.sent.append(dict(message))
    ...     async def close(self, reason: str) -> None:
    ...         pass
    >>> import asyncio
    >>> from skitgubbe.server import Lobby, SQLiteStore
    >>> async def main() -> list:
    ...     lobby = Lobby(SQLiteStore(":memory:"))
    ...     table = lobby.create({"seats": [None, "greedy"]})
    ...     token = table.claim(0, "Ann")
    ...     recorder = Recorder()
    ...     await table.attach(table.seat_of(token), recorder)
    ...     return [message["type"] for message in recorder.sent]
    >>> asyncio.run(main())
    ['welcome']
    """

    async def send(self, message: Mapping[str, Any]) -> None:
        """Send one JSON message (raise ``ConnectionError`` when gone)."""

    async def close(self, reason: str) -> None:
        """Close the connection, saying why."""


def hash_token(token: str) -> str:
    """The SHA-256 of a seat token, as the store keeps it.

    >>> len(hash_token("secret")), hash_token("secret") == hash_token("secret")
    (64, True)
    """
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def _is_text(text: str) -> bool:
    """Whether ``text`` can be written as UTF-8 (JSON lets a lone surrogate through).

    >>> _is_text("Åsa"), _is_text("x\\ud800")
    (True, False)
    """
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


@attrs.define(eq=False)
class _Seat:
    """A seat of a table, as its :class:`~skitgubbe.Referee` seats it: a person's (whose
    answers come through :meth:`Table.submit`) or a bot's (asked through :meth:`choose`);
    the table's stand-in is one too. It has no ``game_started`` or ``game_ended`` hook: a
    seat's bot is asked for moves only."""

    claimed: StoredSeat | None
    bot: Player | None
    # An engine's process or an operator's bot: made at the seat's first move, in a
    # worker thread (it may start a program or read a file), and closed when play stops.
    start: Callable[[], Player] | None = None
    connection: Connection | None = None
    seen: int = 0  # how many of the seat's history events it has been sent

    def choose(self, observation: Observation) -> Move:
        """The seat's bot's move (a referee's turn calls this; never for a person's seat)."""
        if self.bot is None:
            raise TableError("this seat has no bot (a person's, or an engine not started)")
        return self.bot.choose(observation)


class Table:
    """One game being played (or waiting for its people), in the event loop.

    Made by a :class:`Lobby`; :meth:`start` begins play once every person's seat
    is claimed.

    >>> import asyncio
    >>> from skitgubbe.server import Lobby, SQLiteStore
    >>> async def main() -> tuple:
    ...     lobby = Lobby(SQLiteStore(":memory:"))
    ...     table = lobby.create({"seats": [None, "greedy"], "move_time": 0.05})
    ...     table.claim(0, "Ann")
    ...     table.start()  # nobody answers for Ann: a stand-in moves at each of her turns
    ...     await asyncio.wait_for(table.done.wait(), 60)
    ...     return table.status, table.moves_stored == table.game.moves_played
    >>> asyncio.run(main())
    ('over', True)
    """

    def __init__(
        self,
        stored: StoredTable,
        config: TableConfig,
        store: Store,
        *,
        commits: GroupCommit | None = None,
        engines: Mapping[str, EngineSpec] | None = None,
        named_bots: Mapping[str, str] | None = None,
        advisor: Advisor | None = None,
    ) -> None:
        self.id = stored.id
        self._advisor = advisor
        self.config = config
        self.store = store
        self._commits = commits or GroupCommit(store)
        self._pending: list[dict[str, Any]] = []  # moves played, not yet told
        self.status = stored.status
        self.created = stored.created
        self._seed = stored.seed
        game = Game.new(config.rules, seed=stored.seed, dealer=config.dealer)
        for index, text in enumerate(stored.moves):  # a restart: the game as stored
            try:
                game.play(_parse_move(text))
            except SkitgubbeError as error:
                raise TableError(
                    f"table {self.id}: stored move {index} {text!r}: {error}"
                ) from None
        engines, named_bots = engines or {}, named_bots or {}
        self._seats: list[_Seat] = []
        for seat, spec in enumerate(config.seats):
            if spec is None:
                self._seats.append(_Seat(stored.seats[seat], None))
            elif spec.startswith((ENGINE_PREFIX, BOT_PREFIX)):
                engine = engines.get(spec[len(ENGINE_PREFIX) :])
                named = named_bots.get(spec[len(BOT_PREFIX) :])
                start: Callable[[], Player]
                if spec.startswith(ENGINE_PREFIX) and engine is not None:
                    start = functools.partial(engine.player, seed=seat)
                elif spec.startswith(BOT_PREFIX) and named is not None:
                    start = functools.partial(bots.make, named, seed=seat)
                else:
                    raise TableError(f"table {self.id}: seat {seat}: this server has no {spec!r}")
                self._seats.append(_Seat(None, None, start))
            else:  # a plain spec: no file, import or compile (checked again: a config
                try:  # may be made without TableConfig.from_json)
                    bots.check_plain_spec(spec)
                except SkitgubbeError as error:
                    raise TableError(f"table {self.id}: seat {seat}: {error}") from None
                self._seats.append(_Seat(None, bots.make(spec, seed=seat)))
        self.game = game
        """The game; while it is played, it changes only through the referee's ``accept``."""
        # The table loop, while play runs (as play_game_async makes one a call): the
        # referee opens each seat's turn, checks and plays its answer. None otherwise, so
        # that a finished table keeps no record of its answers but the game.
        self._referee: Referee[_Seat] | None = None
        self._stand_in = _Seat(None, bots.make(config.stand_in, seed=len(config.seats)))
        self._spectators: set[Connection] = set()
        self._public_seen = 0  # seat 0's history events the spectators have been sent
        self._answer: asyncio.Future[Move | None] | None = None
        self._waiting: int | None = None  # the seat whose answer _answer awaits
        self._turn: PlayerCall[_Seat] | None = None  # its turn, once opened (_person_call)
        self._deadline: float | None = None  # loop time at which that seat's move is due
        # The hint of the turn the table awaits: its seat and move number, and the hint
        # once found (one search a turn however often it is asked; kept for the turn).
        self._hint: tuple[int, int, dict[str, Any] | None] | None = None
        self._task: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self.moves_stored = len(stored.moves)  # moves the store has committed
        self._start_stored = True  # whether the store knows the table is running
        # What the lobby shows (moves, result, over), spectator_delay seconds late. A table
        # restored with moves shows none of them until the delay has passed once more.
        self._shown: tuple[int, dict[str, Any] | None, bool] = (0, None, False)
        if self.game.moves_played and self.config.spectator_delay:
            self._publish()
        else:
            result = None if self.game.result is None else self.game.result.to_dict()
            self._shown = (self.game.moves_played, result, self.status == "over")
        self.rematch: str | None = None
        """The id of this table's rematch, once a person at it asked for one."""
        self.done = asyncio.Event()
        if self.status == "over":
            self.done.set()

    # -- the lobby's view -------------------------------------------------------------------

    @property
    def players(self) -> int:
        """How many seats."""
        return len(self.config.seats)

    def open_seats(self) -> list[int]:
        """The seats for people that nobody has claimed."""
        return [
            seat
            for seat, spec in enumerate(self.config.seats)
            if spec is None and self._seats[seat].claimed is None
        ]

    def summary(self) -> dict[str, Any]:
        """What the lobby lists: public, with no token and no card."""
        seats: list[dict[str, Any]] = []
        for seat, spec in enumerate(self.config.seats):
            claimed = self._seats[seat].claimed
            if spec is not None:
                seats.append({"kind": "bot", "name": spec})
            elif claimed is None:
                seats.append({"kind": "open", "name": None})
            else:
                seats.append(
                    {
                        "kind": "person",
                        "name": claimed.name,
                        "connected": self._seats[seat].connection is not None,
                    }
                )
        return {
            "id": self.id,
            "status": "running" if self.status == "over" and not self._shown[2] else self.status,
            "players": self.players,
            "seats": seats,
            "rules": self.config.rules.to_dict(),
            "move_time": self.config.move_time,
            "spectator_delay": self.config.spectator_delay,
            # As the spectators see it: spectator_delay seconds late.
            "moves": self._shown[0],
            "result": self._shown[1],
            "created": self.created,
            "hints": self.config.hints,
            "names": self.names(),
            "dealer": self.game.dealer,
            "after": self.config.after,
            "rematch": self.rematch if self._shown[2] else None,
        }

    def names(self) -> list[str]:
        """Each seat's name, told apart from the others: the person's name or the bot's spec
        (``"seat N"`` for a seat nobody has claimed yet), numbered where two seats would
        share one (two ``easy`` bots are ``easy 1`` and ``easy 2``).

        >>> from skitgubbe.server import Lobby, SQLiteStore
        >>> lobby = Lobby(SQLiteStore(":memory:"))
        >>> lobby.create({"seats": [None, "easy", "easy", "hard"]}).names()
        ['seat 0', 'easy 1', 'easy 2', 'hard']
        """
        return distinct_names(
            [
                (spec if spec is not None else (s.claimed.name if s.claimed else f"seat {i}"))
                for i, (spec, s) in enumerate(zip(self.config.seats, self._seats, strict=True))
            ]
        )

    # -- seats --------------------------------------------------------------------------------

    def claim(self, seat: object, name: object) -> str:
        """Give an open seat to a person; returns the seat's secret token (only its hash is
        stored: lose it and the seat is lost)."""
        if self.status != "open":
            raise TableError(f"table {self.id} has started", 409)
        if type(seat) is not int or seat not in self.open_seats():
            raise TableError(f"seat {shorten(seat)} is not open at table {self.id}", 409)
        if (
            not isinstance(name, str)
            or not 1 <= len(name.strip()) <= MAX_NAME
            or not _is_text(name)
            or not name.isprintable()
        ):
            raise TableError(f"a name is 1 … {MAX_NAME} printable characters")
        token = secrets.token_urlsafe(32)
        claimed = StoredSeat(hash_token(token), name.strip())
        self.store.claim(self.id, seat, claimed.token_hash, claimed.name)
        self._seats[seat].claimed = claimed
        return token

    def claimed_name(self, seat: int) -> str:
        """The name of the person at ``seat`` (:class:`TableError` for a seat nobody claimed).

        >>> from skitgubbe.server import Lobby, SQLiteStore
        >>> table = Lobby(SQLiteStore(":memory:")).create({"seats": [None, "easy"]})
        >>> _ = table.claim(0, "Ann")
        >>> table.claimed_name(0)
        'Ann'
        """
        claimed = self._seats[seat].claimed
        if claimed is None:
            raise TableError(f"seat {seat} of table {self.id} is nobody's")
        return claimed.name

    def seat_of(self, token: object) -> int:
        """The seat whose token this is; :class:`TableError` (403) for any other."""
        if isinstance(token, str) and len(token) <= 100 and _is_text(token):
            digest = hash_token(token)
            for seat, state in enumerate(self._seats):
                if state.claimed is not None and hmac.compare_digest(
                    state.claimed.token_hash, digest
                ):
                    return seat
        raise TableError("that token holds no seat at this table", 403)

    def leave(self, token: object) -> None:
        """Give a claimed seat back, before the game starts."""
        seat = self.seat_of(token)
        if self.status != "open":
            raise TableError("the game has started: a seat can no longer be left", 409)
        self.store.release(self.id, seat)
        self._seats[seat].claimed = None

    # -- connections ----------------------------------------------------------------------

    async def attach(self, seat: int, connection: Connection) -> None:
        """Connect a seat's socket (a reconnection replaces the old one) and send it the
        whole state: the welcome, every event it has seen, and its prompt if it is to move."""
        if self._pending:  # a move not stored yet is not shown either
            await self._commits.wait()
        state = self._seats[seat]
        old, state.connection = state.connection, connection
        if old is not None:
            await _quietly(old.close("the seat connected again elsewhere"))
        view = self._view(seat)
        state.seen = len(view.history)
        await connection.send(
            {
                "type": "welcome",
                "table": self.id,
                "seat": seat,
                "rules": self.config.rules.to_dict(),
                "hints": self.config.hints,
                "move_time": self.config.move_time,
                "history": [protocol.event_json(e) for e in view.history],
                **self._seat_state(seat, view),
            }
        )

    def detach(self, seat: int, connection: Connection) -> None:
        """A seat's socket closed (its seat stays; the clock runs on)."""
        if self._seats[seat].connection is connection:
            self._seats[seat].connection = None

    async def watch(self, connection: Connection) -> None:
        """Add a spectator: public state only, ``spectator_delay`` seconds late; at most
        :data:`MAX_SPECTATORS` at once (:class:`TableError`, 409, for one more)."""
        if len(self._spectators) >= MAX_SPECTATORS:
            raise TableError(f"table {self.id} has {MAX_SPECTATORS} spectators already", 409)
        if self._pending:  # a move not stored yet is not shown either
            await self._commits.wait()
        view = self.game.observation(0)
        if not self._spectators:  # the others' count stays: they have not seen the rest
            self._public_seen = len(view.history)
        self._spectators.add(connection)
        message = {
            "type": "welcome",
            "table": self.id,
            "seat": None,
            **self.seats_json(),
            "rules": self.config.rules.to_dict(),
            "hints": self.config.hints,
            "move_time": self.config.move_time,
            "history": [protocol.event_json(e.redacted()) for e in view.history],
            "public": public_json(view),
            "clock": self.clock(),
            "result": None if self.game.result is None else self.game.result.to_dict(),
        }
        if self.config.spectator_delay and self.game.moves_played:
            # What the table looked like spectator_delay ago is not kept: a late
            # spectator sees the table as it is once the delay has passed.
            self._later(self.config.spectator_delay, connection, message)
        else:
            await _quietly(connection.send(message))

    def unwatch(self, connection: Connection) -> None:
        """A spectator left."""
        self._spectators.discard(connection)

    # -- play -----------------------------------------------------------------------------

    def ready(self) -> bool:
        """Whether every person's seat is claimed."""
        return not self.open_seats()

    def start(self) -> None:
        """Begin (or, after a restart, resume) play in a task of the running loop."""
        if self._task is not None or self.status == "over":
            return
        if self.status == "open":
            if not self.ready():
                raise TableError(f"table {self.id} still has open seats", 409)
            try:
                self.store.start(self.id)
            except StoreError:
                self._start_stored = False  # play stores it first, as soon as the store can
            self.status = "running"
        self._task = asyncio.get_running_loop().create_task(self._play())

    async def stop(self) -> None:
        """Cancel play (a server shutting down); the stored game is untouched."""
        for task in [self._task, *self._tasks]:
            if task is not None:
                task.cancel()
        for task in [self._task, *self._tasks]:
            if task is not None:
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
        self._task = None
        await self._close_bots()

    async def _close_bots(self) -> None:
        """End the seats' engine processes and operator's bots (started again if the table
        plays on)."""
        for state in self._seats:
            if state.start is not None and state.bot is not None:
                bot, state.bot = state.bot, None
                closing = getattr(bot, "close", None)
                if closing is not None:
                    with contextlib.suppress(Exception):
                        await asyncio.to_thread(closing)

    def submit(self, seat: int, number: object, text: object) -> None:
        """A person's move: ``number`` is the move it answers (``moves_played`` when it was
        asked), ``text`` the move. The referee checks and plays it at once; anything else but
        a legal answer to the open turn is refused with :class:`TableError` and changes
        nothing."""
        answer = self._answer
        if not self._asked(seat) or answer is None:
            raise TableError("it is not your turn", 409)
        if type(number) is not int or number != self.game.moves_played:
            raise TableError(
                f"stale move: it answers move {number!r}, the game is at move "
                f"{self.game.moves_played}",
                409,
            )
        if not isinstance(text, str) or len(text) > 60:
            raise TableError("a move is a string such as '7H', '5C 5S', 'pick up' or 'flip'")
        try:
            move = Move.parse(text)
        except SkitgubbeError as error:
            raise TableError(str(error)) from None
        turn = self._person_call()
        try:
            self._accept(turn, move)
        except PlayerError:
            legal = ", ".join(str(m) for m in turn.observation.legal_moves)
            raise TableError(f"{move} is not legal now; legal: {legal}") from None
        answer.set_result(move)

    def ask_hint(self, seat: int, number: object) -> None:
        """The seat asks for a hint at its turn (``number``: the move it is asked, as in a
        move frame). The hint is worked out from the seat's own observation in a worker
        thread (:class:`~skitgubbe.server.advice.Advisor`) and sent to that seat alone as
        ``{"type": "hint", ...}`` (:func:`~skitgubbe.server.advice.hint`), if it is still
        that turn. One search a turn: asked again, the seat gets the same hint. Refused with
        :class:`TableError` at a table without hints (403) and when it is not the seat's
        turn or the number is stale (409).

        >>> import asyncio
        >>> from skitgubbe.server import Lobby, SQLiteStore, TableError
        >>> async def main() -> str:
        ...     lobby = Lobby(SQLiteStore(":memory:"))
        ...     table = lobby.create({"seats": [None, "greedy"]})  # no "hints": off
        ...     try:
        ...         table.ask_hint(0, 0)
        ...     except TableError as error:
        ...         return f"{error.status}: {error}"
        ...     return "no error"
        >>> print(asyncio.run(main()))
        403: this table gives no hints: it was created without them
        """
        if not self.config.hints or self._advisor is None:
            raise TableError("this table gives no hints: it was created without them", 403)
        if not self._asked(seat):
            raise TableError("a hint is for the seat to move, at its turn: it is not yours", 409)
        if type(number) is not int or number != self.game.moves_played:
            raise TableError(
                f"stale hint request: it asks about move {shorten(number)}, the game is at "
                f"move {self.game.moves_played}",
                409,
            )
        if self._hint is not None and self._hint[:2] == (seat, number):
            advice = self._hint[2]
            if advice is not None:  # found already: sent again
                self._in_task(self._send_hint(seat, number, advice))
            return  # under way: it is sent when it is found
        self._hint = (seat, number, None)
        # The seat's observation, the referee's turn's: the search is given nothing else.
        self._in_task(self._work_hint(seat, number, self._view(seat)))

    def _in_task(self, work: Coroutine[Any, Any, None]) -> None:
        """Run ``work`` in a task of the table's own (:meth:`stop` cancels it)."""
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _work_hint(self, seat: int, number: int, view: Observation) -> None:
        """Find the hint at ``view`` (in a worker thread) and send it to the seat."""
        assert self._advisor is not None  # ask_hint checked it
        try:
            advice = await self._advisor.hint(view)
        except Exception:  # a bug in the search: the seat is told, the table plays on
            _log.exception("table %s: the hint for seat %s failed", self.id, seat)
            if self._hint is not None and self._hint[:2] == (seat, number):
                self._hint = None  # it may be asked again
            state = self._seats[seat]
            if state.connection is not None:
                message = {"type": "error", "error": "the hint failed (a bug, logged)"}
                await _quietly(state.connection.send({**message, "code": "internal"}))
            return
        if self._hint is not None and self._hint[:2] == (seat, number):
            self._hint = (seat, number, advice)
        await self._send_hint(seat, number, advice)

    async def _send_hint(self, seat: int, number: int, advice: dict[str, Any]) -> None:
        """Send the seat its hint, if the table still awaits its answer to move ``number``."""
        state = self._seats[seat]
        if state.connection is None or not self._asked(seat) or self.game.moves_played != number:
            return  # the turn is over: the hint is of no use now
        await _quietly(state.connection.send({"type": "hint", **advice}))

    async def _play(self) -> None:
        """Run the game on the referee to its end. The seat to move is a bot's (the referee
        opens its turn and it is asked here) or a person's (its turn is opened when first
        needed, :meth:`_person_call`, and answered through :meth:`submit` or by the stand-in
        when the clock runs out); every answer goes through :meth:`_accept`."""
        try:
            if not self._start_stored:
                await retrying(functools.partial(self.store.start, self.id), self.id)
                self._start_stored = True
            referee = self._referee = Referee(self._seats, game=self.game)
            while (seat := referee.to_move) is not None:
                if self.config.seats[seat] is not None:
                    if self.config.bot_delay:
                        await self._flush()  # people see each bot's move on its own
                        await asyncio.sleep(self.config.bot_delay)
                    elif len(self._pending) >= self.players:
                        await self._flush()  # a round of bots: let the other tables play
                    await self._bot_turn(referee)
                elif not await self._person_turn(seat):
                    self._stand_in_for(self._person_call(), "timeout")
                self._turn = None  # answered: the next seat's turn is opened anew
            await self._flush()
            self.status = "over"
            record = self.game.record()
            await retrying(functools.partial(self.store.finish, self.id, record), self.id)
            self._publish()
            self.done.set()
            await self._close_bots()
        except asyncio.CancelledError:
            raise
        except Exception as error:  # a bug: stop this table only
            _log.exception("table %s stopped", self.id)
            for state in self._seats:
                if state.connection is not None:
                    message = {"type": "error", "error": str(error), "code": "internal"}
                    await _quietly(state.connection.send(message))
            raise
        finally:
            self._referee, self._turn = None, None

    async def _bot_turn(self, referee: Referee[_Seat]) -> None:
        """The referee opens the bot's turn: the bot's answer, or the stand-in's (``"error"``)
        when the bot fails or the referee refuses its answer: a broken bot never stops a
        table. (The turn, and the observation it holds, lives only this long: held while the
        table then awaits a person, it would cost the collector a walk of its history.)"""
        turn = referee.turn()
        assert turn is not None  # the bot's seat is to move
        state = turn.player
        answer: object = None
        try:
            if state.bot is not None and self.config.seats[turn.seat] in CHEAP_BOTS:
                answer = turn()
            else:  # a search or an engine: in a worker thread, the loop serves the others
                await self._flush()
                if state.bot is None and state.start is not None:
                    state.bot = await asyncio.to_thread(state.start)
                answer = await asyncio.to_thread(turn)
        except Exception:  # a bot that raises, an engine that dies or is late
            self._stand_in_for(turn, "error")
            return
        try:
            self._accept(turn, answer)
        except PlayerError:  # the referee refused the answer: not a legal move
            self._stand_in_for(turn, "error")

    def _stand_in_for(self, turn: PlayerCall[_Seat], reason: str) -> None:
        """The stand-in answers ``turn`` for its seat, for ``reason``."""
        stand_in = turn.instead(self._stand_in, reason)
        self._accept(stand_in, stand_in())

    async def _person_turn(self, seat: int) -> bool:
        """Await the person's answer (:meth:`submit` plays it): ``False`` when the clock ran
        out first."""
        await self._store_pending()  # the clock starts once the moves before it are stored
        loop = asyncio.get_running_loop()
        answer: asyncio.Future[Move | None] = loop.create_future()
        self._answer, self._waiting = answer, seat
        limit = self.config.move_time
        self._deadline = None if limit is None else loop.time() + limit
        # The clock sets the answer to None; awaiting the future itself, the table wakes
        # one step after a person's move arrives (no wait_for and shield in between).
        clock = None if limit is None else loop.call_later(limit, _time_up, answer)
        try:
            await self._flush(everyone=True)  # the moves since the last update, the prompt,
            return await answer is not None  # and everyone else sees the clock start
        finally:
            if clock is not None:
                clock.cancel()
            self._answer = None
            self._waiting = None
            self._deadline = None
            self._hint = None  # a hint still searching is sent to nobody

    def _asked(self, seat: int) -> bool:
        """Whether the table awaits ``seat``'s answer (and it has not come)."""
        answer = self._answer
        return self._waiting == seat and answer is not None and not answer.done()

    def _person_call(self) -> PlayerCall[_Seat]:
        """The referee's turn for the person the table awaits, opened the first time it is
        needed: to show the person the prompt, to play its answer or the stand-in's. (Opening
        a turn builds the seat's observation: a table restored with nobody at it builds none
        until someone comes or the clock runs out, as the restart's replay decodes no event.)"""
        if self._turn is None:
            assert self._referee is not None  # a person is awaited only while play runs
            self._turn = self._referee.turn()
            assert self._turn is not None  # the person is to move
        return self._turn

    def _view(self, seat: int) -> Observation:
        """The seat's observation of the game now: its turn's while the table awaits its
        answer (the game has not moved since the referee opened it), else a new one."""
        if self._asked(seat):
            return self._person_call().observation
        return self.game.observation(seat)

    def clock(self) -> dict[str, Any] | None:
        """The clock of the person the table awaits, for every viewer's frames (timing only,
        nothing of anyone's cards): ``{"seat", "time_left", "move_time"}`` (``time_left``
        in seconds, ``None`` with it when the table has no clock), or ``None`` when the
        table awaits no person (a bot's turn, before the start, after the end).

        >>> import asyncio
        >>> from skitgubbe.server import Lobby, SQLiteStore
        >>> async def main() -> tuple:
        ...     lobby = Lobby(SQLiteStore(":memory:"))
        ...     table = lobby.create({"seats": [None, "greedy"], "move_time": 60})
        ...     before = table.clock()
        ...     table.claim(0, "Ann")
        ...     table.start()
        ...     for _ in range(100):  # until the table awaits Ann
        ...         await asyncio.sleep(0.01)
        ...         if table.clock() is not None:
        ...             break
        ...     clock = table.clock()
        ...     await table.stop()
        ...     return before, clock["seat"], 59 < clock["time_left"] <= 60, clock["move_time"]
        >>> asyncio.run(main())
        (None, 0, True, 60)
        """
        seat = self._waiting
        if seat is None or not self._asked(seat):
            return None
        remaining = None
        if self._deadline is not None:
            remaining = max(0.0, self._deadline - asyncio.get_running_loop().time())
        return {"seat": seat, "time_left": remaining, "move_time": self.config.move_time}

    def seats_json(self) -> dict[str, Any]:
        """Who sits where, for every viewer's frames: ``names``, ``status`` (``open`` while
        a person's seat is still free: the game has not begun), ``open_seats`` and
        ``rematch`` (the id of this table's rematch, once asked for).

        >>> from skitgubbe.server import Lobby, SQLiteStore
        >>> table = Lobby(SQLiteStore(":memory:")).create({"seats": [None, None, "easy"]})
        >>> table.seats_json()["names"], table.seats_json()["open_seats"]
        (['seat 0', 'seat 1', 'easy'], [0, 1])
        """
        return {
            "names": self.names(),
            "status": self.status,
            "open_seats": self.open_seats(),
            "rematch": self.rematch,
        }

    async def tell_seats(self, message: Mapping[str, Any] | None = None) -> None:
        """Send every viewer a ``seats`` frame (:meth:`seats_json`, which every ``update``
        carries too): a person sat down or left, or asked for a rematch."""
        frame = {"type": "seats", **self.seats_json(), **(message or {})}
        for state in self._seats:
            if state.connection is not None:
                await _quietly(state.connection.send(frame))
        if self.status == "open":  # later, spectators learn of seats as late as of moves
            for connection in list(self._spectators):
                await _quietly(connection.send(frame))

    def _seat_state(self, seat: int, view: Observation) -> dict[str, Any]:
        """The seat's view, and its legal moves only while the table awaits its answer."""
        asked = self._asked(seat)
        clock = self.clock()
        return {
            **self.seats_json(),
            "view": seat_json(view),
            "n": view.moves_played,
            "legal": [protocol.move_text(m) for m in view.legal_moves] if asked else [],
            "time_left": clock["time_left"] if asked and clock is not None else None,
            "clock": clock,
            "result": None if self.game.result is None else self.game.result.to_dict(),
        }

    def _accept(self, turn: PlayerCall[_Seat], answer: object) -> None:
        """Hand ``answer`` to the referee, which checks it and plays it (or raises
        :class:`~skitgubbe.PlayerError` and changes nothing), then to the store; it is told
        at the next :meth:`_flush`."""
        assert self._referee is not None  # a turn is open only while play runs
        index = self.game.moves_played
        self._referee.accept(turn, answer)
        text = str(answer)
        self.store.append_move(self.id, index, text, turn.stand_in)
        self._pending.append({"seat": turn.seat, "move": text, "stand_in": turn.stand_in})

    async def _flush(self, everyone: bool = False) -> None:
        """Tell everyone of the moves since the last flush, once they are stored: each seat
        what its view allows (and its prompt, when it is the seat asked), the spectators
        the public part. One ``update`` frame a viewer, however many moves it holds; with
        ``everyone`` (a person's clock has started), every viewer gets one, moves or not."""
        pending = self._pending
        await self._store_pending()  # every move is stored before anyone is told
        self._pending = []
        if pending:
            self._publish()
        result = None if self.game.result is None else self.game.result.to_dict()
        for viewer, state in enumerate(self._seats):
            if state.connection is None or not (pending or everyone or self._asked(viewer)):
                continue
            view = self._view(viewer)
            new: Sequence[Event] = view.history[state.seen :]
            state.seen = len(view.history)
            message = {
                "type": "update",
                "moves": pending,
                "events": [protocol.event_json(e) for e in new],
                **self._seat_state(viewer, view),
            }
            await _quietly(state.connection.send(message))
        if self._spectators and (pending or everyone):
            public = self.game.observation(0)
            history = public.history
            message = {
                "type": "update",
                "moves": pending,
                **self.seats_json(),
                "events": [protocol.event_json(e.redacted()) for e in history[self._public_seen :]],
                "public": public_json(public),
                "clock": self.clock(),
                "result": result,
            }
            self._public_seen = len(history)
            for connection in list(self._spectators):
                if self.config.spectator_delay:
                    self._later(self.config.spectator_delay, connection, message)
                else:
                    await _quietly(connection.send(message))

    async def _store_pending(self) -> None:
        """Wait until every move played is stored (through the group commit, which retries
        while the store fails)."""
        if self.moves_stored < self.game.moves_played:
            await self._commits.wait()
            self.moves_stored = self.game.moves_played

    def _publish(self) -> None:
        """Show the lobby the moves told so far, ``spectator_delay`` seconds late: the lobby
        gives away no more than a spectator sees."""
        result = None if self.game.result is None else self.game.result.to_dict()
        shown = (self.game.moves_played, result, self.status == "over")
        if self.config.spectator_delay:
            loop = asyncio.get_running_loop()
            loop.call_later(self.config.spectator_delay, self._show, shown)
        else:
            self._show(shown)

    def _show(self, shown: tuple[int, dict[str, Any] | None, bool]) -> None:
        if shown[0] >= self._shown[0]:
            self._shown = shown

    def _later(self, delay: float, connection: Connection, message: Mapping[str, Any]) -> None:
        async def send() -> None:
            await asyncio.sleep(delay)
            if connection in self._spectators:
                await _quietly(connection.send(message))

        task = asyncio.get_running_loop().create_task(send())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def record(self) -> dict[str, Any]:
        """The finished game's record (its seed included), with the seats' ``names`` (which
        :meth:`Game.from_record <skitgubbe.Game.from_record>` leaves aside and ``skitgubbe
        replay`` shows); :class:`TableError` before the end, and until the spectators
        (``spectator_delay`` seconds late) have seen the end."""
        if self.game.result is None:
            raise TableError("the game is not over: its record would give the deal away", 409)
        if not self._shown[2]:
            raise TableError(
                f"the game is over, but it is shown {self.config.spectator_delay:g} s late: "
                "its record comes then",
                409,
            )
        return {**self.game.record(), "names": self.names()}


def _time_up(answer: asyncio.Future[Move | None]) -> None:
    if not answer.done():
        answer.set_result(None)


async def _quietly(call: Any) -> None:
    """Await a send or a close; a viewer that has gone is not the table's failure."""
    with contextlib.suppress(ConnectionError, RuntimeError, asyncio.CancelledError):
        await call


def __getattr__(name: str) -> Any:
    """``Lobby`` moved to :mod:`skitgubbe.server.lobby`; still importable from here."""
    if name == "Lobby":
        from .lobby import Lobby

        return Lobby
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
