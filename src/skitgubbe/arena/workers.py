"""Playing a match's games in other processes: the match's own worker processes,
watched through shared memory so that a call into a bot that never returns is
stopped, and any :class:`~concurrent.futures.Executor` (a process pool, a Dask
client's).

Each worker of :func:`play_in_workers` plays the games it is sent with
:func:`~skitgubbe.arena.runner.play_match_game` and writes, into a small shared
array, which bot it is calling and since when; the parent stops a worker whose
call overruns the time limit (plus a grace), and replaces a worker that dies:
the bot in its call loses that game. :func:`play_units` runs deal sets of any
tables as tasks, for sequential tests and ladders.

>>> from concurrent.futures import ThreadPoolExecutor
>>> from skitgubbe.arena.runner import make_plan
>>> plan = make_plan(["greedy", "random"], None, 7, None, False)
>>> with ThreadPoolExecutor(2) as pool:
...     played = play_units([(0, plan, 0)], jobs=None, executor=pool, chunk_size=None,
...                         discarded=[])
...     [(key, len(games)) for key, games in played]
[(0, 2)]
"""

from __future__ import annotations

import collections
import contextlib
import itertools
import multiprocessing
import multiprocessing.connection
import os
import signal
import time
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, Future, ProcessPoolExecutor, wait
from multiprocessing.connection import Connection
from typing import Any, Final, TypeAlias, TypeVar

from ..bots.command import BotPool
from ..errors import SkitgubbeError
from .results import Crash, CrashKind, MatchGame
from .runner import (
    METHODS,
    MatchPlan,
    Method,
    Progress,
    Publish,
    Unit,
    Watch,
    check_registered,
    late_error,
    lost_game,
    one_line,
    play_match_game,
    play_sets,
)

__all__ = ["Job", "completed", "play_in_workers", "play_units"]

_T = TypeVar("_T")


def _play_chunk(plan: MatchPlan, deals: Sequence[int]) -> list[list[MatchGame]]:
    """The games of each of ``deals`` (a task of :func:`play_units`)."""
    return play_sets(plan, deals)


def play_units(
    units: Iterable[Unit],
    *,
    jobs: int | None,
    executor: Executor | None,
    chunk_size: int | None,
    discarded: list[int],
) -> Generator[tuple[int, list[MatchGame]], None, None]:
    """Play ``units`` and yield (key, the games of the deal set) as each is done.

    In this process (``jobs`` None or 1, no ``executor``) in order; else in tasks of
    ``chunk_size`` deal sets (default 1) of one table each, in ``jobs`` worker
    processes or on ``executor``, with a few tasks per worker in flight, so that
    ``units`` may be endless. Closing the iterator cancels the tasks in flight: the
    keys of their deal sets go to ``discarded``.

    >>> from skitgubbe.arena.runner import make_plan
    >>> plan = make_plan(["greedy", "random"], None, 7, None, False)
    >>> units = [(10, plan, 0), (11, plan, 1)]
    >>> played = play_units(units, jobs=None, executor=None, chunk_size=None, discarded=[])
    >>> [(key, len(games)) for key, games in played]
    [(10, 2), (11, 2)]
    """
    if executor is None and (jobs or 1) == 1:
        with contextlib.ExitStack() as stack:
            pools: dict[int, BotPool] = {}
            for key, plan, deal in units:
                if id(plan) not in pools:
                    pools[id(plan)] = stack.enter_context(plan.pool())
                yield key, play_sets(plan, [deal], pools[id(plan)])[0]
        return
    size = chunk_size or 1
    chunks: dict[int, list[int]] = {}

    def tasks() -> Iterator[tuple[int, Callable[..., list[list[MatchGame]]], tuple[Any, ...]]]:
        batch: list[Unit] = []
        for unit in itertools.chain(units, [None]):
            if batch and (unit is None or unit[1] is not batch[0][1] or len(batch) == size):
                chunks[batch[0][0]] = [key for key, _, _ in batch]
                yield batch[0][0], _play_chunk, (batch[0][1], [deal for _, _, deal in batch])
                batch = []
            if unit is not None:
                batch.append(unit)

    with contextlib.ExitStack() as stack:
        if executor is None:
            context = multiprocessing.get_context()
            executor = stack.enter_context(
                ProcessPoolExecutor(jobs, mp_context=context, initializer=_ignore_ctrl_c)
            )
        window = 2 * (jobs or os.cpu_count() or 1)
        lost: list[int] = []
        try:
            for first, sets in completed(executor, tasks(), window, lost):
                for key, games in zip(chunks.pop(first), sets, strict=True):
                    yield key, games
        finally:
            discarded.extend(key for first in lost for key in chunks[first])


