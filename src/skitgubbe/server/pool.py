"""A fair pool of worker threads for the server's searches: a share per client, a turn per table.

The tables' bots, the hints and the reviews search in worker threads (a search releases
the GIL), so the event loop serves everyone else meanwhile. A plain
:class:`~concurrent.futures.ThreadPoolExecutor` runs them first come, first served: one
client with twelve tables of long searches fills its queue, and every other table's
search waits behind all of them. A :class:`FairPool` gives the threads out by turns
instead:

- **round robin over the clients** that have jobs waiting: when a client's job starts,
  the client goes to the back of the line, behind every other client that has work
  waiting (a client that had nothing waiting joins at the back too);
- **round robin over a client's tables**, and the jobs of one table in the order they
  came (first in, first out);
- **a share per client**: a client never runs more than ``per_client`` jobs at once, so
  one client never holds every thread while ``per_client < threads``;
- **bounds on the waiting**: past ``max_queued_per_client`` waiting jobs of one client,
  or ``max_queued`` in all, :meth:`FairPool.run` refuses at once
  (:class:`PoolFullError`, 429 or 503 with a ``Retry-After``) and queues nothing.

The guarantee. Let ``L`` be the longest job that runs meanwhile (a job whose caller
has gone counts too: it holds its thread until it returns) and ``n`` the threads:

1. *No idle thread while someone may start:* a job waits only while every thread is
   busy or its own client already runs ``per_client`` jobs.
2. *Across clients:* when a job is its client's next (see 3) and its client runs fewer
   than ``per_client`` jobs, only the other clients ahead of it in the line start a job
   before it, each at most one: at most ``k`` jobs, ``k`` being the number of other
   clients with jobs waiting. Every thread that comes free goes to one of them or to
   it, and each thread comes free within ``L``, so it starts within
   ``ceil((k + 1) / n) × L`` (with one thread: the job running when it came, then at
   most one job of each client ahead). If the other clients' shares leave a thread
   over (``per_client × others < n``: ``threads=2, per_client=1`` and one other client),
   a client that runs nothing starts at once, however many jobs the others have waiting.
3. *Within a client:* its tables take turns, so a job waits behind at most one job of
   each of its client's other tables with work waiting (one round), and behind the
   jobs of its own table that came before it. A client at its share waits for its own
   jobs to finish: beyond 2, a client is delayed only by its own work.

Cancelling the task that awaits :meth:`FairPool.run` withdraws a job that is still
waiting (it never runs: a hint whose turn has ended is dropped this way). A job already
running cannot be stopped from outside its thread: it finishes there, and its result,
or its exception, is dropped without a word (nothing is logged); its thread and its
client's share stay taken until it returns.

Everything is dispatched from the event loop's thread (a finished job reaches the loop
with :meth:`~asyncio.loop.call_soon_threadsafe`), so the pool needs no lock, and nothing
in :meth:`FairPool.run` blocks the loop. :func:`client_key` turns an address into the
client it stands for (an IPv6 client is its /64).

>>> import asyncio
>>> async def main() -> list[int]:
...     pool = FairPool(2, per_client=1)
...     try:
...         return await asyncio.gather(
...             pool.run("10.0.0.1", "t1", lambda: 6 * 7),
...             pool.run("10.0.0.2", "t2", lambda: 2 + 2),
...         )
...     finally:
...         await pool.close()
>>> asyncio.run(main())
[42, 4]
"""

from __future__ import annotations

import asyncio
import collections
import concurrent.futures
import contextlib
import functools
import ipaddress
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Final, TypeVar, cast

from ..errors import ArgumentError
from .errors import TableError

__all__ = ["RETRY_SECONDS", "FairPool", "PoolFullError", "client_key"]

T = TypeVar("T")

RETRY_SECONDS: Final = 1
"""The ``Retry-After`` of a refused job by default, in seconds: the searches the pool
runs take tenths of a second to a few seconds, so the queue moves on within about one."""

_MAX_KEY: Final = 64  # the longest client key made of something that is not an address

_WAITING: Final = 0
_RUNNING: Final = 1
_DONE: Final = 2


