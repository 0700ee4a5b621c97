"""The fair pool of the server's searches (skitgubbe.server.pool): the order jobs start in,
the share per client, cancellation, the bounds on waiting, errors, closing, and client keys.

Every job is a function gated by a threading.Event where the order matters, so nothing here
depends on how long a thread takes; every wait is bounded in time (a broken pool fails a
test, it never hangs it).
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest

from skitgubbe.errors import ArgumentError
from skitgubbe.server import TableError
from skitgubbe.server.pool import FairPool, PoolFullError, client_key

TIMEOUT = 5.0  # seconds: any one wait, far above what a passing test needs


class Jobs:
    """Work functions that record the order they start in, each optionally held at a gate
    (a threading.Event) until the test opens it."""

    def __init__(self) -> None:
        self.started: list[str] = []
        self.running: dict[str, int] = {}  # by client: how many run now
        self.most: dict[str, int] = {}  # by client: the most that ran at once
        self._lock = threading.Lock()

    def job(
        self,
        label: str,
        gate: threading.Event | None = None,
        *,
        client: str = "",
        then: Callable[[], Any] | None = None,
    ) -> Callable[[], Any]:
        def work() -> Any:
            with self._lock:
                self.started.append(label)
                now = self.running[client] = self.running.get(client, 0) + 1
                self.most[client] = max(self.most.get(client, 0), now)
            try:
                if gate is not None:
                    assert gate.wait(TIMEOUT), f"{label}: the gate was never opened"
                return then() if then is not None else label
            finally:
                with self._lock:
                    self.running[client] -= 1

        return work


async def until(check: Callable[[], bool], what: str) -> None:
    """Let the loop run until ``check()`` holds (bounded in time)."""
    deadline = time.monotonic() + TIMEOUT
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.001)


async def cancelled(*tasks: asyncio.Future[Any]) -> None:
    """Wait (bounded in time) until each of ``tasks`` is done: each must end cancelled.
    (Not ``pytest.raises(CancelledError)`` around an await: that would also catch the
    cancellation of a test that timed out.)"""
    await asyncio.wait(tasks, timeout=TIMEOUT)
    assert all(task.cancelled() for task in tasks), [t for t in tasks if not t.cancelled()]


def in_loop(test: Callable[[], Any]) -> Any:
    """Run the coroutine function ``test`` in a fresh loop that fails on any error the
    loop's exception handler sees (an exception in a callback, a future's exception
    never retrieved)."""

    async def main() -> Any:
        seen: list[dict[str, Any]] = []
        asyncio.get_running_loop().set_exception_handler(lambda _, context: seen.append(context))
        result = await asyncio.wait_for(test(), TIMEOUT * 2)
        assert seen == [], f"the loop saw errors: {seen}"
        return result

    return asyncio.run(main())


def test_jobs_start_in_turns_over_clients_then_tables_then_in_order() -> None:
    jobs = Jobs()
    gate = threading.Event()
    queued = [  # (client, table), in the order they are asked for
        ("A", "a1"),
        ("A", "a1"),
        ("A", "a1"),
        ("A", "a2"),
        ("A", "a2"),
        ("B", "b1"),
        ("B", "b1"),
        ("C", "c1"),
    ]

    async def test() -> list[str]:
        pool = FairPool(1, per_client=1, name="test-order")
        blocker = asyncio.ensure_future(pool.run("Z", "z", jobs.job("z", gate)))
        await until(lambda: jobs.started == ["z"], "the blocker to start")
        counts: dict[str, int] = {}
        tasks = []
        for client, table in queued:
            label = f"{table}-{counts.setdefault(table, 0)}"
            counts[table] += 1
            tasks.append(asyncio.ensure_future(pool.run(client, table, jobs.job(label))))
            await asyncio.sleep(0)  # each is queued before the next is asked for
        assert pool.queued() == len(queued)
        assert (pool.queued("A"), pool.queued("B"), pool.queued("C")) == (5, 2, 1)
        gate.set()
        results = await asyncio.gather(blocker, *tasks)
        assert results[1:] == [f"{t}-{i}" for t, i in _labels(queued)]  # each its own result
        assert (pool.queued(), pool.running()) == (0, 0)
        await pool.close()
        return jobs.started

    started = in_loop(test)
    # A, B, C take turns; A's tables a1 and a2 take turns; each table's jobs in order.
    assert started == ["z", "a1-0", "b1-0", "c1-0", "a2-0", "b1-1", "a1-1", "a2-1", "a1-2"]


def _labels(queued: list[tuple[str, str]]) -> list[tuple[str, int]]:
    counts: dict[str, int] = {}
    out = []
    for _, table in queued:
        out.append((table, counts.get(table, 0)))
        counts[table] = counts.get(table, 0) + 1
    return out


def test_a_client_that_runs_nothing_joins_the_line_at_the_back() -> None:
    """A client whose jobs all ran, asking again, goes behind those waiting."""
    jobs = Jobs()
    gate = threading.Event()

    async def test() -> list[str]:
        pool = FairPool(1, name="test-back")
        first = asyncio.ensure_future(pool.run("A", "a", jobs.job("a-0", gate)))
        await until(lambda: jobs.started == ["a-0"], "A's first job to start")
        tasks = [asyncio.ensure_future(pool.run("B", "b", jobs.job("b-0")))]
        await asyncio.sleep(0)
        tasks.append(asyncio.ensure_future(pool.run("C", "c", jobs.job("c-0"))))
        await asyncio.sleep(0)
        tasks.append(asyncio.ensure_future(pool.run("A", "a", jobs.job("a-1"))))
        await asyncio.sleep(0)
        gate.set()
        await asyncio.gather(first, *tasks)
        await pool.close()
        return jobs.started

    assert in_loop(test) == ["a-0", "b-0", "c-0", "a-1"]


def test_one_client_never_holds_every_thread() -> None:
    """Client A floods 12 tables of long jobs into 2 threads with a share of 1: client B's
    job starts, and ends, while A's first job is still running."""
    jobs = Jobs()
    gate = threading.Event()

    async def test() -> None:
        pool = FairPool(2, per_client=1, name="test-share")
        flood = [
            asyncio.ensure_future(pool.run("A", f"a{i}", jobs.job(f"a{i}", gate, client="A")))
            for i in range(12)
        ]
        await until(lambda: jobs.started == ["a0"], "A's first job to start")
        await asyncio.sleep(0.01)  # time enough for a second thread to take another of A's
        assert (pool.running("A"), pool.queued("A")) == (1, 11)
        answer = await asyncio.wait_for(pool.run("B", "b", jobs.job("b", client="B")), TIMEOUT)
        assert answer == "b"
        assert jobs.started == ["a0", "b"]  # A's first job still holds its thread
        assert pool.running("A") == 1 and not gate.is_set()
        gate.set()
        assert await asyncio.gather(*flood) == [f"a{i}" for i in range(12)]
        assert jobs.most["A"] == 1  # never two of A's at once
        await pool.close()

    in_loop(test)


