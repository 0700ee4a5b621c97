"""Where does every bot stand? A rated ladder over duplicate deals.

:func:`run_ladder` plays the bots at tables of ``players`` seats: every table
(a round robin) for up to ten bots, balanced random tables beyond, or only the
tables of one new bot (a gauntlet, added to an earlier ladder). Every deal is
played under every seating of its table. The ratings come from a
Plackett–Luce model of the finishing order, drawn from the bottom: the
skitgubbe first, with chance proportional to each seat's "badness"
``exp(−θ)``, then the worst of the rest, and so on. :func:`fit_plackett_luce`
finds the θ of greatest likelihood; their intervals come from a covariance
clustered by deal set (the games of one deal are not independent). Ratings are
Elo, ``400 / ln 10 · θ``, anchored at ``random`` (0) when it plays, else at the
first bot; ``docs/sprt.md`` explains the statistics.

Rated ``by="loser"``, only the first draw counts: who ends as the skitgubbe. That is
the game's own verdict (everybody else wins, all equally: ``docs/rules.md`` §1),
while the order in which the others went out, which the default ``by="order"`` also
fits, carries more data but rewards going out early, which no player need aim for.

>>> ladder = run_ladder(["greedy", "random", "ismcts:iterations=30"], rounds=2, seed=1)
>>> ladder.anchor, [rating.bot for rating in ladder.ratings][:1]
('random', ['greedy'])
"""

from __future__ import annotations

import itertools
import json
import math
import random
from collections import Counter
from collections.abc import Iterator, Sequence
from concurrent.futures import Executor
from statistics import NormalDist
from typing import Any, Final

import attrs

from .._files import check_header, write_csv, write_text
from .._text import brief
from ..errors import ArgumentError, ArgumentTypeError, RecordError, SkitgubbeError
from ..game.rules import Rules
from ._journal import Journal, state_header
from .results import MatchGame, arrangements, plot_figure
from .runner import (
    MatchPlan,
    Progress,
    Unit,
    check_int,
    check_running,
    make_plan,
    move_time_argument,
)
from .workers import play_units

__all__ = [
    "LADDER_FORMAT",
    "LADDER_VERSION",
    "RATED_BY",
    "LadderResult",
    "Rating",
    "Ratings",
    "fit_plackett_luce",
    "ladder_tables",
    "run_ladder",
]

LADDER_FORMAT: Final = "skitgubbe-ladder"
"""The ``format`` field of a saved ladder (:meth:`LadderResult.to_dict`)."""
LADDER_VERSION: Final = 1
"""The version of the layout written by :meth:`LadderResult.to_dict`."""

ELO_PER_THETA: Final = 400 / math.log(10)
"""Elo points per unit of log-strength θ."""

RATED_BY: Final = ("order", "loser")
"""What a ladder's ratings are fitted to: the whole finishing order, or only who lost."""

_ROUND_ROBIN_BOTS: Final = 10
"""Up to this many bots every table is played each round; beyond, balanced random tables."""

_RIDGE: Final = 1e-6
"""A vanishing penalty on θ that keeps the fit finite for a bot that always (or never) loses."""


def _stages(
    game: MatchGame, index: dict[str, int], by: str = "order"
) -> Iterator[tuple[tuple[int, ...], int]]:
    """The draws of a game's finishing order from the bottom, as (bots left, bot drawn).

    The skitgubbe is drawn from every seat; seats still holding cards when a game
    stopped early are unordered among themselves, so their draws are left out and
    the players out are then drawn from among themselves, worst first. ``by="loser"``
    keeps the first draw only (a game without a loser then draws nothing).
    """
    bots = [index[spec] for spec in game.seats]
    if game.loser is not None:
        yield tuple(sorted(bots)), bots[game.loser]
    if by == "loser":
        return
    out = [seat for seat in game.finish_order if seat != game.loser]
    for end in range(len(out), 1, -1):
        yield tuple(sorted(bots[seat] for seat in out[:end])), bots[out[end - 1]]


