"""What one client may make the server do, and a server bounded by what is live (issue 40).

Each test here failed on b607dc1: one client filled the lobby for good, finished tables
stayed in memory and were lost to a restart (rematch link 404, session back to 0, the
record's names gone), a rematch seat went to a stranger, the lobby listed a rematch before
the old table's end was public, one browser sat twice, a name of stacked accents and a seat
``true`` were taken. The server ones run a real ``skitgubbe serve`` on 127.0.0.1; every loop
is bounded in count and time.
"""

from __future__ import annotations

import asyncio
import collections
import json
from pathlib import Path
from typing import Any

import pytest

aiohttp = pytest.importorskip("aiohttp")
from server_support import ROOMY, free_port, serve, start_server, stop_server  # noqa: E402

from skitgubbe.server import Lobby, SQLiteStore  # noqa: E402
from skitgubbe.server.app import LOBBY  # noqa: E402
from skitgubbe.server.limits import Limits  # noqa: E402

PEOPLE = {"seats": [None, "greedy"], "rules": {"max_moves": 200}}


def _run(port: int, main: Any) -> Any:
    async def wrapped() -> Any:
        async with aiohttp.ClientSession(f"http://127.0.0.1:{port}") as http:
            return await main(http)

    return asyncio.run(asyncio.wait_for(wrapped(), 90))


async def _until(check: Any, seconds: float = 30) -> Any:
    for _ in range(int(seconds / 0.1)):
        found = await check()
        if found:
            return found
        await asyncio.sleep(0.1)
    raise AssertionError("timed out")


def test_one_client_makes_at_most_four_open_tables_and_ten_a_minute(tmp_path: Path) -> None:
    """The default bounds: a fifth open table of one client is a 429 with a Retry-After
    (another client still makes one), and so is an eleventh table made in a minute."""
    port = free_port()
    server = start_server(tmp_path / "s.db", port, limits=())

    async def main(http: Any) -> list[tuple[int, str | None]]:
        answers = []
        for _ in range(5):
            response = await http.post("/api/tables", json=PEOPLE)
            answers.append((response.status, response.headers.get("Retry-After")))
        other = aiohttp.TCPConnector(local_addr=("127.0.0.2", 0))
        async with aiohttp.ClientSession(f"http://127.0.0.1:{port}", connector=other) as two:
            answers.append(((await two.post("/api/tables", json=PEOPLE)).status, None))
        bots = {"seats": ["greedy", "greedy"], "rules": {"max_moves": 50}}
        for _ in range(7):  # tables of bots only are not open; the rate still counts them
            response = await http.post("/api/tables", json=bots)
            answers.append((response.status, response.headers.get("Retry-After")))
        return answers

    try:
        answers = _run(port, main)
    finally:
        stop_server(server)
    statuses = [status for status, _ in answers]
    assert statuses[:6] == [201, 201, 201, 201, 429, 201], answers
    assert answers[4][1] is not None and int(answers[4][1]) > 0
    assert statuses[6:] == [201] * 6 + [429], answers  # 4 + 6 = 10 made; the 11th waits


