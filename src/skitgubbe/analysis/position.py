"""One position's analysis: every legal move's chance of ending as the skitgubbe.

:func:`analyse_position` asks a search bot about one seat's
:class:`~skitgubbe.Observation`, which is everything that seat knows and nothing
more, and reads from the search each legal move's estimated *loss probability*:
the chance that the seat ends the game as the skitgubbe if it makes that move and
play goes on as the search expects. Each estimate carries its standard error and
the number of simulations behind it.

The same observation, engine and seed give the same analysis: an engine with both
an iteration and a time budget (the ``expert`` level) is analysed by its
iterations alone, since how far a search gets in a given time differs from run to
run. An engine with a time budget only is analysed as it is, and its result says
so (:attr:`PositionAnalysis.reproducible` is False).

>>> import skitgubbe as sg
>>> from skitgubbe.analysis import analyse_position
>>> game = sg.Game.new(seed=4)
>>> result = analyse_position(game.observation(game.to_move), "ismcts:iterations=2000")
>>> result.best.move in game.legal_moves, 0.0 <= result.best.loss <= 1.0
(True, True)
>>> [e.move for e in result.estimates] == sorted(
...     game.legal_moves, key=lambda m: (result.estimate(m).loss, str(m)))
True
"""

from __future__ import annotations

import copy
import hashlib
import json
import math
import random
import time
from html import escape
from typing import Any, Final

import attrs

from ..bots.levels import LevelBot
from ..bots.net import covers
from ..bots.registry import make
from ..bots.search import ISMCTSBot, PIMCBot
from ..engine import protocol
from ..errors import ArgumentError
from ..game import svg
from ..game.moves import Move
from ..game.observation import Observation

__all__ = [
    "DEFAULT_ENGINE",
    "NOT_REPRODUCIBLE",
    "Engine",
    "MoveEstimate",
    "PositionAnalysis",
    "analyse_position",
    "engine_for",
    "engine_name",
    "explain_choice",
    "position_seed",
]

DEFAULT_ENGINE: Final = "ismcts:iterations=30000"
"""The engine every analysis uses unless told otherwise: the strongest bot measured
(docs/strength.md), ISMCTS with 30,000 simulations a decision. It is also the
engine of the terminal's ``hint``, of the server's hints and of its review page, so
that a hint and a review weigh a position alike: about 0.1 s a position on one
core, so a hint answers in well under a second and a whole game's review of one
seat (some 30 to 40 decisions in a game of three) takes about 3 s."""

SIGNIFICANT: Final = 2.0
"""How many combined standard errors apart two estimates must be before an explanation
(:func:`explain_choice`) calls their difference more than the search's noise."""

Engine = ISMCTSBot | PIMCBot
"""The search bots an analysis can read estimates from."""

NOT_REPRODUCIBLE: Final = "time budget: another run may differ"
"""How an analysis by a time-budgeted engine says that the same seed need not give it again."""

SEARCH_NAMES: Final = ("ismcts", "pimc", "hard", "expert")
"""The bot names whose specs an analysis takes: the two searches and the levels that play one."""
_SEARCHES: Final = "ismcts, pimc, or the levels hard and expert"


