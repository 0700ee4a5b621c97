"""The vector environment: learner steps per second from Python, against
PettingZoo's own ``leduc_holdem_v4`` measured by its ``performance_benchmark``.

Targets (issue): at least 1,000,000 learner steps a second on one core at batch
1,024 with observations and masks written and random opponents, and at least
50 times the turns per second of ``leduc_holdem_v4`` in the same run. A learner
step is one call's work for one game: the learner's action, the built-in
players' moves up to the learner's next turn (or a new deal), its tensor and its
mask.

Three loops are timed, and each figure says which:

* ``env.step`` alone (``test_vector_env``): the actions are chosen between
  rounds, untimed (that is the learner's own work);
* a random-play loop that picks with numpy from the masks as docs/learning.md
  shows, the pick timed with the step (``test_random_play_loop[numpy pick]``);
* the same loop picking with :meth:`VectorEnv.sample_actions`, in C
  (``test_random_play_loop[C pick]``).

``performance_benchmark`` times PettingZoo's whole loop, its random action
choice included, and gives the mean rate over five seconds: the loops are the
fair comparison with it, and each is also given as its mean round (like for
like with that mean) beside the suite's usual fastest round.
"""

from __future__ import annotations

import contextlib
import io
import re
from typing import Any, Final

import numpy
import pytest
from pytest_benchmark.fixture import BenchmarkFixture
from support import Figure, Figures, Target, fastest_seconds, pedantic

import skitgubbe as sg
from skitgubbe.learn.vector import VectorEnv

BATCH: Final = 1024
ROUNDS: Final = 300
STEPS_TARGET: Final = Target(">=", 1_000_000)


def _mean_seconds(benchmark: BenchmarkFixture) -> float:
    """Seconds per call of the benchmark's mean round (it timed something)."""
    return float(benchmark.stats.stats.mean)


def _random_legal(masks: Any, rng: numpy.random.Generator) -> Any:
    noise = rng.random(masks.shape, dtype=numpy.float32)
    return numpy.argmax(numpy.where(masks, noise, -1.0), axis=1).astype(numpy.int32)


@pytest.mark.benchmark(group="vector environment, batch 1024")
@pytest.mark.parametrize(
    "mode",
    ["random", "greedy", "self-play"],
)
def test_vector_env(benchmark: BenchmarkFixture, figures: Figures, mode: str) -> None:
    learners: Any = "all" if mode == "self-play" else (0,)
    opponents = "random" if mode == "self-play" else mode
    env = VectorEnv(BATCH, sg.Rules.classic(3), opponents=opponents, learners=learners, seed=1)
    _, info = env.reset()
    rng = numpy.random.default_rng(0)
    actions = {"next": _random_legal(info["action_mask"], rng)}
    ended = []

    def setup() -> tuple[tuple[Any], dict[str, Any]]:
        actions["next"] = _random_legal(info["action_mask"], rng)
        return (actions["next"],), {}

    def step(chosen: Any) -> None:
        _, _, terminated, truncated, _ = env.step(chosen)
        ended.append(int((terminated | truncated).sum()))

    run: Any = benchmark.pedantic
    run(step, setup=setup, rounds=ROUNDS, warmup_rounds=5)
    for _ in range(1000):  # (the smoke run times one round only)
        if sum(ended):
            break
        step(setup()[0][0])
    assert sum(ended) > 0  # games ended and were dealt again
    benchmark.extra_info.update(batch=BATCH, opponents=opponents, learners=str(learners))
    seconds = fastest_seconds(benchmark)
    if seconds is not None:
        figures.add(
            f"vector-{mode}",
            benchmark,
            Figure(
                "steps_per_s",
                f"vector env.step alone (picks untimed), {mode}, batch {BATCH}",
                BATCH / seconds,
                "steps/s",
                STEPS_TARGET if mode == "random" else None,
            ),
            Figure(
                "mean_steps_per_s",
                f"vector env.step alone (picks untimed), {mode}, batch {BATCH}, mean round",
                BATCH / _mean_seconds(benchmark),
                "steps/s",
            ),
        )


PICKS: Final = {"numpy pick": "vector-loop-numpy", "C pick": "vector-loop-c"}


@pytest.mark.benchmark(group="vector environment, batch 1024")
@pytest.mark.parametrize("pick", list(PICKS))
def test_random_play_loop(benchmark: BenchmarkFixture, figures: Figures, pick: str) -> None:
    env = VectorEnv(BATCH, sg.Rules.classic(3), opponents="random", seed=1)
    _, info = env.reset()
    rng = numpy.random.default_rng(0)
    ended = []

    def numpy_round() -> None:  # the pick docs/learning.md shows, then the step
        noise = rng.random(info["action_mask"].shape)
        actions = numpy.argmax(numpy.where(info["action_mask"], noise, -1.0), axis=1)
        _, _, terminated, truncated, _ = env.step(actions)
        ended.append(int((terminated | truncated).sum()))

    def c_round() -> None:  # a pick in C, then the step
        _, _, terminated, truncated, _ = env.step(env.sample_actions())
        ended.append(int((terminated | truncated).sum()))

    play = numpy_round if pick == "numpy pick" else c_round
    pedantic(benchmark, play, rounds=ROUNDS, warmup_rounds=5)
    for _ in range(1000):  # (the smoke run times one round only)
        if sum(ended):
            break
        play()
    assert sum(ended) > 0  # games ended and were dealt again
    benchmark.extra_info.update(batch=BATCH, opponents="random", pick=pick)
    seconds = fastest_seconds(benchmark)
    if seconds is not None:
        figures.add(
            PICKS[pick],
            benchmark,
            Figure(
                "steps_per_s",
                f"vector env random-play loop, {pick}, batch {BATCH}",
                BATCH / seconds,
                "steps/s",
            ),
            Figure(
                "mean_steps_per_s",
                f"vector env random-play loop, {pick}, batch {BATCH}, mean round",
                BATCH / _mean_seconds(benchmark),
                "steps/s",
            ),
        )


@pytest.mark.benchmark(group="vector environment, batch 1024")
def test_pettingzoo_leduc(benchmark: BenchmarkFixture, figures: Figures) -> None:
    from pettingzoo.classic import leduc_holdem_v4
    from pettingzoo.test import performance_benchmark

    env = leduc_holdem_v4.env()
    if benchmark.disabled:  # the smoke run: one game, not performance_benchmark's 5 s
        env.reset(seed=1)
        for _agent in env.agent_iter():
            _, _, termination, truncation, _ = env.last()
            env.step(None if termination or truncation else 0)
        return
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):  # it prints its figures; two runs of 5 s
        pedantic(benchmark, lambda: performance_benchmark(env), rounds=2)
    rates = [float(x) for x in re.findall(r"([0-9.e+]+) turns per second", printed.getvalue())]
    assert rates, printed.getvalue()
    best = max(rates)
    benchmark.extra_info["turns_per_s"] = best
    figures.add(
        "pettingzoo-leduc",
        benchmark,
        Figure(
            "turns_per_s", "PettingZoo leduc_holdem_v4 (performance_benchmark)", best, "turns/s"
        ),
    )
