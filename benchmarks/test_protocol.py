"""The engine protocol: one decision's round trip through a pipe, and how soon a
hostile engine is caught.

*Round trip*: an :class:`~skitgubbe.engine.EnginePlayer` serving GreedyBot
(``python -m skitgubbe engine greedy``, a child process) answers ``choose`` on the
observations of seat 0 in fixed games, in order, as in a real game: per decision the
referee writes the new ``events`` and a ``go`` (the observation as JSON), the engine
decodes it back into an ``Observation``, runs GreedyBot and answers; the referee reads
the line with ``selectors`` and parses the move. Next to it, ``GreedyBot.choose`` in
process on the same observations; the referee's share alone (the new events and the
``go`` line as ``EnginePlayer`` writes them, ``encode_events`` and ``encode_go``;
beside it ``protocol.go`` and ``encode``, the same ``go`` through a dict and
``json``); the engine's share alone (``serve`` reading the same lines from memory);
and the floor: the same round trip to a JSON-only engine that answers the
first legal move without building an ``Observation``, and the pipe's own floor (a
line of the same size to a child that answers at once). Target (issue): under 100 µs per
decision on pipes.

*Faults*: the hostile test engines of ``tests/engines`` misbehave at their third
``go``; the time is that ``choose``'s, from the call to the raised error (engine
killed and reaped, standard error collected), with ``move_time`` 0.25 s and the
default grace 0.05 s. ``mute`` (closes its standard output at that ``go`` and keeps
running) gets ``move_time`` 30 s: its end of file must be noticed at once, not after
the move time or a wait for the engine to exit (it took some 519 ms when the referee
waited 0.5 s for the exit). One fault per round, each round a fresh engine.

*Start*: an :class:`~skitgubbe.engine.EnginePlayer` of ``tests/engines/first.py``
started (interpreter, handshake) and closed: the floor of an engine's start, next to
``test_arena_engines.py::test_engine_start`` (``skitgubbe engine greedy``, which
imports the package).
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path
from subprocess import PIPE
from typing import Any, Final

import pytest
from pytest_benchmark.fixture import BenchmarkFixture
from support import Figure, Figures, Target, fastest_seconds, pedantic

import skitgubbe as sg
from skitgubbe.engine import EnginePlayer, Limits, protocol
from skitgubbe.engine.host import run_engine

GREEDY: Final = [sys.executable, "-m", "skitgubbe", "engine", "greedy"]
ENGINES: Final = Path(__file__).resolve().parent.parent / "tests" / "engines"
GAMES: Final = 8  # per round: seat 0's decisions in classic 3p games, seeds 0..7
ROUNDS: Final = 20
ROUND_TRIP_TARGET_US: Final = 100.0
FAULT_MOVE_TIME: Final = 0.25
FAULT_ROUNDS: Final = 3


def seat_zero_views() -> list[list[sg.Observation]]:
    """Per game, seat 0's observations at its turns (GreedyBot playing every seat)."""
    games = []
    for seed in range(GAMES):
        game = sg.Game.new(sg.Rules.classic(3), seed=seed)
        bot = sg.bots.GreedyBot()
        views = []
        while game.result is None:
            view = game.observation(game.to_move)  # type: ignore[arg-type]
            if view.seat == 0:
                views.append(view)
            game.play(bot.choose(view))
        games.append(views)
    return games


def through_engine(engine: EnginePlayer, games: list[list[sg.Observation]]) -> int:
    decisions = 0
    for views in games:
        engine.game_started(views[0])
        for view in views:
            engine.choose(view)
            decisions += 1
    return decisions


def in_process(bot: sg.bots.GreedyBot, games: list[list[sg.Observation]]) -> int:
    decisions = 0
    for views in games:
        for view in views:
            bot.choose(view)
            decisions += 1
    return decisions


def encode_only(games: list[list[sg.Observation]]) -> int:
    decisions = 0
    clock = protocol.Clock(move_time=1.0)
    for views in games:
        for view in views:
            protocol.encode(protocol.go(decisions, view, clock))
            decisions += 1
    return decisions


def referee_lines(games: list[list[sg.Observation]]) -> int:
    """What EnginePlayer.choose encodes per decision: the new events and the go."""
    decisions = 0
    clock = protocol.Clock(move_time=1.0)
    for views in games:
        sent = 0
        for view in views:
            new = view.history.since(sent)
            sent = len(view.history)
            data = protocol.encode_go(decisions, view, clock)
            if new:
                data = protocol.encode_events(new) + data
            decisions += 1
    return decisions


def engine_input(games: list[list[sg.Observation]]) -> tuple[bytes, int]:
    """What an engine reads in :func:`through_engine`, recorded as EnginePlayer writes
    it (hello, then per game new_game and per decision the new events and the go)."""
    clock = protocol.Clock(move_time=10.0)
    lines = [protocol.encode(protocol.hello("benchmark"))]
    decisions = 0
    for index, views in enumerate(games):
        lines.append(protocol.encode(protocol.new_game(f"g{index}", 0, views[0].rules)))
        sent = 0
        for view in views:
            new = view.history.since(sent)
            sent = len(view.history)
            if new:
                lines.append(protocol.encode_events(new))
            lines.append(protocol.encode_go(decisions, view, clock))
            decisions += 1
    return b"".join(lines), decisions


