"""The server as many processes ("nodes") on one PostgreSQL database, against one process on
SQLite, in one run on this machine (issue 41). The load is the one of
``test_server_load.py``: each person (a websocket client that plays as the browser table
does) sits at a table of its own with two greedy bots, and when its game ends it makes a new
table and plays on, so the number of tables stays the same throughout. The people run in
this process (their garbage collector's pauses kept out, as the server does); the servers
are real ``skitgubbe serve`` processes, the nodes ``skitgubbe serve --node NAME --lease 3``
on a real PostgreSQL (``tests/pg_support.py``), HAProxy in front where it says so
(``tests/proxy_support.py``, :func:`skitgubbe.server.cluster.haproxy_config`).

CPU is read from ``/proc/PID/stat`` (utime + stime, every thread; a process's children
that ended are in its cutime + cstime): the nodes' own, PostgreSQL's (the postmaster and
every process under it: backends, WAL writer, checkpointer, autovacuum) and HAProxy's, each
over the measured window. Moves are the moves the store gained during the window (the
``moves`` table of the SQLite file or of the database).

1. **CPU per move** (``test_cpu_per_move``): people think 1–3 s (uniformly) before each
   move; (a) one process on SQLite, (b) one node on PostgreSQL, (c) two nodes on
   PostgreSQL, each person making its tables on node ``n{i % 2 + 1}`` and connecting to the
   node its table names (no forwarding, no proxy). The server side (the server or nodes,
   PostgreSQL) is pinned to core 0 and the people to core 1, as in
   ``test_server_load.py``: the same CPU for the servers on every side. Ratios (c)/(a)
   with the nodes' CPU alone and with PostgreSQL's added.
2. **Saturation** (``test_saturated_moves_per_second``): the people answer at once; moves
   per second of (a), (b) and (c) under two splits of the two cores: ``pinned`` (server
   side on core 0, people on core 1: two nodes share the one core a single process has, so
   the ratio is the cost of splitting the work) and ``free`` (nothing pinned: every process
   may use both cores, the people's included: what a second process buys on this machine).
   The people's own CPU share is reported, to tell whether they were the bottleneck.
3. **Latency at 1,000 tables** (``test_latency_through_the_proxy``): people think 1–3 s;
   one process on SQLite (the reference of ``test_server_load.py``), then two nodes with
   HAProxy in front: every person through the proxy for a window, then every person
   straight to its table's node (the same tables: each closes its socket and joins again)
   for another. Latency is from sending a move to receiving the ``update`` that holds it.
   Nothing pinned, on every side: two nodes and PostgreSQL need more than the one core a
   single process uses at this load (see 1), so they could not be held to core 0.
4. **Takeover** (``test_takeover_after_sigkill``): three nodes behind HAProxy, people
   thinking 1–3 s through the proxy; node ``n2`` is killed (SIGKILL) in the middle of the
   games. Its running tables are orphaned: measured from the kill until each is owned by a
   live node (the database), until each has stored a move made after the kill, and until
   each table's person was told a move after the kill (on a socket opened after it). The
   people join again as the browser table does (after 0.5 s, doubling up to 8 s) and answer
   their first prompt after the kill at once, so that no thinking is in the figure. Nothing
   pinned.

Every run also counts the moves a person was told that the store does not hold (a lost
move: none expected), the socket and HTTP problems the people met, and the warnings and
errors the servers logged. Figures are reported, not asserted (but that moves were made).

Full size: ``PYTHONPATH=src python -m pytest benchmarks/test_cluster_load.py -s``, with
``SKITGUBBE_CLUSTER_TABLES`` (tables of 1, 2 and 4; default 300), ``SKITGUBBE_CLUSTER_SECONDS``
(window of 1; 30), ``SKITGUBBE_CLUSTER_SATURATED_TABLES`` (200),
``SKITGUBBE_CLUSTER_SATURATED_SECONDS`` (10), ``SKITGUBBE_CLUSTER_LATENCY_TABLES`` (1000),
``SKITGUBBE_CLUSTER_LATENCY_SECONDS`` (each window of 3; 30). With ``--benchmark-disable`` (the
CI's smoke run) every part runs a few tables for a second, the people thinking 0.05–0.15 s.
Needs PostgreSQL and HAProxy (skipped without them, failed without them in CI) and Linux
(``/proc``).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import gc
import json
import os
import random
import re
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from support import Figure, Target

aiohttp = pytest.importorskip("aiohttp")
sys.path.append(str(Path(__file__).resolve().parents[1] / "tests"))
import pg_support  # noqa: E402
import proxy_support  # noqa: E402
from cluster_support import Nodes  # noqa: E402
from server_support import ROOMY, free_port, start_server, stop_server  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
ALL_CORES = frozenset(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else frozenset()
PINNABLE = {0, 1} <= ALL_CORES
SPLITS = {
    # name: (the server side's cores, the people's cores)
    "pinned": (frozenset({0}), frozenset({1})),
    "free": (ALL_CORES, ALL_CORES),
}
LIMITS = (
    *ROOMY,
    # The load's people all come from one address: as many sockets as it has people, and
    # its tables' bots may use every search thread, as many clients' tables would.
    "sockets_per_client=100000",
    f"searches_per_client={max(2, os.cpu_count() or 2)}",
)
"""The ``--limit`` options of every server here, SQLite's and the nodes' alike."""
SEATS = [None, "greedy", "greedy"]
THINK = (1.0, 3.0)
SMOKE_THINK = (0.05, 0.15)


@pytest.fixture(scope="module")
def postgres() -> Iterator[pg_support.Postgres]:
    """One PostgreSQL server for the module (a database of its own for each run), and
    HAProxy on the machine."""
    missing = [
        what
        for what, there in (
            ("PostgreSQL", pg_support.available()),
            ("HAProxy", proxy_support.available()),
            ("/proc", Path("/proc/self/stat").exists()),
        )
        if not there
    ]
    if missing:
        reason = f"no {', '.join(missing)} on this machine (apt-get install postgresql haproxy)"
        if os.environ.get("CI"):
            pytest.fail(f"{reason}: CI must run the cluster benchmarks")
        pytest.skip(reason)
    with pg_support.started() as server:
        yield server


def _env(name: str, default: float) -> float:
    return float(os.environ.get(name, default))


# -- processes: CPU time and cores -------------------------------------------------------


def _proc_table() -> dict[int, tuple[int, float, float]]:
    """Every process: its parent, its own CPU seconds (utime + stime, all its threads) and
    its ended children's (cutime + cstime)."""
    table = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                fields = stat.read().rpartition(")")[2].split()
        except OSError:
            continue
        own = (int(fields[11]) + int(fields[12])) / TICK
        ended = (int(fields[13]) + int(fields[14])) / TICK
        table[int(entry)] = (int(fields[1]), own, ended)
    return table