def _solve(matrix: list[list[float]], vector: list[float]) -> list[float]:
    """Solve ``matrix @ x = vector`` by Gaussian elimination with partial pivoting."""
    size = len(vector)
    rows = [[*row, value] for row, value in zip(matrix, vector, strict=True)]
    for col in range(size):
        pivot = max(range(col, size), key=lambda r: abs(rows[r][col]))
        rows[col], rows[pivot] = rows[pivot], rows[col]
        if rows[col][col] == 0:
            raise SkitgubbeError("the ratings cannot be fitted: some bots never met")
        for r in range(size):
            if r != col and rows[r][col]:
                factor = rows[r][col] / rows[col][col]
                rows[r] = [a - factor * b for a, b in zip(rows[r], rows[col], strict=True)]
    return [rows[i][size] / rows[i][i] for i in range(size)]


def _inverse(matrix: list[list[float]]) -> list[list[float]]:
    size = len(matrix)
    columns = [_solve(matrix, [float(i == j) for i in range(size)]) for j in range(size)]
    return [[columns[j][i] for j in range(size)] for i in range(size)]


def _score(
    theta: list[float], stage: tuple[tuple[int, ...], int]
) -> tuple[dict[int, float], dict[int, float]]:
    """The gradient of one draw's log-likelihood, and the chances of each bot left."""
    left, drawn = stage
    weights = {bot: math.exp(-theta[bot]) for bot in set(left)}
    counts = Counter(left)
    total = math.fsum(weights[bot] * counts[bot] for bot in counts)
    chance = {bot: weights[bot] * counts[bot] / total for bot in counts}
    gradient = dict(chance)
    gradient[drawn] -= 1.0
    return gradient, chance


@attrs.frozen
class Rating:
    """One bot's rating: Elo with its 95 % interval and standard error, and its games.

    >>> Rating("greedy", 120.0, 100.0, 140.0, 10.2, 30).elo
    120.0
    """

    bot: str
    elo: float
    low: float
    high: float
    se: float
    games: int


@attrs.frozen
class Ratings:
    """Plackett–Luce ratings of ``bots``: Elo (anchor at 0) and their covariance.

    ``covariance[i][j]`` is the clustered (sandwich) covariance of the Elo of
    bots ``i`` and ``j``, in Elo²; the anchor's row is 0.

    >>> ratings = Ratings(("a", "b"), "a", (0.0, 50.0), ((0.0, 0.0), (0.0, 100.0)), (4, 4), 2)
    >>> round(ratings.stronger("b", "a"), 4)
    1.0
    """

    bots: tuple[str, ...]
    anchor: str
    elo: tuple[float, ...]
    covariance: tuple[tuple[float, ...], ...]
    games: tuple[int, ...]
    clusters: int

    def difference_se(self, a: str, b: str) -> float:
        """The standard error of ``elo(a) − elo(b)``.

        >>> ratings = Ratings(("a", "b"), "a", (0.0, 50.0), ((0.0, 0.0), (0.0, 100.0)), (4, 4), 2)
        >>> ratings.difference_se("a", "b")
        10.0
        """
        i, j = self._index(a), self._index(b)
        cov = self.covariance
        return math.sqrt(max(0.0, cov[i][i] + cov[j][j] - 2 * cov[i][j]))

    def stronger(self, a: str, b: str) -> float:
        """The chance that ``a`` is stronger than ``b`` (normal approximation): the
        cell of the ladder's matrix.

        >>> ratings = Ratings(("a", "b"), "a", (0.0, 10.0), ((0.0, 0.0), (0.0, 100.0)), (4, 4), 2)
        >>> round(ratings.stronger("b", "a"), 3), ratings.stronger("a", "a")
        (0.841, 0.5)
        """
        se = self.difference_se(a, b)
        diff = self.elo[self._index(a)] - self.elo[self._index(b)]
        if se == 0:
            return 0.5 if diff == 0 else float(diff > 0)
        return NormalDist().cdf(diff / se)

    def _index(self, bot: str) -> int:
        try:
            return self.bots.index(bot)
        except ValueError:
            raise ArgumentError(f"no bot {bot!r}; bots: {', '.join(self.bots)}") from None

    def rating(self, bot: str, confidence: float = 0.95) -> Rating:
        """``bot``'s :class:`Rating` (its interval against the anchor).

        >>> ratings = Ratings(("a", "b"), "a", (0.0, 50.0), ((0.0, 0.0), (0.0, 100.0)), (4, 4), 2)
        >>> r = ratings.rating("b")
        >>> round(r.low, 1), round(r.high, 1)
        (30.4, 69.6)
        """
        i = self._index(bot)
        se = math.sqrt(max(0.0, self.covariance[i][i]))
        z = NormalDist().inv_cdf((1 + confidence) / 2)
        return Rating(
            bot, self.elo[i], self.elo[i] - z * se, self.elo[i] + z * se, se, self.games[i]
        )


