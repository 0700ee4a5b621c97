"""The lobby: all the tables of one server, the store they live in, and the advisor of their
hints and reviews.

:meth:`Lobby.create` makes a table from a request's configuration, :meth:`Lobby.restore`
rebuilds every open and running table from the store after a restart, and
:meth:`Lobby.record` and :meth:`Lobby.review` give a finished game's record and its review.

>>> from skitgubbe.server import Lobby, SQLiteStore
>>> lobby = Lobby(SQLiteStore(":memory:"))
>>> lobby.create({"seats": [None, "greedy"]}).status
'open'
"""

from __future__ import annotations

import gc
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
from .config import MAX_BOT_ITERATIONS, TableConfig
from .errors import TableError, shorten
from .store import Store, StoredTable
from .tables import Table

__all__ = ["MAX_REASON", "MAX_SESSION", "Lobby"]

MAX_REASON: Final = 300
"""The longest reason kept for a closed table, in characters."""

MAX_SESSION: Final = 1000
"""The most games of one session :meth:`Lobby.session` counts."""

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


class Lobby:
    """All the tables of one server, and the store they live in.

    >>> import asyncio
    >>> from skitgubbe.server.store import SQLiteStore
    >>> from skitgubbe.server.lobby import Lobby
    >>> async def main() -> dict:
    ...     lobby = Lobby(SQLiteStore(":memory:"))
    ...     table = lobby.create({"seats": ["greedy", "greedy", "random"]})
    ...     await asyncio.wait_for(table.done.wait(), 10)
    ...     return table.summary()["result"]
    >>> sorted(asyncio.run(main()))
    ['finish_order', 'loser', 'moves', 'truncated']
    """

    def __init__(
        self,
        store: Store,
        *,
        max_tables: int = 10_000,
        engines: Mapping[str, str] | None = None,
        named_bots: Mapping[str, str] | None = None,
        max_bot_iterations: int = MAX_BOT_ITERATIONS,
        hint_engine: str = HINT_ENGINE,
        review_engine: str = REVIEW_ENGINE,
    ) -> None:
        if type(max_bot_iterations) is not int or max_bot_iterations < 1:
            raise ArgumentError(
                f"max_bot_iterations must be an int >= 1, not {max_bot_iterations!r}"
            )
        self.store = store
        self.max_tables = max_tables
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
        self.closed: dict[str, str] = {}
        """The tables the server closed (:meth:`restore`), with the reason, by id."""
        self._commits = GroupCommit(store)
        self.advisor = Advisor(hint_engine, review_engine)
        """The hints at the tables that allow them, and the reviews of finished games."""

    def _table(self, stored: StoredTable, config: TableConfig) -> Table:
        return Table(
            stored,
            config,
            self.store,
            commits=self._commits,
            engines=self.engines,
            named_bots=self.named_bots,
            advisor=self.advisor,
        )

    def create(self, data: object, *, after: str | None = None) -> Table:
        """A new table from a JSON configuration; play starts at once if it has no person.
        ``after`` is the table it is a rematch of (:meth:`rematch`)."""
        if len(self.tables) >= self.max_tables:
            raise TableError("the server has as many tables as it can hold", 409)
        config = TableConfig.from_json(
            data,
            engines=self.engines,
            named_bots=self.named_bots,
            max_bot_iterations=self.max_bot_iterations,
        )
        if after is not None:
            config = attrs.evolve(config, after=after)
        stored = StoredTable(
            secrets.token_hex(8),
            config.to_json(),
            secrets.randbits(64),
            [None] * len(config.seats),
            created=time.time(),
        )
        self.store.create(stored)
        table = self._table(stored, config)
        self.tables[table.id] = table
        if table.ready():
            table.start()
        return table

    def rematch(self, table_id: object, token: object) -> tuple[Table, int, str]:
        """A rematch of a finished table, for the person whose ``token`` holds a seat there:
        the same seats, the same rules and clock, the deal passed on to the next dealer (a
        session, as :class:`skitgubbe.Session` plays one), and that person sat at their own
        seat again under the same name. The first person to ask creates it; the others who
        ask join it. Returns the new table, the seat and its token; :class:`TableError` with
        403 for a token that holds no seat, 409 before the end or when the seat is taken.

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
        old = self.get(table_id)
        seat = old.seat_of(token)
        if old.status != "over":
            raise TableError("the game is not over: a rematch comes after the end", 409)
        claimed = old.claimed_name(seat)
        table = self.tables.get(old.rematch) if old.rematch is not None else None
        if table is None:
            data = {**old.config.to_json(), "after": None}
            data["dealer"] = (old.game.dealer + 1) % old.players
            table = self.create(data, after=old.id)
            old.rematch = table.id
        if seat not in table.open_seats():
            raise TableError(f"seat {seat} of the rematch {table.id} is taken", 409)
        new_token = table.claim(seat, claimed)
        if table.ready():
            table.start()
        return table, seat, new_token

    def session(self, table: Table) -> dict[str, Any]:
        """The games of ``table``'s session so far, this one included once it is over: the
        table and the tables it is a rematch of, as far as this server still holds them
        (``games``, ``losses`` by seat, ``no_loser``: games the move limit ended), counted
        from what the lobby shows (``spectator_delay`` late).

        >>> from skitgubbe.server import SQLiteStore
        >>> lobby = Lobby(SQLiteStore(":memory:"))
        >>> lobby.session(lobby.create({"seats": [None, "random"]}))
        {'games': 0, 'losses': [0, 0], 'no_loser': 0}
        """
        games, no_loser, losses = 0, 0, [0] * table.players
        seen: set[str] = set()
        current: Table | None = table
        while current is not None and current.id not in seen and len(seen) < MAX_SESSION:
            seen.add(current.id)
            result = current.summary()["result"]
            if result is not None:
                games += 1
                if result["loser"] is None:
                    no_loser += 1
                else:
                    losses[result["loser"]] += 1
            after = current.config.after
            current = self.tables.get(after) if after is not None else None
        return {"games": games, "losses": losses, "no_loser": no_loser}

    def get(self, table_id: object) -> Table:
        """A table by id; :class:`TableError` (404) if there is none, 410 with the reason
        if the server closed it (:meth:`restore`)."""
        table = self.tables.get(table_id) if isinstance(table_id, str) else None
        if table is None:
            reason = self.closed.get(table_id) if isinstance(table_id, str) else None
            if reason is not None:
                raise TableError(f"table {table_id} was closed: {reason}", 410)
            raise TableError(f"no table {shorten(table_id)}", 404)
        return table

    def restore(self) -> int:
        """Rebuild every open and running table from the store and resume play; how many
        resumed.

        A stored table that can no longer be built (its configuration or moves are
        refused now, say a seat names a bot the server no longer has) is closed: the
        store keeps its seats and moves and marks it ``closed`` with the reason
        (:meth:`Store.abandon`), one line is logged, and its players are told why when
        they come back (:meth:`get` answers ``410`` with the reason). Every other table
        resumes: a restore never stops the server."""
        configs: dict[str, TableConfig] = {}  # most tables share a configuration
        collecting = gc.isenabled()
        gc.disable()  # a restore only adds objects: no collection would find garbage
        resumed = 0
        try:
            for stored in self.store.load(("open", "running")):
                try:
                    table = self._restored(stored, configs)
                except Exception as error:  # one table never stops the rest
                    self._abandon(stored.id, error)
                    continue
                self.tables[table.id] = table
                resumed += 1
                if table.status == "running" or table.ready():  # ready: its start went unstored
                    table.start()
            for stored in self.store.load(("closed",)):
                reason = (stored.record or {}).get("closed")
                self.closed[stored.id] = str(reason)
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

    def _abandon(self, table_id: str, error: Exception) -> None:
        """Close a stored table that cannot be rebuilt, saying why (one log line)."""
        if isinstance(error, SkitgubbeError):
            reason = f"it could not be resumed: {error}"
        else:  # a bug: its traceback is logged too
            _log.exception("stored table %s could not be rebuilt", table_id)
            reason = "it could not be resumed (a server error, logged)"
        reason = _cut(reason, MAX_REASON)
        self.store.abandon(table_id, reason)
        self.closed[table_id] = reason
        _log.warning("stored table %s closed: %s", table_id, reason)

    def record(self, table_id: str) -> dict[str, Any]:
        """A finished game's record, from memory or the store."""
        table = self.tables.get(table_id)
        if table is not None:
            return table.record()
        record = self.store.record(table_id)
        if record is None:
            raise TableError(f"no finished table {table_id!r}", 404)
        return record

    def review(self, table_id: object, seat: object, client: str = "") -> Review:
        """The review of ``seat``'s moves in finished table ``table_id``'s game: done, or
        under way (started here the first time, in a worker thread; its ``status()`` says
        how far it is). Only once the game's record may be given (:meth:`record`): never
        during the game (409), nor for a table that does not exist (404); ``client`` (an
        address) is who asked, for the bounds on reviews under way (:class:`Advisor`).

        >>> import asyncio
        >>> from skitgubbe.server import Lobby, SQLiteStore
        >>> async def main() -> tuple:
        ...     lobby = Lobby(SQLiteStore(":memory:"), review_engine="pimc:worlds=2")
        ...     table = lobby.create({"seats": ["greedy", "greedy"]})
        ...     await asyncio.wait_for(table.done.wait(), 60)
        ...     review = lobby.review(table.id, 1)
        ...     while review.result is None:
        ...         await asyncio.sleep(0.05)
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
        table = self.tables.get(table_id)
        names = table.names() if table is not None else [f"seat {s}" for s in range(players)]
        return self.advisor.review(table_id, seat, record, names, client)

    async def close(self) -> None:
        """Stop every table's play (the store keeps them for the next start)."""
        for table in self.tables.values():
            await table.stop()
        await self.advisor.close()