def completed(
    executor: Executor,
    calls: Iterable[tuple[int, Callable[..., _T], tuple[Any, ...]]],
    window: int | None = None,
    discarded: list[int] | None = None,
) -> Iterator[tuple[int, _T]]:
    """Run ``calls`` (key, function, arguments) on ``executor``; yield (key, result) as
    each finishes, with at most ``window`` calls in flight (None: all at once).

    Closing the iterator early cancels what is in flight; the keys of the calls
    that were submitted but not yet taken go to ``discarded``.

    >>> from concurrent.futures import ThreadPoolExecutor
    >>> with ThreadPoolExecutor(2) as pool:
    ...     sorted(completed(pool, [(1, abs, (-1,)), (2, abs, (-2,))]))
    [(1, 1), (2, 2)]
    """
    pending = iter(calls)
    futures: dict[Future[_T], int] = {}

    def submit() -> None:
        while window is None or len(futures) < window:
            call = next(pending, None)
            if call is None:
                return
            key, function, args = call
            futures[executor.submit(function, *args)] = key

    try:
        submit()
        while futures:
            done, _ = wait(futures, return_when=FIRST_COMPLETED)
            for future in sorted(done, key=futures.__getitem__):
                key = futures.pop(future)
                yield key, future.result()
            submit()
    finally:
        for future in futures:
            future.cancel()
        if discarded is not None:
            discarded.extend(sorted(futures.values()))


_GRACE: Final = 0.5
"""Seconds a worker's call may run past the time limit before the worker is stopped (the
worker itself catches a late answer; the parent stops only calls that do not return)."""

_ENGINES: Final = 11
"""Where a worker's slot holds the process ids of its engines (0: none)."""
_MAX_ENGINES: Final = 8
_SLOT: Final = _ENGINES + _MAX_ENGINES
"""The shared slot of a worker: [0] calls begun, [1] 1 while in a call, [2] the seat
(-1 before the first call of a game), [3] the method (index in METHODS), [4] moves played,
[5] truncated, [6] seats out so far, [7:11] those seats, [11:19] the process ids of its
engines' keepers (or, without keepers, of the engines: each its process group's), which
the parent ends if it has to stop the worker (:func:`skitgubbe.engine.kill_child`)."""

Job: TypeAlias = tuple[int, int, int]
"""A game to play: (deal, arrangement, the task it belongs to)."""


def _slot_watch(slot: Any) -> Watch:
    """A :data:`Watch` writing into a worker's shared slot."""

    def watch(
        seat: int, method: Method, before: Sequence[int], truncated: bool, moves: int
    ) -> None:
        if seat < 0:
            slot[1] = 0.0
            return
        slot[2] = float(seat)
        slot[3] = float(METHODS.index(method))
        slot[4] = float(moves)
        slot[5] = float(truncated)
        slot[6] = float(len(before))
        for i, out in enumerate(before):
            slot[7 + i] = float(out)
        slot[0] += 1.0  # a new call (counted before it is marked busy: see _Worker.overdue)
        slot[1] = 1.0

    return watch


def _slot_publish(slot: Any) -> Publish:
    """A :data:`Publish` writing the engines' process ids into a worker's shared slot."""

    def publish(pool: BotPool) -> None:
        pids = [engine.child_pid for engine in pool.engines if engine.child_pid is not None]
        for i in range(_MAX_ENGINES):
            slot[_ENGINES + i] = float(pids[i]) if i < len(pids) else 0.0

    return publish