def test_the_share_per_client_can_be_more_than_one() -> None:
    jobs = Jobs()
    gate = threading.Event()

    async def test() -> None:
        pool = FairPool(3, per_client=2, name="test-share-2")
        flood = [
            asyncio.ensure_future(pool.run("A", f"a{i}", jobs.job(f"a{i}", gate, client="A")))
            for i in range(6)
        ]
        await until(lambda: len(jobs.started) == 2, "two of A's jobs to start")
        await asyncio.sleep(0.01)
        assert (pool.running("A"), pool.queued("A")) == (2, 4)
        assert await asyncio.wait_for(pool.run("B", "b", jobs.job("b")), TIMEOUT) == "b"
        gate.set()
        await asyncio.gather(*flood)
        assert jobs.most["A"] == 2
        await pool.close()

    in_loop(test)


def test_a_cancelled_waiting_job_never_runs() -> None:
    jobs = Jobs()
    gate = threading.Event()

    async def test() -> None:
        pool = FairPool(1, name="test-cancel-waiting")
        blocker = asyncio.ensure_future(pool.run("A", "a", jobs.job("blocker", gate)))
        await until(lambda: jobs.started == ["blocker"], "the blocker to start")
        hint = asyncio.ensure_future(pool.run("B", "b", jobs.job("hint")))
        await asyncio.sleep(0)
        assert pool.queued("B") == 1
        hint.cancel()  # the turn the hint was for has ended
        await cancelled(hint)
        assert (pool.queued(), pool.queued("B")) == (0, 0)
        gate.set()
        await blocker
        assert await pool.run("B", "b", jobs.job("next")) == "next"
        assert jobs.started == ["blocker", "next"]  # the hint never ran
        await pool.close()

    in_loop(test)


