"""Matches between bots over duplicate deals: :func:`run_match` and its :class:`MatchResult`.

Every deal of a match is played under every distinct seat arrangement of the
entrants (as in duplicate bridge), so each bot meets each hand from each seat
and the luck of the cards cancels out of the comparison. Bots are named by
their registry specs (:func:`skitgubbe.bots.make`) and made fresh for every
game from a seed derived from the match seed, so a match gives the same result
however the work is spread. ``docs/arena.md`` explains the statistics.

>>> import skitgubbe as sg
>>> result = sg.run_match(["random", "random", "random"], deals=4, seed=1)
>>> [stats.name for stats in result.stats], len(result.games)
(['random'], 4)
>>> result.stats[0].loss_rate == 1 / 3  # one loser in each game, three random seats
True
"""

from __future__ import annotations

import collections
import contextlib
import csv
import functools
import itertools
import json
import math
import multiprocessing
import multiprocessing.connection
import os
import pickle
import signal
import sys
import time
import traceback
from collections.abc import Callable, Generator, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, Future, ProcessPoolExecutor, wait
from multiprocessing.connection import Connection
from statistics import NormalDist
from typing import Any, Final, Literal, TypeAlias, TypeVar, cast

import attrs

from . import _engine
from ._files import load_json_object
from ._text import brief
from .bots import registry
from .bots.command import BotPool, EngineSpec, blinded_seed
from .errors import (
    ArgumentError,
    ArgumentTypeError,
    EngineError,
    EngineTimeoutError,
    PlayerError,
    RecordError,
    RulesError,
    SkitgubbeError,
)
from .game import Game
from .players import Player
from .referee import PlayerCall, Referee, _check_timeout
from .rules import Rules

__all__ = [
    "MATCH_FORMAT",
    "MATCH_VERSION",
    "Crash",
    "CrashKind",
    "EntrantStats",
    "MatchGame",
    "MatchResult",
    "arrangements",
    "run_match",
    "wilson_interval",
]

MATCH_FORMAT: Final = "skitgubbe-match"
"""The ``format`` field of every saved match."""
MATCH_VERSION: Final = 2
"""The version of the layout written by :meth:`MatchResult.to_dict`.

Version 2 added the match's ``timeout`` and each crash's ``kind``; version 1
files are still read (no time limit; a crash's kind is inferred from its error).
"""

CrashKind: TypeAlias = Literal["error", "illegal", "timeout", "died"]
"""How a bot lost a game: it raised, answered an illegal move, ran out of time,
or its worker process (or its engine's process) died."""

_CRASH_KINDS: Final = ("error", "illegal", "timeout", "died")

_CONFIDENCE: Final = 0.95
"""The confidence level of the loss-rate intervals of a match."""

_TASKS: Final = 200
"""By default the deal sets are cut into about this many tasks for an executor:
enough to balance the workers and report progress, few enough that per-task
overhead (pickling, scheduling) stays small next to the games."""

_PROGRESS_EVERY: Final = 3.0
"""Seconds between two progress lines on stderr."""

Progress: TypeAlias = Callable[[int, int], object]
"""Called with (deal sets done, deal sets in all) as the match goes on."""

_T = TypeVar("_T")


def wilson_interval(
    successes: float, trials: int, *, confidence: float = _CONFIDENCE
) -> tuple[float, float]:
    """The Wilson score interval of a proportion: ``successes`` out of ``trials``.

    ``successes`` may be fractional (a sum of per-trial fractions, as the arena
    uses it). The interval stays inside [0, 1] and is sensible at 0 and at
    ``trials`` successes.

    >>> [round(x, 4) for x in wilson_interval(5, 10)]
    [0.2366, 0.7634]
    >>> [round(x, 4) for x in wilson_interval(0, 10)]
    [0.0, 0.2775]
    """
    if type(trials) is not int:
        raise ArgumentTypeError(f"trials must be a positive int, not {trials!r}")
    if trials < 1:
        raise ArgumentError(f"trials must be a positive int, not {trials!r}")
    if not 0 <= successes <= trials:
        raise ArgumentError(f"successes must lie in 0..{trials}, not {successes!r}")
    if not 0 < confidence < 1:
        raise ArgumentError(f"confidence must lie strictly between 0 and 1, not {confidence!r}")
    z = NormalDist().inv_cdf((1 + confidence) / 2)
    p = successes / trials
    z2n = z * z / trials
    centre = (p + z2n / 2) / (1 + z2n)
    half = z / (1 + z2n) * math.sqrt(p * (1 - p) / trials + z2n / (4 * trials))
    return max(0.0, centre - half), min(1.0, centre + half)


def arrangements(entrants: Sequence[str]) -> tuple[tuple[str, ...], ...]:
    """Every distinct seating of ``entrants``; the first is the order given.

    Copies of one spec are interchangeable, so three different bots have six
    arrangements and one bot against two copies of another has three.

    >>> arrangements(["greedy", "random", "random"])
    (('greedy', 'random', 'random'), ('random', 'greedy', 'random'), ('random', 'random', 'greedy'))
    >>> len(arrangements(["a", "b", "c"])), len(arrangements(["a", "b", "c", "d"]))
    (6, 24)
    """
    return tuple(dict.fromkeys(itertools.permutations(tuple(entrants))))


@attrs.frozen
class Crash:
    """Why a bot lost a game without playing it out.

    ``kind`` says how (a :data:`CrashKind`): ``"error"``, it raised (while
    being made, in ``choose`` or in a hook); ``"illegal"``, it answered
    something that is not one of its legal moves; ``"timeout"``, a call took
    longer than the match's ``timeout`` (or an engine missed its deadline);
    ``"died"``, the worker process playing the game died during its call (a
    crash of native code, ``os._exit``, a kill), or the bot's engine process
    ended or could not be started. ``error`` is one line (the exception's type and message, or what
    happened, naming the seat and the bot); ``traceback`` the full text, as
    Python prints it (for a timeout or a dead worker, what is known).

    >>> crash = Crash(seat=1, error="ValueError: boom", traceback="Traceback ...")
    >>> crash.to_dict()["error"], crash.kind
    ('ValueError: boom', 'error')
    >>> late = "PlayerTimeoutError: seat 2 (greedy) did not answer within 0.5 s"
    >>> Crash(2, late, late, kind="timeout").kind
    'timeout'
    """

    seat: int
    error: str
    traceback: str
    kind: CrashKind = "error"

    def to_dict(self) -> dict[str, Any]:
        """The crash as JSON-able data.

        >>> Crash(0, "KeyError: 3", "...").to_dict()
        {'seat': 0, 'kind': 'error', 'error': 'KeyError: 3', 'traceback': '...'}
        """
        return {
            "seat": self.seat,
            "kind": self.kind,
            "error": self.error,
            "traceback": self.traceback,
        }