def _ignore_ctrl_c() -> None:
    """In a worker process: Ctrl-C is the parent's to handle (it stops the run and says so in
    a line); a worker that took it too would print its own traceback."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _work(conn: Connection, slot: Any, plan: MatchPlan) -> None:
    """A worker process: play the games of each task received, sending each game back."""
    _ignore_ctrl_c()
    publish = _slot_publish(slot)
    pool = plan.pool()
    try:
        check_registered(plan)
        watch = _slot_watch(slot)
        while (task := conn.recv()) is not None:
            for deal, arrangement in task:
                slot[2] = -1.0
                game = play_match_game(plan, pool, deal, arrangement, watch, publish)
                conn.send(("game", game))
    except EOFError:  # the parent has gone
        return
    except Exception as exc:
        try:
            conn.send(("error", exc))
        except Exception:  # the exception cannot be pickled: send its text
            conn.send(("error", SkitgubbeError(one_line(exc))))
    finally:
        for i in range(_MAX_ENGINES):  # cleared first: the parent never kills a reused id
            slot[_ENGINES + i] = 0.0
        pool.close()


def _exit_text(code: int | None) -> str:
    if code is None:
        return "exit status unknown"
    if code < 0:
        try:
            return f"killed by signal {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit code {code}"


class _Worker:
    """One worker process, its pipe, its shared slot, and the games it was given."""

    def __init__(self, context: Any, plan: MatchPlan) -> None:
        self.slot = context.RawArray("d", _SLOT)
        self.slot[2] = -1.0  # no call yet
        self.conn, child = context.Pipe()
        self.process = context.Process(
            target=_work, args=(child, self.slot, plan), name="skitgubbe-arena", daemon=True
        )
        self.process.start()
        child.close()
        self.pending: collections.deque[Job] = collections.deque()
        self.seen = -1.0  # the call count last seen, and when (parent's monotonic clock)
        self.since = time.monotonic()

    def give(self, jobs: list[Job]) -> None:
        self.pending.extend(jobs)
        self.slot[2] = -1.0  # no call in these games yet (the idle worker writes nothing)
        self.seen, self.since = self.slot[0], time.monotonic()
        # If it has died, the match sees that next and gives the jobs to another worker.
        with contextlib.suppress(OSError):
            self.conn.send([(deal, arrangement) for deal, arrangement, _ in jobs])

    def overdue(self, limit: float, now: float) -> float | None:
        """Seconds the current call has run, if it has run past ``limit`` plus the grace."""
        # Busy first, then the count: the worker counts a call before marking it busy, so
        # a busy flag read here belongs to the call counted below or to an earlier one.
        busy = self.slot[1]
        calls = self.slot[0]
        if calls != self.seen:
            self.seen, self.since = calls, now
            return None
        if busy and now - self.since > limit + _GRACE:
            return now - self.since
        return None

    def call(self) -> tuple[int, Method, tuple[int, ...], bool, int]:
        """The last call begun: (seat, method, seats out, truncated, moves); read once stopped."""
        slot = self.slot
        before = tuple(int(slot[7 + i]) for i in range(int(slot[6])))
        return int(slot[2]), METHODS[int(slot[3])], before, bool(slot[5]), int(slot[4])

    def stop(self) -> str:
        """Stop the process (if it still runs) and wait for it, then end the engines it
        left running; say how it ended."""
        if self.process.is_alive():
            self.process.kill()
        self.process.join()
        from ..engine import kill_child  # loaded by the workers, not at import

        for i in range(_MAX_ENGINES):
            pid = int(self.slot[_ENGINES + i])
            if pid > 0:
                kill_child(pid)  # the engine and all it started, daemons included
                self.slot[_ENGINES + i] = 0.0
        return _exit_text(self.process.exitcode)

    def close(self) -> None:
        self.conn.close()
        self.process.close()


def play_in_workers(
    plan: MatchPlan,
    tasks: list[list[Job]],
    workers: int,
    sets: dict[int, int],
    report: Progress | None,
    deals: int,
) -> dict[tuple[int, int], MatchGame]:
    """Play ``tasks`` in ``workers`` processes of the match's own, one task at a time each.

    A worker whose bot's call runs past ``plan.move_time`` (plus a grace) is
    stopped, and a worker that dies is replaced; either way the game it was
    playing is lost by the bot that was in a call, and its other games go to
    the replacement. ``sets`` gives each task's deal sets, for ``report``.

    >>> from skitgubbe.arena.runner import make_plan
    >>> plan = make_plan(["greedy", "random"], None, 7, 5, False)
    >>> games = play_in_workers(plan, [[(0, 0, 0), (0, 1, 0)]], 1, {0: 1}, None, 1)
    >>> sorted(games), games[0, 1].seats
    ([(0, 0), (0, 1)], ('random', 'greedy'))
    """
    context = multiprocessing.get_context()
    queue = collections.deque(tasks)
    left = dict.fromkeys(sets, 0)
    for task in tasks:
        for _, _, number in task:
            left[number] += 1
    games: dict[tuple[int, int], MatchGame] = {}
    done = 0
    fruitless = [0]  # workers ended in a row before any bot's call
    pool: list[_Worker] = []
    limit = plan.move_time
    poll = None if limit is None else min(0.05, max(0.005, limit / 4))

    def finished(job: Job, game: MatchGame) -> None:
        nonlocal done
        games[job[0], job[1]] = game
        left[job[2]] -= 1
        if left[job[2]] == 0 and report is not None:
            done += sets[job[2]]
            report(done, deals)

    def receive(worker: _Worker) -> None:
        """Take in what ``worker`` has sent."""
        while worker.pending and worker.conn.poll():
            try:
                kind, payload = worker.conn.recv()
            except (EOFError, OSError):  # it has died; nothing more to read
                return
            if kind == "error":
                raise payload
            finished(worker.pending.popleft(), payload)
            fruitless[0] = 0

    def retire(worker: _Worker, job: Job, kind: CrashKind, detail: str) -> None:
        """Drop a stopped ``worker``: if it was still playing ``job``, the bot in its last
        call loses that game (a ``kind`` crash: "died" or "timeout", with ``detail``);
        its other games go back to the queue for a new worker."""
        receive(worker)  # what it sent before it stopped
        pool.remove(worker)
        worker.close()
        seat, method, before, truncated, moves = worker.call()
        if worker.pending and worker.pending[0] == job and seat < 0:
            # It ended before any bot's call of this game (killed while idle, say): the
            # game is played again by another worker, unless that keeps happening.
            fruitless[0] += 1
            if fruitless[0] >= 3:
                raise SkitgubbeError(
                    f"worker processes keep ending ({detail}) outside any bot's call, "
                    f"last in deal {job[0]}, arrangement {job[1]}"
                )
        elif worker.pending and worker.pending[0] == job:
            worker.pending.popleft()
            spec = plan.seatings[job[1]][seat]
            if kind == "timeout":
                assert limit is not None
                error = late_error(seat, spec, limit, method)
                trace = f"{error}\n(the worker was stopped after {detail})\n"
            else:
                error = (
                    f"seat {seat} ({spec}) was in {method} when its worker process died ({detail})"
                )
                trace = error + "\n"
            crash = Crash(seat, error, trace, kind)
            finished(job, lost_game(plan, job[0], job[1], crash, before, truncated, moves))
        if worker.pending:
            queue.appendleft(list(worker.pending))
        if queue:
            pool.append(_Worker(context, plan))

    try:
        for _ in range(min(workers, len(queue))):
            pool.append(_Worker(context, plan))
        while queue or any(worker.pending for worker in pool):
            for worker in pool:
                if not worker.pending and queue:
                    worker.give(queue.popleft())
            busy = [worker for worker in pool if worker.pending]
            handles = [w.conn for w in busy] + [w.process.sentinel for w in busy]
            ready = multiprocessing.connection.wait(handles, timeout=poll)
            now = time.monotonic()
            for worker in busy:
                receive(worker)
                if not worker.pending:
                    continue
                job = worker.pending[0]
                if worker.process.sentinel in ready:
                    retire(worker, job, "died", worker.stop())
                    continue
                elapsed = None if limit is None else worker.overdue(limit, now)
                if elapsed is not None and not worker.conn.poll():
                    worker.stop()
                    retire(worker, job, "timeout", f"{elapsed:.1f} s")
    finally:
        for worker in pool:  # those not stuck in a bot end on their own; the others are killed
            with contextlib.suppress(OSError):
                worker.conn.send(None)
        deadline = time.monotonic() + 1.0
        for worker in pool:
            worker.process.join(max(0.0, deadline - time.monotonic()))
            worker.stop()
            worker.close()
    return games
