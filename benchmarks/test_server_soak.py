"""A server soaked in finished games: its memory and its list stay level (issue 40).

One real ``skitgubbe serve`` on 127.0.0.1 plays ``SKITGUBBE_SOAK_GAMES`` (default 20,000)
games of two greedy bots, made by a few clients (addresses 127.0.0.1 … 127.0.0.8, within the
tables-a-minute bound of each), 40 live at a time. After the first 1,000 and at the end it
reads the server's resident memory and the size of ``GET /api/tables``: a server bounded by
what is live holds the same at both (within 10 % for memory; the same tables in the list, its
bytes within 2 %: a result's move count may have a digit more or less). The curve (games,
RSS, list bytes) is printed.

Slow tier: ``python -m pytest benchmarks/test_server_soak.py -m slow -s`` (about four
minutes on two cores); ``SKITGUBBE_SOAK_GAMES=2000`` for a shorter soak.
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from typing import Any

import pytest

aiohttp = pytest.importorskip("aiohttp")
sys.path.insert(0, str(Path(__file__).parents[1] / "tests"))
from server_support import free_port, start_server, stop_server  # noqa: E402

GAMES = int(os.environ.get("SKITGUBBE_SOAK_GAMES", "20000"))
LIVE = 40
CLIENTS = 8


def _rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


@pytest.mark.slow
def test_memory_and_the_list_stay_level_over_20000_finished_games(tmp_path: Path) -> None:
    port = free_port()
    limits = (
        "creates_per_minute_per_client=100000",
        "creates_per_minute=100000",
        "finished_linger=0.5",
    )
    server = start_server(tmp_path / "soak.db", port, limits=limits)
    curve: list[tuple[int, int, int, int]] = []
    config = {"seats": ["greedy", "greedy"], "rules": {"max_moves": 300}}

    async def main() -> None:
        sessions = [
            aiohttp.ClientSession(
                f"http://127.0.0.1:{port}",
                connector=aiohttp.TCPConnector(local_addr=(f"127.0.0.{n + 1}", 0)),
            )
            for n in range(CLIENTS)
        ]
        made = done = 0
        live: dict[str, Any] = {}

        async def sample() -> None:
            await asyncio.sleep(3)  # finished tables leave memory within a sweep or two
            async with sessions[0].get("/api/tables") as listed:
                body = await listed.read()
                size = len(body)
                count = len(await listed.json())
            curve.append((done, _rss_kib(server.pid), size, count))
            print(f"{done:>6} games: RSS {curve[-1][1] / 1024:.1f} MiB, list {size} bytes")

        try:
            while done < GAMES:
                while len(live) < LIVE and made < GAMES:
                    http = sessions[made % CLIENTS]
                    async with http.post("/api/tables", json=config) as response:
                        assert response.status == 201, await response.text()
                        live[(await response.json())["id"]] = http
                    made += 1
                await asyncio.sleep(0.05)
                for table, http in list(live.items()):
                    async with http.get(f"/api/tables/{table}") as response:
                        if (await response.json())["status"] == "over":
                            del live[table]
                            done += 1
                            if done in (1000, GAMES) or done % 5000 == 0:
                                await sample()
        finally:
            for http in sessions:
                await http.close()

    try:
        asyncio.run(asyncio.wait_for(main(), 3600))
    finally:
        stop_server(server)
    first = next(point for point in curve if point[0] == 1000)
    last = curve[-1]
    assert last[0] == GAMES
    assert last[1] <= first[1] * 1.10, curve
    # The same tables listed (the last 20 finished); a result's move count may have a digit
    # more or less, so the bytes agree within 2 %.
    assert last[3] == first[3] and abs(last[2] - first[2]) <= first[2] * 0.02, curve
