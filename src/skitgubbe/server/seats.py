"""A table's seats: the sockets of the people at them (:class:`Connection`), each seat's
state (:class:`Seat`), their tokens (:func:`hash_token`) and the seats kept for people
(:class:`Reservations`: a rematch's seats wait for the people of the old table).

>>> reservations = Reservations()
>>> reservations.keep(1, holder="ab" * 32, name="Bo", seconds=60)
>>> reservations.name(1), reservations.name(0)
('Bo', None)
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Mapping
from typing import Any, Protocol

import attrs

from ..game.moves import Move
from ..game.observation import Observation
from ..play.players import Player
from .errors import TableError
from .store import StoredSeat

__all__ = ["Connection", "Reservations", "Seat", "hash_token"]


class Connection(Protocol):
    """One viewer's socket, as a table sees it.

    >>> class Recorder:
    ...     def __init__(self) -> None:
    ...         self.sent: list = []
    ...     async def send(self, message) -> None:
    ...         self.sent.append(dict(message))
    ...     async def close(self, reason: str) -> None:
    ...         pass
    >>> import asyncio
    >>> from skitgubbe.server import Lobby, SQLiteStore
    >>> async def main() -> list:
    ...     lobby = Lobby(SQLiteStore(":memory:"))
    ...     table = lobby.create({"seats": [None, "greedy"]})
    ...     token = table.claim(0, "Ann")
    ...     recorder = Recorder()
    ...     await table.attach(table.seat_of(token), recorder)
    ...     return [message["type"] for message in recorder.sent]
    >>> asyncio.run(main())
    ['welcome']
    """

    async def send(self, message: Mapping[str, Any]) -> None:
        """Send one JSON message (raise ``ConnectionError`` when gone)."""

    async def close(self, reason: str) -> None:
        """Close the connection, saying why."""


def hash_token(token: str) -> str:
    """The SHA-256 of a seat token, as the store keeps it.

    >>> len(hash_token("secret")), hash_token("secret") == hash_token("secret")
    (64, True)
    """
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


@attrs.define(eq=False)
class Seat:
    """A seat of a table, as its :class:`~skitgubbe.Referee` seats it: a person's (whose
    answers come through :meth:`Table.submit <skitgubbe.server.Table.submit>`) or a bot's
    (asked through :meth:`choose`); the table's stand-in is one too. It has no
    ``game_started`` or ``game_ended`` hook: a seat's bot is asked for moves only.

    >>> import skitgubbe as sg
    >>> from skitgubbe import bots
    >>> seat = Seat(None, bots.make("greedy"))
    >>> seat.choose(sg.Game.new(seed=1).observation(0)) in sg.Game.new(seed=1).legal_moves
    True
    """

    claimed: StoredSeat | None
    bot: Player | None
    # An engine's process or an operator's bot: made at the seat's first move, in a
    # worker thread (it may start a program or read a file), and closed when play stops.
    start: Callable[[], Player] | None = None
    connection: Connection | None = None
    seen: int = 0  # how many of the seat's history events it has been sent
    known: int = 0  # how many moves it has been told of (its welcome's, then its updates')
    browser: str | None = None  # the claiming browser's id (its hash), in memory only

    def choose(self, observation: Observation) -> Move:
        """The seat's bot's move (a referee's turn calls this; never for a person's seat)."""
        if self.bot is None:
            raise TableError("this seat has no bot (a person's, or an engine not started)")
        return self.bot.choose(observation)


class Reservations:
    """Open seats kept for one person each, for a while: a rematch's seats, kept for the
    people of the old table (by their old token's hash) until they take them, decline or
    the time passes.

    >>> kept = Reservations()
    >>> kept.keep(0, holder="h", name="Ann", seconds=60)
    >>> kept.check(0, holder="x")
    Traceback (most recent call last):
        ...
    skitgubbe.server.errors.TableError: seat 0 is kept for Ann (a rematch) for 60 s more
    >>> kept.check(0, holder="h")
    >>> kept.drop("h"), kept.name(0)
    (True, None)
    """

    def __init__(self) -> None:
        self._kept: dict[int, tuple[str, str, float]] = {}

    def keep(self, seat: int, holder: str, name: str, seconds: float) -> None:
        """Keep ``seat`` for the person whose token hash is ``holder`` (named ``name``)."""
        self._kept[seat] = (holder, name, time.monotonic() + seconds)

    def name(self, seat: int) -> str | None:
        """The name ``seat`` is kept for, while it is, else ``None``."""
        kept = self._kept.get(seat)
        if kept is not None and kept[2] <= time.monotonic():
            del self._kept[seat]
            return None
        return None if kept is None else kept[1]

    def check(self, seat: int, holder: str | None) -> None:
        """:class:`TableError` (409) unless ``seat`` is free to take for ``holder``."""
        kept = self._kept.get(seat)
        wait = 0.0 if kept is None else kept[2] - time.monotonic()
        if kept is not None and wait > 0 and holder != kept[0]:
            raise TableError(
                f"seat {seat} is kept for {kept[1]} (a rematch) for {wait:.0f} s more", 409
            )

    def taken(self, seat: int) -> None:
        """``seat`` was taken: nothing is kept there any more."""
        self._kept.pop(seat, None)

    def drop(self, holder: str) -> bool:
        """The person whose token hash is ``holder`` declined: their seat is free to all;
        whether one was kept for them."""
        seats = [seat for seat, kept in self._kept.items() if kept[0] == holder]
        for seat in seats:
            del self._kept[seat]
        return bool(seats)
