"""Where the server keeps its tables: every move is written here before anyone hears of it.

:class:`Store` is the interface (a handful of methods, each one small
transaction, but for moves, which are kept until :meth:`Store.flush` writes every
move appended since in one transaction: the server flushes once per turn of its
event loop, for all its tables, and tells nobody of a move before that);
:class:`SQLiteStore` implements it on one SQLite file (the
default; ``":memory:"`` for tests). Another database needs only these methods.
A store holds for each table its configuration, its secret seed, its seats
(the SHA-256 of each seat's token, never the token) and its moves; a finished
table keeps its game record for :command:`skitgubbe replay`.

>>> from skitgubbe.server.store import SQLiteStore, StoredTable
>>> store = SQLiteStore(":memory:")
>>> store.create(StoredTable("t1", {"players": 3}, seed=7, seats=[None, None, None]))
>>> store.claim("t1", 0, "ab" * 32, "Ann")
>>> store.start("t1")
>>> store.append_move("t1", 0, "6♥", None)
>>> store.flush()  # now the move is stored
>>> [(t.id, t.status, t.moves) for t in store.load()]
[('t1', 'running', ['6♥'])]
"""

from __future__ import annotations

import abc
import collections
import contextlib
import json
import logging
import os
import sqlite3
import threading
import time
import weakref
from collections.abc import Iterable, Sequence
from typing import Any, Final, Literal, Protocol, runtime_checkable

import attrs

from ..errors import SkitgubbeError

__all__ = [
    "SCHEMA_VERSION",
    "LeaseLostError",
    "SQLStore",
    "SQLiteStore",
    "Status",
    "Store",
    "StoreError",
    "StoredSeat",
    "StoredTable",
]

Status = Literal["open", "running", "over", "closed"]
"""A table's state: seats still open, being played, finished, or closed by the server
(it could no longer be played: :meth:`Store.abandon`)."""


class StoreError(SkitgubbeError):
    """The store could not write (a full disk, a closed or damaged database): that
    transaction changed nothing, and every move appended before it is still pending,
    stored by the next write that succeeds. The server retries its commits until one
    does; a request that met it is answered ``503`` with the code ``store_unavailable``.

    >>> from skitgubbe.server.store import SQLiteStore, StoreError, StoredTable
    >>> store = SQLiteStore(":memory:")
    >>> store.create(StoredTable("t", {}, seed=1, seats=[None, None]))
    >>> try:
    ...     store.create(StoredTable("t", {}, seed=2, seats=[None, None]))
    ... except StoreError as error:
    ...     print(error)
    the store could not write: UNIQUE constraint failed: tables.id
    """


class LeaseLostError(SkitgubbeError):
    """A write for a table this node no longer owns (another took it over: its epoch grew):
    nothing of the transaction was stored. The table stops here; its people reconnect to
    the node that owns it now.

    >>> from skitgubbe.server.store import LeaseLostError
    >>> LeaseLostError(["t1"]).tables
    ['t1']
    """

    def __init__(self, tables: Iterable[str]) -> None:
        self.tables = sorted(tables)
        super().__init__(f"this node no longer owns table {', '.join(self.tables)}")


@attrs.define
class StoredSeat:
    """A claimed seat: the SHA-256 (hex) of its token and the person's name.

    >>> from skitgubbe.server import StoredSeat, hash_token
    >>> StoredSeat(hash_token("secret"), "Ann").name
    'Ann'
    """

    token_hash: str
    name: str