def test_finished_tables_leave_memory_and_are_served_from_the_store_after_a_restart(
    tmp_path: Path,
) -> None:
    """The live cap counts live tables only; a finished table goes from memory once its end
    is public and nobody is connected, and everything about it is served from the store,
    after a restart too: its summary, its record with the seats' names, its session, and a
    rematch (whose link is the summary's ``rematch``). An open table nobody joins expires
    (410 with the reason)."""
    db = tmp_path / "s.db"
    limits = (*ROOMY, "live_tables=2", "finished_linger=0.2", "open_table_ttl=1")
    port = free_port()
    server = start_server(db, port, limits=limits)

    async def play(http: Any) -> dict[str, Any]:
        # Nobody answers: a stand-in plays for Ann, until the move limit at the latest.
        config = {**PEOPLE, "move_time": 0.05, "rules": {"max_moves": 60}}
        table = await (await http.post("/api/tables", json=config)).json()
        claimed = await http.post(
            f"/api/tables/{table['id']}/claim", json={"seat": 0, "name": "Ann"}
        )
        token = (await claimed.json())["token"]

        async def over() -> bool:
            summary = await (await http.get(f"/api/tables/{table['id']}")).json()
            return bool(summary["status"] == "over")

        await _until(over)
        bots = {"seats": ["greedy", "greedy"], "rules": {"max_moves": 30}}
        made = []
        for _ in range(3):  # one at a time: each is over before the next (live_tables=2)
            response = await http.post("/api/tables", json=bots)
            made.append(response.status)
            made_id = (await response.json())["id"]

            async def done(made_id: str = made_id) -> bool:
                summary = await (await http.get(f"/api/tables/{made_id}")).json()
                return bool(summary["status"] == "over")

            await _until(done)
        waiting = await (await http.post("/api/tables", json=PEOPLE)).json()
        await asyncio.sleep(3.5)  # past the open table's ttl and a sweep
        expired = await http.get(f"/api/tables/{waiting['id']}")
        return {
            "id": table["id"],
            "token": token,
            "made": made,
            "expired": (expired.status, (await expired.json())["error"]),
        }

    try:
        first = _run(port, play)
    finally:
        stop_server(server)
    assert first["made"] == [201, 201, 201]  # the finished ones do not count
    assert first["expired"][0] == 410 and "nobody came" in first["expired"][1]

    port = free_port()
    server = start_server(db, port, limits=limits)

    async def later(http: Any) -> dict[str, Any]:
        table = first["id"]
        summary = await (await http.get(f"/api/tables/{table}")).json()
        record = await (await http.get(f"/api/tables/{table}/record")).json()
        session = await (await http.get(f"/api/tables/{table}/session")).json()
        again = await http.post(f"/api/tables/{table}/rematch", json={"token": first["token"]})
        rematch = await again.json()
        old = await (await http.get(f"/api/tables/{table}")).json()
        listed = await (await http.get("/api/tables?status=over")).json()
        return {
            "summary": summary,
            "record": record,
            "session": session,
            "rematch": (again.status, rematch),
            "old": old,
            "listed": [t["id"] for t in listed],
        }

    try:
        seen = _run(port, later)
    finally:
        stop_server(server)
    assert seen["summary"]["status"] == "over" and seen["summary"]["result"] is not None
    assert seen["record"]["names"] == ["Ann", "greedy"]
    assert seen["session"]["games"] == 1
    assert seen["rematch"][0] == 201, seen["rematch"]
    assert seen["old"]["rematch"] == seen["rematch"][1]["table"]
    assert first["id"] in seen["listed"]


async def _two_people_finished(url: str, config: dict[str, Any]) -> tuple[str, list[str]]:
    """A table of two people (each from a browser of their own) that nobody plays: stand-ins
    move at every turn until the end, which is waited for (its record is refused until the
    spectator delay has passed, but the table's summary says it is over or running)."""
    tokens = []
    async with aiohttp.ClientSession(url) as http:
        table = (await (await http.post("/api/tables", json=config)).json())["id"]
    for seat, name in enumerate(("Ann", "Bo")):
        async with aiohttp.ClientSession(url, cookie_jar=aiohttp.CookieJar(unsafe=True)) as http:
            body = {"seat": seat, "name": name}
            claimed = await http.post(f"/api/tables/{table}/claim", json=body)
            tokens.append((await claimed.json())["token"])
    async with aiohttp.ClientSession(url) as http:
        for _ in range(600):  # the stand-ins' game: at most 60 s
            async with http.get(f"/api/tables/{table}/record") as record:
                text = await record.text()
                if record.status == 200 or "shown" in text:
                    return table, tokens
            await asyncio.sleep(0.1)
    raise AssertionError("the game did not end")


def test_a_rematch_seat_waits_for_its_person_and_is_listed_once_the_end_is_public(
    tmp_path: Path,
) -> None:
    """The person who asks for a rematch makes it; the other person's seat is kept for them
    (a stranger gets 409, saying for whom) until they come; the lobby lists neither the
    rematch nor the old table's end before the spectator delay has passed (b607dc1 listed
    the rematch, with its ``after``, at once, and seated the stranger)."""
    port = free_port()
    server = start_server(tmp_path / "s.db", port)
    url = f"http://127.0.0.1:{port}"
    config = {"seats": [None, None], "move_time": 0.05, "spectator_delay": 1.5}
    config["rules"] = {"max_moves": 30}  # the move limit ends it: over, with no loser

    async def main() -> dict[str, Any]:
        table, tokens = await _two_people_finished(url, config)
        seen: dict[str, Any] = {}
        async with aiohttp.ClientSession(url) as ann:
            asked = await ann.post(f"/api/tables/{table}/rematch", json={"token": tokens[0]})
            again = (await asked.json())["table"]
            seen["listed"] = [t["id"] for t in await (await ann.get("/api/tables")).json()]
            seen["old"] = await (await ann.get(f"/api/tables/{table}")).json()
        async with aiohttp.ClientSession(url) as stranger:
            body = {"seat": 1, "name": "X"}
            taken = await stranger.post(f"/api/tables/{again}/claim", json=body)
            seen["stranger"] = (taken.status, (await taken.json())["error"])
        async with aiohttp.ClientSession(url) as bo:
            came = await bo.post(f"/api/tables/{table}/rematch", json={"token": tokens[1]})
            seen["bo"] = (came.status, (await came.json()).get("seat"))
            await asyncio.sleep(2.0)  # past the spectator delay
            seen["later"] = [t["id"] for t in await (await bo.get("/api/tables")).json()]
        seen["again"] = again
        return seen

    try:
        seen = asyncio.run(asyncio.wait_for(main(), 90))
    finally:
        stop_server(server)
    assert seen["again"] not in seen["listed"]  # not before the old end is public
    assert seen["old"]["status"] == "running" and seen["old"]["rematch"] is None
    assert seen["stranger"][0] == 409 and "kept for Bo" in seen["stranger"][1]
    assert seen["bo"] == (201, 1)
    assert seen["again"] in seen["later"]