def _places(players: int, finish_order: Sequence[int], loser: int | None) -> tuple[float, ...]:
    """Finishing places, 1 (first out) to ``players`` (the skitgubbe).

    Seats that went out take their places in order and the loser the last; seats
    still holding cards when a game stopped without a loser of theirs (move cap,
    a crash elsewhere) share the places left, each getting their mean.
    """
    places = [0.0] * players
    out = [seat for seat in finish_order if seat != loser]
    for place, seat in enumerate(out, 1):
        places[seat] = float(place)
    last = players if loser is None else players - 1
    shared = (len(out) + 1 + last) / 2
    for seat in range(players):
        if seat not in finish_order:
            places[seat] = shared
    if loser is not None:
        places[loser] = float(players)
    return tuple(places)


@attrs.frozen
class MatchGame:
    """One game of a match: deal ``deal`` under arrangement ``arrangement``.

    ``seats`` gives the entrant (bot spec) at each seat; ``loser``,
    ``finish_order``, ``truncated`` and ``moves`` are as in
    :class:`~skitgubbe.GameResult`, except that a bot that crashed is the loser
    (the seats out before it keep their order, and it ends the finish order);
    ``crash`` says why.

    >>> game = MatchGame(0, 1, ("random", "greedy", "random"), 2, (1, 0, 2), False, 80)
    >>> game.places, game.crashed
    ((2.0, 1.0, 3.0), None)
    """

    deal: int
    arrangement: int
    seats: tuple[str, ...]
    loser: int | None
    finish_order: tuple[int, ...]
    truncated: bool
    moves: int
    crash: Crash | None = None

    @property
    def crashed(self) -> int | None:
        """The seat whose bot crashed, or ``None``.

        >>> MatchGame(0, 0, ("a", "b"), 1, (1,), False, 3, Crash(1, "E", "")).crashed
        1
        """
        return None if self.crash is None else self.crash.seat

    @property
    def places(self) -> tuple[float, ...]:
        """Each seat's finishing place: 1 = first out, ``players`` = the skitgubbe.

        Seats still holding cards when a game was truncated share the places
        left (each gets their mean).

        >>> MatchGame(0, 0, ("a", "b", "c"), None, (2,), True, 10_000).places
        (2.5, 2.5, 1.0)
        """
        return _places(len(self.seats), self.finish_order, self.loser)

    def to_dict(self) -> dict[str, Any]:
        """The game as JSON-able data.

        >>> MatchGame(3, 0, ("a", "b"), 0, (1, 0), False, 40).to_dict()["finish_order"]
        [1, 0]
        """
        return {
            "deal": self.deal,
            "arrangement": self.arrangement,
            "seats": list(self.seats),
            "loser": self.loser,
            "finish_order": list(self.finish_order),
            "truncated": self.truncated,
            "moves": self.moves,
            "crash": None if self.crash is None else self.crash.to_dict(),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> MatchGame:
        """The game :meth:`to_dict` wrote.

        >>> game = MatchGame(3, 0, ("a", "b"), 0, (1, 0), False, 40)
        >>> MatchGame.from_dict(game.to_dict()) == game
        True
        """
        return cls._from_dict(data, MATCH_VERSION)

    @classmethod
    def _from_dict(cls, data: Mapping[str, Any], version: int) -> MatchGame:
        """The game of a match record of layout ``version``."""
        if not isinstance(data, Mapping):
            raise RecordError(f"a match game is a mapping, not {type(data).__name__}")
        missing = [key for key in _GAME_KEYS if key not in data]
        if missing:
            raise RecordError(f"the match game has no {', '.join(repr(k) for k in missing)}")
        seats = data["seats"]
        if (
            not isinstance(seats, list | tuple)
            or not 2 <= len(seats) <= 4
            or not all(type(spec) is str for spec in seats)
        ):
            raise RecordError(
                f"a match game's 'seats' must be a list of 2 to 4 bot specs, not {brief(seats)}"
            )
        players = len(seats)
        deal = _record_int(data, "deal", 0)
        arrangement = _record_int(data, "arrangement", 0)
        loser = data["loser"]
        if loser is not None:
            loser = _record_int(data, "loser", 0, players)
        order = data["finish_order"]
        if (
            not isinstance(order, list | tuple)
            or not all(type(seat) is int and 0 <= seat < players for seat in order)
            or len(set(order)) != len(order)
        ):
            raise RecordError(
                f"a match game's 'finish_order' must list distinct seats 0..{players - 1}, "
                f"not {brief(order)}"
            )
        if type(data["truncated"]) is not bool:
            raise RecordError(
                f"a match game's 'truncated' must be true or false, not {brief(data['truncated'])}"
            )
        moves = _record_int(data, "moves", 0)
        crash = data["crash"]
        if crash is not None:
            keys = ("seat", "kind", "error", "traceback") if version >= 2 else _V1_CRASH_KEYS
            if not isinstance(crash, Mapping) or any(key not in crash for key in keys):
                raise RecordError(
                    f"a match game's 'crash' must be null or a mapping of "
                    f"{', '.join(keys[:-1])} and {keys[-1]}, not {brief(crash)}"
                )
            if type(crash["error"]) is not str or type(crash["traceback"]) is not str:
                raise RecordError("a match game's crash 'error' and 'traceback' must be text")
            if version >= 2:
                kind = crash["kind"]
                if type(kind) is not str or kind not in _CRASH_KINDS:
                    raise RecordError(
                        f"a match game's crash 'kind' must be one of "
                        f"{', '.join(_CRASH_KINDS)}, not {brief(kind)}"
                    )
            else:  # version 1 knew only exceptions and illegal answers (PlayerErrors)
                kind = "illegal" if crash["error"].startswith("PlayerError: ") else "error"
            crash = Crash(
                _record_int(crash, "seat", 0, players),
                crash["error"],
                crash["traceback"],
                cast(CrashKind, kind),
            )
        return cls(
            deal=deal,
            arrangement=arrangement,
            seats=tuple(seats),
            loser=loser,
            finish_order=tuple(order),
            truncated=data["truncated"],
            moves=moves,
            crash=crash,
        )


_V1_CRASH_KEYS: Final = ("seat", "error", "traceback")

_GAME_KEYS: Final = (
    "deal",
    "arrangement",
    "seats",
    "loser",
    "finish_order",
    "truncated",
    "moves",
    "crash",
)


def _record_int(data: Mapping[str, Any], key: str, low: int, high: int | None = None) -> int:
    """``data[key]`` if it is an int ``low <= value < high``, else a RecordError naming it."""
    value = data[key]
    if type(value) is not int or value < low or (high is not None and value >= high):
        allowed = f"an int >= {low}" if high is None else f"an int {low}..{high - 1}"
        raise RecordError(f"the match record's {key!r} must be {allowed}, not {brief(value)}")
    return value


@attrs.frozen
class EntrantStats:
    """One entrant's figures over a match (all copies of its spec together).

    Counts are per seat played: an entrant seated ``copies`` times in each game
    plays ``copies`` seat-games per game, so ``games`` counts seat-games and
    ``loss_rate = losses / games`` is the chance that one seat it holds is the
    skitgubbe (``1 / players`` for bots of equal strength). ``low`` and ``high``
    bound the loss rate with 95 % confidence, counting each of the
    ``deal_sets`` deal sets as one trial (see ``docs/arena.md``).
    ``mean_place`` is the mean finishing place (1 = first out), ``truncated``
    the seat-games ended by the move cap, ``crashes`` the games it lost by
    crashing. ``seat_games[s]`` and ``seat_losses[s]`` break games and losses
    down by seat.

    >>> import skitgubbe as sg
    >>> stats = sg.run_match(["random", "random"], deals=3, seed=2).stats[0]
    >>> stats.name, stats.copies, stats.games, stats.losses, stats.seat_games
    ('random', 2, 6, 3, (3, 3))
    """

    name: str
    copies: int
    deal_sets: int
    games: int
    losses: int
    loss_rate: float
    low: float
    high: float
    mean_place: float
    truncated: int
    crashes: int
    seat_games: tuple[int, ...]
    seat_losses: tuple[int, ...]

    def to_dict(self) -> dict[str, Any]:
        """The figures as JSON-able data.

        >>> import skitgubbe as sg
        >>> stats = sg.run_match(["random", "random"], deals=1, seed=2).stats[0]
        >>> sorted(stats.to_dict())[:4]
        ['copies', 'crashes', 'deal_sets', 'games']
        """
        return {
            **attrs.asdict(self),
            "seat_games": list(self.seat_games),
            "seat_losses": list(self.seat_losses),
        }


def _stats(result: MatchResult) -> tuple[EntrantStats, ...]:
    """Each entrant's figures, from the games of ``result``."""
    players = len(result.entrants)
    names = tuple(dict.fromkeys(result.entrants))
    seat_games = {name: [0] * players for name in names}
    seat_losses = {name: [0] * players for name in names}
    places = dict.fromkeys(names, 0.0)
    truncated = dict.fromkeys(names, 0)
    crashes = dict.fromkeys(names, 0)
    # Per entrant and deal set: [losses, seat-games], for the loss fraction of each set.
    sets: dict[str, dict[int, list[int]]] = {name: {} for name in names}
    for game in result.games:
        for seat, (name, place) in enumerate(zip(game.seats, game.places, strict=True)):
            loss = int(game.loser == seat)
            seat_games[name][seat] += 1
            seat_losses[name][seat] += loss
            places[name] += place
            truncated[name] += game.truncated
            crashes[name] += game.crashed == seat
            tally = sets[name].setdefault(game.deal, [0, 0])
            tally[0] += loss
            tally[1] += 1
    stats = []
    for name in names:
        played, lost = sum(seat_games[name]), sum(seat_losses[name])
        # Each deal set is one trial whose outcome is the entrant's loss fraction in it.
        fractions = [losses / games for losses, games in sets[name].values()]
        low, high = (
            wilson_interval(math.fsum(fractions), len(fractions)) if fractions else (0.0, 1.0)
        )
        stats.append(
            EntrantStats(
                name=name,
                copies=result.entrants.count(name),
                deal_sets=len(fractions),
                games=played,
                losses=lost,
                loss_rate=lost / played if played else 0.0,
                low=low,
                high=high,
                mean_place=places[name] / played if played else 0.0,
                truncated=truncated[name],
                crashes=crashes[name],
                seat_games=tuple(seat_games[name]),
                seat_losses=tuple(seat_losses[name]),
            )
        )
    return tuple(stats)


@attrs.frozen
class MatchResult:
    """What :func:`run_match` measured: every game, and the figures per entrant.

    ``entrants`` are the bot specs seat by seat as given (arrangement 0);
    ``games`` holds every game ordered by deal, then arrangement; ``timeout``
    is the match's time limit per call to a bot, in seconds (``None``: none);
    ``stats`` (one :class:`EntrantStats` per distinct spec, in order of first
    appearance) is computed from ``games``.

    >>> import skitgubbe as sg
    >>> result = sg.run_match(["random", "random"], deals=2, seed=5)
    >>> result.deals, len(result.games), result.arrangements, result.timeout
    (2, 2, (('random', 'random'),), None)
    >>> result.entrant("random").games
    4
    """

    entrants: tuple[str, ...]
    rules: Rules
    deals: int
    seed: int
    games: tuple[MatchGame, ...]
    timeout: float | None = None
    stats: tuple[EntrantStats, ...] = attrs.field(
        init=False, default=attrs.Factory(_stats, takes_self=True)
    )

    @property
    def arrangements(self) -> tuple[tuple[str, ...], ...]:
        """The seatings each deal was played under (see :func:`arrangements`).

        >>> import skitgubbe as sg
        >>> len(sg.run_match(["random", "random"], deals=1, seed=0).arrangements)
        1
        """
        return arrangements(self.entrants)

    @property
    def crashes(self) -> tuple[MatchGame, ...]:
        """The games a bot lost by crashing (each with its :class:`Crash`).

        >>> import skitgubbe as sg
        >>> sg.run_match(["random", "random"], deals=1, seed=0).crashes
        ()
        """
        return tuple(game for game in self.games if game.crash is not None)

    def entrant(self, name: str) -> EntrantStats:
        """The figures of the entrant ``name`` (a spec as given).

        >>> import skitgubbe as sg
        >>> sg.run_match(["random", "random"], deals=1, seed=0).entrant("random").copies
        2
        """
        for stats in self.stats:
            if stats.name == name:
                return stats
        raise ArgumentError(f"no entrant {name!r}; entrants: {', '.join(self.entrants)}")

    # -- saving and loading -------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The match as JSON-able data (``stats`` included for readers).

        >>> import skitgubbe as sg
        >>> data = sg.run_match(["random", "random"], deals=1, seed=0).to_dict()
        >>> data["format"], data["version"], len(data["games"]), data["timeout"]
        ('skitgubbe-match', 2, 1, None)
        """
        return {
            "format": MATCH_FORMAT,
            "version": MATCH_VERSION,
            "rng_version": _engine.RNG_VERSION,
            "entrants": list(self.entrants),
            "rules": self.rules.to_dict(),
            "deals": self.deals,
            "seed": self.seed,
            "timeout": self.timeout,
            "confidence": _CONFIDENCE,
            "stats": [stats.to_dict() for stats in self.stats],
            "games": [game.to_dict() for game in self.games],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> MatchResult:
        """The match :meth:`to_dict` wrote; ``stats`` are computed again from the games.

        Records of version 1 (before time limits) are read too: their
        ``timeout`` is ``None`` and each crash's ``kind`` is ``"illegal"`` for
        a :class:`~skitgubbe.PlayerError`, else ``"error"``.

        >>> import skitgubbe as sg
        >>> result = sg.run_match(["random", "random"], deals=2, seed=0)
        >>> MatchResult.from_dict(result.to_dict()) == result
        True
        """
        if not isinstance(data, Mapping):
            raise RecordError(f"a match record is a mapping, not {type(data).__name__}")
        if data.get("format") != MATCH_FORMAT:
            raise RecordError(f"not a match record: format is {brief(data.get('format'))}")
        version = data.get("version")
        if type(version) is not int or version not in (1, MATCH_VERSION):
            raise RecordError(
                f"match record version {brief(version)} is not supported "
                f"(this library reads versions 1 to {MATCH_VERSION})"
            )
        keys: tuple[str, ...] = ("entrants", "rules", "deals", "seed", "games")
        if version >= 2:
            keys += ("timeout",)
        missing = [key for key in keys if key not in data]
        if missing:
            raise RecordError(f"the match record has no {', '.join(repr(k) for k in missing)}")
        try:
            rules = Rules.from_dict(data["rules"])
        except RulesError as exc:
            raise RecordError(f"bad rules in the match record: {exc}") from exc
        entrants = data["entrants"]
        if (
            not isinstance(entrants, list | tuple)
            or len(entrants) != rules.players
            or not all(type(spec) is str for spec in entrants)
        ):
            raise RecordError(
                f"the match record's 'entrants' must be a list of {rules.players} bot specs, "
                f"not {brief(entrants)}"
            )
        deals = _record_int(data, "deals", 1)
        seed = _record_int(data, "seed", 0, 2**64)
        timeout = data["timeout"] if version >= 2 else None
        if timeout is not None and (
            type(timeout) not in (int, float)
            or not (timeout > 0 and (type(timeout) is int or math.isfinite(timeout)))
        ):
            raise RecordError(
                f"the match record's 'timeout' must be null or a positive number of seconds, "
                f"not {brief(timeout)}"
            )
        games = data["games"]
        if not isinstance(games, list | tuple):
            raise RecordError(f"the match record's 'games' must be a list, not {brief(games)}")
        seatings = arrangements(tuple(entrants))
        checked = []
        for index, item in enumerate(games):
            try:
                game = MatchGame._from_dict(item, version)
            except RecordError as exc:
                raise RecordError(f"bad match record: game {index}: {exc}") from exc
            if game.deal >= deals or game.arrangement >= len(seatings):
                raise RecordError(
                    f"bad match record: game {index}: deal {game.deal}, arrangement "
                    f"{game.arrangement} is not in a match of {deals} deals and "
                    f"{len(seatings)} arrangements"
                )
            if game.seats != seatings[game.arrangement]:
                raise RecordError(
                    f"bad match record: game {index}: seats {game.seats} are not arrangement "
                    f"{game.arrangement} of the entrants"
                )
            checked.append(game)
        return cls(
            entrants=tuple(entrants),
            rules=rules,
            deals=deals,
            seed=seed,
            games=tuple(checked),
            timeout=timeout,
        )

    def to_json(self) -> str:
        """:meth:`to_dict` as JSON text.

        >>> import skitgubbe as sg
        >>> sg.run_match(["random", "random"], deals=1, seed=0).to_json()[:30]
        '{"format": "skitgubbe-match", '
        """
        return json.dumps(self.to_dict(), ensure_ascii=False)

    def save_json(self, path: str) -> None:
        """Write :meth:`to_json` to ``path`` (UTF-8).

        >>> import os, tempfile, skitgubbe as sg
        >>> path = os.path.join(tempfile.mkdtemp(), "match.json")
        >>> result = sg.run_match(["random", "random"], deals=1, seed=0)
        >>> result.save_json(path)
        >>> MatchResult.load_json(path) == result
        True
        """
        _write(path, self.to_json() + "\n")

    @classmethod
    def load_json(cls, path: str) -> MatchResult:
        """The match saved in ``path`` by :meth:`save_json`.

        >>> MatchResult.load_json("/nonexistent/match.json")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
            ...
        skitgubbe.errors.SkitgubbeError: cannot read /nonexistent/match.json: ...
        """
        data = load_json_object(path, "match record")
        return cls.from_dict(data)

    def save_csv(self, path: str) -> None:
        """Write one CSV row per game to ``path``.

        Columns: ``deal``, ``arrangement``, ``seat_0`` … (the spec at each
        seat), ``loser`` (a seat, empty if none), ``loser_entrant``,
        ``finish_order`` (seats separated by spaces), ``place_0`` …,
        ``truncated`` (0/1), ``moves``, ``crashed_seat`` (empty if none),
        ``error`` (the crash's one-line error) and ``crash_kind`` (its
        :data:`CrashKind`, empty if none).

        >>> import csv, os, tempfile, skitgubbe as sg
        >>> path = os.path.join(tempfile.mkdtemp(), "games.csv")
        >>> sg.run_match(["random", "random"], deals=2, seed=0).save_csv(path)
        >>> with open(path, encoding="utf-8") as file:
        ...     rows = list(csv.DictReader(file))
        >>> len(rows), rows[0]["seat_0"], rows[0]["deal"]
        (2, 'random', '0')
        """
        seats = range(len(self.entrants))
        header = [
            "deal",
            "arrangement",
            *(f"seat_{s}" for s in seats),
            "loser",
            "loser_entrant",
            "finish_order",
            *(f"place_{s}" for s in seats),
            "truncated",
            "moves",
            "crashed_seat",
            "error",
            "crash_kind",
        ]
        rows = (
            [
                game.deal,
                game.arrangement,
                *game.seats,
                "" if game.loser is None else game.loser,
                "" if game.loser is None else game.seats[game.loser],
                " ".join(map(str, game.finish_order)),
                *(f"{place:g}" for place in game.places),
                int(game.truncated),
                game.moves,
                "" if game.crash is None else game.crash.seat,
                "" if game.crash is None else game.crash.error,
                "" if game.crash is None else game.crash.kind,
            ]
            for game in self.games
        )
        _write_csv(path, header, rows)

    def save_summary_csv(self, path: str) -> None:
        """Write one CSV row per entrant (the :class:`EntrantStats`) to ``path``.

        Columns: ``entrant``, ``copies``, ``deal_sets``, ``games``, ``losses``,
        ``loss_rate``, ``low``, ``high``, ``mean_place``, ``truncated``,
        ``crashes``, then ``seat_games_0``, ``seat_losses_0``, … per seat.

        >>> import csv, os, tempfile, skitgubbe as sg
        >>> path = os.path.join(tempfile.mkdtemp(), "summary.csv")
        >>> sg.run_match(["random", "random"], deals=2, seed=0).save_summary_csv(path)
        >>> with open(path, encoding="utf-8") as file:
        ...     [(row["entrant"], row["games"]) for row in csv.DictReader(file)]
        [('random', '4')]
        """
        seats = range(len(self.entrants))
        header = [
            "entrant",
            "copies",
            "deal_sets",
            "games",
            "losses",
            "loss_rate",
            "low",
            "high",
            "mean_place",
            "truncated",
            "crashes",
            *itertools.chain.from_iterable((f"seat_games_{s}", f"seat_losses_{s}") for s in seats),
        ]
        rows = (
            [
                s.name,
                s.copies,
                s.deal_sets,
                s.games,
                s.losses,
                s.loss_rate,
                s.low,
                s.high,
                s.mean_place,
                s.truncated,
                s.crashes,
                *itertools.chain.from_iterable(zip(s.seat_games, s.seat_losses, strict=True)),
            ]
            for s in self.stats
        )
        _write_csv(path, header, rows)

    def plot(self, path: str) -> None:
        """Draw the loss rates with their 95 % intervals as a PNG bar chart at ``path``.

        Needs matplotlib (``pip install 'skitgubbe[plot]'``); draws off-screen
        with the Agg backend. A dashed line marks the fair share ``1 / players``.

        >>> import pathlib, tempfile, skitgubbe as sg
        >>> path = pathlib.Path(tempfile.mkdtemp(), "match.png")
        >>> sg.run_match(["random", "random"], deals=2, seed=0).plot(str(path))
        >>> path.read_bytes()[:8]
        b'\\x89PNG\\r\\n\\x1a\\n'
        """
        try:
            from matplotlib.backends.backend_agg import FigureCanvasAgg
            from matplotlib.figure import Figure
        except ImportError as exc:
            raise SkitgubbeError(
                "plotting needs matplotlib: pip install 'skitgubbe[plot]'"
            ) from exc
        figure = Figure(figsize=(max(4.0, 1.3 * len(self.stats) + 2), 4.0), layout="tight")
        FigureCanvasAgg(figure)
        axes = figure.add_subplot()
        rates = [s.loss_rate for s in self.stats]
        errors = [
            [s.loss_rate - s.low for s in self.stats],
            [s.high - s.loss_rate for s in self.stats],
        ]
        positions = range(len(self.stats))
        axes.bar(positions, rates, yerr=errors, capsize=6, color="#4c72b0")
        axes.axhline(1 / len(self.entrants), color="grey", linestyle="--", linewidth=1)
        axes.set_xticks(list(positions), [s.name for s in self.stats])
        axes.set_ylim(0, max(1 / len(self.entrants), *(s.high for s in self.stats)) * 1.15)
        axes.set_ylabel("loss rate (skitgubbe per seat-game)")
        axes.set_title(
            f"{self.rules.describe()}: {self.deals} deal sets, 95 % Wilson intervals",
            fontsize=10,
        )
        figure.savefig(path, format="png")


def _write(path: str, text: str) -> None:
    try:
        with open(path, "w", encoding="utf-8") as file:
            file.write(text)
    except OSError as exc:
        raise SkitgubbeError(f"cannot write {path}: {exc.strerror or exc}") from exc


def _write_csv(path: str, header: list[str], rows: Iterator[list[Any]]) -> None:
    try:
        with open(path, "w", encoding="utf-8", newline="") as file:
            writer = csv.writer(file)
            writer.writerow(header)
            writer.writerows(rows)
    except OSError as exc:
        raise SkitgubbeError(f"cannot write {path}: {exc.strerror or exc}") from exc


# -- playing --------------------------------------------------------------------------


@attrs.frozen
class _Plan:
    """What a worker needs to play any deal set of a match (pickled once per task).

    ``factories`` carries, per spec, the factory registered in the calling
    process, so that workers which did not register the bot (spawned processes,
    remote Dask workers) play the same bot; ``None`` where the factory could
    not be pickled, and the worker's own registry is used. ``timeout`` is the
    match's time limit per call to a bot. ``engines`` gives, per spec played out
    of process (an engine spec, or every spec of an isolated match), the
    :class:`~skitgubbe.bots.EngineSpec` that runs it.
    """

    rules: Rules
    seatings: tuple[tuple[str, ...], ...]
    seed: int
    factories: tuple[tuple[str, registry.BotFactory | None], ...]
    timeout: float | None = None
    engines: tuple[tuple[str, EngineSpec], ...] = ()

    def pool(self) -> BotPool:
        """A pool for the engines of the games a process plays (close it after them)."""
        return BotPool(move_time=self.timeout, specs=dict(self.engines))

    def make(self, spec: str, seed: int) -> Player:
        factory = dict(self.factories).get(spec)
        if factory is None:
            return registry.make(spec, seed=seed)
        return factory(seed=seed, **registry.parse_spec(spec)[1])


def _portable(factory: registry.BotFactory) -> registry.BotFactory | None:
    try:
        pickle.dumps(factory)
    except Exception:  # lambdas, local classes: any pickling failure means "not portable"
        return None
    return factory


def _crash_kind(exc: BaseException) -> CrashKind:
    """How a bot that raised ``exc`` lost: an engine that ran out of time, or whose
    process ended (or would not start), lost by ``timeout`` or ``died``."""
    if isinstance(exc, EngineTimeoutError):
        return "timeout"
    if isinstance(exc, EngineError) and exc.kind in ("exit", "start", "handshake"):
        return "died"
    return "error"


def _one_line(exc: BaseException) -> str:
    try:
        message = str(exc).strip().partition("\n")[0]
    except Exception:  # a player's exception whose __str__ fails still makes a crash record
        message = "<exception str() failed>"
    return f"{type(exc).__name__}: {message}" if message else type(exc).__name__


Method: TypeAlias = Literal["make", "game_started", "choose", "game_ended"]
"""The calls into a bot's code during a game: making it, then the referee's calls."""

_METHODS: Final[tuple[Method, ...]] = ("make", "game_started", "choose", "game_ended")


def _late(seat: int, spec: str, limit: float, method: Method) -> str:
    """The one-line error of a call to the bot ``spec`` at ``seat`` that overran ``limit``."""
    if method == "choose":
        what = "did not answer"
    elif method == "make":
        what = "was not made"
    else:
        what = f"did not return from {method}"
    return f"PlayerTimeoutError: seat {seat} ({spec}) {what} within {limit} s"


def _lost_game(
    plan: _Plan,
    deal: int,
    arrangement: int,
    crash: Crash,
    before: Sequence[int],
    truncated: bool,
    moves: int,
) -> MatchGame:
    """Game (``deal``, ``arrangement``) lost by the crash's seat, after ``moves`` moves.

    ``before`` are the seats out so far (in order); they keep their places and the
    crashed seat ends the finish order.
    """
    seat = crash.seat
    return MatchGame(
        deal=deal,
        arrangement=arrangement,
        seats=plan.seatings[arrangement],
        loser=seat,
        finish_order=(*(s for s in before if s != seat), seat),
        truncated=truncated,
        moves=moves,
        crash=crash,
    )


class _LostError(Exception):
    """A bot lost the game being played: the crash says how."""

    def __init__(self, crash: Crash) -> None:
        super().__init__(crash.error)
        self.crash = crash


Watch: TypeAlias = Callable[[int, Method, Sequence[int], bool, int], object]
"""Told ``(seat, method, seats out so far, truncated, moves played)`` before each call
into a bot, and ``(-1, method, (), False, 0)`` when it returns."""


Publish: TypeAlias = Callable[[BotPool], object]
"""Told the pool after its engines start for a game and after the game (a worker
shares their process ids with its parent, which kills what a stopped worker left)."""


def _play_game(
    plan: _Plan,
    pool: BotPool,
    deal: int,
    arrangement: int,
    watch: Watch | None = None,
    publish: Publish | None = None,
) -> MatchGame:
    """Play one game with a :class:`~skitgubbe.Referee`; a bot that fails it loses it.

    A bot that raises (while being made, in ``choose`` or in a hook), answers
    anything but a legal move, or returns from a call later than
    ``plan.timeout`` (by the monotonic clock) crashes: the game ends there, lost
    by that bot. The crash keeps the bot's own exception (the
    :class:`~skitgubbe.PlayerError` itself for an illegal answer). ``watch``,
    if given, is told about every call into a bot before it is made and after
    it returns (a worker process shares this with its parent, which stops a
    call that never returns).

    Bots played out of process are engines of ``pool``, started (or started
    again after a fault) before the game, outside the time limit: a start is not
    a move, and the handshake has its own time. An engine that cannot start, or
    whose process ends during the game, loses it (``"died"``); one that runs out
    of time loses by ``"timeout"``.
    """
    seats = plan.seatings[arrangement]
    deck_seed = _engine.game_seed(plan.seed, deal)
    game = Game.new(plan.rules, seed=deck_seed)
    bot_seed = _engine.game_seed(deck_seed, arrangement)
    limit = plan.timeout

    def call(seat: int, method: Method, make: Callable[[], Any], before: Sequence[int]) -> Any:
        over = game.result
        if watch is not None:
            watch(seat, method, before, over is not None and over.truncated, game.moves_played)
        started = time.monotonic()
        try:
            answer = make()
        except Exception as exc:
            crash = Crash(seat, _one_line(exc), _traceback(exc), _crash_kind(exc))
            raise _LostError(crash) from None
        finally:
            if watch is not None:
                watch(-1, method, (), False, 0)
        if limit is not None and time.monotonic() - started > limit:
            late = _late(seat, seats[seat], limit, method)
            raise _LostError(Crash(seat, late, late + "\n", "timeout"))
        return answer

    def ask(turn: PlayerCall[Player]) -> Any:
        observation = turn.observation
        before = observation.finished if turn.method != "game_ended" else turn.args[1].finish_order
        return call(turn.seat, turn.method, turn, before)

    try:
        lineup: list[Player] = []
        copies: collections.Counter[str] = collections.Counter()
        for seat, spec in enumerate(seats):
            seed = _engine.game_seed(bot_seed, seat)
            if pool.out_of_process(spec):
                slot = copies[spec]
                copies[spec] += 1
                try:
                    pool.start(spec, slot=slot)
                except EngineError as error:
                    crash = Crash(seat, _one_line(error), _traceback(error), _crash_kind(error))
                    raise _LostError(crash) from None
                made = functools.partial(pool.make, spec, seed=seed, slot=slot)
            else:  # the same seed the pool gives an engine
                made = functools.partial(plan.make, spec, blinded_seed(seed))
            lineup.append(call(seat, "make", made, ()))
        if publish is not None:
            publish(pool)
        referee = Referee(lineup, game=game)
        for hook in referee.start():
            ask(hook)
        while (turn := referee.turn()) is not None:
            answer = ask(turn)
            try:
                referee.accept(turn, answer)
            except PlayerError as error:
                crash = Crash(turn.seat, _one_line(error), _traceback(error), "illegal")
                raise _LostError(crash) from None
        failures: list[_LostError] = []
        for hook in referee.finish():  # every bot hears the end, even after one fails
            try:
                ask(hook)
            except _LostError as lost:
                failures.append(lost)
        if failures:
            raise failures[0]
    except _LostError as lost:
        for player in lineup:  # engines hear that the game was stopped
            abandon = getattr(player, "abandon", None) if pool.owns(player) else None
            if abandon is not None:
                abandon(f"seat {lost.crash.seat} lost the game: {lost.crash.error}"[:500])
        over = game.result
        seat = lost.crash.seat
        before = over.finish_order if over is not None else game.observation(seat).finished
        truncated = over is not None and over.truncated
        return _lost_game(plan, deal, arrangement, lost.crash, before, truncated, game.moves_played)
    finally:
        if publish is not None:
            publish(pool)  # engines that failed in the game are gone
    result = referee.result
    assert result is not None
    return MatchGame(
        deal=deal,
        arrangement=arrangement,
        seats=seats,
        loser=result.loser,
        finish_order=result.finish_order,
        truncated=result.truncated,
        moves=result.moves_played,
    )


def _traceback(exc: BaseException) -> str:
    return "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))


def _check_registered(plan: _Plan) -> None:
    """Fail the match, not every game, if this process cannot make one of its bots."""
    engines = dict(plan.engines)
    for spec, factory in plan.factories:
        if spec in engines:
            continue
        if factory is None and registry.parse_spec(spec)[0] not in registry.available():
            raise SkitgubbeError(
                f"bot {spec!r} is not registered in this worker process and its factory "
                "cannot be pickled: register a module-level class or function, at import "
                "of a module the workers import"
            )


def _play_sets(
    plan: _Plan, deals: Iterable[int], pool: BotPool | None = None
) -> list[list[MatchGame]]:
    """Play the deal sets ``deals`` (each deal under every arrangement): the unit of work
    given to an executor (with engines of its own, ended with the task), or played here
    with ``pool``."""
    _check_registered(plan)
    with contextlib.ExitStack() as stack:
        if pool is None:
            pool = stack.enter_context(plan.pool())
        return [
            [_play_game(plan, pool, deal, arrangement) for arrangement in range(len(plan.seatings))]
            for deal in deals
        ]


def _play_deals(plan: _Plan, first: int, stop: int, pool: BotPool | None = None) -> list[MatchGame]:
    """The games of deal sets ``first`` to ``stop - 1``, in order (see :func:`_play_sets`)."""
    return list(itertools.chain.from_iterable(_play_sets(plan, range(first, stop), pool)))


Unit: TypeAlias = tuple[int, _Plan, int]
"""A deal set to play: (its key, the plan of its table, its deal)."""


def _play_chunk(plan: _Plan, deals: Sequence[int]) -> list[list[MatchGame]]:
    """The games of each of ``deals`` (a task of :func:`_play_units`)."""
    return _play_sets(plan, deals)


def _play_units(
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
    """
    if executor is None and (jobs or 1) == 1:
        with contextlib.ExitStack() as stack:
            pools: dict[int, BotPool] = {}
            for key, plan, deal in units:
                if id(plan) not in pools:
                    pools[id(plan)] = stack.enter_context(plan.pool())
                yield key, _play_sets(plan, [deal], pools[id(plan)])[0]
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
            for first, sets in _completed(executor, tasks(), window, lost):
                for key, games in zip(chunks.pop(first), sets, strict=True):
                    yield key, games
        finally:
            discarded.extend(key for first in lost for key in chunks[first])


