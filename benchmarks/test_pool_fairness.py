"""A short search's wait while one client floods the search threads: the fair pool against a
plain thread pool of the same size.

The issue (40, point 4): twelve tables of long searches by one client made another table's
``hard`` bot answer after 17–30 s, since every table's search went into one first-come,
first-served pool. :class:`skitgubbe.server.pool.FairPool` gives the threads out round robin
over clients (and over a client's tables), a client at most ``per_client`` at once.

The scenario, in one event loop, for each pool (2 threads each, the same run):

1. the flood: one client ("flood") at 12 tables, each table asking for a 0.2 s job again as
   soon as its last one is answered (a table whose bot searches at every turn). The job
   sleeps (it holds its thread, as a search does, but no core: the victim's search gets a
   core of its own in every pool, so the figures measure the queue alone);
2. after the flood has filled the pool (two jobs' time), the victim (another client, one
   table) asks for a real search several times, one after the other: ``hard``
   (:func:`skitgubbe.bots.make`) choosing at a fixed mid-game position, about 10 ms. Its
   latency is from asking to the answer in the event loop; its wait is the latency less
   the search's own time (timed in the thread);
3. the flood is stopped (its waiting jobs cancelled) before the next pool.

The pools: ``FairPool(2, per_client=1)`` (the flood holds one thread, the victim finds the
other free: it starts at once), ``FairPool(2, per_client=2)`` (the flood may hold both: the
victim waits for one thread to come free, at most one job's time) and a plain
``ThreadPoolExecutor(2)`` (the victim waits behind the flood's queue, about 12 × 0.2 s / 2).
The victim's latency with no flood at all is the baseline. Reported: the victim's wait and
latency (mean and max) per pool, the plain pool's over each fair pool's (mean wait and mean
latency), the flooded latency over the quiet one, and the flood's own jobs/s. Asserted, as
the pool's guarantee: with ``per_client=1`` the victim's wait stays under one flood job.

With ``--benchmark-disable`` (the CI's smoke run) the flood's jobs take 0.05 s and the
victim asks 3 times. Every loop is bounded in count and in time.

    python -m pytest benchmarks/test_pool_fairness.py -s
"""

from __future__ import annotations

import asyncio
import statistics
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Final

import pytest
from pytest_benchmark.fixture import BenchmarkFixture
from support import Figure, Figures, pedantic
from test_search import mid_game_observation

import skitgubbe as sg
from skitgubbe import bots

pytest.importorskip("aiohttp", reason="skitgubbe.server needs aiohttp")
from skitgubbe.server.pool import FairPool

THREADS: Final = 2
TABLES: Final = 12  # the flood's tables
POSITION: Final = (2, 40)  # (seed, random moves played): a mid-game decision of classic 3p
VICTIM_BOT: Final = "hard"
TIMEOUT: Final = 60.0  # any one pool's scenario

Run = Callable[[str, str, Callable[[], Any]], Awaitable[Any]]


class _Size:
    """The scenario's size: full, or the smoke run's."""

    def __init__(self, full: bool) -> None:
        self.job_s = 0.2 if full else 0.05  # one flood job
        self.asks = 8 if full else 3  # the victim's searches per pool


def _position() -> sg.Observation:
    return mid_game_observation(*POSITION)


def _search(view: sg.Observation) -> Callable[[], tuple[sg.Move, float]]:
    """The victim's job: a ``hard`` bot's choice at ``view``, and its own time."""

    def work() -> tuple[sg.Move, float]:
        start = time.perf_counter()
        move = bots.make(VICTIM_BOT, seed=1).choose(view)
        return move, time.perf_counter() - start

    return work


async def _scenario(
    make: Callable[[], tuple[Run, Callable[[], Awaitable[None]]]],
    size: _Size,
    view: sg.Observation,
    flood: bool,
) -> dict[str, Any]:
    """The victim's latencies and waits with the pool ``make()`` gives, under the flood or
    not, and the flood's jobs done."""
    run, close = make()
    done = [0]

    def flood_job() -> None:
        time.sleep(size.job_s)
        done[0] += 1  # (one int, bumped by one thread at a time per job: a count, no race)

    async def table(index: int) -> None:
        while True:
            await run("flood", f"table-{index}", flood_job)

    tables = [asyncio.ensure_future(table(i)) for i in range(TABLES)] if flood else []
    latencies: list[float] = []
    waits: list[float] = []
    moves: list[sg.Move] = []
    try:
        await asyncio.sleep(2 * size.job_s)  # the flood fills the pool
        started = time.perf_counter()
        for ask in range(size.asks):
            asked = time.perf_counter()
            move, searched = await run("victim", "victim-table", _search(view))
            latency = time.perf_counter() - asked
            latencies.append(latency)
            waits.append(max(0.0, latency - searched))
            moves.append(move)
            # Out of step with the flood's jobs: each ask comes at another phase of them.
            await asyncio.sleep(size.job_s * (0.3 + 0.37 * (ask % 3)))
        seconds = time.perf_counter() - started
    finally:
        for task in tables:
            task.cancel()
        await asyncio.gather(*tables, return_exceptions=True)
        await close()
    return {
        "latencies": latencies,
        "waits": waits,
        "moves": moves,
        "flood_jobs_per_s": done[0] / seconds,
    }