class PoolFullError(TableError):
    """A job the :class:`FairPool` refused without queuing it: its client has
    ``max_queued_per_client`` jobs waiting already (``status`` 429), or the pool has
    ``max_queued`` in all (503), or the pool is closed (503). ``retry_after`` is always
    set. A :class:`~skitgubbe.server.errors.TableError`, so the server answers it as one.

    >>> error = PoolFullError("you have 4 searches waiting", 429, retry_after=1)
    >>> error.status, error.code, error.retry_after
    (429, 'too_many_requests', 1)
    """

    def __init__(self, message: str, status: int, retry_after: int) -> None:
        super().__init__(message, status, retry_after=retry_after)


class _Job:
    """One call of :meth:`FairPool.run`: what to run, for whom, and its caller's future."""

    __slots__ = ("client", "future", "state", "table", "work")

    def __init__(
        self, client: str, table: str, work: Callable[[], Any], future: asyncio.Future[Any]
    ) -> None:
        self.client = client
        self.table = table
        self.work = work
        self.future = future
        self.state = _WAITING


class _Client:
    """A client's waiting jobs, by table in the order the tables take turns, and how
    many of its jobs run."""

    __slots__ = ("queued", "running", "tables")

    def __init__(self) -> None:
        self.tables: collections.OrderedDict[str, collections.deque[_Job]] = (
            collections.OrderedDict()
        )
        self.queued = 0
        self.running = 0


