"""Sessions: a series of games among the same players (docs/rules.md §7).

A :class:`Session` cuts for the first dealer, passes the deal clockwise after
each game, keeps the tally of losses and, optionally, a token pot that the
players with the fewest losses share when the session ends. Everything it does
is derived from one seed, and its state is a JSON-able record that can be saved
and resumed.

How the numbers are derived from the session ``seed`` (all with the engine's
versioned generator, so they are the same on every platform):

- cut round ``r`` (0, 1, ...) uses the deck ``deck_from_seed(game_seed(c, r))``
  where ``c = game_seed(seed, 2**64 - 1)`` — the index ``2**64 - 1`` is never a
  game's, so the cut never shares a deck with a game;
- game ``i`` (0, 1, ...) is dealt from ``game_seed(seed, i)`` by seat
  ``(first_dealer + i) % players``.

(``deck_from_seed`` and ``game_seed`` are in ``skitgubbe._core``; they are the
functions :meth:`Game.new <skitgubbe.Game.new>` and :func:`~skitgubbe.simulate`
use.)

>>> import skitgubbe as sg
>>> class Lowest:
...     def choose(self, observation: sg.Observation) -> sg.Move:
...         return observation.legal_moves[0]
>>> session = sg.Session([Lowest(), Lowest(), Lowest()], seed=7, pot=True)
>>> [str(cut) for cut in session.cuts], session.first_dealer
(['seat 0 cuts 8♥', 'seat 1 cuts 10♥', 'seat 2 cuts 5♦'], 1)
>>> [(result.loser, result.truncated) for result in session.play(5)]
[(2, False), (1, False), (0, False), (1, False), (None, True)]
>>> session.losses, session.truncated, [game.dealer for game in session.games]
((1, 2, 1), 1, [1, 2, 0, 1, 2])
>>> session.close()  # doctest: +NORMALIZE_WHITESPACE
SessionResult(games=5, losses=(1, 2, 1), truncated=1, no_loser=0, pot=4, winners=(0, 2),
              shares=(Fraction(2, 1), Fraction(0, 1), Fraction(2, 1)), ended=True)
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from typing import Any, Final, TypeAlias

import attrs

from .. import _core
from .._files import check_header
from .._limits import NOT_GIVEN, NotGiven, check_move_time, move_time_or_timeout
from .._text import brief
from ..errors import (
    ArgumentError,
    ArgumentTypeError,
    ParseError,
    RecordError,
    RulesError,
    SkitgubbeError,
)
from ..game.cards import Card
from ..game.rules import Rules
from ..game.state import Game, GameResult
from .players import Player, play_game

__all__ = [
    "SESSION_FORMAT",
    "SESSION_VERSION",
    "Cut",
    "Session",
    "SessionGame",
    "SessionResult",
]

SESSION_FORMAT: Final = "skitgubbe-session"
"""The ``format`` field of every session record."""
SESSION_VERSION: Final = 1
"""The version of the record layout written by :meth:`Session.record`."""

_CUT_INDEX: Final = 2**64 - 1
"""The game index the cut's seeds hang from: no session ever plays that game."""

LineupFactory: TypeAlias = Callable[[int], Sequence[Player]]
"""A function from a game's index to the lineup of that game: its players, seat by seat."""


@attrs.frozen
class Cut:
    """One card cut for the first deal: in cut ``round``, ``seat`` turned ``card``.

    >>> import skitgubbe as sg
    >>> cut = sg.Cut(round=0, seat=2, card=sg.Card.parse("KH"))
    >>> str(cut), cut.to_dict()
    ('seat 2 cuts K♥', {'round': 0, 'seat': 2, 'card': 'K♥'})
    """

    round: int
    seat: int
    card: Card

    def to_dict(self) -> dict[str, Any]:
        """The cut as JSON-able data.

        >>> import skitgubbe as sg
        >>> sg.Cut(1, 0, sg.Card.parse("2C")).to_dict()
        {'round': 1, 'seat': 0, 'card': '2♣'}
        """
        return {"round": self.round, "seat": self.seat, "card": str(self.card)}

    def __str__(self) -> str:
        return f"seat {self.seat} cuts {self.card}"