@attrs.define
class StoredTable:
    """One table as the store keeps it.

    ``config`` is the table's JSON configuration (rules, seats, clocks),
    ``seed`` deals the game and stays secret until it ends, ``seats`` holds a
    :class:`StoredSeat` per claimed seat (``None`` for a bot's or an open one),
    ``moves`` the moves played (as move strings) and ``stand_ins`` the moves a
    stand-in made for a seat (``"timeout"``) by their index. ``record`` is the
    finished game's record.

    >>> from skitgubbe.server import StoredTable
    >>> StoredTable("t1", {"seats": [None, "greedy"]}, seed=5, seats=[None, None]).status
    'open'
    """

    id: str
    config: dict[str, Any]
    seed: int
    seats: list[StoredSeat | None]
    status: Status = "open"
    moves: list[str] = attrs.field(factory=list)
    stand_ins: dict[int, str] = attrs.field(factory=dict)
    created: float = attrs.field(factory=time.time)
    record: dict[str, Any] | None = None
    rematch: str | None = None
    """The id of the table's rematch, once a person asked for one (:meth:`Store.set_rematch`)."""
    public_at: float | None = None
    """When a finished table's end is public (its end plus the spectator delay, epoch
    seconds): listed as finished only from then on (``None``: at once)."""
    clock: tuple[int, float] | None = None
    """The running clock of a person's turn: the move number it is for and when it runs out
    (epoch seconds); a table resumed elsewhere or after a restart keeps it
    (:meth:`Store.set_clock`)."""
    client: str = ""
    """Who made the table (a client key): a store that many processes share counts each
    client's tables from it (:class:`~skitgubbe.server.postgres.PostgresStore`)."""


@runtime_checkable
class Store(Protocol):
    """The server's persistence: each method is one transaction, done when it returns,
    except :meth:`append_move`, which :meth:`flush` (or the next other write) stores.

    A write that fails raises :class:`StoreError` and changes nothing: the moves
    appended before it stay pending, for the next write (the server retries until one
    succeeds: a move is never dropped).

    :class:`SQLiteStore` is one; another database needs these methods only.

    >>> from skitgubbe.server import SQLiteStore, Store
    >>> isinstance(SQLiteStore(":memory:"), Store)
    True
    """

    lost: set[str]
    """The tables whose writes this process may no longer make, another process having
    taken them over (always empty in a store only one process writes)."""

    def create(self, table: StoredTable) -> None:
        """Add a new table (with its seats as given)."""

    def claim(self, table_id: str, seat: int, token_hash: str, name: str) -> None:
        """Give an open seat to a person."""

    def release(self, table_id: str, seat: int) -> None:
        """Open a claimed seat again (before the game starts)."""

    def start(self, table_id: str) -> None:
        """Mark the table as being played."""

    def append_move(self, table_id: str, index: int, move: str, stand_in: str | None) -> None:
        """Add move number ``index`` (0-based), stored by the next :meth:`flush` (or
        other write); the store refuses a gap or a repeat at once."""

    def flush(self) -> None:
        """Store every move appended since the last flush, in one transaction."""

    def set_clock(self, table_id: str, n: int, deadline: float) -> None:
        """Keep when the clock of move ``n`` (a person's turn) runs out (epoch seconds),
        stored by the next :meth:`flush` with the moves."""

    def finish(self, table_id: str, record: dict[str, Any], public_at: float | None = None) -> None:
        """Mark the table over and keep its game record; its end is public from
        ``public_at`` (epoch seconds; ``None``: at once)."""

    def set_rematch(self, table_id: str, rematch: str) -> str:
        """Keep the id of a finished table's rematch, unless it has one already (another
        process made one at the same moment); the rematch's id it keeps."""

    def load(self, status: Sequence[Status] = ("open", "running")) -> list[StoredTable]:
        """The tables in these states, with their seats and moves (flushed first), oldest
        first."""

    def table(self, table_id: str) -> StoredTable | None:
        """One table in any state, with its seats and moves, or ``None``."""

    def finished(
        self, limit: int, before: str | None = None, now: float | None = None
    ) -> list[StoredTable]:
        """At most ``limit`` finished tables whose end is public at ``now`` (epoch seconds,
        default the clock's), the last to become public first, without their moves (their
        ``record`` has them); ``before``: only those listed after that table's id."""

    def abandon(self, table_id: str, reason: str) -> None:
        """Mark a table that can no longer be played ``closed``, keeping ``reason`` as its
        ``record`` (``{"closed": reason}``); its seats and moves stay stored."""

    def record(self, table_id: str) -> dict[str, Any] | None:
        """A finished table's game record, or ``None``."""

    def close(self) -> None:
        """Release the database."""


