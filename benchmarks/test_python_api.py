"""The Python API: a random-play loop (against OpenSpiel's) and single calls on a
mid-game position.

Targets (issue): ``Game.copy()`` and ``Game.undo()`` under 1 µs each,
``Game.observation(seat)`` under 10 µs.
"""

from __future__ import annotations

import random
from typing import Any, Final

import pytest
from pytest_benchmark.fixture import BenchmarkFixture
from support import (
    MID_GAME_MOVES,
    Figure,
    Figures,
    fastest_seconds,
    pedantic,
    per_call,
    play_openspiel_games,
    play_random_games,
)

import skitgubbe as sg

API_LOOP_GAMES: Final = 10  # per round; about 2,500 moves
OPENSPIEL_GAMES: Final = 30  # per round; about 2,500 player moves
SINGLE_CALL_ROUNDS: Final = 20_000  # for the benchmarks that need a setup per call
COPY_UNDO_TARGET_US: Final = 1.0
OBSERVATION_TARGET_US: Final = 10.0


# -- the random-play loop -----------------------------------------------------------------


@pytest.mark.benchmark(group="random-play loop in Python")
def test_python_api_loop(benchmark: BenchmarkFixture, figures: Figures) -> None:
    """Game.new, then legal_moves() + random.choice + play(move) until the game ends."""
    rules = sg.Rules.classic(3)
    moves = benchmark(play_random_games, rules, range(API_LOOP_GAMES), 1)

    assert moves > API_LOOP_GAMES
    benchmark.extra_info.update(game="skitgubbe classic 3p", games=API_LOOP_GAMES, moves=moves)
    seconds = fastest_seconds(benchmark)
    if seconds is not None:
        figures.add(
            "python-api-loop",
            benchmark,
            Figure("moves_per_s", "Python API random loop, 3p", moves / seconds, "moves/s"),
        )


@pytest.mark.benchmark(group="random-play loop in Python")
def test_openspiel_loop(benchmark: BenchmarkFixture, figures: Figures, crazy_eights: Any) -> None:
    """new_initial_state, then legal_actions() + random.choice + apply_action, with
    chance nodes sampled from chance_outcomes(); moves/s counts player moves only."""
    decisions, chance = benchmark(play_openspiel_games, crazy_eights, OPENSPIEL_GAMES, 1)

    assert decisions > OPENSPIEL_GAMES
    assert chance > 0
    benchmark.extra_info.update(
        game=f"crazy_eights {crazy_eights.get_parameters()}",
        games=OPENSPIEL_GAMES,
        moves=decisions,
        chance_moves=chance,
    )
    seconds = fastest_seconds(benchmark)
    if seconds is not None:
        figures.add(
            "openspiel-loop",
            benchmark,
            Figure("moves_per_s", "OpenSpiel crazy_eights loop", decisions / seconds, "moves/s"),
        )


# -- single calls on a mid-game position ----------------------------------------------------


def _describe(benchmark: BenchmarkFixture, game: sg.Game) -> None:
    benchmark.extra_info.update(
        position=f"classic 3p, seed 7, {MID_GAME_MOVES} random moves",
        phase=game.phase.name,
    )


@pytest.mark.benchmark(group="Game calls, mid-game")
def test_legal_moves(benchmark: BenchmarkFixture, figures: Figures, game: sg.Game) -> None:
    moves = benchmark(game.legal_moves)

    assert moves
    assert all(game.is_legal(m) for m in moves)
    _describe(benchmark, game)
    benchmark.extra_info["legal_moves"] = len(moves)
    per_call("legal-moves", "Game.legal_moves()", benchmark, figures)


@pytest.mark.benchmark(group="Game calls, mid-game")
def test_copy(benchmark: BenchmarkFixture, figures: Figures, game: sg.Game) -> None:
    twin = benchmark(game.copy)

    assert twin is not game
    assert twin.moves == game.moves
    assert twin.observation(0) == game.observation(0)
    _describe(benchmark, game)
    per_call("copy", "Game.copy()", benchmark, figures, COPY_UNDO_TARGET_US)


@pytest.mark.benchmark(group="Game calls, mid-game")
def test_play_undo(benchmark: BenchmarkFixture, figures: Figures, game: sg.Game) -> None:
    move = random.Random(1).choice(game.legal_moves())
    before = game.moves

    def play_undo() -> sg.Move:
        game.play(move)
        return game.undo()

    assert benchmark(play_undo) == move
    assert game.moves == before
    _describe(benchmark, game)
    per_call("play-undo", "Game.play(move) + Game.undo()", benchmark, figures)


@pytest.mark.benchmark(group="Game calls, mid-game")
def test_undo(benchmark: BenchmarkFixture, figures: Figures, game: sg.Game) -> None:
    # One undo per round (the move is played again untimed in setup), so the
    # figure includes the timer's own overhead of some tens of ns.
    move = random.Random(1).choice(game.legal_moves())
    before = game.moves

    def setup() -> None:
        game.play(move)

    undone = pedantic(
        benchmark, game.undo, setup=setup, rounds=SINGLE_CALL_ROUNDS, warmup_rounds=100
    )

    assert undone == move
    assert game.moves == before
    _describe(benchmark, game)
    per_call("undo", "Game.undo()", benchmark, figures, COPY_UNDO_TARGET_US)


@pytest.mark.benchmark(group="Game calls, mid-game")
def test_observation(benchmark: BenchmarkFixture, figures: Figures, game: sg.Game) -> None:
    """The same position again and again: the seat's history view is already built."""
    seat = game.to_move
    assert seat is not None
    view = benchmark(game.observation, seat)

    assert view.seat == seat
    assert view.legal_moves == game.legal_moves()
    assert view.moves_played == MID_GAME_MOVES
    _describe(benchmark, game)
    per_call(
        "observation",
        "Game.observation(seat), repeated",
        benchmark,
        figures,
        OBSERVATION_TARGET_US,
    )


@pytest.mark.benchmark(group="Game calls, mid-game")
def test_observation_after_move(
    benchmark: BenchmarkFixture, figures: Figures, game: sg.Game
) -> None:
    """What a bot pays each turn: the view of a position one move newer than the
    last one seen, so one step of the seat's history is built."""
    game.observation(0)  # every older step is already built for seat 0
    move = random.Random(1).choice(game.legal_moves())

    def setup() -> tuple[tuple[sg.Game, int], dict[str, Any]]:
        twin = game.copy()
        twin.play(move)
        return (twin, 0), {}

    view = pedantic(
        benchmark, sg.Game.observation, setup=setup, rounds=SINGLE_CALL_ROUNDS, warmup_rounds=100
    )

    assert view.seat == 0
    assert view.moves_played == MID_GAME_MOVES + 1
    _describe(benchmark, game)
    per_call(
        "observation-after-move",
        "Game.observation(seat), after a move",
        benchmark,
        figures,
        OBSERVATION_TARGET_US,
    )
