"""A cluster when things fail (slow tier): real node processes on a real PostgreSQL behind a
real HAProxy, with websocket people and spectators that play as the browser table does. A
node killed, a node frozen past its lease, the database restarted, the proxy killed: every
move a client was told of is stored exactly once, each client sees the moves once and in
order, and every game finishes."""

from __future__ import annotations

import asyncio
import signal
import time
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

aiohttp = pytest.importorskip("aiohttp")
import pg_support  # noqa: E402
from cluster_support import (  # noqa: E402
    SHORT,
    Client,
    Nodes,
    assert_told_once_and_stored,
    make_table,
    stored_moves,
)

import skitgubbe as sg  # noqa: E402

pytestmark = pytest.mark.slow

Fault = Callable[[Nodes, list[Client]], Awaitable[None]]


async def _tables(http: Any, nodes: Nodes, count: int, base: str) -> list[Client]:
    """``count`` tables made through ``base``: every third with a person (who thinks up to
    0.3 s, with a 10 s clock), the others of bots (a move every 50 ms) with a spectator."""
    clients = []
    for index in range(count):
        if index % 3 == 0:
            table, [token] = await make_table(
                http, base, [None, "greedy", "random"], rules=SHORT, move_time=10
            )
            clients.append(Client(http, base, table, token, seed=index, think=0.3))
        else:
            table, _ = await make_table(
                http, base, ["greedy", "random"], rules=SHORT, bot_delay=0.05
            )
            clients.append(Client(http, base, table, seed=index))
    return clients


def _run(nodes: Nodes, count: int, fault: Fault, base: str | None = None) -> list[Client]:
    """Play ``count`` tables, with ``fault`` done 3 s in; every game must finish."""

    async def main() -> list[Client]:
        async with aiohttp.ClientSession() as http:
            clients = await _tables(http, nodes, count, base or nodes.url())
            deadline = asyncio.get_running_loop().time() + 240
            tasks = [asyncio.ensure_future(client.play(deadline)) for client in clients]
            await asyncio.sleep(3)
            await fault(nodes, clients)
            await asyncio.gather(*tasks)
            return clients

    clients = asyncio.run(asyncio.wait_for(main(), 300))
    unfinished = [client.table for client in clients if client.result is None]
    assert not unfinished, unfinished
    stored = stored_moves(nodes.dsn, [client.table for client in clients])
    assert assert_told_once_and_stored(clients, stored) > 1000
    from skitgubbe.server.postgres import PostgresStore

    store = PostgresStore(nodes.dsn)
    try:  # each game's record is its stored moves, and a whole game
        for table in store.tables([client.table for client in clients]):
            assert table.status == "over"
            game = sg.Game.from_record(table.record or {})
            assert [str(move) for move in game.moves] == table.moves
    finally:
        store.close()
    return clients


def _owned_by(clients: list[Client], node: str) -> list[Client]:
    return [client for client in clients if client.table.startswith(f"{node}-")]


def test_a_node_killed_under_a_hundred_tables(postgres_dsn: str) -> None:
    """SIGKILL one of three nodes: within 5 s its tables play on in the others, every
    client joins again and sees each move once, in order; nothing is lost or doubled."""
    nodes = Nodes(postgres_dsn, ["n1", "n2", "n3"], proxy=True)
    killed: list[float] = []

    async def kill(nodes: Nodes, clients: list[Client]) -> None:
        killed.append(time.monotonic())
        nodes.signal("n2", signal.SIGKILL)

    try:
        clients = _run(nodes, 100, kill)
    finally:
        nodes.close()
    orphans = [c for c in _owned_by(clients, "n2") if c.updates and c.updates[-1] > killed[0]]
    assert len(orphans) > 10
    waits = [min(t for t in c.updates if t > killed[0]) - killed[0] for c in orphans]
    assert max(waits) < 5, sorted(waits)
    assert all(client.welcomes >= 2 for client in orphans)  # each joined again


def test_a_node_frozen_past_its_lease_writes_and_sends_nothing_then_rejoins(
    postgres_dsn: str,
) -> None:
    """SIGSTOP n1 for twice its lease while its tables play (its clients connected to it
    straight): n2 takes them over; SIGCONT: n1 sends no frame on its old sockets and
    stores no move (fencing), lets the tables go (closing the sockets: the clients join
    again, through n1, to n2), and serves new tables again."""
    nodes = Nodes(postgres_dsn, ["n1", "n2"])
    marks: dict[str, float] = {}

    async def freeze(nodes: Nodes, clients: list[Client]) -> None:
        for client in clients:
            client.sockets_before = client.sockets  # type: ignore[attr-defined]
        nodes.signal("n1", signal.SIGSTOP)
        marks["stopped"] = time.monotonic()
        await asyncio.sleep(2 * nodes.lease + 1)
        nodes.signal("n1", signal.SIGCONT)
        marks["continued"] = time.monotonic()

    try:
        clients = _run(nodes, 30, freeze, base=nodes.url("n1"))

        async def rejoined() -> Client:
            async with aiohttp.ClientSession() as http:
                table, _ = await make_table(http, nodes.url("n1"), ["greedy", "random"])
                watcher = Client(http, nodes.url("n1"), table)
                await watcher.play(asyncio.get_running_loop().time() + 60)
                return watcher

        after = asyncio.run(rejoined())
    finally:
        logs = nodes.close()
    assert after.result is not None and after.table.startswith("n1-")
    for client in clients:  # nothing on a socket n1 opened before it froze, once it woke
        late = [
            (round(at - marks["continued"], 3), kind)
            for at, socket, kind in client.frames
            if socket < client.sockets_before  # type: ignore[attr-defined]
            and at > marks["continued"]
            and kind != "close"
        ]
        assert not late, (client.table, late)
    assert "another node owns it" in logs["n1"] or "no longer owns" in logs["n1"], logs["n1"]


def test_the_database_restarted_mid_game() -> None:
    """PostgreSQL stops for 2 s and starts again: requests meanwhile answer 503
    store_unavailable, the sockets stay or join again, and every game finishes."""
    server = pg_support.Postgres()
    server.start()
    answers: list[tuple[int, str]] = []
    try:
        nodes = Nodes(server.new_database("restarted"), ["n1", "n2"], proxy=True)

        async def restart(nodes: Nodes, clients: list[Client]) -> None:
            server.stop()
            async with aiohttp.ClientSession() as http:
                made = await http.post(f"{nodes.url()}/api/tables", json={"seats": ["greedy"] * 2})
                answers.append((made.status, (await made.json()).get("code", "")))
            await asyncio.sleep(2)
            server.start()

        try:
            _run(nodes, 30, restart)
        finally:
            nodes.close()
    finally:
        server.close()
    assert answers == [(503, "store_unavailable")]


def test_the_proxy_killed_and_started_again() -> None:
    """HAProxy is killed and started again a second later: the clients join again through
    it and every game finishes."""
    server = pg_support.Postgres()
    server.start()
    try:
        nodes = Nodes(server.new_database("proxied"), ["n1", "n2"], proxy=True)

        async def bounce(nodes: Nodes, clients: list[Client]) -> None:
            assert nodes.proxy is not None
            nodes.proxy.kill()
            await asyncio.sleep(1)
            nodes.proxy.start()

        try:
            clients = _run(nodes, 30, bounce)
        finally:
            nodes.close()
    finally:
        server.close()
    assert all(client.welcomes >= 2 for client in clients if client.updates)