def serve_in_memory(script: bytes, decisions: int) -> int:
    out = io.BytesIO()
    run_engine(sg.bots.GreedyBot, name="greedy", stdin=io.BytesIO(script), stdout=out)
    assert out.getvalue().count(b'"type":"move"') == decisions
    return decisions


def _per_decision(
    name: str,
    label: str,
    benchmark: BenchmarkFixture,
    figures: Figures,
    decisions: int,
    target: Target | None = None,
) -> None:
    benchmark.extra_info["decisions"] = decisions
    seconds = fastest_seconds(benchmark)
    if seconds is not None:
        figures.add(
            name,
            benchmark,
            Figure("us_per_decision", label, seconds / decisions * 1e6, "µs", target),
            Figure("decisions_per_s", label, decisions / seconds, "decisions/s"),
        )


@pytest.mark.benchmark(group="one decision through the protocol")
def test_engine_round_trip(benchmark: BenchmarkFixture, figures: Figures) -> None:
    games = seat_zero_views()
    with EnginePlayer(GREEDY, move_time=10) as engine:
        decisions = pedantic(
            benchmark, lambda: through_engine(engine, games), rounds=ROUNDS, warmup_rounds=1
        )
        # The engine played GreedyBot's moves.
        bot = sg.bots.GreedyBot()
        engine.game_started(games[0][0])
        assert all(engine.choose(view) == bot.choose(view) for view in games[0])
    assert decisions == sum(map(len, games))
    _per_decision(
        "engine-round-trip",
        "EnginePlayer round trip (GreedyBot engine, pipes)",
        benchmark,
        figures,
        decisions,
        Target("<=", ROUND_TRIP_TARGET_US),
    )


@pytest.mark.benchmark(group="one decision through the protocol")
def test_minimal_engine_round_trip(benchmark: BenchmarkFixture, figures: Figures) -> None:
    """The floor of a round trip: the same messages to ``tests/engines/first.py``, which
    only parses the JSON lines and answers the first legal move (no Observation)."""
    games = seat_zero_views()
    with EnginePlayer([sys.executable, str(ENGINES / "first.py")], move_time=10) as engine:
        decisions = pedantic(
            benchmark, lambda: through_engine(engine, games), rounds=ROUNDS, warmup_rounds=1
        )
    _per_decision(
        "minimal-engine-round-trip",
        "EnginePlayer round trip (JSON-only engine, pipes)",
        benchmark,
        figures,
        decisions,
    )


ECHO: Final = (
    "import sys\n"
    "for line in sys.stdin.buffer:\n"
    '    sys.stdout.buffer.write(b\'{"type":"move"}\\n\')\n'
    "    sys.stdout.buffer.flush()\n"
)


def ping_pong(child: subprocess.Popen[bytes], line: bytes, count: int) -> int:
    into, out = child.stdin.fileno(), child.stdout.fileno()  # type: ignore[union-attr]
    for _ in range(count):
        os.write(into, line)
        while not os.read(out, 65536).endswith(b"\n"):
            pass
    return count