@attrs.frozen
class SessionGame:
    """One game a session played: its ``index`` (from 0), the ``seed`` it was
    dealt from, its ``dealer`` and its ``result``.

    >>> import skitgubbe as sg
    >>> session = sg.Session([sg.bots.RandomBot(seed=s) for s in range(2)], seed=3)
    >>> _ = session.play_game()
    >>> game = session.games[0]
    >>> game.index, game.dealer == session.first_dealer, game.result.moves_played > 0
    (0, True, True)
    """

    index: int
    seed: int
    dealer: int
    result: GameResult


@attrs.frozen
class SessionResult:
    """The standings of a session: the tally and, with a pot, how it is shared.

    ``losses[seat]`` counts the games the seat lost; ``truncated`` the games the
    move cap ended and ``no_loser`` the games that ended with nobody holding
    cards (neither has a loser nor adds a token). ``pot`` is the number of
    tokens in the pot (one per loss), ``None`` when the session plays without
    one. ``winners`` are the seats with the fewest losses (every seat, before
    anyone has lost). ``shares[seat]`` is the part of the pot a seat takes if
    the session ended now: the winners share it equally, as an exact
    :class:`~fractions.Fraction`; the others get 0 (``None`` without a pot).
    ``ended`` is true once the session was closed.

    >>> from fractions import Fraction
    >>> import skitgubbe as sg
    >>> session = sg.Session([sg.bots.RandomBot(seed=s) for s in range(3)], seed=1, pot=True)
    >>> result = session.standings()
    >>> result.games, result.pot, result.winners, result.shares
    (0, 0, (0, 1, 2), (Fraction(0, 1), Fraction(0, 1), Fraction(0, 1)))
    >>> _ = session.play(4)
    >>> result = session.standings()
    >>> sum(result.shares) == result.pot == sum(result.losses)
    True
    """

    games: int
    losses: tuple[int, ...]
    truncated: int
    no_loser: int
    pot: int | None
    winners: tuple[int, ...]
    shares: tuple[Fraction, ...] | None
    ended: bool


def _cut(players: int, seed: int) -> tuple[tuple[Cut, ...], int]:
    """Cut for the first dealer: every cuts, the highest rank deals, ties cut again.

    In each round the players still cutting, in seat order, turn the top cards
    of that round's freshly shuffled deck.
    """
    base = _core.game_seed(seed, _CUT_INDEX)
    cutters = list(range(players))
    cuts: list[Cut] = []
    round_ = 0
    while True:
        deck = _core.deck_from_seed(_core.game_seed(base, round_))
        drawn = [
            Cut(round_, seat, Card.from_code(code))
            for seat, code in zip(cutters, deck[: len(cutters)], strict=True)
        ]
        cuts.extend(drawn)
        top = max(cut.card.rank for cut in drawn)
        cutters = [cut.seat for cut in drawn if cut.card.rank == top]
        if len(cutters) == 1:
            return tuple(cuts), cutters[0]
        round_ += 1


def _check_seed(seed: object) -> int:
    message = f"the session seed must be an int 0 <= seed < 2**64, not {seed!r}"
    if type(seed) is not int:
        raise ArgumentTypeError(message)
    if not 0 <= seed < 2**64:
        raise ArgumentError(message)
    return seed


def _check_lineup(lineup: Sequence[Player], count: int, what: str) -> Sequence[Player]:
    if len(lineup) != count:
        raise ArgumentError(
            f"the rules are for {count} players; {what} {len(lineup)} "
            f"player{'s' if len(lineup) != 1 else ''}"
        )
    for seat, player in enumerate(lineup):
        if not callable(getattr(player, "choose", None)):
            raise ArgumentTypeError(f"seat {seat}: {player!r} is not a Player (it has no choose())")
    return lineup


