"""Integer actions: decisions of a random-play loop through ``Game`` (compared with
OpenSpiel's own card games timed by ``test_python_api.py`` in the same run, deals excluded
on both sides), and the same game through OpenSpiel.

Per decision: ``game.legal_actions`` + a random pick + ``game.play_action(action)``
(a slough is one decision per card and one to throw them), against
``state.legal_actions()`` + the same pick + ``state.apply_action(action)`` in
OpenSpiel's hearts and spades (C++ games). ``python_skitgubbe`` (skitgubbe.learn.openspiel)
shows what OpenSpiel's Python-game layer costs on top of the integer actions.
"""

from __future__ import annotations

from typing import Any, Final

import pytest
from pytest_benchmark.fixture import BenchmarkFixture
from support import (
    Figures,
    deal_games,
    deal_openspiel,
    pedantic,
    play_action_decisions,
    play_openspiel_decisions,
    rate_figures,
)

import skitgubbe as sg

ACTION_GAMES: Final = 40  # per round; about 10,000 decisions
OPENSPIEL_GAMES_PER_ROUND: Final = 100  # per round; about 5,500 to 6,500 decisions
PYTHON_SKITGUBBE_GAMES: Final = 4  # per round; about 1,000 decisions
ROUNDS: Final = 15
GROUP: Final = "integer actions in Python, deals excluded"


@pytest.mark.benchmark(group=GROUP)
def test_action_decisions(benchmark: BenchmarkFixture, figures: Figures) -> None:
    """Per decision: game.legal_actions + a random pick + game.play_action(action); the
    deals (Game.new) are made untimed before each round."""
    rules = sg.Rules.classic(3)
    seeds = range(ACTION_GAMES)

    def setup() -> tuple[tuple[list[sg.Game], int], dict[str, Any]]:
        return (deal_games(rules, seeds), 1), {}

    decisions = pedantic(
        benchmark, play_action_decisions, setup=setup, rounds=ROUNDS, warmup_rounds=1
    )
    assert decisions > ACTION_GAMES
    benchmark.extra_info.update(game="skitgubbe classic 3p", games=ACTION_GAMES)
    rate_figures(
        "action-decisions", "integer actions, classic 3p", benchmark, figures, decisions, "decision"
    )


@pytest.mark.benchmark(group=GROUP)
def test_python_skitgubbe_decisions(
    benchmark: BenchmarkFixture, figures: Figures, openspiel: Any
) -> None:
    """The same loop through OpenSpiel: python_skitgubbe, classic 3p, the deal's 52
    chance nodes played untimed before each round."""
    import skitgubbe.learn.openspiel  # noqa: F401  (registers python_skitgubbe)

    game = openspiel.load_game("python_skitgubbe", {"players": 3})

    def setup() -> tuple[tuple[list[Any], int], dict[str, Any]]:
        return (deal_openspiel(game, PYTHON_SKITGUBBE_GAMES, 2), 1), {}

    decisions = pedantic(
        benchmark, play_openspiel_decisions, setup=setup, rounds=ROUNDS, warmup_rounds=1
    )
    assert decisions > PYTHON_SKITGUBBE_GAMES
    benchmark.extra_info.update(game="python_skitgubbe classic 3p", games=PYTHON_SKITGUBBE_GAMES)
    rate_figures(
        "python-skitgubbe-decisions",
        "python_skitgubbe in OpenSpiel",
        benchmark,
        figures,
        decisions,
        "decision",
    )
