"""A whole game reviewed from one seat: each of its moves labelled by what it cost.

:func:`analyse` replays a game record and, at each of the seat's turns, runs
:func:`~skitgubbe.analysis.analyse_position` on the observation that seat had
then: nothing later in the game and nothing the seat could not see reaches it.
Each move's *cost* is how much it raised the seat's chance of ending as the
skitgubbe over the engine's choice, in loss-probability points, and its label
follows :data:`THRESHOLDS`, in the spirit of a chess engine's inaccuracies,
mistakes and blunders.

>>> import skitgubbe as sg
>>> from skitgubbe.analysis import analyse
>>> game = sg.Game.new(sg.Rules.classic(2), seed=5)
>>> while game.result is None:
...     _ = game.play(game.legal_moves[0])
>>> review = analyse(game, seat=0, engine="ismcts:iterations=300")
>>> [r.move for r in review.reviews] == [m for i, m in enumerate(game.moves)
...                                      if i in {r.index for r in review.reviews}]
True
>>> all(r.label in LABELS for r in review.reviews), review.loser == game.result.loser
(True, True)
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping
from concurrent.futures import ProcessPoolExecutor
from html import escape
from typing import Any, Final

import attrs

from ..errors import ArgumentError
from ..game.moves import Move
from ..game.observation import Observation
from ..game.rules import Rules
from ..game.state import Game
from .position import (
    NOT_REPRODUCIBLE,
    Engine,
    MoveEstimate,
    PositionAnalysis,
    analyse_position,
    engine_name,
    position_seed,
)

__all__ = ["LABELS", "THRESHOLDS", "GameAnalysis", "MoveReview", "analyse"]

THRESHOLDS: Final[dict[str, float]] = {"inaccuracy": 0.05, "mistake": 0.10, "blunder": 0.20}
"""A move that raised the seat's loss probability over the engine's choice by at least
this much (0.05 = 5 points) is an inaccuracy, a mistake or a blunder."""

LABELS: Final = ("forced", "best", "good", "inaccuracy", "mistake", "blunder")
"""Every label a move can get: ``forced`` (the only legal move), ``best`` (the
engine's choice), ``good`` (another move that cost less than an inaccuracy), then by
:data:`THRESHOLDS`."""


def label(cost: float, best: bool) -> str:
    """The label of a move that cost ``cost`` (``best``: the engine's own choice).

    >>> label(0.0, True), label(0.03, False), label(0.12, False), label(0.5, False)
    ('best', 'good', 'mistake', 'blunder')
    """
    if best:
        return "best"
    worst = "good"
    for name, threshold in THRESHOLDS.items():
        if cost >= threshold:
            worst = name
    return worst


@attrs.frozen
class MoveReview:
    """One of the seat's moves: what it played, what the engine preferred, what it cost.

    ``index`` is the move's place in the record's moves (from 0; the text counts from 1,
    as a replay does); ``played``,
    ``best`` and ``analysis`` are None for a forced move, which has nothing to weigh.

    >>> import skitgubbe as sg
    >>> estimate = MoveEstimate(sg.Move.parse("6H"), 0.3, 0.01, 900)
    >>> str(MoveReview(4, estimate.move, estimate, estimate, 0.0, "best", None))
    'move 5: 6♥ best (loss 30.0 %)'
    """

    index: int
    move: Move
    played: MoveEstimate | None
    best: MoveEstimate | None
    cost: float
    label: str
    analysis: PositionAnalysis | None = attrs.field(repr=False)

    def to_dict(self) -> dict[str, Any]:
        """The review as JSON-able data.

        >>> import skitgubbe as sg
        >>> e = MoveEstimate(sg.Move.parse("6H"), 0.3, 0.01, 900)
        >>> sorted(MoveReview(4, e.move, e, e, 0.0, "best", None).to_dict())
        ['analysis', 'best', 'cost', 'index', 'label', 'move', 'played']
        """
        return {
            "index": self.index,
            "move": str(self.move),
            "played": None if self.played is None else self.played.to_dict(),
            "best": None if self.best is None else self.best.to_dict(),
            "cost": self.cost,
            "label": self.label,
            "analysis": None if self.analysis is None else self.analysis.to_dict(),
        }

    def __str__(self) -> str:
        number = self.index + 1  # counted from 1, as the replay and the annotated game do
        if self.played is None or self.best is None:
            return f"move {number}: {self.move} {self.label}"
        text = f"move {number}: {self.move} {self.label} (loss {100 * self.played.loss:.1f} %"
        if self.label != "best":
            text += f"; engine's choice {self.best.move} {100 * self.best.loss:.1f} %"
            if self.cost > 0:
                text += f", cost {100 * self.cost:.1f} points"
        return text + ")"


@attrs.frozen
class GameAnalysis:
    """A game reviewed from one seat (:func:`analyse`).

    ``reviews`` has one :class:`MoveReview` for each of the seat's moves, in
    order; ``loser`` is the seat that ended as the skitgubbe (None: the game had
    not ended); ``seconds`` the time the analysis took. ``reproducible`` is False
    when the engine searched on a time budget only, so that the same seed need
    not give the same review again (:func:`~skitgubbe.analysis.engine_for`); the
    summary and the JSON say so.

    >>> import skitgubbe as sg
    >>> game = sg.Game.new(sg.Rules.classic(2), seed=5)
    >>> for _ in range(12):
    ...     _ = game.play(game.legal_moves[-1])
    >>> review = analyse(game, seat=1, engine="pimc:worlds=4")
    >>> 0 <= review.accuracy <= 100, len(review.costliest(2)) <= 2
    (True, True)
    >>> review.svg().startswith("<svg") and "seat 1" in review.summary()
    True
    >>> review.reproducible, NOT_REPRODUCIBLE in review.summary()
    (True, False)
    """

    seat: int
    rules: Rules
    reviews: tuple[MoveReview, ...]
    engine: str
    seconds: float = attrs.field(eq=False)
    loser: int | None
    reproducible: bool = True

    @property
    def choices(self) -> tuple[MoveReview, ...]:
        """The reviews of the moves that had an alternative (not ``forced``)."""
        return tuple(r for r in self.reviews if r.label != "forced")

    @property
    def accuracy(self) -> float:
        """The percentage of the seat's real choices that were ``best`` or ``good``
        (100 when it had none)."""
        choices = self.choices
        if not choices:
            return 100.0
        return 100.0 * sum(r.label in ("best", "good") for r in choices) / len(choices)

    @property
    def average_cost(self) -> float:
        """The mean cost of the seat's real choices, in loss-probability points (0 … 1)."""
        choices = self.choices
        return sum(r.cost for r in choices) / len(choices) if choices else 0.0

    def counts(self) -> dict[str, int]:
        """How many of the seat's moves got each label (every label, in :data:`LABELS` order)."""
        return {name: sum(r.label == name for r in self.reviews) for name in LABELS}

    def costliest(self, n: int = 3) -> tuple[MoveReview, ...]:
        """The ``n`` moves that cost the most (only those that cost something), costliest first."""
        costly = sorted((r for r in self.choices if r.cost > 0), key=lambda r: (-r.cost, r.index))
        return tuple(costly[:n])

    def summary(self) -> str:
        """A few lines: the result, the accuracy, the labels' counts, the costliest moves.

        The first line names the engine, and says when its time budget makes the review
        one that another run of the same seed need not repeat:

        >>> import skitgubbe as sg
        >>> game = sg.Game.new(sg.Rules.classic(2), seed=5)
        >>> for _ in range(6):
        ...     _ = game.play(game.legal_moves[0])
        >>> print(analyse(game, 0, "ismcts:time=0.001").summary())  # doctest: +ELLIPSIS
        seat 0, analysed by ismcts:time=0.001 in ... s (time budget: another run may differ); ...
        """
        counts = self.counts()
        ended = (
            "the game has not ended"
            if self.loser is None
            else "seat {} is the skitgubbe{}".format(
                self.loser, " (this seat)" if self.loser == self.seat else ""
            )
        )
        budget = "" if self.reproducible else f" ({NOT_REPRODUCIBLE})"
        lines = [
            f"seat {self.seat}, analysed by {self.engine} in {self.seconds:.1f} s{budget}; {ended}",
            f"accuracy {self.accuracy:.0f} % over {len(self.choices)} choices "
            f"(mean cost {100 * self.average_cost:.1f} points); "
            + ", ".join(f"{counts[name]} {name}" for name in LABELS if counts[name]),
        ]
        for review in self.costliest():
            lines.append(f"  costly: {review}")
        return "\n".join(lines)

    def text(self) -> str:
        """The annotated game: one line per move of the seat, then the summary."""
        marks = {"inaccuracy": "?!", "mistake": "?", "blunder": "??"}
        lines = [f"{review}{' ' + marks[review.label] if review.label in marks else ''}"
                 for review in self.reviews]  # fmt: skip
        return "\n".join([*lines, "", self.summary()])

    def to_dict(self) -> dict[str, Any]:
        """The analysis as JSON-able data (``json.dumps`` takes it as it is).

        >>> import skitgubbe as sg
        >>> data = analyse(sg.Game.new(sg.Rules.classic(2), seed=5), 0, "pimc:worlds=2").to_dict()
        >>> data["format"], data["engine"], data["reproducible"], data["reviews"]
        ('skitgubbe-analysis', 'pimc:worlds=2', True, [])
        """
        return {
            "format": "skitgubbe-analysis",
            "version": 1,
            "seat": self.seat,
            "rules": self.rules.to_dict(),
            "engine": self.engine,
            "reproducible": self.reproducible,
            "seconds": self.seconds,
            "loser": self.loser,
            "accuracy": self.accuracy,
            "average_cost": self.average_cost,
            "thresholds": dict(THRESHOLDS),
            "counts": self.counts(),
            "reviews": [r.to_dict() for r in self.reviews],
        }

    def to_json(self, indent: int | None = 2) -> str:
        """:meth:`to_dict` as JSON text."""
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False)

    def svg(self, width: int = 640, height: int = 260) -> str:
        """The evaluation graph: the seat's loss probability across the game, as SVG.

        The line is the engine's estimate for its own choice at each of the seat's
        decisions (how the position stood); a dot marks the move played, coloured by
        its label, with the move and its cost in its tooltip. A dashed line is the
        fair share, 1 / players; the x axis is numbered by move, and a legend names the
        colours (:func:`~skitgubbe.analysis.evaluation_graph`).
        """
        from .graph import evaluation_graph

        return evaluation_graph(self, width, height)

    def _repr_svg_(self) -> str:
        return self.svg()

    def _repr_html_(self) -> str:
        return f"<div>{self.svg()}<pre>{escape(self.summary())}</pre></div>"


def _positions(game: Game, seat: int) -> list[tuple[int, Move, Observation | None]]:
    """Each of ``seat``'s moves in ``game``: (index, move, its observation, None if forced)."""
    if not 0 <= seat < game.players:
        raise ArgumentError(f"seat must be 0 … {game.players - 1} in this game, not {seat}")
    replay = Game.from_record({**game.record(), "moves": [], "result": None})
    positions: list[tuple[int, Move, Observation | None]] = []
    for index, move in enumerate(game.moves):
        if replay.to_move == seat:
            view = replay.observation(seat) if len(replay.legal_moves) > 1 else None
            positions.append((index, move, view))
        replay.play(move)
    return positions


def _analyse_one(task: tuple[Observation, str | Engine | None, int]) -> PositionAnalysis:
    observation, engine, seed = task
    return analyse_position(observation, engine, seed)


def _review(index: int, move: Move, analysis: PositionAnalysis | None) -> MoveReview:
    if analysis is None:
        return MoveReview(index, move, None, None, 0.0, "forced", None)
    played, best = analysis.estimate(move), analysis.best
    cost = max(0.0, played.loss - best.loss)
    return MoveReview(index, move, played, best, cost, label(cost, move == best.move), analysis)


def analyse(
    game: Game | Mapping[str, Any],
    seat: int,
    engine: str | Engine | None = None,
    seed: int = 0,
    jobs: int = 1,
    progress: Callable[[int, int], None] | None = None,
) -> GameAnalysis:
    """Review ``seat``'s moves in a game (a :class:`~skitgubbe.Game` or its record).

    Each decision is analysed from the observation the seat had at that moment,
    with ``engine`` (see :func:`~skitgubbe.analysis.engine_for`; the default is
    :data:`~skitgubbe.analysis.DEFAULT_ENGINE`) seeded from that observation and
    ``seed`` (:func:`~skitgubbe.analysis.position_seed`): with the default seed 0, a
    decision gets exactly the analysis a hint at that position gets
    (:func:`~skitgubbe.analysis.analyse_position` with that seed, as the server's and
    the terminal's hints run it), so a hint and the review agree on the engine's
    choice. The result is the same for any ``jobs`` (worker processes; the engine
    must then be a spec string) and any run, unless the engine has a time budget only
    (``reproducible`` is then False). ``progress(done, total)`` is called
    after each analysed decision. A bad record raises
    :class:`~skitgubbe.RecordError`, a bad seat or option
    :class:`~skitgubbe.errors.ArgumentError`.

    >>> import skitgubbe as sg
    >>> analyse(sg.Game.new(seed=1), seat=5)
    Traceback (most recent call last):
        ...
    skitgubbe.errors.ArgumentError: seat must be 0 … 2 in this game, not 5

    A decision of the review and a hint at the same position agree:

    >>> from skitgubbe.analysis import analyse_position, position_seed
    >>> game = sg.Game.new(sg.Rules.classic(2), seed=5)
    >>> while game.result is None:
    ...     _ = game.play(game.legal_moves[0])
    >>> decision = next(r for r in analyse(game, 0, "ismcts:iterations=200").reviews if r.analysis)
    >>> view = decision.analysis.observation
    >>> analyse_position(view, "ismcts:iterations=200", position_seed(view)) == decision.analysis
    True
    """
    if type(jobs) is not int or jobs < 1:
        raise ArgumentError(f"jobs must be an int >= 1, not {jobs!r}")
    if jobs > 1 and engine is not None and not isinstance(engine, str):
        raise ArgumentError("an analysis with jobs > 1 needs its engine as a bot spec string")
    start = time.perf_counter()
    replay = game if isinstance(game, Game) else Game.from_record(game)
    positions = _positions(replay, seat)
    tasks = [(view, engine, position_seed(view, seed)) for _, _, view in positions if view]
    total = len(tasks)
    if progress is not None:
        progress(0, total)
    results: list[PositionAnalysis] = []
    if jobs == 1 or total < 2:
        for task in tasks:
            results.append(_analyse_one(task))
            if progress is not None:
                progress(len(results), total)
    else:
        with ProcessPoolExecutor(min(jobs, total)) as pool:
            for result in pool.map(_analyse_one, tasks):
                results.append(result)
                if progress is not None:
                    progress(len(results), total)
    analysed = iter(results)
    reviews = tuple(
        _review(index, move, next(analysed) if view is not None else None)
        for index, move, view in positions
    )
    outcome = replay.result
    return GameAnalysis(
        seat,
        replay.rules,
        reviews,
        engine_name(engine),
        time.perf_counter() - start,
        None if outcome is None else outcome.loser,
        all(result.reproducible for result in results),
    )