@pytest.mark.benchmark(group="one decision through the protocol")
def test_pipe_floor(benchmark: BenchmarkFixture, figures: Figures) -> None:
    """The machine's floor for any of this: a go-sized line (the mean size of the go
    lines above) written to a Python child that answers a short line at once, no JSON."""
    games = seat_zero_views()
    clock = protocol.Clock(move_time=1.0)
    sizes = [len(protocol.encode(protocol.go(1, view, clock))) for views in games for view in views]
    line = b"x" * (sum(sizes) // len(sizes) - 1) + b"\n"
    child = subprocess.Popen([sys.executable, "-c", ECHO], stdin=PIPE, stdout=PIPE, bufsize=0)
    try:
        count = pedantic(
            benchmark, lambda: ping_pong(child, line, len(sizes)), rounds=ROUNDS, warmup_rounds=1
        )
    finally:
        child.kill()
        child.wait()
    benchmark.extra_info["line_bytes"] = len(line)
    _per_decision(
        "pipe-floor", "pipe ping-pong, go-sized line (no JSON)", benchmark, figures, count
    )


@pytest.mark.benchmark(group="one decision through the protocol")
def test_in_process_greedy(benchmark: BenchmarkFixture, figures: Figures) -> None:
    games = seat_zero_views()
    bot = sg.bots.GreedyBot()
    decisions = pedantic(benchmark, lambda: in_process(bot, games), rounds=ROUNDS)
    _per_decision("in-process-greedy", "GreedyBot.choose in process", benchmark, figures, decisions)


@pytest.mark.benchmark(group="one decision through the protocol")
def test_go_encoding(benchmark: BenchmarkFixture, figures: Figures) -> None:
    games = seat_zero_views()
    decisions = pedantic(benchmark, lambda: encode_only(games), rounds=ROUNDS)
    _per_decision(
        "protocol-go-encode",
        "protocol.go + encode (dict messages)",
        benchmark,
        figures,
        decisions,
    )


@pytest.mark.benchmark(group="one decision through the protocol")
def test_referee_lines(benchmark: BenchmarkFixture, figures: Figures) -> None:
    games = seat_zero_views()
    decisions = pedantic(benchmark, lambda: referee_lines(games), rounds=ROUNDS)
    _per_decision(
        "protocol-referee-lines",
        "encode_events + encode_go (EnginePlayer's share)",
        benchmark,
        figures,
        decisions,
    )


@pytest.mark.benchmark(group="one decision through the protocol")
def test_engine_side_in_memory(benchmark: BenchmarkFixture, figures: Figures) -> None:
    """The engine's share alone: ``serve`` (GreedyBot) reading the round trip's lines
    from memory and writing its moves to memory, no pipes: decode, Observation, choose,
    answer."""
    script, count = engine_input(seat_zero_views())
    decisions = pedantic(benchmark, lambda: serve_in_memory(script, count), rounds=ROUNDS)
    _per_decision(
        "engine-side-in-memory",
        "serve, GreedyBot, lines in memory (engine's share)",
        benchmark,
        figures,
        decisions,
    )


# -- faults: time to detect -----------------------------------------------------------------

FAULTS: Final[dict[str, dict[str, Any]]] = {
    "silent": {},
    "late": {},
    "stale": {},
    "flood": {},
    "garbage": {},
    "crash": {},
    "forker": {},
    "hog": {"limits": Limits(memory=200 << 20), "move_time": 5.0},
    "mute": {"move_time": 30.0},
}
# What the error must say, for the faults whose kind and message are checked.
FAULT_ERRORS: Final = {"mute": ("exit", "closed its output")}


def _at_third_go(name: str, options: dict[str, Any]) -> tuple[EnginePlayer, sg.Observation]:
    """A hostile engine that has answered two goes, and the observation of its third."""
    engine = EnginePlayer(
        [sys.executable, str(ENGINES / f"{name}.py")],
        **{"move_time": FAULT_MOVE_TIME, **options},
    )
    game = sg.Game.new(sg.Rules.classic(2), seed=1)
    bot = sg.bots.GreedyBot()
    engine.game_started(game.observation(0))
    answered = 0
    while True:
        view = game.observation(game.to_move)  # type: ignore[arg-type]
        if view.seat == 0:
            if answered == 2:
                return engine, view
            game.play(engine.choose(view))
            answered += 1
        else:
            game.play(bot.choose(view))


@pytest.mark.benchmark(group="engine faults: time to detect")
@pytest.mark.parametrize("name", list(FAULTS))
def test_fault_detection(benchmark: BenchmarkFixture, figures: Figures, name: str) -> None:
    players: list[EnginePlayer] = []
    errors: list[sg.EngineError] = []

    def setup() -> tuple[tuple[EnginePlayer, sg.Observation], dict[str, Any]]:
        engine, view = _at_third_go(name, FAULTS[name])
        players.append(engine)
        return (engine, view), {}

    def fault(engine: EnginePlayer, view: sg.Observation) -> None:
        try:
            engine.choose(view)
        except sg.EngineError as error:
            errors.append(error)

    try:
        pedantic(benchmark, fault, setup=setup, rounds=FAULT_ROUNDS)
    finally:
        for engine in players:
            engine.close()
    # Every round's engine faulted (one round under --benchmark-disable, as in CI's smoke run).
    assert errors and len(errors) == len(players) and not any(e.running for e in players)
    error = errors[-1]
    if name in FAULT_ERRORS:
        kind, words = FAULT_ERRORS[name]
        assert all(e.kind == kind and words in str(e) for e in errors), errors
    benchmark.extra_info.update(kind=error.kind, returncode=error.returncode)
    seconds = fastest_seconds(benchmark)
    if seconds is not None:
        label = f"{name}: {type(error).__name__} {error.kind}, exit code {error.returncode}"
        figures.add(f"fault-{name}", benchmark, Figure("ms_to_detect", label, seconds * 1e3, "ms"))


# -- start: an engine's start and handshake -------------------------------------------------


@pytest.mark.benchmark(group="engine start")
def test_minimal_engine_start(benchmark: BenchmarkFixture, figures: Figures) -> None:
    command = [sys.executable, str(ENGINES / "first.py")]

    def start() -> str:
        with EnginePlayer(command) as engine:
            assert engine.id is not None
            return engine.id.name

    assert pedantic(benchmark, start, rounds=ROUNDS, warmup_rounds=1) == "first"
    seconds = fastest_seconds(benchmark)
    if seconds is not None:
        label = "EnginePlayer start + handshake + close (tests/engines/first.py)"
        figures.add("minimal-engine-start", benchmark, Figure("ms", label, seconds * 1e3, "ms"))
