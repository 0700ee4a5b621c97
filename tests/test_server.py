"""The multiplayer server: lobby, tokens, sockets, hidden information, faults, restarts.

Servers listen on 127.0.0.1 only; every loop is bounded in count and in time.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import os
import shutil
import signal
import sqlite3
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

aiohttp = pytest.importorskip("aiohttp")
from aiohttp.test_utils import TestClient, TestServer  # noqa: E402
from server_support import free_port, serve, start_server  # noqa: E402

import skitgubbe as sg  # noqa: E402
import skitgubbe.server  # noqa: E402
from skitgubbe.server import (  # noqa: E402
    MAX_BAD_FRAMES,
    SQLiteStore,
    StoredTable,
    create_app,
    hash_token,
)
from skitgubbe.server import app as server_app  # noqa: E402

BOTS2 = ["greedy", "greedy"]
# Games played out here end within this many moves: playing the first legal move, as these
# tests do, can go round in circles until the rules' limit (10,000 moves by default).
SHORT = {"max_moves": 600}


async def new_table(client: TestClient, **config: Any) -> dict[str, Any]:
    config.setdefault("seats", [None, *BOTS2])
    config.setdefault("rules", SHORT)
    response = await client.post("/api/tables", json=config)
    assert response.status == 201, await response.text()
    return dict(await response.json())


async def claim(client: TestClient, table: str, seat: int = 0, name: str = "Ann") -> str:
    response = await client.post(f"/api/tables/{table}/claim", json={"seat": seat, "name": name})
    assert response.status == 201, await response.text()
    client.session.cookie_jar.clear()  # each person sits down from a browser of their own
    return str((await response.json())["token"])


async def join(client: TestClient, table: str, token: str | None) -> Any:
    ws = await client.ws_connect("/ws")
    first = {"type": "join", "table": table, "token": token} if token else None
    await ws.send_json(first or {"type": "watch", "table": table})
    return ws


async def frames_until(ws: Any, done: Callable[[dict[str, Any]], bool], limit: int = 5000) -> list:
    """Frames until ``done`` says stop (or the socket closes); at most ``limit``."""
    frames: list[dict[str, Any]] = []
    for _ in range(limit):
        message = await asyncio.wait_for(ws.receive(), 30)
        if message.type != aiohttp.WSMsgType.TEXT:
            break
        frames.append(json.loads(message.data))
        if done(frames[-1]):
            break
    return frames


async def play_out(ws: Any, limit: int = 2000) -> list[dict[str, Any]]:
    """Answer every prompt with the first legal move until the result arrives."""
    frames: list[dict[str, Any]] = []
    for _ in range(limit):
        message = await asyncio.wait_for(ws.receive(), 30)
        assert message.type == aiohttp.WSMsgType.TEXT, message
        frame = json.loads(message.data)
        frames.append(frame)
        assert frame["type"] != "error", frame
        if frame.get("result"):
            return frames
        if frame.get("legal"):
            assert frame["type"] in ("update", "welcome"), frame
            await ws.send_json({"type": "move", "n": frame["n"], "move": frame["legal"][0]})
    raise AssertionError("the game did not end")


# -- the lobby --------------------------------------------------------------------------


def test_a_table_is_created_listed_and_claimed_and_its_token_is_stored_only_hashed(
    tmp_path: Path,
) -> None:
    db = tmp_path / "server.db"

    async def test(client: TestClient) -> None:
        table = await new_table(client, seats=[None, None, "greedy"], move_time=5)
        assert [s["kind"] for s in table["seats"]] == ["open", "open", "bot"]
        token = await claim(client, table["id"], 1, "Bo")
        listed = await (await client.get("/api/tables")).json()
        assert [t["id"] for t in listed] == [table["id"]]
        assert listed[0]["seats"][1] == {"kind": "person", "name": "Bo", "connected": False}
        assert token not in json.dumps(listed)
        again = await client.post(f"/api/tables/{table['id']}/claim", json={"seat": 1, "name": "X"})
        assert again.status == 409
        rows = sqlite3.connect(db).execute("SELECT token_hash FROM seats").fetchall()
        assert rows == [(hash_token(token),)]
        dump = "\n".join(sqlite3.connect(db).iterdump())
        assert token not in dump
        left = await client.post(f"/api/tables/{table['id']}/leave", json={"token": token})
        assert left.status == 200
        assert (await left.json())["seats"][1]["kind"] == "open"

    serve(test, str(db))


@pytest.mark.parametrize(
    ("config", "words"),
    [
        ({"seats": [None]}, "seats must be a list of 2"),
        ({"seats": [None, "nobot"]}, "'nobot' is not a built-in bot"),
        ({"seats": [None, "cmd:./evil"]}, "'cmd' is not a built-in bot"),
        ({"seats": [None, "greedy"], "rules": "nonsense"}, "unknown rules preset"),
        ({"seats": [None, "greedy"], "rules": {"preset": 3}}, "rules.preset must be"),
        ({"seats": [None, "greedy"], "rules": {"bogus": 1}}, "unknown Rules field 'bogus'"),
        ({"seats": [None, "greedy"], "rules": {"max_moves": "many"}}, "Rules.max_moves"),
        ({"seats": [None, "greedy"], "move_time": -1}, "move_time must be a number"),
        ({"seats": [None, "greedy"], "move_time": "fast"}, "move_time must be a number"),
        ({"seats": [None, "greedy"], "stand_in": "ismcts"}, "stand_in must be one of"),
        ([1, 2], "configuration is a JSON object"),
    ],
)
def test_a_bad_table_configuration_is_refused_by_name(config: Any, words: str) -> None:
    async def test(client: TestClient) -> None:
        response = await client.post("/api/tables", json=config)
        assert response.status == 400
        assert words in (await response.json())["error"]
        assert await (await client.get("/api/tables")).json() == []

    serve(test)


def test_requests_and_frames_have_size_limits() -> None:
    async def test(client: TestClient) -> None:
        huge = {"seats": [None, "greedy"], "padding": "x" * (server_app.MAX_REQUEST + 10)}
        response = await client.post("/api/tables", json=huge)
        assert response.status == 413
        table = await new_table(client, move_time=30)
        token = await claim(client, table["id"])
        ws = await join(client, table["id"], token)
        await frames_until(ws, lambda f: f["type"] == "welcome")
        await ws.send_str("x" * (server_app.MAX_FRAME + 10))
        closing = await asyncio.wait_for(ws.receive(), 10)
        assert closing.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED)
        assert ws.closed or closing.data == 1009  # message too big

    serve(test)


# -- tokens and hidden information --------------------------------------------------------


def test_a_bad_token_or_another_tables_token_is_refused() -> None:
    async def test(client: TestClient) -> None:
        first = await new_table(client, seats=[None, "greedy"])
        second = await new_table(client, seats=[None, "greedy"])
        token = await claim(client, first["id"])
        for table, bad in [(first["id"], "not-a-token"), (second["id"], token), (first["id"], 7)]:
            ws = await join(client, table, bad)  # type: ignore[arg-type]
            frames = await frames_until(ws, lambda f: True)
            assert frames[0]["type"] == "error" and "token" in frames[0]["error"]
            closing = await asyncio.wait_for(ws.receive(), 10)
            assert closing.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED)
        ws = await client.ws_connect("/ws")
        await ws.send_json({"type": "move", "n": 0, "move": "7H"})  # no join first
        frames = await frames_until(ws, lambda f: True)
        assert frames[0]["type"] == "error"

    serve(test)


def _secret_cards(game: sg.Game, seat: int) -> set[str]:
    """Cards seat ``seat`` may not see now: others' unknown holdings, the stock, the hidden card."""
    view = game.observation(seat)
    secret: set[sg.Card] = set(game.stock)
    if game.hidden_card is not None:
        secret.add(game.hidden_card)
    for other in range(game.players):
        if other != seat:
            secret |= (set(game.hands[other]) | set(game.collections[other])) - set(
                view.known[other]
            )
    return {sg.protocol.card_text(card) for card in secret}


