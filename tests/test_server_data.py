"""What a client sends is data: a real ``skitgubbe serve`` never reads a file, imports a
module or compiles code that a request names, and its answers never say whether a path
exists; a stored table that can no longer be built is closed (its players told why) while
the rest resume; reviews are bounded, so that they never starve the hints.

Each server is a real process listening on 127.0.0.1 only; every loop is bounded in count
and in time. The servers run with ``PYTHONASYNCIODEBUG=1``, so that asyncio logs every
callback that holds the event loop more than 100 ms: none may.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

aiohttp = pytest.importorskip("aiohttp")
from server_support import (  # noqa: E402
    CANARY,
    ROOMY,
    SLOW_CALLBACK,
    fifo_unopened,
    free_port,
    make_bait,
    server_env,
    start_server,
    stop_server,
)

from skitgubbe.server import SQLiteStore, StoredTable, TableConfig  # noqa: E402


@pytest.fixture
def bait(tmp_path: Path) -> Iterator[Path]:
    folder = make_bait(tmp_path / "bait")
    yield folder
    assert not (folder / "imported").exists(), "the server imported a module a request named"


def dangerous_specs(bait: Path) -> list[tuple[str, str]]:
    """Seat specs that name code or files, with the option each refusal must name."""
    return [
        ("ismcts:rollout=os:getpid,iterations=10", "rollout"),
        (f"ismcts:rollout={CANARY}:choose,iterations=10", "rollout"),
        ("ismcts:rollout=antigravity:geohash", "rollout"),
        (f"ismcts:rollout={bait}/policy.c", "rollout"),
        (f"pimc:rollout={bait}/policy.c:choose", "rollout"),
        ("pimc:evaluation=json:dumps", "evaluation"),
        (f"pimc:evaluation={CANARY}:evaluate", "evaluation"),
        (f"ismcts:evaluation={bait}/policy.c", "evaluation"),
        ("net:weights=/dev/zero", "weights"),
        (f"net:weights={bait}/w.sgnet", "weights"),
        (f"ismcts:net={bait}/w.sgnet", "net"),
        (f"ismcts:net={bait}/x.sgnet", "net"),  # no such file (w.sgnet is one)
        (f"pimc:net={bait}/pipe.sgnet", "net"),
        (f"ismcts:net={bait}/dir.sgnet", "net"),
        ("cmd:./evil", "'cmd'"),
        (CANARY, CANARY),
    ]


async def _post_seat(http: Any, spec: str) -> tuple[int, dict[str, Any]]:
    response = await http.post("/api/tables", json={"seats": [None, spec]})
    return response.status, await response.json()


def test_a_seat_spec_naming_code_or_a_file_is_refused_by_a_real_server(
    tmp_path: Path, bait: Path
) -> None:
    """Each is a 400 that names the option and where such bots are configured; nothing is
    imported, compiled or opened, and a path that exists gets the same answer as one that
    does not. (On 3f6faa5 the server imported os and antigravity, compiled policy.c, read
    /dev/zero on its event loop until MemoryError, and answered 500 for a missing file.)"""
    port = free_port()
    cache = tmp_path / "cache"
    server = start_server(tmp_path / "server.db", port, env=server_env(bait, cache))
    answers: dict[str, tuple[int, dict[str, Any]]] = {}

    async def ask() -> None:
        async with aiohttp.ClientSession(f"http://127.0.0.1:{port}") as http:
            for spec, _ in dangerous_specs(bait):
                answers[spec] = await _post_seat(http, spec)
            assert await (await http.get("/api/tables")).json() == []
            # The loop still answers (a FIFO opened on it would have frozen the server).
            assert (await http.get("/api/bots")).status == 200

    try:
        asyncio.run(asyncio.wait_for(ask(), 60))
        assert fifo_unopened(bait / "pipe.sgnet")
    finally:
        log = stop_server(server)
    for spec, option in dangerous_specs(bait):
        status, body = answers[spec]
        assert status == 400, (spec, body)
        assert option in body["error"], (spec, body)
        assert "skitgubbe serve --bot NAME=SPEC" in body["error"], (spec, body)
    existing = answers[f"ismcts:net={bait}/w.sgnet"][1]["error"]
    missing = answers[f"ismcts:net={bait}/x.sgnet"][1]["error"]
    assert existing.replace("w.sgnet", "X") == missing.replace("x.sgnet", "X")
    assert not any(cache.rglob("*")), "the server compiled a C source a request named"
    assert not SLOW_CALLBACK.search(log), log


def test_plain_specs_still_seat_every_built_in_bot(tmp_path: Path) -> None:
    """Levels, numbers, true/false and the built-in words are what a client may name."""
    port = free_port()
    server = start_server(tmp_path / "server.db", port)
    plain = [
        "random",
        "greedy",
        "easy",
        "expert",
        "net:temperature=0.5",
        "pimc:worlds=4,rollouts=2,rollout=mixed,net=false",
        "ismcts:iterations=500,exploration=0.4,net=true,leaf=rollout,prior=false",
        "ismcts:time=0.01,rollout=net",
    ]

    async def ask() -> list[tuple[int, dict[str, Any]]]:
        async with aiohttp.ClientSession(f"http://127.0.0.1:{port}") as http:
            found = [await _post_seat(http, spec) for spec in plain]
            bots = await (await http.get("/api/bots")).json()
            assert bots == {
                "builtin": [
                    "random",
                    "greedy",
                    "easy",
                    "medium",
                    "hard",
                    "expert",
                    "net",
                    "pimc",
                    "ismcts",
                ],
                "named": [],
            }
            return found

    try:
        answers = asyncio.run(asyncio.wait_for(ask(), 60))
    finally:
        stop_server(server)
    assert [status for status, _ in answers] == [201] * len(plain), answers


def test_an_operators_named_bot_may_use_a_weight_file(tmp_path: Path, bait: Path) -> None:
    """``serve --bot NAME=SPEC`` seats anything the operator names as ``bot:NAME``; a client
    names it, never its spec. It is made once at start (a bad one stops the start)."""
    port = free_port()
    weights = bait / "w.sgnet"
    server = start_server(
        tmp_path / "server.db", port, "--bot", f"mine=ismcts:net={weights},iterations=50"
    )

    async def play() -> dict[str, Any]:
        async with aiohttp.ClientSession(f"http://127.0.0.1:{port}") as http:
            bots = await (await http.get("/api/bots")).json()
            assert bots["named"] == ["mine"]
            seats = {"seats": ["bot:mine", "greedy"], "rules": {"max_moves": 400}}
            response = await http.post("/api/tables", json=seats)
            assert response.status == 201, await response.text()
            table = (await response.json())["id"]
            for _ in range(600):  # at most 60 s
                summary = await (await http.get(f"/api/tables/{table}")).json()
                if summary["status"] == "over":
                    record = await (await http.get(f"/api/tables/{table}/record")).json()
                    return dict(record)
                await asyncio.sleep(0.1)
            raise AssertionError("the table did not finish")

    try:
        record = asyncio.run(asyncio.wait_for(play(), 90))
    finally:
        stop_server(server)
    assert record["moves"]
    with contextlib.closing(SQLiteStore(str(tmp_path / "server.db"))) as store:
        (played,) = store.load(("over",))
    assert played.stand_ins == {}  # the named bot made every move of its own

    bad = free_port()
    with pytest.raises(AssertionError, match="bot 'gone'"):
        start_server(tmp_path / "other.db", bad, "--bot", f"gone=net:weights={bait}/missing")


def _stored(table_id: str, seats: list[str | None], seed: int) -> StoredTable:
    config = TableConfig.from_json({"seats": [None, "greedy"]}).to_json()
    return StoredTable(table_id, {**config, "seats": seats}, seed=seed, seats=[None] * len(seats))


def test_a_stored_table_that_can_no_longer_be_built_is_closed_and_the_rest_resume(
    tmp_path: Path,
) -> None:
    """Tables an older server stored (a seat naming a weight file, an operator's bot this
    server no longer has, a move that is not legal) are closed with the reason (410 to
    their players, one log line each); every other table resumes. (On 3f6faa5 one such
    table made ``skitgubbe serve`` exit 1 with a traceback.)"""
    db = tmp_path / "server.db"
    store = SQLiteStore(str(db))
    store.create(_stored("good", [None, "greedy"], 1))
    store.create(_stored("weights", [None, "ismcts:net=x.sgnet"], 2))
    store.create(_stored("gone", [None, "bot:mine"], 3))
    store.create(_stored("moves", [None, "greedy"], 4))
    store.start("moves")
    store.append_move("moves", 0, "flip-flop", None)
    store.flush()
    store.close()

    async def look(port: int) -> dict[str, Any]:
        seen: dict[str, Any] = {}
        async with aiohttp.ClientSession(f"http://127.0.0.1:{port}") as http:
            seen["tables"] = [t["id"] for t in await (await http.get("/api/tables")).json()]
            for table in ("weights", "gone", "moves", "nowhere"):
                response = await http.get(f"/api/tables/{table}")
                seen[table] = (response.status, (await response.json())["error"])
            async with http.ws_connect("/ws") as ws:  # a player coming back is told why
                await ws.send_str(json.dumps({"type": "join", "table": "weights", "token": "t"}))
                seen["frame"] = json.loads((await ws.receive(timeout=10)).data)
        return seen

    for _ in range(2):  # the closed tables stay closed, with their reasons, after a restart
        port = free_port()
        server = start_server(db, port)
        try:
            seen = asyncio.run(asyncio.wait_for(look(port), 60))
        finally:
            log = stop_server(server)
        assert seen["tables"] == ["good"]
        assert seen["weights"][0] == 410 and "option net" in seen["weights"][1]
        assert seen["gone"][0] == 410 and "no bot named 'mine'" in seen["gone"][1]
        assert seen["moves"][0] == 410 and "flip-flop" in seen["moves"][1]
        assert seen["nowhere"][0] == 404
        assert seen["frame"]["type"] == "error" and seen["frame"]["code"] == "gone"
        assert "Traceback" not in log, log
    with contextlib.closing(SQLiteStore(str(db))) as reopened:
        closed = {t.id: t for t in reopened.load(("closed",))}
    assert sorted(closed) == ["gone", "moves", "weights"]
    assert closed["moves"].moves == ["flip-flop"]  # its record is kept


async def _finished_tables(http: Any, count: int, max_moves: int = 400) -> list[str]:
    """``count`` tables of two greedy bots, once every one is over."""
    ids = []
    for _ in range(count):
        seats = {"seats": ["greedy", "greedy"], "rules": {"max_moves": max_moves}}
        response = await http.post("/api/tables", json=seats)
        ids.append((await response.json())["id"])
    for _ in range(600):  # at most 60 s
        statuses = [(await (await http.get(f"/api/tables/{t}")).json())["status"] for t in ids]
        if set(statuses) == {"over"}:
            return ids
        await asyncio.sleep(0.1)
    raise AssertionError("the tables did not finish")


def test_reviews_are_bounded_per_client_and_in_all(tmp_path: Path) -> None:
    """A client has at most two reviews under way (429 past it, with a Retry-After), and
    may ask for another once they are done (its count goes down again); a review asked
    again is the same one, not a new one; a seat in other than ASCII digits is a 400
    (``²`` was a 500 and ``𝟎`` seat 0 on 3f6faa5). All clients together have at most
    ``review_decisions`` decisions of reviews under way: another address gets no review
    past it (503), and a game longer than ``review_max_decisions`` is refused, saying so."""
    port = free_port()
    # A review slow enough to stay under way while the test asks (it stops at shutdown).
    options = (*ROOMY, "review_decisions=120", "review_max_decisions=100")
    server = start_server(
        tmp_path / "server.db",
        port,
        "--review-engine",
        "ismcts:iterations=3000",
        limits=options,
    )
    url = f"http://127.0.0.1:{port}"
    statuses: list[tuple[str, int, str | None, str]] = []

    async def review(address: str, table: str, seat: int) -> int:
        connector = aiohttp.TCPConnector(local_addr=(address, 0))
        async with aiohttp.ClientSession(url, connector=connector) as http:
            response = await http.get(f"/api/tables/{table}/review?seat={seat}")
            body = await response.json()
            statuses.append(
                (address, response.status, response.headers.get("Retry-After"), str(body))
            )
            return response.status

    async def main() -> dict[str, int]:
        async with aiohttp.ClientSession(url) as http:
            tables = await _finished_tables(http, 8, max_moves=150)
            odd = {}
            for text in ("²", "𝟎", "-1", "0x1", ""):
                response = await http.get(f"/api/tables/{tables[0]}/review", params={"seat": text})
                odd[text] = response.status
        pairs = [(t, s) for t in tables for s in (0, 1)]
        for _ in range(2):  # the second time is the same reviews: nothing new counted
            await review("127.0.0.1", *pairs[0])
        await review("127.0.0.1", *pairs[1])
        await review("127.0.0.1", *pairs[2])  # a third of one client's: 429
        for pair in pairs[:2]:  # once both are done, the client may ask again
            for _ in range(600):
                if await review("127.0.0.1", *pair) == 200:
                    break
                await asyncio.sleep(0.1)
        del statuses[4:]
        assert await review("127.0.0.1", *pairs[2]) == 202
        for n, pair in enumerate(pairs[3:]):  # other addresses, up to the bound in decisions
            if await review(f"127.0.0.{n + 2}", *pair) == 503:
                break
        return odd

    try:
        odd = asyncio.run(asyncio.wait_for(main(), 120))
    finally:
        stop_server(server)
    assert odd == {text: 400 for text in odd}
    assert [s[1] for s in statuses[:4]] == [202, 202, 202, 429], statuses
    assert statuses[3][2] is not None and int(statuses[3][2]) > 0
    assert statuses[4][1] == 202  # the count went down when the first two were done
    others = [s[1] for s in statuses[5:]]
    assert others[-1] == 503 and statuses[-1][2] is not None, statuses  # the total in decisions
    assert 1 <= len(others) <= 4 and set(others[:-1]) <= {202, 400}, statuses


def test_a_review_longer_than_the_bound_is_refused_saying_so(tmp_path: Path) -> None:
    """A game with more of a seat's decisions than ``review_max_decisions`` is not
    reviewed (a review of a 10,000-move game held the review thread 86 s): 400, naming
    the count and the bound."""
    port = free_port()
    server = start_server(tmp_path / "server.db", port, limits=(*ROOMY, "review_max_decisions=5"))
    url = f"http://127.0.0.1:{port}"

    async def main() -> tuple[int, str]:
        async with aiohttp.ClientSession(url) as http:
            (table,) = await _finished_tables(http, 1)
            response = await http.get(f"/api/tables/{table}/review?seat=0")
            return response.status, (await response.json())["error"]

    try:
        status, error = asyncio.run(asyncio.wait_for(main(), 60))
    finally:
        stop_server(server)
    assert status == 400 and "reviews at most 5" in error, error