def fit_plackett_luce(
    games: Sequence[MatchGame],
    bots: Sequence[str],
    anchor: str | None = None,
    *,
    by: str = "order",
) -> Ratings:
    """Fit Plackett–Luce ratings of ``bots`` to the finishing orders of ``games``
    (``by="order"``) or to who lost them only (``by="loser"``: see the module).

    Each game's order is drawn from the bottom (see the module); the log-strengths
    of greatest likelihood are found by Newton's method with ``anchor`` (default
    ``random`` if it plays, else the first bot) fixed at 0. The covariance is the
    sandwich ``I⁻¹ B I⁻¹``, ``I`` the information and ``B`` the sum over deal sets
    (``game.deal``) of the outer products of their score vectors, times
    ``G / (G − 1)`` for ``G`` deal sets.

    >>> import skitgubbe as sg
    >>> match = sg.run_match(["greedy", "random", "random"], deals=6, seed=2)
    >>> ratings = fit_plackett_luce(match.games, ["greedy", "random"])
    >>> ratings.anchor, ratings.elo[0] > 100
    ('random', True)
    >>> fit_plackett_luce(match.games, ["greedy", "random"], by="loser").elo[0] > 100
    True
    """
    if by not in RATED_BY:
        raise ArgumentError(f"by must be one of {', '.join(RATED_BY)}, not {by!r}")
    bots = tuple(bots)
    if len(set(bots)) != len(bots) or len(bots) < 2:
        raise ArgumentError(f"give at least two distinct bots, not {bots!r}")
    if anchor is None:
        anchor = "random" if "random" in bots else bots[0]
    if anchor not in bots:
        raise ArgumentError(f"the anchor {anchor!r} is not one of the bots {bots!r}")
    index = {bot: i for i, bot in enumerate(bots)}
    clusters: dict[int, Counter[tuple[tuple[int, ...], int]]] = {}
    played = [0] * len(bots)
    for game in games:
        for spec in game.seats:
            if spec not in index:
                raise ArgumentError(f"a game has the bot {spec!r}, not one of {bots!r}")
            played[index[spec]] += 1
        clusters.setdefault(game.deal, Counter()).update(_stages(game, index, by))
    if len(clusters) < 2:
        raise ArgumentError("the ratings need games of at least two deal sets")
    stages: Counter[tuple[tuple[int, ...], int]] = Counter()
    for counter in clusters.values():
        stages.update(counter)
    fixed = index[anchor]
    free = [i for i in range(len(bots)) if i != fixed]
    theta = [0.0] * len(bots)
    info: list[list[float]] = []
    for _ in range(100):
        grad = [-_RIDGE * t for t in theta]
        full = [[0.0] * len(bots) for _ in bots]
        for stage, count in stages.items():
            gradient, chance = _score(theta, stage)
            for bot, value in gradient.items():
                grad[bot] += count * value
            for a, pa in chance.items():
                full[a][a] += count * pa
                for b, pb in chance.items():
                    full[a][b] -= count * pa * pb
        info = [[full[a][b] + _RIDGE * (a == b) for b in free] for a in free]
        step = _solve(info, [grad[a] for a in free])
        for a, s in zip(free, step, strict=True):
            theta[a] += s
        if max(map(abs, step)) < 1e-10:
            break
    inverse = _inverse(info)
    meat = [[0.0] * len(free) for _ in free]
    for counter in clusters.values():
        u = [0.0] * len(bots)
        for stage, count in counter.items():
            for bot, value in _score(theta, stage)[0].items():
                u[bot] -= count * value
        uf = [u[a] for a in free]
        for i, ui in enumerate(uf):
            for j, uj in enumerate(uf):
                meat[i][j] += ui * uj
    g = len(clusters)
    scale = ELO_PER_THETA**2 * g / (g - 1)
    half = [
        [math.fsum(inverse[i][k] * meat[k][j] for k in range(len(free))) for j in range(len(free))]
        for i in range(len(free))
    ]
    sandwich = [
        [math.fsum(half[i][k] * inverse[k][j] for k in range(len(free))) for j in range(len(free))]
        for i in range(len(free))
    ]
    covariance = [[0.0] * len(bots) for _ in bots]
    for i, a in enumerate(free):
        for j, b in enumerate(free):
            covariance[a][b] = scale * sandwich[i][j]
    return Ratings(
        bots=bots,
        anchor=anchor,
        elo=tuple(ELO_PER_THETA * t for t in theta),
        covariance=tuple(map(tuple, covariance)),
        games=tuple(played),
        clusters=g,
    )


