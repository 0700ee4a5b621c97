"""The learning environments: turns of the PettingZoo AEC environment and steps of
the Gymnasium environment with random legal actions, next to PettingZoo's own
classic card games (``leduc_holdem_v4``, ``texas_holdem_v4``) timed with the same
loop (:func:`support.play_aec_turns`).

No targets: the figures are reported, and the AEC ratios compare the same loop
over the same wrappers (``env()`` wraps both sides alike).
"""

from __future__ import annotations

import importlib
from typing import Any, Final

import pytest
from pytest_benchmark.fixture import BenchmarkFixture
from support import (
    PETTINGZOO_GAMES,
    Figure,
    Figures,
    fastest_seconds,
    pedantic,
    play_aec_turns,
    play_gym_steps,
    rate_figures,
)

envs = pytest.importorskip(
    "skitgubbe.learn.envs",
    reason='pettingzoo and gymnasium are not installed (pip install ".[envs]")',
)

SKITGUBBE_EPISODES: Final = 8  # per round; about 2,000 turns at 3 players
POKER_EPISODES: Final = 400  # per round; about 1,000 to 2,000 turns
ROUNDS: Final = 5


@pytest.mark.benchmark(group="AEC environments: turns, random legal actions")
@pytest.mark.parametrize("players", [2, 3])
def test_aec_env(benchmark: BenchmarkFixture, figures: Figures, players: int) -> None:
    """skitgubbe's AEC environment (``envs.env``, wrapped), classic rules."""
    env = envs.env(rules="classic", players=players)
    seeds = range(SKITGUBBE_EPISODES)

    def setup() -> tuple[tuple[Any, range, int], dict[str, Any]]:
        return (env, seeds, 1), {}

    turns = pedantic(benchmark, play_aec_turns, setup=setup, rounds=ROUNDS, warmup_rounds=1)
    assert turns > SKITGUBBE_EPISODES * 20
    benchmark.extra_info.update(
        game=f"skitgubbe classic {players}p", episodes=SKITGUBBE_EPISODES, turns=turns
    )
    rate_figures(
        f"aec-env-{players}p", f"AEC env, classic {players}p", benchmark, figures, turns, "turn"
    )


@pytest.mark.benchmark(group="AEC environments: turns, random legal actions")
@pytest.mark.parametrize("name", PETTINGZOO_GAMES)
def test_pettingzoo_classic(benchmark: BenchmarkFixture, figures: Figures, name: str) -> None:
    """PettingZoo's own card game ``name`` (its ``env()``, wrapped), the same loop."""
    try:
        module = importlib.import_module(f"pettingzoo.classic.{name}")
    except ImportError as error:  # pragma: no cover - depends on the installation
        pytest.skip(
            f"pettingzoo.classic.{name} does not import ({error}): "
            "pip install 'pettingzoo[classic]' (rlcard and pygame)"
        )
    env = module.env()
    seeds = range(POKER_EPISODES)

    def setup() -> tuple[tuple[Any, range, int], dict[str, Any]]:
        return (env, seeds, 1), {}

    turns = pedantic(benchmark, play_aec_turns, setup=setup, rounds=ROUNDS, warmup_rounds=1)
    assert turns > POKER_EPISODES
    benchmark.extra_info.update(game=f"PettingZoo {name}", episodes=POKER_EPISODES, turns=turns)
    rate_figures(f"pettingzoo-{name}", f"PettingZoo {name}", benchmark, figures, turns, "turn")


@pytest.mark.benchmark(group="Gymnasium environment: steps, random legal actions")
def test_gym_env(benchmark: BenchmarkFixture, figures: Figures) -> None:
    """skitgubbe's Gymnasium environment, classic 3p, seat 0 against two random bots;
    a step is the learner's action and the opponents' moves up to its next turn."""
    env = envs.SkitgubbeEnv(rules="classic", players=3, opponents="random")
    seeds = range(SKITGUBBE_EPISODES)

    def setup() -> tuple[tuple[Any, range, int], dict[str, Any]]:
        return (env, seeds, 1), {}

    steps, moves = pedantic(benchmark, play_gym_steps, setup=setup, rounds=ROUNDS, warmup_rounds=1)
    assert steps > SKITGUBBE_EPISODES * 5
    benchmark.extra_info.update(
        game="skitgubbe classic 3p, random opponents",
        episodes=SKITGUBBE_EPISODES,
        steps=steps,
        moves=moves,
    )
    seconds = fastest_seconds(benchmark)
    if seconds is not None:
        label = "Gymnasium env, classic 3p"
        figures.add(
            "gym-env-3p",
            benchmark,
            Figure("steps_per_s", label, steps / seconds, "steps/s"),
            Figure("moves_per_s", f"{label}, every seat's moves", moves / seconds, "moves/s"),
        )
