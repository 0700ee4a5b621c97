"""Match results and their figures: :class:`MatchResult`, :class:`MatchGame`, :class:`Crash`,
:class:`EntrantStats`, the Wilson interval, and the match record (JSON, CSV, a plot).

A match's games are what :func:`~skitgubbe.arena.match.run_match` measured; the
figures per entrant are computed from them (``docs/arena.md`` explains the
statistics), and a saved match is read back with the figures computed again.

>>> import skitgubbe as sg
>>> result = sg.run_match(["random", "random"], deals=2, seed=5)
>>> MatchResult.from_dict(result.to_dict()) == result
True
"""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Mapping, Sequence
from statistics import NormalDist
from typing import Any, Final, Literal, TypeAlias, cast

import attrs

from .. import _core
from .._files import check_header, load_json_object, write_csv, write_text
from .._limits import check_move_time
from .._text import brief
from ..errors import ArgumentError, ArgumentTypeError, RecordError, RulesError, SkitgubbeError
from ..game.rules import Rules

__all__ = [
    "CONFIDENCE",
    "CRASH_KINDS",
    "MATCH_FORMAT",
    "MATCH_VERSION",
    "Crash",
    "CrashKind",
    "EntrantStats",
    "MatchGame",
    "MatchResult",
    "arrangements",
    "plot_figure",
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

CRASH_KINDS: Final = ("error", "illegal", "timeout", "died")
"""Every :data:`CrashKind`, in the order the documentation gives them."""

CONFIDENCE: Final = 0.95
"""The confidence level of the loss-rate intervals of a match."""


def wilson_interval(
    successes: float, trials: int, *, confidence: float = CONFIDENCE
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
                if type(kind) is not str or kind not in CRASH_KINDS:
                    raise RecordError(
                        f"a match game's crash 'kind' must be one of "
                        f"{', '.join(CRASH_KINDS)}, not {brief(kind)}"
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
            "rng_version": _core.RNG_VERSION,
            "entrants": list(self.entrants),
            "rules": self.rules.to_dict(),
            "deals": self.deals,
            "seed": self.seed,
            "timeout": self.timeout,
            "confidence": CONFIDENCE,
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
        version = check_header(
            data, format=MATCH_FORMAT, versions=(1, MATCH_VERSION), what="match record"
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
        try:  # the key keeps its name: records stay as they were
            timeout = check_move_time(timeout, "the match record's 'timeout'")
        except (ArgumentError, ArgumentTypeError) as exc:
            raise RecordError(str(exc)) from None
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
        write_text(path, self.to_json() + "\n")

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
        write_csv(path, header, rows)

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
        write_csv(path, header, rows)

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
        figure, axes = plot_figure((max(4.0, 1.3 * len(self.stats) + 2), 4.0))
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


def plot_figure(size: tuple[float, float]) -> tuple[Any, Any]:
    """A matplotlib figure of ``size`` inches drawn off-screen (Agg), and its axes; a
    clear :class:`~skitgubbe.errors.SkitgubbeError` without matplotlib.

    The plots of matches, sequential tests and ladders are drawn on it.

    >>> figure, axes = plot_figure((4.0, 3.0))
    >>> [float(x) for x in figure.get_size_inches()], type(axes).__name__
    ([4.0, 3.0], 'Axes')
    """
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError as exc:
        raise SkitgubbeError("plotting needs matplotlib: pip install 'skitgubbe[plot]'") from exc
    figure = Figure(figsize=size, layout="tight")
    FigureCanvasAgg(figure)
    return figure, figure.add_subplot()