# -- worker processes the match can stop --------------------------------------------------

_GRACE: Final = 0.5
"""Seconds a worker's call may run past the time limit before the worker is stopped (the
worker itself catches a late answer; the parent stops only calls that do not return)."""

_ENGINES: Final = 11
"""Where a worker's slot holds the process ids of its engines (0: none)."""
_MAX_ENGINES: Final = 8
_SLOT: Final = _ENGINES + _MAX_ENGINES
"""The shared slot of a worker: [0] calls begun, [1] 1 while in a call, [2] the seat
(-1 before the first call of a game), [3] the method (index in _METHODS), [4] moves played,
[5] truncated, [6] seats out so far, [7:11] those seats, [11:19] the process ids of its
engines' keepers (or, without keepers, of the engines: each its process group's), which
the parent ends if it has to stop the worker (:func:`skitgubbe.engine._kill_child`)."""

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
        slot[3] = float(_METHODS.index(method))
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
        pids = [engine._child_pid for engine in pool.engines if engine._child_pid is not None]
        for i in range(_MAX_ENGINES):
            slot[_ENGINES + i] = float(pids[i]) if i < len(pids) else 0.0

    return publish


def _ignore_ctrl_c() -> None:
    """In a worker process: Ctrl-C is the parent's to handle (it stops the run and says so in
    a line); a worker that took it too would print its own traceback."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _work(conn: Connection, slot: Any, plan: _Plan) -> None:
    """A worker process: play the games of each task received, sending each game back."""
    _ignore_ctrl_c()
    publish = _slot_publish(slot)
    pool = plan.pool()
    try:
        _check_registered(plan)
        watch = _slot_watch(slot)
        while (task := conn.recv()) is not None:
            for deal, arrangement in task:
                slot[2] = -1.0
                game = _play_game(plan, pool, deal, arrangement, watch, publish)
                conn.send(("game", game))
    except EOFError:  # the parent has gone
        return
    except Exception as exc:
        try:
            conn.send(("error", exc))
        except Exception:  # the exception cannot be pickled: send its text
            conn.send(("error", SkitgubbeError(_one_line(exc))))
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

    def __init__(self, context: Any, plan: _Plan) -> None:
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
        return int(slot[2]), _METHODS[int(slot[3])], before, bool(slot[5]), int(slot[4])

    def stop(self) -> str:
        """Stop the process (if it still runs) and wait for it, then end the engines it
        left running; say how it ended."""
        if self.process.is_alive():
            self.process.kill()
        self.process.join()
        from .engine import _kill_child  # loaded by the workers, not at import

        for i in range(_MAX_ENGINES):
            pid = int(self.slot[_ENGINES + i])
            if pid > 0:
                _kill_child(pid)  # the engine and all it started, daemons included
                self.slot[_ENGINES + i] = 0.0
        return _exit_text(self.process.exitcode)

    def close(self) -> None:
        self.conn.close()
        self.process.close()


def _play_in_workers(
    plan: _Plan,
    tasks: list[list[Job]],
    workers: int,
    sets: dict[int, int],
    report: Progress | None,
    deals: int,
) -> dict[tuple[int, int], MatchGame]:
    """Play ``tasks`` in ``workers`` processes of the match's own, one task at a time each.

    A worker whose bot's call runs past ``plan.timeout`` (plus a grace) is
    stopped, and a worker that dies is replaced; either way the game it was
    playing is lost by the bot that was in a call, and its other games go to
    the replacement. ``sets`` gives each task's deal sets, for ``report``.
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
    limit = plan.timeout
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
                error = _late(seat, spec, limit, method)
                trace = f"{error}\n(the worker was stopped after {detail})\n"
            else:
                error = (
                    f"seat {seat} ({spec}) was in {method} when its worker process died ({detail})"
                )
                trace = error + "\n"
            crash = Crash(seat, error, trace, kind)
            finished(job, _lost_game(plan, job[0], job[1], crash, before, truncated, moves))
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