_SCHEMA: Final = """
CREATE TABLE IF NOT EXISTS tables (
    id TEXT PRIMARY KEY,
    config TEXT NOT NULL,
    seed TEXT NOT NULL,
    status TEXT NOT NULL,
    created REAL NOT NULL,
    record TEXT
);
CREATE TABLE IF NOT EXISTS seats (
    table_id TEXT NOT NULL REFERENCES tables(id),
    seat INTEGER NOT NULL,
    token_hash TEXT NOT NULL,
    name TEXT NOT NULL,
    PRIMARY KEY (table_id, seat)
);
CREATE TABLE IF NOT EXISTS moves (
    -- One row per table and flush: the moves n, n + 1, ... one a line (a restart reads a
    -- few rows a table, not one a move).
    table_id TEXT NOT NULL REFERENCES tables(id),
    n INTEGER NOT NULL,
    moves TEXT NOT NULL,
    PRIMARY KEY (table_id, n)
);
CREATE TABLE IF NOT EXISTS stand_ins (
    table_id TEXT NOT NULL REFERENCES tables(id),
    n INTEGER NOT NULL,
    stand_in TEXT NOT NULL,
    PRIMARY KEY (table_id, n)
);
"""
"""Schema 1, what every release before schema versions wrote (``PRAGMA user_version`` 0)."""

SCHEMA_VERSION: Final = 3
"""The schema this release writes (``PRAGMA user_version``); older files are upgraded when
opened (:data:`_MIGRATIONS`), and say so once in the log."""

_MIGRATIONS: Final[dict[int, tuple[str, ...]]] = {
    # 1 -> 2: finished tables leave the server's memory and are served from the store: the
    # store keeps a rematch's id and when a table's end is public, and lists the finished.
    1: (
        "ALTER TABLE tables ADD COLUMN rematch TEXT",
        "ALTER TABLE tables ADD COLUMN public_at REAL",
        "CREATE INDEX IF NOT EXISTS tables_finished ON tables (status, public_at, id)",
    ),
    # 2 -> 3: the clock of a person's turn is kept, so that a restart does not reset it.
    2: (
        "ALTER TABLE tables ADD COLUMN clock_n INTEGER",
        "ALTER TABLE tables ADD COLUMN clock_at REAL",
    ),
}
"""The statements that take a file from schema ``n`` to ``n + 1``, each in a transaction."""

_log: Final = logging.getLogger("skitgubbe.server")

Statement = tuple[str, Sequence[object]]
"""One SQL statement (with ``?`` for its arguments) and its arguments."""

_COLUMNS: Final = "id, config, seed, status, created, record, rematch, public_at, clock_n, clock_at"


def _migrate(db: sqlite3.Connection, path: str) -> None:
    """Create the schema in a new file, or upgrade an older file to :data:`SCHEMA_VERSION`
    (one transaction a step; a file newer than this release is refused)."""
    version = db.execute("PRAGMA user_version").fetchone()[0]
    if version > SCHEMA_VERSION:
        raise StoreError(
            f"{path} has schema {version}, newer than this release's {SCHEMA_VERSION}: "
            "upgrade skitgubbe to open it"
        )
    if version == SCHEMA_VERSION:
        return
    existed = db.execute("SELECT 1 FROM sqlite_master WHERE name = 'tables'").fetchone()
    db.executescript(_SCHEMA)
    start = max(version, 1)
    for step in range(start, SCHEMA_VERSION):
        db.execute("BEGIN")
        for statement in _MIGRATIONS[step]:
            db.execute(statement)
        db.execute(f"PRAGMA user_version = {step + 1}")
        db.execute("COMMIT")
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    if existed:
        _log.warning("the store %s was upgraded from schema %s to %s", path, start, SCHEMA_VERSION)