def _cards_in(frame: Any) -> set[str]:
    text = json.dumps(frame)
    return {
        card
        for card in (sg.protocol.card_text(c) for c in sg.CardSet.full())
        if f'"{card}"' in text
    }


def test_across_a_whole_game_no_frame_to_a_seat_holds_a_card_it_may_not_see() -> None:
    async def test(client: TestClient) -> None:
        table = await new_table(client, move_time=30)
        token = await claim(client, table["id"])
        ws = await join(client, table["id"], token)
        frames = await play_out(ws)
        record = await (await client.get(f"/api/tables/{table['id']}/record")).json()
        game = sg.Game.new(sg.Rules.from_dict(record["rules"]), seed=record["seed"])
        secret_at = [_secret_cards(game, 0)]
        for move in record["moves"]:
            game.play(move)
            secret_at.append(_secret_cards(game, 0))
        assert len(frames) > 20 and game.result is not None
        checked = 0
        for frame in frames:
            leaked = _cards_in(frame) & secret_at[frame["n"]]
            assert not leaked, (frame["n"], frame["type"], leaked)
            checked += 1
        assert checked == len(frames)
        # The page the browser loads is static: no card at all in it.
        page = await (await client.get(f"/table?id={table['id']}")).text()
        assert not _cards_in(page)

    serve(test)


