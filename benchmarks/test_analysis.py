"""The analysis's cost: one analysed position against one decision of the same search.

Both sides run ISMCTS with the same budget in the same positions (the views of
benchmarks/test_net.py), one position each per round, so the ratio is the analysis's
own overhead per player decision: reading the root's rewards, the estimates and their
errors. The absolute figure at the default engine's budget is what a game review
costs per analysed move.
"""

from __future__ import annotations

from typing import Final

import pytest
from pytest_benchmark.fixture import BenchmarkFixture
from support import Figure, Figures, fastest_seconds
from test_net import _views

import skitgubbe as sg
from skitgubbe.analysis import DEFAULT_ENGINE, analyse_position

BUDGET: Final = "ismcts:iterations=3000"
SIDES: Final = {
    "analysis": lambda view: analyse_position(view, BUDGET, seed=1).best.move,
    "decision": lambda view: sg.bots.make(BUDGET, seed=1).choose(view),
    "default": lambda view: analyse_position(view, DEFAULT_ENGINE, seed=1).best.move,
}


@pytest.mark.benchmark(group="analysis: time per position")
@pytest.mark.parametrize("side", SIDES)
def test_position(benchmark: BenchmarkFixture, figures: Figures, side: str) -> None:
    views = _views()
    run = SIDES[side]
    moves = benchmark.pedantic(lambda: [run(view) for view in views], rounds=3, iterations=1)
    assert all(move in view.legal_moves for move, view in zip(moves, views, strict=True))
    seconds = fastest_seconds(benchmark)
    if seconds is not None:
        figures.add(
            f"analysis-{side}",
            benchmark,
            Figure("ms_per_position", f"{side}: one position", seconds / len(views) * 1e3, "ms"),
        )
