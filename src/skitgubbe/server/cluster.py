"""Many server processes on one PostgreSQL database: the lobby of one *node* among them.

Each ``skitgubbe serve --node NAME --db postgresql://…`` process is a node. A table is
played by one node at a time, its *owner* (the node it was created on, named in its id:
``NAME-<16 hex digits>``); the database is the truth of who owns what, and of what the lobby
lists (:meth:`ClusterLobby.listing`):

- **Leases.** A node is alive while it renews its lease (:attr:`Cluster.lease` seconds,
  renewed every :attr:`Cluster.beat`). When one stops renewing (killed, frozen, cut off),
  the others take its tables over once the lease has run out, each table with a new epoch,
  and play them on from the store, the clock of a person's turn included.
- **Fencing.** A node writes a table's moves only while the table's row names it with the
  epoch it took (:class:`~skitgubbe.server.postgres.PostgresStore`): a node that was frozen
  past its lease and wakes up writes nothing for a table it lost, and sends no frame for
  any table until it has renewed its lease and checked which tables are still its own
  (:meth:`ClusterLobby.holds`); the ones it lost it lets go, closing their sockets, whose
  clients join again where the table is played now.
- **Routing.** A request for a table another node owns is forwarded there
  (:mod:`skitgubbe.server.forward`), a socket too; a proxy in front that sends a table's
  requests to the node named in its id (:func:`haproxy_config`) makes that rare. A request
  for a table whose owner is gone takes the table over at once.

>>> Cluster("n1", "http://10.0.0.1:8080").lease
3.0
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
import re
import secrets
import time
from collections.abc import Mapping
from typing import Any, Final

import attrs

from ..errors import ArgumentError, SkitgubbeError
from .errors import MovingError, TableError
from .lobby import SWEEP_SECONDS, Lobby
from .postgres import PostgresStore
from .store import StoredTable, StoreError
from .tables import Table

__all__ = [
    "BEAT",
    "LEASE",
    "MOVED",
    "NODE_NAME",
    "SUMMARY_SECONDS",
    "TAKE_AT_ONCE",
    "Cluster",
    "ClusterLobby",
    "ElsewhereError",
    "haproxy_config",
]

LEASE: Final = 3.0
"""Seconds a node's lease lasts: a node killed is replaced this long after its last renewal."""
BEAT: Final = 0.5
"""Seconds between two renewals of a node's lease (and its look for orphaned tables)."""
NODE_NAME: Final = re.compile(r"[a-z0-9]{1,16}")
"""A node's name: 1 to 16 lowercase letters and digits (it begins its tables' ids)."""
TAKE_AT_ONCE: Final = 50
"""The most orphaned tables a node takes over at one beat."""
MOVED: Final = "the table moved to another server: join again"
"""The reason a socket is closed with when its table is played by another node now."""
SUMMARY_SECONDS: Final = 2.0
"""How often a node writes the lobby's summaries of its tables that changed (a table made
is listed at once)."""

_log: Final = logging.getLogger("skitgubbe.server")


@attrs.frozen
class Cluster:
    """This process as a node of a cluster: its ``node`` name, the ``url`` the other nodes
    reach it at (``http://host:port``, on a network clients cannot reach), and its lease.

    >>> try:
    ...     Cluster("Node 1", "http://x")
    ... except ArgumentError as error:
    ...     print(error)
    a node's name is 1 to 16 lowercase letters and digits, not 'Node 1'
    """

    node: str
    url: str
    lease: float = LEASE
    beat: float = BEAT

    def __attrs_post_init__(self) -> None:
        if not isinstance(self.node, str) or not NODE_NAME.fullmatch(self.node):
            raise ArgumentError(
                f"a node's name is 1 to 16 lowercase letters and digits, not {self.node!r}"
            )
        if not isinstance(self.url, str) or not self.url.startswith(("http://", "https://")):
            raise ArgumentError(f"a node's url is http://host:port, not {self.url!r}")
        if not 0 < self.beat * 3 <= self.lease:
            raise ArgumentError(
                f"a node renews its lease at least 3 times a lease: beat {self.beat} s, "
                f"lease {self.lease} s"
            )


