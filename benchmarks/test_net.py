"""The network's cost: bots' time per decision, and ISMCTS iterations with the network.

Every bot decides in the same twelve positions (classic 3 players, mid-game views from
seeded random games), one decision each per round, so the ratios below compare the same
work, per player decision: `net` (one forward pass in C) against `greedy` (the C rules),
the default `ismcts` and the improved one-thread search against the plain search of
before issue 33, and `expert` (two threads, 0.1 s) against them. ISMCTS iterations with the
network (a prior and the world value at every new leaf) are counted against the same
search with rollouts.
"""

from __future__ import annotations

import random
from typing import Final

import pytest
from pytest_benchmark.fixture import BenchmarkFixture
from support import Figure, Figures, fastest_seconds
from test_search import POSITIONS, mid_game_view

import skitgubbe as sg
from skitgubbe import _core
from skitgubbe.bots.net import default_network

# The levels (easy = greedy, medium = net, hard = ismcts, expert), the search as it was
# before issue 33 (no merged moves, uniform worlds) and the improved one-thread search at
# its time (docs/strength.md).
PLAIN: Final = "ismcts:merge=false,sampling=uniform"
IMPROVED: Final = "ismcts:iterations=2450,solver=20"
BOTS: Final = ("greedy", "net", "ismcts", PLAIN, IMPROVED, "expert")
ITERATIONS: Final = 2_000


def _views() -> list[sg.Observation]:
    views = []
    for seed in range(12):
        rng = random.Random(seed)
        game = sg.Game.new(sg.Rules.classic(3), seed=100 + seed)
        for _ in range(rng.randrange(10, 60)):
            game.play(rng.choice(game.legal_moves))
            if game.result is not None:
                break
        if game.result is None and len(game.legal_moves) > 1:
            views.append(game.observation(game.to_move))
    return views


@pytest.mark.benchmark(group="bots: time per decision")
@pytest.mark.parametrize("spec", BOTS)
def test_decision(benchmark: BenchmarkFixture, figures: Figures, spec: str) -> None:
    views = _views()
    bot = sg.bots.make(spec, seed=1)

    def decide_all() -> list[sg.Move]:
        return [bot.choose(view) for view in views]

    moves = benchmark(decide_all)
    assert all(move in view.legal_moves for move, view in zip(moves, views, strict=True))
    seconds = fastest_seconds(benchmark)
    if seconds is not None:
        figures.add(
            f"decision-{spec}",
            benchmark,
            Figure("us_per_decision", f"{spec}: one decision", seconds / len(views) * 1e6, "µs"),
        )


@pytest.mark.benchmark(group="search: with the network")
@pytest.mark.parametrize("use", ["rollouts", "network"])
def test_ismcts_with_the_network(benchmark: BenchmarkFixture, figures: Figures, use: str) -> None:
    view = mid_game_view(*POSITIONS["phase 1"])
    net = default_network().core if use == "network" else None
    net_use = _core.NET_PRIOR | _core.NET_LEAF if net is not None else 0
    result = benchmark(
        _core.ismcts, view, ITERATIONS, 0.0, 0.7, 2, 200, 1, net=net, net_use=net_use
    )
    assert result[2] == ITERATIONS
    seconds = fastest_seconds(benchmark)
    if seconds is not None:
        figures.add(
            f"ismcts-net-{use}",
            benchmark,
            Figure("iterations_per_s", f"ISMCTS with {use}", ITERATIONS / seconds, "iterations/s"),
        )
