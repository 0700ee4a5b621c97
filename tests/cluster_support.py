"""Clusters for the cluster tests: real ``skitgubbe serve --node`` processes on a real
PostgreSQL database, a real HAProxy in front when asked, and clients that play as the
browser table does (a person answers its prompts, a socket that closes joins again after
a pause that doubles), noting every move they are told of and checking that each comes
exactly once, in order."""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import subprocess
import time
from collections.abc import Sequence
from typing import Any

import aiohttp
from proxy_support import HAProxy
from server_support import free_port, start_server, stop_server

from skitgubbe.server.cluster import haproxy_config

SHORT = {"max_moves": 400}
"""Rules for short games."""


class Nodes:
    """``skitgubbe serve --node NAME`` processes on one database (``dsn``), each on a port of
    its own, with an HAProxy in front if ``proxy`` (:func:`haproxy_config`)."""

    def __init__(
        self,
        dsn: str,
        names: Sequence[str],
        *,
        proxy: bool = False,
        lease: float = 3.0,
        args: Sequence[str] = (),
    ):
        self.dsn = dsn
        self.lease = lease
        self.args = list(args)  # more options of each node's skitgubbe serve
        self.ports = {name: free_port() for name in names}
        self.processes: dict[str, subprocess.Popen[bytes]] = {}
        self.logs: dict[str, str] = {}
        self.proxy: HAProxy | None = None
        try:
            for name in names:
                self.start(name)
            if proxy:
                addresses = {name: f"127.0.0.1:{port}" for name, port in self.ports.items()}
                port = free_port()
                config = haproxy_config(addresses, f"127.0.0.1:{port}", maxconn=4000)
                self.proxy = HAProxy(config, port)
                self.proxy.start()
        except BaseException:  # nothing left running behind a failed start
            self.close()
            raise

    def start(self, name: str) -> None:
        """Start node ``name`` (again), once it listens."""
        self.processes[name] = start_server(
            self.dsn,  # type: ignore[arg-type]
            self.ports[name],
            *("--node", name, "--lease", str(self.lease), *self.args),
        )

    def url(self, name: str | None = None) -> str:
        """The base URL of node ``name``, or of the proxy (``None``)."""
        if name is None:
            assert self.proxy is not None
            return f"http://127.0.0.1:{self.proxy.port}"
        return f"http://127.0.0.1:{self.ports[name]}"

    def signal(self, name: str, number: int) -> None:
        """Send node ``name`` a signal (SIGKILL: it is gone, and reaped)."""
        process = self.processes[name]
        os.kill(process.pid, number)
        if number == signal.SIGKILL:
            process.wait(10)
            self.logs[name] = self.logs.get(name, "") + stop_server(process)

    def close(self) -> dict[str, str]:
        """Stop everything; each node's log (stderr)."""
        if self.proxy is not None:
            self.proxy.close()
        for name, process in self.processes.items():
            if process.poll() is None:
                os.kill(process.pid, signal.SIGCONT)
            self.logs[name] = self.logs.get(name, "") + stop_server(process)
        return self.logs


