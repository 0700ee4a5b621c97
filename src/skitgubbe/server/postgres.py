"""The server's store on PostgreSQL, and what lets many server processes share it.

:class:`PostgresStore` is a :class:`~skitgubbe.server.store.Store` (``skitgubbe serve --db
postgresql://…``): the same tables and statements as the SQLite file
(:class:`~skitgubbe.server.store.SQLStore`), on a server many processes reach. Its schema is
versioned as the file's is (:data:`SCHEMA_VERSION`, in the table ``skitgubbe_schema``): a
database of an older release is upgraded when a process opens it, once, under a lock.

Many processes (:class:`~skitgubbe.server.cluster.Cluster`) share one database: each is a
*node* with a name, alive while it renews its row in ``nodes`` (:meth:`PostgresStore.renew`).
Each open or running table is owned by one node and has an *epoch*, which grows each time
another node takes it over (:meth:`PostgresStore.take`, :meth:`PostgresStore.orphans`): a
node writes a table's moves only while the table's row still names it with the epoch it
took, checked under the row's lock in the transaction that writes them (fencing). A node
that was paused past its lease and wakes up can write nothing for a table it lost: the
moves are dropped, the table is named in :attr:`PostgresStore.lost`, and it stops there.

The driver is psycopg 3 (synchronous, as the store's protocol is: the group commit is one
transaction a turn of the loop).
"""

from __future__ import annotations

import contextlib
import logging
import secrets
import threading
from collections.abc import Iterable, Sequence
from typing import Any, Final

from .store import LeaseLostError, SQLStore, Statement, StoredTable, StoreError

__all__ = ["SCHEMA_VERSION", "PostgresStore", "is_postgres"]

SCHEMA_VERSION: Final = 1
"""The PostgreSQL schema this release writes (the row of ``skitgubbe_schema``)."""

_MIGRATIONS: Final[dict[int, tuple[str, ...]]] = {
    # 0 -> 1: the tables as the SQLite file's schema 3 has them, with the nodes, each
    # table's owner and epoch (fencing) and its lobby summary (the lobby's truth).
    0: (
        """CREATE TABLE tables (
            id TEXT PRIMARY KEY,
            config TEXT NOT NULL,
            seed TEXT NOT NULL,
            status TEXT NOT NULL,
            created DOUBLE PRECISION NOT NULL,
            record TEXT,
            rematch TEXT,
            public_at DOUBLE PRECISION,
            clock_n INTEGER,
            clock_at DOUBLE PRECISION,
            owner TEXT,
            epoch BIGINT NOT NULL DEFAULT 0,
            client TEXT NOT NULL DEFAULT '',
            summary TEXT
        )""",
        "CREATE INDEX tables_finished ON tables (status, public_at, id)",
        "CREATE INDEX tables_live ON tables (created, id) WHERE status IN ('open', 'running')",
        "CREATE INDEX tables_owner ON tables (owner) WHERE status IN ('open', 'running')",
        """CREATE TABLE seats (
            table_id TEXT NOT NULL REFERENCES tables(id),
            seat INTEGER NOT NULL,
            token_hash TEXT NOT NULL,
            name TEXT NOT NULL,
            PRIMARY KEY (table_id, seat)
        )""",
        """CREATE TABLE moves (
            table_id TEXT NOT NULL REFERENCES tables(id),
            n INTEGER NOT NULL,
            moves TEXT NOT NULL,
            PRIMARY KEY (table_id, n)
        )""",
        """CREATE TABLE stand_ins (
            table_id TEXT NOT NULL REFERENCES tables(id),
            n INTEGER NOT NULL,
            stand_in TEXT NOT NULL,
            PRIMARY KEY (table_id, n)
        )""",
        """CREATE TABLE nodes (
            name TEXT PRIMARY KEY,
            url TEXT NOT NULL,
            alive_until DOUBLE PRECISION NOT NULL,
            started DOUBLE PRECISION NOT NULL
        )""",
    ),
}
"""The statements that take a database from schema ``n`` to ``n + 1``, each in a transaction."""

_LOCK: Final = 0x5367_7562  # the advisory lock a migration holds ("Sgub")
_NOW: Final = "EXTRACT(EPOCH FROM clock_timestamp())"  # the database's clock: one for all nodes
_LIVE: Final = "status IN ('open', 'running')"

_log: Final = logging.getLogger("skitgubbe.server")