class FairPool:
    """Worker threads shared fairly between clients and their tables (see the module's
    documentation for the order and the guarantee).

    ``threads`` worker threads (a :class:`~concurrent.futures.ThreadPoolExecutor` of the
    pool's own, made at the first :meth:`run`, its threads named after ``name``); at most
    ``per_client`` jobs of one client at once; at most ``max_queued_per_client`` jobs of
    one client waiting and ``max_queued`` in all (``None``: no bound), past which
    :meth:`run` raises :class:`PoolFullError` with ``retry_after`` seconds. The pool
    belongs to the event loop of its first :meth:`run`; use it from that loop's thread.

    >>> import asyncio
    >>> async def main() -> tuple[int, int]:
    ...     pool = FairPool(1, max_queued_per_client=0)
    ...     first = asyncio.ensure_future(pool.run("a", "t", lambda: 1))
    ...     await asyncio.sleep(0)  # it starts at once: the thread was free
    ...     try:
    ...         await pool.run("a", "t", lambda: 2)  # it would have to wait
    ...     except PoolFullError as error:
    ...         refused = error.status
    ...     result = await first
    ...     await pool.close()
    ...     return result, refused
    >>> asyncio.run(main())
    (1, 429)
    >>> FairPool(0)
    Traceback (most recent call last):
        ...
    skitgubbe.errors.ArgumentError: threads must be an int >= 1, not 0
    """

    def __init__(
        self,
        threads: int,
        *,
        per_client: int = 1,
        max_queued: int | None = None,
        max_queued_per_client: int | None = None,
        name: str = "skitgubbe-search",
        retry_after: int = RETRY_SECONDS,
    ) -> None:
        _check_count(threads, "threads", 1)
        _check_count(per_client, "per_client", 1)
        if max_queued is not None:
            _check_count(max_queued, "max_queued", 0)
        if max_queued_per_client is not None:
            _check_count(max_queued_per_client, "max_queued_per_client", 0)
        _check_count(retry_after, "retry_after", 0)
        self.threads = threads
        self.per_client = per_client
        self.max_queued = max_queued
        self.max_queued_per_client = max_queued_per_client
        self.name = name
        self.retry_after = retry_after
        self._clients: dict[str, _Client] = {}  # every client with jobs waiting or running
        # The clients with jobs waiting, in the order they take turns (the next first).
        self._line: collections.OrderedDict[str, _Client] = collections.OrderedDict()
        self._running: set[_Job] = set()
        self._queued = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._executor: ThreadPoolExecutor | None = None
        self._closed = False

    def __repr__(self) -> str:
        return (
            f"<FairPool {self.name!r}: {len(self._running)} of {self.threads} threads busy, "
            f"{self._queued} waiting, {self.per_client} a client>"
        )

    async def run(self, client: str, table: str, work: Callable[[], T]) -> T:
        """Run ``work()`` in one of the pool's threads when the turn of ``client`` (a key
        from :func:`client_key`) and its ``table`` comes, and return what it returns (or
        raise what it raises).

        Cancelling the awaiting task withdraws the job if it is still waiting (it never
        runs); a running job finishes in its thread and its result is dropped.
        :class:`PoolFullError` at once, with nothing queued, when the job would have to
        wait past ``max_queued_per_client`` jobs of its client (429) or ``max_queued`` in
        all (503), or when the pool is closed (503).

        >>> import asyncio
        >>> async def main() -> str:
        ...     pool = FairPool(1)
        ...     try:
        ...         return await pool.run("::1", "t", lambda: "searched")
        ...     finally:
        ...         await pool.close()
        >>> asyncio.run(main())
        'searched'
        """
        loop = asyncio.get_running_loop()
        if self._closed:
            raise PoolFullError(
                "the server is shutting down: it takes no more searches", 503, self.retry_after
            )
        if self._loop is None:
            self._loop = loop
            self._executor = ThreadPoolExecutor(self.threads, thread_name_prefix=self.name)
        elif self._loop is not loop:
            raise RuntimeError(f"{self!r} belongs to another event loop")
        found = self._clients.get(client)
        starts_now = len(self._running) < self.threads and (
            found is None or found.running < self.per_client
        )
        if not starts_now:
            self._check_bounds(found)
        job = _Job(client, table, work, loop.create_future())
        self._enqueue(job, found)
        self._dispatch()
        try:
            return cast(T, await job.future)
        except asyncio.CancelledError:
            if job.state == _WAITING:
                self._withdraw(job)
            raise

    def queued(self, client: str | None = None) -> int:
        """The jobs waiting for a thread: of ``client``, or of everyone.

        >>> FairPool(1).queued(), FairPool(1).queued("10.0.0.1")
        (0, 0)
        """
        if client is None:
            return self._queued
        found = self._clients.get(client)
        return 0 if found is None else found.queued

    def running(self, client: str | None = None) -> int:
        """The jobs in the pool's threads now, of ``client`` or of everyone, including
        those whose caller has gone (they hold their thread until they return).

        >>> FairPool(1).running()
        0
        """
        if client is None:
            return len(self._running)
        found = self._clients.get(client)
        return 0 if found is None else found.running

    async def close(self) -> None:
        """Close the pool: every caller still awaiting :meth:`run` gets
        :class:`asyncio.CancelledError` (the waiting jobs never run), and the threads
        are shut down without waiting for the running jobs, which finish in their
        threads with their results dropped. Later calls of :meth:`run` are refused
        (:class:`PoolFullError`, 503). Closing twice does nothing more.

        >>> import asyncio
        >>> pool = FairPool(1)
        >>> asyncio.run(pool.close())
        >>> asyncio.run(pool.run("a", "t", lambda: 1))  # doctest: +ELLIPSIS
        Traceback (most recent call last):
            ...
        skitgubbe.server.pool.PoolFullError: the server is shutting down: ...
        """
        if self._closed:
            return
        self._closed = True
        for found in self._line.values():
            for jobs in found.tables.values():
                for job in jobs:
                    job.state = _DONE
                    job.future.cancel()
            found.tables.clear()
            found.queued = 0
        self._line.clear()
        self._queued = 0
        for job in self._running:
            job.future.cancel()
        for key in [key for key, found in self._clients.items() if not found.running]:
            del self._clients[key]
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)

    # -- the turns -------------------------------------------------------------------

    def _check_bounds(self, found: _Client | None) -> None:
        """Refuse a job that would wait past a bound (:class:`PoolFullError`)."""
        bound = self.max_queued_per_client
        if bound is not None and (0 if found is None else found.queued) >= bound:
            raise PoolFullError(
                f"you have {bound} searches waiting already: ask again once they are done",
                429,
                self.retry_after,
            )
        if self.max_queued is not None and self._queued >= self.max_queued:
            raise PoolFullError(
                f"the server has {self.max_queued} searches waiting: "
                f"ask again in {self.retry_after} s",
                503,
                self.retry_after,
            )

    def _enqueue(self, job: _Job, found: _Client | None) -> None:
        """Put ``job`` at the end of its table's queue; its client joins the line at the
        back if it had nothing waiting, its table its client's turns likewise."""
        if found is None:
            found = self._clients[job.client] = _Client()
        jobs = found.tables.get(job.table)
        if jobs is None:
            jobs = found.tables[job.table] = collections.deque()
        jobs.append(job)
        found.queued += 1
        self._queued += 1
        if job.client not in self._line:
            self._line[job.client] = found

    def _withdraw(self, job: _Job) -> None:
        """Take a waiting ``job`` out of its queue (its caller was cancelled)."""
        found = self._clients[job.client]
        jobs = found.tables[job.table]
        jobs.remove(job)
        if not jobs:
            del found.tables[job.table]
        if not found.tables:
            del self._line[job.client]
        found.queued -= 1
        self._queued -= 1
        job.state = _DONE
        self._forget_if_idle(job.client, found)

    def _forget_if_idle(self, key: str, found: _Client) -> None:
        if not found.queued and not found.running:
            del self._clients[key]

    def _dispatch(self) -> None:
        """Start waiting jobs while a thread is free and a client in the line may run
        one more: the first such client, its next table's oldest job."""
        while len(self._running) < self.threads and self._line and not self._closed:
            turn = next(
                (item for item in self._line.items() if item[1].running < self.per_client),
                None,
            )
            if turn is None:  # every client waiting runs its share already
                return
            key, found = turn
            table, jobs = next(iter(found.tables.items()))
            job = jobs.popleft()
            if jobs:
                found.tables.move_to_end(table)
            else:
                del found.tables[table]
            if found.tables:
                self._line.move_to_end(key)
            else:
                del self._line[key]
            found.queued -= 1
            self._queued -= 1
            self._start(job, found)

    def _start(self, job: _Job, found: _Client) -> None:
        """Run ``job`` in a thread; its end comes back to the loop (:meth:`_finished`)."""
        assert self._executor is not None and self._loop is not None
        try:
            running = self._executor.submit(job.work)
        except RuntimeError as error:  # the interpreter is shutting down
            job.state = _DONE
            self._forget_if_idle(job.client, found)
            if not job.future.done():
                job.future.set_exception(error)
            return
        job.state = _RUNNING
        found.running += 1
        self._running.add(job)
        running.add_done_callback(functools.partial(_back_to_loop, self._loop, self, job))

    def _finished(self, job: _Job, done: concurrent.futures.Future[Any]) -> None:
        """In the loop's thread: ``job`` returned; give its caller the result (unless
        the caller has gone) and its thread to the next job."""
        job.state = _DONE
        self._running.discard(job)
        found = self._clients.get(job.client)
        if found is not None:
            found.running -= 1
            self._forget_if_idle(job.client, found)
        if not job.future.done():
            if done.cancelled():
                job.future.cancel()
            else:
                error = done.exception()
                if error is None:
                    job.future.set_result(done.result())
                elif isinstance(error, StopIteration):  # a future cannot hold one
                    job.future.set_exception(RuntimeError(f"the job raised {error!r}"))
                else:
                    job.future.set_exception(error)
        self._dispatch()