class _StderrProgress:
    """Prints a progress line on stderr every few seconds, and one at the end.

    A total of 0 means "not known in advance" (a sequential test)."""

    def __init__(self, name: str = "arena") -> None:
        self.name = name
        self.start = self.last = time.monotonic()

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        if (done < total or not total) and now - self.last < _PROGRESS_EVERY:
            return
        self.last = now
        elapsed = now - self.start
        if not total:
            print(f"{self.name}: {done} deal sets, {elapsed:.0f} s", file=sys.stderr, flush=True)
            return
        line = f"{self.name}: {done}/{total} deal sets ({done / total:.0%}), {elapsed:.0f} s"
        if done < total:
            line += f", about {elapsed * (total - done) / done:.0f} s left"
        print(line, file=sys.stderr, flush=True)


def _check_int(name: str, value: object, low: int, high: int | None = None) -> int:
    bound = f"{low} <= {name}" + (f" < {high}" if high is not None else "")
    if type(value) is not int:
        raise ArgumentTypeError(f"{name} must be an int {bound}, not {value!r}")
    if value < low or (high is not None and value >= high):
        raise ArgumentError(f"{name} must be an int {bound}, not {value!r}")
    return value


def _forks() -> bool:
    """Whether worker processes are forked from this one (and so know its bots)."""
    # The first of all start methods is the default; asking get_start_method() without
    # allow_none would fix the start method for the whole program.
    method = multiprocessing.get_start_method(allow_none=True)
    return (method or multiprocessing.get_all_start_methods()[0]) == "fork"