@attrs.frozen
class MoveEstimate:
    """One legal move's estimated loss probability, its standard error and its samples.

    ``loss`` is the estimated chance that the seat ends as the skitgubbe after
    ``move``: the share of the search's simulations through the move in which it
    lost, with one lost and one not lost simulation added (Laplace's rule of
    succession), so a move seen in few simulations is drawn toward 1/2 and has a
    wide ``error`` (the binomial standard error of that estimate).

    >>> import skitgubbe as sg
    >>> estimate = MoveEstimate(sg.Move.parse("6H"), loss=0.25, error=0.04, visits=100)
    >>> f"{estimate}"
    '6♥: 25.0 % ± 4.0 (100 simulations)'
    """

    move: Move
    loss: float
    error: float
    visits: int

    @classmethod
    def from_counts(cls, move: Move, visits: int, not_lost: float) -> MoveEstimate:
        """The estimate from ``visits`` simulations of which ``not_lost`` did not lose.

        >>> import skitgubbe as sg
        >>> MoveEstimate.from_counts(sg.Move.parse("6H"), 8, 6.0).loss
        0.3
        """
        if visits < 0 or not 0 <= not_lost <= visits:
            raise ArgumentError(f"{not_lost} simulations not lost of {visits} is no count")
        loss = (visits - not_lost + 1.0) / (visits + 2.0)
        return cls(move, loss, math.sqrt(loss * (1.0 - loss) / (visits + 2.0)), visits)

    def to_dict(self) -> dict[str, Any]:
        """The estimate as JSON-able data.

        >>> import skitgubbe as sg
        >>> MoveEstimate(sg.Move.parse("6H"), 0.25, 0.04, 100).to_dict()
        {'move': '6♥', 'loss': 0.25, 'error': 0.04, 'visits': 100}
        """
        return {"move": str(self.move), "loss": self.loss, "error": self.error,
                "visits": self.visits}  # fmt: skip

    def __str__(self) -> str:
        return (
            f"{self.move}: {100 * self.loss:.1f} % ± {100 * self.error:.1f} "
            f"({self.visits} simulations)"
        )


@attrs.frozen
class PositionAnalysis:
    """What a search thinks of each legal move of one seat, from that seat's view.

    ``estimates`` are sorted by loss probability, lowest first (ties by the move's
    text); ``best`` is the engine's own choice (the most simulated move for
    ISMCTS, the best scored for PIMC), which is nearly always the first.
    ``iterations`` and ``seconds`` are the budget the search spent.
    ``reproducible`` is False when the search ran on a time budget only (as
    ``"ismcts:time=0.05"`` does), which a run of the same seed need not repeat
    (:func:`engine_for` says which engines do).

    >>> import skitgubbe as sg
    >>> game = sg.Game.new(seed=4)
    >>> result = analyse_position(game.observation(game.to_move), "ismcts:iterations=500")
    >>> result.seat == game.to_move, result.iterations, result.engine, result.reproducible
    (True, 500, 'ismcts:iterations=500', True)
    >>> "<svg" in result._repr_svg_() and "<table" in result._repr_html_()
    True
    """

    seat: int
    estimates: tuple[MoveEstimate, ...]
    best: MoveEstimate
    iterations: int
    seconds: float = attrs.field(eq=False)
    engine: str
    observation: Observation = attrs.field(repr=False, eq=False)
    reproducible: bool = True

    def estimate(self, move: Move) -> MoveEstimate:
        """The estimate of ``move``; a move that is not legal here raises
        :class:`~skitgubbe.errors.ArgumentError`.

        >>> import skitgubbe as sg
        >>> game = sg.Game.new(seed=4)
        >>> result = analyse_position(game.observation(game.to_move), "pimc:worlds=4")
        >>> result.estimate(sg.Move.parse("2C"))  # doctest: +ELLIPSIS
        Traceback (most recent call last):
            ...
        skitgubbe.errors.ArgumentError: 2♣ is not a legal move here; legal: ...
        """
        for estimate in self.estimates:
            if estimate.move == move:
                return estimate
        legal = ", ".join(str(e.move) for e in self.estimates)
        raise ArgumentError(f"{move} is not a legal move here; legal: {legal}")

    def to_dict(self) -> dict[str, Any]:
        """The analysis as JSON-able data (without the observation).

        >>> import skitgubbe as sg
        >>> game = sg.Game.new(seed=4)
        >>> data = analyse_position(game.observation(game.to_move), "pimc:worlds=4").to_dict()
        >>> sorted(data)
        ['best', 'engine', 'estimates', 'iterations', 'reproducible', 'seat', 'seconds']
        """
        return {
            "seat": self.seat,
            "best": str(self.best.move),
            "estimates": [e.to_dict() for e in self.estimates],
            "iterations": self.iterations,
            "seconds": self.seconds,
            "engine": self.engine,
            "reproducible": self.reproducible,
        }

    def _bars_svg(self, width: float = 420) -> tuple[str, float]:
        """The moves as horizontal bars of their loss probability: (body, height)."""
        row, left = 22, 120
        parts = []
        for i, estimate in enumerate(self.estimates):
            y = 8 + i * row
            length = (width - left - 70) * estimate.loss
            colour = "#2e86c1" if estimate.move == self.best.move else "#7f8c8d"
            parts.append(
                f"<text x='{left - 8}' y='{y + 14}' font-size='13' text-anchor='end' "
                f"font-family='sans-serif'>{escape(str(estimate.move))}</text>"
                f"<rect x='{left}' y='{y + 3}' width='{length:.1f}' height='14' "
                f"fill='{colour}'><title>{escape(str(estimate))}</title></rect>"
                f"<text x='{left + length + 6:.1f}' y='{y + 14}' font-size='12' "
                f"font-family='sans-serif'>{100 * estimate.loss:.1f} %</text>"
            )
        return "".join(parts), 16 + row * len(self.estimates)

    def _repr_svg_(self) -> str:
        """The seat's view above its moves' loss probabilities, as one SVG (Jupyter)."""
        table = svg.observation(self.observation)
        width = float(table.split("width='")[1].split("'")[0])
        height = float(table.split("height='")[1].split("'")[0])
        bars, bars_height = self._bars_svg(max(width, 420.0))
        total = height + bars_height + 24
        title = (
            f"<text x='8' y='{height + 18:g}' font-size='13' font-family='sans-serif'>"
            f"seat {self.seat}: chance of ending as the skitgubbe after each move "
            f"({escape(self.engine)}, {self.iterations} simulations)</text>"
        )
        return (
            f"<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 {max(width, 420):g} {total:g}' "
            f"width='{max(width, 420):g}' height='{total:g}'>{table}{title}"
            f"<g transform='translate(0 {height + 24:g})'>{bars}</g></svg>"
        )

    def _repr_html_(self) -> str:
        """The seat's view and a table of its moves (Jupyter)."""
        rows = "".join(
            f"<tr><td>{escape(str(e.move))}</td><td>{100 * e.loss:.1f} %</td>"
            f"<td>± {100 * e.error:.1f}</td><td>{e.visits}</td>"
            f"<td>{'best' if e.move == self.best.move else ''}</td></tr>"
            for e in self.estimates
        )
        return (
            f"<div>{svg.observation(self.observation)}"
            "<table><tr><th>move</th><th>loss probability</th><th>error</th>"
            f"<th>simulations</th><th></th></tr>{rows}</table>"
            f"<p>{escape(self.engine)}: {self.iterations} simulations in "
            f"{self.seconds:.2f} s{'' if self.reproducible else f' ({NOT_REPRODUCIBLE})'}"
            "</p></div>"
        )


