"""The search bots' speed: ISMCTS iterations per second in mid-game positions.

Target (issue): at least 20,000 ISMCTS iterations per second on one core. Root-parallel
ISMCTS (``ISMCTSBot(threads=2)``) against one thread, the same total iterations: the
ratio is how much faster a decision of that budget is done on two cores.
"""

from __future__ import annotations

import random
from typing import Any, Final

import pytest
from pytest_benchmark.fixture import BenchmarkFixture
from support import Figure, Figures, Target, fastest_seconds, pedantic

import skitgubbe as sg
from skitgubbe import _core

ITERATIONS: Final = 2_000
THREADED_ITERATIONS: Final = 16_000  # in all, split between the threads
THREADED_ROUNDS: Final = 15
POSITIONS: Final = {"phase 1": (2, 40), "phase 2": (0, 100)}  # (seed, random moves played)


def mid_game_observation(seed: int, moves: int) -> sg.Observation:
    rng = random.Random(seed)
    game = sg.Game.new(sg.Rules.classic(), seed=seed)
    for _ in range(moves):
        game.play(rng.choice(game.legal_moves))
    assert game.to_move is not None and len(game.legal_moves) > 1
    return game.observation(game.to_move)


def mid_game_view(seed: int, moves: int) -> bytes:
    return mid_game_observation(seed, moves).core_view


@pytest.mark.benchmark(group="search")
@pytest.mark.parametrize("position", sorted(POSITIONS))
@pytest.mark.parametrize("merge", [False, True], ids=["plain", "merged"])
def test_ismcts_iterations(
    benchmark: BenchmarkFixture, figures: Figures, position: str, merge: bool
) -> None:
    """Iterations a second of one search, plain (as before issue 33) or with equivalent
    moves merged (``merge=true``, the default of ``ISMCTSBot``)."""
    view = mid_game_view(*POSITIONS[position])
    flags = _core.ISMCTS_MERGE if merge else 0
    best, root, iterations, nodes, _ = benchmark(
        _core.ismcts, view, ITERATIONS, 0.0, 0.7, 2, 200, 1, flags=flags
    )

    assert iterations == ITERATIONS
    assert sum(visits for _, visits in root) == ITERATIONS
    assert best in {move for move, _ in root} and nodes > 1
    seconds = fastest_seconds(benchmark)
    if seconds is None:
        return
    kind = "merged" if merge else "plain"
    figures.add(
        f"ismcts-{'merged-' if merge else ''}{position.replace(' ', '')}",
        benchmark,
        Figure(
            "iterations_per_s",
            f"ISMCTS ({kind}), classic 3p, {position}",
            ITERATIONS / seconds,
            "iterations/s",
            Target(">=", 20_000),
        ),
    )


@pytest.mark.benchmark(group="search, threads")
@pytest.mark.parametrize("threads", [1, 2])
def test_ismcts_threads(benchmark: BenchmarkFixture, figures: Figures, threads: int) -> None:
    """One decision of ``ISMCTSBot(iterations=16000, threads=…)`` in the phase-1 position:
    the same total iterations, split between the threads (started for the decision and
    joined at its end, as every threaded decision does). A new bot of the same seed is
    made untimed before each round, so every round does the same work."""
    observation = mid_game_observation(*POSITIONS["phase 1"])

    def setup() -> tuple[tuple[sg.bots.ISMCTSBot], dict[str, Any]]:
        return (sg.bots.ISMCTSBot(iterations=THREADED_ITERATIONS, threads=threads, seed=1),), {}

    def decide(bot: sg.bots.ISMCTSBot) -> tuple[int, int, float]:
        bot.statistics(observation)
        return bot.last_search

    iterations, _nodes, _seconds = pedantic(
        benchmark, decide, setup=setup, rounds=THREADED_ROUNDS, warmup_rounds=1
    )
    assert iterations == THREADED_ITERATIONS
    benchmark.extra_info.update(threads=threads, iterations=THREADED_ITERATIONS)
    seconds = fastest_seconds(benchmark)
    if seconds is None:
        return
    figures.add(
        f"ismcts-threads-{threads}",
        benchmark,
        Figure(
            "iterations_per_s",
            f"ISMCTS, classic 3p, phase 1, threads={threads}",
            THREADED_ITERATIONS / seconds,
            "iterations/s",
        ),
    )
