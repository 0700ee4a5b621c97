"""The referee side of the engine protocol for asyncio: an engine's seat in
:func:`~skitgubbe.play_game_async`.

:class:`AsyncEnginePlayer` runs an :class:`~skitgubbe.engine.EnginePlayer`'s
calls in worker threads, so that the event loop never waits on the engine
process.

>>> import asyncio, sys
>>> import skitgubbe as sg
>>> from skitgubbe.engine import AsyncEnginePlayer
>>> greedy = [sys.executable, "-m", "skitgubbe", "engine", "greedy"]
>>> async def main() -> sg.GameResult:
...     async with AsyncEnginePlayer(greedy, move_time=5) as engine:
...         return await sg.play_game_async([engine, sg.bots.GreedyBot()], seed=6)
>>> asyncio.run(main()) == sg.play_game([sg.bots.GreedyBot()] * 2, seed=6)
True
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence
from typing import Any

from ..game.moves import Move
from ..game.observation import Observation
from ..game.state import GameResult
from .player import EnginePlayer

__all__ = ["AsyncEnginePlayer"]


class AsyncEnginePlayer:
    """An :class:`EnginePlayer` as an :class:`~skitgubbe.AsyncPlayer`, for
    :func:`~skitgubbe.play_game_async`: each call runs in a worker thread
    (:func:`asyncio.to_thread`), so the event loop never waits on the engine.
    Calls never overlap. Cancelling ``choose`` (the runner's own timeout, or the
    task's cancellation) kills the engine; the next game starts a fresh one.
    An :class:`~skitgubbe.EngineTimeoutError` counts as the seat's timeout
    (``on_timeout="bot"`` lets the stand-in move). The arguments are
    :class:`EnginePlayer`'s; the engine starts in :meth:`start` (or the first
    call, or ``async with``).

    >>> import asyncio, sys
    >>> import skitgubbe as sg
    >>> from skitgubbe.engine import AsyncEnginePlayer
    >>> async def main() -> sg.GameResult:
    ...     command = [sys.executable, "-m", "skitgubbe", "engine", "greedy"]
    ...     async with AsyncEnginePlayer(command, move_time=5) as engine:
    ...         return await sg.play_game_async([engine, sg.bots.GreedyBot()], seed=4)
    >>> asyncio.run(main()) == sg.play_game([sg.bots.GreedyBot()] * 2, seed=4)
    True
    """

    def __init__(self, command: str | Sequence[str], **options: Any) -> None:
        self._command = command
        self._options = options
        self._player: EnginePlayer | None = None
        self._lock = threading.Lock()

    @property
    def player(self) -> EnginePlayer | None:
        """The :class:`EnginePlayer` once started, else ``None``.

        >>> from skitgubbe.engine import AsyncEnginePlayer
        >>> AsyncEnginePlayer("skitgubbe engine greedy").player is None
        True
        """
        return self._player

    def _call(self, method: str, *args: Any) -> Any:
        with self._lock:
            if self._player is None:
                self._player = EnginePlayer(self._command, **self._options)
            if method == "start":
                return None
            return getattr(self._player, method)(*args)

    async def start(self) -> None:
        """Start the engine and do the handshake (in a worker thread).

        >>> import asyncio, sys
        >>> from skitgubbe.engine import AsyncEnginePlayer
        >>> engine = AsyncEnginePlayer([sys.executable, "-m", "skitgubbe", "engine", "greedy"])
        >>> async def main() -> str | None:
        ...     await engine.start()
        ...     await engine.aclose()
        ...     return engine.player.id.name if engine.player and engine.player.id else None
        >>> asyncio.run(main())
        'greedy'
        """
        await asyncio.to_thread(self._call, "start")

    async def game_started(self, observation: Observation) -> None:
        """:meth:`EnginePlayer.game_started`, in a worker thread.

        >>> import asyncio, sys
        >>> import skitgubbe as sg
        >>> from skitgubbe.engine import AsyncEnginePlayer
        >>> greedy = [sys.executable, "-m", "skitgubbe", "engine", "greedy"]
        >>> async def main() -> bool:
        ...     async with AsyncEnginePlayer(greedy) as e:
        ...         await e.game_started(sg.Game.new(seed=1).observation(0))
        ...         return e.player is not None and e.player.running
        >>> asyncio.run(main())
        True
        """
        await asyncio.to_thread(self._call, "game_started", observation)

    async def choose(self, observation: Observation) -> Move:
        """:meth:`EnginePlayer.choose`, in a worker thread; cancelled, it kills the engine.

        >>> import asyncio, sys
        >>> import skitgubbe as sg
        >>> from skitgubbe.engine import AsyncEnginePlayer
        >>> game = sg.Game.new(seed=2)
        >>> greedy = [sys.executable, "-m", "skitgubbe", "engine", "greedy"]
        >>> async def main() -> sg.Move:
        ...     async with AsyncEnginePlayer(greedy) as e:
        ...         return await e.choose(game.observation(0))
        >>> print(asyncio.run(main()))
        4♥
        """
        work = asyncio.ensure_future(asyncio.to_thread(self._call, "choose", observation))
        try:
            return await asyncio.shield(work)
        except asyncio.CancelledError:
            if self._player is not None:
                self._player.kill()  # the thread's read ends at once
            await asyncio.wait({work})
            if not work.cancelled():
                work.exception()  # retrieved: the kill's EngineError, expected
            raise

    async def game_ended(self, observation: Observation, result: GameResult) -> None:
        """:meth:`EnginePlayer.game_ended`, in a worker thread.

        >>> import asyncio, sys
        >>> import skitgubbe as sg
        >>> from skitgubbe.engine import AsyncEnginePlayer
        >>> greedy = [sys.executable, "-m", "skitgubbe", "engine", "greedy"]
        >>> async def main() -> sg.GameResult:
        ...     async with AsyncEnginePlayer(greedy) as e:
        ...         return await sg.play_game_async([e, e], seed=5)
        >>> asyncio.run(main()).loser in (0, 1, None)
        True
        """
        await asyncio.to_thread(self._call, "game_ended", observation, result)

    async def aclose(self) -> None:
        """Close the engine (:meth:`EnginePlayer.close`), in a worker thread. Idempotent.

        >>> import asyncio, sys
        >>> from skitgubbe.engine import AsyncEnginePlayer
        >>> engine = AsyncEnginePlayer([sys.executable, "-m", "skitgubbe", "engine", "greedy"])
        >>> asyncio.run(engine.aclose())
        """
        player = self._player
        if player is not None:
            if self._lock.locked():  # a call is blocked on the engine: end it now
                player.kill()
            await asyncio.to_thread(self._close)

    def _close(self) -> None:
        with self._lock:
            if self._player is not None:
                self._player.close()

    async def __aenter__(self) -> AsyncEnginePlayer:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    def __repr__(self) -> str:
        return f"AsyncEnginePlayer({self._command!r})"