def engine_for(engine: str | Engine | None, seed: int, observation: Observation) -> Engine:
    """The search bot an analysis runs, seeded with ``seed``.

    ``engine`` is a bot spec (``"ismcts:iterations=3000"``, ``"pimc:worlds=40"``),
    a strength level that plays one of them (``"expert"``), a search bot (copied,
    so the caller's keeps its own random state) or None for
    :data:`DEFAULT_ENGINE`. An ISMCTS with both an iteration and a time budget
    (such as the ``expert`` level) searches by its iterations alone, so that the
    same seed gives the same analysis; one with a time budget only keeps it (its
    analysis is then not reproducible). Anything else is refused:

    >>> import skitgubbe as sg
    >>> view = sg.Game.new(seed=4).observation(0)
    >>> expert = engine_for("expert", 1, view)
    >>> expert.iterations, expert.time
    (100000, None)
    >>> engine_for("ismcts:time=0.05", 1, view).time
    0.05
    >>> engine_for("greedy", 1, view)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    skitgubbe.errors.ArgumentError: an analysis needs a search bot (ismcts, pimc, ...), not 'greedy'
    """
    if engine is None:
        engine = DEFAULT_ENGINE
    if isinstance(engine, (ISMCTSBot, PIMCBot)):
        copied = copy.copy(engine)
        copied._rng = random.Random(seed)  # the copy draws its worlds from the seed
        return _as_engine(copied)
    if not isinstance(engine, str):
        raise ArgumentError(
            f"an analysis engine is a bot spec or a search bot, not {type(engine).__name__}"
        )
    if engine.partition(":")[0].strip() not in SEARCH_NAMES:  # an engine's process never starts
        raise ArgumentError(f"an analysis needs a search bot ({_SEARCHES}), not {engine!r}")
    bot = make(engine, seed=seed)
    if isinstance(bot, LevelBot):
        bot = (
            bot.fallback if bot.fallback is not None and not covers(observation.rules) else bot.bot
        )
    if not isinstance(bot, (ISMCTSBot, PIMCBot)):
        raise ArgumentError(f"an analysis needs a search bot ({_SEARCHES}), not {engine!r}")
    return _as_engine(bot)


