"""Shared pieces of the benchmark suite: the figures of a run and the loops it times.

Every benchmark turns the time of its fastest round into the figures the issue
asks for (games/s, ns per move, moves/s, µs per call), stores them in its
``extra_info`` (so they land in ``--benchmark-json``) and in :class:`Figures`,
which works out the ratios between benchmarks at the end of the session and
prints them (see ``conftest.py``). Targets are recorded and shown, never
asserted: they depend on the machine.
"""

from __future__ import annotations

import itertools
import os
import random
import re
import shutil
import subprocess
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Literal, TypeVar, cast

from pytest_benchmark.fixture import BenchmarkFixture

import skitgubbe as sg

ROOT: Final = Path(__file__).resolve().parent.parent
CORE_DIR: Final = ROOT / "src" / "_core"
TIGHT_LOOP_SOURCE: Final = Path(__file__).resolve().parent / "c" / "tight_loop.c"

# Mid-game positions for the per-call benchmarks: a fixed deal, then this many
# random moves from a fixed generator.
MID_GAME_SEED: Final = 7
MID_GAME_MOVES: Final = 40

# OpenSpiel's card games whose chance nodes all come at the deal, so that their
# decision steps can be timed alone, as skitgubbe's are.
OPENSPIEL_GAMES: Final = ("hearts", "spades")

T = TypeVar("T")


# PettingZoo's own classic card games (rlcard's poker), timed with the same loop as
# skitgubbe's AEC environment.
PETTINGZOO_GAMES: Final = ("leduc_holdem_v4", "texas_holdem_v4")

# -- figures and targets ---------------------------------------------------------------


@dataclass(frozen=True)
class Target:
    """A machine-dependent goal for one figure: reported, not asserted."""

    op: Literal[">=", "<="]
    bound: float

    def met(self, value: float) -> bool:
        return value >= self.bound if self.op == ">=" else value <= self.bound

    def __str__(self) -> str:
        return f"{self.op} {format_number(self.bound)}"


@dataclass(frozen=True)
class Figure:
    """One derived figure of a benchmark, stored in its extra_info under ``key``."""

    key: str
    label: str
    value: float
    unit: str
    target: Target | None = None


@dataclass(frozen=True)
class Ratio:
    """``numerator / denominator`` of two figures of (usually) two benchmarks."""

    key: str
    label: str
    numerator: tuple[str, str]  # (benchmark name, figure key)
    denominator: tuple[str, str]
    target: Target | None = None


