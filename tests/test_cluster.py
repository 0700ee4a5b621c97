"""Many server processes on one PostgreSQL database (skitgubbe.server.cluster): real
``skitgubbe serve --node`` processes, a real PostgreSQL (tests/pg_support.py), a real HAProxy
(tests/proxy_support.py). Whatever node a request reaches, it is served; a node killed has
its tables played on by another, with every told move stored once and the clock kept."""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import sys
import time
from typing import Any

import pytest

aiohttp = pytest.importorskip("aiohttp")
from cluster_support import (  # noqa: E402
    SHORT,
    Client,
    Nodes,
    assert_told_once_and_stored,
    make_table,
    stored_moves,
)
from server_support import free_port  # noqa: E402

from skitgubbe.server.cluster import haproxy_config  # noqa: E402


@pytest.fixture
def nodes(postgres_dsn: str, request: pytest.FixtureRequest) -> Any:
    """Two nodes (``n1``, ``n2``) on a new database; ``indirect`` params: names, proxy."""
    options = getattr(request, "param", {})
    made = Nodes(
        postgres_dsn,
        options.get("names", ["n1", "n2"]),
        proxy=options.get("proxy", False),
        args=("--hint-engine", "ismcts:iterations=300", "--review-engine", "pimc:worlds=2"),
    )
    yield made
    made.close()


def test_any_node_serves_any_table_and_the_game_is_played_to_its_end(nodes: Nodes) -> None:
    """A table made on n1 is read, claimed, joined (its socket) and played through n2,
    which forwards it all to n1; both list it the same; the record is served by either."""

    async def main() -> tuple[Client, dict[str, Any], list[Any]]:
        async with aiohttp.ClientSession() as http:
            table, [token] = await make_table(
                http, nodes.url("n1"), [None, "greedy", "random"], rules=SHORT
            )
            assert table.startswith("n1-")
            person = Client(http, nodes.url("n2"), table, token, seed=1)
            spectator = Client(http, nodes.url("n2"), table)
            loop = asyncio.get_running_loop()
            await asyncio.gather(person.play(loop.time() + 60), spectator.play(loop.time() + 60))
            for _ in range(100):
                answer = await http.get(f"{nodes.url('n2')}/api/tables/{table}/record")
                if answer.status == 200:
                    break
                await asyncio.sleep(0.1)
            record = await answer.json()
            listings = []
            for name in ("n1", "n2"):
                listing = await http.get(f"{nodes.url(name)}/api/tables?status=over")
                listings.append([row["id"] for row in await listing.json()])
            return person, record, listings

    person, record, listings = asyncio.run(asyncio.wait_for(main(), 120))
    assert person.result is not None and person.welcomes == 1
    stored = stored_moves(nodes.dsn, [person.table])
    assert [str(move) for move in record["moves"]] == stored[person.table]
    assert assert_told_once_and_stored([person], stored) > 0
    assert listings[0] == listings[1] == [person.table]


def test_the_lobby_is_the_same_from_every_node(nodes: Nodes) -> None:
    """Tables made on either node are listed by both, open and running alike, within a
    beat; a client's open tables count on every node (the database counts them)."""

    async def main() -> list[list[str]]:
        async with aiohttp.ClientSession() as http:
            made = []
            for name in ("n1", "n2", "n1"):
                answer = await http.post(
                    f"{nodes.url(name)}/api/tables", json={"seats": [None, "greedy"]}
                )
                made.append((await answer.json())["id"])
            await asyncio.sleep(1.5)  # a beat and a listing's freshness
            seen = []
            for name in ("n1", "n2"):
                listing = await http.get(f"{nodes.url(name)}/api/tables?status=live")
                seen.append(sorted(row["id"] for row in await listing.json()))
            return [sorted(made), *seen]

    made, on_n1, on_n2 = asyncio.run(asyncio.wait_for(main(), 120))
    assert made == on_n1 == on_n2


