"""The server's memory on a request for a huge table: ``POST /api/tables`` with
``{"players": 30000000}`` and ``{"players": 1000000000}`` to a real ``skitgubbe serve``.

Both are refused (400, a JSON error) before anything is built from the count. The
figure is the growth of the server process's peak resident memory (VmHWM, from
``/proc/PID/status``) over all the timed requests, per request: the server grew by
some 458 MB on 30,000,000 and hung on 10**9 when it built the list of seats first.
Before the peak is first read the server has answered a ``GET /api/tables`` and a
refused ``{"players": 5}``, so the figure leaves out what any first request costs.
Each round sends both requests, in order, one connection each (``urllib``, timeout
30 s); the time per request is reported too. Linux only (``/proc``): skipped elsewhere.
"""

from __future__ import annotations

import json
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Final

import pytest
from pytest_benchmark.fixture import BenchmarkFixture
from support import ROOT, Figure, Figures, fastest_seconds, pedantic

pytest.importorskip("aiohttp", reason="skitgubbe serve needs aiohttp (pip install '.[server]')")
sys.path.insert(0, str(ROOT / "tests"))  # the tests' helpers to start a real server
from server_support import free_port, peak_memory_kib, start_server, stop_server

COUNTS: Final = (30_000_000, 1_000_000_000)
ROUNDS: Final = 5
TIMEOUT: Final = 30.0
REFUSAL: Final = "players must be an int 2 … 4"


def post_table(url: str, body: object) -> tuple[int, dict[str, object]]:
    """``POST /api/tables`` with ``body``: the status and the JSON answer."""
    request = urllib.request.Request(
        f"{url}/api/tables",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        with error:
            return error.code, json.loads(error.read())


def refuse_all(url: str) -> list[tuple[int, dict[str, object]]]:
    return [post_table(url, {"players": players}) for players in COUNTS]


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads VmHWM from /proc")
@pytest.mark.benchmark(group="server memory: a huge table refused")
def test_huge_table_memory(benchmark: BenchmarkFixture, figures: Figures, tmp_path: Path) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    server = start_server(tmp_path / "server.db", port)
    answers: list[tuple[int, dict[str, object]]] = []
    try:
        with urllib.request.urlopen(f"{url}/api/tables", timeout=TIMEOUT) as response:
            assert json.loads(response.read()) == []
        assert post_table(url, {"players": 5})[0] == 400
        before = peak_memory_kib(server.pid)

        def run() -> None:
            answers.extend(refuse_all(url))

        pedantic(benchmark, run, rounds=ROUNDS)
        after = peak_memory_kib(server.pid)
        with urllib.request.urlopen(f"{url}/api/tables", timeout=TIMEOUT) as response:
            assert json.loads(response.read()) == [], "a table was made"
    finally:
        stop_server(server)
    # Every request was refused with a JSON error (one round under --benchmark-disable).
    assert answers and len(answers) % len(COUNTS) == 0
    for status, body in answers:
        assert status == 400 and body["code"] == "bad_request", body
        assert REFUSAL in str(body["error"]), body
    grown = after - before
    benchmark.extra_info.update(
        counts=list(COUNTS), requests=len(answers), vmhwm_before_kib=before, vmhwm_after_kib=after
    )
    label = f"server VmHWM growth, players {' / '.join(f'{c:,}' for c in COUNTS)}"
    seconds = fastest_seconds(benchmark)
    figures.add(
        "huge-table-memory",
        benchmark,
        Figure("kib_per_request", label, grown / len(answers), "KiB/request"),
        *(
            [Figure("ms_per_request", "huge table refused", seconds / len(COUNTS) * 1e3, "ms")]
            if seconds is not None
            else []
        ),
    )