# The side-by-side comparisons of docs/performance.md ("How it is measured").
RATIOS: Final = (
    *(
        Ratio(
            key="simulate_over_tight_c_loop",
            label=f"simulate / tight C loop, {players}p (ns/move)",
            numerator=(f"simulate-{players}p", "ns_per_move"),
            denominator=(f"tight-c-loop-{players}p", "ns_per_move"),
            target=Target("<=", 3.0),
        )
        for players in (2, 3, 4)
    ),
    *(
        Ratio(
            key=f"{variant}_over_classic_{unit}",
            label=f"simulate {variant} / classic, 3p ({unit.replace('_', ' ')})",
            numerator=(f"simulate-{variant}", f"{unit}"),
            denominator=("simulate-3p", f"{unit}"),
            target=Target(">=", 0.75) if unit == "games_per_s" else None,
        )
        for variant in ("modern", "slowest")
        for unit in ("games_per_s", "ns_per_move")
    ),
    *(
        Ratio(
            key=f"python_api_over_openspiel_{name}",
            label=f"Python API / OpenSpiel {name} (decisions/s)",
            numerator=("python-api-decisions", "decisions_per_s"),
            denominator=(f"openspiel-decisions-{name}", "decisions_per_s"),
            target=Target(">=", 1.0),
        )
        for name in OPENSPIEL_GAMES
    ),
    Ratio(
        key="aio_hook_over_no_hook",
        label="play_game_async with on_event / without, capped game (s)",
        numerator=("aio-hook", "seconds"),
        denominator=("aio-no-hook", "seconds"),
    ),
    Ratio(
        key="vector_over_pettingzoo_leduc",
        label="vector env.step alone (random opponents) / PettingZoo leduc_holdem_v4 (steps/s)",
        numerator=("vector-random", "steps_per_s"),
        denominator=("pettingzoo-leduc", "turns_per_s"),
        target=Target(">=", 50.0),
    ),
    Ratio(
        key="vector_mean_over_pettingzoo_leduc",
        label="vector env.step alone, mean round / PettingZoo leduc_holdem_v4 (steps/s)",
        numerator=("vector-random", "mean_steps_per_s"),
        denominator=("pettingzoo-leduc", "turns_per_s"),
    ),
    *(
        Ratio(
            key=f"vector_loop_{key}_{kind}over_pettingzoo_leduc",
            label=f"vector env random-play loop, {pick}{label} / PettingZoo leduc_holdem_v4 "
            "(steps/s)",
            numerator=(f"vector-loop-{key}", f"{kind}steps_per_s"),
            denominator=("pettingzoo-leduc", "turns_per_s"),
        )
        for key, pick in (("numpy", "numpy pick"), ("c", "C pick"))
        for kind, label in (("", ""), ("mean_", ", mean round"))
    ),
    *(
        Ratio(
            key=f"aec_env_over_{name}",
            label=f"AEC env classic 3p / PettingZoo {name} (turns/s)",
            numerator=("aec-env-3p", "turns_per_s"),
            denominator=(f"pettingzoo-{name}", "turns_per_s"),
        )
        for name in PETTINGZOO_GAMES
    ),
    *(
        Ratio(
            key=f"actions_over_openspiel_{name}",
            label=f"integer actions / OpenSpiel {name} (decisions/s)",
            numerator=("action-decisions", "decisions_per_s"),
            denominator=(f"openspiel-decisions-{name}", "decisions_per_s"),
            target=Target(">=", 2.0),
        )
        for name in OPENSPIEL_GAMES
    ),
    Ratio(
        key="engine_round_trip_over_in_process",
        label="EnginePlayer round trip / GreedyBot in process (µs/decision)",
        numerator=("engine-round-trip", "us_per_decision"),
        denominator=("in-process-greedy", "us_per_decision"),
    ),
    *(
        Ratio(
            key=f"arena_{name.replace('-', '_')}_over_in_process",
            label=f"arena, {name} / in process (games/s)",
            numerator=(f"arena-{name}", "games_per_s"),
            denominator=("arena-in-process", "games_per_s"),
        )
        for name in ("one-engine", "isolated")
    ),
    Ratio(
        key="ismcts_threads_2_over_1",
        label="ISMCTS threads=2 / threads=1, the same total iterations (iterations/s)",
        numerator=("ismcts-threads-2", "iterations_per_s"),
        denominator=("ismcts-threads-1", "iterations_per_s"),
    ),
    Ratio(
        key="ismcts_c_policy_over_built_in",
        label="ISMCTS with a C policy / the built-in greedy (iterations/s)",
        numerator=("ismcts-policy-c", "iterations_per_s"),
        denominator=("ismcts-policy-built-in", "iterations_per_s"),
        target=Target(">=", 0.8),
    ),
    Ratio(
        key="ismcts_python_policy_over_built_in",
        label="ISMCTS with a Python policy / the built-in greedy (iterations/s)",
        numerator=("ismcts-policy-python", "iterations_per_s"),
        denominator=("ismcts-policy-built-in", "iterations_per_s"),
    ),
    Ratio(
        key="net_over_greedy_decision",
        label="net / greedy (µs per decision, the same positions)",
        numerator=("decision-net", "us_per_decision"),
        denominator=("decision-greedy", "us_per_decision"),
    ),
    Ratio(
        key="expert_over_ismcts_decision",
        label="expert / ismcts (µs per decision, the same positions)",
        numerator=("decision-expert", "us_per_decision"),
        denominator=("decision-ismcts", "us_per_decision"),
    ),
    Ratio(
        key="ismcts_network_over_rollouts",
        label="ISMCTS with the network / with rollouts (iterations/s)",
        numerator=("ismcts-net-network", "iterations_per_s"),
        denominator=("ismcts-net-rollouts", "iterations_per_s"),
    ),
    Ratio(
        key="analysis_over_decision",
        label="an analysed position / a decision of the same search (ms, the same positions)",
        numerator=("analysis-analysis", "ms_per_position"),
        denominator=("analysis-decision", "ms_per_position"),
    ),
    Ratio(
        key="python_skitgubbe_over_actions",
        label="python_skitgubbe in OpenSpiel / integer actions (decisions/s)",
        numerator=("python-skitgubbe-decisions", "decisions_per_s"),
        denominator=("action-decisions", "decisions_per_s"),
    ),
)