def test_a_spectator_sees_no_hand_and_no_dealt_or_drawn_card() -> None:
    async def test(client: TestClient) -> None:
        table = await new_table(client, seats=["greedy", "greedy", "random"], bot_delay=0.01)
        ws = await join(client, table["id"], None)
        frames = await frames_until(ws, lambda f: bool(f.get("result")))
        assert frames[0]["type"] == "welcome" and frames[0]["seat"] is None
        assert frames[-1]["result"] is not None and len(frames) > 10
        for frame in frames:
            assert "view" not in frame and "legal" not in frame
            assert "hand" not in frame.get("public", {})
            for event in frame.get("events", []) + frame.get("history", []):
                if event["kind"] in ("deal", "draw"):
                    assert event["cards"] == [], event

    serve(test)


# -- play, clocks and reconnection --------------------------------------------------------


def test_a_stale_or_illegal_move_is_refused_and_changes_nothing() -> None:
    async def test(client: TestClient) -> None:
        table = await new_table(client, move_time=30)
        token = await claim(client, table["id"])
        ws = await join(client, table["id"], token)
        frames = await frames_until(ws, lambda f: bool(f.get("legal")))
        prompt = frames[-1]
        n = prompt["n"]
        for bad in [
            {"type": "move", "n": n + 1, "move": prompt["legal"][0]},
            {"type": "move", "n": n, "move": "not a move"},
            {"type": "move", "n": n, "move": "AS AH"},
            {"type": "shout"},
        ]:
            await ws.send_json(bad)
            reply = (await frames_until(ws, lambda f: True))[0]
            assert reply["type"] == "error", reply
        summary = await (await client.get(f"/api/tables/{table['id']}")).json()
        assert summary["moves"] == n  # nothing was played
        await ws.send_json({"type": "move", "n": n, "move": prompt["legal"][0]})
        moved = await frames_until(ws, lambda f: f["type"] == "update" and bool(f["moves"]))
        assert moved[-1]["moves"][0] == {
            "seat": 0,
            "move": str(sg.Move.parse(prompt["legal"][0])),
            "stand_in": None,
        }

    serve(test)


def test_a_person_who_runs_out_of_time_gets_a_stand_in() -> None:
    async def test(client: TestClient) -> None:
        table = await new_table(client, move_time=0.1)
        token = await claim(client, table["id"])
        ws = await join(client, table["id"], token)
        frames = await frames_until(
            ws, lambda f: any(m["stand_in"] == "timeout" for m in f.get("moves", []))
        )
        stood_in = [m for m in frames[-1]["moves"] if m["stand_in"] == "timeout"]
        assert [m["seat"] for m in stood_in] == [0]

    serve(test)


