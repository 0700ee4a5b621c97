"""How the tables write to the store: one group commit for the moves, and retries.

Every move is written to the store before anyone hears of it. The tables do not commit
their moves one by one: :class:`GroupCommit` makes one :meth:`Store.flush
<skitgubbe.server.store.Store.flush>` for every table that asks in the same turn of the event
loop. A write that fails with :class:`~skitgubbe.server.store.StoreError` (a full disk) is
tried again, first after :data:`RETRY_FIRST` seconds, then twice as long each time up to
:data:`RETRY_MOST` (:func:`backoff`); the tables wait meanwhile, and nothing is lost.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
from collections.abc import Callable
from typing import Final

from .store import Store, StoreError

__all__ = ["RETRY_FIRST", "RETRY_MOST", "GroupCommit", "backoff", "retrying"]

RETRY_FIRST: Final = 0.05
"""Seconds before a failed store write is tried again the first time."""
RETRY_MOST: Final = 2.0
"""The longest wait between two tries of a failed store write, in seconds."""

_log: Final = logging.getLogger("skitgubbe.server")


def backoff(delay: float) -> float:
    """The wait before the next try of a failed write, after waiting ``delay`` seconds
    before this one (``0.0`` for the first try): :data:`RETRY_FIRST`, then doubled each
    time, up to :data:`RETRY_MOST`.

    >>> waits = [0.0]
    >>> for _ in range(7):
    ...     waits.append(backoff(waits[-1]))
    >>> waits[1:]
    [0.05, 0.1, 0.2, 0.4, 0.8, 1.6, 2.0]
    """
    return min(max(2 * delay, RETRY_FIRST), RETRY_MOST)


async def retrying(write: Callable[[], None], table_id: str) -> None:
    """Make one write to the store for table ``table_id``, again and again while it fails
    with :class:`~skitgubbe.server.store.StoreError` (the caller waits meanwhile).

    >>> import asyncio
    >>> from skitgubbe.server.store import StoreError
    >>> tries = []
    >>> def write() -> None:
    ...     tries.append(len(tries))
    ...     if len(tries) < 3:
    ...         raise StoreError("the disk is full")
    >>> asyncio.run(retrying(write, "t"))
    >>> tries
    [0, 1, 2]
    """
    delay = 0.0
    while True:
        try:
            write()
            return
        except StoreError as error:
            if not delay:
                _log.warning("table %s waits for the store: %s", table_id, error)
            delay = backoff(delay)
            await asyncio.sleep(delay)


class GroupCommit:
    """One :meth:`Store.flush <skitgubbe.server.store.Store.flush>` for every table that asks
    in the same turn of the loop.

    A table that has moves to tell awaits :meth:`wait`; the first to ask schedules
    the flush for the loop's next turn, and every table that asks before then is
    answered by that one commit (a group commit: under load, one transaction
    carries the moves of many tables).

    A store whose flush waits for the network (its ``blocking`` attribute, as
    :class:`~skitgubbe.server.postgres.PostgresStore` has) is flushed in a thread of the
    commit's own, and the loop serves the tables meanwhile; one flush runs at a time, and
    the tables that ask while it runs are answered by the next, which carries every move
    appended meanwhile. An SQLite file's commit takes less than a thread's hop: it runs
    in the loop.

    A commit that fails with :class:`~skitgubbe.server.store.StoreError` (a full disk)
    leaves every move pending in the store and every table waiting: it is tried again
    after :func:`backoff`, and the tables go on once one succeeds. ``failing`` is the last
    failure while they wait, ``None`` once the store writes again.

    >>> import asyncio
    >>> from skitgubbe.server.store import SQLiteStore, StoredTable
    >>> store = SQLiteStore(":memory:")
    >>> store.create(StoredTable("t", {}, 1, [None, None]))
    >>> store.append_move("t", 0, "7♣", None)
    >>> asyncio.run(GroupCommit(store).wait())  # the move is committed when this returns
    >>> store.load()[0].moves
    ['7♣']
    """

    def __init__(self, store: Store) -> None:
        self.store = store
        self.failing: StoreError | None = None
        self._waiting: list[asyncio.Future[None]] = []
        self._scheduled = False
        self._flushing = False
        self._delay = 0.0
        # A store whose flush waits for the network (PostgresStore) flushes in a thread of
        # its own, and the loop serves the tables meanwhile; an SQLite file's commit takes
        # less than a thread's hop, and runs in the loop.
        self._thread: concurrent.futures.ThreadPoolExecutor | None = None
        if getattr(store, "blocking", False):
            self._thread = concurrent.futures.ThreadPoolExecutor(1, "skitgubbe-commit")

    async def wait(self) -> None:
        """Until a commit after this call has stored every move appended before it."""
        # A future of each waiter's own: a table cancelled while it waits cancels only its
        # own, and a waiter wakes one step after the commit (no shield in between).
        loop = asyncio.get_running_loop()
        waiter = loop.create_future()
        self._waiting.append(waiter)
        self._schedule(loop)
        await waiter

    def _schedule(self, loop: asyncio.AbstractEventLoop, delay: float = 0.0) -> None:
        if self._scheduled:
            return
        self._scheduled = True
        if delay:
            loop.call_later(delay, self._commit)
        else:
            loop.call_soon(self._commit)

    def _commit(self) -> None:
        self._scheduled = False
        if self._flushing:  # one flush at a time: the next is scheduled when it is done
            return
        loop = asyncio.get_running_loop()
        batch, self._waiting = self._waiting, []  # answered by this flush, which stores
        if self._thread is None:  # every move appended before they asked
            try:
                self.store.flush()
            except Exception as error:
                self._done(loop, batch, error)
                return
            self._done(loop, batch, None)
            return
        self._flushing = True
        flushed = loop.run_in_executor(self._thread, self.store.flush)
        flushed.add_done_callback(lambda future: self._done(loop, batch, future.exception()))

    def _done(
        self,
        loop: asyncio.AbstractEventLoop,
        batch: list[asyncio.Future[None]],
        error: BaseException | None,
    ) -> None:
        self._flushing = False
        if isinstance(error, StoreError):  # every move stays pending: try again a little later
            self._waiting = batch + self._waiting
            if all(waiter.done() for waiter in self._waiting):  # nobody waits (a shutdown)
                self._waiting = []
                return
            if self.failing is None:
                _log.warning("the store failed; tables wait until it writes again: %s", error)
            self.failing = error
            self._delay = backoff(self._delay)
            self._schedule(loop, self._delay)
            return
        if error is not None:  # a bug: every waiting table fails with it
            for waiter in batch:
                if not waiter.done():
                    waiter.set_exception(error)
        else:
            if self.failing is not None:
                _log.warning("the store writes again; the tables go on")
            self.failing, self._delay = None, 0.0
            for waiter in batch:
                if not waiter.done():
                    waiter.set_result(None)
        if self._waiting:  # those who asked while this flush ran
            self._schedule(loop)

    def close(self) -> None:
        """Let the commit thread go (a store whose flush runs in one)."""
        if self._thread is not None:
            self._thread.shutdown(wait=True)
