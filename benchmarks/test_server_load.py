"""The multiplayer server under load: many tables, one websocket person and two greedy bots
each, the server on one core and the people in another process on the other.

A person thinks 1–3 s (uniformly) before each move. Move latency is the time from sending a
move to receiving the server's ``move`` frame for it, as the person's client sees it (parse
included). Then the people stop thinking (moves per second at saturation), the server's
resident memory is read, and the server is killed (SIGKILL) and started again on the same
SQLite file: the restart time is from starting the process until its lobby lists every table
back. Figures are reported, not asserted.

Full size (1,000 tables, 60 s of play): ``SKITGUBBE_LOAD_TABLES=1000 PYTHONPATH=src python -m
pytest benchmarks/test_server_load.py -s``. With ``--benchmark-disable`` (the CI's smoke run)
it plays 20 tables for 3 s.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from support import Figure, Target

aiohttp = pytest.importorskip("aiohttp")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _pin(core: int) -> None:
    if hasattr(os, "sched_setaffinity") and len(os.sched_getaffinity(0)) > 1:
        os.sched_setaffinity(0, {core})


def _start(db: Path, port: int) -> tuple[subprocess.Popen[bytes], float]:
    began = time.perf_counter()
    server = subprocess.Popen(
        [sys.executable, "-m", "skitgubbe", "serve", "--port", str(port), "--db", str(db)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        preexec_fn=lambda: _pin(0),
    )
    return server, began


async def _wait_for(url: str, tables: int, timeout: float = 60) -> int:
    """Until the lobby lists at least ``tables`` running tables; how many it lists."""
    deadline = time.monotonic() + timeout
    async with aiohttp.ClientSession(url) as http:
        while time.monotonic() < deadline:
            try:
                async with http.get("/api/tables") as response:
                    listed = await response.json()
                    running = sum(t["status"] == "running" for t in listed)
                    if running >= tables:
                        return running
            except aiohttp.ClientError:
                pass
            await asyncio.sleep(0.01)
    raise AssertionError("the server did not come back")


def _rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


async def _load(url: str, tables: int, seconds: float, saturate: float) -> dict[str, Any]:
    latencies: list[float] = []
    moves = {"think": 0, "saturated": 0}
    phase = {"name": "think"}
    rng = random.Random(1)
    stop = asyncio.Event()
    connector = aiohttp.TCPConnector(limit=0)
    async with aiohttp.ClientSession(url, connector=connector) as http:

        async def person(index: int) -> None:
            config = {"seats": [None, "greedy", "greedy"], "move_time": 120}
            async with http.post("/api/tables", json=config) as created:
                table = (await created.json())["id"]
            body = {"seat": 0, "name": f"p{index}"}
            async with http.post(f"/api/tables/{table}/claim", json=body) as claimed:
                token = (await claimed.json())["token"]
            async with http.ws_connect("/ws", max_msg_size=0) as ws:
                await ws.send_json({"type": "join", "table": table, "token": token})
                sent: float | None = None
                async for message in ws:
                    frame = json.loads(message.data)
                    if frame["type"] == "move":
                        moves[phase["name"]] += 1
                        if frame["seat"] == 0 and sent is not None:
                            latencies.append(time.perf_counter() - sent)
                            sent = None
                    if frame.get("result") or stop.is_set():
                        return
                    if frame.get("legal"):
                        if phase["name"] == "think":
                            await asyncio.sleep(rng.uniform(1.0, 3.0))
                        sent = time.perf_counter()
                        await ws.send_json(
                            {"type": "move", "n": frame["n"], "move": frame["legal"][0]}
                        )

        people = [asyncio.create_task(person(i)) for i in range(tables)]
        await asyncio.sleep(seconds)
        phase["name"] = "saturated"
        think_latencies = list(latencies)
        await asyncio.sleep(saturate)
        stop.set()
        await asyncio.wait(people, timeout=30)
        for task in people:
            task.cancel()
    think_latencies.sort()
    count = len(think_latencies)
    return {
        "latencies": think_latencies,
        "p50": think_latencies[count // 2] if count else float("nan"),
        "p99": think_latencies[min(count - 1, int(count * 0.99))] if count else float("nan"),
        "max": think_latencies[-1] if count else float("nan"),
        "moves_per_second": moves["saturated"] / saturate,
        "think_moves_per_second": moves["think"] / seconds,
    }


def test_a_thousand_tables_on_one_core(benchmark: Any, figures: Any, tmp_path: Path) -> None:
    full = not benchmark.disabled
    tables = int(os.environ.get("SKITGUBBE_LOAD_TABLES", "1000")) if full else 20
    seconds, saturate = (60.0, 10.0) if full else (3.0, 1.0)
    db, port = tmp_path / "load.db", _free_port()
    url = f"http://127.0.0.1:{port}"
    cores = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else None
    _pin(1)
    server, _ = _start(db, port)
    out: dict[str, Any] = {}
    try:
        asyncio.run(_wait_for(url, 0))

        def run() -> None:
            out.update(asyncio.run(_load(url, tables, seconds, saturate)))
            out["rss"] = _rss_mib(server.pid)

        benchmark.pedantic(run, rounds=1, iterations=1)
        running = asyncio.run(_wait_for(url, 0))  # the games not over yet
        server.send_signal(signal.SIGKILL)
        server.wait(10)
        server, began = _start(db, port)
        out["back"] = asyncio.run(_wait_for(url, running))
        out["restart"] = time.perf_counter() - began
    finally:
        server.kill()
        server.wait(10)
        if cores is not None:  # the benchmarks after this one run where they would have
            os.sched_setaffinity(0, cores)
    print(
        f"\n{tables} tables: move latency p50 {out['p50'] * 1e3:.2f} ms, "
        f"p99 {out['p99'] * 1e3:.2f} ms, max {out['max'] * 1e3:.2f} ms "
        f"({len(out['latencies'])} moves); {out['think_moves_per_second']:.0f} moves/s thinking, "
        f"{out['moves_per_second']:.0f} moves/s saturated; server {out['rss']:.0f} MiB; "
        f"{out['back']} running tables back {out['restart']:.2f} s after a SIGKILL"
    )
    assert out["latencies"], "no move was answered"
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
            f"{tables} tables: back after SIGKILL",
            out["restart"],
            "s",
            Target("<=", 1),
        ),
    )