def _as_engine(bot: Engine) -> Engine:
    """``bot`` (the analysis's own) made fit to weigh every move: without its time budget
    where it also has an iteration budget (how far a search gets in a time differs from run
    to run, its iterations do not), and searching every legal move (``merge=False``: a
    search that plays equivalent moves as one leaves all but one of them unvisited, and a
    player's move must get an estimate of its own)."""
    if isinstance(bot, ISMCTSBot):
        if bot.iterations is not None and bot.time is not None:
            bot.time = None
        bot.merge = False
    return bot


def _reproducible(bot: Engine) -> bool:
    """Whether ``bot``'s search is the same for the same seed: not when it runs on a time
    budget (an ISMCTS with ``time`` and no iteration budget, after :func:`engine_for`)."""
    return not (isinstance(bot, ISMCTSBot) and bot.time is not None)


def engine_name(engine: str | Engine | None) -> str:
    """How an analysis names its engine: the spec as given, a bot's repr, or the default.

    >>> engine_name(None), engine_name("pimc:worlds=4")
    ('ismcts:iterations=30000', 'pimc:worlds=4')
    """
    return DEFAULT_ENGINE if engine is None else engine if isinstance(engine, str) else repr(engine)


def position_seed(observation: Observation, seed: int = 0) -> int:
    """The seed an analysis of ``observation`` runs with: drawn from the observation
    alone (what its seat knows) and the analysis ``seed``, so the same position as
    the seat sees it gets the same analysis, whether it is a hint during the game or
    a decision of the game's review afterwards (:func:`~skitgubbe.analysis.analyse`
    seeds each decision so). Seed 0 is the default of both.

    >>> import skitgubbe as sg
    >>> view = sg.Game.new(seed=4).observation(0)
    >>> position_seed(view) == position_seed(sg.Game.new(seed=4).observation(0))
    True
    >>> position_seed(view) != position_seed(view, 1)
    True
    """
    data = protocol.observation_json(observation)
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), default=str)
    if seed:
        text += f"#{seed}"
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "big")


def _percent(estimate: MoveEstimate) -> str:
    return f"{100 * estimate.loss:.1f} % ± {100 * estimate.error:.1f}"