class SQLStore(abc.ABC):
    """What the SQL stores share: the same tables and statements (written with ``?`` for
    their arguments), the moves kept until the next transaction, the tables rebuilt from
    rows. A subclass gives the connection: :meth:`_transaction` and :meth:`_select`.
    :class:`SQLiteStore` and :class:`~skitgubbe.server.postgres.PostgresStore` are two.

    >>> from skitgubbe.server.store import SQLiteStore, SQLStore
    >>> isinstance(SQLiteStore(":memory:"), SQLStore)
    True
    """

    def __init__(self) -> None:
        self._counts: dict[str, int] = {}  # the moves of each table stored or pending
        self._moves: list[tuple[str, int, str, str | None]] = []  # appended, not yet stored
        self._clocks: dict[str, tuple[int, float]] = {}  # set, not yet stored
        # Held for each change of the three above: a store whose flush runs in a thread of
        # its own (PostgresStore) has moves appended meanwhile in the loop's.
        self._appending = threading.Lock()
        self.lost: set[str] = set()
        """The tables whose writes this process may no longer make: another process took
        them over (only a store shared by many processes loses any)."""

    @abc.abstractmethod
    def _transaction(self, statements: Sequence[Statement], fence: Sequence[str] = ()) -> None:
        """The pending writes (:meth:`_pending`) and ``statements`` in one transaction. If
        it fails, nothing of it is stored, the writes stay pending (for the next one), and
        :class:`StoreError` says why. ``fence``: the tables the statements write for (a
        store shared by many processes checks that this one still owns them)."""

    @abc.abstractmethod
    def _select(self, sql: str, args: Sequence[object] = ()) -> list[tuple[Any, ...]]:
        """The rows of one query (:class:`StoreError` if the database cannot answer)."""

    def _write(self, sql: str = "", args: Sequence[object] = (), table: str | None = None) -> None:
        """One transaction: the pending writes, then ``sql`` (if any), which writes for
        ``table`` (if any: see :meth:`_transaction`)."""
        self._transaction([(sql, args)] if sql else [], () if table is None else (table,))

    def _pending(self) -> tuple[int, dict[str, tuple[int, float]], list[tuple[str, list[Any]]]]:
        """The writes waiting for the next transaction, as (statement, rows) batches, with
        how many moves and which clocks they hold (for :meth:`_committed`)."""
        pending, clocks = self._snapshot()
        batches: list[tuple[str, list[Any]]] = []
        if pending:
            runs: dict[str, tuple[int, list[str]]] = {}  # each table's first new move, and all
            for table_id, index, move, _ in pending:
                runs.setdefault(table_id, (index, []))[1].append(move)
            batches.append(
                (
                    "INSERT INTO moves VALUES (?, ?, ?)",
                    [
                        (table_id, first, "\n".join(moves))
                        for table_id, (first, moves) in runs.items()
                    ],
                )
            )
            stood_in = [(t, n, why) for t, n, _, why in pending if why is not None]
            if stood_in:
                batches.append(("INSERT INTO stand_ins VALUES (?, ?, ?)", stood_in))
        if clocks:
            batches.append(
                (
                    "UPDATE tables SET clock_n = ?, clock_at = ? WHERE id = ?",
                    [(n, at, table_id) for table_id, (n, at) in clocks.items()],
                )
            )
        return len(pending), clocks, batches

    def _snapshot(
        self,
    ) -> tuple[list[tuple[str, int, str, str | None]], dict[str, tuple[int, float]]]:
        """The moves and clocks waiting for the next transaction (copies)."""
        with self._appending:
            return list(self._moves), dict(self._clocks)

    def _committed(self, moves: int, clocks: dict[str, tuple[int, float]]) -> None:
        """The pending writes :meth:`_pending` gave are stored: no longer pending."""
        with self._appending:
            del self._moves[:moves]
            for table_id, clock in clocks.items():
                if self._clocks.get(table_id) == clock:
                    del self._clocks[table_id]

    def flush(self) -> None:
        if self._moves or self._clocks:
            self._write()

    def _create_statements(self, table: StoredTable) -> list[Statement]:
        statements: list[Statement] = [
            (
                "INSERT INTO tables (id, config, seed, status, created) VALUES (?, ?, ?, ?, ?)",
                (table.id, json.dumps(table.config), str(table.seed), table.status, table.created),
            )
        ]
        for seat, claimed in enumerate(table.seats):
            if claimed is not None:
                statements.append(
                    (
                        "INSERT INTO seats VALUES (?, ?, ?, ?)",
                        (table.id, seat, claimed.token_hash, claimed.name),
                    )
                )
        return statements

    def create(self, table: StoredTable) -> None:
        self._transaction(self._create_statements(table))
        self._counts[table.id] = 0

    def claim(self, table_id: str, seat: int, token_hash: str, name: str) -> None:
        sql = "INSERT INTO seats VALUES (?, ?, ?, ?)"
        self._write(sql, (table_id, seat, token_hash, name), table_id)

    def release(self, table_id: str, seat: int) -> None:
        self._write("DELETE FROM seats WHERE table_id = ? AND seat = ?", (table_id, seat), table_id)

    def start(self, table_id: str) -> None:
        self._write("UPDATE tables SET status = 'running' WHERE id = ?", (table_id,), table_id)

    def append_move(self, table_id: str, index: int, move: str, stand_in: str | None) -> None:
        if "\n" in move:
            raise ValueError(f"a move is one line, not {move!r}")
        count = self._counts.get(table_id)
        if count is None:
            count = len(self._stored_moves(table_id))
        if index != count:
            raise ValueError(
                f"table {table_id!r} has {count} moves stored: move {index} would "
                + ("leave a gap" if index > count else "repeat one")
            )
        with self._appending:
            self._moves.append((table_id, index, move, stand_in))
            self._counts[table_id] = count + 1

    def set_clock(self, table_id: str, n: int, deadline: float) -> None:
        """Keep when the clock of move ``n`` runs out (see :class:`Store`).

        >>> from skitgubbe.server.store import SQLiteStore, StoredTable
        >>> store = SQLiteStore(":memory:")
        >>> store.create(StoredTable("t", {"seats": [None, None]}, seed=1, seats=[None, None]))
        >>> store.set_clock("t", 0, 1000.5)
        >>> store.flush()
        >>> store.table("t").clock
        (0, 1000.5)
        """
        with self._appending:
            self._clocks[table_id] = (n, deadline)

    def finish(self, table_id: str, record: dict[str, Any], public_at: float | None = None) -> None:
        self._write(
            "UPDATE tables SET status = 'over', record = ?, public_at = ?, clock_n = NULL "
            "WHERE id = ?",
            (json.dumps(record), public_at, table_id),
            table_id,
        )
        self._counts.pop(table_id, None)

    def set_rematch(self, table_id: str, rematch: str) -> str:
        """Keep a finished table's rematch, the first one only (see :class:`Store`).

        >>> from skitgubbe.server.store import SQLiteStore, StoredTable
        >>> store = SQLiteStore(":memory:")
        >>> store.create(StoredTable("t", {"seats": [None, None]}, seed=1, seats=[None, None]))
        >>> store.set_rematch("t", "u"), store.set_rematch("t", "v")
        ('u', 'u')
        """
        sql = "UPDATE tables SET rematch = ? WHERE id = ? AND rematch IS NULL"
        self._write(sql, (rematch, table_id))
        rows = self._select("SELECT rematch FROM tables WHERE id = ?", (table_id,))
        return str(rows[0][0]) if rows and rows[0][0] is not None else rematch

    def abandon(self, table_id: str, reason: str) -> None:
        """Close a table that can no longer be played, with its reason (see :class:`Store`).

        >>> from skitgubbe.server.store import SQLiteStore, StoredTable
        >>> store = SQLiteStore(":memory:")
        >>> store.create(StoredTable("t1", {"players": 2}, seed=7, seats=[None, None]))
        >>> store.abandon("t1", "its bot is gone")
        >>> [(t.status, t.record) for t in store.load(("closed",))]
        [('closed', {'closed': 'its bot is gone'})]
        """
        self._write(
            "UPDATE tables SET status = 'closed', record = ? WHERE id = ?",
            (json.dumps({"closed": reason}), table_id),
            table_id,
        )
        self._counts.pop(table_id, None)

    def load(self, status: Sequence[Status] = ("open", "running")) -> list[StoredTable]:
        marks = ", ".join("?" * len(status))
        return self._read(f"status IN ({marks})", tuple(status), "created, id")

    def tables(self, ids: Sequence[str]) -> list[StoredTable]:
        """These tables (those that exist), with their seats and moves, oldest first.

        >>> from skitgubbe.server.store import SQLiteStore, StoredTable
        >>> store = SQLiteStore(":memory:")
        >>> store.create(StoredTable("t1", {"seats": [None, None]}, seed=7, seats=[None, None]))
        >>> [t.id for t in store.tables(["t1", "t2"])]
        ['t1']
        """
        found: list[StoredTable] = []
        for chunk in _chunks(list(ids)):
            found += self._read(f"id IN ({', '.join('?' * len(chunk))})", chunk, "created, id")
        return sorted(found, key=lambda table: (table.created, table.id))

    def table(self, table_id: str) -> StoredTable | None:
        """One table (see :class:`Store`).

        >>> from skitgubbe.server.store import SQLiteStore, StoredTable
        >>> store = SQLiteStore(":memory:")
        >>> store.create(StoredTable("t1", {"seats": [None, "greedy"]}, seed=7, seats=[None, None]))
        >>> store.table("t1").status, store.table("t2")
        ('open', None)
        """
        found = self._read("id = ?", (table_id,), "id")
        return found[0] if found else None

    def finished(
        self, limit: int, before: str | None = None, now: float | None = None
    ) -> list[StoredTable]:
        """The finished tables whose end is public, newest first (see :class:`Store`).

        >>> from skitgubbe.server.store import SQLiteStore, StoredTable
        >>> store = SQLiteStore(":memory:")
        >>> for n in range(3):
        ...     store.create(StoredTable(f"t{n}", {"seats": [None, None]}, 7, [None, None]))
        ...     store.finish(f"t{n}", {"moves": []}, public_at=100.0 + n)
        >>> [t.id for t in store.finished(2, now=150.0)], [t.id for t in store.finished(5, "t1")]
        (['t2', 't1'], ['t0'])
        >>> [t.id for t in store.finished(5, now=101.5)]  # t2's end is not public yet
        ['t1', 't0']
        """
        clock = time.time() if now is None else now
        where = "status = 'over' AND COALESCE(public_at, 0) <= ?"
        args: list[object] = [clock]
        if before is not None:
            where += (
                " AND (COALESCE(public_at, 0), id) < (SELECT COALESCE(public_at, 0), id "
                "FROM tables WHERE id = ?)"
            )
            args.append(before)
        order = "COALESCE(public_at, 0) DESC, id DESC"
        return self._read(where, tuple(args), order, limit=limit, moves=False)

    def _read(
        self,
        where: str,
        args: tuple[object, ...],
        order: str,
        *,
        limit: int | None = None,
        moves: bool = True,
    ) -> list[StoredTable]:
        """The tables ``where`` says, with their seats (and moves: flushed first)."""
        if moves:
            self.flush()
        limited = "" if limit is None else f" LIMIT {int(limit)}"
        rows = self._select(
            f"SELECT {_COLUMNS} FROM tables WHERE {where} ORDER BY {order}{limited}", args
        )
        ids = [row[0] for row in rows]
        seats: dict[str, dict[int, StoredSeat]] = {}
        played: collections.defaultdict[str, list[str]] = collections.defaultdict(list)
        stand_ins: dict[str, dict[int, str]] = {}
        for chunk in _chunks(ids):
            marks = ", ".join("?" * len(chunk))
            for table_id, seat, token_hash, name in self._select(
                f"SELECT table_id, seat, token_hash, name FROM seats WHERE table_id IN ({marks})",
                chunk,
            ):
                seats.setdefault(table_id, {})[seat] = StoredSeat(token_hash, name)
            if not moves:
                continue
            for table_id, n, run in self._select(
                f"SELECT table_id, n, moves FROM moves WHERE table_id IN ({marks}) "
                "ORDER BY table_id, n",
                chunk,
            ):
                _extend(played[table_id], table_id, n, run)
            for table_id, n, stand_in in self._select(
                f"SELECT table_id, n, stand_in FROM stand_ins WHERE table_id IN ({marks})",
                chunk,
            ):
                stand_ins.setdefault(table_id, {})[n] = stand_in
        tables = []
        for table_id, config, seed, state, created, record, rematch, public_at, n, at in rows:
            parsed = json.loads(config)
            claimed = seats.get(table_id, {})
            its_moves = played.get(table_id, [])
            if moves and state in ("open", "running"):
                self._counts[table_id] = len(its_moves)
            tables.append(
                StoredTable(
                    table_id,
                    parsed,
                    int(seed),
                    [claimed.get(seat) for seat in range(_players(parsed))],
                    state,
                    its_moves,
                    stand_ins.get(table_id, {}),
                    created,
                    None if record is None else json.loads(record),
                    rematch,
                    public_at,
                    None if n is None or at is None else (int(n), float(at)),
                )
            )
        return tables

    def _stored_moves(self, table_id: str) -> list[str]:
        self.flush()
        moves: list[str] = []
        for n, run in self._select(
            "SELECT n, moves FROM moves WHERE table_id = ? ORDER BY n", (table_id,)
        ):
            _extend(moves, table_id, n, run)
        return moves

    def record(self, table_id: str) -> dict[str, Any] | None:
        rows = self._select(
            "SELECT record FROM tables WHERE id = ? AND status = 'over'", (table_id,)
        )
        return None if not rows or rows[0][0] is None else dict(json.loads(rows[0][0]))