class ElsewhereError(SkitgubbeError):
    """A table another node owns: a request for it is forwarded to ``url``.

    >>> print(ElsewhereError("n2-00", "n2", "http://10.0.0.2:8080"))
    table n2-00 is played by node n2
    """

    def __init__(self, table_id: str, node: str, url: str) -> None:
        super().__init__(f"table {table_id} is played by node {node}")
        self.table_id, self.node, self.url = table_id, node, url


class ClusterLobby(Lobby):
    """The lobby of one node (see the module's text): a :class:`~skitgubbe.server.Lobby`
    whose tables are those this node owns, on a :class:`~skitgubbe.server.postgres.PostgresStore`
    many nodes share. :meth:`join` (on startup) makes it a node and takes back the tables it
    owned under the same name; its beat (:meth:`start_sweeping`) renews its lease, takes
    over the tables of nodes that are gone and keeps the lobby's summaries in the database.

    :func:`~skitgubbe.server.create_app` makes one when given a ``cluster``:

    >>> from skitgubbe.server import create_app
    >>> try:
    ...     create_app(":memory:", cluster=Cluster("n1", "http://127.0.0.1:8001"))
    ... except ArgumentError as error:
    ...     print(error)
    the nodes of a cluster share a PostgreSQL store: --db postgresql://…
    """

    def __init__(self, store: PostgresStore, cluster: Cluster, **options: Any) -> None:
        super().__init__(store, **options)
        self.pg = store
        self.cluster = cluster
        self.secret = ""
        """The database's secret, which forwarded requests carry (:meth:`join` reads it)."""
        self._renewed = -float("inf")  # monotonic time the last renewal that succeeded began
        self._checked = False  # whether the tables in memory were checked since a lapse
        self._dirty: set[str] = set()  # tables whose lobby summary changed
        self._summarised = -float("inf")  # when the summaries were last written
        self._stopping: set[str] = set()  # lost tables whose play and sockets are stopping
        self._beating: asyncio.Task[None] | None = None
        self._failing = False
        # Since when the database answers this node's renewals without a break: after a
        # break (the database restarted) every lease may have run out, and the node that
        # renews first would take all the others' tables; a node takes orphans only once it
        # has renewed for a whole lease, by when every live node has renewed too.
        self._reachable_since = float("inf")

    # -- membership ----------------------------------------------------------------------

    def new_id(self) -> str:
        """A new table's id: this node's name, a dash, 16 hex digits (a proxy routes by it)."""
        return f"{self.cluster.node}-{secrets.token_hex(8)}"

    def restore(self) -> int:
        """Join the cluster (:meth:`join`) and resume the tables this node still owns."""
        return self.join()

    def join(self) -> int:
        """Become a node (renew the lease), take back the tables this node's name owns (a
        restart: their epochs grow, fencing any older process of the name) and resume them;
        how many."""
        cluster = self.cluster
        started = time.monotonic()
        ids = self.pg.join(cluster.node, cluster.url, cluster.lease)
        self.secret = self.pg.secret()
        self._renewed, self._checked = started, True
        self._reachable_since = started
        resumed = self._restore(self.pg.tables(ids))
        self._changed()
        _log.info("node %s joined at %s with %d tables", cluster.node, cluster.url, resumed)
        return resumed

    def holds(self, table_id: str) -> bool:
        """Whether this node may speak for table ``table_id`` now: its lease has not run
        out since it last renewed it, it checked its tables after a lapse, and nobody took
        this one over."""
        return (
            self._checked
            and time.monotonic() - self._renewed < self.cluster.lease
            and table_id not in self.pg.lost
        )

    def beat(self) -> None:
        """Renew the lease; after a lapse, let go of the tables another node took; take
        over orphaned tables; write the changed summaries. (Each beat of :meth:`start_sweeping`.)"""
        cluster, store = self.cluster, self.pg
        started = time.monotonic()
        if started - self._renewed >= cluster.lease:
            self._checked = False  # frozen, or cut off from the database, past the lease
        try:
            store.renew(cluster.url, cluster.lease)
            if not self._checked:
                self._check(store.owned())
            self._renewed, self._checked = started, True
            if self._failing:
                _log.warning("node %s reaches the database again", cluster.node)
                self._failing, self._reachable_since = False, started
        except StoreError as error:
            if not self._failing:
                _log.warning("node %s cannot renew its lease: %s", cluster.node, error)
                self._failing = True
            return
        self._let_go_lost()
        with contextlib.suppress(StoreError):
            if started - self._summarised >= SUMMARY_SECONDS:
                self._summarised = started
                self._write_summaries()
            if started - self._reachable_since >= cluster.lease:
                self._adopt(store.orphans(TAKE_AT_ONCE))
        self._changed()  # the other nodes' tables change too: the listing is made again

    def _check(self, owned: Mapping[str, int]) -> None:
        """After a lapse: the tables in memory the database no longer gives this node (or
        gives with another epoch) are lost."""
        for table_id, table in self.tables.items():
            if table.status != "over" and owned.get(table_id) != self.pg.epochs.get(table_id):
                self.pg.lost.add(table_id)
                self.pg.forget([table_id])

    def _let_go_lost(self) -> None:
        """Stop the tables another node took over. Each stays in the store's ``lost`` (so
        that :meth:`holds` says no, and no frame of it goes out) until its play and sockets
        have stopped."""
        for table_id in list(self.pg.lost):
            table = self.tables.get(table_id)
            if table is None:
                if table_id not in self._stopping:
                    self.pg.lost.discard(table_id)
                continue
            node = self.cluster.node
            _log.warning("node %s lets table %s go: another node owns it", node, table_id)
            self._stopping.add(table_id)
            stopping = self._let_go(table, MOVED)
            stopping.add_done_callback(functools.partial(self._stopped, table_id))

    def _stopped(self, table_id: str, task: object) -> None:
        self._stopping.discard(table_id)
        self.pg.lost.discard(table_id)

    def _adopt(self, ids: list[str]) -> None:
        """Resume tables this node took over."""
        if not ids:
            return
        tables = [stored for stored in self.pg.tables(ids) if stored.id not in self.tables]
        resumed = self._restore(tables)
        _log.warning("node %s took over %d tables", self.cluster.node, resumed)

    def _not_here(self, stored: StoredTable) -> Table:
        """Where an open or running table not in memory is played: :class:`ElsewhereError` if its
        owner lives, else this node takes it over now."""
        found = self.pg.where(stored.id)
        if found is not None:
            _, owner, url, alive = found
            if owner != self.cluster.node and alive and url:
                raise ElsewhereError(stored.id, owner or "", url)
            if owner == self.cluster.node and stored.id in self.pg.epochs:
                self._restore([stored])  # this node's (a lapse checked it was kept)
            elif self.pg.take(stored.id):
                self._adopt([stored.id])
        table = self.tables.get(stored.id)
        if table is None:
            raise MovingError(f"table {stored.id} is moving between servers: try again")
        return table

    def _rematch_of(self, table_id: str) -> Table | None:
        """A rematch wherever it is played (:class:`ElsewhereError` if another node plays it:
        the request goes there)."""
        try:
            return self.get(table_id)
        except TableError:  # over, closed, gone
            return None

    # -- the lobby's truth in the database ------------------------------------------------

    def _table_changed(self, table_id: str) -> None:
        self._dirty.add(table_id)
        self._changed()

    def _write_summaries(self) -> None:
        dirty, self._dirty = self._dirty, set()
        summaries = {
            table_id: json.dumps(table.summary(), separators=(",", ":"))
            for table_id in dirty
            if (table := self.tables.get(table_id)) is not None and self.holds(table_id)
        }
        try:
            self.pg.set_summaries(summaries)
        except StoreError:
            self._dirty |= dirty  # written at a later beat
            raise

    def create(self, data: object, *, after: str | None = None, client: str = "") -> Table:
        table = super().create(data, after=after, client=client)
        self._dirty.add(table.id)
        with contextlib.suppress(StoreError):  # else at the next beat
            self._write_summaries()
        return table

    def occupancy(self, client: str) -> tuple[int, int, int]:
        """The live and open tables of every node (the database counts them), and the open
        ones ``client`` made on any."""
        live, waiting = self.pg.count_live()
        _, mine = self.pg.count_live(client)
        return live, waiting, mine

    def _live_rows(self, limit: int, before: str | None) -> list[dict[str, Any]]:
        rows = [json.loads(text) for text in self.pg.live_summaries(limit, before)]
        return [row for row in rows if isinstance(row, dict)]

    def start_sweeping(self, every: float = SWEEP_SECONDS) -> None:
        """The lobby's sweeps (:meth:`Lobby.sweep`), and this node's beat (:meth:`beat`)."""
        super().start_sweeping(every)

        async def beating() -> None:
            while True:
                await asyncio.sleep(self.cluster.beat)
                try:
                    self.beat()
                except Exception:  # a bug: logged, and the next beat comes all the same
                    _log.exception("node %s: a beat failed", self.cluster.node)

        self._beating = asyncio.get_running_loop().create_task(beating())

    async def close(self) -> None:
        """Stop the beat and the tables, and end the lease at once: the other nodes take
        this node's tables over without waiting for it to run out."""
        if self._beating is not None:
            self._beating.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._beating
        await super().close()
        with contextlib.suppress(StoreError):
            self.pg.flush()
            self.pg.leave()