def explain_choice(analysis: PositionAnalysis, move: Move | None = None) -> str | None:
    """Why the engine chose :attr:`PositionAnalysis.best` although ``move`` (by default the
    move with the lowest estimate) has a lower estimated chance of losing, in words;
    None when the choice's estimate is not higher than that move's.

    ISMCTS chooses the move it simulated most, not the lowest estimate: a move seen
    in fewer simulations has a less certain estimate. The sentence says whether the
    two estimates differ by less than :data:`SIGNIFICANT` combined standard errors
    (as good as each other, as far as the search can tell) or by more (the search
    had not settled: a larger budget may change its choice).

    >>> import skitgubbe as sg
    >>> chosen = MoveEstimate(sg.Move.parse("6H"), 0.563, 0.004, 14000)
    >>> other = MoveEstimate(sg.Move.parse("7H"), 0.553, 0.012, 1500)
    >>> found = PositionAnalysis(0, (other, chosen), chosen, 15500, 0.1, "ismcts", None)
    >>> print(explain_choice(found))  # doctest: +NORMALIZE_WHITESPACE
    The search chose 6♥ (56.3 % ± 0.4) because it is the move it simulated most (14000 of
    15500 simulations); 7♥ has a lower estimate (55.3 % ± 1.2) from fewer simulations
    (1500), but the difference, 1.0 points, is within the estimates' errors (2 × 1.3 points):
    as far as the search can tell, the two are as good.
    >>> explain_choice(found, chosen.move) is None
    True
    """
    other = analysis.estimates[0] if move is None else analysis.estimate(move)
    best = analysis.best
    if other.move == best.move or best.loss <= other.loss:
        return None
    most = max(e.visits for e in analysis.estimates)
    reason = (
        f"because it is the move it simulated most ({best.visits} of {analysis.iterations} "
        "simulations)"
        if best.visits >= most
        else "by its own rule"
    )
    fewer = " from fewer simulations" if other.visits < best.visits else ""
    visits = f" ({other.visits})" if fewer else ""
    gap = 100 * (best.loss - other.loss)
    combined = 100 * math.hypot(best.error, other.error)
    bound = f"{SIGNIFICANT:g} × {combined:.1f} points"
    verdict = (
        f"within the estimates' errors ({bound}): as far as the search can tell, "
        "the two are as good."
        if gap < SIGNIFICANT * combined
        else f"more than the estimates' errors ({bound}): the search had not settled, and "
        f"a larger budget may prefer {other.move}."
    )
    return (
        f"The search chose {best.move} ({_percent(best)}) {reason}; {other.move} has a lower "
        f"estimate ({_percent(other)}){fewer}{visits}, but the difference, {gap:.1f} points, "
        f"is {verdict}"
    )


def analyse_position(
    observation: Observation, engine: str | Engine | None = None, seed: int = 0
) -> PositionAnalysis:
    """Every legal move's estimated chance of ending as the skitgubbe, from ``observation``.

    The search sees only the observation (what its seat knows), so two deals the
    seat cannot tell apart get the same analysis; the same ``seed`` gives the
    same result, unless the engine has a time budget only (the result's
    ``reproducible`` is then False). ``engine`` is as :func:`engine_for` takes it,
    which analyses an engine with both budgets by its iterations. A view of
    another seat's turn raises :class:`~skitgubbe.errors.ArgumentError`.

    >>> import skitgubbe as sg
    >>> game = sg.Game.new(seed=4)
    >>> first = analyse_position(game.observation(game.to_move), "pimc:worlds=8", seed=3)
    >>> first == analyse_position(game.observation(game.to_move), "pimc:worlds=8", seed=3)
    True
    >>> analyse_position(game.observation(game.to_move), "ismcts:time=0.001").reproducible
    False
    >>> analyse_position(game.observation((game.to_move + 1) % 3))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    skitgubbe.errors.ArgumentError: seat ... cannot move: it is seat ...'s turn
    """
    if observation.to_move != observation.seat or not observation.legal_moves:
        raise ArgumentError(
            f"seat {observation.seat} cannot move: it is "
            + (
                "nobody's turn"
                if observation.to_move is None
                else f"seat {observation.to_move}'s turn"
            )
        )
    bot = engine_for(engine, seed, observation)
    start = time.perf_counter()
    legal = observation.legal_moves
    if isinstance(bot, ISMCTSBot):
        stats = bot.statistics(observation)
        estimates = [MoveEstimate.from_counts(m, *stats.get(m, (0, 0.0))) for m in legal]
        iterations = bot.last_search[0]
        chosen = max(legal, key=lambda m: stats.get(m, (0, 0.0))[0])
    else:
        scores = bot.scores(observation)
        samples = bot.worlds * bot.rollouts
        estimates = [MoveEstimate.from_counts(m, samples, scores[m] * samples) for m in legal]
        iterations = samples * len(legal)
        chosen = max(legal, key=lambda m: scores[m])
    seconds = time.perf_counter() - start
    ordered = tuple(sorted(estimates, key=lambda e: (e.loss, str(e.move))))
    best = next(e for e in estimates if e.move == chosen)
    return PositionAnalysis(
        observation.seat,
        ordered,
        best,
        iterations,
        seconds,
        engine_name(engine),
        observation,
        _reproducible(bot),
    )
