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
import secrets
import time
from collections.abc import Mapping
from typing import Any

from ..bots.command import EngineSpec
from ..errors import ArgumentError, SkitgubbeError
from .advice import HINT_ENGINE, REVIEW_ENGINE, Advisor, Review
from .commits import GroupCommit
from .config import MAX_BOT_ITERATIONS, TableConfig
from .errors import TableError, shorten
from .store import Store, StoredTable
from .tables import Table

__all__ = ["Lobby"]


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
        self.tables: dict[str, Table] = {}
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
            advisor=self.advisor,
        )

    def create(self, data: object) -> Table:
        """A new table from a JSON configuration; play starts at once if it has no person."""
        if len(self.tables) >= self.max_tables:
            raise TableError("the server has as many tables as it can hold", 409)
        config = TableConfig.from_json(
            data, engines=self.engines, max_bot_iterations=self.max_bot_iterations
        )
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

    def get(self, table_id: object) -> Table:
        """A table by id; :class:`TableError` (404) if there is none."""
        table = self.tables.get(table_id) if isinstance(table_id, str) else None
        if table is None:
            raise TableError(f"no table {shorten(table_id)}", 404)
        return table

    def restore(self) -> int:
        """Rebuild every open and running table from the store and resume play; how many."""
        configs: dict[str, TableConfig] = {}  # most tables share a configuration
        collecting = gc.isenabled()
        gc.disable()  # a restore only adds objects: no collection would find garbage
        try:
            stored_tables = self.store.load(("open", "running"))
            for stored in stored_tables:
                key = json.dumps(stored.config, sort_keys=True)
                config = configs.get(key)
                if config is None:
                    try:
                        config = configs[key] = TableConfig.from_json(
                            stored.config, engines=self.engines, stored=True
                        )
                    except TableError as error:
                        raise ArgumentError(f"stored table {stored.id}: {error}") from None
                table = self._table(stored, config)
                self.tables[table.id] = table
                if table.status == "running" or table.ready():  # ready: its start went unstored
                    table.start()
        finally:
            if collecting:
                gc.enable()
        return len(stored_tables)

    def record(self, table_id: str) -> dict[str, Any]:
        """A finished game's record, from memory or the store."""
        table = self.tables.get(table_id)
        if table is not None:
            return table.record()
        record = self.store.record(table_id)
        if record is None:
            raise TableError(f"no finished table {table_id!r}", 404)
        return record

    def review(self, table_id: object, seat: object) -> Review:
        """The review of ``seat``'s moves in finished table ``table_id``'s game: done, or
        under way (started here the first time, in a worker thread; its ``status()`` says
        how far it is). Only once the game's record may be given (:meth:`record`): never
        during the game (409), nor for a table that does not exist (404).

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
        return self.advisor.review(table_id, seat, record, names)

    async def close(self) -> None:
        """Stop every table's play (the store keeps them for the next start)."""
        for table in self.tables.values():
            await table.stop()
        await self.advisor.close()
