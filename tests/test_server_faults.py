"""The server when things fail: a store that cannot write (a full disk, a refused value, a
closed connection) at any moment, and clients that go away at any moment.

Whatever fails, every move a client was told of is stored, no table stays stuck, and the
server starts again from its store. Servers listen on 127.0.0.1 only; every loop is bounded
in count and in time.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import random
import resource
import signal
import socket
import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

aiohttp = pytest.importorskip("aiohttp")
from server_support import free_port, roomy, start_server, stop_server  # noqa: E402

import skitgubbe as sg  # noqa: E402
from skitgubbe.server import Lobby, SQLiteStore, Table, TableError  # noqa: E402
from skitgubbe.server.store import StoreError  # noqa: E402

SHORT = {"max_moves": 600}
Told = dict[str, dict[int, str]]  # each table's moves by number, as clients were told of them


def _stored_moves(db: Path) -> dict[str, list[str]]:
    """Every table's stored moves, read from the file as a restart would."""
    store = SQLiteStore(str(db))
    try:
        return {t.id: t.moves for t in store.load(("open", "running", "over"))}
    finally:
        store.close()


def _note(told: dict[int, str], frame: dict[str, Any]) -> None:
    """Note the moves of an ``update`` frame by their numbers (it ends at move ``n``)."""
    moves = [m["move"] for m in frame.get("moves", [])]
    end = frame["n"] if "n" in frame else frame.get("public", {}).get("moves_played", 0)
    for number, move in enumerate(moves, start=end - len(moves)):
        assert told.setdefault(number, move) == move  # told once, or told the same
    assert told.keys() == set(range(min(told, default=0), max(told, default=-1) + 1))


def _assert_told_is_stored(told: Told, stored: dict[str, list[str]]) -> None:
    assert sum(map(len, told.values())) > 100
    for table, moves in told.items():
        for number, move in moves.items():
            assert number < len(stored[table]) and stored[table][number] == move, (table, number)


async def _watch(http: Any, table: str, told: Told, stop: Callable[[], bool]) -> None:
    """A spectator that notes every move it is told of, until the result or ``stop()``."""
    ws = await http.ws_connect("/ws")
    await ws.send_json({"type": "watch", "table": table})
    moves = told.setdefault(table, {})
    for _ in range(5000):
        if stop():
            break
        try:
            message = await asyncio.wait_for(ws.receive(), 0.5)
        except asyncio.TimeoutError:
            continue
        if message.type != aiohttp.WSMsgType.TEXT:
            break
        frame = json.loads(message.data)
        _note(moves, frame)
        if frame.get("result"):
            break
    await ws.close()


# -- a request the store would refuse -------------------------------------------------------


def test_a_name_the_store_cannot_keep_loses_no_other_tables_moves(tmp_path: Path) -> None:
    """While bots play at many tables, claims whose name SQLite refuses (a lone surrogate)
    are answered 400; every move told to the spectators is stored, and the server starts
    again (a 500 dropped the moves of the same group commit: 'stored moves jump')."""
    db, port = tmp_path / "server.db", free_port()
    told: Told = {}
    statuses: list[int] = []
    done = False

    async def main() -> None:
        nonlocal done
        async with aiohttp.ClientSession(f"http://127.0.0.1:{port}") as http:
            tables = []
            for _ in range(12):
                config = {"seats": ["greedy", "random", "greedy"], "bot_delay": 0.002}
                created = await http.post("/api/tables", json={**config, "rules": SHORT})
                tables.append((await created.json())["id"])
            open_table = await http.post("/api/tables", json={"seats": [None, "greedy"]})
            claim = f"/api/tables/{(await open_table.json())['id']}/claim"
            watchers = [asyncio.ensure_future(_watch(http, t, told, lambda: done)) for t in tables]
            for _ in range(150):
                answer = await http.post(claim, data='{"seat": 0, "name": "x\\ud800"}')
                statuses.append(answer.status)
                await asyncio.sleep(0.002)
            done = True
            await asyncio.gather(*watchers)

    server = start_server(db, port)
    try:
        asyncio.run(asyncio.wait_for(main(), 90))
    finally:
        server.send_signal(signal.SIGKILL)
        server.wait(10)
    _assert_told_is_stored(told, _stored_moves(db))
    again = start_server(db, port)  # loads every table, as it did before
    assert stop_server(again).count("Traceback") == 0
    assert set(statuses) == {400}


