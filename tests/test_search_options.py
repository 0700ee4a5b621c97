"""Search options: every value is either refused up front or safe in C.

The C search is public, so it must stay in bounds for any parameter value (an
exploration below every score once made it read ``nodes[UINT32_MAX]`` and kill
the process). Runs that used to crash the interpreter run in a subprocess so
that a regression fails a test instead of ending the test run.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

import skitgubbe as sg
from skitgubbe import _engine

SRC = str(Path(sg.__file__).resolve().parent.parent)


def run_isolated(code: str, timeout: float = 120) -> str:
    """Run ``code`` in a fresh interpreter; a crash or a hang fails the test, not the run."""
    env = dict(os.environ, PYTHONPATH=SRC)
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=False,
        env=env,
        timeout=timeout,
    )
    assert done.returncode == 0, f"exit status {done.returncode}\n{done.stderr}"
    return done.stdout


def position(seed: int = 4, moves: int = 6) -> sg.Game:
    game = sg.Game.new(seed=seed)
    for _ in range(moves):
        game.play(sg.bots.GreedyBot().choose(game.observation(game.to_move)))
    assert len(game.legal_moves) > 1
    return game


SETUP = (
    "import math, skitgubbe as sg\n"
    "from skitgubbe import _engine\n"
    "game = sg.Game.new(seed=4)\n"
    "for _ in range(6):\n"
    "    game.play(sg.bots.GreedyBot().choose(game.observation(game.to_move)))\n"
    "view = game.observation(game.to_move).core_view\n"
    "legal = [move.code for move in game.legal_moves]\n"
)

# ---------------------------------------------------------------------------
# The C search itself, for any parameter value


@pytest.mark.parametrize("exploration", ["-1.0", "-math.inf", "math.nan", "math.inf", "-1e300"])
def test_the_c_search_stays_in_bounds_for_any_exploration(exploration: str) -> None:
    out = run_isolated(
        SETUP + f"best, root, iterations, nodes, seconds = _engine.ismcts("
        f"view, 300, 0.0, {exploration}, 2, 200, 1)\n"
        "assert best in legal and iterations == 300, (best, iterations)\n"
        "assert sum(count for _, count in root) == 300\n"
        "print('ok')\n"
    )
    assert out.strip() == "ok"


@pytest.mark.parametrize("seconds", [math.inf, math.nan, -1.0, 0.0])
def test_the_c_search_without_a_usable_budget_returns_at_once(seconds: float) -> None:
    """A time that is not positive and finite is no limit; with no iteration limit, no search."""
    out = run_isolated(
        SETUP + f"best, root, iterations, nodes, seconds = _engine.ismcts("
        f"view, 0, float({str(seconds)!r}), 0.7, 2, 200, 1)\n"
        "assert best == legal[0] and iterations == 0, (best, iterations)\n"
        "print('ok')\n",
        timeout=30,
    )
    assert out.strip() == "ok"


def test_the_c_search_with_an_infinite_time_and_an_iteration_limit_stops_at_the_limit() -> None:
    view = position().observation(position().to_move).core_view
    _best, _root, iterations, _nodes, _seconds = _engine.ismcts(view, 50, math.inf, 0.7, 2, 200, 1)
    assert iterations == 50


def test_the_c_pimc_with_no_samples_scores_every_move_zero() -> None:
    game = position()
    view = game.observation(game.to_move).core_view
    for worlds, rollouts in [(0, 2), (-5, 2), (4, 0), (4, -1)]:
        pairs = _engine.pimc(view, worlds, rollouts, 1, 100, 1)
        assert [code for code, _ in pairs] == [move.code for move in game.legal_moves]
        assert all(score == 0.0 for _, score in pairs)
    # A policy outside the enum plays random rollouts.
    pairs = _engine.pimc(view, 2, 1, 99, 100, 1)
    assert all(0.0 <= score <= 1.0 for _, score in pairs)