def haproxy_config(
    nodes: Mapping[str, str],
    bind: str = "*:8080",
    *,
    check_every: str = "1s",
    maxconn: int = 10_000,
) -> str:
    """An HAProxy configuration that sends each table's requests and sockets to the node
    its id names (the part before the dash), the others round robin; a node that fails its
    health check (``/api/health``) gets nothing, and its tables' requests go to another
    node, which takes them over. ``nodes`` maps each node's name to its ``host:port``;
    ``maxconn`` bounds the connections at once (each takes HAProxy two file descriptors:
    its ``ulimit -n`` must allow twice as many).

    >>> print(haproxy_config({"n1": "10.0.0.1:8080"}).splitlines()[-1].strip())
    server n1 10.0.0.1:8080 check inter 1s fall 3 rise 2
    """
    for name in nodes:
        if not NODE_NAME.fullmatch(name):
            raise ArgumentError(f"a node's name is 1 to 16 lowercase letters and digits: {name!r}")
    uses = "".join(
        f"    use-server {name} if {{ var(txn.node) -m str {name} }}\n" for name in nodes
    )
    servers = "".join(
        f"    server {name} {address} check inter {check_every} fall 3 rise 2\n"
        for name, address in nodes.items()
    )
    return f"""\
# skitgubbe behind HAProxy: a table's requests and sockets go to the node named in its id.
global
    maxconn {maxconn}

defaults
    mode http
    option http-server-close
    option forwardfor
    option redispatch
    retries 2
    timeout connect 2s
    timeout client 60s
    timeout server 60s
    timeout tunnel 1h
    # A node busy with a burst may answer its check late: that is no reason to send nothing
    # to it (a node that is gone refuses connections, and its requests go to another at once).
    timeout check 3s

frontend skitgubbe
    bind {bind}
    default_backend nodes

backend nodes
    balance roundrobin
    option httpchk GET /api/health
    http-check expect status 200
    # The nodes' own headers come from the nodes only.
    http-request del-header X-Skitgubbe-Node
    http-request del-header X-Skitgubbe-Client
    # The table's id: /api/tables/ID/..., /ws?table=ID, /table?id=ID; its node: before the dash.
    http-request set-var(txn.table) path,field(4,/) if {{ path_beg /api/tables/ }}
    http-request set-var(txn.table) url_param(table) if {{ path /ws }}
    http-request set-var(txn.table) url_param(id) if {{ path /table }}
    http-request set-var(txn.node) var(txn.table),field(1,-)
{uses}{servers}"""
