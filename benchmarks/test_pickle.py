"""Unpickling: what checking a pickled game costs.

``pickle.loads`` of a game checks its start state in C (``sg_state_check``), the
pickled rules, start and events against a fresh deal, then replays the moves.
The benchmarks time a whole unpickle of a mid-game position, ``from_snapshot``
(the C check and a copy) and the C check alone, so that the check's share of an
unpickle can be read off. The first two run against an engine without the check
too (an older checkout on ``PYTHONPATH``), for a before/after comparison.
"""

from __future__ import annotations

import pickle

import pytest
from pytest_benchmark.fixture import BenchmarkFixture
from support import Figures, per_call

import skitgubbe as sg
from skitgubbe import _core


@pytest.mark.benchmark(group="unpickling a mid-game position")
def test_unpickle_a_game(benchmark: BenchmarkFixture, figures: Figures, game: sg.Game) -> None:
    data = pickle.dumps(game)
    twin = benchmark(pickle.loads, data)

    assert twin.moves == game.moves and twin.legal_moves == game.legal_moves
    benchmark.extra_info.update(moves=len(game.moves), pickle_bytes=len(data))
    per_call("unpickle-game", "pickle.loads(a Game), mid-game", benchmark, figures)


@pytest.mark.benchmark(group="unpickling a mid-game position")
def test_from_snapshot(benchmark: BenchmarkFixture, figures: Figures, game: sg.Game) -> None:
    snapshot = game._core.snapshot()
    core = benchmark(_core.from_snapshot, snapshot)

    assert core.snapshot() == snapshot
    per_call("from-snapshot", "_core.from_snapshot (check + copy)", benchmark, figures)


@pytest.mark.benchmark(group="unpickling a mid-game position")
def test_state_check(benchmark: BenchmarkFixture, figures: Figures, game: sg.Game) -> None:
    snapshot = game._core.snapshot()
    assert benchmark(_core.state_check, snapshot) == (0, None)
    per_call("state-check", "sg_state_check, from Python", benchmark, figures)