class Client:
    """One seat's person, or a spectator (``token`` ``None``), at table ``table`` through
    ``base``, playing as the browser table does until the game's result: a person answers
    each prompt with a random legal move (after up to ``think`` seconds), or never
    (``answers=False``)."""

    def __init__(
        self,
        http: aiohttp.ClientSession,
        base: str,
        table: str,
        token: str | None = None,
        *,
        seed: int = 0,
        think: float = 0.0,
        answers: bool = True,
    ) -> None:
        self.http, self.base, self.table, self.token = http, base, table, token
        self.random = random.Random(seed)
        self.think = think
        self.answers = answers  # False: the person never moves (the clock runs out)
        self.n = 0  # the moves this client knows of
        self.told: dict[int, str] = {}  # the moves it was told of (in updates), by number
        self.result: dict[str, Any] | None = None
        self.welcomes = 0
        self.closes: list[str] = []
        self.prompts: list[tuple[float, int, float | None]] = []  # when, move number, time left
        self.stand_ins: list[tuple[float, int]] = []  # when a stand-in moved, its number
        self.updates: list[float] = []  # when each update with moves came
        self.sockets = 0  # the sockets opened so far
        self.frames: list[tuple[float, int, str]] = []  # when, on which socket, what came

    async def play(self, deadline: float) -> None:
        """Until the result (or ``deadline``, the loop's time): connect, join or watch,
        answer the prompts; when the socket closes, join again after 0.2 s, doubled each
        time up to 2 s (the browser waits from 0.5 s to 8 s)."""
        retry = 0.2
        loop = asyncio.get_running_loop()
        while self.result is None and loop.time() < deadline:
            try:
                ws = await self.http.ws_connect(f"{self.base}/ws", params={"table": self.table})
            except (aiohttp.ClientError, OSError):
                await asyncio.sleep(retry)
                retry = min(2 * retry, 2.0)
                continue
            self.sockets += 1
            async with ws:
                first = {"type": "watch", "table": self.table}
                if self.token is not None:
                    first = {"type": "join", "table": self.table, "token": self.token}
                await ws.send_json(first)
                while loop.time() < deadline:
                    try:
                        message = await ws.receive(timeout=max(0.1, deadline - loop.time()))
                    except asyncio.TimeoutError:
                        break
                    if message.type != aiohttp.WSMsgType.TEXT:
                        self.frames.append((time.monotonic(), self.sockets - 1, "close"))
                        self.closes.append(str(message.extra or message.type))
                        break
                    retry = 0.2
                    frame = json.loads(message.data)
                    self.frames.append((time.monotonic(), self.sockets - 1, frame.get("type", "")))
                    try:
                        await self._frame(ws, frame)
                    except (aiohttp.ClientError, ConnectionError):  # closing under the move
                        break
                    if self.result is not None:
                        return
            await asyncio.sleep(retry)
            retry = min(2 * retry, 2.0)

    async def _frame(self, ws: Any, frame: dict[str, Any]) -> None:
        kind = frame.get("type")
        if kind == "error":
            return
        end = frame["n"] if "n" in frame else frame.get("public", {}).get("moves_played", 0)
        if kind == "welcome":
            assert end >= self.n, f"{self.table}: a welcome at move {end} after {self.n} told"
            self.welcomes += 1
            self.n = end
        elif kind == "update":
            moves = frame.get("moves", [])
            assert end - len(moves) == self.n, (
                f"{self.table}: an update of moves {end - len(moves)}…{end} after {self.n} told"
            )
            now = time.monotonic()
            if moves:
                self.updates.append(now)
            for number, move in enumerate(moves, start=self.n):
                self.told[number] = move["move"]
                if move.get("stand_in") == "timeout":
                    self.stand_ins.append((now, number))
            self.n = end
        if frame.get("result"):
            self.result = frame["result"]
            return
        if frame.get("legal") and self.token is not None:
            self.prompts.append((time.monotonic(), frame["n"], frame.get("time_left")))
            if not self.answers:
                return
            if self.think:
                await asyncio.sleep(self.random.random() * self.think)
            move = self.random.choice(frame["legal"])
            await ws.send_json({"type": "move", "n": frame["n"], "move": move})


async def make_table(
    http: aiohttp.ClientSession, base: str, seats: list[Any], **config: Any
) -> tuple[str, list[str]]:
    """A table made through ``base``, every person's seat claimed: its id and the tokens."""
    for _ in range(100):
        made = await http.post(f"{base}/api/tables", json={"seats": seats, **config})
        if made.status != 503:
            break
        await asyncio.sleep(0.1)
    assert made.status == 201, await made.text()
    table = (await made.json())["id"]
    tokens = []
    for seat, spec in enumerate(seats):
        if spec is None:
            claimed = await http.post(
                f"{base}/api/tables/{table}/claim", json={"seat": seat, "name": f"P{seat}"}
            )
            assert claimed.status == 201, await claimed.text()
            tokens.append((await claimed.json())["token"])
    return table, tokens


def stored_moves(dsn: str, ids: Sequence[str]) -> dict[str, list[str]]:
    """Each table's moves as the database keeps them."""
    from skitgubbe.server.postgres import PostgresStore

    store = PostgresStore(dsn)
    try:
        return {table.id: table.moves for table in store.tables(list(ids))}
    finally:
        store.close()


def assert_told_once_and_stored(clients: Sequence[Client], stored: dict[str, list[str]]) -> int:
    """Every move a client was told of is stored, as that move number; how many were told."""
    told = 0
    for client in clients:
        moves = stored[client.table]
        for number, move in client.told.items():
            assert number < len(moves) and moves[number] == move, (client.table, number, move)
        told += len(client.told)
    return told