# A flush is one statement (one round trip, its own transaction) for the moves, stand-ins and
# clocks of every table, as arrays of columns. It first updates the row of each table it
# writes for (its clock, if one was set): with a node, only while the row names the node at
# the epoch it took the table, and that update's lock holds the row until the commit (a
# takeover waits for it, or it finds the row changed and writes nothing there). The moves
# and stand-ins are written for the tables that update returned, and only those.
_FLUSH: Final = """
WITH fenced AS (
    UPDATE tables t SET clock_n = COALESCE(v.n, t.clock_n), clock_at = COALESCE(v.at, t.clock_at)
    FROM unnest(%(t)s::text[], %(t_e)s::bigint[], %(t_n)s::int[], %(t_at)s::float8[])
        AS v(id, e, n, at)
    WHERE t.id = v.id AND (%(node)s::text IS NULL OR (t.owner = %(node)s AND t.epoch = v.e))
    RETURNING t.id),
moved AS (
    INSERT INTO moves SELECT v.id, v.n, v.x
    FROM unnest(%(m)s::text[], %(m_n)s::int[], %(m_x)s::text[]) AS v(id, n, x)
    JOIN fenced USING (id)),
stood AS (
    INSERT INTO stand_ins SELECT v.id, v.n, v.x
    FROM unnest(%(s)s::text[], %(s_n)s::int[], %(s_x)s::text[]) AS v(id, n, x)
    JOIN fenced USING (id))
SELECT id FROM fenced"""


def is_postgres(db: object) -> bool:
    """Whether ``skitgubbe serve --db`` names a PostgreSQL database (a ``postgresql://`` or
    ``postgres://`` URL) rather than a SQLite file.

    >>> is_postgres("postgresql://skitgubbe@db.example/skitgubbe"), is_postgres("server.db")
    (True, False)
    """
    return isinstance(db, str) and db.startswith(("postgresql://", "postgres://"))