@dataclass
class _Entry:
    extra_info: dict[str, Any]
    figures: dict[str, Figure]


@dataclass
class Figures:
    """The figures of one run, by benchmark name, in the order they were measured."""

    entries: dict[str, _Entry] = field(default_factory=dict)
    ratios: list[Figure] = field(default_factory=list)
    not_compared: list[str] = field(default_factory=list)

    def add(self, name: str, benchmark: BenchmarkFixture, *figures: Figure) -> None:
        """Record ``figures`` of the benchmark ``name`` here and in its extra_info."""
        info: dict[str, Any] = benchmark.extra_info
        for figure in figures:
            _store(info, figure)
        self.entries[name] = _Entry(info, {f.key: f for f in figures})

    def value(self, name: str, key: str) -> float | None:
        entry = self.entries.get(name)
        figure = entry.figures.get(key) if entry is not None else None
        return figure.value if figure is not None else None

    def compute_ratios(self) -> None:
        """Work out every ratio whose two sides ran; store it on both benchmarks."""
        self.ratios.clear()
        self.not_compared.clear()
        for ratio in RATIOS:
            top = self.value(*ratio.numerator)
            bottom = self.value(*ratio.denominator)
            if top is None or bottom is None or bottom == 0:
                if top is not None or bottom is not None:
                    missing = ratio.denominator[0] if top is not None else ratio.numerator[0]
                    self.not_compared.append(f"{ratio.label}: {missing} did not run")
                continue
            figure = Figure(ratio.key, ratio.label, top / bottom, "x", ratio.target)
            self.ratios.append(figure)
            for name in (ratio.numerator[0], ratio.denominator[0]):
                _store(self.entries[name].extra_info, figure)

    def table(self) -> list[str]:
        """The figures and ratios as lines of a small text table."""
        rows = [f for entry in self.entries.values() for f in entry.figures.values()]
        rows += self.ratios
        if not rows:
            return []
        header = ("figure", "measured", "target", "status")
        cells = [header] + [
            (
                f.label,
                f"{format_number(f.value)} {f.unit}",
                f"{f.target} {f.unit}" if f.target is not None else "",
                ("meets" if f.target.met(f.value) else "MISSES") if f.target is not None else "",
            )
            for f in rows
        ]
        widths = [max(len(row[i]) for row in cells) for i in range(3)]
        lines = [
            f"{a:<{widths[0]}}  {b:>{widths[1]}}  {c:>{widths[2]}}  {d}".rstrip()
            for a, b, c, d in cells
        ]
        return lines + [f"not compared: {reason}" for reason in self.not_compared]


def _store(info: dict[str, Any], figure: Figure) -> None:
    info[figure.key] = figure.value
    if figure.target is not None:
        info[f"{figure.key}_target"] = str(figure.target)
        info[f"{figure.key}_meets_target"] = figure.target.met(figure.value)


def format_number(value: float) -> str:
    """Thousands separated from 1000 up, else three significant digits."""
    if abs(value) >= 1000:
        return f"{value:,.0f}"
    return f"{value:.3g}"


def fastest_seconds(benchmark: BenchmarkFixture) -> float | None:
    """Seconds per call of the benchmark's fastest round; ``None`` when it did not
    time anything (``--benchmark-disable``).

    The fastest round is the one least disturbed by the rest of the machine; every
    benchmark here does the same work in each round, so it is a fair figure.
    """
    if benchmark.disabled or benchmark.stats is None:
        return None
    return float(benchmark.stats.stats.min)


def pedantic(
    benchmark: BenchmarkFixture,
    target: Callable[..., T],
    *,
    setup: Callable[[], object] | None = None,
    rounds: int,
    warmup_rounds: int = 0,
) -> T:
    """``benchmark.pedantic`` (untyped in pytest-benchmark) with a typed result."""
    run: Callable[..., Any] = benchmark.pedantic
    return cast(T, run(target, setup=setup, rounds=rounds, warmup_rounds=warmup_rounds))