@pytest.mark.parametrize("fails", [False, True], ids=["returns", "raises"])
def test_a_cancelled_running_job_finishes_and_its_result_is_dropped(
    fails: bool, caplog: pytest.LogCaptureFixture
) -> None:
    jobs = Jobs()
    gate = threading.Event()

    def outcome() -> str:
        if fails:
            raise ValueError("a result nobody waits for")
        return "dropped"

    async def test() -> None:
        pool = FairPool(1, name="test-cancel-running")
        task = asyncio.ensure_future(pool.run("A", "a", jobs.job("long", gate, then=outcome)))
        await until(lambda: jobs.started == ["long"], "the job to start")
        task.cancel()
        await cancelled(task)
        assert pool.running("A") == 1  # it still holds its thread
        waiting = asyncio.ensure_future(pool.run("B", "b", jobs.job("after")))
        await asyncio.sleep(0.01)
        assert not waiting.done() and pool.queued("B") == 1
        gate.set()
        assert await waiting == "after"
        assert (pool.running(), pool.queued()) == (0, 0)
        await pool.close()

    with caplog.at_level(logging.DEBUG):
        in_loop(test)  # fails on any error the loop saw
    assert [r for r in caplog.records if r.levelno >= logging.WARNING] == []


def test_past_the_bounds_a_job_is_refused_at_once_and_nothing_is_queued() -> None:
    jobs = Jobs()
    gate = threading.Event()

    async def test() -> None:
        pool = FairPool(
            1,
            per_client=1,
            max_queued=3,
            max_queued_per_client=2,
            name="test-bounds",
            retry_after=3,
        )
        assert await pool.run("A", "a", jobs.job("free")) == "free"  # a free thread: no wait
        blocker = asyncio.ensure_future(pool.run("Z", "z", jobs.job("blocker", gate)))
        await until(lambda: jobs.started == ["free", "blocker"], "the blocker to start")
        waiting = [asyncio.ensure_future(pool.run("A", f"a{i}", jobs.job(f"a{i}"))) for i in (0, 1)]
        await asyncio.sleep(0)
        assert pool.queued("A") == 2

        with pytest.raises(PoolFullError) as refused:
            await pool.run("A", "a2", jobs.job("a2"))
        assert isinstance(refused.value, TableError)
        assert (refused.value.status, refused.value.code) == (429, "too_many_requests")
        assert refused.value.retry_after == 3
        assert (pool.queued("A"), pool.queued()) == (2, 2)

        waiting.append(asyncio.ensure_future(pool.run("B", "b", jobs.job("b0"))))
        await asyncio.sleep(0)
        assert pool.queued() == 3
        with pytest.raises(PoolFullError) as busy:
            await pool.run("C", "c", jobs.job("c0"))
        assert (busy.value.status, busy.value.code, busy.value.retry_after) == (503, "busy", 3)
        assert (pool.queued(), pool.queued("C")) == (3, 0)

        gate.set()
        await asyncio.gather(blocker, *waiting)
        assert sorted(jobs.started) == ["a0", "a1", "b0", "blocker", "free"]  # none refused ran
        await pool.close()

    in_loop(test)