def test_a_socket_dropped_mid_turn_gets_its_prompt_again_on_reconnect() -> None:
    async def test(client: TestClient) -> None:
        table = await new_table(client, move_time=60)
        token = await claim(client, table["id"])
        ws = await join(client, table["id"], token)
        prompt = (await frames_until(ws, lambda f: bool(f.get("legal"))))[-1]
        await ws.close()
        again = await join(client, table["id"], token)
        welcome = (await frames_until(again, lambda f: True))[0]
        assert welcome["type"] == "welcome" and welcome["seat"] == 0
        assert welcome["n"] == prompt["n"] and welcome["legal"] == prompt["legal"]
        assert welcome["view"]["hand"] == prompt["view"]["hand"]
        assert 0 < welcome["time_left"] <= 60
        await again.send_json({"type": "move", "n": welcome["n"], "move": welcome["legal"][0]})
        frames = await play_out(again)
        assert frames[-1]["result"] is not None

    serve(test)


def test_two_people_play_each_other_to_the_end() -> None:
    async def test(client: TestClient) -> None:
        table = await new_table(client, seats=[None, None], move_time=30)
        tokens = [await claim(client, table["id"], seat, f"P{seat}") for seat in (0, 1)]
        sockets = [await join(client, table["id"], token) for token in tokens]
        results = await asyncio.gather(*(play_out(ws) for ws in sockets))
        assert results[0][-1]["result"] == results[1][-1]["result"]

    serve(test)


def test_a_flood_of_bad_frames_closes_that_socket_and_disturbs_no_other_table() -> None:
    async def test(client: TestClient) -> None:
        quiet = await new_table(client, move_time=30)
        noisy = await new_table(client, move_time=30)
        quiet_ws = await join(client, quiet["id"], await claim(client, quiet["id"]))
        noisy_ws = await join(client, noisy["id"], await claim(client, noisy["id"]))
        await frames_until(noisy_ws, lambda f: f["type"] == "welcome")
        for _ in range(MAX_BAD_FRAMES + 5):
            if noisy_ws.closed:
                break
            await noisy_ws.send_str("{not json")
        frames = await frames_until(noisy_ws, lambda f: False, limit=MAX_BAD_FRAMES + 10)
        assert noisy_ws.closed
        assert sum(f["type"] == "error" for f in frames) >= MAX_BAD_FRAMES - 5
        played = await play_out(quiet_ws)
        assert played[-1]["result"] is not None

    serve(test)


# -- restarts ---------------------------------------------------------------------------


def test_a_server_killed_mid_game_resumes_the_same_position_and_finishes(tmp_path: Path) -> None:
    db, port = tmp_path / "server.db", free_port()
    url = f"http://127.0.0.1:{port}"

    async def first_half() -> tuple[str, str, dict[str, Any]]:
        async with aiohttp.ClientSession(url) as http:
            created = await http.post(
                "/api/tables", json={"seats": [None, *BOTS2], "move_time": 60, "rules": SHORT}
            )
            table = (await created.json())["id"]
            claimed = await http.post(f"/api/tables/{table}/claim", json={"seat": 0, "name": "A"})
            token = (await claimed.json())["token"]
            ws = await http.ws_connect("/ws")
            await ws.send_json({"type": "join", "table": table, "token": token})
            answered, prompt = 0, {}
            for _ in range(2000):
                frame = json.loads((await asyncio.wait_for(ws.receive(), 30)).data)
                if frame.get("legal"):
                    if answered == 5:
                        prompt = frame  # killed here, with seat 0 to move
                        break
                    await ws.send_json({"type": "move", "n": frame["n"], "move": frame["legal"][0]})
                    answered += 1
            assert prompt
            return table, token, prompt

    async def second_half(table: str, token: str) -> tuple[dict[str, Any], list[Any]]:
        async with aiohttp.ClientSession(url) as http:
            ws = await http.ws_connect("/ws")
            await ws.send_json({"type": "join", "table": table, "token": token})
            welcome = json.loads((await asyncio.wait_for(ws.receive(), 30)).data)
            if welcome.get("legal"):
                await ws.send_json({"type": "move", "n": welcome["n"], "move": welcome["legal"][0]})
            return welcome, await play_out(ws)

    server = start_server(db, port)
    try:
        table, token, prompt = asyncio.run(first_half())
    finally:
        server.send_signal(signal.SIGKILL)
        server.wait(10)
    server = start_server(db, port)
    try:
        welcome, frames = asyncio.run(second_half(table, token))
    finally:
        server.terminate()
        server.wait(10)
    assert welcome["n"] == prompt["n"]
    assert welcome["view"]["hand"] == prompt["view"]["hand"]
    assert welcome["legal"] == prompt["legal"]
    assert frames[-1]["result"] is not None
    stored = SQLiteStore(str(db)).load(("over",))
    assert [t.id for t in stored] == [table]
    assert sg.Game.from_record(stored[0].record or {}).result is not None


