"""The asyncio runner's event hook: what ``on_event`` costs on a long game.

The same game is played by ``play_game_async`` with and without an
``on_event`` hook that keeps every update: four greedy players, classic rules,
seed 1, which loops until the move cap of 10,000 moves. Before the hook read
each seat's new events alone (``History.since``) it rebuilt every seat's
history at every move: 70 times the hookless time on this game.
"""

from __future__ import annotations

import asyncio
from typing import Any, Final

import pytest
from pytest_benchmark.fixture import BenchmarkFixture
from support import Figure, Figures, fastest_seconds, pedantic

import skitgubbe as sg
from skitgubbe.play.aio import play_game_async

RULES: Final = sg.Rules.classic(4)
ROUNDS: Final = 3


def _play(hook: bool) -> tuple[sg.GameResult, int]:
    updates: list[Any] = []
    lineup = [sg.bots.GreedyBot() for _ in range(4)]
    on_event = updates.append if hook else None
    result = asyncio.run(play_game_async(lineup, RULES, seed=1, on_event=on_event))
    return result, len(updates)


@pytest.mark.benchmark(group="play_game_async on a capped game")
@pytest.mark.parametrize("hook", [False, True], ids=["no-hook", "hook"])
def test_async_hook(benchmark: BenchmarkFixture, figures: Figures, hook: bool) -> None:
    result, updates = pedantic(benchmark, lambda: _play(hook), rounds=ROUNDS)
    assert result.truncated and result.moves_played == RULES.max_moves
    assert (updates > 0) == hook
    seconds = fastest_seconds(benchmark)
    if seconds is not None:
        name = "aio-hook" if hook else "aio-no-hook"
        label = f"play_game_async, {'with' if hook else 'without'} on_event, capped game"
        figures.add(name, benchmark, Figure("seconds", label, seconds, "s"))