class SQLiteStore(SQLStore):
    """A :class:`Store` in one SQLite file (created if missing).

    The journal is a write-ahead log with ``synchronous=NORMAL``: a committed
    move survives the server's process being killed (the operating system holds
    it), at a fraction of a millisecond per move; ``durable=True`` syncs every
    commit to the disk too (``synchronous=FULL``), for power losses.

    The log is copied into the database (a checkpoint, which waits for the disk)
    by a thread of the store's own every ``checkpoint_every`` seconds, never by a
    commit: a commit that did it would hold the whole server up, for a second at
    times on a busy disk.

    >>> from skitgubbe.server.store import SQLiteStore, StoredTable
    >>> store = SQLiteStore(":memory:")
    >>> store.create(StoredTable("t", {}, seed=1, seats=[None, None]))
    >>> store.append_move("t", 1, "7♣", None)
    Traceback (most recent call last):
        ...
    ValueError: table 't' has 0 moves stored: move 1 would leave a gap
    """

    def __init__(self, path: str, *, durable: bool = False, checkpoint_every: float = 1.0) -> None:
        super().__init__()
        self.path = path
        self._durable = durable
        self._closed = False
        self._db: sqlite3.Connection | None = self._connect()
        wal = self._db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        _migrate(self._db, path)
        self._checkpoints: _Checkpoints | None = None
        # Held by each transaction, and by the checkpoint thread to finish a checkpoint.
        self._writing = threading.Lock()
        if wal:  # a file (":memory:" has no log)
            # The thread opens the file by its absolute name: the working directory may change.
            self._checkpoints = _Checkpoints(os.path.abspath(path), checkpoint_every, self._writing)
            weakref.finalize(self, self._checkpoints.stopping.set)  # a store never closed

    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        if db.execute("PRAGMA journal_mode=WAL").fetchone()[0] == "wal":
            db.execute("PRAGMA wal_autocheckpoint=0")  # commits never checkpoint: the thread does
        db.execute(f"PRAGMA synchronous={'FULL' if self._durable else 'NORMAL'}")
        db.execute("PRAGMA foreign_keys=ON")
        return db

    def _connection(self) -> sqlite3.Connection:
        """The connection; a file's is opened again if it was lost (closed under the store)."""
        if self._db is None:
            if self._closed or self.path == ":memory:":
                raise sqlite3.ProgrammingError("the store is closed")
            self._db = self._connect()
        return self._db

    def _transaction(self, statements: Sequence[Statement], fence: Sequence[str] = ()) -> None:
        with self._writing:
            try:
                db = self._connection()
                if db.in_transaction:  # a rollback that failed before
                    db.rollback()
                db.execute("BEGIN")
                try:
                    moves, clocks, batches = self._pending()
                    for sql, rows in batches:
                        db.executemany(sql, rows)
                    for sql, args in statements:
                        db.execute(sql, args)
                    db.execute("COMMIT")
                except BaseException:
                    with contextlib.suppress(sqlite3.Error):
                        if db.in_transaction:
                            db.rollback()
                    raise
            except (sqlite3.Error, OSError, UnicodeError, OverflowError) as error:
                if isinstance(error, sqlite3.ProgrammingError) and self.path != ":memory:":
                    self._db = None  # "Cannot operate on a closed database": open it again
                raise StoreError(f"the store could not write: {error}") from error
            self._committed(moves, clocks)

    def _select(self, sql: str, args: Sequence[object] = ()) -> list[tuple[Any, ...]]:
        try:
            return self._connection().execute(sql, args).fetchall()
        except sqlite3.Error as error:
            raise StoreError(f"the store could not read: {error}") from error

    def close(self) -> None:
        try:
            self.flush()
        finally:
            self._closed = True
            if self._checkpoints is not None:
                self._checkpoints.stop()
            if self._db is not None:
                self._db.close()
                self._db = None