def test_a_restarted_app_rebuilds_every_table_from_its_store(store_db: str) -> None:
    db = store_db  # an SQLite file, or a PostgreSQL database
    seen: dict[str, Any] = {}

    async def before(client: TestClient) -> None:
        for _ in range(3):
            table = await new_table(client, move_time=60)
            ws = await join(client, table["id"], await claim(client, table["id"]))
            prompt = (await frames_until(ws, lambda f: bool(f.get("legal"))))[-1]
            seen[table["id"]] = prompt

    async def after(client: TestClient) -> None:
        listed = await (await client.get("/api/tables")).json()
        assert sorted(t["id"] for t in listed) == sorted(seen)
        assert all(t["status"] == "running" for t in listed)

    serve(before, db)
    serve(after, db)
    assert len(seen) == 3


# -- how moves are told -----------------------------------------------------------------


def test_every_move_is_told_once_and_a_prompt_carries_the_moves_before_it() -> None:
    async def test(client: TestClient) -> None:
        table = await new_table(client, move_time=30)
        ws = await join(client, table["id"], await claim(client, table["id"]))
        frames = await play_out(ws)
        record = await (await client.get(f"/api/tables/{table['id']}/record")).json()
        updates = [f for f in frames if f["type"] == "update"]
        told = [m["move"] for f in updates for m in f["moves"]]
        game = sg.Game.from_record(record)
        assert told == [str(m) for m in game.moves]  # each once, in order
        prompts = [f for f in updates if f["legal"]]
        assert len(updates) < len(told) and len(prompts) > 10  # bots' moves ride with prompts
        for frame in updates:
            # Seat 0's own move opens the frame that follows it: the bots' answers come
            # with it, and the prompt too when seat 0 is to move again.
            assert all(m["seat"] != 0 for m in frame["moves"][1:]), frame["moves"]

    serve(test)


def test_bots_that_pause_are_told_move_by_move() -> None:
    async def test(client: TestClient) -> None:
        table = await new_table(client, move_time=30, bot_delay=0.005)
        ws = await join(client, table["id"], await claim(client, table["id"]))
        frames = await play_out(ws)
        updates = [f for f in frames if f["type"] == "update"]
        assert len(updates) > 20
        assert all(len(f["moves"]) <= 1 for f in updates)

    serve(test)


def test_no_move_is_told_before_it_is_stored(store_db: str) -> None:
    from skitgubbe.server.app import open_store

    store = open_store(store_db)
    if store_db.startswith("postgresql://"):
        import psycopg

        reader: Any = psycopg.connect(store_db, autocommit=True)  # sees what is committed
        mark = "%s"
    else:
        reader, mark = sqlite3.connect(store_db), "?"  # sees what is committed, nothing else
    seen: list[tuple[int, int]] = []

    class Person:
        def __init__(self, table: Any) -> None:
            self.table = table

        async def send(self, message: Any) -> None:
            sql = f"SELECT moves FROM moves WHERE table_id = {mark}"  # runs, a move a line
            runs = reader.execute(sql, (self.table.id,)).fetchall()
            seen.append((message["n"], sum(len(run.split("\n")) for (run,) in runs)))
            if message.get("legal"):
                answer = (0, message["n"], message["legal"][0])
                asyncio.get_running_loop().call_soon(self.table.submit, *answer)

        async def close(self, reason: str) -> None:
            pass

    async def main() -> None:
        lobby = skitgubbe.server.Lobby(store)
        tables = [lobby.create({"seats": [None, *BOTS2], "rules": SHORT}) for _ in range(3)]
        for table in tables:
            table.claim(0, "Ann")
            await table.attach(0, Person(table))
            table.start()
        await asyncio.wait_for(asyncio.gather(*(t.done.wait() for t in tables)), 60)

    asyncio.run(main())
    reader.close()
    store.close()
    assert len(seen) > 60
    assert all(stored >= n for n, stored in seen), [x for x in seen if x[1] < x[0]][:3]