def rate_figures(
    name: str, label: str, benchmark: BenchmarkFixture, figures: Figures, count: int, unit: str
) -> None:
    """Record ``count`` ``unit``s per round as ``{unit}s_per_s`` and ``us_per_{unit}``
    (decisions, turns: each loop's own unit of work)."""
    benchmark.extra_info[f"{unit}s"] = count
    seconds = fastest_seconds(benchmark)
    if seconds is not None:
        figures.add(
            name,
            benchmark,
            Figure(f"{unit}s_per_s", label, count / seconds, f"{unit}s/s"),
            Figure(f"us_per_{unit}", label, seconds / count * 1e6, "µs"),
        )


def per_call(
    name: str,
    label: str,
    benchmark: BenchmarkFixture,
    figures: Figures,
    target_us: float | None = None,
) -> None:
    """Record the µs per call of a benchmark that times one call per iteration."""
    seconds = fastest_seconds(benchmark)
    if seconds is None:
        return
    target = Target("<=", target_us) if target_us is not None else None
    figures.add(name, benchmark, Figure("us_per_call", label, seconds * 1e6, "µs", target))


# -- the loops -------------------------------------------------------------------------


def deal_games(rules: sg.Rules, seeds: Iterable[int]) -> list[sg.Game]:
    """One new game per seed (the deal: done in C by ``Game.new``, never timed here)."""
    return [sg.Game.new(rules, seed=seed) for seed in seeds]


# Random numbers drawn before the timing: every loop below picks its move with
# ``legal[next(draws) % len(legal)]``, the same few operations on both sides of a
# comparison. ``random.choice`` would add about 250 ns a decision to both sides (its
# Python-level rejection sampling), work that belongs to no engine and dilutes the ratio.
RANDOM_DRAWS: Final = 1 << 16


def random_draws(rng_seed: int) -> Iterator[int]:
    """Endless uniformly random non-negative ints, drawn before use and cycled."""
    rng = random.Random(rng_seed)
    return itertools.cycle([rng.getrandbits(32) for _ in range(RANDOM_DRAWS)])


def play_decisions(games: Iterable[sg.Game], rng_seed: int) -> int:
    """Play every game to its end with uniformly random legal moves: per decision
    ``game.legal_moves``, a pick (see :func:`random_draws`) and ``game.play(move)``.
    Returns the number of decisions."""
    draws = random_draws(rng_seed)
    decisions = 0
    for game in games:
        while game.to_move is not None:
            legal = game.legal_moves
            game.play(legal[next(draws) % len(legal)])
            decisions += 1
    return decisions


def play_action_decisions(games: Iterable[sg.Game], rng_seed: int) -> int:
    """Play every game to its end with uniformly random legal integer actions: per
    decision ``game.legal_actions``, a pick (see :func:`random_draws`) and
    ``game.play_action`` (a slough is one decision per card and one to throw them).
    Returns the number of decisions."""
    draws = random_draws(rng_seed)
    decisions = 0
    for game in games:
        while game.to_move is not None:
            legal = game.legal_actions
            game.play_action(legal[next(draws) % len(legal)])
            decisions += 1
    return decisions


def deal_openspiel(game: Any, games: int, rng_seed: int) -> list[Any]:
    """``games`` new states of an OpenSpiel game with their deal played: the chance
    nodes at the start, sampled by their probabilities (never timed here)."""
    rng = random.Random(rng_seed)
    states = []
    for _ in range(games):
        state = game.new_initial_state()
        while state.is_chance_node():
            outcomes, probabilities = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choices(outcomes, probabilities)[0])
        states.append(state)
    _check_no_chance_after_deal(states, rng)
    return states


def _check_no_chance_after_deal(states: Iterable[Any], rng: random.Random) -> None:
    """Raise ValueError unless every state plays to its end without a chance node:
    :func:`play_openspiel_decisions` charges only decisions, so a chance node after
    the deal (work the other side does not do) must not occur. Played on clones,
    untimed, so the timed loop checks nothing the other side's loop does not."""
    for state in states:
        state = state.clone()
        while not state.is_terminal():
            if state.is_chance_node():
                raise ValueError(f"{state.get_game()} has chance nodes after the deal")
            state.apply_action(rng.choice(state.legal_actions()))


