"""Hostile engines: each answers the handshake, then misbehaves at its third ``go``.

For each: the error is precise (class, kind, exit code, standard error), it is found
within a bounded time, the host process goes on to play a good game, and no process of
the engine (children included) is left. Run with ``-s`` for the table of the cases.
"""

from __future__ import annotations

import pickle
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from engine_support import GREEDY, Marked, marked_engines, play_until_fault, script, wait_gone

import skitgubbe as sg
from skitgubbe.engine import KEEPER, Limits

MOVE_TIME = 0.5
GRACE = 0.05
SLACK = 2.0  # detection bound: the deadline (or nothing) plus this; not a speed claim


@dataclass(frozen=True)
class Case:
    name: str
    error: type[BaseException]
    kind: str | None  # the EngineError's kind; None: the referee's PlayerError
    returncode: Callable[[int | None], bool]
    stderr: str = ""  # a text the stderr tail must hold
    message: str = ""  # a text the message must hold
    options: dict[str, Any] = field(default_factory=dict)
    bound: float = SLACK


KILLED = -9


def killed(code: int | None) -> bool:
    return code == KILLED


CASES = [
    Case("silent", sg.EngineTimeoutError, "timeout", killed,
         message="no move for go 4 within 0.5 s (+0.05 s grace)",
         bound=MOVE_TIME + GRACE + SLACK),
    Case("late", sg.EngineTimeoutError, "timeout", killed,
         message="no move for go 4 within 0.5 s", bound=MOVE_TIME + GRACE + SLACK),
    Case("flood", sg.EngineError, "oversized", killed,
         message=f"wrote a line longer than {1 << 20} bytes"),
    Case("garbage", sg.EngineError, "garbage", killed, message="wrote not JSON: b'bestmove e2e4'"),
    Case("stale", sg.EngineTimeoutError, "timeout", killed,
         message="no move for go 4", bound=MOVE_TIME + GRACE + SLACK),
    Case("illegal", sg.PlayerError, None, lambda code: code is None,
         message="illegal move"),
    Case("crash", sg.EngineError, "exit", lambda code: code == 3,
         stderr="crash.py: out of ideas at go 4", message="exit code 3"),
    Case("forker", sg.EngineTimeoutError, "timeout", killed,
         message="no move for go 4", bound=MOVE_TIME + GRACE + SLACK),
    Case("hog", sg.EngineError, "exit", lambda code: code == 1, stderr="MemoryError",
         message="exit code 1", options={"limits": Limits(memory=200 << 20), "move_time": 5.0}),
]  # fmt: skip

ROWS: list[tuple[str, str, float]] = []


@pytest.fixture
def engines() -> Iterator[Marked]:
    yield from marked_engines()