class PostgresStore(SQLStore):
    """A :class:`~skitgubbe.server.store.Store` on a PostgreSQL database (``dsn``, a
    ``postgresql://`` URL or a libpq connection string).

    One connection, opened again when it is lost (a restarted database): while the
    database is away every write raises :class:`~skitgubbe.server.store.StoreError`, the
    moves stay pending, and the group commit retries until it is back. ``connect_timeout``
    bounds how long one try waits for the database.

    With ``node`` (:meth:`join`), the store writes a table's moves only while this node
    owns it (see the module's text).

    >>> store = PostgresStore("postgresql://nobody@127.0.0.1:1/none", connect_timeout=1)
    Traceback (most recent call last):
        ...
    skitgubbe.server.store.StoreError: the store could not reach PostgreSQL: ...
    """

    def __init__(self, dsn: str, *, connect_timeout: float = 5.0) -> None:
        super().__init__()
        try:  # the postgres extra's: imported when a store is made
            import psycopg
        except ImportError as error:
            raise StoreError(
                f"PostgreSQL needs psycopg: pip install 'skitgubbe[postgres]' ({error})"
            ) from None

        self._psycopg = psycopg
        self.dsn = dsn
        self._timeout = max(1, round(connect_timeout))
        self._db: Any = None
        self._closed = False
        self._lock = threading.Lock()  # one statement at a time on the connection
        self.node: str | None = None
        """This process's node name, once it joined (:meth:`join`)."""
        self.epochs: dict[str, int] = {}
        """The tables this node owns, with the epoch it took each at."""
        with self._lock:
            self._migrate(self._connection())

    # -- the connection -------------------------------------------------------------------

    def _connection(self) -> Any:
        if self._closed:
            raise StoreError("the store is closed")
        if self._db is None or self._db.closed or self._db.broken:
            if self._db is not None:
                with contextlib.suppress(Exception):
                    self._db.close()
            self._db = None
            try:
                self._db = self._psycopg.connect(
                    self.dsn,
                    autocommit=True,
                    connect_timeout=self._timeout,
                    # A transaction left open (its process frozen between two statements)
                    # ends, and lets its rows go to the node that takes its tables over.
                    options="-c idle_in_transaction_session_timeout=5000",
                )
            except self._psycopg.Error as error:
                raise StoreError(f"the store could not reach PostgreSQL: {error}") from error
        return self._db

    def _migrate(self, db: Any) -> None:
        """Create the schema, or upgrade an older one (one transaction a step, under an
        advisory lock: processes that start together upgrade it once)."""
        psycopg = self._psycopg
        try:
            with db.transaction():
                db.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK,))
                db.execute(
                    "CREATE TABLE IF NOT EXISTS skitgubbe_schema (version INTEGER, secret TEXT)"
                )
                row = db.execute("SELECT version FROM skitgubbe_schema").fetchone()
                version = 0 if row is None else int(row[0])
                if row is None:  # the secret the nodes show each other (cluster.Cluster)
                    db.execute(
                        "INSERT INTO skitgubbe_schema VALUES (0, %s)", (secrets.token_hex(32),)
                    )
                if version > SCHEMA_VERSION:
                    raise StoreError(
                        f"the database has schema {version}, newer than this release's "
                        f"{SCHEMA_VERSION}: upgrade skitgubbe to open it"
                    )
                for step in range(version, SCHEMA_VERSION):
                    for statement in _MIGRATIONS[step]:
                        db.execute(statement)
                    db.execute("UPDATE skitgubbe_schema SET version = %s", (step + 1,))
        except psycopg.Error as error:
            raise StoreError(f"the store could not prepare its schema: {error}") from error
        if 0 < version < SCHEMA_VERSION:
            _log.warning("the database was upgraded from schema %s to %s", version, SCHEMA_VERSION)

    def _transaction(self, statements: Sequence[Statement], fence: Sequence[str] = ()) -> None:
        psycopg = self._psycopg
        with self._lock:
            try:
                db = self._connection()
                with db.transaction():
                    if self.node is not None:
                        self._fence(db, fence)
                    moves, clocks, batches = self._pending()
                    with db.cursor() as cursor:
                        for sql, rows in batches:
                            cursor.executemany(_marks(sql), rows)
                        for sql, args in statements:
                            cursor.execute(_marks(sql), args)
            except psycopg.Error as error:
                raise StoreError(f"the store could not write: {error}") from error
            self._committed(moves, clocks)

    def _fence(self, db: Any, fence: Sequence[str]) -> None:
        """Lock the rows of the tables this transaction writes for, and drop what it would
        write for a table this node no longer owns with the epoch it took it at
        (:class:`LeaseLostError` if one of the ``fence`` tables, which its statements write, is
        such a table)."""
        moves, clocks = self._snapshot()
        ids = {table_id for table_id, *_ in moves} | set(clocks) | set(fence)
        if not ids:
            return
        rows = db.execute(
            "SELECT id, owner, epoch FROM tables WHERE id = ANY(%s) ORDER BY id FOR SHARE",
            (sorted(ids),),
        ).fetchall()
        found = {table_id: (owner, int(epoch)) for table_id, owner, epoch in rows}
        lost = {
            table_id
            for table_id in ids
            if table_id not in self.epochs
            or found.get(table_id) != (self.node, self.epochs[table_id])
        }
        if not lost:
            return
        self.forget(lost)
        self.lost |= lost
        _log.warning("this node no longer owns table(s) %s: their writes dropped", sorted(lost))
        if lost & set(fence):
            raise LeaseLostError(lost & set(fence))

    def forget(self, tables: Iterable[str]) -> None:
        """Drop the pending writes of these tables and their epochs: this node no longer
        serves them."""
        gone = set(tables)
        with self._appending:
            self._moves[:] = [move for move in self._moves if move[0] not in gone]
            for table_id in gone:
                self._clocks.pop(table_id, None)
                self._counts.pop(table_id, None)
                self.epochs.pop(table_id, None)

    blocking: bool = True
    """Its flush waits for the network: the group commit runs it in a thread of its own
    (:class:`~skitgubbe.server.commits.GroupCommit`), not in the event loop."""

    def flush(self) -> None:
        """Store the pending moves and clocks in one round trip to the database: one
        statement (its own transaction) for those of every table. With a node, each
        table's moves are stored only while the table's row names this node at the epoch it
        took (the statement locks the rows it checks); the others are dropped, and the tables
        named in ``lost``."""
        psycopg = self._psycopg
        with self._lock:
            moves, clocks = self._snapshot()
            if not moves and not clocks:
                return
            try:
                stored = self._write_pending(self._connection(), moves, clocks)
            except psycopg.Error as error:
                raise StoreError(f"the store could not write: {error}") from error
            self._committed(len(moves), clocks)
        lost = ({table_id for table_id, *_ in moves} | set(clocks)) - stored
        if self.node is not None and lost:
            self.forget(lost)
            self.lost |= lost
            _log.warning("this node no longer owns table(s) %s: their moves dropped", sorted(lost))

    def _write_pending(
        self,
        db: Any,
        moves: list[tuple[str, int, str, str | None]],
        clocks: dict[str, tuple[int, float]],
    ) -> set[str]:
        """``moves`` and ``clocks`` in one statement (:data:`_FLUSH`); the tables it wrote
        for (with a node: those it still owns)."""
        runs: dict[str, tuple[int, list[str]]] = {}
        for table_id, index, move, _ in moves:
            runs.setdefault(table_id, (index, []))[1].append(move)
        stood = [(t, n, why) for t, n, _, why in moves if why is not None]
        tables = list(dict.fromkeys([*runs, *clocks]))
        return {
            row[0]
            for row in db.execute(
                _FLUSH,
                {
                    "node": self.node,
                    "t": tables,
                    "t_e": [self.epochs.get(t, -1) for t in tables],
                    "t_n": [clocks[t][0] if t in clocks else None for t in tables],
                    "t_at": [clocks[t][1] if t in clocks else None for t in tables],
                    "m": list(runs),
                    "m_n": [first for first, _ in runs.values()],
                    "m_x": ["\n".join(run) for _, run in runs.values()],
                    "s": [t for t, _, _ in stood],
                    "s_n": [n for _, n, _ in stood],
                    "s_x": [why for _, _, why in stood],
                },
            ).fetchall()
        }

    def _select(self, sql: str, args: Sequence[object] = ()) -> list[tuple[Any, ...]]:
        with self._lock:
            try:
                return list(self._connection().execute(_marks(sql), args).fetchall())
            except self._psycopg.Error as error:
                raise StoreError(f"the store could not read: {error}") from error

    # -- the store's writes, fenced ------------------------------------------------------

    def _create_statements(self, table: StoredTable) -> list[Statement]:
        statements = super()._create_statements(table)
        statements.append(
            (
                "UPDATE tables SET owner = ?, epoch = 1, client = ? WHERE id = ?",
                (self.node, table.client, table.id),
            )
        )
        return statements

    def create(self, table: StoredTable) -> None:
        super().create(table)
        if self.node is not None:
            self.epochs[table.id] = 1

    def finish(self, table_id: str, record: dict[str, Any], public_at: float | None = None) -> None:
        super().finish(table_id, record, public_at)
        self.epochs.pop(table_id, None)

    def abandon(self, table_id: str, reason: str) -> None:
        super().abandon(table_id, reason)
        self.epochs.pop(table_id, None)

    # -- nodes ---------------------------------------------------------------------------

    def join(self, node: str, url: str, lease: float) -> list[str]:
        """Become node ``node`` (reached by the other nodes at ``url``), alive for ``lease``
        seconds from now; the tables this node owned (a restart under the same name) are
        its own again with a new epoch, which fences any older process of that name.
        Returns their ids."""
        self.node = node
        self.renew(url, lease)
        with self._lock:
            try:
                rows = (
                    self._connection()
                    .execute(
                        f"UPDATE tables SET epoch = epoch + 1 WHERE owner = %s AND {_LIVE} "
                        "RETURNING id, epoch",
                        (node,),
                    )
                    .fetchall()
                )
            except self._psycopg.Error as error:
                raise StoreError(f"the store could not write: {error}") from error
        self.epochs.update({table_id: int(epoch) for table_id, epoch in rows})
        return [table_id for table_id, _ in rows]

    def renew(self, url: str, lease: float) -> None:
        """Keep this node alive for ``lease`` seconds from now (the database's clock)."""
        self._execute(
            f"INSERT INTO nodes VALUES (%s, %s, {_NOW} + %s, {_NOW}) ON CONFLICT (name) DO "
            f"UPDATE SET url = EXCLUDED.url, alive_until = EXCLUDED.alive_until",
            (self.node, url, lease),
        )

    def leave(self) -> None:
        """This node stops: its lease ends now, so that the others take its tables at once."""
        self._execute(f"UPDATE nodes SET alive_until = {_NOW} WHERE name = %s", (self.node,))

    def owned(self) -> dict[str, int]:
        """The open and running tables the database says this node owns, with their epochs."""
        rows = self._select(
            f"SELECT id, epoch FROM tables WHERE owner = ? AND {_LIVE}", (self.node,)
        )
        return {table_id: int(epoch) for table_id, epoch in rows}

    def take(self, table_id: str) -> bool:
        """Take over one table whose owner's lease ran out (or that has none); whether it
        is this node's now (with a new epoch)."""
        return bool(self._take("t.id = %s", (table_id,), 1))

    def orphans(self, most: int) -> list[str]:
        """Take over at most ``most`` tables whose owners' leases ran out (the oldest first;
        those another node is taking are skipped); their ids."""
        return self._take("TRUE", (), most)

    def _take(self, where: str, args: tuple[object, ...], most: int) -> list[str]:
        rows = self._execute(
            "UPDATE tables SET owner = %s, epoch = epoch + 1 WHERE id IN ("
            " SELECT t.id FROM tables t LEFT JOIN nodes n ON n.name = t.owner"
            f" WHERE {where} AND t.{_LIVE} AND t.owner IS DISTINCT FROM %s"
            f" AND (n.name IS NULL OR n.alive_until < {_NOW})"
            " ORDER BY t.created LIMIT %s FOR UPDATE OF t SKIP LOCKED"
            ") RETURNING id, epoch",
            (self.node, *args, self.node, most),
        )
        taken = {str(table_id): int(epoch) for table_id, epoch in rows}
        self.epochs.update(taken)
        self.lost -= set(taken)
        return sorted(taken)

    def where(self, table_id: str) -> tuple[str, str | None, str | None, bool] | None:
        """A table's status, owner, the owner's URL and whether its lease runs (``None`` for
        no such table)."""
        rows = self._select(
            f"SELECT t.status, t.owner, n.url, COALESCE(n.alive_until > {_NOW}, FALSE) "
            "FROM tables t LEFT JOIN nodes n ON n.name = t.owner WHERE t.id = ?",
            (table_id,),
        )
        if not rows:
            return None
        status, owner, url, alive = rows[0]
        return str(status), owner, url, bool(alive)

    def secret(self) -> str:
        """The database's secret, which the nodes that share it show each other when one
        forwards a request to another (made with the schema; clients never see it)."""
        return str(self._select("SELECT secret FROM skitgubbe_schema")[0][0])

    def set_summaries(self, summaries: dict[str, str]) -> None:
        """Keep the lobby's summary (JSON text) of each of this node's tables (one
        statement for them all)."""
        if not summaries:
            return
        self._execute(
            "UPDATE tables t SET summary = v.s FROM unnest(%s::text[], %s::text[]) AS v(id, s) "
            "WHERE t.id = v.id AND t.owner = %s",
            (list(summaries), list(summaries.values()), self.node),
        )

    def live_summaries(self, limit: int, before: str | None = None) -> list[str]:
        """The lobby's summaries of the open and running tables, the newest first (those
        listed after table ``before``)."""
        where = (  # a finished table whose end is not public yet still shows as running
            f"({_LIVE} OR (status = 'over' AND public_at > {_NOW})) AND summary IS NOT NULL"
        )
        args: list[object] = []
        if before is not None:
            where += " AND (created, id) < (SELECT created, id FROM tables WHERE id = ?)"
            args.append(before)
        rows = self._select(
            f"SELECT summary FROM tables WHERE {where} ORDER BY created DESC, id DESC "
            f"LIMIT {int(limit)}",
            args,
        )
        return [str(row[0]) for row in rows]

    def count_live(self, client: str | None = None) -> tuple[int, int]:
        """How many tables are live (open or running) and open, in all or made by
        ``client``."""
        where, args = _LIVE, list[object]()
        if client is not None:
            where += " AND client = ?"
            args.append(client)
        rows = self._select(
            f"SELECT COUNT(*), COUNT(*) FILTER (WHERE status = 'open') FROM tables WHERE {where}",
            args,
        )
        return int(rows[0][0]), int(rows[0][1])

    def _execute(self, sql: str, args: Sequence[object]) -> list[tuple[Any, ...]]:
        """One statement in a transaction of its own (``%s`` marks); its rows, if any."""
        with self._lock:
            try:
                cursor = self._connection().execute(sql, args)
                return list(cursor.fetchall()) if cursor.description else []
            except self._psycopg.Error as error:
                raise StoreError(f"the store could not write: {error}") from error

    def close(self) -> None:
        try:
            self.flush()
        finally:
            self._closed = True
            if self._db is not None:
                with contextlib.suppress(Exception):
                    self._db.close()
                self._db = None


def _marks(sql: str) -> str:
    """The shared statements' ``?`` marks as psycopg's ``%s``.

    >>> _marks("SELECT 1 WHERE a = ?")
    'SELECT 1 WHERE a = %s'
    """
    return sql.replace("?", "%s")