def _tree(roots: Iterable[int], table: dict[int, tuple[int, float, float]]) -> list[int]:
    """The processes ``roots`` and every process under them."""
    children = collections.defaultdict(list)
    for pid, (parent, _, _) in table.items():
        children[parent].append(pid)
    found, todo = [], [pid for pid in roots if pid in table]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo += children[pid]
    return found


def _cpu(roots: Iterable[int], table: dict[int, tuple[int, float, float]]) -> float:
    """CPU seconds of ``roots`` and everything under them, ended processes included."""
    return sum(table[pid][1] + table[pid][2] for pid in _tree(roots, table))


def _set_cores(roots: Iterable[int], cores: frozenset[int]) -> None:
    """Pin every thread of ``roots`` and of every process under them to ``cores`` (new
    threads and processes inherit it)."""
    if not PINNABLE:
        return
    for pid in _tree(roots, _proc_table()):
        with contextlib.suppress(OSError):
            for task in os.listdir(f"/proc/{pid}/task"):
                with contextlib.suppress(OSError):
                    os.sched_setaffinity(int(task), cores)


def _pin_self(cores: frozenset[int]) -> None:
    if PINNABLE:
        os.sched_setaffinity(0, cores)


# -- what serves -----------------------------------------------------------------------


class _Nodes(Nodes):
    """:class:`cluster_support.Nodes` with :data:`LIMITS`."""

    def start(self, name: str) -> None:
        self.processes[name] = start_server(
            self.dsn,  # type: ignore[arg-type]
            self.ports[name],
            *("--node", name, "--lease", str(self.lease)),
            limits=LIMITS,
        )