def test_a_killed_node_has_its_tables_played_on_with_its_clocks_kept(nodes: Nodes) -> None:
    """n1 is killed while a person's clock runs (6 s a move, 1 s gone): n2 takes its tables
    over within the lease (3 s) and a beat, the bot tables play on, and the person's clock
    runs out when it would have, not 6 s after the takeover."""

    async def main() -> tuple[Client, list[Client], float, float]:
        async with aiohttp.ClientSession() as http:
            base = nodes.url("n2")  # the clients go through n2: n1 dies under them
            slow, [token] = await make_table(
                http, nodes.url("n1"), [None, "greedy"], move_time=6, rules=SHORT
            )
            person = Client(http, base, slow, token, answers=False)  # its clock runs out
            bots = [
                Client(
                    http,
                    base,
                    (
                        await make_table(
                            http, nodes.url("n1"), ["greedy", "random"], rules=SHORT, bot_delay=0.05
                        )
                    )[0],
                )
                for _ in range(3)
            ]
            loop = asyncio.get_running_loop()
            tasks = [asyncio.ensure_future(c.play(loop.time() + 40)) for c in [person, *bots]]
            while not person.prompts:
                await asyncio.sleep(0.05)
            prompted = person.prompts[0][0]
            await asyncio.sleep(1.0)
            killed = time.monotonic()
            nodes.signal("n1", signal.SIGKILL)
            while not person.stand_ins:
                await asyncio.sleep(0.05)
            for task in tasks[1:]:
                await task
            for task in tasks[:1]:
                task.cancel()
            return person, bots, prompted, killed

    person, bots, prompted, killed = asyncio.run(asyncio.wait_for(main(), 120))
    ran_out = person.stand_ins[0][0]
    assert person.stand_ins[0][1] == person.prompts[0][1]
    # Kept: 6 s after the prompt (or at the takeover if that is later); reset: 6 s after it.
    assert 6 - 0.5 < ran_out - prompted < 6 + 1.5, (ran_out - prompted, killed - prompted)
    # Within 5 s of the kill, every table plays on (the lease is 3 s, a beat 0.5 s).
    for bot in bots:
        assert min(t for t in bot.updates if t > killed) - killed < 5
    assert all(bot.result is not None for bot in bots)
    stored = stored_moves(nodes.dsn, [person.table] + [bot.table for bot in bots])
    assert assert_told_once_and_stored([person, *bots], stored) > 0


@pytest.mark.parametrize("nodes", [{"names": ["n1", "n2", "n3"], "proxy": True}], indirect=True)
def test_the_proxy_sends_a_tables_requests_to_its_node_and_elsewhere_when_it_is_down(
    nodes: Nodes,
) -> None:
    """Through HAProxy (haproxy_config), each table's requests reach its own node; with
    that node stopped, they reach another, which takes the table over."""

    async def main() -> tuple[dict[str, str], str]:
        async with aiohttp.ClientSession() as http:
            base = nodes.url()
            served: dict[str, str] = {}
            for _ in range(6):
                table, _ = await make_table(http, base, ["greedy", "greedy"], bot_delay=1)
                answer = await http.get(f"{base}/api/tables/{table}")
                served[table] = answer.headers["X-Skitgubbe-Node"]
            victim = next(iter(served))
            nodes.signal(victim.split("-")[0], signal.SIGKILL)
            for _ in range(100):
                answer = await http.get(f"{base}/api/tables/{victim}")
                if answer.status == 200:
                    break
                await asyncio.sleep(0.1)
            return served, answer.headers.get("X-Skitgubbe-Node", "")

    served, after = asyncio.run(asyncio.wait_for(main(), 120))
    assert all(node == table.split("-")[0] for table, node in served.items()), served
    assert len(set(served.values())) >= 2  # made round robin on the nodes
    victim = next(iter(served))
    assert after and after != victim.split("-")[0]


def test_the_proxy_configuration_in_the_docs_is_the_one_tested() -> None:
    from pathlib import Path

    docs = (Path(__file__).parent.parent / "docs" / "server.md").read_text("utf-8")
    shipped = haproxy_config(
        {"n1": "10.0.0.11:8080", "n2": "10.0.0.12:8080", "n3": "10.0.0.13:8080"}, "*:80"
    )
    assert shipped in docs


