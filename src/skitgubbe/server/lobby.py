"""The lobby: all the tables of one server, the store they live in, and the advisor of their
hints and reviews.

:meth:`Lobby.create` makes a table from a request's configuration, :meth:`Lobby.restore`
rebuilds every open and running table from the store after a restart, and
:meth:`Lobby.record` and :meth:`Lobby.review` give a finished game's record and its review.

The lobby holds what is live: open and running tables, and a finished table until its end
is public and its people have left (:meth:`Lobby.sweep`); a finished table is served from
the store from then on (:class:`Finished`), and an open table nobody joins expires. What
one client may make it do is bounded (:class:`~skitgubbe.server.limits.Limits`).

>>> from skitgubbe.server import Lobby, SQLiteStore
>>> lobby = Lobby(SQLiteStore(":memory:"))
>>> lobby.create({"seats": [None, "greedy"]}).status
'open'
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import gc
import hashlib
import hmac
import json
import logging
import secrets
import time
from collections.abc import Mapping
from typing import Any, Final

import attrs

from .. import bots
from ..bots.command import EngineSpec
from ..errors import ArgumentError, SkitgubbeError
from .advice import HINT_ENGINE, REVIEW_ENGINE, Advisor, Review
from .commits import GroupCommit
from .config import BOT_PREFIX, ENGINE_PREFIX, MAX_BOT_ITERATIONS, TableConfig
from .errors import TableError, shorten
from .frames import summary_json
from .limits import Counter, Limits, RateLimit
from .pool import FairPool
from .store import Store, StoredTable
from .tables import Table, hash_token

__all__ = [
    "LIST_FINISHED",
    "LIST_LIVE",
    "MAX_LIST",
    "MAX_REASON",
    "MAX_SESSION",
    "SWEEP_SECONDS",
    "Finished",
    "Lobby",
]

MAX_REASON: Final = 300
"""The longest reason kept for a closed table, in characters."""

MAX_SESSION: Final = 100
"""The most games of one session :meth:`Lobby.session` counts."""
LIST_LIVE: Final = 100
"""How many open and running tables the lobby lists by default (the newest first)."""
LIST_FINISHED: Final = 20
"""How many finished tables the lobby lists by default (the last to end first)."""
MAX_LIST: Final = 500
"""The most tables one listing gives (``limit``)."""
SWEEP_SECONDS: Final = 2.0
"""How often the lobby expires open tables nobody joins and lets finished ones go."""
LIST_FRESH: Final = 1.0
"""Seconds a listing is served as it was made, however the tables changed meanwhile (the
lobby's pages poll it: one is made at most this often)."""

_log: Final = logging.getLogger("skitgubbe.server")


def _cut(text: str, most: int) -> str:
    """``text`` cut to at most ``most`` characters (an ellipsis says it was cut).

    >>> _cut("abcdef", 4)
    'abc…'
    """
    return text if len(text) <= most else text[: most - 1] + "…"


def _named_bots(named: Mapping[str, str]) -> dict[str, str]:
    """The operator's named bots, each checked by making it once (at start, never for a
    request): a bad one stops the server from starting, with its name."""
    checked: dict[str, str] = {}
    for name, spec in named.items():
        if not isinstance(name, str) or not name.isidentifier():
            raise ArgumentError(f"a bot's name is one word (letters, digits, _): {name!r}")
        if not isinstance(spec, str) or bots.is_engine_spec(spec):
            raise ArgumentError(
                f"bot {name!r}: {spec!r} is not a bot spec (a program is an engine: "
                "name it with --engine NAME=SPEC)"
            )
        try:
            bots.make(spec, seed=0)
        except SkitgubbeError as error:
            raise ArgumentError(f"bot {name!r}: {error}") from None
        checked[name] = spec
    return checked


def _warm_up() -> None:
    """Load, once per process, what the built-in bots of plain specs use (the shipped
    network, the rollout policies' module), so that no request waits for a first load."""
    from ..bots.net import default_network
    from ..bots.policy import resolve

    default_network()
    resolve("greedy")


class Finished:
    """A finished table served from the store (its game's end is public, and it has left
    the server's memory): what the lobby, its record, review, session and rematch need.

    >>> from skitgubbe.server.store import SQLiteStore, StoredTable
    >>> store = SQLiteStore(":memory:")
    >>> store.create(StoredTable("t", {"seats": [None, "greedy"]}, 7, [None, None]))
    >>> record = {"moves": [], "start": {"dealer": 1}, "result": None, "names": ["Ann", "bot"]}
    >>> store.finish("t", record)
    >>> Finished(store.table("t")).summary()["names"]
    ['Ann', 'bot']
    """

    status: Final = "over"

    def __init__(self, stored: StoredTable) -> None:
        self.stored = stored
        self.id = stored.id
        self.config = _stored_config(stored.config)
        self.rematch = stored.rematch
        self.record_data: dict[str, Any] = stored.record or {}

    @property
    def players(self) -> int:
        """How many seats."""
        return len(self.config.seats)

    @property
    def public(self) -> bool:
        """Whether the end is public (its spectator delay has passed)."""
        return self.stored.public_at is None or self.stored.public_at <= time.time()

    @property
    def dealer(self) -> int:
        """The game's dealer."""
        start = self.record_data.get("start")
        dealer = start.get("dealer") if isinstance(start, dict) else None
        return dealer if type(dealer) is int else self.players - 1

    def names(self) -> list[str]:
        """The seats' names as the game ended (kept with its record)."""
        names = self.record_data.get("names")
        if isinstance(names, list) and len(names) == self.players:
            return [str(name) for name in names]
        return [
            spec if spec is not None else (claimed.name if claimed else f"seat {seat}")
            for seat, (spec, claimed) in enumerate(
                zip(self.config.seats, self.stored.seats, strict=True)
            )
        ]

    def summary(self) -> dict[str, Any]:
        """What the lobby lists (:func:`~skitgubbe.server.tables.summary_json`)."""
        public = self.public
        result = self.record_data.get("result") if public else None
        seats: list[dict[str, Any]] = []
        for spec, claimed in zip(self.config.seats, self.stored.seats, strict=True):
            if spec is not None:
                seats.append({"kind": "bot", "name": spec})
            elif claimed is not None:
                seats.append({"kind": "person", "name": claimed.name, "connected": False})
            else:
                seats.append({"kind": "open", "name": None, "reserved": None})
        moves = self.record_data.get("moves")
        return summary_json(
            self.id,
            self.config,
            "over" if public else "running",
            seats,
            moves=len(moves) if isinstance(moves, list) and public else 0,
            result=result if isinstance(result, dict) else None,
            created=self.stored.created,
            names=self.names(),
            dealer=self.dealer,
            rematch=self.rematch if public else None,
        )

    def seat_of(self, token: object) -> int:
        """The seat whose token this is; :class:`TableError` (403) for any other."""
        if isinstance(token, str) and len(token) <= 100:
            try:
                digest = hash_token(token)
            except UnicodeEncodeError:
                digest = ""
            for seat, claimed in enumerate(self.stored.seats):
                if claimed is not None and hmac.compare_digest(claimed.token_hash, digest):
                    return seat
        raise TableError("that token holds no seat at this table", 403)

    def claimed_name(self, seat: int) -> str:
        """The name of the person at ``seat``."""
        claimed = self.stored.seats[seat]
        if claimed is None:
            raise TableError(f"seat {seat} of table {self.id} is nobody's")
        return claimed.name

    def token_hash(self, seat: int) -> str:
        """The hash of ``seat``'s token (a rematch keeps the seat for it)."""
        claimed = self.stored.seats[seat]
        return "" if claimed is None else claimed.token_hash

    def record(self) -> dict[str, Any]:
        """The game's record with the seats' names; 409 until the end is public."""
        if not self.public:
            raise TableError("the game is over, but it is shown late: its record comes then", 409)
        return {**self.record_data, "names": self.names()}


class Lobby:
    """All the tables of one server, and the store they live in.

    ``limits`` bounds what clients may make it do (:class:`~skitgubbe.server.limits.Limits`;
    ``max_tables``, if given, is its ``live_tables``); each request names its ``client``
    (:func:`~skitgubbe.server.limits.client_of`). The lobby's own task
    (:meth:`start_sweeping`, which :func:`~skitgubbe.server.create_app` starts) expires
    open tables nobody joins and lets finished ones go (:meth:`sweep`).

    >>> import asyncio
    >>> from skitgubbe.server.store import SQLiteStore
    >>> from skitgubbe.server.lobby import Lobby
    >>> async def main() -> dict:
    ...     lobby = Lobby(SQLiteStore(":memory:"))
    ...     table = lobby.create({"seats": ["greedy", "greedy", "random"]})
    ...     await asyncio.wait_for(table.done.wait(), 10)
    ...     await lobby.close()
    ...     return table.summary()["result"]
    >>> sorted(asyncio.run(main()))
    ['finish_order', 'loser', 'moves', 'truncated']
    """

    def __init__(
        self,
        store: Store,
        *,
        max_tables: int | None = None,
        engines: Mapping[str, str] | None = None,
        named_bots: Mapping[str, str] | None = None,
        max_bot_iterations: int = MAX_BOT_ITERATIONS,
        hint_engine: str = HINT_ENGINE,
        review_engine: str = REVIEW_ENGINE,
        limits: Limits | None = None,
    ) -> None:
        if type(max_bot_iterations) is not int or max_bot_iterations < 1:
            raise ArgumentError(
                f"max_bot_iterations must be an int >= 1, not {max_bot_iterations!r}"
            )
        limits = limits or Limits()
        if max_tables is not None:
            limits = attrs.evolve(limits, live_tables=max_tables)
        self.limits = limits
        self.store = store
        self.max_bot_iterations = max_bot_iterations
        self.engines: dict[str, EngineSpec] = {}
        for name, spec in (engines or {}).items():
            if not name.isidentifier():
                raise ArgumentError(f"an engine's name is one word (letters, digits, _): {name!r}")
            try:
                self.engines[name] = EngineSpec.parse(spec)
            except SkitgubbeError as error:
                raise ArgumentError(f"engine {name!r}: {error}") from None
        self.named_bots: dict[str, str] = _named_bots(named_bots or {})
        """The operator's bots, by name: a seat ``"bot:NAME"`` plays ``bots.make(spec)``."""
        _warm_up()
        self.tables: dict[str, Table] = {}
        """The tables in memory: open, running, and finished until they go (:meth:`sweep`)."""
        self._commits = GroupCommit(store)
        self.advisor = Advisor(hint_engine, review_engine, limits=limits)
        """The hints at the tables that allow them, and the reviews of finished games."""
        self.searches = FairPool(
            limits.search_threads, per_client=limits.searches_per_client, name="skitgubbe-search"
        )
        """The threads the tables' searching bots and engines move in, shared fairly."""
        self.sockets = Counter(limits.sockets_per_client, limits.sockets, "sockets")
        """The websockets open, by client."""
        self._creates = RateLimit(
            limits.creates_per_minute_per_client, limits.creates_per_minute, "tables made"
        )
        self.version = 0
        """Counts the changes of what the lobby lists."""
        self._listing: tuple[int, float, bytes, str] | None = None
        self._sweeper: asyncio.Task[None] | None = None
        self._letting_go: set[asyncio.Task[None]] = set()

    def _changed(self) -> None:
        self.version += 1

    def _table_changed(self, table_id: str) -> None:
        """What table ``table_id`` shows the lobby changed."""
        self._changed()

    def new_id(self) -> str:
        """A new table's id: random, 16 hex digits.

        >>> from skitgubbe.server import SQLiteStore
        >>> len(Lobby(SQLiteStore(":memory:")).new_id())
        16
        """
        return secrets.token_hex(8)

    def occupancy(self, client: str) -> tuple[int, int, int]:
        """How many tables are live (open or running) and open, and how many open ones
        ``client`` made: what :meth:`create` bounds.

        >>> from skitgubbe.server import SQLiteStore
        >>> lobby = Lobby(SQLiteStore(":memory:"))
        >>> _ = lobby.create({"seats": [None, "greedy"]}, client="a")
        >>> lobby.occupancy("a"), lobby.occupancy("b")
        ((1, 1, 1), (1, 1, 0))
        """
        live = self.live()
        waiting = [table for table in live if table.status == "open"]
        return len(live), len(waiting), sum(1 for table in waiting if table.owner == client)

    def holds(self, table_id: str) -> bool:
        """Whether this process may still speak for table ``table_id`` (one process always
        may; :class:`~skitgubbe.server.cluster.ClusterLobby` says no for a table another
        process took over, or while its own lease is in doubt)."""
        return True

    def _table(self, stored: StoredTable, config: TableConfig, owner: str = "") -> Table:
        return Table(
            stored,
            config,
            self.store,
            commits=self._commits,
            engines=self.engines,
            named_bots=self.named_bots,
            advisor=self.advisor,
            owner=owner,
            searches=self.searches,
            on_change=functools.partial(self._table_changed, stored.id),
        )

    def live(self) -> list[Table]:
        """The open and running tables (a finished one still in memory is neither)."""
        return [table for table in self.tables.values() if table.status != "over"]

    def create(self, data: object, *, after: str | None = None, client: str = "") -> Table:
        """A new table from a JSON configuration, made for ``client`` (a client key); play
        starts at once if it has no person. ``after`` is the table it is a rematch of
        (:meth:`rematch`). Refused (:class:`TableError`, with a ``Retry-After`` where
        waiting helps) past the bounds of :attr:`limits`: tables made a minute (429 for
        the client, 503 for all), open tables (429, 503) and live tables (503)."""
        limits = self.limits
        config = TableConfig.from_json(
            data,
            engines=self.engines,
            named_bots=self.named_bots,
            max_bot_iterations=self.max_bot_iterations,
            **_cost_bound(limits),
        )
        live, waiting, mine = self.occupancy(client)
        if live >= limits.live_tables:
            raise TableError(
                f"the server has {limits.live_tables} tables open or being played, as many as "
                "it holds: try again later",
                503,
                retry_after=60,
            )
        if config.seats.count(None):
            if mine >= limits.open_tables_per_client:
                raise TableError(
                    f"you have {mine} tables waiting for people already (at most "
                    f"{limits.open_tables_per_client}): play or leave one first",
                    429,
                    retry_after=60,
                )
            if waiting >= limits.open_tables:
                raise TableError(
                    f"the server has {waiting} tables waiting for people: sit down at "
                    "one, or try again later",
                    503,
                    retry_after=60,
                )
        self._creates.take(client)
        if after is not None:
            config = attrs.evolve(config, after=after)
        stored = StoredTable(
            self.new_id(),
            config.to_json(),
            secrets.randbits(64),
            [None] * len(config.seats),
            created=time.time(),
            client=client,
        )
        self.store.create(stored)
        table = self._table(stored, config, client)
        self.tables[table.id] = table
        self._changed()
        if table.ready():
            table.start()
        return table

    def find(self, table_id: object) -> Table | Finished:
        """A table by id, in memory or (finished) from the store; :class:`TableError` 404
        if there is none, 410 with the reason if the server closed it."""
        table = self.tables.get(table_id) if isinstance(table_id, str) else None
        if table is not None:
            return table
        stored = self._stored(table_id)
        if stored.status == "over":
            return Finished(stored)
        return self._not_here(stored)

    def _stored(self, table_id: object) -> StoredTable:
        """A table that is not in memory, from the store (404, or 410 if it was closed)."""
        valid = (
            isinstance(table_id, str)
            and 1 <= len(table_id) <= 40
            and table_id.replace("-", "").isalnum()  # a cluster's: NODE-HEX
        )
        stored = self.store.table(table_id) if valid and isinstance(table_id, str) else None
        if stored is None:
            raise TableError(f"no table {shorten(table_id)}", 404)
        if stored.status == "closed":
            reason = (stored.record or {}).get("closed")
            raise TableError(f"table {table_id} was closed: {reason}", 410)
        return stored

    def rematch(
        self, table_id: object, token: object, client: str = "", browser: str | None = None
    ) -> tuple[Table, int, str]:
        """A rematch of a finished table, for the person whose ``token`` holds a seat there:
        the same seats, the same rules and clock, the deal passed on to the next dealer (a
        session, as :class:`skitgubbe.Session` plays one), and that person sat at their own
        seat again under the same name. The first person to ask creates it (made for
        ``client``, within its bounds) and the other people's seats are kept for them
        (:attr:`Limits.rematch_hold <skitgubbe.server.limits.Limits.rematch_hold>` seconds,
        or until they decline: :meth:`decline`); the others who ask join it. The lobby lists
        it once the old table's end is public. Returns the new table, the seat and its token;
        :class:`TableError` with 403 for a token that holds no seat, 409 before the end or
        when the seat is taken.

        >>> import asyncio
        >>> from skitgubbe.server import SQLiteStore
        >>> async def main() -> tuple:
        ...     lobby = Lobby(SQLiteStore(":memory:"))
        ...     table = lobby.create({"seats": [None, "random"], "move_time": None})
        ...     token = table.claim(0, "Ann")
        ...     table.start()
        ...     while table.status != "over":  # Ann plays her first legal move, always
        ...         await asyncio.sleep(0.001)
        ...         if table.clock() is not None:
        ...             view = table.game.observation(0)
        ...             table.submit(0, view.moves_played, str(view.legal_moves[0]))
        ...     await table.done.wait()
        ...     again, seat, _ = lobby.rematch(table.id, token)
        ...     await lobby.close()
        ...     return again.names(), seat, again.game.dealer, table.game.dealer
        >>> asyncio.run(main())
        (['Ann', 'random'], 0, 0, 1)
        """
        old = self.find(table_id)
        seat = old.seat_of(token)
        if old.status != "over":
            raise TableError("the game is not over: a rematch comes after the end", 409)
        holder = old.token_hash(seat)
        claimed = old.claimed_name(seat)
        table: Table | None = None
        if old.rematch is not None:
            table = self._rematch_of(old.rematch)
            if table is None or table.status != "open":
                raise TableError(
                    f"seat {seat} of the rematch {old.rematch} is taken: it has begun", 409
                )
        if table is None:
            data = {**old.config.to_json(), "after": None}
            data["dealer"] = (_dealer(old) + 1) % old.players
            table = self.create(data, after=old.id, client=client)
            kept = self.store.set_rematch(old.id, table.id)
            if kept != table.id:  # another process made one at the same moment: that one
                self._abandon(table.id, "another rematch of the same table was made first")
                self._let_go(table, "another rematch of the same table was made first")
                old.rematch = kept
                return self.rematch(table_id, token, client, browser)
            old.rematch = table.id
            public_at = old.public_at if isinstance(old, Table) else old.stored.public_at
            table.listed_from = public_at
            for other, spec in enumerate(old.config.seats):
                if spec is None and other != seat:
                    table.reservations.keep(
                        other,
                        old.token_hash(other),
                        old.claimed_name(other),
                        self.limits.rematch_hold,
                    )
        if seat not in table.open_seats():
            raise TableError(f"seat {seat} of the rematch {table.id} is taken", 409)
        new_token = table.claim(seat, claimed, browser, holder=holder)
        if table.ready():
            table.start()
        return table, seat, new_token

    def decline(self, table_id: object, token: object) -> Table | None:
        """The person whose ``token`` holds a seat at finished table ``table_id`` will not
        play its rematch: the seat kept for them there opens to anyone. Returns the rematch
        (``None`` if there is none open)."""
        old = self.find(table_id)
        seat = old.seat_of(token)
        table = self._rematch_of(old.rematch) if old.rematch is not None else None
        if table is not None and table.status == "open":
            table.unreserve(old.token_hash(seat))
            return table
        return None

    def session(self, table: Table | Finished) -> dict[str, Any]:
        """The games of ``table``'s session so far, this one included once it is over: the
        table and the tables it is a rematch of (from memory or the store, at most
        :data:`MAX_SESSION`), ``games``, ``losses`` by seat, ``no_loser`` (games the move
        limit ended), counted from what the lobby shows (``spectator_delay`` late).

        >>> from skitgubbe.server import SQLiteStore
        >>> lobby = Lobby(SQLiteStore(":memory:"))
        >>> lobby.session(lobby.create({"seats": [None, "random"]}))
        {'games': 0, 'losses': [0, 0], 'no_loser': 0}
        """
        games, no_loser, losses = 0, 0, [0] * table.players
        seen: set[str] = set()
        current: Table | Finished | None = table
        while current is not None and current.id not in seen and len(seen) < MAX_SESSION:
            seen.add(current.id)
            result = current.summary()["result"]
            if result is not None:
                games += 1
                if result["loser"] is None:
                    no_loser += 1
                elif 0 <= result["loser"] < len(losses):
                    losses[result["loser"]] += 1
            after = current.config.after
            try:
                current = self.find(after) if after is not None else None
            except TableError:
                current = None
        return {"games": games, "losses": losses, "no_loser": no_loser}

    def get(self, table_id: object) -> Table:
        """A table in memory by id (open, running, or finished and not yet gone);
        :class:`TableError` 404 if there is none, 409 for a finished one that has left memory
        (:meth:`find` serves it from the store, :meth:`replayed` rebuilds it for a socket),
        410 with the reason if the server closed it."""
        table = self.tables.get(table_id) if isinstance(table_id, str) else None
        if table is not None:
            return table
        stored = self._stored(table_id)
        if stored.status == "over":
            raise TableError(f"table {table_id} is over: see its record", 409)
        return self._not_here(stored)

    def _rematch_of(self, table_id: str) -> Table | None:
        """A rematch by id, if it is still live here (a lobby of many processes: wherever
        it is played)."""
        return self.tables.get(table_id)

    def _not_here(self, stored: StoredTable) -> Table:
        """An open or running table in the store that is not in memory (one the lobby did
        not restore): 404 here; a lobby of many processes finds where it is played."""
        raise TableError(f"table {stored.id} is not served by this server now", 404)

    async def replayed(self, table_id: object) -> Table:
        """A finished table that has left memory, rebuilt from the store (its game replayed
        in a worker thread) for one socket's welcome, and kept nowhere: a socket that joins
        or watches it sees its end, then is closed. :class:`TableError` as :meth:`get`."""
        stored = self._stored(table_id)
        if stored.status != "over":
            raise TableError(f"table {table_id} is not served by this server now", 404)
        stored.moves = [str(move) for move in (stored.record or {}).get("moves", [])]
        return await asyncio.to_thread(self._restored, stored, {})

    def restore(self) -> int:
        """Rebuild every open and running table from the store and resume play; how many
        resumed.

        A stored table that can no longer be built (its configuration or moves are
        refused now, say a seat names a bot the server no longer has) is closed: the
        store keeps its seats and moves and marks it ``closed`` with the reason
        (:meth:`Store.abandon`), one line is logged, and its players are told why when
        they come back (:meth:`get` answers ``410`` with the reason). Every other table
        resumes: a restore never stops the server."""
        resumed = self._restore(self.store.load(("open", "running")))
        self._changed()
        return resumed

    def _restore(self, tables: list[StoredTable]) -> int:
        """Rebuild these stored tables and resume play (see :meth:`restore`); how many."""
        configs: dict[str, TableConfig] = {}  # most tables share a configuration
        collecting = gc.isenabled()
        gc.disable()  # a restore only adds objects: no collection would find garbage
        resumed = 0
        try:
            for stored in tables:
                try:
                    table = self._restored(stored, configs)
                except Exception as error:  # one table never stops the rest
                    self._abandon(stored.id, error)
                    continue
                self.tables[table.id] = table
                resumed += 1
                if table.status == "running" or table.ready():  # ready: its start went unstored
                    table.start()
        finally:
            if collecting:
                gc.enable()
        return resumed

    def _restored(self, stored: StoredTable, configs: dict[str, TableConfig]) -> Table:
        """A stored table rebuilt (not started)."""
        key = json.dumps(stored.config, sort_keys=True)
        config = configs.get(key)
        if config is None:
            config = configs[key] = TableConfig.from_json(
                stored.config, engines=self.engines, named_bots=self.named_bots, stored=True
            )
        return self._table(stored, config)

    def _abandon(self, table_id: str, error: Exception | str) -> None:
        """Close a stored table that cannot be rebuilt (or that nobody joined), saying why
        (one log line)."""
        if isinstance(error, str):
            reason = error
        elif isinstance(error, SkitgubbeError):
            reason = f"it could not be resumed: {error}"
        else:  # a bug: its traceback is logged too
            _log.exception("stored table %s could not be rebuilt", table_id)
            reason = "it could not be resumed (a server error, logged)"
        reason = _cut(reason, MAX_REASON)
        self.store.abandon(table_id, reason)
        _log.warning("stored table %s closed: %s", table_id, reason)

    def record(self, table_id: object) -> dict[str, Any]:
        """A finished game's record with the seats' names, from memory or the store."""
        return self.find(table_id).record()  # refused before the end is public

    def review(self, table_id: object, seat: object, client: str = "") -> Review:
        """The review of ``seat``'s moves in finished table ``table_id``'s game: done, or
        under way (started here the first time, in a worker thread; its ``status()`` says
        how far it is). Only once the game's record may be given (:meth:`record`): never
        during the game (409), nor for a table that does not exist (404); ``client`` (a
        client key) is who asked, for the bounds on reviews (:class:`Advisor`).

        >>> import asyncio
        >>> from skitgubbe.server import Lobby, SQLiteStore
        >>> async def main() -> tuple:
        ...     lobby = Lobby(SQLiteStore(":memory:"), review_engine="pimc:worlds=2")
        ...     table = lobby.create({"seats": ["greedy", "greedy"]})
        ...     await asyncio.wait_for(table.done.wait(), 60)
        ...     review = lobby.review(table.id, 1)
        ...     while review.result is None:
        ...         await asyncio.sleep(0.05)
        ...     await lobby.close()
        ...     return review.result["seat"], review.result["names"]
        >>> asyncio.run(main())
        (1, ['greedy 1', 'greedy 2'])
        """
        if not isinstance(table_id, str):
            raise TableError(f"no table {shorten(table_id)}", 404)
        record = self.record(table_id)  # refused before the end, and before it is shown
        players = int(record["rules"]["players"])
        if type(seat) is not int or not 0 <= seat < players:
            raise TableError(f"seat must be a number 0 … {players - 1}, not {shorten(seat)}")
        names = record.get("names") or [f"seat {s}" for s in range(players)]
        game = {key: value for key, value in record.items() if key != "names"}
        return self.advisor.review(table_id, seat, game, names, client)

    def listing(
        self, status: str | None = None, limit: int | None = None, before: str | None = None
    ) -> tuple[bytes, str]:
        """The lobby's list of tables as JSON bytes, and its ETag. ``status`` ``"live"``:
        the open and running tables, the newest first (at most ``limit``, default
        :data:`LIST_LIVE`, listed after table ``before``); ``"over"``: the finished ones
        whose end is public, the last to end first (default :data:`LIST_FINISHED`, from
        the store); ``None``: both, at their defaults (what the lobby's page shows). A
        rematch is listed once the old table's end is public. The default listing is made
        at most once every :data:`LIST_FRESH` seconds, however often it is asked.

        >>> from skitgubbe.server import SQLiteStore
        >>> lobby = Lobby(SQLiteStore(":memory:"))
        >>> table = lobby.create({"seats": [None, "greedy"]})
        >>> body, etag = lobby.listing()
        >>> json.loads(body)[0]["id"] == table.id, etag.startswith('W/"')
        (True, True)
        """
        for name, value in (("limit", limit),):
            if value is not None and (type(value) is not int or not 1 <= value <= MAX_LIST):
                raise TableError(f"{name} must be a number 1 … {MAX_LIST}, not {shorten(value)}")
        if status not in (None, "live", "over"):
            raise TableError(f"status must be live or over, not {shorten(status)}")
        default = status is None and limit is None and before is None
        now = time.monotonic()
        cached = self._listing
        if default and cached is not None:
            version, made, body, etag = cached
            if now - made < LIST_FRESH or (version == self.version and now - made < 5.0):
                return body, etag
        version = self.version
        rows: list[dict[str, Any]] = []
        if status in (None, "live"):
            rows += self._live_rows(limit or LIST_LIVE, before if status else None)
        if status in (None, "over"):
            stored = self.store.finished(limit or LIST_FINISHED, before if status else None)
            rows += [Finished(found).summary() for found in stored]
        body = json.dumps(rows, separators=(",", ":")).encode("utf-8")
        etag = 'W/"' + hashlib.sha256(body).hexdigest()[:32] + '"'
        if default:
            self._listing = (version, now, body, etag)
        return body, etag

    def _live_rows(self, limit: int, before: str | None) -> list[dict[str, Any]]:
        wall = time.time()
        live = [  # a finished table whose end is not public yet shows as running
            table
            for table in self.tables.values()
            if (table.status != "over" or table.public_since is None)
            and (table.listed_from is None or table.listed_from <= wall)
        ]
        live.sort(key=lambda table: (table.created, table.id), reverse=True)
        if before is not None:
            ids = [table.id for table in live]
            live = live[ids.index(before) + 1 :] if before in ids else []
        return [table.summary() for table in live[:limit]]

    def sweep(self, now: float | None = None) -> list[str]:
        """Expire the open tables nobody sat down at or left for
        :attr:`Limits.open_table_ttl <skitgubbe.server.limits.Limits.open_table_ttl>`
        seconds (closed in the store, with the reason), and let finished tables go from
        memory once their end is public and nobody has been connected for
        ``finished_linger`` seconds, or ``finished_grace`` after it whatever happens (they
        are served from the store then). Returns the ids that went. (``now``: the monotonic
        clock's time.)

        >>> import asyncio
        >>> from skitgubbe.server import SQLiteStore, TableError
        >>> async def main() -> tuple:
        ...     lobby = Lobby(SQLiteStore(":memory:"))
        ...     table = lobby.create({"seats": [None, "greedy"]})
        ...     gone = lobby.sweep(now=table.activity + 601)
        ...     try:
        ...         lobby.get(table.id)
        ...     except TableError as error:
        ...         return gone == [table.id], error.status
        >>> asyncio.run(main())
        (True, 410)
        """
        clock = time.monotonic() if now is None else now
        limits = self.limits
        gone: list[str] = []
        for table in list(self.tables.values()):
            if table.status == "open" and clock - table.activity >= limits.open_table_ttl:
                minutes = limits.open_table_ttl / 60
                self._abandon(table.id, f"nobody came to play within {minutes:g} minutes")
                gone.append(table.id)
                self._let_go(table, "the table expired: nobody came to play")
            elif table.status == "over" and table.public_since is not None:
                since = clock - table.public_since
                if since >= limits.finished_grace or (
                    since >= limits.finished_linger and not table.connected()
                ):
                    gone.append(table.id)
                    self._let_go(table, "the game is over")
        self._creates.prune()
        if gone:
            self._changed()
        return gone

    def _let_go(self, table: Table, reason: str) -> asyncio.Task[None]:
        """Take ``table`` out of memory: its play and its sockets stop (in the task returned)."""
        del self.tables[table.id]
        task = asyncio.get_running_loop().create_task(table.stop(close=reason))
        self._letting_go.add(task)
        task.add_done_callback(self._letting_go.discard)
        return task

    def start_sweeping(self, every: float = SWEEP_SECONDS) -> None:
        """Run :meth:`sweep` every ``every`` seconds in the running loop, until :meth:`close`."""

        async def sweeping() -> None:
            while True:
                await asyncio.sleep(every)
                try:
                    self.sweep()
                except Exception:  # a store that fails now: tried again next round
                    _log.exception("the lobby's sweep failed")

        self._sweeper = asyncio.get_running_loop().create_task(sweeping())

    async def close(self) -> None:
        """Stop every table's play (the store keeps them for the next start), the sweeps
        and the threads."""
        if self._sweeper is not None:
            self._sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._sweeper
        for table in self.tables.values():
            await table.stop()
        for task in list(self._letting_go):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        await self.advisor.close()
        await self.searches.close()
        self._commits.close()


@functools.lru_cache(maxsize=256)
def _config_of(text: str) -> TableConfig:
    data = json.loads(text)
    named: dict[str, list[str]] = {ENGINE_PREFIX: [], BOT_PREFIX: []}
    for spec in data.get("seats") or []:
        for prefix, names in named.items():
            if isinstance(spec, str) and spec.startswith(prefix):
                names.append(spec[len(prefix) :])
    return TableConfig.from_json(
        data, engines=named[ENGINE_PREFIX], named_bots=named[BOT_PREFIX], stored=True
    )


def _stored_config(config: dict[str, Any]) -> TableConfig:
    """A finished table's stored configuration, read again (cached: most tables share one):
    the engines and operator's bots its seats name are taken as they are (its game is over:
    no seat of it plays again)."""
    return _config_of(json.dumps(config, sort_keys=True))


def _dealer(table: Table | Finished) -> int:
    return table.game.dealer if isinstance(table, Table) else table.dealer


def _cost_bound(limits: Limits) -> dict[str, Any]:
    """The bound on a bot's cost a decision to check a table against, if the limits set one."""
    if limits.max_decision_seconds is None:
        return {}
    return {"max_decision_seconds": limits.max_decision_seconds}