def test_the_serving_process_makes_no_full_collection_and_freezes_the_restored_tables() -> None:
    thresholds = gc.get_threshold()
    app = create_app(":memory:")
    server_app.tune_gc(app, full_every=3600)

    async def main() -> tuple[int, int]:
        async with TestClient(TestServer(app)):
            return gc.get_threshold()[2], gc.get_freeze_count()

    full, frozen = asyncio.run(main())
    assert full >= 1 << 30 and frozen > 1000
    assert gc.get_threshold() == thresholds and gc.get_freeze_count() == 0


def test_commits_do_not_checkpoint_the_log_the_store_thread_does(tmp_path: Path) -> None:
    def main_file_moves(store: SQLiteStore) -> int:
        copy = tmp_path / "copy.db"  # the database file alone, without its log
        shutil.copyfile(store.path, copy)
        with contextlib.closing(sqlite3.connect(copy)) as db:
            try:
                return int(db.execute("SELECT COUNT(*) FROM moves").fetchone()[0])  # runs
            except sqlite3.OperationalError:  # not even the schema is in the file yet
                return 0

    for every, expected in [(3600.0, 0), (0.02, 1)]:
        path = str(tmp_path / f"store-{every}.db")
        store = SQLiteStore(path, checkpoint_every=every)
        store.create(StoredTable("t", {"seats": [None, None]}, seed=1, seats=[None, None]))
        store.append_move("t", 0, "7♣", None)
        store.flush()
        time.sleep(0.3)
        assert main_file_moves(store) == expected, every
        store.close()


# -- bots that fail, engines the server names -------------------------------------------------


class _Raises:
    """A bot that fails at every move."""

    def __init__(self, seed: int | None = None) -> None:
        pass

    def choose(self, view: sg.Observation) -> sg.Move:
        raise RuntimeError("this bot is broken")


def test_a_bot_that_fails_gets_a_stand_in_and_the_table_plays_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from skitgubbe.bots import registry

    monkeypatch.setattr(registry, "_FACTORIES", dict(registry._FACTORIES))
    sg.bots.register("raises", _Raises)

    async def test(client: TestClient) -> None:
        table = await new_table(client, seats=[None, "bot:raises", "greedy"], move_time=30)
        frames = await play_out(await join(client, table["id"], await claim(client, table["id"])))
        moves = [m for f in frames if f["type"] == "update" for m in f["moves"]]
        assert frames[-1]["result"] is not None
        assert {m["stand_in"] for m in moves if m["seat"] == 1} == {"error"}
        assert {m["stand_in"] for m in moves if m["seat"] != 1} == {None}

    serve(test, named_bots={"raises": "raises"})  # the operator's bot, seated by name


class _Cheats:
    """A bot that answers the referee wrongly at every move: a move it may not play now
    (``bad="illegal"``), or something that is not a move at all (``bad="text"``)."""

    def __init__(self, bad: str) -> None:
        self.bad = bad

    def choose(self, view: sg.Observation) -> object:
        if self.bad == "text":
            return str(view.legal_moves[0])  # the right text, but not a Move
        plays = (sg.Move.play(sg.Card.from_index(index)) for index in range(52))
        return next(move for move in plays if move not in view.legal_moves)