def test_no_bound_means_no_refusal() -> None:
    jobs = Jobs()
    gate = threading.Event()

    async def test() -> None:
        pool = FairPool(1, name="test-unbounded")
        blocker = asyncio.ensure_future(pool.run("Z", "z", jobs.job("blocker", gate)))
        await until(lambda: jobs.started == ["blocker"], "the blocker to start")
        many = [asyncio.ensure_future(pool.run("A", "a", jobs.job(f"a{i}"))) for i in range(500)]
        await asyncio.sleep(0)
        assert pool.queued("A") == 500
        gate.set()
        assert len(await asyncio.gather(blocker, *many)) == 501
        await pool.close()

    in_loop(test)


def test_what_the_work_raises_reaches_the_caller() -> None:
    def boom() -> None:
        raise ValueError("the search failed")

    def stop() -> None:
        raise StopIteration  # a future cannot hold one: it comes as a RuntimeError

    async def test() -> None:
        pool = FairPool(1, name="test-raises")
        with pytest.raises(ValueError, match="the search failed"):
            await pool.run("A", "a", boom)
        with pytest.raises(RuntimeError, match="StopIteration"):
            await pool.run("A", "a", stop)
        assert await pool.run("A", "a", lambda: 7) == 7  # the pool goes on
        assert (pool.running(), pool.queued()) == (0, 0)
        await pool.close()

    in_loop(test)


def test_close_cancels_every_caller_and_stops_the_threads() -> None:
    jobs = Jobs()
    gate = threading.Event()

    async def test() -> None:
        pool = FairPool(1, name="test-close")
        running = asyncio.ensure_future(pool.run("A", "a", jobs.job("running", gate)))
        await until(lambda: jobs.started == ["running"], "the first job to start")
        waiting = asyncio.ensure_future(pool.run("B", "b", jobs.job("waiting")))
        await asyncio.sleep(0)
        assert pool.queued() == 1
        await pool.close()  # does not wait for the running job (its gate is shut)
        assert not gate.is_set()
        await cancelled(running, waiting)
        assert pool.queued() == 0
        with pytest.raises(PoolFullError) as closed:
            await pool.run("C", "c", jobs.job("late"))
        assert closed.value.status == 503
        gate.set()
        await until(lambda: pool.running() == 0, "the running job to return")
        await until(
            lambda: not any(t.name.startswith("test-close") for t in threading.enumerate()),
            "the pool's thread to end",
        )
        assert jobs.started == ["running"]
        await pool.close()  # twice: nothing more

    in_loop(test)


def test_a_pool_belongs_to_one_loop() -> None:
    pool = FairPool(1, name="test-loops")
    assert asyncio.run(pool.run("A", "a", lambda: 1)) == 1
    with pytest.raises(RuntimeError, match="another event loop"):
        asyncio.run(pool.run("A", "a", lambda: 2))


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"threads": 0}, "threads must be an int >= 1"),
        ({"threads": 2.0}, "threads must be an int >= 1"),
        ({"threads": 1, "per_client": 0}, "per_client must be an int >= 1"),
        ({"threads": 1, "max_queued": -1}, "max_queued must be an int >= 0"),
        ({"threads": 1, "max_queued_per_client": True}, "max_queued_per_client must be"),
    ],
)
def test_bad_sizes_are_refused(arguments: dict[str, Any], message: str) -> None:
    with pytest.raises(ArgumentError, match=message):
        FairPool(**arguments)


@pytest.mark.parametrize(
    ("address", "key"),
    [
        ("203.0.113.9", "203.0.113.9"),
        ("2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"),
        ("2001:DB8:1:2::", "2001:db8:1:2::/64"),
        ("2001:db8:1:3::1", "2001:db8:1:3::/64"),
        ("::1", "::/64"),
        ("::ffff:203.0.113.9", "203.0.113.9"),
        ("::ffff:cb00:7109", "203.0.113.9"),
        ("fe80::1%eth0", "fe80::/64"),
        ("", ""),
        ("not an address", "not an address"),
        ("1.2.3.4.5", "1.2.3.4.5"),
        ("y" * 65, "y" * 64),
    ],
)
def test_client_key(address: str, key: str) -> None:
    assert client_key(address) == key
