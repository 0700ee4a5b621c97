"""The engine protocol, both sides: a bot in another process plays a seat.

An *engine* is a program that plays over the protocol of ``docs/protocol.md``:
JSON lines on its standard input and output. This package holds both sides:

- the referee side, which starts an engine and asks it for moves:
  :class:`EnginePlayer` (:mod:`skitgubbe.engine.player`), its asyncio seat
  :class:`AsyncEnginePlayer` (:mod:`skitgubbe.engine.async_player`), and the
  process beneath them with its :class:`Limits`
  (:mod:`skitgubbe.engine.process`, with the keeper of
  :mod:`skitgubbe.engine.keeper` on Linux);
- the engine side, which runs a Python bot as an engine: :func:`run_engine`
  (:mod:`skitgubbe.engine.host`; ``skitgubbe engine SPEC`` finds the bot
  with :func:`skitgubbe.bots.run_engine_spec`);
- the messages both sides write and read: :mod:`skitgubbe.engine.protocol`.

The submodules load on first use of one of their names, so that an engine
started with ``skitgubbe engine`` does not load the referee's process machinery.

>>> import sys
>>> import skitgubbe as sg
>>> from skitgubbe.engine import EnginePlayer
>>> with EnginePlayer([sys.executable, "-m", "skitgubbe", "engine", "greedy"], move_time=5) as e:
...     result = sg.play_game([e, sg.bots.GreedyBot()], seed=3)
>>> result == sg.play_game([sg.bots.GreedyBot()] * 2, seed=3)
True
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from .._lazy import lazy_attributes

if TYPE_CHECKING:
    from . import async_player as async_player
    from . import host as host
    from . import player as player
    from . import process as process
    from . import protocol as protocol
    from .async_player import AsyncEnginePlayer
    from .host import Option, PlayerFactory, options_of, run_engine
    from .player import LOG_LINES, EngineId, EnginePlayer
    from .process import KEEPER, STDERR_TAIL, Limits, kill_child
    from .protocol import PROTOCOL_VERSION, ProtocolError

_LAZY: Final[dict[str, str]] = {
    "AsyncEnginePlayer": "async_player",
    **dict.fromkeys(("LOG_LINES", "EngineId", "EnginePlayer"), "player"),
    **dict.fromkeys(("KEEPER", "STDERR_TAIL", "Limits", "kill_child"), "process"),
    **dict.fromkeys(("Option", "PlayerFactory", "options_of", "run_engine"), "host"),
    **dict.fromkeys(("PROTOCOL_VERSION", "ProtocolError"), "protocol"),
}
"""The names this package re-exports, and the submodule of each (loaded on first use)."""

_SUBMODULES: Final = frozenset(
    ("async_player", "host", "keeper", "player", "process", "protocol", "wire")
)


if not TYPE_CHECKING:  # type checkers see the imports above, and no catch-all attribute
    __getattr__, __dir__ = lazy_attributes(__name__, _LAZY, _SUBMODULES)


__all__ = [
    "KEEPER",
    "LOG_LINES",
    "PROTOCOL_VERSION",
    "STDERR_TAIL",
    "AsyncEnginePlayer",
    "EngineId",
    "EnginePlayer",
    "Limits",
    "Option",
    "PlayerFactory",
    "ProtocolError",
    "kill_child",
    "options_of",
    "run_engine",
]