class _Setup:
    """One ``skitgubbe serve`` on a SQLite file (``names`` empty), or nodes ``names`` on a new
    database of ``postgres`` (HAProxy in front with ``proxy``)."""

    def __init__(
        self,
        label: str,
        tmp: Path,
        postgres: pg_support.Postgres,
        names: Sequence[str] = (),
        *,
        proxy: bool = False,
        lease: float = 3.0,
    ) -> None:
        self.label, self.names, self.postgres = label, list(names), postgres
        self.lease = lease
        self.nodes: _Nodes | None = None
        self.server: subprocess.Popen[bytes] | None = None
        self.database = f"load_{label}"
        if names:
            self.dsn = postgres.new_database(self.database)
            self.nodes = _Nodes(self.dsn, self.names, proxy=proxy, lease=lease)
            import psycopg

            self._db: Any = psycopg.connect(self.dsn, autocommit=True)
        else:
            self.path = tmp / f"{label}.db"
            self.port = free_port()
            self.server = start_server(self.path, self.port, limits=LIMITS)
            self._db = sqlite3.connect(self.path, check_same_thread=False)
        self.logs: dict[str, str] = {}
        self._postmaster = postgres.postmaster_pid() if names else None

    # addresses

    def _url(self, name: str | None) -> str:
        if self.nodes is None:
            return f"http://127.0.0.1:{self.port}"
        return self.nodes.url(name)

    def base(self, table: str, route: str) -> str:
        """Where a person connects for ``table``: the proxy, or the node its id names."""
        if self.nodes is None:
            return self._url(None)
        return self._url(None if route == "proxy" else table.partition("-")[0])

    def create_base(self, index: int, route: str) -> str:
        """Where person ``index`` makes its tables: the proxy, or its own node."""
        if self.nodes is None:
            return self._url(None)
        return self._url(None if route == "proxy" else self.names[index % len(self.names)])

    # processes

    def node_pids(self) -> list[int]:
        if self.nodes is None:
            assert self.server is not None
            return [self.server.pid]
        return [p.pid for p in self.nodes.processes.values() if p.poll() is None]

    def proxy_pid(self) -> int | None:
        proxy = self.nodes.proxy if self.nodes is not None else None
        return proxy.pid if proxy is not None else None

    def postgres_pid(self) -> int | None:
        return self._postmaster

    def pin(self, cores: frozenset[int]) -> None:
        """The server side (server or nodes, PostgreSQL, HAProxy) on ``cores``."""
        roots = [*self.node_pids(), self.postgres.postmaster_pid(), self.proxy_pid()]
        _set_cores([pid for pid in roots if pid is not None], cores)

    def cpu(self) -> dict[str, float]:
        """CPU seconds so far: the nodes', PostgreSQL's, HAProxy's, the people's (this
        process's)."""
        table = _proc_table()
        mine = os.times()
        postgres, proxy = self.postgres_pid(), self.proxy_pid()
        return {
            "nodes": _cpu(self.node_pids(), table),
            "postgres": _cpu([postgres], table) if postgres is not None else 0.0,
            "proxy": _cpu([proxy], table) if proxy is not None else 0.0,
            "people": mine.user + mine.system,
        }

    # the store

    def _rows(self, sql: str, args: Sequence[object] = ()) -> list[tuple[Any, ...]]:
        if self.nodes is None:
            return list(self._db.execute(sql.replace("%s", "?"), args).fetchall())
        return list(self._db.execute(sql, args).fetchall())

    def stored(self) -> int:
        """The moves the store holds (a row holds a run of moves, one a line)."""
        newline = "char(10)" if self.nodes is None else "chr(10)"
        sql = (
            f"SELECT COALESCE(SUM(LENGTH(moves) - LENGTH(REPLACE(moves, {newline}, '')) + 1), 0)"
            " FROM moves"
        )
        return int(self._rows(sql)[0][0])

    def stored_moves(self) -> dict[str, list[str]]:
        """Every table's moves as the store holds them."""
        moves: dict[str, list[str]] = collections.defaultdict(list)
        for table, _, run in self._rows("SELECT table_id, n, moves FROM moves ORDER BY 1, 2"):
            moves[table] += run.split("\n")
        return moves

    def states(self, ids: Sequence[str]) -> dict[str, tuple[str, str, int]]:
        """Each table's owner, status and number of moves stored (PostgreSQL)."""
        rows = self._rows(
            "SELECT t.id, t.owner, t.status, (SELECT COALESCE(SUM(LENGTH(m.moves)"
            " - LENGTH(REPLACE(m.moves, chr(10), '')) + 1), 0) FROM moves m"
            " WHERE m.table_id = t.id) FROM tables t WHERE t.id = ANY(%s)",
            (list(ids),),
        )
        return {table: (owner, status, int(count)) for table, owner, status, count in rows}

    def running_of(self, node: str) -> list[str]:
        rows = self._rows(
            "SELECT id FROM tables WHERE owner = %s AND status = 'running' ORDER BY id", (node,)
        )
        return [row[0] for row in rows]

    def close(self) -> dict[str, str]:
        """Stop everything; what each server wrote to its log."""
        with contextlib.suppress(Exception):
            self._db.close()
        if self.nodes is not None:
            # All at once: a node stopping alone ends its lease, and another would take its
            # tables over (and log it) before being stopped in turn.
            for process in self.nodes.processes.values():
                if process.poll() is None:
                    process.terminate()
            self.logs.update(self.nodes.close())
            self.postgres.drop_database(self.database)
        elif self.server is not None:
            self.logs[""] = stop_server(self.server)
        return self.logs


_NUMBERS = re.compile(r"\b[0-9a-f]{16}\b|\d+(\.\d+)?")


def _log_lines(logs: dict[str, str]) -> dict[str, int]:
    """The servers' log lines, grouped with their numbers and table ids blanked."""
    counts: collections.Counter[str] = collections.Counter()
    for name, text in logs.items():
        for line in text.splitlines():
            if line.strip():
                counts[f"{name or 'server'}: {_NUMBERS.sub('#', line.strip())[:160]}"] += 1
    return dict(counts)


# -- the people ------------------------------------------------------------------------