def _fair(per_client: int) -> Callable[[], tuple[Run, Callable[[], Awaitable[None]]]]:
    def make() -> tuple[Run, Callable[[], Awaitable[None]]]:
        pool = FairPool(THREADS, per_client=per_client, name=f"bench-fair-{per_client}")
        return pool.run, pool.close

    return make


def _plain() -> tuple[Run, Callable[[], Awaitable[None]]]:
    executor = ThreadPoolExecutor(THREADS, thread_name_prefix="bench-plain")

    async def run(client: str, table: str, work: Callable[[], Any]) -> Any:
        return await asyncio.get_running_loop().run_in_executor(executor, work)

    async def close() -> None:
        await asyncio.to_thread(executor.shutdown, wait=True, cancel_futures=True)

    return run, close


POOLS: Final = {
    "fair-1": (_fair(1), "FairPool(2, per_client=1)"),
    "fair-2": (_fair(2), "FairPool(2, per_client=2)"),
    "plain": (_plain, "ThreadPoolExecutor(2)"),
}


@pytest.mark.benchmark(group="server: a search's wait under a flood")
def test_a_victims_wait_under_a_flood(benchmark: BenchmarkFixture, figures: Figures) -> None:
    size = _Size(full=not benchmark.disabled)
    view = _position()
    out: dict[str, dict[str, Any]] = {}

    def run() -> None:
        for name, (make, _) in POOLS.items():
            out[name] = asyncio.run(
                asyncio.wait_for(_scenario(make, size, view, flood=True), TIMEOUT)
            )
        out["quiet"] = asyncio.run(
            asyncio.wait_for(_scenario(_fair(1), size, view, flood=False), TIMEOUT)
        )

    pedantic(benchmark, run, rounds=1)

    legal = set(view.legal_moves)
    for name, found in out.items():
        assert len(found["latencies"]) == size.asks, name
        assert set(found["moves"]) <= legal, name
    assert out["plain"]["flood_jobs_per_s"] > 0 and out["fair-1"]["flood_jobs_per_s"] > 0
    # The guarantee: the flood holds one thread of two, so the victim starts at once.
    assert max(out["fair-1"]["waits"]) < size.job_s, out["fair-1"]["waits"]

    mean = {name: statistics.fmean(found["waits"]) for name, found in out.items()}
    mean_latency = {name: statistics.fmean(found["latencies"]) for name, found in out.items()}
    benchmark.extra_info.update(
        threads=THREADS,
        flood_tables=TABLES,
        flood_job_s=size.job_s,
        victim_asks=size.asks,
        victim_bot=VICTIM_BOT,
        **{
            f"{name}_{key}_ms": [round(s * 1e3, 3) for s in found[key]]
            for name, found in out.items()
            for key in ("latencies", "waits")
        },
    )
    rows: list[Figure] = []
    for name, (_, label) in POOLS.items():
        found = out[name]
        rows += [
            Figure(f"{name}_wait_mean_ms", f"{label}: victim's wait, mean", mean[name] * 1e3, "ms"),
            Figure(
                f"{name}_wait_max_ms",
                f"{label}: victim's wait, max",
                max(found["waits"]) * 1e3,
                "ms",
            ),
            Figure(
                f"{name}_latency_mean_ms",
                f"{label}: victim's latency, mean",
                mean_latency[name] * 1e3,
                "ms",
            ),
            Figure(
                f"{name}_flood_jobs_per_s",
                f"{label}: the flood's jobs",
                found["flood_jobs_per_s"],
                "jobs/s",
            ),
        ]
    rows.append(
        Figure(
            "quiet_latency_mean_ms",
            "no flood: victim's latency, mean",
            mean_latency["quiet"] * 1e3,
            "ms",
        )
    )
    for name in ("fair-1", "fair-2"):
        label = POOLS[name][1]
        rows += [
            Figure(
                f"plain_over_{name}_wait",
                f"victim's mean wait, ThreadPoolExecutor / {label}",
                mean["plain"] / max(mean[name], 1e-6),
                "x",
            ),
            Figure(
                f"plain_over_{name}_latency",
                f"victim's mean latency, ThreadPoolExecutor / {label}",
                mean_latency["plain"] / mean_latency[name],
                "x",
            ),
            Figure(
                f"{name}_over_quiet_latency",
                f"victim's mean latency, {label} flooded / no flood",
                mean_latency[name] / mean_latency["quiet"],
                "x",
            ),
        ]
    figures.add("pool-fairness", benchmark, *rows)
    print(
        f"\nthe victim's {VICTIM_BOT} search under {TABLES} tables of {size.job_s} s jobs "
        f"({THREADS} threads), {size.asks} asks each:\n"
        + "\n".join(
            f"  {POOLS[name][1] if name in POOLS else 'no flood'}: wait mean "
            f"{mean[name] * 1e3:.1f} ms, max {max(out[name]['waits']) * 1e3:.1f} ms; latency "
            f"mean {mean_latency[name] * 1e3:.1f} ms; flood {out[name]['flood_jobs_per_s']:.1f} "
            "jobs/s"
            for name in (*POOLS, "quiet")
        )
    )
