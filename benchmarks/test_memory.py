"""Memory: replaying a game record, against parsing the same record's JSON.

The record is a long game (four greedy players looping until a move cap of
10,000 moves, classic rules, seed 1). Both sides start from the record's JSON
text and count the bytes they still hold afterwards (tracemalloc): ``json.loads``
holds the parsed record, ``Game.from_record`` the replayed game with its whole
history (undo, events, record). The figures are bytes per byte of JSON text and
bytes per move; the replay is also timed (µs per move).
"""

from __future__ import annotations

import json
import tracemalloc
from collections.abc import Callable
from typing import Final

import attrs
import pytest
from pytest_benchmark.fixture import BenchmarkFixture
from support import Figure, Figures, fastest_seconds

import skitgubbe as sg

CAP: Final = 10_000


@pytest.fixture(scope="module")
def long_record() -> str:
    """The JSON text of a game that the move cap ends after 10,000 moves."""
    rules = attrs.evolve(sg.Rules.classic(4), max_moves=CAP)
    game = sg.Game.new(rules=rules, seed=1)
    bot = sg.bots.GreedyBot()
    while game.to_move is not None:
        game.play(bot.choose(game.observation(game.to_move)))
    assert game.moves_played == CAP
    return json.dumps(game.record())


def _retained(make: Callable[[], object]) -> tuple[object, int]:
    """What ``make()`` returns and the bytes allocated for it that are still held."""
    tracemalloc.start()
    try:
        made = make()
        held, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return made, held


@pytest.mark.benchmark(group="replaying a record")
def test_replay_memory(benchmark: BenchmarkFixture, figures: Figures, long_record: str) -> None:
    data = json.loads(long_record)
    game, game_bytes = _retained(lambda: sg.Game.from_record(data))
    _, json_bytes = _retained(lambda: json.loads(long_record))
    assert isinstance(game, sg.Game) and game.moves_played == CAP

    replayed = benchmark(sg.Game.from_record, data)

    assert replayed.record() == json.loads(long_record)
    benchmark.extra_info.update(
        record=f"classic 4p, 4 greedy players, seed 1, capped at {CAP} moves",
        json_text_bytes=len(long_record),
        game_bytes=game_bytes,
        json_loads_bytes=json_bytes,
    )
    seconds = fastest_seconds(benchmark)
    figures.add(
        "replay-memory",
        benchmark,
        Figure("game_bytes_per_move", "replayed game, memory", game_bytes / CAP, "B/move"),
        Figure(
            "game_over_json_text",
            "replayed game / record's JSON text (bytes)",
            game_bytes / len(long_record),
            "x",
        ),
        Figure(
            "json_loads_over_json_text",
            "json.loads(record) / record's JSON text (bytes)",
            json_bytes / len(long_record),
            "x",
        ),
        *(
            [Figure("us_per_move", "Game.from_record", seconds / CAP * 1e6, "µs/move")]
            if seconds is not None
            else []
        ),
    )