class _People:
    """``count`` people, each at a table of its own (``SEATS``) that it makes, claims and
    plays to its end, then the next; thinking ``think`` seconds (uniformly; ``None``: they
    answer at once) before each move. ``route``: through the proxy, or straight to the node
    a table names."""

    def __init__(
        self,
        setup: _Setup,
        count: int,
        think: tuple[float, float] | None,
        *,
        route: str = "direct",
        seed: int = 1,
    ) -> None:
        self.setup, self.count, self.think, self.route = setup, count, think, route
        self.rng = random.Random(seed)
        self.latencies: list[float] = []
        self.recording = False
        self.told = 0  # moves told, all tables
        self.games = 0  # games played to their end
        self.welcomed: set[int] = set()  # people welcomed since the last reroute
        self.current: dict[int, str] = {}  # each person's table now
        self.sockets: dict[int, Any] = {}
        self.told_moves: dict[str, dict[int, str]] = collections.defaultdict(dict)
        self.killed: float | None = None  # perf_counter of a node's kill
        self.told_after: dict[str, float] = {}  # first move told after the kill, by table
        self.problems: collections.Counter[str] = collections.Counter()
        self.generation = 0
        self._tasks: list[asyncio.Task[None]] = []
        self._http: Any = None

    async def __aenter__(self) -> _People:
        self._http = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0))
        self._tasks = [asyncio.create_task(self._person(i)) for i in range(self.count)]
        return self

    async def __aexit__(self, *exc: object) -> None:
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        await self._http.close()

    async def all_welcomed(self, timeout: float) -> float:
        """Until every person has been welcomed at a table (since the last reroute); how long."""
        began = time.perf_counter()
        while len(self.welcomed) < self.count:
            if time.perf_counter() - began > timeout:
                raise AssertionError(
                    f"{len(self.welcomed)} of {self.count} people joined in {timeout} s: "
                    f"{dict(self.problems)}"
                )
            await asyncio.sleep(0.05)
        return time.perf_counter() - began

    async def reroute(self, route: str) -> None:
        """Every person closes its socket and joins again through ``route``."""
        self.route = route
        self.generation += 1
        self.welcomed.clear()
        sockets = list(self.sockets.values())
        await asyncio.gather(
            *(asyncio.wait_for(ws.close(), 5) for ws in sockets), return_exceptions=True
        )

    async def _person(self, index: int) -> None:
        while True:
            try:
                table, token = await self._new_table(index)
            except (aiohttp.ClientError, OSError, asyncio.TimeoutError, ValueError) as error:
                self.problems[f"making a table: {type(error).__name__} {error}"[:120]] += 1
                await asyncio.sleep(0.5)
                continue
            self.current[index] = table
            await self._play(index, table, token)
            self.games += 1

    async def _new_table(self, index: int) -> tuple[str, str]:
        config = {"seats": SEATS, "move_time": 120}
        base = self.setup.create_base(index, self.route)
        async with self._http.post(f"{base}/api/tables", json=config) as made:
            if made.status != 201:
                raise ValueError(f"POST /api/tables: {made.status}")
            table = str((await made.json())["id"])
        body = {"seat": 0, "name": f"p{index}"}
        base = self.setup.base(table, self.route)
        async with self._http.post(f"{base}/api/tables/{table}/claim", json=body) as claimed:
            if claimed.status != 201:
                raise ValueError(f"claim: {claimed.status} {(await claimed.text())[:60]}")
            return table, str((await claimed.json())["token"])

    def _hurry(self, table: str, after_kill: bool) -> bool:
        """Whether to answer at once: the load does not think, or this socket was opened
        after a node was killed and its table has not been told a move on it yet."""
        return self.think is None or (after_kill and table not in self.told_after)

    async def _play(self, index: int, table: str, token: str) -> None:
        """Until the game's end: join, answer, and join again when the socket closes (after
        0.5 s, doubling up to 8 s, as the browser table does; at once after a reroute)."""
        retry = 0.5
        while True:
            generation = self.generation
            after_kill = self.killed is not None
            sent: float | None = None
            base = self.setup.base(table, self.route)
            try:
                async with self._http.ws_connect(
                    f"{base}/ws", params={"table": table}, max_msg_size=0
                ) as ws:
                    self.sockets[index] = ws
                    await ws.send_json({"type": "join", "table": table, "token": token})
                    async for message in ws:
                        if message.type != aiohttp.WSMsgType.TEXT:
                            break
                        frame = json.loads(message.data)
                        kind = frame.get("type")
                        if kind == "welcome":
                            self.welcomed.add(index)
                            retry = 0.5
                        elif kind == "update" and frame.get("moves"):
                            now = time.perf_counter()
                            moves = frame["moves"]
                            told = self.told_moves[table]
                            for number, move in enumerate(moves, start=frame["n"] - len(moves)):
                                told[number] = move["move"]
                            self.told += len(moves)
                            if after_kill and table not in self.told_after:
                                self.told_after[table] = now
                            if sent is not None and any(m["seat"] == 0 for m in moves):
                                if self.recording:
                                    self.latencies.append(now - sent)
                                sent = None
                        elif kind == "error":
                            self.problems[f"error frame: {frame.get('error')}"[:120]] += 1
                        if frame.get("result"):
                            return
                        if frame.get("legal"):
                            if not self._hurry(table, after_kill):
                                assert self.think is not None
                                await asyncio.sleep(self.rng.uniform(*self.think))
                            sent = time.perf_counter()
                            move = {"type": "move", "n": frame["n"], "move": frame["legal"][0]}
                            await ws.send_json(move)
            except (aiohttp.ClientError, OSError, asyncio.TimeoutError) as error:
                if generation == self.generation:
                    self.problems[f"socket: {type(error).__name__}"] += 1
            finally:
                self.sockets.pop(index, None)
            if generation == self.generation:
                await asyncio.sleep(retry)
                retry = min(2 * retry, 8.0)

    def lost_moves(self, stored: dict[str, list[str]]) -> int:
        """Moves told to a person that the store does not hold as that move."""
        lost = 0
        for table, told in self.told_moves.items():
            moves = stored.get(table, [])
            lost += sum(n >= len(moves) or moves[n] != move for n, move in told.items())
        return lost


