"""The multiplayer server under load: many tables, one websocket person and two greedy bots
each, the server on one core and the people in another process on the other.

1. Thinking: a person thinks 1–3 s (uniformly) before each move. Move latency is the time
   from sending a move to receiving the server's ``update`` frame that holds it, as the
   person's client sees it (parse included). The server's resident memory is read at the end.
2. The restart: the server is killed (SIGKILL) in the middle of the games and started again
   on the same SQLite file: the time from starting the process until its lobby lists every
   table the store holds as running. The people reconnect as the browser table does (after
   half a second, doubling) with their tokens, and play on.
3. Saturation: the people stop thinking: the moves per second the server then plays.

The people's process keeps its own garbage collector's pauses out of the figures, as the
server does (:func:`skitgubbe.server.tune_gc`). Figures are reported, not asserted. Full size
(1,000 tables, 60 s of thinking, 10 s saturated): ``PYTHONPATH=src python -m pytest
benchmarks/test_server_load.py -s`` (``SKITGUBBE_LOAD_TABLES=N`` for another count). With
``--benchmark-disable`` (the CI's smoke run) it plays 20 tables for 3 s.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import os
import random
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from support import Figure, Target

aiohttp = pytest.importorskip("aiohttp")
sys.path.append(str(Path(__file__).resolve().parents[1] / "tests"))
from server_support import ROOMY  # noqa: E402

SOCKETS = "sockets_per_client=100000"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _pin(core: int) -> None:
    if hasattr(os, "sched_setaffinity") and len(os.sched_getaffinity(0)) > 1:
        os.sched_setaffinity(0, {core})


class _Server:
    """The ``skitgubbe serve`` process (pinned to core 0), which the load kills and restarts."""

    def __init__(self, db: Path, port: int) -> None:
        self.db, self.port = db, port
        self.url = f"http://127.0.0.1:{port}"
        self._start()

    def _start(self) -> None:
        self.began = time.perf_counter()
        self.process = subprocess.Popen(
            [
                *(sys.executable, "-m", "skitgubbe", "serve", "--port", f"{self.port}"),
                *("--db", self.db),
                # The load's thousand people come from one address: as many tables as it makes,
                # and a socket each (the default, 64 sockets a client, refused the others).
                *[arg for limit in (*ROOMY, SOCKETS) for arg in ("--limit", limit)],
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=lambda: _pin(0),
        )

    def kill_and_start(self) -> frozenset[str]:
        """SIGKILL, then start again; the tables the store holds as running."""
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(10)
        with contextlib.closing(sqlite3.connect(self.db)) as db:
            rows = db.execute("SELECT id FROM tables WHERE status = 'running'").fetchall()
        running = frozenset(row[0] for row in rows)
        self._start()
        return running

    def stop(self) -> None:
        self.process.kill()
        self.process.wait(10)

    def rss_mib(self) -> float:
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return float("nan")


async def _wait_for(url: str, tables: frozenset[str] = frozenset(), timeout: float = 60) -> None:
    """Until the lobby answers and lists every one of ``tables`` (running, or over since)."""
    deadline = time.monotonic() + timeout
    async with aiohttp.ClientSession(url) as http:
        while time.monotonic() < deadline:
            try:
                async with http.get("/api/tables?status=live&limit=1") as response:
                    if response.status == 200:
                        break
            except aiohttp.ClientError:
                pass
            await asyncio.sleep(0.01)
        for table in sorted(tables):  # each served again (the lobby lists a page at a time)
            while time.monotonic() < deadline:
                async with http.get(f"/api/tables/{table}") as response:
                    if response.status == 200:
                        break
                await asyncio.sleep(0.01)
        if time.monotonic() < deadline:
            return
    raise AssertionError("the server did not come back")


def _percentiles(latencies: list[float]) -> dict[str, float]:
    ordered = sorted(latencies)
    count = len(ordered)
    if not count:
        return {"p50": float("nan"), "p99": float("nan"), "max": float("nan")}
    return {
        "p50": ordered[count // 2],
        "p99": ordered[min(count - 1, int(count * 0.99))],
        "max": ordered[-1],
    }


async def _load(server: _Server, tables: int, seconds: float, saturate: float) -> dict[str, Any]:
    latencies: list[float] = []
    moves = {"think": 0, "restart": 0, "saturated": 0}
    phase = {"name": "think"}
    rng = random.Random(1)
    stop = asyncio.Event()
    back: set[int] = set()  # the people who joined again after the restart
    connector = aiohttp.TCPConnector(limit=0)
    async with aiohttp.ClientSession(server.url, connector=connector) as http:

        async def play(index: int, table: str, token: str) -> bool:
            """One connection's worth of play; True once the game is over (or the load)."""
            async with http.ws_connect("/ws", max_msg_size=0) as ws:
                await ws.send_json({"type": "join", "table": table, "token": token})
                sent: float | None = None
                async for message in ws:
                    if message.type != aiohttp.WSMsgType.TEXT:
                        break
                    frame = json.loads(message.data)
                    if frame["type"] == "welcome" and phase["name"] != "think":
                        back.add(index)
                    if frame["type"] == "update":
                        moves[phase["name"]] += len(frame["moves"])
                        if sent is not None and any(m["seat"] == 0 for m in frame["moves"]):
                            if phase["name"] == "think":
                                latencies.append(time.perf_counter() - sent)
                            sent = None
                    if frame.get("result") or stop.is_set():
                        return True
                    if frame.get("legal"):
                        if phase["name"] != "saturated":
                            await asyncio.sleep(rng.uniform(1.0, 3.0))
                        sent = time.perf_counter()
                        await ws.send_json(
                            {"type": "move", "n": frame["n"], "move": frame["legal"][0]}
                        )
            return False

        async def person(index: int) -> None:
            config = {"seats": [None, "greedy", "greedy"], "move_time": 120}
            async with http.post("/api/tables", json=config) as created:
                table = (await created.json())["id"]
            body = {"seat": 0, "name": f"p{index}"}
            async with http.post(f"/api/tables/{table}/claim", json=body) as claimed:
                token = (await claimed.json())["token"]
            retry = 0.5  # as the browser table does: half a second, doubling
            while not stop.is_set():  # the server's restart drops the socket: join again
                try:
                    if await play(index, table, token):
                        return
                    retry = 0.5
                except (aiohttp.ClientError, ConnectionError):
                    retry = min(retry * 2, 8.0)
                await asyncio.sleep(retry)

        people = [asyncio.create_task(person(i)) for i in range(tables)]
        await asyncio.sleep(seconds)
        out: dict[str, Any] = {"latencies": list(latencies), **_percentiles(latencies)}
        out["think_moves_per_second"] = moves["think"] / seconds
        out["rss"] = server.rss_mib()
        phase["name"] = "restart"
        running = server.kill_and_start()
        await _wait_for(server.url, running)
        out["restart"] = time.perf_counter() - server.began
        out["running"] = len(running)
        for _ in range(3000):  # until everyone still playing has joined again (30 s at most)
            if len(back) >= sum(not person.done() for person in people):
                break
            await asyncio.sleep(0.01)
        phase["name"] = "saturated"
        await asyncio.sleep(saturate)
        out["moves_per_second"] = moves["saturated"] / saturate
        stop.set()
        await asyncio.wait(people, timeout=30)
        for task in people:
            task.cancel()
    return out