def play_openspiel_decisions(states: Iterable[Any], rng_seed: int) -> int:
    """Play every dealt state to its end with uniformly random legal actions: per
    decision ``state.legal_actions()``, a pick (see :func:`random_draws`) and
    ``state.apply_action`` (the same work as :func:`play_decisions`). Returns the
    number of decisions.

    Only games whose chance nodes all come at the deal qualify (hearts, spades):
    :func:`deal_openspiel` checks it, untimed.
    """
    draws = random_draws(rng_seed)
    decisions = 0
    for state in states:
        while not state.is_terminal():
            legal = state.legal_actions()
            state.apply_action(legal[next(draws) % len(legal)])
            decisions += 1
    return decisions


def play_aec_turns(env: Any, seeds: Iterable[int], rng_seed: int) -> int:
    """Play a PettingZoo AEC environment through one episode per seed with uniformly
    random legal actions: per turn ``env.last()``, a random action of the mask and
    ``env.step``; a done agent steps with ``None``. Resets are part of the work.
    Returns the number of turns with an action (the dones' steps are not counted)."""
    rng = random.Random(rng_seed)
    turns = 0
    for seed in seeds:
        env.reset(seed=seed)
        for _ in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            legal = observation["action_mask"].nonzero()[0]
            env.step(int(legal[rng.randrange(len(legal))]))
            turns += 1
    return turns


def play_gym_steps(env: Any, seeds: Iterable[int], rng_seed: int) -> tuple[int, int]:
    """Play a Gymnasium environment with an ``info["action_mask"]`` through one
    episode per seed with uniformly random legal actions (resets included).
    Returns the learner's steps and the moves of the whole table."""
    rng = random.Random(rng_seed)
    steps = moves = 0
    for seed in seeds:
        _, info = env.reset(seed=seed)
        done = False
        while not done:
            legal = info["action_mask"].nonzero()[0]
            _, _, terminated, truncated, info = env.step(int(legal[rng.randrange(len(legal))]))
            done = terminated or truncated
            steps += 1
        moves += env.unwrapped.game.moves_played
    return steps, moves


def mid_game(players: int = 3) -> sg.Game:
    """A game ``MID_GAME_MOVES`` random moves in, always the same one."""
    game = sg.Game.new(sg.Rules.classic(players), seed=MID_GAME_SEED)
    choice = random.Random(MID_GAME_SEED).choice
    for _ in range(MID_GAME_MOVES):
        game.play(choice(game.legal_moves))
    return game


# -- the tight C loop --------------------------------------------------------------------


def find_c_compiler() -> str | None:
    """``$CC`` if set, else the first of cc, gcc, clang on the PATH."""
    names = [os.environ["CC"]] if os.environ.get("CC") else ["cc", "gcc", "clang"]
    for name in names:
        path = shutil.which(name)
        if path is not None:
            return path
    return None


@dataclass(frozen=True)
class TightLoopRun:
    """What one run of benchmarks/c/tight_loop.c reported."""

    games: int
    moves: int
    ns: int

    @property
    def ns_per_move(self) -> float:
        return self.ns / self.moves

    @property
    def games_per_s(self) -> float:
        return self.games * 1e9 / self.ns


_TIGHT_LOOP_OUTPUT: Final = re.compile(r"games=(\d+) moves=(\d+) ns=(\d+) ")


@dataclass(frozen=True)
class TightLoop:
    """The compiled tight C loop."""

    executable: Path
    compiler: str

    @classmethod
    def build(cls, compiler: str, directory: Path) -> TightLoop:
        """Compile the core and tight_loop.c as the extension is (-std=c99 -O3)."""
        executable = directory / ("tight_loop.exe" if os.name == "nt" else "tight_loop")
        command = [
            compiler,
            "-std=c99",
            "-O3",
            "-I",
            str(CORE_DIR),
            *(str(p) for p in sorted(CORE_DIR.glob("*.c"))),
            str(TIGHT_LOOP_SOURCE),
            "-o",
            str(executable),
            *([] if os.name == "nt" else ["-lm"]),  # the search code uses sqrt and log
        ]
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(command)} failed:\n{done.stderr}")
        return cls(executable, compiler)

    def run(self, games: int, players: int, seed: int) -> TightLoopRun:
        done = subprocess.run(
            [str(self.executable), str(games), str(players), str(seed)],
            capture_output=True,
            text=True,
            check=True,
        )
        match = _TIGHT_LOOP_OUTPUT.match(done.stdout)
        if match is None:
            raise RuntimeError(f"unexpected output from tight_loop: {done.stdout!r}")
        return TightLoopRun(*(int(g) for g in match.groups()))
