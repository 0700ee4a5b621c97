"""Whole random games in the C core: ``skitgubbe.simulate`` against a tight C loop.

Targets (issue): at least 150,000 classic 3-player games/s on one core, and
within 3x of the ns per move of a hand-written C loop over the core's API.
"""

from __future__ import annotations

from typing import Final

import pytest
from pytest_benchmark.fixture import BenchmarkFixture
from support import (
    Figure,
    Figures,
    Target,
    TightLoop,
    TightLoopRun,
    fastest_seconds,
    pedantic,
)

import skitgubbe as sg

SIMULATE_GAMES: Final = 2_000  # per round; about 10 ms for 3 players
TIGHT_LOOP_GAMES: Final = 20_000  # per run of the C program
TIGHT_LOOP_ROUNDS: Final = 5
GAMES_PER_S_TARGET: Final = {3: Target(">=", 150_000)}


@pytest.mark.benchmark(group="simulate: random games in C")
@pytest.mark.parametrize("players", [2, 3, 4])
def test_simulate(benchmark: BenchmarkFixture, figures: Figures, players: int) -> None:
    rules = sg.Rules.classic(players)
    result = benchmark(sg.simulate, rules, SIMULATE_GAMES, seed=1)

    assert result.games == SIMULATE_GAMES
    assert sum(result.losses) + result.no_loser + result.truncated == SIMULATE_GAMES
    assert result.moves_played > SIMULATE_GAMES
    benchmark.extra_info.update(players=players, games=result.games, moves=result.moves_played)
    seconds = fastest_seconds(benchmark)
    if seconds is None:
        return
    label = f"simulate, classic {players}p"
    figures.add(
        f"simulate-{players}p",
        benchmark,
        Figure(
            "games_per_s", label, result.games / seconds, "games/s", GAMES_PER_S_TARGET.get(players)
        ),
        Figure("ns_per_move", label, seconds * 1e9 / result.moves_played, "ns/move"),
    )


# The slowest combination found by timing 250 random 3-player rule sets: runs
# with whole-pile pick-ups and 5-card hands make big hands with many legal moves.
VARIANTS: Final = {
    "modern": sg.Rules.modern(3),
    "slowest": sg.Rules.classic(
        3,
        hand_size=5,
        trick_mode="all",
        draw="after_trick",
        trump="none",
        runs=True,
        pickup="pile",
    ),
}


@pytest.mark.benchmark(group="simulate: random games in C")
@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_simulate_variants(benchmark: BenchmarkFixture, figures: Figures, variant: str) -> None:
    rules = VARIANTS[variant]
    result = benchmark(sg.simulate, rules, SIMULATE_GAMES, seed=1)

    assert result.games == SIMULATE_GAMES
    assert sum(result.losses) + result.no_loser + result.truncated == SIMULATE_GAMES
    benchmark.extra_info.update(
        rules=rules.describe(), games=result.games, moves=result.moves_played
    )
    seconds = fastest_seconds(benchmark)
    if seconds is None:
        return
    label = f"simulate, {variant} 3p"
    figures.add(
        f"simulate-{variant}",
        benchmark,
        Figure("games_per_s", label, result.games / seconds, "games/s"),
        Figure("ns_per_move", label, seconds * 1e9 / result.moves_played, "ns/move"),
    )


@pytest.mark.benchmark(group="simulate: random games in C")
@pytest.mark.parametrize("players", [2, 3, 4])
def test_tight_c_loop(
    benchmark: BenchmarkFixture, figures: Figures, tight_loop: TightLoop, players: int
) -> None:
    # Timed by the program itself (clock_gettime around the loop), so process
    # start-up stays out of ns/move; the benchmark's own rows include it.
    runs: list[TightLoopRun] = []

    def run() -> TightLoopRun:
        runs.append(tight_loop.run(TIGHT_LOOP_GAMES, players, seed=1))
        return runs[-1]

    result = pedantic(benchmark, run, rounds=TIGHT_LOOP_ROUNDS, warmup_rounds=1)

    assert result.games == TIGHT_LOOP_GAMES
    assert result.moves > TIGHT_LOOP_GAMES
    assert result.ns > 0
    benchmark.extra_info.update(
        players=players, games=result.games, moves=result.moves, compiler=tight_loop.compiler
    )
    if fastest_seconds(benchmark) is None:
        return
    best = min(runs, key=lambda r: r.ns)
    label = f"tight C loop, classic {players}p"
    figures.add(
        f"tight-c-loop-{players}p",
        benchmark,
        Figure("games_per_s", label, best.games_per_s, "games/s"),
        Figure("ns_per_move", label, best.ns_per_move, "ns/move"),
    )