@pytest.mark.parametrize("bad", ["illegal", "text"])
def test_a_bot_whose_answer_the_referee_refuses_gets_a_stand_in(
    monkeypatch: pytest.MonkeyPatch, bad: str
) -> None:
    from skitgubbe.bots import registry
    from skitgubbe.server import Lobby

    monkeypatch.setattr(registry, "_FACTORIES", dict(registry._FACTORIES))
    sg.bots.register("cheats", lambda seed=None: _Cheats(bad))

    async def play() -> tuple[dict[str, Any], SQLiteStore]:
        store = SQLiteStore(":memory:")
        lobby = Lobby(store, named_bots={"cheats": "cheats"})
        table = lobby.create({"seats": ["greedy", "bot:cheats"], "rules": SHORT})
        await asyncio.wait_for(table.done.wait(), 60)
        return table.record(), store

    record, store = asyncio.run(play())
    stored = store.load(("over",))[0]
    played = sg.Game.from_record(record)  # every move played was legal
    replay = sg.Game.new(played.rules, seed=played.seed)
    seats = []
    for move in played.moves:
        seats.append(replay.to_move)
        replay.play(move)
    assert {n for n, seat in enumerate(seats) if seat == 1} == set(stored.stand_ins)
    assert set(stored.stand_ins.values()) == {"error"}


def _engine_processes() -> list[int]:
    """This process's children that run a skitgubbe engine."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            command = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        if parent == os.getpid() and b"engine" in command:
            found.append(int(entry.name))
    return found


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads the processes from /proc")
def test_an_engine_the_server_names_sits_at_a_table_and_ends_with_its_game() -> None:
    engines = {"low": f"cmd:{sys.executable} -m skitgubbe engine greedy"}

    async def main() -> None:
        async with TestClient(TestServer(create_app(":memory:", engines=engines))) as client:
            assert await (await client.get("/api/engines")).json() == ["low"]
            for spec, words in [("engine:other", "no engine named 'other'; engines: low")]:
                refused = await client.post("/api/tables", json={"seats": [None, spec]})
                assert refused.status == 400 and words in (await refused.json())["error"]
            table = await new_table(client, seats=[None, "engine:low", "greedy"], move_time=30)
            ws = await join(client, table["id"], await claim(client, table["id"]))
            frames = await play_out(ws)
            moves = [m for f in frames if f["type"] == "update" for m in f["moves"]]
            assert any(m["seat"] == 1 for m in moves)
            assert all(m["stand_in"] is None for m in moves)  # the engine answered every time
            for _ in range(100):  # its process ends with the game
                if not _engine_processes():
                    break
                await asyncio.sleep(0.05)
            assert not _engine_processes()

    asyncio.run(asyncio.wait_for(main(), 120))


def test_the_store_keeps_moves_in_runs_and_gives_them_back_in_order(tmp_path: Path) -> None:
    path = str(tmp_path / "store.db")
    store = SQLiteStore(path)
    store.create(StoredTable("t", {"seats": [None, None]}, seed=1, seats=[None, None]))
    store.create(StoredTable("u", {"seats": [None, None]}, seed=2, seats=[None, None]))
    played = ["7♣", "5♣ 5♠", "pick up", "flip", "10♥"]
    for index, move in enumerate(played):
        store.append_move("t", index, move, "timeout" if index == 2 else None)
        if index in (1, 3):
            store.append_move("u", index // 2, move, None)
            store.flush()  # runs of 2, 2 and 1 moves for t
    store.close()
    again = SQLiteStore(path)
    loaded = {t.id: t for t in again.load()}
    assert loaded["t"].moves == played and loaded["t"].stand_ins == {2: "timeout"}
    assert loaded["u"].moves == ["5♣ 5♠", "flip"] and loaded["u"].stand_ins == {}
    with pytest.raises(ValueError, match="repeat one"):
        again.append_move("t", 4, "flip", None)
    with pytest.raises(ValueError, match="one line"):
        again.append_move("t", 5, "flip\nflip", None)
    again.close()
    fresh = SQLiteStore(path)  # counts read back from the file
    with pytest.raises(ValueError, match="leave a gap"):
        fresh.append_move("u", 3, "flip", None)
    fresh.close()
