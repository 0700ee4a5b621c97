"""Rollout policies of the user's own inside ISMCTS: iterations per second.

The same search three times, in the same mid-game position (classic 3 players,
phase 1; 2,000 iterations, exploration 0.7, rollouts capped at 200 moves, the same
seed): rolling out with the built-in greedy policy, with a C policy compiled by
:func:`skitgubbe.bots.policy.compile_c` that answers the built-in greedy move through
``skitgubbe_policy.h`` (``return sg_greedy(pos);``), and with a Python callable that
does the same (``lambda position: position.greedy``). All three search the same
tree (the test checks the visits are equal), so the ratio of iterations per second
is the cost of the plug-in: the position's legal moves and an indirect call per
rollout move in C, a Python call with the GIL per move for the callable.
Target (issue): the C policy at least 80 % of the built-in rate.
"""

from __future__ import annotations

from typing import Any, Final

import pytest
from pytest_benchmark.fixture import BenchmarkFixture
from support import Figure, Figures, fastest_seconds
from test_search import POSITIONS, mid_game_view

from skitgubbe import _core
from skitgubbe.bots import policy

ITERATIONS: Final = 2_000
GREEDY_C: Final = "int32_t again(const sg_position *p, void *c) { (void)c; return sg_greedy(p); }"


def _rollouts() -> dict[str, Any]:
    return {
        "built-in": None,
        "c": policy.compile_c(GREEDY_C, "again").address,
        "python": lambda position: position.greedy,
    }


@pytest.mark.benchmark(group="search: rollout policies")
@pytest.mark.parametrize("kind", ["built-in", "c", "python"])
def test_ismcts_with_a_policy(benchmark: BenchmarkFixture, figures: Figures, kind: str) -> None:
    view = mid_game_view(*POSITIONS["phase 1"])
    choose = _rollouts()[kind]
    result = benchmark(_core.ismcts, view, ITERATIONS, 0.0, 0.7, 1, 200, 1, choose=choose)
    reference = _core.ismcts(view, ITERATIONS, 0.0, 0.7, 1, 200, 1)
    assert result[1] == reference[1]  # the same tree: the same visits
    seconds = fastest_seconds(benchmark)
    if seconds is not None:
        label = f"ISMCTS, greedy rollouts, {kind} policy"
        figures.add(
            f"ismcts-policy-{kind}",
            benchmark,
            Figure("iterations_per_s", label, ITERATIONS / seconds, "iterations/s"),
        )