def _players(config: object) -> int:
    """How many seats a stored configuration has (0 if it does not say: the lobby closes
    such a table when it restores it)."""
    if not isinstance(config, dict):
        return 0
    seats, players = config.get("seats"), config.get("players")
    if isinstance(seats, list):
        return min(len(seats), 16)
    return players if type(players) is int and 0 <= players <= 16 else 0


def _chunks(ids: list[str], size: int = 500) -> list[tuple[str, ...]]:
    """``ids`` in runs of at most ``size`` (SQLite bounds the ``?`` of one statement).

    >>> _chunks(["a", "b", "c"], 2)
    [('a', 'b'), ('c',)]
    """
    return [tuple(ids[start : start + size]) for start in range(0, len(ids), size)]


def _extend(moves: list[str], table_id: str, n: int, run: str) -> None:
    """Add a stored run of moves that starts at move ``n``; a gap is a damaged store."""
    if n != len(moves):
        raise ValueError(f"table {table_id!r}: stored moves jump from {len(moves)} to {n}")
    moves.extend(run.split("\n"))


class _Checkpoints(threading.Thread):
    """Copies a database's write-ahead log into it every ``every`` seconds, on a connection
    of its own: the waits for the disk fall on this thread, not on the committing one.

    A checkpoint that runs beside a busy writer never catches up with it, and the log
    starts over only once all of it is copied: it would grow without end (tens of MB an
    hour under load), and a restart after a crash reads all of it. So each round copies
    what is there beside the writer, then holds the store's ``writing`` lock to copy the
    little that came meanwhile; the next commit then starts the log over.
    """

    def __init__(self, path: str, every: float, writing: threading.Lock) -> None:
        super().__init__(name=f"skitgubbe-checkpoints {path}", daemon=True)
        self._path = path
        self._every = every
        self._writing = writing
        self.stopping = threading.Event()
        self.start()

    def run(self) -> None:
        db: sqlite3.Connection | None = None
        try:
            while not self.stopping.wait(self._every):
                try:
                    if db is None:
                        db = self._open()
                    db.execute("PRAGMA wal_checkpoint(PASSIVE)")  # beside the writer
                    with self._writing:  # the rest, a moment's worth, with the writer held
                        db.execute("PRAGMA wal_checkpoint(PASSIVE)")
                except sqlite3.Error:  # a full disk: tried again, on a new connection, next round
                    if db is not None:
                        db.close()
                    db = None
            with contextlib.suppress(sqlite3.Error):
                if db is None:
                    db = self._open()
                db.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # the log's space back, at the end
        finally:
            if db is not None:
                db.close()

    def _open(self) -> sqlite3.Connection:
        return sqlite3.connect(self._path, isolation_level=None, check_same_thread=False)

    def stop(self) -> None:
        self.stopping.set()
        self.join()
