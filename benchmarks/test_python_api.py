"""The Python API: decisions of a random-play loop (against OpenSpiel's, deals
excluded on both sides) and single calls on a mid-game position.

Targets (issue): ``Game.copy()`` and ``Game.undo()`` under 1 µs each,
``Game.observation(seat)`` under 10 µs.
"""

from __future__ import annotations

import random
from operator import attrgetter
from typing import Any, Final

import pytest
from pytest_benchmark.fixture import BenchmarkFixture
from support import (
    MID_GAME_MOVES,
    OPENSPIEL_GAMES,
    Figures,
    deal_games,
    deal_openspiel,
    pedantic,
    per_call,
    play_decisions,
    play_openspiel_decisions,
    rate_figures,
)

import skitgubbe as sg

DECISION_GAMES: Final = 40  # per round; about 10,000 decisions
OPENSPIEL_DECISION_GAMES: Final = 100  # per round; about 5,500 to 6,500 decisions
DECISION_ROUNDS: Final = 15
SINGLE_CALL_ROUNDS: Final = 20_000  # for the benchmarks that need a setup per call
COPY_UNDO_TARGET_US: Final = 1.0
OBSERVATION_TARGET_US: Final = 10.0


# -- decisions: the random-play loop, deals excluded ------------------------------------------


@pytest.mark.benchmark(group="decisions in Python, deals excluded")
def test_python_api_decisions(benchmark: BenchmarkFixture, figures: Figures) -> None:
    """Per decision: game.legal_moves + a random pick + game.play(move); the deals
    (Game.new) are made untimed before each round."""
    rules = sg.Rules.classic(3)
    seeds = range(DECISION_GAMES)

    def setup() -> tuple[tuple[list[sg.Game], int], dict[str, Any]]:
        return (deal_games(rules, seeds), 1), {}

    decisions = pedantic(
        benchmark, play_decisions, setup=setup, rounds=DECISION_ROUNDS, warmup_rounds=1
    )
    assert decisions > DECISION_GAMES
    benchmark.extra_info.update(game="skitgubbe classic 3p", games=DECISION_GAMES)
    rate_figures(
        "python-api-decisions", "Python API, classic 3p", benchmark, figures, decisions, "decision"
    )


@pytest.mark.benchmark(group="decisions in Python, deals excluded")
@pytest.mark.parametrize("name", OPENSPIEL_GAMES)
def test_openspiel_decisions(
    benchmark: BenchmarkFixture, figures: Figures, openspiel: Any, name: str
) -> None:
    """Per decision: state.legal_actions() + the same pick + state.apply_action(action);
    the deal's chance nodes are played untimed before each round."""
    game = openspiel.load_game(name)

    def setup() -> tuple[tuple[list[Any], int], dict[str, Any]]:
        return (deal_openspiel(game, OPENSPIEL_DECISION_GAMES, 2), 1), {}

    decisions = pedantic(
        benchmark,
        play_openspiel_decisions,
        setup=setup,
        rounds=DECISION_ROUNDS,
        warmup_rounds=1,
    )
    assert decisions > OPENSPIEL_DECISION_GAMES
    benchmark.extra_info.update(game=f"OpenSpiel {game}", games=OPENSPIEL_DECISION_GAMES)
    rate_figures(
        f"openspiel-decisions-{name}",
        f"OpenSpiel {name}",
        benchmark,
        figures,
        decisions,
        "decision",
    )


# -- single calls on a mid-game position ----------------------------------------------------


def _describe(benchmark: BenchmarkFixture, game: sg.Game) -> None:
    benchmark.extra_info.update(
        position=f"classic 3p, seed 7, {MID_GAME_MOVES} random moves",
        phase=game.phase.name,
    )


@pytest.mark.benchmark(group="Game calls, mid-game")
def test_legal_moves(benchmark: BenchmarkFixture, figures: Figures, game: sg.Game) -> None:
    moves = benchmark(attrgetter("legal_moves"), game)  # the property, read from C

    assert moves
    assert all(game.is_legal(m) for m in moves)
    _describe(benchmark, game)
    benchmark.extra_info["legal_moves"] = len(moves)
    per_call("legal-moves", "Game.legal_moves", benchmark, figures)


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
    move = random.Random(1).choice(game.legal_moves)
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
    move = random.Random(1).choice(game.legal_moves)
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
    assert view.legal_moves == game.legal_moves
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
    move = random.Random(1).choice(game.legal_moves)

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
