"""The search bots' speed: ISMCTS iterations per second in mid-game positions.

Target (issue): at least 20,000 ISMCTS iterations per second on one core.
"""

from __future__ import annotations

import random
from typing import Final

import pytest
from pytest_benchmark.fixture import BenchmarkFixture
from support import Figure, Figures, Target, fastest_seconds

import skitgubbe as sg
from skitgubbe import _core

ITERATIONS: Final = 2_000
POSITIONS: Final = {"phase 1": (2, 40), "phase 2": (0, 100)}  # (seed, random moves played)


def mid_game_view(seed: int, moves: int) -> bytes:
    rng = random.Random(seed)
    game = sg.Game.new(sg.Rules.classic(), seed=seed)
    for _ in range(moves):
        game.play(rng.choice(game.legal_moves))
    assert game.to_move is not None and len(game.legal_moves) > 1
    return game.observation(game.to_move).core_view


@pytest.mark.benchmark(group="search")
@pytest.mark.parametrize("position", sorted(POSITIONS))
def test_ismcts_iterations(benchmark: BenchmarkFixture, figures: Figures, position: str) -> None:
    view = mid_game_view(*POSITIONS[position])
    best, root, iterations, nodes, _ = benchmark(
        _core.ismcts, view, ITERATIONS, 0.0, 0.7, 2, 200, 1
    )

    assert iterations == ITERATIONS
    assert sum(visits for _, visits in root) == ITERATIONS
    assert best in {move for move, _ in root} and nodes > 1
    seconds = fastest_seconds(benchmark)
    if seconds is None:
        return
    figures.add(
        f"ismcts-{position.replace(' ', '')}",
        benchmark,
        Figure(
            "iterations_per_s",
            f"ISMCTS, classic 3p, {position}",
            ITERATIONS / seconds,
            "iterations/s",
            Target(">=", 20_000),
        ),
    )
