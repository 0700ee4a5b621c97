"""Is a new bot stronger? A sequential probability ratio test over duplicate deals.

:func:`run_sprt` seats NEW against copies of OLD and plays deal sets (one deal
under every seating, as in :func:`~skitgubbe.run_match`) until the evidence
decides. Each deal set gives one score: NEW's share of the loss, the mean over
its games of 1 if NEW was the skitgubbe, ``1/m`` if the game was stopped with
NEW among the ``m`` seats still holding cards, else 0. Between bots of equal
strength the score's expectation is exactly ``1 / players``, truncated games or
not. The test is the generalized SPRT (as fishtest runs it on pentanomial
outcomes) on these scores:

* H0: NEW's mean loss share is ``mu0`` (not better than the lower bound);
* H1: NEW's mean loss share is ``mu1 < mu0`` (better by the upper bound).

The bounds are given as Elo (``P(lose) = 1 / (1 + (n - 1) * 10 ** (elo / 400))``)
or as loss-rate differences below the fair share ``1 / n``. ``docs/sprt.md``
explains the statistics.

>>> round(loss_rate(0, 3), 4), round(loss_rate(100, 2), 4)
(0.3333, 0.3599)
>>> [round(b, 3) for b in wald_bounds(0.05, 0.05)]
[-2.944, 2.944]
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Iterator, Sequence
from concurrent.futures import Executor
from fractions import Fraction
from typing import Any, Final, Literal, TypeAlias

import attrs

from .._files import write_text
from ..bots import command
from ..bots.command import is_engine_spec
from ..errors import ArgumentError, ArgumentTypeError
from ..game.rules import Rules
from ._journal import Journal, state_header
from .results import MatchGame, plot_figure, wilson_interval
from .runner import Progress, Unit, check_int, check_running, make_plan, move_time_argument
from .workers import play_units

__all__ = [
    "SPRT_FORMAT",
    "Decision",
    "SprtResult",
    "deal_set_score",
    "gsprt_llr",
    "loss_rate",
    "loss_rate_elo",
    "run_sprt",
    "wald_bounds",
]

SPRT_FORMAT: Final = "skitgubbe-sprt"
"""The ``format`` field of a saved test (:meth:`SprtResult.to_dict`)."""

Decision: TypeAlias = Literal["H0", "H1"]
"""``"H1"``: NEW is stronger (by the upper bound); ``"H0"``: it is not (the lower bound)."""

_EPSILON: Final = 1e-3
"""The count given to a score never seen at the ends 0 and 1 (fishtest's regularization):
it keeps every hypothesis' mean inside the support, so the likelihood ratio is finite."""


def loss_rate(elo: float, players: int) -> float:
    """The chance that a bot ``elo`` points stronger than each of ``players - 1``
    equal opponents is the skitgubbe: ``1 / (1 + (players - 1) * 10 ** (elo / 400))``.

    For two players this is plain Elo: the loser's chance of a bot ``elo`` points
    stronger. It is the Plackett–Luce model of :mod:`skitgubbe.arena.ladder`.

    >>> loss_rate(0, 4), round(loss_rate(-200, 2), 4)
    (0.25, 0.7597)
    """
    _check_players(players)
    return 1 / (1 + (players - 1) * 10 ** (elo / 400))


def loss_rate_elo(rate: float, players: int) -> float:
    """The Elo difference that gives the loss rate ``rate`` (the inverse of :func:`loss_rate`).

    >>> round(loss_rate_elo(0.25, 4), 9), round(loss_rate_elo(loss_rate(35, 3), 3), 9)
    (0.0, 35.0)
    """
    _check_players(players)
    if not 0 < rate < 1:
        raise ArgumentError(f"a loss rate must lie strictly between 0 and 1, not {rate!r}")
    return 400 * math.log10((1 / rate - 1) / (players - 1))


def _check_players(players: int) -> None:
    if type(players) is not int or not 2 <= players <= 4:
        raise ArgumentError(f"players must be 2, 3 or 4, not {players!r}")


def wald_bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Wald's bounds on the log-likelihood ratio: ``(log(β/(1−α)), log((1−β)/α))``.

    The test accepts H0 below the first and H1 above the second; ``alpha`` is the
    chance of accepting H1 when H0 holds, ``beta`` that of accepting H0 when H1 does.

    >>> [round(b, 4) for b in wald_bounds(0.05, 0.1)]
    [-2.2513, 2.8904]
    """
    for name, value in (("alpha", alpha), ("beta", beta)):
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value < 0.5:
            raise ArgumentError(
                f"{name} must be a number strictly between 0 and 0.5, not {value!r}"
            )
    return math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)


def _lagrange(values: Sequence[float], weights: Sequence[float], mu: float) -> float:
    """The λ solving Σ wᵢ (xᵢ − μ) / (1 + λ (xᵢ − μ)) = 0, every denominator positive.

    The sum falls from +∞ to −∞ across the bracket, so bisection brackets it and
    Newton's steps (kept inside the bracket) finish it.
    """
    deltas = [x - mu for x in values]
    low = -1 / max(deltas)  # a delta reaches 0 at the edge of the allowed λ
    high = -1 / min(deltas)
    lam = 0.0
    for _ in range(200):
        f = 0.0
        slope = 0.0
        for w, d in zip(weights, deltas, strict=True):
            q = d / (1 + lam * d)
            f += w * q
            slope -= w * q * q
        if f > 0:
            low = lam
        else:
            high = lam
        step = lam - f / slope if slope else (low + high) / 2
        if not low < step < high:
            step = (low + high) / 2
        if abs(step - lam) <= 1e-15 * max(1.0, abs(lam)):
            return step
        lam = step
    return lam


def gsprt_llr(values: Sequence[float], counts: Sequence[float], mu0: float, mu1: float) -> float:
    """The generalized log-likelihood ratio of mean ``mu1`` against ``mu0``.

    ``counts[i]`` observations took the value ``values[i]``. Under each
    hypothesis the outcome distribution is the one of greatest likelihood among
    those on ``values`` with that mean, ``p̂ᵢ / (1 + λ (xᵢ − μ))``; the ratio is
    ``N Σ p̂ᵢ log(p₁ᵢ / p₀ᵢ)``. A count of 0 counts as 0.001 (as fishtest does), so
    give the ends of the range of possible values even when unseen. Positive
    values favour ``mu1``.

    fishtest's own example: the pentanomial outcomes of a test of logistic
    Elo −3 against 1 (the scores of game pairs 0, ¼, ½, ¾, 1; Elo as the
    expected score ``1 / (1 + 10 ** (−elo / 400))``):

    >>> score = lambda elo: 1 / (1 + 10 ** (-elo / 400))
    >>> pairs = [10789, 19328, 33806, 19402, 10543]
    >>> round(gsprt_llr([0, 0.25, 0.5, 0.75, 1], pairs, score(-3), score(1)), 6)
    2.131068
    """
    if len(values) != len(counts) or len(values) < 2:
        raise ArgumentError("give as many counts as values, for at least two values")
    if any(not math.isfinite(c) or c < 0 for c in counts):
        raise ArgumentError(f"counts must be finite and not negative, not {list(counts)!r}")
    weights = [c if c > 0 else _EPSILON for c in counts]
    total = math.fsum(counts)
    low, high = min(values), max(values)
    for name, mu in (("mu0", mu0), ("mu1", mu1)):
        if not low < mu < high:
            raise ArgumentError(f"{name} must lie strictly between {low} and {high}, not {mu!r}")
    norm = math.fsum(weights)
    shares = [w / norm for w in weights]
    lam0 = _lagrange(values, shares, mu0)
    lam1 = _lagrange(values, shares, mu1)
    return total * math.fsum(
        p * (math.log1p(lam0 * (x - mu0)) - math.log1p(lam1 * (x - mu1)))
        for x, p in zip(values, shares, strict=True)
    )


def _loss_share(game: MatchGame, seat: int) -> Fraction:
    """The share of the game's loss held by ``seat``: a truncated game's loss is
    shared among the seats still holding cards."""
    if game.loser is not None:
        return Fraction(int(game.loser == seat))
    holders = [s for s in range(len(game.seats)) if s not in game.finish_order]
    return Fraction(1, len(holders)) if seat in holders else Fraction(0)


def deal_set_score(games: Sequence[MatchGame], entrant: str) -> Fraction:
    """``entrant``'s share of the loss over the games of one deal set (its mean over the
    games; ``entrant`` sits in one seat of each).

    >>> import skitgubbe as sg
    >>> match = sg.run_match(["greedy", "random", "random"], deals=1, seed=3)
    >>> score = deal_set_score(match.games, "greedy")
    >>> score in (0, sg.arena.sprt.Fraction(1, 3), sg.arena.sprt.Fraction(2, 3), 1)
    True
    """
    if not games:
        raise ArgumentError("a deal set has at least one game")
    total = Fraction(0)
    for game in games:
        if game.seats.count(entrant) != 1:
            raise ArgumentError(f"{entrant!r} must hold exactly one seat of {game.seats}")
        total += _loss_share(game, game.seats.index(entrant))
    return total / len(games)


@attrs.frozen
class SprtResult:
    """What :func:`run_sprt` found.

    ``mu0`` and ``mu1`` are the mean loss shares of NEW under H0 and H1 (``elo0``
    and ``elo1`` the same as Elo); ``lower`` and ``upper`` Wald's bounds;
    ``decision`` ``"H1"`` (NEW is stronger), ``"H0"`` (it is not) or ``None``
    (``max_deals`` reached first). ``scores`` are NEW's loss shares of the
    deal sets the decision rests on (the contiguous prefix 0, 1, …), ``llr``
    the ratio after each; ``games`` their games. ``discarded`` counts deal sets
    played (or in flight) past the decision, which do not count.

    >>> result = run_sprt("greedy", "random", seed=1, elo0=0, elo1=200, max_deals=3)
    >>> result.deal_sets, len(result.games), len(result.llr_path)
    (3, 9, 3)
    """

    new: str
    old: str
    rules: Rules
    seed: int
    mu0: float
    mu1: float
    alpha: float
    beta: float
    max_deals: int | None
    scores: tuple[Fraction, ...]
    llr_path: tuple[float, ...]
    games: tuple[MatchGame, ...]
    decision: Decision | None
    discarded: int = 0

    @property
    def players(self) -> int:
        """Seats at the table.

        >>> run_sprt("greedy", "random", seed=1, max_deals=1).players
        3
        """
        return self.rules.players

    @property
    def lower(self) -> float:
        """Wald's lower bound (accept H0 at or below it).

        >>> round(run_sprt("greedy", "random", seed=1, max_deals=1).lower, 3)
        -2.944
        """
        return wald_bounds(self.alpha, self.beta)[0]

    @property
    def upper(self) -> float:
        """Wald's upper bound (accept H1 at or above it).

        >>> round(run_sprt("greedy", "random", seed=1, max_deals=1).upper, 3)
        2.944
        """
        return wald_bounds(self.alpha, self.beta)[1]

    @property
    def llr(self) -> float:
        """The log-likelihood ratio at the end (0 before any deal set).

        >>> run_sprt("greedy", "random", seed=1, max_deals=2).llr > 0
        True
        """
        return self.llr_path[-1] if self.llr_path else 0.0

    @property
    def elo0(self) -> float:
        """H0 as Elo (see :func:`loss_rate`).

        >>> round(run_sprt("greedy", "random", seed=1, elo1=40, max_deals=1).elo0, 9)
        0.0
        """
        return loss_rate_elo(self.mu0, self.players)

    @property
    def elo1(self) -> float:
        """H1 as Elo.

        >>> round(run_sprt("greedy", "random", seed=1, elo1=40, max_deals=1).elo1, 9)
        40.0
        """
        return loss_rate_elo(self.mu1, self.players)

    @property
    def deal_sets(self) -> int:
        """Deal sets the decision rests on.

        >>> run_sprt("greedy", "random", seed=1, max_deals=2).deal_sets
        2
        """
        return len(self.scores)

    @property
    def loss_rate(self) -> float:
        """NEW's mean loss share (``1 / players`` for a bot as strong as OLD).

        >>> 0 <= run_sprt("greedy", "random", seed=1, max_deals=2).loss_rate <= 1
        True
        """
        return float(sum(self.scores) / len(self.scores)) if self.scores else 1 / self.players

    @property
    def interval(self) -> tuple[float, float]:
        """The 95 % Wilson interval of NEW's loss rate, each deal set one trial.

        >>> low, high = run_sprt("greedy", "random", seed=1, max_deals=4).interval
        >>> 0 <= low <= high <= 1
        True
        """
        if not self.scores:
            return 0.0, 1.0
        return wilson_interval(float(sum(self.scores)), len(self.scores))

    @property
    def elo(self) -> float:
        """NEW's Elo against OLD estimated from its loss rate (±inf at 0 and 1).

        >>> run_sprt("greedy", "random", seed=1, max_deals=4).elo > 0
        True
        """
        rate = self.loss_rate
        if rate <= 0:
            return math.inf
        if rate >= 1:
            return -math.inf
        return loss_rate_elo(rate, self.players)

    def to_dict(self) -> dict[str, Any]:
        """The test as JSON-able data (the games included).

        >>> data = run_sprt("greedy", "random", seed=1, max_deals=1).to_dict()
        >>> data["format"], data["decision"], data["deal_sets"]
        ('skitgubbe-sprt', None, 1)
        """
        low, high = self.interval
        return {
            "format": SPRT_FORMAT,
            "version": 1,
            "new": self.new,
            "old": self.old,
            "rules": self.rules.to_dict(),
            "seed": self.seed,
            "mu0": self.mu0,
            "mu1": self.mu1,
            "elo0": self.elo0,
            "elo1": self.elo1,
            "alpha": self.alpha,
            "beta": self.beta,
            "lower": self.lower,
            "upper": self.upper,
            "max_deals": self.max_deals,
            "decision": self.decision,
            "llr": self.llr,
            "deal_sets": self.deal_sets,
            "games_played": len(self.games),
            "discarded": self.discarded,
            "loss_rate": self.loss_rate,
            "low": low,
            "high": high,
            "elo": self.elo if math.isfinite(self.elo) else None,
            "scores": [str(score) for score in self.scores],
            "llr_path": list(self.llr_path),
            "games": [game.to_dict() for game in self.games],
        }

    def save_json(self, path: str) -> None:
        """Write :meth:`to_dict` as JSON to ``path``.

        >>> import os, tempfile
        >>> path = os.path.join(tempfile.mkdtemp(), "sprt.json")
        >>> run_sprt("greedy", "random", seed=1, max_deals=1).save_json(path)
        >>> os.path.getsize(path) > 100
        True
        """
        write_text(path, json.dumps(self.to_dict(), ensure_ascii=False) + "\n")

    def describe(self) -> str:
        """The report in a few lines of text.

        >>> result = run_sprt("greedy", "random", seed=1, max_deals=2)
        >>> print(result.describe())  # doctest: +ELLIPSIS
        greedy vs 2 x random: classic, 3 players, seed 1
        H0: ... H1: ...
        LLR ... [-2.944, 2.944]: no decision after 2 deal sets (max 2)
        ...
        """
        verdict = {
            "H1": f"{self.new} is stronger (H1 accepted)",
            "H0": f"{self.new} is not stronger (H0 accepted)",
            None: "no decision",
        }[self.decision]
        low, high = self.interval
        cap = "" if self.max_deals is None else f" (max {self.max_deals})"
        lines = [
            f"{self.new} vs {self.players - 1} x {self.old}: {self.rules.describe()}, "
            f"seed {self.seed}",
            f"H0: loss rate {self.mu0:.4f} (Elo {self.elo0:+.1f}); "
            f"H1: loss rate {self.mu1:.4f} (Elo {self.elo1:+.1f}); "
            f"alpha {self.alpha:g}, beta {self.beta:g}",
            f"LLR {self.llr:.3f} [{self.lower:.3f}, {self.upper:.3f}]: {verdict} after "
            f"{self.deal_sets} deal sets{cap}",
            f"{len(self.games)} games; {self.new}'s loss rate {self.loss_rate:.2%} "
            f"(95 % {low:.2%} - {high:.2%}; fair share {1 / self.players:.2%}), "
            f"Elo {self.elo:+.1f}",
        ]
        if self.discarded:
            lines.append(f"{self.discarded} deal sets played or in flight after the decision")
        return "\n".join(lines)

    def plot(self, path: str) -> None:
        """Draw the path of the LLR between its bounds as a PNG at ``path`` (needs matplotlib).

        >>> import pathlib, tempfile
        >>> path = pathlib.Path(tempfile.mkdtemp(), "llr.png")
        >>> run_sprt("greedy", "random", seed=1, max_deals=3).plot(str(path))
        >>> path.read_bytes()[:4]
        b'\\x89PNG'
        """
        figure, axes = plot_figure((6.0, 4.0))
        axes.plot(range(1, self.deal_sets + 1), self.llr_path, color="#4c72b0")
        for bound, label in ((self.upper, "accept H1"), (self.lower, "accept H0")):
            axes.axhline(bound, color="grey", linestyle="--", linewidth=1)
            axes.annotate(label, (0, bound), textcoords="offset points", xytext=(2, 2))
        axes.set_xlabel("deal sets")
        axes.set_ylabel("log-likelihood ratio")
        axes.set_title(
            f"{self.new} vs {self.old}: Elo [{self.elo0:g}, {self.elo1:g}], "
            f"{self.rules.players} players",
            fontsize=10,
        )
        figure.savefig(path, format="png")


def _hypotheses(
    players: int, elo0: float, elo1: float, delta: tuple[float, float] | None
) -> tuple[float, float]:
    """The loss shares (mu0, mu1) of the hypotheses."""
    if delta is not None:
        if not isinstance(delta, tuple | list) or len(delta) != 2:
            raise ArgumentTypeError(f"delta must be a pair of loss-rate differences, not {delta!r}")
        mu0, mu1 = (1 / players - d for d in delta)
        if not 0 < mu1 < mu0 < 1:
            raise ArgumentError(
                f"delta must be two loss-rate differences d0 < d1 below the fair share "
                f"1/{players} (H0: loss rate 1/{players} - d0, H1: 1/{players} - d1, both "
                f"between 0 and 1), not {tuple(delta)!r}"
            )
        return mu0, mu1
    for name, value in (("elo0", elo0), ("elo1", elo1)):
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not math.isfinite(value)
        ):
            raise ArgumentError(f"{name} must be a finite number, not {value!r}")
    if not elo0 < elo1:
        raise ArgumentError(f"elo0 must be below elo1, not {elo0!r} and {elo1!r}")
    return loss_rate(elo0, players), loss_rate(elo1, players)


def _twin(spec: str) -> str:
    """Another text of the bot spec ``spec`` that makes the same bot: an empty options
    part or a trailing comma (``greedy:``, ``pimc:worlds=8,``, ``cmd[]:./mybot``).

    >>> [_twin(spec) for spec in ("greedy", "pimc:worlds=8", "cmd:./mybot")]
    ['greedy:', 'pimc:worlds=8,', 'cmd[]:./mybot']
    """
    text = spec.strip()
    if is_engine_spec(text):
        options, program = command._split(text)
        return f"cmd[{options + ',' if options.strip() else ''}]:{program}"
    return text + ("," if ":" in text else ":")


def run_sprt(
    new: str,
    old: str,
    rules: Rules | None = None,
    *,
    seed: int,
    elo0: float = 0.0,
    elo1: float = 10.0,
    delta: tuple[float, float] | None = None,
    alpha: float = 0.05,
    beta: float = 0.05,
    max_deals: int | None = None,
    state: str | None = None,
    jobs: int | None = None,
    executor: Executor | None = None,
    chunk_size: int | None = None,
    progress: bool | Progress = False,
    move_time: float | None = None,
    isolate: bool = False,
    timeout: float | None = None,
) -> SprtResult:
    """Test whether the bot ``new`` is stronger than ``old``, playing only as many deal
    sets as the evidence needs.

    NEW takes one seat and copies of OLD the others (``rules`` default to the
    classic rules for three players); deal ``d`` is played under every seating,
    with the seeds of :func:`~skitgubbe.run_match` (so a deal set replays
    identically). H0 and H1 are ``elo0`` and ``elo1`` (Elo of NEW against OLD,
    see :func:`loss_rate`), or ``delta = (d0, d1)``: loss rates ``1/n − d0`` and
    ``1/n − d1``. ``alpha`` and ``beta`` are the chances of accepting H1 when
    H0 holds and H0 when H1 does. The test stops at a decision or after
    ``max_deals`` deal sets (``None``: no limit).

    The decision rests on the contiguous prefix of deal sets 0, 1, 2, …, so it
    does not depend on how the work is spread: in this process (``jobs`` None
    or 1), in ``jobs`` worker processes, or on an ``executor`` (a Dask client's),
    in tasks of ``chunk_size`` deal sets (default 1), a few per worker in
    flight. Once decided, the work in flight is cancelled and counted in
    :attr:`SprtResult.discarded`.

    ``state`` names a JSON-lines file that keeps every finished deal set: run
    again with the same arguments and the test resumes, playing only what is
    missing, with the same result as a run never interrupted.
    ``progress``, ``move_time`` and ``isolate`` are as in :func:`~skitgubbe.run_match`
    (``timeout``, the old name of ``move_time``, still works for one release, with a
    :class:`DeprecationWarning`).

    >>> result = run_sprt("greedy", "random", seed=1, elo0=0, elo1=150)
    >>> result.decision, result.deal_sets < 40, result.llr >= result.upper
    ('H1', True, True)
    """
    for name, spec in (("new", new), ("old", old)):
        if type(spec) is not str:
            raise ArgumentTypeError(f"{name} must be a bot spec, not {spec!r}")
    if new == old:
        raise ArgumentError(
            f"new and old must be different bot specs, not both {new!r}: NEW's seat is "
            "found by its spec's text. To test a bot against itself, write one spec "
            f"differently, e.g. {new!r} and {_twin(new)!r}, the same bot (docs/sprt.md, "
            '"Testing a bot against itself")'
        )
    players = Rules.classic().players if rules is None else getattr(rules, "players", 0)
    if rules is not None and not isinstance(rules, Rules):
        raise ArgumentTypeError(f"rules must be a Rules, not {rules!r}")
    move_time = move_time_argument(move_time, timeout, "run_sprt")
    plan = make_plan([new, *[old] * (players - 1)], rules, seed, move_time, isolate)
    rules = plan.rules
    mu0, mu1 = _hypotheses(players, elo0, elo1, delta)
    lower, upper = wald_bounds(alpha, beta)
    if max_deals is not None:
        check_int("max_deals", max_deals, 1)
    report = check_running(jobs, executor, chunk_size, progress, "sprt")
    journal = None
    if state is not None:
        header = state_header(
            "sprt",
            rules.to_dict(),
            specs=[new, old],
            seed=seed,
            params={"mu0": mu0, "mu1": mu1, "alpha": alpha, "beta": beta, "timeout": move_time},
        )
        journal = Journal(state, header)
    done: dict[int, tuple[MatchGame, ...]] = {} if journal is None else dict(journal.sets)
    for key, recorded in done.items():
        if any(game.seats != plan.seatings[game.arrangement] for game in recorded):
            raise ArgumentError(f"{state}: deal set {key} was not played by these bots")
    counts: Counter[Fraction] = Counter({Fraction(0): 0, Fraction(1): 0})
    scores: list[Fraction] = []
    path: list[float] = []
    games: list[MatchGame] = []
    decision: Decision | None = None

    def advance() -> bool:
        """Extend the prefix over the deal sets done; True once the test is over."""
        nonlocal decision
        while decision is None and len(scores) in done:
            if max_deals is not None and len(scores) >= max_deals:
                return True
            sets = done[len(scores)]
            score = deal_set_score(sets, new)
            scores.append(score)
            games.extend(sets)
            counts[score] += 1
            values = sorted(counts)
            llr = gsprt_llr([float(v) for v in values], [counts[v] for v in values], mu0, mu1)
            path.append(llr)
            if llr >= upper:
                decision = "H1"
            elif llr <= lower:
                decision = "H0"
            if report is not None:
                report(len(scores), 0)
        return decision is not None or (max_deals is not None and len(scores) >= max_deals)

    def units() -> Iterator[Unit]:
        key = 0
        while max_deals is None or key < max_deals:
            if key not in done:
                yield key, plan, key
            key += 1

    discarded: list[int] = []
    try:
        if not advance():
            stream = play_units(
                units(), jobs=jobs, executor=executor, chunk_size=chunk_size, discarded=discarded
            )
            try:
                for key, played in stream:
                    done[key] = tuple(played)
                    if journal is not None:
                        journal.append(key, played)
                    if advance():
                        break
            finally:
                stream.close()
    finally:
        if journal is not None:
            journal.close()
    if report is not None:
        report(len(scores), len(scores))
    past = sum(1 for key in done if key >= len(scores)) + len(discarded)
    return SprtResult(
        new=new,
        old=old,
        rules=rules,
        seed=seed,
        mu0=mu0,
        mu1=mu1,
        alpha=alpha,
        beta=beta,
        max_deals=max_deals,
        scores=tuple(scores),
        llr_path=tuple(path),
        games=tuple(games),
        decision=decision,
        discarded=past,
    )