# -- a full disk --------------------------------------------------------------------------


@pytest.mark.skipif(not hasattr(resource, "prlimit"), reason="needs prlimit (Linux)")
def test_a_full_disk_holds_the_tables_until_it_writes_again(tmp_path: Path) -> None:
    """With no room to write (the server's file size limit set to 0, as a full disk), a move is
    not told, a new table is refused with 503 'store_unavailable'; once writes work again
    the table goes on by itself, without a restart, and finishes."""
    db, port = tmp_path / "server.db", free_port()
    server = start_server(db, port)

    def disk(full: bool) -> None:
        limit = 0 if full else resource.RLIM_INFINITY
        resource.prlimit(server.pid, resource.RLIMIT_FSIZE, (limit, resource.RLIM_INFINITY))

    async def receive(ws: Any, seconds: float) -> dict[str, Any] | None:
        try:
            message = await asyncio.wait_for(ws.receive(), seconds)
        except asyncio.TimeoutError:
            return None
        assert message.type == aiohttp.WSMsgType.TEXT, message
        return dict(json.loads(message.data))

    async def main() -> tuple[str, dict[str, Any]]:
        async with aiohttp.ClientSession(f"http://127.0.0.1:{port}") as http:
            config = {"seats": [None, "greedy", "greedy"], "move_time": 60, "rules": SHORT}
            table = (await (await http.post("/api/tables", json=config)).json())["id"]
            claimed = await http.post(f"/api/tables/{table}/claim", json={"seat": 0, "name": "A"})
            ws = await http.ws_connect("/ws")
            await ws.send_json(
                {"type": "join", "table": table, "token": (await claimed.json())["token"]}
            )
            frame: dict[str, Any] | None = None
            for _ in range(100):
                frame = await receive(ws, 30)
                if frame and frame.get("legal"):
                    break
            assert frame and frame.get("legal")
            waiting = await http.post("/api/tables", json={**config, "seats": [None, None]})
            claim = f"/api/tables/{(await waiting.json())['id']}/claim"
            disk(full=True)
            await ws.send_json({"type": "move", "n": frame["n"], "move": frame["legal"][0]})
            assert await receive(ws, 1.0) is None  # not stored: not told
            for refused in [
                await http.post("/api/tables", json=config),
                await http.post(claim, json={"seat": 1, "name": "B"}),
            ]:
                body = await refused.json()
                assert refused.status == 503 and body["code"] == "store_unavailable", body
            summary = await (await http.get(f"/api/tables/{table}")).json()
            assert summary["status"] == "running" and summary["moves"] == frame["n"]
            disk(full=False)
            update = await receive(ws, 30)  # the store writes again: the table goes on
            assert update and update["type"] == "update", update
            assert update["moves"][0] == {
                "seat": 0,
                "move": str(sg.Move.parse(frame["legal"][0])),
                "stand_in": None,
            }
            for _ in range(3000):  # and plays to the end
                if update.get("result"):
                    break
                if update.get("legal"):
                    await ws.send_json(
                        {"type": "move", "n": update["n"], "move": update["legal"][0]}
                    )
                update = await receive(ws, 30)
                assert update and update["type"] != "error", update
            assert update.get("result")
            created = await http.post("/api/tables", json=config)
            assert created.status == 201
            claimed = await http.post(claim, json={"seat": 1, "name": "B"})  # was not taken
            assert claimed.status == 201
            for _ in range(100):
                summary = await (await http.get(f"/api/tables/{table}")).json()
                if summary["status"] == "over":
                    break
                await asyncio.sleep(0.05)
            return table, summary

    try:
        table, summary = asyncio.run(asyncio.wait_for(main(), 120))
    finally:
        disk(full=False)
        log = stop_server(server)
    assert summary["status"] == "over", summary
    # (What it logged while no file could grow is lost: its log is a file here.)
    assert "the store writes again; the tables go on" in log
    stored = SQLiteStore(str(db))
    try:
        (over,) = stored.load(("over",))
        assert over.id == table and sg.Game.from_record(over.record or {}).result is not None
    finally:
        stored.close()


