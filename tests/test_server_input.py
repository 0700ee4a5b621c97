"""What the server takes from a request: every count and length is checked before anything is
built from it, every string before it reaches the store, and the lobby gives nothing away
before the spectators see it.

Servers listen on 127.0.0.1 only; every loop is bounded in count and in time.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from pathlib import Path
from typing import Any

import pytest

aiohttp = pytest.importorskip("aiohttp")
from aiohttp.test_utils import TestClient  # noqa: E402
from server_support import free_port, peak_memory_kib, serve, start_server, stop_server  # noqa: E402

import skitgubbe as sg  # noqa: E402
from skitgubbe.server import (  # noqa: E402
    Lobby,
    SQLiteStore,
    StoredTable,
    TableConfig,
    TableError,
    create_app,
)
from skitgubbe.server.app import LOBBY  # noqa: E402
from skitgubbe.server.store import StoreError  # noqa: E402
from skitgubbe.server.tables import MAX_BOT_ITERATIONS, MAX_MOVES  # noqa: E402

SHORT = {"max_moves": 600}


# -- sizes from a request ---------------------------------------------------------------


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads VmHWM from /proc")
def test_a_huge_player_count_is_refused_before_anything_is_built(tmp_path: Path) -> None:
    """A real server's peak memory does not grow on {"players": 30000000}; 10**9 does not
    hang it (it grew by some 458 MB, and hung, when the list of seats was built first)."""
    port = free_port()
    server = start_server(tmp_path / "server.db", port)
    answers: list[tuple[int, str]] = []

    async def ask(*counts: int) -> None:
        async with aiohttp.ClientSession(f"http://127.0.0.1:{port}") as http:
            for players in counts:
                response = await http.post("/api/tables", json={"players": players})
                answers.append((response.status, await response.text()))
            assert await (await http.get("/api/tables")).json() == []

    try:
        before = peak_memory_kib(server.pid)
        asyncio.run(asyncio.wait_for(ask(30_000_000), 60))
        grown = peak_memory_kib(server.pid) - before
        assert grown < 20 * 1024, f"the server's peak memory grew by {grown} KiB"
        asyncio.run(asyncio.wait_for(ask(10**9, 10**18, -5, 1, 5), 60))  # 10**9 hung it
    finally:
        stop_server(server)
    for status, text in answers:
        body = json.loads(text)
        assert status == 400 and body["code"] == "bad_request", body
        assert "players must be an int 2 … 4" in body["error"], body


@pytest.mark.parametrize(
    ("config", "words"),
    [
        ({"players": 30_000_000}, "players must be an int 2 … 4"),
        ({"players": "3"}, "players must be an int 2 … 4"),
        ({"players": 3, "seats": [None, "greedy"]}, "players is 3, but seats lists 2"),
        ({"seats": [None] * 5}, "seats must be a list of 2 … 4 entries"),
        ({"seats": [None] * 2000}, "seats must be a list of 2 … 4 entries"),
        ({"seats": [None, "g" * 300]}, "at most 200 characters"),
        ({"seats": [None, "greedy"], "rules": {"max_moves": 10**9}}, "rules.max_moves must be"),
        ({"seats": [None, "greedy"], "rules": {"max_moves": 10**30}}, "Rules.max_moves"),
        ({"seats": [None, "greedy"], "rules": {"players": 3}}, "rules.players is 3, but"),
        ({"seats": [None, "greedy"], "rules": {"players": "2"}}, "rules.players is '2', but"),
        ({"seats": [None, "greedy"], "spectator_delay": 10**9}, "spectator_delay must be"),
        ({"seats": [None, "greedy"], "move_time": 1e309}, "move_time must be a number"),
        ({"seats": [None, "greedy"], "bot_delay": 10**400}, "bot_delay must be a number"),
        ({"seats": [None, "ismcts:iterations=100000000"]}, "costs about"),
        ({"seats": [None, "ismcts:time=1000"]}, "costs about"),
        ({"seats": [None, "pimc:worlds=1000,rollouts=1000"]}, "costs about"),
        ({"seats": [None, "greedy"], "stand_in": "x" * 10_000}, "stand_in must be one of"),
    ],
)
def test_every_size_in_a_table_request_is_bounded_by_name(config: Any, words: str) -> None:
    async def test(client: TestClient) -> None:
        response = await client.post("/api/tables", json=config)
        body = await response.json()
        assert response.status == 400, body
        assert words in body["error"] and body["code"] == "bad_request", body
        assert len(body["error"]) < 400  # a long value is not echoed back whole
        assert await (await client.get("/api/tables")).json() == []

    serve(test)


def test_rules_players_that_match_the_seats_are_honoured() -> None:
    async def test(client: TestClient) -> None:
        config = {"seats": [None, "greedy", "greedy"], "rules": {"players": 3, **SHORT}}
        response = await client.post("/api/tables", json=config)
        assert response.status == 201, await response.text()
        assert (await response.json())["rules"]["players"] == 3
        response = await client.post("/api/tables", json={"players": 2})
        assert response.status == 201, await response.text()
        table = await response.json()
        assert table["players"] == 2 and [s["kind"] for s in table["seats"]] == ["open", "bot"]

    serve(test)


def test_json_too_long_or_too_deep_to_read_is_a_bad_request_not_a_crash() -> None:
    async def test(client: TestClient) -> None:
        deep = "the request body must be JSON nested at most 32 deep"
        for body, error in [
            ('{"seats": [null, "greedy"], "move_time": ' + "9" * 5000 + "}", "must be JSON"),
            ("[" * 5000 + "]" * 5000, deep),  # deeper than some Pythons' recursion limit
            ("[" * 33 + "]" * 33, deep),
            ('{"seats": [null, "greedy"], "x": ' + "[" * 31 + "]" * 31 + "}", None),
            ('{"seats": [null, "greedy"], "name": "' + "[" * 40 + '"}', None),  # in a string
        ]:
            response = await client.post("/api/tables", data=body)
            if error is None:  # within the bound: read (an unknown field is left aside)
                assert response.status == 201, await response.text()
                continue
            assert response.status == 400
            message = (await response.json())["error"]
            assert message == (deep if error == deep else "the request body must be JSON")
        table = await (await client.post("/api/tables", json={"seats": [None, "greedy"]})).json()
        ws = await client.ws_connect("/ws")
        await ws.send_str("[" * 2000 + "]" * 2000)  # within a frame's 4 KiB
        frame = json.loads((await asyncio.wait_for(ws.receive(), 10)).data)
        assert frame == {
            "type": "error",
            "error": "the first frame must be JSON nested at most 32 deep",
            "code": "bad_request",
        }
        watcher = await client.ws_connect("/ws")
        await watcher.send_json({"type": "watch", "table": table["id"]})
        welcome = json.loads((await asyncio.wait_for(watcher.receive(), 10)).data)
        assert welcome["type"] == "welcome"
        await watcher.send_str("[" * 2000 + "]" * 2000)
        frame = json.loads((await asyncio.wait_for(watcher.receive(), 10)).data)
        assert (
            frame["type"] == "error"
            and frame["error"] == "a frame must be JSON nested at most 32 deep"
        ), frame

    serve(test)


def test_the_operator_bounds_the_bots_search_per_move() -> None:
    async def test(client: TestClient) -> None:
        for spec, status in [
            ("ismcts:iterations=200", 400),
            ("ismcts:iterations=100", 201),
            ("pimc:worlds=20,rollouts=5", 201),
            ("pimc:worlds=20,rollouts=6", 400),
            ("ismcts:iterations=100000,time=0.2", 201),  # it stops at whichever comes first
            ("ismcts:time=11", 400),
            ("greedy", 201),
        ]:
            response = await client.post("/api/tables", json={"seats": [None, spec]})
            body = await response.json()
            assert response.status == status, (spec, body)
            if status == 400:  # the operator's bound, or the bound on a decision's work
                assert "at most 100 iterations" in body["error"] or "costs about" in body["error"]

    serve(test, max_bot_iterations=100)
    assert MAX_BOT_ITERATIONS == 20_000
    with pytest.raises(ValueError, match="max_bot_iterations must be an int >= 1"):
        create_app(":memory:", max_bot_iterations=0)


def test_a_stored_table_resumes_even_when_the_server_is_now_stricter(tmp_path: Path) -> None:
    path = str(tmp_path / "server.db")
    store = SQLiteStore(path)
    config = {"seats": [None, "ismcts:iterations=500"], "rules": {"max_moves": MAX_MOVES + 1}}
    store.create(StoredTable("old", config, seed=3, seats=[None, None]))
    store.close()

    async def main() -> int:
        lobby = Lobby(SQLiteStore(path), max_bot_iterations=10)
        restored = lobby.restore()
        with pytest.raises(TableError, match="searches too much"):
            lobby.create({"seats": [None, "ismcts:iterations=500"]})
        await lobby.close()
        lobby.store.close()
        return restored

    assert asyncio.run(main()) == 1


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="a real server")
def test_serve_takes_max_bot_iterations_from_its_command_line(tmp_path: Path) -> None:
    port = free_port()
    server = start_server(tmp_path / "server.db", port, "--max-bot-iterations", "50")

    async def main() -> list[int]:
        async with aiohttp.ClientSession(f"http://127.0.0.1:{port}") as http:
            statuses = []
            for spec in ("ismcts:iterations=51", "ismcts:iterations=50"):
                response = await http.post("/api/tables", json={"seats": [None, spec]})
                statuses.append(response.status)
            return statuses

    try:
        assert asyncio.run(asyncio.wait_for(main(), 60)) == [400, 201]
    finally:
        stop_server(server)


# -- strings the store could not keep ------------------------------------------------------


def test_a_name_or_token_that_is_not_text_is_refused_before_the_store() -> None:
    async def test(client: TestClient) -> None:
        table = await (await client.post("/api/tables", json={"seats": [None, "greedy"]})).json()
        url = f"/api/tables/{table['id']}/claim"
        for raw in [
            '{"seat": 0, "name": "x\\ud800"}',  # a lone surrogate: no UTF-8 for it
            '{"seat": 0, "name": "Ann", "note": "\\udfff"}',  # anywhere in the body
            '{"seat": 0, "name": "bell\\u0007"}',  # not printable
        ]:
            response = await client.post(url, data=raw)
            body = await response.json()
            assert response.status == 400 and body["code"] == "bad_request", body
        ws = await client.ws_connect("/ws")
        first = '{"type": "join", "table": "TABLE", "token": "x\\ud800"}'
        await ws.send_str(first.replace("TABLE", table["id"]))
        frame = json.loads((await asyncio.wait_for(ws.receive(), 10)).data)
        assert frame["type"] == "error" and "surrogate" in frame["error"], frame
        response = await client.post(url, json={"seat": 0, "name": "Åsa"})
        assert response.status == 201

    serve(test)


def test_a_write_the_store_refuses_keeps_the_moves_appended_before_it(tmp_path: Path) -> None:
    """Moves of other tables that wait for the group commit are not dropped by a write that
    fails (they were, and the store then had a gap: 'stored moves jump from 15 to 16')."""
    path = str(tmp_path / "store.db")
    store = SQLiteStore(path)
    for table in ("t", "u"):
        store.create(StoredTable(table, {"seats": [None, None]}, seed=1, seats=[None, None]))
    store.append_move("t", 0, "7♣", None)
    store.append_move("u", 0, "8♣", "timeout")
    with pytest.raises(StoreError, match="surrogates not allowed"):
        store.claim("t", 0, "ab" * 32, "x\ud800")  # what the lobby now refuses before
    store.append_move("t", 1, "flip", None)  # counted on from the moves kept
    store.flush()
    store.close()
    loaded = {t.id: t for t in SQLiteStore(path).load()}
    assert loaded["t"].moves == ["7♣", "flip"] and loaded["t"].seats == [None, None]
    assert loaded["u"].moves == ["8♣"] and loaded["u"].stand_ins == {0: "timeout"}


# -- what the lobby shows ------------------------------------------------------------------


def test_the_lobby_and_the_record_wait_for_the_spectator_delay() -> None:
    async def test(client: TestClient) -> None:
        config = {"seats": ["greedy", "greedy"], "spectator_delay": 600, "rules": SHORT}
        late = await (await client.post("/api/tables", json=config)).json()
        config = {**config, "spectator_delay": 0.2}
        soon = await (await client.post("/api/tables", json=config)).json()
        lobby = client.app[LOBBY]
        for table in (late, soon):
            await asyncio.wait_for(lobby.tables[table["id"]].done.wait(), 60)
        assert lobby.tables[late["id"]].game.result is not None
        shown = await (await client.get(f"/api/tables/{late['id']}")).json()
        assert (shown["status"], shown["moves"], shown["result"]) == ("running", 0, None)
        listed = {t["id"]: t for t in await (await client.get("/api/tables")).json()}
        assert listed[late["id"]] == shown
        record = await client.get(f"/api/tables/{late['id']}/record")
        assert record.status == 409 and "600 s late" in (await record.json())["error"]
        for _ in range(600):  # the short delay passes: the end is shown, and the record given
            shown = await (await client.get(f"/api/tables/{soon['id']}")).json()
            if shown["status"] == "over":
                break
            await asyncio.sleep(0.05)
        game = lobby.tables[soon["id"]].game
        assert shown["moves"] == game.moves_played and shown["result"] is not None
        assert (await client.get(f"/api/tables/{soon['id']}/record")).status == 200

    serve(test)


def test_a_restored_table_shows_its_moves_only_once_the_delay_has_passed(tmp_path: Path) -> None:
    path = str(tmp_path / "server.db")
    config = TableConfig.from_json(
        {"seats": [None, "greedy"], "spectator_delay": 600, "rules": SHORT}
    ).to_json()
    game = sg.Game.new(sg.Rules.from_dict(config["rules"]), seed=5)
    for _ in range(10):
        game.play(game.legal_moves[0])
    store = SQLiteStore(path)
    store.create(StoredTable("t", config, seed=5, seats=[None, None]))
    store.claim("t", 0, "ab" * 32, "Ann")
    store.start("t")
    for index, move in enumerate(game.moves):
        store.append_move("t", index, str(move), None)
    store.close()

    async def main() -> dict[str, Any]:
        lobby = Lobby(SQLiteStore(path))
        try:
            assert lobby.restore() == 1
            assert lobby.tables["t"].game.moves_played == 10
            return lobby.tables["t"].summary()
        finally:
            await lobby.close()
            lobby.store.close()

    summary = asyncio.run(main())
    assert (summary["status"], summary["moves"], summary["result"]) == ("running", 0, None)


@pytest.mark.parametrize("delay", [0.0, 0.05])
def test_a_viewer_who_joins_while_moves_are_stored_is_told_each_move_once(delay: float) -> None:
    """Seats and spectators that join at random moments (some while moves are played and
    not yet told) are told every move after their welcome once, in order: an update never
    repeats a move their welcome held, nor an event."""
    import random

    from skitgubbe.server import Lobby, SQLiteStore

    class Viewer:
        def __init__(self) -> None:
            self.n: int | None = None
            self.events = 0
            self.frames = 0

        async def send(self, message: Any) -> None:
            self.frames += 1
            end = message["n"] if "n" in message else message["public"]["moves_played"]
            if message["type"] == "welcome":
                self.n, self.events = end, len(message["history"])
            elif message["type"] == "update":
                assert self.n is not None and end - len(message["moves"]) == self.n, (
                    self.n,
                    end,
                    message["moves"],
                )
                self.n = end
                self.events += len(message["events"])

        async def close(self, reason: str) -> None:
            pass

    async def main() -> int:
        lobby = Lobby(SQLiteStore(":memory:"))
        rng = random.Random(5)
        seen = 0
        for _ in range(3):
            table = lobby.create(
                {"seats": [None, "greedy", "random"], "spectator_delay": delay, "move_time": 5}
            )
            table.claim(0, "Ann")
            table.start()
            watching: list[Viewer] = []
            while table.status != "over":
                viewer = Viewer()
                if rng.random() < 0.5:
                    await table.watch(viewer)
                    watching.append(viewer)
                    if len(watching) > 10:
                        table.unwatch(watching.pop(0))
                else:
                    await table.attach(0, viewer)
                    if table.clock() is not None:  # Ann answers: the bots play on
                        view = table.game.observation(0)
                        with contextlib.suppress(TableError):
                            table.submit(0, view.moves_played, str(view.legal_moves[0]))
                for _ in range(rng.randrange(4)):  # a moment of the bots' turns
                    await asyncio.sleep(0)
                seen += viewer.frames
            await asyncio.sleep(delay + 0.05)
        await lobby.close()
        return seen

    assert asyncio.run(asyncio.wait_for(main(), 120)) > 100
