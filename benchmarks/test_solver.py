"""The endgame solver's speed: positions searched per second on seeded endgames.

Each round solves the same set of two-player phase-2 positions (eight cards in
each hand, dealt from fixed seeds, the trump the suit of the next card) from
scratch: a fresh transposition table for each position, no budget to stop it,
the outcome only (``per_move`` false). The work is deterministic, so every round
searches the same number of positions; the figure is that number over the
fastest round's time.
"""

from __future__ import annotations

import random
from typing import Final

import pytest
from pytest_benchmark.fixture import BenchmarkFixture
from support import Figure, Figures, fastest_seconds

import skitgubbe as sg
from skitgubbe import _core

CARDS: Final = 8  # in each hand
POSITIONS: Final = 10
TABLE: Final = 2**16  # entries (4 MiB): cleared for each position, as a fresh solver is
PRESETS: Final = {"classic": sg.Rules.classic, "modern": sg.Rules.modern}


def endgames(preset: str) -> list[bytes]:
    """The set's positions as the views the solver reads (the leader's: every card placed)."""
    rng = random.Random(3303)
    views = []
    deck = [f"{rank}{suit}" for suit in "CDHS" for rank in "23456789TJQKA"]
    for _ in range(POSITIONS):
        rng.shuffle(deck)
        hands = [" ".join(deck[:CARDS]), " ".join(deck[CARDS : 2 * CARDS])]
        trump = deck[2 * CARDS][-1]
        game = sg.Game.from_shedding(PRESETS[preset](players=2), hands, trump=trump, leader=0)
        views.append(game.observation(0).core_view)
    return views


def solve_all(views: list[bytes]) -> tuple[int, int]:
    """(positions searched, positions solved)."""
    nodes = solved = 0
    for view in views:
        value, _loser, _best, _length, searched, _stop, _to_move, _moves = _core.solve(
            view, 2**64 - 1, TABLE, False
        )
        nodes += searched
        solved += _core.SOLVE_VALUES[value] != "unknown"
    return nodes, solved


@pytest.mark.benchmark(group="solver")
@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_solver_positions_per_second(
    benchmark: BenchmarkFixture, figures: Figures, preset: str
) -> None:
    views = endgames(preset)
    nodes, solved = benchmark(solve_all, views)

    assert solved == POSITIONS and nodes > POSITIONS
    benchmark.extra_info["nodes"] = nodes
    seconds = fastest_seconds(benchmark)
    if seconds is None:
        return
    label = f"solver, {preset} 2p, {CARDS} + {CARDS} cards"
    figures.add(
        f"solver-{preset}",
        benchmark,
        Figure("nodes_per_s", label, nodes / seconds, "positions/s"),
        Figure("ms_per_endgame", label, seconds / POSITIONS * 1e3, "ms"),
    )