def _percentiles(latencies: Sequence[float]) -> dict[str, float]:
    ordered = sorted(latencies)
    if not ordered:
        return {"p50_ms": float("nan"), "p99_ms": float("nan"), "max_ms": float("nan")}
    count = len(ordered)
    return {
        "p50_ms": ordered[count // 2] * 1e3,
        "p99_ms": ordered[min(count - 1, int(count * 0.99))] * 1e3,
        "max_ms": ordered[-1] * 1e3,
    }


async def _window(setup: _Setup, people: _People, seconds: float) -> dict[str, Any]:
    """Measure ``seconds`` of play: moves stored, CPU of each side, latencies."""
    stored = await asyncio.to_thread(setup.stored)  # before the CPU is read: not in it
    cpu = setup.cpu()
    began, told, games = time.perf_counter(), people.told, people.games
    people.latencies.clear()
    people.recording = True
    await asyncio.sleep(seconds)
    people.recording = False
    cpu_after = setup.cpu()
    elapsed = time.perf_counter() - began
    moves = await asyncio.to_thread(setup.stored) - stored  # after: not in the CPU either
    used = {key: cpu_after[key] - cpu[key] for key in cpu}
    return {
        "seconds": elapsed,
        "moves": moves,
        "told": people.told - told,
        "games": people.games - games,
        "moves_per_s": moves / elapsed,
        "cpu_s": used,
        "ms_per_move": {key: value / max(moves, 1) * 1e3 for key, value in used.items()},
        "core_share": {key: value / elapsed for key, value in used.items()},
        "latencies": len(people.latencies),
        **_percentiles(people.latencies),
    }


def _without_gc(main: Any) -> Any:
    """Run the coroutine ``main()`` with the collector's full collections off, as the
    server runs (its people's pauses are not the server's latency)."""
    thresholds = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(thresholds[0], thresholds[1], 1 << 30)
    try:
        return asyncio.run(main())
    finally:
        gc.set_threshold(*thresholds)
        gc.unfreeze()


def _finish(setup: _Setup, people: _People, out: dict[str, Any]) -> dict[str, Any]:
    """The run's lost moves, the people's problems and the servers' logs (servers stopped)."""
    out["lost_moves"] = people.lost_moves(setup.stored_moves())
    out["told_checked"] = sum(len(told) for told in people.told_moves.values())
    out["problems"] = dict(people.problems)
    out["logs"] = _log_lines(setup.close())
    return out


def _steady(
    label: str,
    tmp: Path,
    postgres: pg_support.Postgres,
    names: Sequence[str],
    *,
    tables: int,
    think: tuple[float, float] | None,
    warm: float,
    seconds: float,
    split: str,
) -> dict[str, Any]:
    """One steady load on one setup: ``tables`` people, a warm-up, one measured window."""
    servers, clients = SPLITS[split]
    setup = _Setup(label, tmp, postgres, names)
    try:
        setup.pin(servers)
        _pin_self(clients)

        async def main() -> tuple[dict[str, Any], _People]:
            async with _People(setup, tables, think) as people:
                joined = await people.all_welcomed(120)
                await asyncio.sleep(warm)
                out = await _window(setup, people, seconds)
                out["joined_s"] = joined
            return out, people

        out, people = _without_gc(main)
    except BaseException:
        setup.close()
        raise
    finally:
        _pin_self(ALL_CORES)
    out.update(label=label, nodes=len(names), store="postgresql" if names else "sqlite")
    out["split"] = split
    return _finish(setup, people, out)


def _describe(out: dict[str, Any]) -> str:
    cpu = out["ms_per_move"]
    text = (
        f"{out['label']:>12}: {out['moves']} moves in {out['seconds']:.1f} s "
        f"({out['moves_per_s']:.0f}/s, {out['games']} games ended); ms CPU/move: nodes "
        f"{cpu['nodes']:.3f}, postgres {cpu['postgres']:.3f}, proxy {cpu['proxy']:.3f}, "
        f"people {cpu['people']:.3f}; core share: "
        + ", ".join(f"{k} {v:.0%}" for k, v in out["core_share"].items())
    )
    if out["latencies"]:
        text += (
            f"; latency p50 {out['p50_ms']:.2f} ms, p99 {out['p99_ms']:.2f} ms, "
            f"max {out['max_ms']:.1f} ms ({out['latencies']} moves)"
        )
    return text + _trouble(out)


def _trouble(out: dict[str, Any]) -> str:
    """What went wrong, if anything: lost moves, the people's problems, the servers' log."""
    parts = []
    if out.get("lost_moves"):
        parts.append(f"LOST MOVES {out['lost_moves']} of {out['told_checked']} told")
    if out.get("problems"):
        parts.append(f"people's problems {out['problems']}")
    if out.get("logs"):
        shown = dict(sorted(out["logs"].items(), key=lambda item: -item[1])[:8])
        parts.append(f"server logs ({sum(out['logs'].values())} lines) {shown}")
    return "".join(f"\n{'':>14}{part}" for part in parts)


def _summary(out: dict[str, Any]) -> dict[str, Any]:
    """What goes into extra_info (no raw lists)."""
    return {key: value for key, value in out.items() if not isinstance(value, list)}


# -- 1. CPU per move -------------------------------------------------------------------


def test_cpu_per_move(
    benchmark: Any, figures: Any, tmp_path: Path, postgres: pg_support.Postgres
) -> None:
    full = not benchmark.disabled
    tables = int(_env("SKITGUBBE_CLUSTER_TABLES", 300)) if full else 6
    seconds = _env("SKITGUBBE_CLUSTER_SECONDS", 30) if full else 1.0
    think = THINK if full else SMOKE_THINK
    runs: dict[str, dict[str, Any]] = {}

    def run() -> None:
        for label, names in (("sqlite", ()), ("pg-1node", ("n1",)), ("pg-2nodes", ("n1", "n2"))):
            runs[label] = _steady(
                f"cpu_{label.replace('-', '_')}",
                tmp_path,
                postgres,
                names,
                tables=tables,
                think=think,
                warm=3.0 if full else 0.3,
                seconds=seconds,
                split="pinned",
            )
            runs[label]["label"] = label

    benchmark.pedantic(run, rounds=1, iterations=1)
    one, pg1, pg2 = runs["sqlite"], runs["pg-1node"], runs["pg-2nodes"]

    def per_move(out: dict[str, Any], with_postgres: bool) -> float:
        cpu = out["ms_per_move"]
        return float(cpu["nodes"] + (cpu["postgres"] if with_postgres else 0.0))

    ratio = per_move(pg2, False) / per_move(one, False)
    ratio_pg = per_move(pg2, True) / per_move(one, False)
    print(
        f"\nCPU per move, {tables} tables, people thinking {think[0]}-{think[1]} s, "
        f"{seconds:.0f} s window, server side on core 0, people on core 1:"
    )
    for out in runs.values():
        print(_describe(out))
    print(
        f"  2 nodes on PostgreSQL / 1 process on SQLite, server CPU per move: {ratio:.2f}x "
        f"(nodes alone), {ratio_pg:.2f}x (nodes + PostgreSQL); 1 node on PostgreSQL / SQLite: "
        f"{per_move(pg1, False) / per_move(one, False):.2f}x, "
        f"{per_move(pg1, True) / per_move(one, False):.2f}x"
    )
    for out in runs.values():
        assert out["moves"] > 0, f"{out['label']}: no move was stored"
    benchmark.extra_info["runs"] = {label: _summary(out) for label, out in runs.items()}
    figures.add(
        "cluster cpu",
        benchmark,
        *(
            Figure(
                f"{label}_{part}_ms_per_move",
                f"{tables} tables, {label}: {part} CPU per move",
                per_move(out, False) if part == "server" else out["ms_per_move"]["postgres"],
                "ms",
            )
            for label, out in runs.items()
            for part in (("server", "postgres") if out["nodes"] else ("server",))
        ),
        Figure(
            "pg2_over_sqlite_cpu",
            "2 nodes PG / 1 process SQLite: nodes' CPU per move",
            ratio,
            "x",
            Target("<=", 1.25),
        ),
        Figure(
            "pg2_with_postgres_over_sqlite_cpu",
            "2 nodes PG / 1 process SQLite: nodes' + PostgreSQL's CPU per move",
            ratio_pg,
            "x",
            Target("<=", 1.25),
        ),
    )


# -- 2. saturation ---------------------------------------------------------------------


def test_saturated_moves_per_second(
    benchmark: Any, figures: Any, tmp_path: Path, postgres: pg_support.Postgres
) -> None:
    full = not benchmark.disabled
    tables = int(_env("SKITGUBBE_CLUSTER_SATURATED_TABLES", 200)) if full else 6
    seconds = _env("SKITGUBBE_CLUSTER_SATURATED_SECONDS", 10) if full else 0.5
    runs: dict[str, dict[str, Any]] = {}
    splits = (list(SPLITS) if full else ["pinned"]) if PINNABLE else ["free"]

    def run() -> None:
        for split in splits:
            for label, names in (
                ("sqlite", ()),
                ("pg-1node", ("n1",)),
                ("pg-2nodes", ("n1", "n2")),
            ):
                key = f"{split} {label}"
                runs[key] = _steady(
                    f"sat_{split}_{label.replace('-', '_')}",
                    tmp_path,
                    postgres,
                    names,
                    tables=tables,
                    think=None,
                    warm=2.0 if full else 0.2,
                    seconds=seconds,
                    split=split,
                )
                runs[key]["label"] = key

    benchmark.pedantic(run, rounds=1, iterations=1)
    print(f"\nSaturated (people answer at once), {tables} tables, {seconds:.0f} s window:")
    for out in runs.values():
        print(_describe(out))
    found = []
    for split in splits:
        rate = {label: runs[f"{split} {label}"]["moves_per_s"] for label in ("sqlite", "pg-1node")}
        two = runs[f"{split} pg-2nodes"]["moves_per_s"]
        print(
            f"  {split}: 2 nodes / 1 node (PostgreSQL) {two / rate['pg-1node']:.2f}x, "
            f"2 nodes PG / 1 process SQLite {two / rate['sqlite']:.2f}x"
        )
        found += [
            Figure(
                f"{split}_{label.replace('-', '_')}_moves_per_s",
                f"saturated, {split}: {label}",
                runs[f"{split} {label}"]["moves_per_s"],
                "/s",
            )
            for label in ("sqlite", "pg-1node", "pg-2nodes")
        ]
        found += [
            Figure(
                f"{split}_2_over_1_nodes",
                f"saturated, {split}: 2 / 1 node",
                two / rate["pg-1node"],
                "x",
            ),
            Figure(
                f"{split}_2nodes_over_sqlite",
                f"saturated, {split}: 2 nodes PG / 1 process SQLite",
                two / rate["sqlite"],
                "x",
            ),
        ]
    for out in runs.values():
        assert out["moves"] > 0, f"{out['label']}: no move was stored"
    benchmark.extra_info["runs"] = {label: _summary(out) for label, out in runs.items()}
    figures.add("cluster saturated", benchmark, *found)


# -- 3. latency at 1,000 tables through the proxy --------------------------------------


def test_latency_through_the_proxy(
    benchmark: Any, figures: Any, tmp_path: Path, postgres: pg_support.Postgres
) -> None:
    full = not benchmark.disabled
    tables = int(_env("SKITGUBBE_CLUSTER_LATENCY_TABLES", 1000)) if full else 10
    seconds = _env("SKITGUBBE_CLUSTER_LATENCY_SECONDS", 30) if full else 1.0
    think = THINK if full else SMOKE_THINK
    warm = 3.0 if full else 0.3
    servers, clients = SPLITS["free"]
    runs: dict[str, dict[str, Any]] = {}

    def run() -> None:
        runs["sqlite"] = _steady(
            "lat_sqlite",
            tmp_path,
            postgres,
            (),
            tables=tables,
            think=think,
            warm=warm,
            seconds=seconds,
            split="free",
        )
        setup = _Setup("lat_cluster", tmp_path, postgres, ("n1", "n2"), proxy=True)
        try:
            setup.pin(servers)
            _pin_self(clients)

            async def main() -> _People:
                async with _People(setup, tables, think, route="proxy") as people:
                    for route in ("proxy", "direct"):
                        if route != people.route:
                            await people.reroute(route)
                        joined = await people.all_welcomed(120)
                        await asyncio.sleep(warm)
                        runs[route] = await _window(setup, people, seconds)
                        runs[route]["joined_s"] = joined
                return people

            people = _without_gc(main)
        except BaseException:
            setup.close()
            raise
        finally:
            _pin_self(ALL_CORES)
        checked = _finish(setup, people, {})
        for route in ("proxy", "direct"):
            runs[route].update(checked if route == "direct" else {})

    benchmark.pedantic(run, rounds=1, iterations=1)
    runs["sqlite"]["label"] = "sqlite"
    runs["proxy"]["label"] = "2 nodes proxy"
    runs["direct"]["label"] = "2 nodes direct"
    proxy, direct = runs["proxy"], runs["direct"]
    print(
        f"\nLatency, {tables} tables, people thinking {think[0]}-{think[1]} s, {seconds:.0f} s "
        "windows, nothing pinned:"
    )
    for out in runs.values():
        print(_describe(out))
    added = {key: proxy[key] - direct[key] for key in ("p50_ms", "p99_ms")}
    print(
        f"  the proxy adds {added['p50_ms']:.2f} ms at p50, {added['p99_ms']:.2f} ms at p99; "
        f"HAProxy's CPU {proxy['ms_per_move']['proxy']:.3f} ms a move"
    )
    for out in runs.values():
        assert out["latencies"], f"{out['label']}: no move was answered"
    benchmark.extra_info["runs"] = {label: _summary(out) for label, out in runs.items()}
    found = []
    for key, out in runs.items():
        found += [
            Figure(
                f"{key}_p50_ms",
                f"{tables} tables, {out['label']}: p50",
                out["p50_ms"],
                "ms",
                Target("<=", 2),
            ),
            Figure(
                f"{key}_p99_ms",
                f"{tables} tables, {out['label']}: p99",
                out["p99_ms"],
                "ms",
                Target("<=", 50),
            ),
        ]
    found += [
        Figure("proxy_adds_p50_ms", "the proxy adds at p50", added["p50_ms"], "ms"),
        Figure("proxy_adds_p99_ms", "the proxy adds at p99", added["p99_ms"], "ms"),
        Figure("proxy_ms_per_move", "HAProxy's CPU per move", proxy["ms_per_move"]["proxy"], "ms"),
    ]
    figures.add("cluster latency", benchmark, *found)


# -- 4. takeover -----------------------------------------------------------------------


def test_takeover_after_sigkill(
    benchmark: Any, figures: Any, tmp_path: Path, postgres: pg_support.Postgres
) -> None:
    full = not benchmark.disabled
    tables = int(_env("SKITGUBBE_CLUSTER_TABLES", 300)) if full else 9
    think = THINK if full else SMOKE_THINK
    lease = 3.0 if full else 1.0
    out: dict[str, Any] = {}

    def run() -> None:
        setup = _Setup("takeover", tmp_path, postgres, ("n1", "n2", "n3"), proxy=True, lease=lease)
        assert setup.nodes is not None
        nodes = setup.nodes
        setup.pin(ALL_CORES)  # PostgreSQL too, whatever a run before pinned it to
        try:

            async def main() -> _People:
                async with _People(setup, tables, think, route="proxy") as people:
                    await people.all_welcomed(120)
                    await asyncio.sleep(5.0 if full else 0.5)  # the middle of the games
                    killed = time.perf_counter()
                    people.killed = killed
                    nodes.signal("n2", signal.SIGKILL)
                    orphans = await asyncio.to_thread(setup.running_of, "n2")
                    at_kill = await asyncio.to_thread(setup.states, orphans)
                    taken: dict[str, float] = {}
                    stored: dict[str, float] = {}
                    owners: collections.Counter[str] = collections.Counter()
                    deadline = killed + 60
                    while time.perf_counter() < deadline:
                        states = await asyncio.to_thread(setup.states, orphans)
                        now = time.perf_counter()
                        for table, (owner, status, count) in states.items():
                            if table not in taken and owner != "n2":
                                taken[table] = now
                                owners[owner] += 1
                            if table not in stored and (
                                count > at_kill[table][2] or status != "running"
                            ):
                                stored[table] = now
                        told = [t for t in orphans if t in people.told_after]
                        if len(taken) == len(stored) == len(told) == len(orphans):
                            break
                        await asyncio.sleep(0.05)
                    since = {
                        "taken": [taken[t] - killed for t in orphans if t in taken],
                        "stored": [stored[t] - killed for t in orphans if t in stored],
                        "told": [
                            people.told_after[t] - killed for t in orphans if t in people.told_after
                        ],
                    }
                    out.update(orphans=len(orphans), owners=dict(owners), since=since)
                return people

            people = _without_gc(main)
        except BaseException:
            setup.close()
            raise
        out.update(_finish(setup, people, {}))

    benchmark.pedantic(run, rounds=1, iterations=1)
    orphans = out["orphans"]
    print(
        f"\nTakeover: 3 nodes behind HAProxy, {tables} tables, people thinking "
        f"{think[0]}-{think[1]} s through the proxy, n2 killed with {orphans} running tables "
        f"(lease {lease:g} s, beat {min(0.5, lease / 3):.2g} s), seconds from the SIGKILL until:"
    )
    done = {}
    for what, times in out["since"].items():
        ordered = sorted(times)
        every = ordered[-1] if len(ordered) == orphans and ordered else float("nan")
        done[what] = every
        median = ordered[len(ordered) // 2] if ordered else float("nan")
        first = ordered[0] if ordered else float("nan")
        print(
            f"  {what:>6}: {len(ordered)} of {orphans} tables; first {first:.2f} s, "
            f"median {median:.2f} s, every one {every:.2f} s"
        )
    print(f"  taken over by {out['owners']}" + _trouble(out))
    assert orphans > 0, "n2 had no running table when it was killed"
    benchmark.extra_info["takeover"] = {
        **{k: v for k, v in out.items() if k != "since"},
        **{f"{what}_every_s": value for what, value in done.items()},
    }
    figures.add(
        "cluster takeover",
        benchmark,
        Figure(
            "taken_s", f"{orphans} orphaned tables: all owned by a live node", done["taken"], "s"
        ),
        Figure(
            "stored_s", f"{orphans} orphaned tables: all stored a new move", done["stored"], "s"
        ),
        Figure("told_s", f"{orphans} orphaned tables: all told a new move", done["told"], "s"),
    )
