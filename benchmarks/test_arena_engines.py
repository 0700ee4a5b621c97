"""An arena match with bots out of process: games per second against the same match in
process.

The three matches play the same games move for move (the engines are sent each game's
bot seed, and GreedyBot is deterministic), classic rules, 3 players, 10 deal sets x 6
seat arrangements = 60 games, in this process (no worker processes):

- *in process*: GreedyBot (registered again as ``bench-greedy``, so that the seat
  arrangements are those of the other matches), GreedyBot and RandomBot;
- *one engine*: the first entrant is ``cmd:python -m skitgubbe engine greedy``, a child
  process speaking the engine protocol, the others in process;
- *isolated*: ``isolate=True``, every entrant an engine.

Each round is a whole :func:`~skitgubbe.run_match`, the engines' start-up (one check
before the match, one process per entrant for its games) included: what a user waits
for. The games' count is the same on every side, so the ratio of games per second is
the ratio of the two matches' times. Next to them, what one start costs: an
:class:`~skitgubbe.engine.EnginePlayer` of ``skitgubbe engine greedy`` started (the
interpreter, the import, the handshake) and closed.
"""

from __future__ import annotations

import shlex
import sys
from typing import Final

import pytest
from pytest_benchmark.fixture import BenchmarkFixture
from support import Figure, Figures, fastest_seconds, pedantic

import skitgubbe as sg
from skitgubbe import bots
from skitgubbe.engine import EnginePlayer

DEALS: Final = 30
ROUNDS: Final = 3
GREEDY_ENGINE: Final = "cmd:" + shlex.join([sys.executable, "-m", "skitgubbe", "engine", "greedy"])

bots.register("bench-greedy", sg.bots.GreedyBot)

MATCHES: Final = {
    "in-process": (["bench-greedy", "greedy", "random"], False),
    "one-engine": ([GREEDY_ENGINE, "greedy", "random"], False),
    "isolated": (["bench-greedy", "greedy", "random"], True),
}


def play(entrants: list[str], isolate: bool) -> sg.MatchResult:
    return sg.run_match(entrants, deals=DEALS, seed=1, isolate=isolate)


@pytest.mark.benchmark(group="arena: bots out of process")
@pytest.mark.parametrize("name", list(MATCHES))
def test_arena_games_per_second(benchmark: BenchmarkFixture, figures: Figures, name: str) -> None:
    entrants, isolate = MATCHES[name]
    result = pedantic(benchmark, lambda: play(entrants, isolate), rounds=ROUNDS)
    assert len(result.games) == DEALS * 6 and result.crashes == ()
    baseline = play(*MATCHES["in-process"])
    assert [g.finish_order for g in result.games] == [g.finish_order for g in baseline.games]
    moves = sum(game.moves for game in result.games)
    benchmark.extra_info.update(games=len(result.games), moves=moves)
    seconds = fastest_seconds(benchmark)
    if seconds is not None:
        label = f"arena, {name} (GreedyBot, GreedyBot, RandomBot)"
        figures.add(
            f"arena-{name}",
            benchmark,
            Figure("games_per_s", label, len(result.games) / seconds, "games/s"),
            Figure("ms_per_game", label, seconds / len(result.games) * 1e3, "ms"),
        )


@pytest.mark.benchmark(group="arena: bots out of process")
def test_engine_start(benchmark: BenchmarkFixture, figures: Figures) -> None:
    command = [sys.executable, "-m", "skitgubbe", "engine", "greedy"]

    def start() -> str:
        with EnginePlayer(command) as engine:
            assert engine.id is not None
            return engine.id.name

    assert pedantic(benchmark, start, rounds=ROUNDS) == "greedy"
    seconds = fastest_seconds(benchmark)
    if seconds is not None:
        label = "EnginePlayer start + handshake + close (skitgubbe engine greedy)"
        figures.add("engine-start", benchmark, Figure("ms", label, seconds * 1e3, "ms"))
