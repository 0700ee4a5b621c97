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
import hmac
import logging
import secrets
import time
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final

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
from .advice import Advisor, TurnHint
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
from .frames import MAX_NAME as MAX_NAME
from .frames import distinct_names, is_text, name_problem, public_json, seat_json, summary_json
from .seats import Connection as Connection
from .seats import Reservations, Seat
from .seats import hash_token as hash_token
from .spectators import Spectators
from .spectators import quietly as _quietly
from .store import LeaseLostError, Store, StoredSeat, StoredTable, StoreError

if TYPE_CHECKING:
    from .pool import FairPool

__all__ = ["Connection", "Table", "hash_token"]

MAX_SPECTATORS: Final = 100
"""The most spectators a table takes at once."""

_log: Final = logging.getLogger("skitgubbe.server")

# Stored moves are parsed again on every restart, and a few hundred texts cover them all.
_parse_move: Final = functools.lru_cache(maxsize=4096)(Move.parse)


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
        owner: str = "",
        searches: FairPool | None = None,
        on_change: Callable[[], None] | None = None,
    ) -> None:
        self.id = stored.id
        self._advisor = advisor
        self.owner = owner
        """The client that made the table (its key): its searches count as that client's."""
        self._searches = searches
        self._on_change = on_change or _nothing
        self.activity = time.monotonic()
        """When a person last sat down or left (an open table expires without any)."""
        self.public_since: float | None = None
        """When the end became public (monotonic clock), for the lobby's eviction."""
        self.listed_from: float | None = None
        """A rematch is listed in the lobby only once the old table's end is public (epoch
        seconds; ``None``: at once)."""
        self.reservations = Reservations()
        """The open seats kept for people (a rematch's, :meth:`Lobby.rematch
        <skitgubbe.server.Lobby.rematch>`)."""
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
        self._seats: list[Seat] = []
        for seat, spec in enumerate(config.seats):
            if spec is None:
                self._seats.append(Seat(stored.seats[seat], None))
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
                self._seats.append(Seat(None, None, start))
            else:  # a plain spec: no file, import or compile (checked again: a config
                try:  # may be made without TableConfig.from_json)
                    bots.check_plain_spec(spec)
                except SkitgubbeError as error:
                    raise TableError(f"table {self.id}: seat {seat}: {error}") from None
                self._seats.append(Seat(None, bots.make(spec, seed=seat)))
        self.game = game
        """The game; while it is played, it changes only through the referee's ``accept``."""
        # The table loop, while play runs (as play_game_async makes one a call): the
        # referee opens each seat's turn, checks and plays its answer. None otherwise, so
        # that a finished table keeps no record of its answers but the game.
        self._referee: Referee[Seat] | None = None
        self._stand_in = Seat(None, bots.make(config.stand_in, seed=len(config.seats)))
        # Each spectator with the number of the delayed frame it joined at; the frames held
        # back (spectator_delay): one ordered queue a table, one task draining it.
        self._spectators = Spectators(config.spectator_delay, self._show)
        self._public_seen = 0  # seat 0's history events the spectators have been sent
        self._answer: asyncio.Future[Move | None] | None = None
        self._waiting: int | None = None  # the seat whose answer _answer awaits
        self._turn: PlayerCall[Seat] | None = None  # its turn, once opened (_person_call)
        self._deadline: float | None = None  # loop time at which that seat's move is due
        # The hint of the turn the table awaits: its seat and move number, and the hint
        # once found (one search a turn however often it is asked; kept for the turn).
        self._hint: TurnHint | None = None
        self._task: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self.moves_stored = len(stored.moves)  # moves the store has committed
        self._clock = stored.clock  # the move number of the person's turn and its deadline
        self._start_stored = True  # whether the store knows the table is running
        # What the lobby shows (moves, result, over), spectator_delay seconds late. A table
        # restored with moves shows none of them until the delay has passed once more (a
        # finished one whose end is public shows it at once).
        self._shown: tuple[int, dict[str, Any] | None, bool] = (0, None, False)
        public = self.status == "over" and (stored.public_at or 0.0) <= time.time()
        if self.game.moves_played and self.config.spectator_delay and not public:
            self._publish()
        else:
            result = None if self.game.result is None else self.game.result.to_dict()
            self._shown = (self.game.moves_played, result, self.status == "over")
        self.rematch: str | None = stored.rematch
        """The id of this table's rematch, once a person at it asked for one."""
        self.public_at = stored.public_at
        """When the end is public (epoch seconds), once the game is over."""
        self.done = asyncio.Event()
        if self.status == "over":
            self.done.set()
            if self._shown[2]:
                self.public_since = time.monotonic()

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
        """What the lobby lists: public, with no token and no card (:func:`summary_json`)."""
        seats: list[dict[str, Any]] = []
        for seat, spec in enumerate(self.config.seats):
            claimed = self._seats[seat].claimed
            if spec is None and claimed is None:
                seats.append(
                    {"kind": "open", "name": None, "reserved": self.reservations.name(seat)}
                )
            elif spec is None and claimed is not None:
                connected = self._seats[seat].connection is not None
                seats.append({"kind": "person", "name": claimed.name, "connected": connected})
            else:
                seats.append({"kind": "bot", "name": spec})
        shown = self._shown[2]
        return summary_json(
            self.id,
            self.config,
            "running" if self.status == "over" and not shown else self.status,
            seats,
            moves=self._shown[0],
            result=self._shown[1],
            created=self.created,
            names=self.names(),
            dealer=self.game.dealer,
            rematch=self.rematch if shown else None,
        )

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

    def claim(
        self, seat: object, name: object, browser: str | None = None, *, holder: str | None = None
    ) -> str:
        """Give an open seat to a person; returns the seat's secret token (only its hash is
        stored: lose it and the seat is lost). ``browser`` is the claiming browser's id (a
        browser holds at most one seat of a table: 409 for a second); ``holder`` the token
        hash a reserved seat is kept for (:attr:`reservations`: a rematch's seat waits for its
        person, and nobody else may take it meanwhile)."""
        if self.status != "open":
            raise TableError(f"table {self.id} has started", 409)
        if type(seat) is not int:
            raise TableError(
                f"seat must be a seat's number 0 … {self.players - 1}, not {shorten(seat)}"
            )
        if seat not in self.open_seats():
            raise TableError(f"seat {seat} is not open at table {self.id}", 409)
        problem = name_problem(name)
        if problem is not None:
            raise TableError(problem)
        assert isinstance(name, str)  # name_problem checked it
        self.reservations.check(seat, holder)
        browser_hash = None if browser is None else hash_token(browser)
        if browser_hash is not None:
            for other, state in enumerate(self._seats):
                if state.claimed is not None and state.browser == browser_hash:
                    raise TableError(f"this browser holds seat {other} of this table already", 409)
        token = secrets.token_urlsafe(32)
        claimed = StoredSeat(hash_token(token), unicodedata.normalize("NFC", name.strip()))
        self.store.claim(self.id, seat, claimed.token_hash, claimed.name)
        self._seats[seat].claimed = claimed
        self._seats[seat].browser = browser_hash
        self.reservations.taken(seat)
        self._touch()
        return token

    def unreserve(self, holder: str) -> None:
        """The person whose token hash is ``holder`` declined: their seat is open to all."""
        if self.reservations.drop(holder):
            self._touch()

    def _touch(self) -> None:
        """A person sat down or left: the open table's clock starts again; the lobby shows it."""
        self.activity = time.monotonic()
        self._on_change()

    def connected(self) -> bool:
        """Whether any seat's socket or spectator is connected."""
        return bool(self._spectators) or any(s.connection is not None for s in self._seats)

    def token_hash(self, seat: int) -> str:
        """The hash of the token of the person at ``seat`` (``""`` for nobody's)."""
        claimed = self._seats[seat].claimed
        return "" if claimed is None else claimed.token_hash

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
        if isinstance(token, str) and len(token) <= 100 and is_text(token):
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
        self._seats[seat].browser = None
        self._touch()

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
        state.seen, state.known = len(view.history), view.moves_played
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
        # Its welcome holds the moves played so far, told to the others or not yet: the
        # frames after it tell it only the moves and events after those.
        self._spectators.add(connection, view.moves_played, len(view.history))
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
            await self._spectators.send(message, connection)
        else:
            await _quietly(connection.send(message))

    def unwatch(self, connection: Connection) -> None:
        """A spectator left: nothing is held back for it any more (its welcome, if it still
        waited; once the last one leaves, the frames held back for spectators go too)."""
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

    async def stop(self, close: str | None = None) -> None:
        """Cancel play (a server shutting down, or the lobby letting the table go: then
        every socket is closed with the reason ``close``); the stored game is untouched."""
        if close is not None:
            connections = [s.connection for s in self._seats if s.connection is not None]
            for connection in connections:
                await _quietly(connection.close(close))
        await self._spectators.close(close)
        if self._hint is not None:
            self._hint.cancel()
            self._hint = None
        tasks = [self._task, *self._tasks]
        for task in tasks:
            if task is not None:
                task.cancel()
        for task in tasks:
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

    def ask_hint(self, seat: int, number: object, client: str = "") -> None:
        """The seat asks for a hint at its turn (``number``: the move it is asked, as in a
        move frame). The hint is worked out from the seat's own observation in a worker
        thread (:class:`~skitgubbe.server.advice.Advisor`) and sent to that seat alone as
        ``{"type": "hint", ...}`` (:func:`~skitgubbe.server.advice.hint`), if it is still
        that turn. One search a turn: asked again, the seat gets the same hint; when the turn
        ends, a hint still waiting for a thread is dropped (it never runs). ``client`` is who
        asked, for the bounds on hints waiting (:class:`~skitgubbe.server.limits.Limits`:
        past them the seat gets an ``error`` frame, ``too_many_requests`` or ``busy``).
        Refused with :class:`TableError` at a table without hints (403) and when it is not
        the seat's turn or the number is stale (409).

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
        if self._hint is None or (self._hint.seat, self._hint.number) != (seat, number):
            if self._hint is not None:
                self._hint.cancel()
            self._hint = TurnHint(self._advisor, self.id, seat, number)
        # The seat's observation, the referee's turn's: the search is given nothing else.
        self._hint.ask(self._view(seat), client, functools.partial(self._send_hint, seat, number))

    async def _send_hint(self, seat: int, number: int, message: Mapping[str, Any]) -> None:
        """Send the seat its hint (or why there is none), if the table still awaits its
        answer to move ``number``."""
        state = self._seats[seat]
        if state.connection is None or not self._asked(seat) or self.game.moves_played != number:
            return  # the turn is over: the hint is of no use now
        await _quietly(state.connection.send(message))

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
            record = {**self.game.record(), "names": self.names()}
            self.public_at = time.time() + self.config.spectator_delay
            finish = functools.partial(self.store.finish, self.id, record, self.public_at)
            await retrying(finish, self.id)
            self._publish()
            self.done.set()
            await self._close_bots()
        except asyncio.CancelledError:
            raise
        except LeaseLostError:  # another process plays it on: the lobby lets it go
            _log.warning("table %s: another process owns it now; it stops here", self.id)
        except Exception as error:  # a bug: stop this table only
            _log.exception("table %s stopped", self.id)
            for state in self._seats:
                if state.connection is not None:
                    message = {"type": "error", "error": str(error), "code": "internal"}
                    await _quietly(state.connection.send(message))
            raise
        finally:
            self._referee, self._turn = None, None

    async def _bot_turn(self, referee: Referee[Seat]) -> None:
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
                if self._searches is not None:  # a fair share of the search threads
                    answer = await self._searches.run(self.owner, self.id, turn)
                else:
                    answer = await asyncio.to_thread(turn)
        except Exception:  # a bot that raises, an engine that dies or is late
            self._stand_in_for(turn, "error")
            return
        try:
            self._accept(turn, answer)
        except PlayerError:  # the referee refused the answer: not a legal move
            self._stand_in_for(turn, "error")

    def _stand_in_for(self, turn: PlayerCall[Seat], reason: str) -> None:
        """The stand-in answers ``turn`` for its seat, for ``reason``."""
        stand_in = turn.instead(self._stand_in, reason)
        self._accept(stand_in, stand_in())

    async def _person_turn(self, seat: int) -> bool:
        """Await the person's answer (:meth:`submit` plays it): ``False`` when the clock ran
        out first."""
        limit = self.config.move_time
        fresh = False
        if limit is not None:
            # The clock is kept in the store, with the moves before it: a table resumed
            # after a restart, or by another process, goes on with the time that was left.
            number, wall = self.game.moves_played, time.time()
            kept = self._clock
            if kept is not None and kept[0] == number:
                limit = min(limit, max(0.0, kept[1] - wall))
            else:
                self._clock, fresh = (number, wall + limit), True
                self.store.set_clock(self.id, number, wall + limit)
        # The clock starts once the moves before it (and it) are stored.
        await self._store_pending(fresh)
        loop = asyncio.get_running_loop()
        answer: asyncio.Future[Move | None] = loop.create_future()
        self._answer, self._waiting = answer, seat
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
            if self._hint is not None:  # a hint still waiting for a thread never runs
                self._hint.cancel()
                self._hint = None

    def _asked(self, seat: int) -> bool:
        """Whether the table awaits ``seat``'s answer (and it has not come)."""
        answer = self._answer
        return self._waiting == seat and answer is not None and not answer.done()

    def _person_call(self) -> PlayerCall[Seat]:
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

    def _accept(self, turn: PlayerCall[Seat], answer: object) -> None:
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
        first = self.game.moves_played - len(pending)  # the number of the first of them
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
            told = pending[max(0, state.known - first) :]  # (a seat that joined since knows some)
            state.seen, state.known = len(view.history), view.moves_played
            message = {
                "type": "update",
                "moves": told,
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
            await self._spectators.send(message, first=(first, self._public_seen))
            self._public_seen = len(history)

    async def _store_pending(self, clock: bool = False) -> None:
        """Wait until every move played (and with ``clock``, the clock just set) is stored
        (through the group commit, which retries while the store fails)."""
        if clock or self.moves_stored < self.game.moves_played:
            await self._commits.wait()
            if self.id in self.store.lost:  # another process owns the table now: its moves
                raise LeaseLostError([self.id])  # were not stored, and nobody is told them
            self.moves_stored = self.game.moves_played

    def _publish(self) -> None:
        """Show the lobby the moves told so far, ``spectator_delay`` seconds late: the lobby
        gives away no more than a spectator sees."""
        result = None if self.game.result is None else self.game.result.to_dict()
        self._spectators.show((self.game.moves_played, result, self.status == "over"))

    def _show(self, shown: tuple[int, dict[str, Any] | None, bool]) -> None:
        if shown[0] >= self._shown[0]:
            self._shown = shown
            if shown[2] and self.public_since is None:
                self.public_since = time.monotonic()
            self._on_change()

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


def _nothing() -> None:
    """No-one to tell of a change."""


def _time_up(answer: asyncio.Future[Move | None]) -> None:
    if not answer.done():
        answer.set_result(None)


def __getattr__(name: str) -> Any:
    """``Lobby`` moved to :mod:`skitgubbe.server.lobby`; still importable from here."""
    if name == "Lobby":
        from .lobby import Lobby

        return Lobby
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