# -- faults injected at random moments -------------------------------------------------------


class _Faults:
    """Seeded faults for every statement a store's connection runs."""

    def __init__(self, seed: int, rate: float) -> None:
        self.random = random.Random(seed)
        self.rate = rate
        self.on = True
        self.injected = 0


def _faulty_store(path: str, faults: _Faults, monkeypatch: pytest.MonkeyPatch) -> SQLiteStore:
    """An SQLiteStore whose connections (those of the serving thread, not the checkpoints'),
    at random statements (BEGIN, the moves, a claim, COMMIT), report a full disk, refuse a
    value, or are closed under it."""

    class Connection(sqlite3.Connection):
        def _maybe_fail(self, sql: str) -> None:
            if not faults.on or sql.startswith("PRAGMA"):
                return
            if faults.random.random() >= faults.rate:
                return
            faults.injected += 1
            kind = faults.random.randrange(3)
            if kind == 0:
                raise sqlite3.OperationalError("database or disk is full")
            if kind == 1:
                raise sqlite3.InterfaceError("Error binding parameter 1: type not supported")
            self.close()  # this statement, and the next, meet a closed database

        def execute(self, sql: str, *args: Any) -> sqlite3.Cursor:
            self._maybe_fail(sql)
            return super().execute(sql, *args)

        def executemany(self, sql: str, *args: Any) -> sqlite3.Cursor:
            self._maybe_fail(sql)
            return super().executemany(sql, *args)

    connect = sqlite3.connect

    def faulty_connect(database: Any, *args: Any, **kwargs: Any) -> sqlite3.Connection:
        if database == path and threading.current_thread() is threading.main_thread():
            kwargs["factory"] = Connection
        return connect(database, *args, **kwargs)

    monkeypatch.setattr(sqlite3, "connect", faulty_connect)
    faults.on = False
    store = SQLiteStore(path, checkpoint_every=0.05)
    faults.on = True
    return store


class _Person:
    """A seat's connection that notes the moves it is told of and answers every prompt with
    its first legal move."""

    def __init__(self, table: Table, told: Told) -> None:
        self.table = table
        self.moves = told.setdefault(table.id, {})

    async def send(self, message: Any) -> None:
        _note(self.moves, message)
        if message.get("legal"):
            answer = (0, message["n"], message["legal"][0])
            asyncio.get_running_loop().call_soon(self._answer, *answer)

    def _answer(self, seat: int, n: int, move: str) -> None:
        with contextlib.suppress(TableError):  # an answer too late is refused: fine
            self.table.submit(seat, n, move)

    async def close(self, reason: str) -> None:
        pass


async def _retry(call: Callable[[], Any]) -> Any:
    """What a client does with a 503: try again a little later."""
    for _ in range(1000):
        try:
            return call()
        except StoreError:
            await asyncio.sleep(0.01)
    raise AssertionError("the store never wrote")