def _back_to_loop(
    loop: asyncio.AbstractEventLoop,
    pool: FairPool,
    job: _Job,
    done: concurrent.futures.Future[Any],
) -> None:
    """In the worker thread: hand the finished ``job`` back to the loop's thread."""
    with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits any more
        loop.call_soon_threadsafe(pool._finished, job, done)


def _check_count(value: object, what: str, least: int) -> None:
    if type(value) is not int or value < least:
        raise ArgumentError(f"{what} must be an int >= {least}, not {value!r}")


def client_key(address: str) -> str:
    """The client an address stands for, as the pool's and the server's quotas count
    clients: an IPv4 address as it is; an IPv6 address by its /64 (one site, or one
    home, gets a /64 to itself: its addresses are one client); an IPv4-mapped IPv6
    address as the IPv4 address it maps; anything else (not an address) as itself, cut
    to 64 characters.

    >>> client_key("192.0.2.7")
    '192.0.2.7'
    >>> client_key("2001:db8:1:2:aaaa:bbbb:cccc:dddd")
    '2001:db8:1:2::/64'
    >>> client_key("2001:db8:1:2::1") == client_key("2001:db8:1:2:ffff::9")
    True
    >>> client_key("::ffff:192.0.2.7")
    '192.0.2.7'
    >>> client_key("fe80::1%eth0")  # the zone is not part of the client
    'fe80::/64'
    >>> client_key("unix socket"), len(client_key("x" * 100))
    ('unix socket', 64)
    """
    try:
        parsed = ipaddress.ip_address(address)
    except ValueError:
        return address[:_MAX_KEY]
    if isinstance(parsed, ipaddress.IPv4Address):
        return str(parsed)
    mapped = parsed.ipv4_mapped
    if mapped is not None:
        return str(mapped)
    prefix = int(parsed) >> 64 << 64  # without the zone, if any
    return str(ipaddress.IPv6Network((prefix, 64)))