class Session:
    """A series of games among the same players (docs/rules.md §7).

    ``lineup`` seats the players (seat ``i`` is ``lineup[i]``) for every game,
    or is a function from a game's index to the lineup of that game — use one
    to re-create seeded bots for each game, so that a resumed session plays
    exactly the games an uninterrupted one would have played (a bot's random
    state is not part of the session record). ``rules`` defaults to the classic
    rules for ``len(lineup)`` (give them when ``lineup`` is a function).
    ``seed`` (an int ``0 <= seed < 2**64``) fixes the cut and every deal; with
    ``pot=True`` each loss puts a token in the pot. ``move_time`` (seconds,
    ``None`` for no limit) bounds every call to a player as in
    :func:`~skitgubbe.play_game`: a late answer is a
    :class:`~skitgubbe.PlayerTimeoutError` and the game is not counted. It is
    not part of the session record; give it again to :meth:`resume`. ``timeout``
    is its old name, deprecated for one release.

    Creating a session cuts for the first dealer; :meth:`play_game` and
    :meth:`play` play on; :meth:`standings` and :meth:`close` report;
    :meth:`record` and :meth:`resume` save and restore.

    >>> import skitgubbe as sg
    >>> def lineup_of(index: int) -> list[sg.bots.RandomBot]:
    ...     return [sg.bots.RandomBot(seed=1000 * index + seat) for seat in range(4)]
    >>> session = sg.Session(lineup_of, sg.Rules.classic(players=4), seed=11)
    >>> session.first_dealer, session.next_dealer, session.games_played
    (1, 1, 0)
    >>> _ = session.play(3)
    >>> session.next_dealer, session.games_played, sum(session.losses) + session.truncated
    (0, 3, 3)
    >>> sg.Session([sg.bots.RandomBot()] * 3, sg.Rules.classic(players=2), seed=1)
    Traceback (most recent call last):
        ...
    skitgubbe.errors.ArgumentError: the rules are for 2 players; got 3 players
    """

    __slots__ = (
        "_closed",
        "_cuts",
        "_first_dealer",
        "_games",
        "_lineups",
        "_losses",
        "_move_time",
        "_no_loser",
        "_pot",
        "_records",
        "_rules",
        "_seed",
        "_truncated",
    )

    _closed: bool
    _cuts: tuple[Cut, ...]
    _first_dealer: int
    _games: list[SessionGame]
    _lineups: LineupFactory
    _losses: list[int]
    _no_loser: int
    _pot: bool
    _records: list[dict[str, Any]]
    _rules: Rules
    _seed: int
    _move_time: float | None
    _truncated: int

    def __init__(
        self,
        lineup: Sequence[Player] | LineupFactory,
        rules: Rules | None = None,
        *,
        seed: int,
        pot: bool = False,
        move_time: float | None = None,
        timeout: float | NotGiven | None = NOT_GIVEN,
    ) -> None:
        if rules is not None and not isinstance(rules, Rules):
            raise ArgumentTypeError(f"rules must be a Rules, not {type(rules).__name__}")
        if isinstance(lineup, Sequence):
            if rules is None:
                if not 2 <= len(lineup) <= 4:
                    raise ArgumentError(
                        f"Skitgubbe is played by 2, 3 or 4 players; got {len(lineup)}"
                    )
                rules = Rules.classic(players=len(lineup))
            seated = tuple(_check_lineup(lineup, rules.players, "got"))
            self._lineups = lambda _index: seated
        elif callable(lineup):
            if rules is None:
                raise ArgumentError("give the rules when lineup is a function of the game index")
            self._lineups = lineup
        else:
            raise ArgumentTypeError(
                f"lineup must be a sequence of players or a function of the game index, "
                f"not {type(lineup).__name__}"
            )
        if type(pot) is not bool:
            raise ArgumentTypeError(f"pot must be True or False, not {pot!r}")
        self._rules = rules
        self._seed = _check_seed(seed)
        self._pot = pot
        value, name = move_time_or_timeout(move_time, timeout)
        self._move_time = check_move_time(value, name)
        self._cuts, self._first_dealer = _cut(rules.players, self._seed)
        self._games = []
        self._records = []
        self._losses = [0] * rules.players
        self._truncated = 0
        self._no_loser = 0
        self._closed = False

    # -- the state --------------------------------------------------------------

    @property
    def rules(self) -> Rules:
        """The rules of every game of the session."""
        return self._rules

    @property
    def seed(self) -> int:
        """The session seed: the cut and every deal derive from it."""
        return self._seed

    @property
    def pot(self) -> bool:
        """True when the session plays with the token pot."""
        return self._pot

    @property
    def cuts(self) -> tuple[Cut, ...]:
        """Every card cut for the first deal, round by round, in seat order.

        >>> import skitgubbe as sg
        >>> session = sg.Session([sg.bots.RandomBot()] * 3, seed=40)
        >>> [(cut.round, str(cut)) for cut in session.cuts]  # doctest: +NORMALIZE_WHITESPACE
        [(0, 'seat 0 cuts 8♦'), (0, 'seat 1 cuts 6♠'), (0, 'seat 2 cuts 8♥'),
         (1, 'seat 0 cuts J♦'), (1, 'seat 2 cuts 2♥')]
        >>> session.first_dealer
        0
        """
        return self._cuts

    @property
    def first_dealer(self) -> int:
        """The seat that won the cut and deals game 0."""
        return self._first_dealer

    @property
    def games(self) -> tuple[SessionGame, ...]:
        """The games played so far, first to last."""
        return tuple(self._games)

    @property
    def games_played(self) -> int:
        """How many games have been played (truncated ones included)."""
        return len(self._games)

    @property
    def losses(self) -> tuple[int, ...]:
        """How often each seat was the skitgubbe."""
        return tuple(self._losses)

    @property
    def truncated(self) -> int:
        """How many games the move cap ended (they have no loser)."""
        return self._truncated

    @property
    def no_loser(self) -> int:
        """How many games ended with nobody left holding cards."""
        return self._no_loser

    @property
    def next_seed(self) -> int:
        """The seed the next game is dealt from: ``game_seed(seed, games_played)``."""
        return _core.game_seed(self._seed, len(self._games))

    @property
    def next_dealer(self) -> int:
        """The seat that deals the next game: the deal passes clockwise."""
        return (self._first_dealer + len(self._games)) % self._rules.players

    @property
    def closed(self) -> bool:
        """True once :meth:`close` ended the session."""
        return self._closed

    # -- playing ----------------------------------------------------------------

    def play_game(self) -> GameResult:
        """Deal and play the next game; count it and return its result.

        A :class:`~skitgubbe.PlayerError` (or any error) during the game
        propagates and the session is left as it was: the game is not counted,
        and the next call deals the same game again.

        >>> import skitgubbe as sg
        >>> session = sg.Session([sg.bots.RandomBot(seed=s) for s in range(3)], seed=5)
        >>> result = session.play_game()
        >>> session.games_played, session.games[0].result == result
        (1, True)
        """
        if self._closed:
            raise SkitgubbeError("the session is closed; no more games can be played")
        index = len(self._games)
        lineup = _check_lineup(self._lineups(index), self._rules.players, f"game {index} has")
        game = Game.new(self._rules, seed=self.next_seed, dealer=self.next_dealer)
        result = play_game(lineup, game=game, move_time=self._move_time)
        self._count(game)
        return result

    def play(
        self, games: int, progress: Callable[[SessionGame], None] | None = None
    ) -> tuple[GameResult, ...]:
        """Play ``games`` more games; return their results.

        ``progress`` (optional) is called with the :class:`SessionGame` after
        each game. Games are counted one by one: if game ``k`` fails, the games
        before it stay counted.

        >>> import skitgubbe as sg
        >>> session = sg.Session([sg.bots.RandomBot(seed=s) for s in range(3)], seed=5)
        >>> results = session.play(3, progress=lambda game: print(game.index, game.dealer))
        0 1
        1 2
        2 0
        >>> session.play(-1)
        Traceback (most recent call last):
            ...
        skitgubbe.errors.ArgumentError: games must be an int >= 0, not -1
        """
        if type(games) is not int:
            raise ArgumentTypeError(f"games must be an int >= 0, not {games!r}")
        if games < 0:
            raise ArgumentError(f"games must be an int >= 0, not {games!r}")
        if progress is not None and not callable(progress):
            raise ArgumentTypeError(f"progress must be callable or None, not {progress!r}")
        results: list[GameResult] = []
        for _ in range(games):
            results.append(self.play_game())
            if progress is not None:
                progress(self._games[-1])
        return tuple(results)

    def _count(self, game: Game) -> None:
        """Add a finished game to the tally and the record."""
        result = game.result
        assert result is not None and game.seed is not None
        self._games.append(SessionGame(len(self._games), game.seed, game.dealer, result))
        self._records.append(game.record())
        if result.truncated:
            self._truncated += 1
        elif result.loser is None:
            self._no_loser += 1
        else:
            self._losses[result.loser] += 1

    # -- standings --------------------------------------------------------------

    def standings(self) -> SessionResult:
        """The tally now and how the pot would be shared if the session ended now.

        >>> import skitgubbe as sg
        >>> session = sg.Session([sg.bots.RandomBot(seed=s) for s in range(3)], seed=2)
        >>> _ = session.play(6)
        >>> result = session.standings()
        >>> result.losses == session.losses, result.pot, result.ended
        (True, None, False)
        """
        losses = tuple(self._losses)
        fewest = min(losses)
        winners = tuple(seat for seat, n in enumerate(losses) if n == fewest)
        pot: int | None = None
        shares: tuple[Fraction, ...] | None = None
        if self._pot:
            pot = sum(losses)
            share = Fraction(pot, len(winners))
            shares = tuple(share if seat in winners else Fraction(0) for seat in range(len(losses)))
        return SessionResult(
            games=len(self._games),
            losses=losses,
            truncated=self._truncated,
            no_loser=self._no_loser,
            pot=pot,
            winners=winners,
            shares=shares,
            ended=self._closed,
        )

    def close(self) -> SessionResult:
        """End the session and return the final standings; no game can follow.

        >>> import skitgubbe as sg
        >>> session = sg.Session([sg.bots.RandomBot(seed=s) for s in range(2)], seed=4, pot=True)
        >>> _ = session.play(3)
        >>> final = session.close()
        >>> final.ended, final.pot, sum(final.shares)
        (True, 3, Fraction(3, 1))
        >>> session.play_game()
        Traceback (most recent call last):
            ...
        skitgubbe.errors.SkitgubbeError: the session is closed; no more games can be played
        """
        self._closed = True
        return self.standings()

    # -- records ----------------------------------------------------------------

    def record(self) -> dict[str, Any]:
        """The session as JSON-able data: its settings, the cut and every game.

        Each game is its full :meth:`Game.record <skitgubbe.Game.record>`
        (seed, deck, dealer, moves, result). The tally is not stored: it is
        recomputed from the games when the record is resumed.

        >>> import json, skitgubbe as sg
        >>> session = sg.Session([sg.bots.RandomBot(seed=s) for s in range(3)], seed=1)
        >>> _ = session.play(2)
        >>> record = json.loads(json.dumps(session.record()))
        >>> record["format"], record["first_dealer"], len(record["games"])
        ('skitgubbe-session', 0, 2)
        >>> record["games"][1]["start"]["dealer"]
        1
        """
        return {
            "format": SESSION_FORMAT,
            "version": SESSION_VERSION,
            "rng_version": _core.RNG_VERSION,
            "rules": self._rules.to_dict(),
            "seed": self._seed,
            "pot": self._pot,
            "cuts": [cut.to_dict() for cut in self._cuts],
            "first_dealer": self._first_dealer,
            "closed": self._closed,
            "games": copy.deepcopy(self._records),
        }

    @classmethod
    def resume(
        cls,
        record: Mapping[str, Any],
        lineup: Sequence[Player] | LineupFactory,
        *,
        move_time: float | None = None,
        timeout: float | NotGiven | None = NOT_GIVEN,
    ) -> Session:
        """Rebuild a session from :meth:`record`, checking everything in it.

        The cut is made again from the seed and must match; every game is
        replayed move by move (:meth:`Game.from_record
        <skitgubbe.Game.from_record>`) and must be the session's game of that
        index (seed, dealer, rules) and finished with the recorded result. A
        record that fails raises :class:`~skitgubbe.RecordError` naming what is
        wrong. Playing on then gives the games an uninterrupted session would
        have given, provided the players behave the same (see ``lineup`` in
        :class:`Session`). ``move_time`` is the time limit of the games played
        on, as in :class:`Session` (it is not in the record; ``timeout`` is its
        old name, deprecated).

        >>> import skitgubbe as sg
        >>> bots = [sg.bots.RandomBot(seed=s) for s in range(3)]
        >>> session = sg.Session(bots, seed=1)
        >>> _ = session.play(2)
        >>> again = sg.Session.resume(session.record(), bots)
        >>> again.losses == session.losses, again.next_dealer
        (True, 2)
        >>> record = session.record()
        >>> record["first_dealer"] = 1
        >>> sg.Session.resume(record, bots)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
            ...
        skitgubbe.errors.RecordError: the record's first dealer is 1, but the cut from seed 1 ...
        """
        value, name = move_time_or_timeout(move_time, timeout)
        move_time_of = check_move_time(value, name)
        check_header(
            record, format=SESSION_FORMAT, versions=(SESSION_VERSION,), what="session record"
        )
        rng_version = record.get("rng_version")
        if type(rng_version) is not int or rng_version != _core.RNG_VERSION:
            raise RecordError(
                f"the session was dealt with generator version {brief(rng_version)}; "
                f"this library has version {_core.RNG_VERSION} and cannot deal its next games"
            )
        keys = ("rules", "seed", "pot", "cuts", "first_dealer", "closed", "games")
        missing = [key for key in keys if key not in record]
        if missing:
            raise RecordError(f"the session record has no {', '.join(repr(k) for k in missing)}")
        try:
            rules = Rules.from_dict(record["rules"])
        except RulesError as exc:
            raise RecordError(f"bad rules in session record: {exc}") from exc
        seed = record["seed"]
        if type(seed) is not int or not 0 <= seed < 2**64:
            raise RecordError(
                f"the record's seed must be an int 0 <= seed < 2**64, not {brief(seed)}"
            )
        for key in ("pot", "closed"):
            if type(record[key]) is not bool:
                raise RecordError(
                    f"the record's {key!r} must be true or false, not {brief(record[key])}"
                )
        session = cls(lineup, rules, seed=seed, pot=record["pot"], move_time=move_time_of)
        cuts = _read_cuts(record["cuts"])
        if cuts != session._cuts:
            raise RecordError(
                f"the record's cuts ({', '.join(map(str, cuts))}) are not the ones seed {seed} "
                f"gives ({', '.join(map(str, session._cuts))})"
            )
        first_dealer = record["first_dealer"]
        if type(first_dealer) is not int or first_dealer != session._first_dealer:
            raise RecordError(
                f"the record's first dealer is {brief(first_dealer)}, "
                f"but the cut from seed {seed} gives {session._first_dealer}"
            )
        games = record["games"]
        if not isinstance(games, list):
            raise RecordError("the record's 'games' must be a list of game records")
        for index, game_record in enumerate(games):
            session._count(session._replay(index, game_record))
        session._closed = record["closed"]
        return session

    def _replay(self, index: int, record: object) -> Game:
        """Game ``index`` rebuilt from its record, checked to belong to this session."""
        if not isinstance(record, Mapping):
            raise RecordError(
                f"game {index}: a game record is a mapping, not {type(record).__name__}"
            )
        try:
            game = Game.from_record(record)
        except RecordError as exc:
            raise RecordError(f"game {index}: {exc}", exc.move_index) from exc
        except (SkitgubbeError, TypeError, ValueError) as exc:
            raise RecordError(f"game {index}: bad game record: {exc}") from exc
        if game.rules != self._rules:
            raise RecordError(
                f"game {index} was played with {game.rules!r}, not the session's {self._rules!r}"
            )
        seed = _core.game_seed(self._seed, index)
        if game.seed != seed:
            raise RecordError(
                f"game {index} was dealt from seed {game.seed!r}, but the session deals it "
                f"from seed {seed}"
            )
        dealer = (self._first_dealer + index) % self._rules.players
        if game.dealer != dealer:
            raise RecordError(f"game {index} was dealt by seat {game.dealer}, not seat {dealer}")
        if game.result is None:
            raise RecordError(f"game {index} is not finished")
        return game

    def __repr__(self) -> str:
        losses = " ".join(map(str, self._losses))
        return (
            f"<Session {self._rules.players} players, seed {self._seed}, "
            f"{len(self._games)} games, losses {losses}"
            f"{', pot' if self._pot else ''}{', closed' if self._closed else ''}>"
        )


def _read_cuts(data: object) -> tuple[Cut, ...]:
    if not isinstance(data, list):
        raise RecordError("the record's 'cuts' must be a list")
    cuts: list[Cut] = []
    for index, item in enumerate(data):
        if not isinstance(item, Mapping) or set(item) != {"round", "seat", "card"}:
            raise RecordError(
                f"cut {index} must be a mapping of round, seat and card: {brief(item)}"
            )
        for key in ("round", "seat"):
            if type(item[key]) is not int:
                raise RecordError(f"cut {index}: {key!r} must be an int, not {brief(item[key])}")
        try:
            card = Card.parse(item["card"])
        except ParseError as exc:
            raise RecordError(f"cut {index}: {exc}") from exc
        cuts.append(Cut(item["round"], item["seat"], card))
    return tuple(cuts)