def ladder_tables(
    bots: Sequence[str], players: int, round_: int, seed: int, gauntlet: str | None = None
) -> list[tuple[str, ...]]:
    """The tables of round ``round_`` of a ladder: every table of ``players`` of the
    ``bots`` while there are at most ten (each round the same), else balanced
    random tables (a seeded shuffle cut into tables, the last filled from the
    start, so every bot plays once or twice a round). With ``gauntlet`` only its
    tables: it and every ``players - 1`` of the others (or random groups of them).

    >>> ladder_tables(["a", "b", "c"], 2, 0, 0)
    [('a', 'b'), ('a', 'c'), ('b', 'c')]
    >>> ladder_tables(["a", "b", "c"], 3, 0, 0, gauntlet="d")
    [('d', 'a', 'b'), ('d', 'a', 'c'), ('d', 'b', 'c')]
    >>> sorted(map(len, ladder_tables([str(i) for i in range(12)], 4, 0, 0)))
    [4, 4, 4]
    """
    others = list(bots)
    size = players - (gauntlet is not None)
    if len(others) < size:
        raise ArgumentError(f"{players}-seat tables need at least {players} bots")
    if len(others) <= _ROUND_ROBIN_BOTS:
        groups = [list(group) for group in itertools.combinations(others, size)]
    else:
        shuffled = list(others)
        random.Random(f"{seed}/{round_}").shuffle(shuffled)
        count = -(-len(shuffled) // size)
        groups = [
            [shuffled[(t * size + i) % len(shuffled)] for i in range(size)] for t in range(count)
        ]
    return [tuple(([gauntlet] if gauntlet is not None else []) + group) for group in groups]


class _Schedule:
    """Which table, and so which seatings, each deal set of a ladder has: deal set
    ``offset + r·T + t`` is table ``t`` of round ``r``'s :func:`ladder_tables` (``T`` of
    them a round, however many rounds there are), played on its own deal, under every
    seating of the table in :func:`~skitgubbe.arena.arrangements`' order.

    >>> schedule = _Schedule(["a", "b", "c"], Rules.classic(2), 0, None, 10)
    >>> schedule.table(10), schedule.table(14), schedule.table(9)  # round 0, round 1, none
    (('a', 'b'), ('a', 'c'), None)
    """

    def __init__(
        self, bots: Sequence[str], rules: Rules, seed: int, gauntlet: str | None, offset: int
    ) -> None:
        self.bots, self.rules, self.seed, self.gauntlet = tuple(bots), rules, seed, gauntlet
        self.offset = offset
        self.per_round = len(self._round(0))
        self.rounds: dict[int, list[tuple[str, ...]]] = {}

    def _round(self, round_: int) -> list[tuple[str, ...]]:
        return ladder_tables(self.bots, self.rules.players, round_, self.seed, self.gauntlet)

    def table(self, key: int) -> tuple[str, ...] | None:
        """The table of deal set ``key`` (``None``: no deal set of this ladder)."""
        if key < self.offset:
            return None
        round_, index = divmod(key - self.offset, self.per_round)
        if round_ not in self.rounds:
            if len(self.rounds) > 64:  # a file is read in order: rounds seldom come back
                self.rounds.clear()
            self.rounds[round_] = self._round(round_)
        return self.rounds[round_][index]

    def check(self, key: int, games: Sequence[MatchGame]) -> None:
        """Refuse the deal set ``key`` read back as ``games`` unless it is what the ladder
        plays as that set: its table's every seating once, in order, each on the set's
        own deal, and each result one a game can have. A
        :class:`~skitgubbe.errors.RecordError` says what was expected and what found.

        Who lost, and the order the others went out in, are checked to be consistent
        (a permutation of the table's seats, the loser last; a truncated game ended by
        the move cap, with no loser; a crash lost by the crashed seat), not to be the
        game's: that takes playing it again.

        >>> schedule = _Schedule(["a", "b"], Rules.classic(2), 0, None, 0)
        >>> schedule.check(3, [MatchGame(3, 0, ("a", "b"), 1, (0, 1), False, 50),
        ...                    MatchGame(3, 1, ("b", "a"), 0, (1, 0), False, 70)])
        >>> schedule.check(3, [MatchGame(3, 0, ("a", "b"), 0, (0, 1), False, 50)])
        Traceback (most recent call last):
            ...
        skitgubbe.errors.RecordError: deal set 3: expected 2 games (one for each seating of its table ('a', 'b')), found 1
        """  # noqa: E501
        table = self.table(key)
        if table is None:
            raise RecordError(
                f"deal set {key}: expected a deal set from {self.offset} on (this ladder's)"
            )
        seatings = arrangements(table)
        if len(games) != len(seatings):
            raise RecordError(
                f"deal set {key}: expected {len(seatings)} games (one for each seating of its "
                f"table {brief(table)}), found {len(games)}"
            )
        cap = self.rules.max_moves
        for index, (game, seats) in enumerate(zip(games, seatings, strict=True)):
            where = f"deal set {key}, game {index}"
            if game.arrangement != index:
                raise RecordError(
                    f"{where}: expected arrangement {index}, found {game.arrangement}"
                )
            if len(set(game.seats)) != len(game.seats):
                raise RecordError(f"{where}: a bot twice at one table: {brief(game.seats)}")
            if game.seats != seats:
                raise RecordError(
                    f"{where}: expected the seats {brief(seats)}, found {brief(game.seats)}"
                )
            if game.deal != key:
                raise RecordError(
                    f"{where}: expected deal {key} (its deal set's), found {game.deal}"
                )
            problem = _result_problem(game, cap)
            if problem is not None:
                raise RecordError(f"{where}: {problem}")


def _result_problem(game: MatchGame, cap: int) -> str | None:
    """What makes ``game``'s result one no game under a move cap of ``cap`` has, if anything."""
    players = len(game.seats)
    order, loser = game.finish_order, game.loser
    if game.moves > cap:
        return f"{game.moves} moves, more than the rules' cap of {cap}"
    if game.crash is not None:
        if loser != game.crash.seat or not order or order[-1] != game.crash.seat:
            return (
                f"the loser is seat {loser} and the finish order {list(order)}: a crash of "
                f"seat {game.crash.seat} has that seat as the loser, last in the finish order"
            )
        return None
    if game.truncated:
        if loser is not None or game.moves != cap or len(order) >= players:
            return (
                f"truncated after {game.moves} moves with the loser {loser} and the finish "
                f"order {list(order)}: the move cap ends a game after {cap} moves, with no "
                "loser and a seat still holding cards"
            )
        return None
    if sorted(order) != list(range(players)):
        return f"the finish order {list(order)} is not every seat of the table once"
    if loser is not None and loser != order[-1]:
        return f"the loser is seat {loser}, not seat {order[-1]}, last in the finish order"
    return None


def _fit(result: LadderResult) -> Ratings:
    return fit_plackett_luce(result.games, result.bots, by=result.by)


@attrs.frozen
class LadderResult:
    """What :func:`run_ladder` played and the ratings fitted to it.

    ``bots`` are every bot of the ladder (with a gauntlet, the earlier ones and
    then the new one); ``games`` every game, each deal set's ``deal`` its own;
    ``by`` what the ratings are fitted to (:data:`RATED_BY`); ``fit`` the
    :class:`Ratings` (computed from the games).

    >>> ladder = run_ladder(["greedy", "random"], rounds=3, seed=4)
    >>> len(ladder.games), ladder.rules.players, ladder.fit.clusters
    (6, 2, 3)
    """

    bots: tuple[str, ...]
    rules: Rules
    seed: int
    rounds: int
    games: tuple[MatchGame, ...]
    by: str = "order"
    fit: Ratings = attrs.field(init=False, default=attrs.Factory(_fit, takes_self=True))

    @property
    def anchor(self) -> str:
        """The bot rated 0: ``random`` if it plays, else the first bot.

        >>> run_ladder(["greedy", "ismcts:iterations=30"], rounds=2, seed=4).anchor
        'greedy'
        """
        return self.fit.anchor

    @property
    def ratings(self) -> tuple[Rating, ...]:
        """Every bot's :class:`Rating`, strongest first.

        >>> [r.bot for r in run_ladder(["random", "greedy"], rounds=2, seed=4).ratings]
        ['greedy', 'random']
        """
        return tuple(
            sorted((self.fit.rating(bot) for bot in self.bots), key=lambda r: (-r.elo, r.bot))
        )

    def matrix(self) -> tuple[tuple[float, ...], ...]:
        """``matrix()[i][j]``: the chance that bot ``i`` is stronger than bot ``j``, in the
        order of :attr:`ratings`.

        >>> m = run_ladder(["random", "greedy"], rounds=3, seed=4).matrix()
        >>> m[0][1] > 0.5, m[0][0]
        (True, 0.5)
        """
        order = [r.bot for r in self.ratings]
        return tuple(tuple(self.fit.stronger(a, b) for b in order) for a in order)

    def describe(self) -> str:
        """The ladder as a text table, then the matrix.

        >>> ladder = run_ladder(["random", "greedy"], rounds=3, seed=4)
        >>> print(ladder.describe())  # doctest: +ELLIPSIS
        Ladder: classic, 2 players, seed 4; 3 deal sets, 6 games; Elo anchored at random = 0
        rank  bot ...
        P(row is stronger than column):
        ...
        """
        sets = self.fit.clusters
        lines = [
            f"Ladder: {self.rules.describe()}, seed {self.seed}; {sets} deal sets, "
            f"{len(self.games)} games; Elo anchored at {self.anchor} = 0",
        ]
        if self.by == "loser":
            lines[0] += "; rated by who lost"
        rows: list[tuple[str, ...]] = [("rank", "bot", "Elo", "95 % interval", "games")]
        rows += [
            (
                str(rank),
                r.bot,
                f"{r.elo:+.0f}",
                f"{r.low:+.0f} .. {r.high:+.0f}",
                str(r.games),
            )
            for rank, r in enumerate(self.ratings, 1)
        ]
        widths = [max(len(row[i]) for row in rows) for i in range(5)]
        for row in rows:
            cells: list[str] = [
                c.ljust(w) if i in (0, 1) else c.rjust(w)
                for i, (c, w) in enumerate(zip(row, widths, strict=True))
            ]
            lines.append("  ".join(cells).rstrip())
        lines.append("P(row is stronger than column):")
        names = [r.bot for r in self.ratings]
        width = max(map(len, names))
        for name, chances in zip(names, self.matrix(), strict=True):
            lines.append(f"{name.ljust(width)}  " + " ".join(f"{p:5.2f}" for p in chances))
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """The ladder as JSON-able data (ratings, matrix and games).

        >>> data = run_ladder(["random", "greedy"], rounds=2, seed=4).to_dict()
        >>> data["format"], [r["bot"] for r in data["ratings"]]
        ('skitgubbe-ladder', ['greedy', 'random'])
        """
        return {
            "format": LADDER_FORMAT,
            "version": LADDER_VERSION,
            "bots": list(self.bots),
            "rules": self.rules.to_dict(),
            "seed": self.seed,
            "rounds": self.rounds,
            "by": self.by,
            "anchor": self.anchor,
            "ratings": [attrs.asdict(r) for r in self.ratings],
            "matrix": [list(row) for row in self.matrix()],
            "covariance": [list(row) for row in self.fit.covariance],
            "games": [game.to_dict() for game in self.games],
        }

    @classmethod
    def from_dict(cls, data: Any) -> LadderResult:
        """The ladder :meth:`to_dict` wrote (ratings fitted again from the games).

        >>> ladder = run_ladder(["random", "greedy"], rounds=2, seed=4)
        >>> LadderResult.from_dict(ladder.to_dict()) == ladder
        True
        """
        check_header(data, format=LADDER_FORMAT, versions=(LADDER_VERSION,), what="ladder record")
        try:
            return cls(
                bots=tuple(data["bots"]),
                rules=Rules.from_dict(data["rules"]),
                seed=data["seed"],
                rounds=data["rounds"],
                games=tuple(MatchGame.from_dict(game) for game in data["games"]),
                by=data.get("by", "order"),  # (a ladder saved before by was kept)
            )
        except (KeyError, TypeError) as exc:
            raise RecordError(f"bad ladder record: {exc!r}") from None

    def save_json(self, path: str) -> None:
        """Write :meth:`to_dict` as JSON to ``path``.

        >>> import os, tempfile
        >>> path = os.path.join(tempfile.mkdtemp(), "ladder.json")
        >>> run_ladder(["random", "greedy"], rounds=2, seed=4).save_json(path)
        >>> os.path.getsize(path) > 100
        True
        """
        write_text(path, json.dumps(self.to_dict(), ensure_ascii=False) + "\n")

    def save_csv(self, path: str) -> None:
        """Write one CSV row per bot: ``rank``, ``bot``, ``elo``, ``low``, ``high``,
        ``se``, ``games``, then ``p_stronger_than_BOT`` for every bot.

        >>> import csv, os, tempfile
        >>> path = os.path.join(tempfile.mkdtemp(), "ladder.csv")
        >>> run_ladder(["random", "greedy"], rounds=2, seed=4).save_csv(path)
        >>> with open(path, encoding="utf-8") as file:
        ...     [row["bot"] for row in csv.DictReader(file)]
        ['greedy', 'random']
        """
        order = [r.bot for r in self.ratings]
        header = ["rank", "bot", "elo", "low", "high", "se", "games"]
        header += [f"p_stronger_than_{bot}" for bot in order]
        rows = (
            [rank, r.bot, r.elo, r.low, r.high, r.se, r.games, *row]
            for rank, (r, row) in enumerate(zip(self.ratings, self.matrix(), strict=True), 1)
        )
        write_csv(path, header, rows)

    def plot(self, path: str) -> None:
        """Draw the ratings with their 95 % intervals as a PNG at ``path`` (needs matplotlib).

        >>> import pathlib, tempfile
        >>> path = pathlib.Path(tempfile.mkdtemp(), "ladder.png")
        >>> run_ladder(["random", "greedy"], rounds=2, seed=4).plot(str(path))
        >>> path.read_bytes()[:4]
        b'\\x89PNG'
        """
        ratings = self.ratings[::-1]
        figure, axes = plot_figure((6.0, 1.0 + 0.45 * len(ratings)))
        positions = range(len(ratings))
        axes.errorbar(
            [r.elo for r in ratings],
            positions,
            xerr=[[r.elo - r.low for r in ratings], [r.high - r.elo for r in ratings]],
            fmt="o",
            capsize=4,
            color="#4c72b0",
        )
        axes.set_yticks(list(positions), [r.bot for r in ratings])
        axes.axvline(0, color="grey", linestyle="--", linewidth=1)
        axes.set_xlabel(f"Elo ({self.anchor} = 0), 95 % intervals clustered by deal set")
        axes.set_title(f"{self.rules.describe()}: {self.fit.clusters} deal sets", fontsize=10)
        figure.savefig(path, format="png")


def run_ladder(
    bots: Sequence[str],
    rules: Rules | None = None,
    *,
    rounds: int,
    seed: int,
    base: LadderResult | None = None,
    state: str | None = None,
    jobs: int | None = None,
    executor: Executor | None = None,
    chunk_size: int | None = None,
    progress: bool | Progress = False,
    move_time: float | None = None,
    isolate: bool = False,
    timeout: float | None = None,
    by: str = "order",
) -> LadderResult:
    """Rate ``bots`` against each other: ``rounds`` rounds of :func:`ladder_tables`.

    ``rules`` default to the classic rules for three players (two if there are
    only two bots). Each table of a round plays one deal (its own; deal ``k``
    shuffled from ``game_seed(seed, k)``) under every seating. With ``base``, an
    earlier ladder, ``bots`` is the one bot to add: a gauntlet plays only its
    tables against the bots of ``base``, and the ratings are fitted to the games
    of both. ``state``, ``jobs``, ``executor``, ``chunk_size``, ``progress``,
    ``move_time`` and ``isolate`` are as in :func:`~skitgubbe.arena.sprt.run_sprt` (the
    state file makes a ladder resumable, and lets it grow: run again with more ``rounds``
    and the same file, and only the new rounds are played, since round ``r``'s tables
    and deals do not depend on how many rounds there are; ``timeout`` is the old name of
    ``move_time``, deprecated). Every line of the state file is checked against that
    schedule before anything is played: a deal set on two lines, or one whose games are
    not its table's seatings once each on its own deal, with a result a game can have,
    is a :class:`~skitgubbe.errors.RecordError` naming the line, what was expected and
    what found (the results themselves are not played again: docs/sprt.md, resuming).
    ``by`` is what the ratings are fitted to (:data:`RATED_BY`); it plays no part in the
    games, so a finished ladder's state file can be rated again either way.

    >>> ladder = run_ladder(["greedy", "random"], rounds=4, seed=1)
    >>> gauntlet = run_ladder(["ismcts:iterations=30"], rounds=1, seed=1, base=ladder)
    >>> gauntlet.bots, len(gauntlet.games) - len(ladder.games)
    (('greedy', 'random', 'ismcts:iterations=30'), 4)
    """
    if isinstance(bots, str) or not isinstance(bots, Sequence):
        raise ArgumentTypeError(f"bots must be a sequence of bot specs, not {bots!r}")
    given = tuple(bots)
    if any(type(bot) is not str for bot in given) or len(set(given)) != len(given):
        raise ArgumentError(f"bots must be distinct bot specs, not {given!r}")
    gauntlet = None
    earlier: tuple[MatchGame, ...] = ()
    if base is not None:
        if not isinstance(base, LadderResult):
            raise ArgumentTypeError(f"base must be a LadderResult, not {base!r}")
        if len(given) != 1 or given[0] in base.bots:
            raise ArgumentError(
                f"a gauntlet adds one new bot to the ladder of {', '.join(base.bots)}, "
                f"not {given!r}"
            )
        gauntlet, others, earlier = given[0], base.bots, base.games
        if rules is None:
            rules = base.rules
    else:
        others = given
        if len(given) < 2:
            raise ArgumentError(f"a ladder needs at least two bots, not {given!r}")
    everyone = (*others, *given) if gauntlet is not None else given
    if rules is None:
        rules = Rules.classic(players=min(3, len(everyone)))
    if not isinstance(rules, Rules):
        raise ArgumentTypeError(f"rules must be a Rules, not {rules!r}")
    move_time = move_time_argument(move_time, timeout, "run_ladder")
    if by not in RATED_BY:
        raise ArgumentError(f"by must be one of {', '.join(RATED_BY)}, not {by!r}")
    check_int("rounds", rounds, 1)
    check_int("seed", seed, 0, 2**64)
    report = check_running(jobs, executor, chunk_size, progress, "ladder")
    offset = max((game.deal for game in earlier), default=-1) + 1
    plans: dict[tuple[str, ...], MatchPlan] = {}
    schedule: list[tuple[int, MatchPlan]] = []
    for round_ in range(rounds):
        for table in ladder_tables(others, rules.players, round_, seed, gauntlet):
            if table not in plans:
                plans[table] = make_plan(table, rules, seed, move_time, isolate)
            schedule.append((offset + len(schedule), plans[table]))
    journal = None
    if state is not None:
        ladder = _Schedule(others, rules, seed, gauntlet, offset)
        header = state_header(
            "ladder",
            rules.to_dict(),
            specs=list(everyone),
            seed=seed,
            params={"rounds": rounds, "gauntlet": gauntlet, "offset": offset, "timeout": move_time},
        )
        # More rounds: the same deals first. Every line is checked against the schedule.
        journal = Journal(state, header, grows=("rounds",), check=ladder.check)
    done = {} if journal is None else dict(journal.sets)
    if report is not None:
        report(len(done), len(schedule))
    units: Iterator[Unit] = ((key, plan, key) for key, plan in schedule if key not in done)
    discarded: list[int] = []
    try:
        for key, played in play_units(
            units, jobs=jobs, executor=executor, chunk_size=chunk_size, discarded=discarded
        ):
            done[key] = tuple(played)
            if journal is not None:
                journal.append(key, played)
            if report is not None:
                report(len(done), len(schedule))
    finally:
        if journal is not None:
            journal.close()
    games = [game for key, _ in schedule for game in done[key]]
    return LadderResult(
        bots=everyone, rules=rules, seed=seed, rounds=rounds, games=(*earlier, *games), by=by
    )