def _make_plan(
    entrants: Sequence[str],
    rules: Rules | None,
    seed: int,
    timeout: float | None,
    isolate: bool,
) -> _Plan:
    """Check the arguments that make a match's plan, and make it (shared by
    :func:`run_match`, :func:`~skitgubbe.sprt.run_sprt` and :func:`~skitgubbe.ladder.run_ladder`).

    An unknown bot, bad options or an engine that does not start fail here, at
    once, not in every game.
    """
    if isinstance(entrants, str) or not isinstance(entrants, Sequence):
        raise ArgumentTypeError(f"entrants must be a sequence of bot specs, not {entrants!r}")
    specs = tuple(entrants)
    if type(isolate) is not bool:
        raise ArgumentTypeError(f"isolate must be True or False, not {isolate!r}")
    timeout = _check_timeout(timeout)
    with BotPool(isolate=isolate) as pool:
        engines = {}
        for spec in specs:
            if pool.out_of_process(spec):
                engines[spec] = pool.spec(spec)
                pool.start(spec)
            else:
                registry.make(spec, seed=0)
    if rules is None:
        rules = Rules.classic(players=len(specs))
    elif not isinstance(rules, Rules):
        raise ArgumentTypeError(f"rules must be a Rules, not {rules!r}")
    if len(specs) != rules.players:
        raise ArgumentError(
            f"{rules.players} players need {rules.players} entrants, one per seat, not {len(specs)}"
        )
    _check_int("seed", seed, 0, 2**64)
    # The factories go to the workers with the work (see _Plan).
    return _Plan(
        rules,
        arrangements(specs),
        seed,
        tuple(
            (spec, _portable(registry.factory(registry.parse_spec(spec)[0])))
            for spec in dict.fromkeys(specs)
        ),
        timeout,
        tuple(engines.items()),
    )


