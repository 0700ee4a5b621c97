"""A table's spectators, and what is held back for them: one ordered queue a table.

A table that shows its game ``spectator_delay`` seconds late queues each frame for its
spectators, and each change of what the lobby shows, in one queue in the order they
happen; one task a table sends each when it is due. A spectator is sent the frames queued
after it came (its welcome holds what came before), and a spectator who leaves frees what
was held back for it alone (its welcome, if it was still waiting), and the last one to
leave frees every frame held back for spectators: the memory a table holds for them is
bounded by its own frames in the delay, never by the spectators who came and went.

>>> import asyncio
>>> class Recorder:
...     def __init__(self) -> None:
...         self.sent: list = []
...     async def send(self, message) -> None:
...         self.sent.append(message["n"])
...     async def close(self, reason: str) -> None:
...         pass
>>> async def main() -> list:
...     shown = []
...     spectators = Spectators(0.01, shown.append)
...     viewer = Recorder()
...     spectators.add(viewer)
...     await spectators.send({"n": 1})
...     spectators.show((1, None, False))
...     await asyncio.sleep(0.1)
...     return viewer.sent + shown
>>> asyncio.run(main())
[1, (1, None, False)]
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import inspect
import weakref
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, Final

import attrs

if TYPE_CHECKING:
    from .tables import Connection

__all__ = ["MAX_DELAYED", "Shown", "Spectators"]

MAX_DELAYED: Final = 20_000
"""The most items a table holds back (``spectator_delay``); past it the oldest goes out
early. A game's moves are bounded, and so is this."""

Shown = tuple[int, dict[str, Any] | None, bool]
"""What the lobby shows of a table: its moves, its result, whether it is over."""


@attrs.frozen
class _Delayed:
    """A frame (for every spectator, or for ``to`` alone) or a lobby view, held back."""

    due: float
    number: int
    to: Connection | None
    message: Mapping[str, Any] | None
    shown: Shown | None
    first: tuple[int, int] | None = None  # the numbers of the message's first move and event


class Spectators:
    """The spectators of one table, and the items held back ``delay`` seconds for them
    (``show`` is called with each lobby view when it is due).

    >>> spectators = Spectators(0.0, print)
    >>> len(spectators), spectators.held()
    (0, 0)
    """

    def __init__(self, delay: float, show: Callable[[Shown], None]) -> None:
        self.delay = delay
        # A table's own method, held weakly: no cycle between a table and its spectators,
        # so a finished table is freed when the lobby lets it go, not at a full collection.
        self._shows: Callable[[], Callable[[Shown], None] | None] = (
            weakref.WeakMethod(show) if inspect.ismethod(show) else lambda: show
        )
        self._joined: dict[Connection, int] = {}  # each spectator, with the count it came at
        self._known: dict[Connection, tuple[int, int]] = {}  # the moves and events it knows
        self._queue: collections.deque[_Delayed] = collections.deque()
        self._count = 0
        self._drain: asyncio.Task[None] | None = None

    def __len__(self) -> int:
        return len(self._joined)

    def __iter__(self) -> Iterator[Connection]:
        return iter(list(self._joined))

    def __contains__(self, connection: object) -> bool:
        return connection in self._joined

    def _show(self, shown: Shown) -> None:
        show = self._shows()
        if show is not None:
            show(shown)

    def held(self) -> int:
        """How many items are held back."""
        return len(self._queue)

    def add(self, connection: Connection, moves: int = 0, events: int = 0) -> None:
        """A spectator came: it is sent the frames queued from now on, without the first
        ``moves`` moves and ``events`` events of the game (its welcome has them)."""
        self._joined[connection] = self._count
        self._known[connection] = (moves, events)

    def discard(self, connection: Connection) -> None:
        """A spectator left: what was held back for it alone goes, and once nobody watches,
        every frame held back for spectators (what the lobby shows stays queued)."""
        self._known.pop(connection, None)
        if self._joined.pop(connection, None) is None:
            return
        if not self._joined:
            self._queue = collections.deque(d for d in self._queue if d.shown is not None)
        elif any(d.to is connection for d in self._queue):
            self._queue = collections.deque(d for d in self._queue if d.to is not connection)

    async def send(
        self,
        message: Mapping[str, Any],
        to: Connection | None = None,
        *,
        first: tuple[int, int] | None = None,
    ) -> None:
        """Send ``message`` to every spectator (or ``to`` alone), ``delay`` seconds late.
        ``first``: the numbers of the first move and event of its ``moves`` and ``events``
        (each spectator is sent those it does not know yet)."""
        if not self.delay:
            for connection in [to] if to is not None else list(self._joined):
                await quietly(connection.send(self._new_to(connection, message, first)))
            return
        self._hold(_Delayed(0.0, 0, to, message, None, first))

    def _new_to(
        self, connection: Connection, message: Mapping[str, Any], first: tuple[int, int] | None
    ) -> Mapping[str, Any]:
        """``message`` without the moves and events ``connection`` knows already (those its
        welcome held, when it came while moves were being stored)."""
        known = self._known.get(connection)
        if first is None or known is None:
            return message
        moves, events = message.get("moves", []), message.get("events", [])
        self._known[connection] = (
            max(known[0], first[0] + len(moves)),
            max(known[1], first[1] + len(events)),
        )
        if known[0] <= first[0] and known[1] <= first[1]:
            return message
        return {
            **message,
            "moves": moves[max(0, known[0] - first[0]) :],
            "events": events[max(0, known[1] - first[1]) :],
        }

    def show(self, shown: Shown) -> None:
        """What the lobby shows, ``delay`` seconds late."""
        if not self.delay:
            self._show(shown)
            return
        self._hold(_Delayed(0.0, 0, None, None, shown))

    def _hold(self, item: _Delayed) -> None:
        loop = asyncio.get_running_loop()
        self._count += 1
        self._queue.append(attrs.evolve(item, due=loop.time() + self.delay, number=self._count))
        if len(self._queue) > MAX_DELAYED:
            self._queue[0] = attrs.evolve(self._queue[0], due=0.0)
        if self._drain is None or self._drain.done():
            self._drain = loop.create_task(self._send_due())

    async def _send_due(self) -> None:
        """Send each held-back item when it is due, in order, until none is left."""
        loop = asyncio.get_running_loop()
        while self._queue:
            first = self._queue[0]
            wait = first.due - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
                continue  # the queue may have changed meanwhile (a spectator left)
            self._queue.popleft()
            if first.shown is not None:
                self._show(first.shown)
            elif first.to is not None:
                if first.to in self._joined and first.message is not None:
                    await quietly(first.to.send(first.message))
            elif first.message is not None:
                for connection, joined in list(self._joined.items()):
                    if joined < first.number:
                        message = self._new_to(connection, first.message, first.first)
                        await quietly(connection.send(message))

    async def close(self, reason: str | None = None) -> None:
        """Stop sending and forget everything held back; with a ``reason``, close every
        spectator's socket with it."""
        if self._drain is not None:
            self._drain.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._drain
            self._drain = None
        self._queue.clear()
        if reason is not None:
            for connection in list(self._joined):
                await quietly(connection.close(reason))
            self._joined.clear()
            self._known.clear()


async def quietly(call: Any) -> None:
    """Await a send or a close; a viewer that has gone is not the table's failure."""
    with contextlib.suppress(ConnectionError, RuntimeError, asyncio.CancelledError):
        await call
