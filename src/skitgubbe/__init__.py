"""skitgubbe: the Swedish card game Skitgubbe for Python programs and bots.

A plain-C bitboard core plays the rules (``shared/RULES.md`` in the project);
this package is its typed API.

>>> import skitgubbe as sg
>>> game = sg.Game.new(sg.Rules.classic(players=3), seed=1)
>>> game.phase, game.to_move, len(game.legal_moves())
(<Phase.COLLECTING: 0>, 0, 4)
>>> result = sg.play_game([sg.bots.RandomBot(seed=s) for s in range(3)], seed=1)
>>> result.loser is not None or result.truncated
True
"""

from __future__ import annotations

from . import bots
from .aio import (
    AsyncBot,
    AsyncPlayer,
    TableUpdate,
    play_game_async,
)
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
from .cards import Card, CardSet, Rank, Suit
from .errors import (
    ArgumentError,
    ArgumentTypeError,
    DisconnectedError,
    IllegalMoveError,
    ParseError,
    ParseTypeError,
    PlayerDisconnectedError,
    PlayerError,
    PlayerTimeoutError,
    RecordError,
    RulesError,
    SkitgubbeError,
)
from .events import Event, EventKind
from .game import RECORD_FORMAT, RECORD_VERSION, Game, GameResult
from .moves import Move, MoveKind
from .observation import History, Observation, Phase, TablePlay
from .players import Player, play_game
from .referee import Decision, PlayerCall, Referee
from .rules import (
    AllTie,
    Draw,
    DuelTie,
    LastCard,
    Pickup,
    Rules,
    TrickEnd,
    TrickMode,
    TrumpRule,
)
from .session import SESSION_FORMAT, SESSION_VERSION, Cut, Session, SessionGame, SessionResult
from .simulate import SimulationResult, simulate

__version__ = "0.1.0"

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
    "AsyncPlayer",
    "Card",
    "CardSet",
    "Crash",
    "Cut",
    "Decision",
    "DisconnectedError",
    "Draw",
    "DuelTie",
    "EntrantStats",
    "Event",
    "EventKind",
    "Game",
    "GameResult",
    "History",
    "IllegalMoveError",
    "LastCard",
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
    "Rank",
    "RecordError",
    "Referee",
    "Rules",
    "RulesError",
    "Session",
    "SessionGame",
    "SessionResult",
    "SimulationResult",
    "SkitgubbeError",
    "Suit",
    "TablePlay",
    "TableUpdate",
    "TrickEnd",
    "TrickMode",
    "TrumpRule",
    "__version__",
    "arrangements",
    "bots",
    "play_game",
    "play_game_async",
    "run_match",
    "simulate",
    "wilson_interval",
]