def _check_running(
    jobs: int | None,
    executor: Executor | None,
    chunk_size: int | None,
    progress: bool | Progress,
    name: str = "arena",
) -> Progress | None:
    """Check how the work is to be run; the progress report asked for (or None)."""
    if jobs is not None:
        _check_int("jobs", jobs, 1)
        if executor is not None:
            raise ArgumentError("give jobs or an executor, not both")
    if chunk_size is not None:
        _check_int("chunk_size", chunk_size, 1)
    if isinstance(progress, bool):
        return _StderrProgress(name) if progress else None
    if callable(progress):
        return progress
    raise ArgumentTypeError(f"progress must be a bool or a callable, not {progress!r}")


def _completed(
    executor: Executor,
    calls: Iterable[tuple[int, Callable[..., _T], tuple[Any, ...]]],
    window: int | None = None,
    discarded: list[int] | None = None,
) -> Iterator[tuple[int, _T]]:
    """Run ``calls`` (key, function, arguments) on ``executor``; yield (key, result) as
    each finishes, with at most ``window`` calls in flight (None: all at once).

    Closing the iterator early cancels what is in flight; the keys of the calls
    that were submitted but not yet taken go to ``discarded``.
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


def run_match(
    entrants: Sequence[str],
    rules: Rules | None = None,
    *,
    deals: int,
    seed: int,
    jobs: int | None = None,
    executor: Executor | None = None,
    progress: bool | Progress = False,
    chunk_size: int | None = None,
    timeout: float | None = None,
    isolate: bool = False,
) -> MatchResult:
    """Play a match between bots over ``deals`` duplicate deals.

    ``entrants`` are bot specs (:func:`skitgubbe.bots.make`), one per seat,
    engine specs among them (``"cmd:./mybot"``: a program speaking the engine
    protocol, in a process of its own; see :mod:`skitgubbe.bots.command`);
    ``rules`` default to the classic rules for that many players. Deal ``d`` is
    shuffled from ``game_seed(seed, d)`` (``skitgubbe._engine``), dealt by the
    last seat, and played once under each of :func:`arrangements`; the bot at
    seat ``s`` of arrangement ``a`` is made fresh with the seed
    ``blinded_seed(game_seed(game_seed(game_seed(seed, d), a), s))``
    (:func:`~skitgubbe.bots.blinded_seed`: one-way, so that no bot can work
    back to the deal). A bot that raises or
    answers an illegal move loses that game (a crash, kept with its traceback)
    and the match goes on.

    An engine is started once per worker (or once, in this process) and plays
    every game of its entrant there, sent the game's bot seed before each game
    where it declares a ``seed`` option; ``isolate=True`` plays every entrant
    so, a registered bot served by ``skitgubbe engine`` (trusted code then runs
    apart from the referee: no bot can reach another's state or the game's). The
    deals follow from ``seed`` by a public algorithm: against bots you do not
    trust, keep it secret (``secrets.randbits(63)``).
    A seeded engine plays exactly as the bot in process would. An engine whose
    process ends, or that cannot start, loses its game (a :class:`Crash` of
    kind ``"died"``) and is started again for the next.

    ``timeout`` is a time limit in seconds for every call into a bot (making
    it, ``choose``, its hooks; ``None``, the default: no limit): a bot whose
    call takes longer loses that game, exactly like a crash (a :class:`Crash`
    of kind ``"timeout"``). With a limit the games run in worker processes
    (one, unless ``jobs`` says more) and a call that does not return is
    stopped: its worker is killed a moment after the limit and replaced. On an
    ``executor``, or in this process when a bot cannot be sent to a worker, a
    late answer still loses but a call that never returns stalls the match.

    The work runs in this process (``jobs`` None or 1, no ``timeout``), in
    ``jobs`` worker processes of the match's own, or on any ``executor`` (e.g. a
    Dask client's), in tasks of ``chunk_size`` deal sets (by default about 200
    tasks in all); the result is the same whichever (a time limit aside). A
    worker process of the match's own that dies (a crash in native code,
    ``os._exit``, a kill) loses its game for the bot in a call at that moment
    (a :class:`Crash` of kind ``"died"``) and is replaced. ``progress=True``
    prints a line on stderr every few seconds; a callable gets ``(deal sets
    done, deal sets in all)``.

    >>> import skitgubbe as sg
    >>> result = sg.run_match(["random", "random", "random"], deals=10, seed=7)
    >>> stats = result.entrant("random")
    >>> stats.games, stats.seat_games, len(result.games)
    (30, (10, 10, 10), 10)
    >>> result == sg.run_match(["random"] * 3, deals=10, seed=7, progress=lambda done, total: None)
    True
    >>> timed = sg.run_match(["greedy", "random"], deals=2, seed=7, timeout=10)
    >>> timed.timeout, timed.crashes
    (10, ())
    >>> sg.run_match(["greedy", "random"], deals=2, seed=7, isolate=True) == sg.run_match(
    ...     ["greedy", "random"], deals=2, seed=7
    ... )
    True
    """
    plan = _make_plan(entrants, rules, seed, timeout, isolate)
    specs, rules, timeout = plan.seatings[0], plan.rules, plan.timeout
    _check_int("deals", deals, 1)
    report = _check_running(jobs, executor, chunk_size, progress)
    size = chunk_size or -(-deals // _TASKS)
    games: list[MatchGame] = []
    # A worker can take every bot if their factories travel or the worker is forked
    # from this process, registry and all.
    portable = all(factory is not None for _, factory in plan.factories)
    if executor is None and ((jobs or 1) > 1 or (timeout is not None and (portable or _forks()))):
        starts = range(0, deals, size)
        tasks = [
            [
                (deal, arrangement, number)
                for deal in range(start, min(start + size, deals))
                for arrangement in range(len(plan.seatings))
            ]
            for number, start in enumerate(starts)
        ]
        sets = {number: min(size, deals - start) for number, start in enumerate(starts)}
        played = _play_in_workers(plan, tasks, jobs or 1, sets, report, deals)
        games = [played[deal, arrangement] for deal, arrangement, _ in itertools.chain(*tasks)]
    elif executor is None:
        with plan.pool() as engine_pool:
            for deal in range(deals):
                games.extend(_play_deals(plan, deal, deal + 1, engine_pool))
                if report is not None:
                    report(deal + 1, deals)
    else:
        starts = range(0, deals, size)
        parts: dict[int, list[MatchGame]] = {}
        calls = ((start, _play_deals, (plan, start, min(start + size, deals))) for start in starts)
        for start, part in _completed(executor, calls):
            parts[start] = part
            if report is not None:
                report(sum(map(len, parts.values())) // len(plan.seatings), deals)
        for start in starts:
            games.extend(parts[start])
    return MatchResult(
        entrants=specs, rules=rules, deals=deals, seed=seed, games=tuple(games), timeout=timeout
    )