def test_a_declined_rematch_seat_opens_to_anyone(tmp_path: Path) -> None:
    port = free_port()
    server = start_server(tmp_path / "s.db", port)
    url = f"http://127.0.0.1:{port}"
    config = {"seats": [None, None], "move_time": 0.05, "rules": {"max_moves": 30}}

    async def main() -> tuple[int, str, int]:
        table, tokens = await _two_people_finished(url, config)
        async with aiohttp.ClientSession(url) as http:
            asked = await http.post(f"/api/tables/{table}/rematch", json={"token": tokens[0]})
            again = (await asked.json())["table"]
            declined = await http.post(f"/api/tables/{table}/decline", json={"token": tokens[1]})
            rematch = (await declined.json())["rematch"]
            body = {"seat": 1, "name": "X"}
            stranger = await http.post(f"/api/tables/{again}/claim", json=body)
            return declined.status, rematch == again, stranger.status

    try:
        status, same, stranger = asyncio.run(asyncio.wait_for(main(), 90))
    finally:
        stop_server(server)
    assert (status, same, stranger) == (200, True, 201)


def test_one_browser_holds_one_seat_of_a_table_and_names_and_seats_are_checked(
    tmp_path: Path,
) -> None:
    """A browser (its cookie) that holds a seat cannot claim a second one at that table (on
    b607dc1 the creator sat twice, orphaning the first seat); a name of stacked accents and
    a seat ``true`` are a 400 (they were taken, and a 409)."""
    port = free_port()
    server = start_server(tmp_path / "s.db", port)
    url = f"http://127.0.0.1:{port}"

    async def main() -> dict[str, int]:
        jar = aiohttp.CookieJar(unsafe=True)  # a browser keeps the cookie of 127.0.0.1
        seen = {}
        async with aiohttp.ClientSession(url, cookie_jar=jar) as browser:
            table = await (await browser.post("/api/tables", json={"seats": [None, None]})).json()
            claim = f"/api/tables/{table['id']}/claim"
            seen["first"] = (await browser.post(claim, json={"seat": 0, "name": "Ann"})).status
            seen["second"] = (await browser.post(claim, json={"seat": 1, "name": "A2"})).status
        async with aiohttp.ClientSession(url, cookie_jar=aiohttp.CookieJar(unsafe=True)) as other:
            for key, body in (
                ("accents", {"seat": 1, "name": "\u0301" * 40}),
                ("stacked", {"seat": 1, "name": "A" + "\u0301" * 5}),
                ("true", {"seat": True, "name": "Bo"}),
                ("zoe", {"seat": 1, "name": "Zoë"}),
            ):
                seen[key] = (await other.post(claim, json=body)).status
        return seen

    try:
        seen = asyncio.run(asyncio.wait_for(main(), 60))
    finally:
        stop_server(server)
    assert seen == {
        "first": 201,
        "second": 409,
        "accents": 400,
        "stacked": 400,
        "true": 400,
        "zoe": 201,
    }


def test_the_lobby_list_is_paged_and_answers_304_when_unchanged() -> None:
    async def test(client: Any) -> None:
        for _ in range(3):
            await client.post("/api/tables", json=PEOPLE)
        listed = await client.get("/api/tables")
        etag = listed.headers["ETag"]
        again = await client.get("/api/tables", headers={"If-None-Match": etag})
        assert again.status == 304
        page = await (await client.get("/api/tables?status=live&limit=2")).json()
        rest = await (
            await client.get(f"/api/tables?status=live&limit=2&before={page[-1]['id']}")
        ).json()
        assert len(page) == 2 and len(rest) == 1
        assert {t["id"] for t in page + rest} == {t["id"] for t in await listed.json()}
        assert (await client.get("/api/tables?limit=100000")).status == 400
        await client.post("/api/tables", json=PEOPLE)
        await asyncio.sleep(1.1)  # a listing is made again at most once a second
        changed = await client.get("/api/tables", headers={"If-None-Match": etag})
        assert changed.status == 200 and changed.headers["ETag"] != etag

    serve(test)


class _Recorder:
    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    async def send(self, message: Any) -> None:
        self.sent.append(dict(message))

    async def close(self, reason: str) -> None:
        pass