def test_a_thousand_tables_on_one_core(benchmark: Any, figures: Any, tmp_path: Path) -> None:
    full = not benchmark.disabled
    tables = int(os.environ.get("SKITGUBBE_LOAD_TABLES", "1000")) if full else 20
    seconds = float(os.environ.get("SKITGUBBE_LOAD_SECONDS", "60")) if full else 3.0
    saturate = 10.0 if full else 1.0
    cores = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else None
    _pin(1)
    server = _Server(tmp_path / "load.db", _free_port())
    out: dict[str, Any] = {}
    try:
        asyncio.run(_wait_for(server.url))

        def run() -> None:
            thresholds = gc.get_threshold()
            gc.freeze()
            gc.set_threshold(thresholds[0], thresholds[1], 1 << 30)  # no full collection
            try:
                out.update(asyncio.run(_load(server, tables, seconds, saturate)))
            finally:
                gc.set_threshold(*thresholds)
                gc.unfreeze()

        benchmark.pedantic(run, rounds=1, iterations=1)
    finally:
        server.stop()
        if cores is not None:  # the benchmarks after this one run where they would have
            os.sched_setaffinity(0, cores)
    print(
        f"\n{tables} tables: move latency p50 {out['p50'] * 1e3:.2f} ms, "
        f"p99 {out['p99'] * 1e3:.2f} ms, max {out['max'] * 1e3:.2f} ms "
        f"({len(out['latencies'])} moves); {out['think_moves_per_second']:.0f} moves/s thinking, "
        f"{out['moves_per_second']:.0f} moves/s saturated; server {out['rss']:.0f} MiB; "
        f"{out['running']} running tables all back {out['restart']:.2f} s after a SIGKILL"
    )
    assert out["latencies"], "no move was answered"
    assert out["running"] > 0, "no table was running at the kill"
    assert out["moves_per_second"] > 0, "nobody played on after the restart"
    name = "server load"
    figures.add(
        name,
        benchmark,
        Figure(
            "p50_ms", f"{tables} tables: move latency p50", out["p50"] * 1e3, "ms", Target("<=", 2)
        ),
        Figure(
            "p99_ms", f"{tables} tables: move latency p99", out["p99"] * 1e3, "ms", Target("<=", 50)
        ),
        Figure("max_ms", f"{tables} tables: move latency max", out["max"] * 1e3, "ms"),
        Figure("moves_per_s", f"{tables} tables: moves/s saturated", out["moves_per_second"], "/s"),
        Figure("rss_mib", f"{tables} tables: server memory", out["rss"], "MiB", Target("<=", 300)),
        Figure(
            "restart_s",
            f"{out['running']} running tables: back after SIGKILL",
            out["restart"],
            "s",
            Target("<=", 1),
        ),
    )
