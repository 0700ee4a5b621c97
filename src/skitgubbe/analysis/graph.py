"""The evaluation graph of a reviewed game, drawn as a standalone SVG document.

>>> import skitgubbe as sg
>>> from skitgubbe.analysis import analyse
>>> game = sg.Game.new(sg.Rules.classic(2), seed=5)
>>> for _ in range(10):
...     _ = game.play(game.legal_moves[0])
>>> picture = evaluation_graph(analyse(game, seat=0, engine="pimc:worlds=4"))
>>> picture.startswith("<svg") and "fair share" in picture
True
"""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from .review import GameAnalysis

__all__ = ["COLOURS", "evaluation_graph"]

COLOURS: Final[dict[str, str]] = {
    "best": "#27ae60",
    "good": "#95a5a6",
    "inaccuracy": "#f1c40f",
    "mistake": "#e67e22",
    "blunder": "#c0392b",
}
"""The colour of a move's dot in the graph, by its label."""


def _ticks(last: int) -> list[int]:
    """The move numbers (counted from 1) the x axis is marked at: about six, round ones.

    >>> _ticks(9), _ticks(120)
    ([1, 2, 4, 6, 8, 10], [1, 25, 50, 75, 100])
    """
    count = last + 1  # the moves, numbered 1 … last + 1
    step = next(s for s in (1, 2, 5, 10, 20, 25, 50, 100, 200, 500, 1000, 2000, 5000, 10000)
                if count / s <= 6) if count > 6 else 1  # fmt: skip
    return [1, *range(step, count + 1, step)] if step > 1 else list(range(1, count + 1))


def evaluation_graph(analysis: GameAnalysis, width: int = 640, height: int = 260) -> str:
    """The seat's loss probability at each of its decisions, as an SVG document.

    The x axis is the move of the game, numbered from 1 as the review's table and a
    replay number them, the y axis the chance of ending as the skitgubbe (0 at the
    bottom, 1 at the top). The line joins the engine's estimate for its own choice at
    each decision; each dot is the move played, coloured by its label (:data:`COLOURS`),
    with a tooltip. A legend under the axis names the colours and the lines.

    >>> import skitgubbe as sg
    >>> from skitgubbe.analysis import analyse
    >>> game = sg.Game.new(sg.Rules.classic(2), seed=5)
    >>> for _ in range(8):
    ...     _ = game.play(game.legal_moves[0])
    >>> review = analyse(game, seat=1, engine="pimc:worlds=4")
    >>> graph = evaluation_graph(review, width=400, height=200)
    >>> "viewBox='0 0 400 200'" in graph, graph.count("<circle class='move") == len(review.choices)
    (True, True)
    >>> all(f">{name}</text>" in graph for name in COLOURS), "class='tick'" in graph
    (True, True)
    """
    left, right, top, bottom = 44.0, 12.0, 24.0, 58.0
    inner_w, inner_h = width - left - right, height - top - bottom
    points = [r for r in analysis.reviews if r.played is not None and r.best is not None]
    last = max((r.index for r in analysis.reviews), default=0) or 1
    font = "font-family='sans-serif'"

    def x(index: int) -> float:
        return left + inner_w * index / last

    def y(loss: float) -> float:
        return top + inner_h * (1.0 - loss)

    fair = 1.0 / analysis.rules.players
    base = top + inner_h
    parts = [
        f"<rect x='{left}' y='{top}' width='{inner_w}' height='{inner_h}' fill='#fbfcfc' "
        "stroke='#bdc3c7'/>",
        f"<text x='{left}' y='16' font-size='13' {font}>seat "
        f"{analysis.seat}: chance of ending as the skitgubbe ({escape(analysis.engine)})</text>",
    ]
    for level in (0.0, 0.5, 1.0):
        parts.append(
            f"<text x='{left - 6}' y='{y(level) + 4:.1f}' font-size='11' text-anchor='end' "
            f"{font}>{int(100 * level)} %</text>"
        )
    for number in _ticks(last):  # move numbers, from 1: move n is at index n - 1
        at = x(number - 1)
        parts.append(
            f"<g class='tick'><line x1='{at:.1f}' x2='{at:.1f}' y1='{base}' y2='{base + 4}' "
            f"stroke='#7f8c8d'/><text x='{at:.1f}' y='{base + 15}' font-size='10' "
            f"text-anchor='middle' {font}>{number}</text></g>"
        )
    parts.append(
        f"<line x1='{left}' x2='{left + inner_w}' y1='{y(fair):.1f}' y2='{y(fair):.1f}' "
        "stroke='#7f8c8d' stroke-dasharray='4 4'><title>fair share</title></line>"
        f"<text x='{left + inner_w - 4}' y='{y(fair) - 4:.1f}' font-size='10' "
        f"text-anchor='end' fill='#7f8c8d' {font}>fair share</text>"
    )
    parts.append(
        f"<text x='{left + inner_w / 2}' y='{base + 29}' font-size='11' text-anchor='middle' "
        f"{font}>move of the game</text>"
    )
    if points:
        line = " ".join(f"{x(r.index):.1f},{y(r.best.loss):.1f}" for r in points if r.best)
        parts.append(f"<polyline points='{line}' fill='none' stroke='#2e86c1' stroke-width='2'/>")
    for review in points:
        assert review.played is not None
        radius = 3 if review.label in ("best", "good") else 5
        parts.append(
            f"<circle class='move {review.label}' cx='{x(review.index):.1f}' "
            f"cy='{y(review.played.loss):.1f}' r='{radius}' fill='{COLOURS[review.label]}'>"
            f"<title>{escape(str(review))}</title></circle>"
        )
    parts.append(_legend(left, height - 9.0, width - left - right))
    return (
        f"<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 {width} {height}' "
        f"width='{width}' height='{height}'>{''.join(parts)}</svg>"
    )


def _legend(left: float, baseline: float, width: float) -> str:
    """One row under the graph: the engine's line, then a dot of each label's colour."""
    font = "font-size='10' font-family='sans-serif'"
    step = width / (len(COLOURS) + 1)
    parts = [
        f"<line x1='{left}' x2='{left + 14}' y1='{baseline - 3}' y2='{baseline - 3}' "
        "stroke='#2e86c1' stroke-width='2'/>"
        f"<text x='{left + 18}' y='{baseline}' {font}>engine's choice</text>"
    ]
    for i, (name, colour) in enumerate(COLOURS.items(), start=1):
        at = left + i * step
        parts.append(
            f"<circle cx='{at + 4:.1f}' cy='{baseline - 3}' r='4' fill='{colour}'/>"
            f"<text x='{at + 11:.1f}' y='{baseline}' {font}>{name}</text>"
        )
    return f"<g class='legend'>{''.join(parts)}</g>"