def test_workers_share_one_port(postgres_dsn: str) -> None:
    """``skitgubbe serve --workers 2``: two processes on one port play a table whichever
    one each connection reaches."""
    port = free_port()
    server = subprocess.Popen(
        [
            *(sys.executable, "-m", "skitgubbe", "serve", "--port", str(port)),
            *("--db", postgres_dsn, "--workers", "2"),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )

    async def main() -> tuple[Client, set[str]]:
        base = f"http://127.0.0.1:{port}"
        async with aiohttp.ClientSession() as http:
            for _ in range(300):
                try:
                    health = await http.get(f"{base}/api/health")
                    if health.status == 200:
                        break
                except aiohttp.ClientError:
                    await asyncio.sleep(0.1)
            nodes = set()
            for _ in range(300):  # both start in a few seconds; the kernel spreads the rest
                async with aiohttp.ClientSession() as fresh:  # a connection of its own
                    nodes.add((await (await fresh.get(f"{base}/api/health")).json())["node"])
                if len(nodes) == 2:
                    break
                await asyncio.sleep(0.05)
            table, [token] = await make_table(http, base, [None, "greedy"], rules=SHORT)
            person = Client(http, base, table, token, seed=3)
            await person.play(asyncio.get_running_loop().time() + 60)
            return person, nodes

    try:
        person, nodes = asyncio.run(asyncio.wait_for(main(), 120))
    finally:
        server.send_signal(signal.SIGTERM)
        output = server.communicate(timeout=30)[0].decode()
    assert person.result is not None
    assert nodes == {"w1", "w2"}, output


def test_a_rematch_asked_for_on_two_nodes_is_one_table(nodes: Nodes) -> None:
    """Two people finish a game on n1 and ask for a rematch, one through n1 and one through
    n2 (at the same moment): both sit at the same new table, each at their own seat (the
    store keeps the first rematch made; a node that made another lets it go and passes the
    request on)."""

    async def main() -> list[dict[str, Any]]:
        async with aiohttp.ClientSession() as http:
            table, tokens = await make_table(
                http, nodes.url("n1"), [None, None], rules=SHORT, spectator_delay=0
            )
            players = [
                Client(http, nodes.url(name), table, token, seed=seat)
                for seat, (name, token) in enumerate(zip(("n1", "n2"), tokens, strict=True))
            ]
            deadline = asyncio.get_running_loop().time() + 60
            await asyncio.gather(*(player.play(deadline) for player in players))
            asked = await asyncio.gather(
                *(
                    http.post(
                        f"{nodes.url(name)}/api/tables/{table}/rematch", json={"token": token}
                    )
                    for name, token in zip(("n1", "n2"), tokens, strict=True)
                )
            )
            return [{"status": answer.status, **(await answer.json())} for answer in asked]

    first, second = asyncio.run(asyncio.wait_for(main(), 120))
    assert first["status"] == second["status"] == 201, (first, second)
    assert first["table"] == second["table"]
    assert (first["seat"], second["seat"]) == (0, 1)


def test_a_client_cannot_pass_for_a_node(nodes: Nodes) -> None:
    """A request that carries the nodes' header with a guessed secret is a client's own: it
    is forwarded as any other (not refused as forwarded once already), and names no
    other client."""

    async def main() -> tuple[int, int]:
        async with aiohttp.ClientSession() as http:
            table, _ = await make_table(http, nodes.url("n1"), [None, "greedy"])
            forged = {"X-Skitgubbe-Node": "guess", "X-Skitgubbe-Client": "10.9.9.9"}
            through = await http.get(f"{nodes.url('n2')}/api/tables/{table}", headers=forged)
            plain = await http.get(f"{nodes.url('n2')}/api/tables/{table}")
            return through.status, plain.status

    assert asyncio.run(asyncio.wait_for(main(), 60)) == (200, 200)


def test_a_hint_and_a_review_through_another_node(nodes: Nodes) -> None:
    """A person at a table of n1 with hints, joined through n2, asks for a hint (its socket
    is n1's, passed on) and, after the game, for the review of its moves through n2 (a
    finished game is served by any node from the database)."""

    async def main() -> tuple[dict[str, Any], dict[str, Any]]:
        async with aiohttp.ClientSession() as http:
            base = nodes.url("n2")
            table, [token] = await make_table(
                http, nodes.url("n1"), [None, "greedy"], rules=SHORT, hints=True, move_time=60
            )
            ws = await http.ws_connect(f"{base}/ws", params={"table": table})
            await ws.send_json({"type": "join", "table": table, "token": token})
            hint: dict[str, Any] = {}
            while True:
                frame = json.loads((await ws.receive(timeout=30)).data)
                if frame.get("result"):
                    break
                if frame.get("legal"):
                    if not hint:
                        await ws.send_json({"type": "hint", "n": frame["n"]})
                        while not hint:
                            reply = json.loads((await ws.receive(timeout=30)).data)
                            if reply["type"] == "hint":
                                hint = reply
                    await ws.send_json({"type": "move", "n": frame["n"], "move": frame["legal"][0]})
            await ws.close()
            for _ in range(600):
                answer = await http.get(f"{base}/api/tables/{table}/review", params={"seat": "0"})
                if answer.status == 200:
                    break
                assert answer.status in (202, 409), await answer.text()  # 409: shown late
                await asyncio.sleep(0.1)
            return hint, await answer.json()

    hint, review = asyncio.run(asyncio.wait_for(main(), 120))
    assert hint["type"] == "hint" and hint["best"] in [m["move"] for m in hint["moves"]]
    assert review["seat"] == 0 and any(m["seat"] == 0 and "label" in m for m in review["moves"])
