"""skitgubbe: the Swedish card game Skitgubbe for Python programs and bots.

A plain-C bitboard core plays the rules (``docs/rules.md`` in the project);
this package is its typed API.

``import skitgubbe`` loads the core API only: cards, rules, moves, events, the
game and its observations, players and the referee, the bots, simulation and
the errors. The orchestration layers (the evaluation package :mod:`skitgubbe.arena`,
the move-by-move review of :mod:`skitgubbe.analysis`,
:mod:`skitgubbe.play.session`, the asyncio runner :mod:`skitgubbe.play.aio` and the
engine protocol of :mod:`skitgubbe.engine`, bots in processes of their own,
with their asyncio, process pools, subprocesses and csv) load the first time one of their names
is read, so ``sg.run_match`` works without an import of its own.

>>> import skitgubbe as sg
>>> game = sg.Game.new(sg.Rules.classic(players=3), seed=1)
>>> game.phase, game.to_move, len(game.legal_moves)
(<Phase.COLLECTING: 0>, 0, 4)
>>> result = sg.play_game([sg.bots.RandomBot(seed=s) for s in range(3)], seed=1)
>>> result.loser is not None or result.truncated
True
>>> sg.run_match(["random", "random"], deals=1, seed=0).deals  # loads skitgubbe.arena
1
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from . import _moved, bots
from ._lazy import lazy_attributes
from ._version import __version__
from .errors import (
    ArgumentError,
    ArgumentTypeError,
    ConcurrentUseError,
    DisconnectedError,
    EngineError,
    EngineTimeoutError,
    IllegalActionError,
    IllegalMoveError,
    ParseError,
    ParseTypeError,
    PlayerDisconnectedError,
    PlayerError,
    PlayerTimeoutError,
    PolicyError,
    RecordError,
    RulesError,
    SkitgubbeError,
    StateError,
)
from .game import actions
from .game.cards import Card, CardSet, Rank, Suit
from .game.events import Event, EventKind
from .game.moves import Move, MoveKind
from .game.observation import History, Observation, Phase, TablePlay
from .game.rules import (
    AllTie,
    Draw,
    DuelTie,
    LastCard,
    Pickup,
    RuleField,
    Rules,
    TrickEnd,
    TrickMode,
    TrumpRule,
)
from .game.state import RECORD_FORMAT, RECORD_VERSION, Events, Game, GameResult
from .play.players import Player, play_game
from .play.referee import Decision, PlayerCall, Referee
from .play.simulate import SimulationResult, simulate

if TYPE_CHECKING:
    from . import analysis as analysis
    from . import arena as arena
    from . import engine as engine
    from .arena import (
        MATCH_FORMAT,
        MATCH_VERSION,
        Crash,
        EntrantStats,
        MatchGame,
        MatchResult,
        arrangements,
        run_match,
        wilson_interval,
    )
    from .arena import ladder as ladder
    from .arena import sprt as sprt
    from .arena.ladder import LadderResult, run_ladder
    from .arena.sprt import SprtResult, run_sprt
    from .bots import policy as policy
    from .bots.policy import get_include
    from .engine import AsyncEnginePlayer, EnginePlayer, Limits
    from .play import aio as aio
    from .play import session as session
    from .play.aio import AsyncBot, AsyncPlayer, TableUpdate, play_game_async
    from .play.session import (
        SESSION_FORMAT,
        SESSION_VERSION,
        Cut,
        Session,
        SessionGame,
        SessionResult,
    )


_moved.install()  # old module paths (skitgubbe.protocol, …) import, with a warning

_LAZY: Final[dict[str, str]] = {
    **dict.fromkeys(("AsyncBot", "AsyncPlayer", "TableUpdate", "play_game_async"), "play.aio"),
    **dict.fromkeys(("AsyncEnginePlayer", "EnginePlayer", "Limits"), "engine"),
    "get_include": "bots.policy",
    **dict.fromkeys(("LadderResult", "run_ladder"), "arena.ladder"),
    **dict.fromkeys(("SprtResult", "run_sprt"), "arena.sprt"),
    **dict.fromkeys(
        (
            "MATCH_FORMAT",
            "MATCH_VERSION",
            "Crash",
            "EntrantStats",
            "MatchGame",
            "MatchResult",
            "arrangements",
            "run_match",
            "wilson_interval",
        ),
        "arena",
    ),
    **dict.fromkeys(
        ("SESSION_FORMAT", "SESSION_VERSION", "Cut", "Session", "SessionGame", "SessionResult"),
        "play.session",
    ),
}
"""The names that load their module on first use, and the module of each."""

_LAZY_MODULES: Final = frozenset(("analysis", "arena", "engine", "learn", "play"))
"""The subpackages that load on first use as attributes (``sg.arena``, …). The old flat
module names (``sg.session``, ``sg.sprt``, …) load too, as the deprecated aliases of
:data:`skitgubbe._moved.MOVED_MODULES`."""

_OLD_MODULES: Final = frozenset(
    name.removeprefix(f"{__name__}.") for name in _moved.MOVED_MODULES if name.count(".") == 1
)


if not TYPE_CHECKING:  # type checkers see the imports above, and no catch-all attribute
    __getattr__, __dir__ = lazy_attributes(__name__, _LAZY, _LAZY_MODULES, _OLD_MODULES)


__all__ = [
    "MATCH_FORMAT",
    "MATCH_VERSION",
    "RECORD_FORMAT",
    "RECORD_VERSION",
    "SESSION_FORMAT",
    "SESSION_VERSION",
    "AllTie",
    "ArgumentError",
    "ArgumentTypeError",
    "AsyncBot",
    "AsyncEnginePlayer",
    "AsyncPlayer",
    "Card",
    "CardSet",
    "ConcurrentUseError",
    "Crash",
    "Cut",
    "Decision",
    "DisconnectedError",
    "Draw",
    "DuelTie",
    "EngineError",
    "EnginePlayer",
    "EngineTimeoutError",
    "EntrantStats",
    "Event",
    "EventKind",
    "Events",
    "Game",
    "GameResult",
    "History",
    "IllegalActionError",
    "IllegalMoveError",
    "LadderResult",
    "LastCard",
    "Limits",
    "MatchGame",
    "MatchResult",
    "Move",
    "MoveKind",
    "Observation",
    "ParseError",
    "ParseTypeError",
    "Phase",
    "Pickup",
    "Player",
    "PlayerCall",
    "PlayerDisconnectedError",
    "PlayerError",
    "PlayerTimeoutError",
    "PolicyError",
    "Rank",
    "RecordError",
    "Referee",
    "RuleField",
    "Rules",
    "RulesError",
    "Session",
    "SessionGame",
    "SessionResult",
    "SimulationResult",
    "SkitgubbeError",
    "SprtResult",
    "StateError",
    "Suit",
    "TablePlay",
    "TableUpdate",
    "TrickEnd",
    "TrickMode",
    "TrumpRule",
    "__version__",
    "actions",
    "arrangements",
    "bots",
    "get_include",
    "play_game",
    "play_game_async",
    "run_ladder",
    "run_match",
    "run_sprt",
    "simulate",
    "wilson_interval",
]