def _play_with_faults(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    seed: int,
    tables: int,
    rate: float,
    stop_after: int | None = None,
) -> None:
    """``tables`` tables play while the store fails at a ``rate`` of its statements; with
    ``stop_after``, the server stops once that many moves are played (in the middle of the
    games) instead of at their end."""
    path = str(tmp_path / "server.db")
    faults = _Faults(seed, rate)
    store = _faulty_store(path, faults, monkeypatch)
    told: Told = {}

    async def main() -> list[Table]:
        lobby = Lobby(store, limits=roomy())
        playing: list[Table] = []
        for index in range(tables):  # people's tables, and some of bots only
            seats = [None, "greedy", "random"] if index % 3 else ["greedy", "random"]
            config = {"seats": seats, "rules": SHORT}
            table = await _retry(functools.partial(lobby.create, config))
            if index % 3:
                await _retry(functools.partial(table.claim, 0, f"P{index}"))
                await table.attach(0, _Person(table, told))
                await _retry(table.start)
            else:
                await table.watch(_Person(table, told))
            playing.append(table)
            await asyncio.sleep(0)
        if stop_after is None:
            await asyncio.wait_for(asyncio.gather(*(t.done.wait() for t in playing)), 120)
            assert all(t.status == "over" for t in playing)
        else:
            for _ in range(12000):
                if sum(t.game.moves_played for t in playing) >= stop_after:
                    break
                await asyncio.sleep(0.01)
        faults.on = False  # (the store's last flush, on closing, may store more: never less)
        await lobby.close()
        return playing

    try:
        playing = asyncio.run(main())
    finally:
        faults.on = False
        store.close()
    assert faults.injected >= 5  # the faults did happen, at many moments
    stored = _stored_moves(tmp_path / "server.db")
    _assert_told_is_stored(told, stored)
    running = [t for t in playing if not t.done.is_set()]  # its end not stored yet
    assert (stop_after is None) == (not running)

    async def restart() -> int:  # the server starts again on the file: every game resumes
        lobby = Lobby(SQLiteStore(path))
        try:
            restored = lobby.restore()
            for table in running:
                again = lobby.tables[table.id]
                assert again.status == "running" and again.moves_stored == len(stored[table.id])
            return restored
        finally:
            await lobby.close()
            lobby.store.close()

    assert asyncio.run(restart()) == len(running)
    if running:
        return
    finished = _finished(path)
    assert len(finished) == tables
    for table in finished:
        game = sg.Game.from_record(table.record or {})
        assert [str(m) for m in game.moves] == table.moves and game.result is not None


def _finished(path: str) -> list[Any]:
    store = SQLiteStore(path)
    try:
        return store.load(("over",))
    finally:
        store.close()


@pytest.mark.parametrize(
    ("seed", "stop_after"),
    [  # the two whole games (about 3 s each) in the slow tier; the fast one keeps a short game
        pytest.param(1, None, marks=pytest.mark.slow),
        pytest.param(2, None, marks=pytest.mark.slow),
        (3, 400),
    ],
)
def test_store_faults_at_random_moments_lose_no_told_move_and_stop_no_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int, stop_after: int | None
) -> None:
    _play_with_faults(tmp_path, monkeypatch, seed, tables=12, rate=0.1, stop_after=stop_after)


@pytest.mark.slow
@pytest.mark.parametrize(("seed", "stop_after"), [(4, None), (5, None), (6, 3000), (7, 5000)])
def test_store_faults_at_many_more_tables(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int, stop_after: int | None
) -> None:
    _play_with_faults(tmp_path, monkeypatch, seed, tables=120, rate=0.1, stop_after=stop_after)


# -- clients that go away -------------------------------------------------------------------


@pytest.mark.slow
def test_clients_that_disconnect_at_any_moment_log_no_traceback(tmp_path: Path) -> None:
    db, port = tmp_path / "server.db", free_port()

    async def main() -> None:
        async with aiohttp.ClientSession(f"http://127.0.0.1:{port}") as http:
            config = {"seats": [None, "greedy"], "move_time": 0.2, "rules": SHORT}
            table = (await (await http.post("/api/tables", json=config)).json())["id"]
            claimed = await http.post(f"/api/tables/{table}/claim", json={"seat": 0, "name": "A"})
            token = (await claimed.json())["token"]
            for first in (
                [{"type": "join", "table": table, "token": token}] * 3
                + [{"type": "watch", "table": table}] * 3
                + [None]
            ):
                ws = await http.ws_connect("/ws")
                if first is not None:
                    await ws.send_json(first)
                await asyncio.sleep(0.2)
                ws._response.connection.transport.abort()  # gone, without a close frame
            ws = await http.ws_connect("/ws")
            await ws.close()  # a close frame before any join
        for _ in range(5):  # gone before the handshake's answer
            raw = socket.create_connection(("127.0.0.1", port))
            raw.sendall(
                b"GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
            )
            raw.close()
        await asyncio.sleep(0.5)
        async with aiohttp.ClientSession(f"http://127.0.0.1:{port}") as http:
            assert (await http.get(f"/api/tables/{table}")).status == 200  # still serving

    server = start_server(db, port)
    try:
        asyncio.run(asyncio.wait_for(main(), 60))
    finally:
        log = stop_server(server)
    assert "Traceback" not in log and "Error handling request" not in log, log