def test_spectators_who_leave_free_what_was_held_back_for_them() -> None:
    """With a spectator delay, frames wait in one queue a table, never a task a frame and a
    spectator: once every spectator has left, nothing is held back for them any more."""

    async def main() -> tuple[int, int, int]:
        lobby = Lobby(SQLiteStore(":memory:"))
        config = {"seats": ["greedy", "greedy"], "spectator_delay": 3600, "bot_delay": 0.001}
        table = lobby.create(config)
        watchers = [_Recorder() for _ in range(20)]
        for watcher in watchers:
            await table.watch(watcher)
        await asyncio.wait_for(table.done.wait(), 60)
        held = table._spectators.held()
        tasks = len(asyncio.all_tasks())
        for watcher in watchers:
            table.unwatch(watcher)
        after = table._spectators.held()
        await lobby.close()
        return held, tasks, after

    held, tasks, after = asyncio.run(main())
    assert held > 10  # the game's frames and lobby views, held back
    assert tasks < 10  # not a task a frame and a spectator
    assert held - after > 10  # the frames held back for them went; the lobby's views stay


def test_a_hint_whose_turn_ended_never_runs() -> None:
    """A hint waiting for a thread is dropped when the seat's turn ends (a new prompt):
    one hint a seat at most, however often a client asks and moves."""

    async def main() -> tuple[int, int]:
        limits = Limits(hints_per_client=50, hints=50)
        lobby = Lobby(SQLiteStore(":memory:"), limits=limits, hint_engine="ismcts:iterations=3000")
        blocker = collections.deque[Any]()
        config = {"seats": [None, "greedy"], "hints": True, "move_time": None}
        table = lobby.create(config)
        token = table.claim(0, "Ann")
        seat = table.seat_of(token)
        table.start()
        asked = 0
        for _ in range(40):  # ask, then move at once: each hint's turn ends before it runs
            for _ in range(200):
                await asyncio.sleep(0.005)
                if table.clock() is not None or table.status == "over":
                    break
            if table.status == "over":
                break
            view = table.game.observation(seat)
            table.ask_hint(seat, view.moves_played, "192.0.2.1")
            asked += 1
            table.submit(seat, view.moves_played, str(view.legal_moves[0]))
        for _ in range(100):  # the last turn ends (its hint's cancellation takes a few steps)
            await asyncio.sleep(0.001)
            if not lobby.advisor._hints.queued():
                break
        waiting = lobby.advisor._hints.queued()
        blocker.clear()
        await lobby.close()
        return asked, waiting

    asked, waiting = asyncio.run(main())
    assert asked > 5 and waiting == 0


def test_the_store_upgrades_a_file_of_the_last_release(tmp_path: Path) -> None:
    """A file written before schema versions (no rematch or public_at column) opens, is
    upgraded once, and keeps its tables."""
    import sqlite3

    from skitgubbe.server.store import _SCHEMA, SCHEMA_VERSION

    path = tmp_path / "old.db"
    db = sqlite3.connect(path)
    db.executescript(_SCHEMA)
    config = json.dumps({"seats": [None, "greedy"]})
    db.execute("INSERT INTO tables VALUES ('t', ?, '5', 'over', 1.0, '{\"moves\": []}')", (config,))
    db.commit()
    db.close()
    store = SQLiteStore(str(path))
    try:
        assert [t.id for t in store.finished(5)] == ["t"]
        store.set_rematch("t", "u")
        assert store.table("t").rematch == "u"  # type: ignore[union-attr]
    finally:
        store.close()
    version = sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0]
    assert version == SCHEMA_VERSION == 3


def test_a_finished_table_that_left_memory_shows_its_end_to_a_socket_then_closes() -> None:
    """A socket that watches (or a seat that joins) a finished table the lobby let go gets
    the table's end, rebuilt from the store and kept nowhere, then the socket is closed with
    "the game is over"; claiming a seat there is a 409."""

    async def test(client: Any) -> None:
        table = await (
            await client.post("/api/tables", json={"seats": ["greedy", "greedy"]})
        ).json()
        lobby = client.server.app[LOBBY]
        await asyncio.wait_for(lobby.tables[table["id"]].done.wait(), 60)
        import time

        assert lobby.sweep(now=time.monotonic() + 3600) == [table["id"]]
        assert table["id"] not in lobby.tables
        ws = await client.ws_connect("/ws")
        await ws.send_json({"type": "watch", "table": table["id"]})
        welcome = json.loads((await ws.receive(timeout=10)).data)
        assert welcome["type"] == "welcome" and welcome["result"] is not None
        closed = await ws.receive(timeout=10)
        assert closed.type == aiohttp.WSMsgType.CLOSE and closed.extra == "the game is over"
        assert table["id"] not in lobby.tables  # kept nowhere
        claim = await client.post(f"/api/tables/{table['id']}/claim", json={"seat": 0, "name": "A"})
        assert claim.status == 409

    serve(test)