@pytest.fixture(scope="module", autouse=True)
def table() -> Iterator[None]:
    yield
    if ROWS:
        print("\ncase     what happened                     detected in")
        for name, what, seconds in ROWS:
            print(f"{name:8} {what:33} {seconds * 1000:8.0f} ms")


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_a_hostile_engine_is_stopped_precisely(engines: Marked, case: Case) -> None:
    options = {"move_time": MOVE_TIME, "grace": GRACE, **case.options}
    engine = engines(script(case.name), **options)
    pid = engine.pid
    error, seconds, referee = play_until_fault([engine, sg.bots.GreedyBot()], seed=1)
    assert type(error) is case.error, error
    assert seconds < case.bound, f"{case.name}: {seconds:.2f} s to detect"
    assert referee.game.to_move == 0 and referee.game.result is None  # nothing played for it
    assert len(referee.decisions) >= 2  # it answered its first two goes
    text = str(error)
    assert case.message in text, text
    if case.kind is None:  # the referee's check: the engine itself stays well
        assert isinstance(error, sg.PlayerError) and error.cause is None
        assert isinstance(error.answer, sg.Move)
        assert error.answer not in referee.game.legal_moves
        assert engine.running
        what = "PlayerError (illegal move)"
    else:
        assert isinstance(error, sg.EngineError)
        assert error.kind == case.kind
        assert case.returncode(error.returncode), error.returncode
        assert case.stderr in error.stderr
        assert f"engine '{case.name}' ({case.kind})" in text
        assert f"exit code {error.returncode}" in text
        assert ("stderr: (empty)" in text) == (not error.stderr.strip())
        if isinstance(error, sg.EngineTimeoutError):
            assert error.limit == MOVE_TIME
        copy = pickle.loads(pickle.dumps(error))
        assert (type(copy), str(copy), copy.kind, copy.returncode, copy.stderr) == (
            type(error), text, error.kind, error.returncode, error.stderr
        )  # fmt: skip
        assert not engine.running
        what = f"{type(error).__name__} {error.kind} rc={error.returncode}"
        # The engine's whole process group is gone by the time the error is raised.
        assert pid not in engines.alive()
        assert wait_gone(engines.marker, grace=0.5) == []
    ROWS.append((case.name, what, seconds))
    # The host goes on: a good engine plays a whole game, the same as in process.
    good = engines(GREEDY, move_time=10)
    assert sg.play_game([good, sg.bots.GreedyBot()], seed=2) == sg.play_game(
        [sg.bots.GreedyBot()] * 2, seed=2
    )


def test_the_referee_reports_an_engine_timeout_as_the_seats_timeout(engines: Marked) -> None:
    engine = engines(script("silent"), move_time=0.2)
    game = sg.Game.new(sg.Rules.classic(2), seed=1)
    with pytest.raises(sg.PlayerTimeoutError) as caught:
        sg.play_game([sg.bots.GreedyBot(), engine], game=game)
    error = caught.value
    assert (error.seat, error.timeout) == (1, 0.2)
    assert str(error) == "seat 1 (EnginePlayer) did not answer within 0.2 s"
    assert isinstance(error.cause, sg.EngineTimeoutError) and error.cause.limit == 0.2
    assert game.to_move == 1
    copy = pickle.loads(pickle.dumps(error))
    assert isinstance(copy.cause, sg.EngineTimeoutError) and copy.timeout == 0.2


def test_the_referee_reports_other_faults_as_player_errors(engines: Marked) -> None:
    engine = engines(script("crash"))
    with pytest.raises(sg.PlayerError) as caught:
        sg.play_game([engine, sg.bots.GreedyBot()], seed=1)
    error = caught.value
    assert type(error) is sg.PlayerError and error.seat == 0
    assert isinstance(error.cause, sg.EngineError) and error.cause.returncode == 3
    assert "EngineError: engine 'crash' (exit)" in str(error)


def test_children_of_an_engine_die_with_it(engines: Marked) -> None:
    engine = engines(script("forker"), move_time=0.2)
    assert len(engines.alive()) == 3 + KEEPER  # the engine, two children (and the keeper)
    with pytest.raises(sg.PlayerTimeoutError):
        sg.play_game([engine, sg.bots.GreedyBot()], seed=1)
    assert wait_gone(engines.marker, grace=0.5) == []


def test_the_game_clock_runs_out(engines: Marked) -> None:
    """No move time, but a game time: the engine that stalls has only what is left."""
    engine = engines(script("silent"), game_time=0.3, increment=0.0)
    started = time.monotonic()
    with pytest.raises(sg.PlayerTimeoutError) as caught:
        sg.play_game([engine, sg.bots.GreedyBot()], seed=1)
    assert time.monotonic() - started < 0.3 + GRACE + SLACK
    assert 0 < caught.value.timeout <= 0.3


def test_an_oversized_line_is_never_buffered_whole(engines: Marked) -> None:
    engine = engines(script("flood"), move_time=MOVE_TIME, max_line=4096)
    error, _, _ = play_until_fault([engine, sg.bots.GreedyBot()], seed=1)
    assert isinstance(error, sg.EngineError) and error.kind == "oversized"
    assert "longer than 4096 bytes" in str(error)
