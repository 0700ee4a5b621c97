"""Answers the referee refuses at once: an engine's closed output, a ``seq`` that is not
an int (or is missing), an answer sent before its request, an answer of the wrong type.
Each is a precise fault found when it happens, never after a move's whole time."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest
from engine_support import Marked, marked_engines, play_until_fault, script

import skitgubbe as sg
from skitgubbe.engine import process as process_module

MOVE_TIME = 30.0  # a fault found "at once" comes well before this
BOUND = 5.0  # a bound on finding it, not a speed claim


@pytest.fixture
def engines() -> Iterator[Marked]:
    yield from marked_engines()


def test_an_engine_that_closes_its_output_is_a_fault_at_once(
    engines: Marked, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The engine closes its standard output and keeps running. The referee does not
    # wait for it to exit (it used to wait half a second): it kills it at once.
    waits: list[float] = []
    original = process_module.EngineProcess.wait_exit

    def wait_exit(process: process_module.EngineProcess, seconds: float) -> bool:
        waits.append(seconds)
        return original(process, seconds)

    monkeypatch.setattr(process_module.EngineProcess, "wait_exit", wait_exit)
    engine = engines(script("mute"), move_time=MOVE_TIME)
    error, seconds, referee = play_until_fault([engine, sg.bots.GreedyBot()], seed=1)
    assert type(error) is sg.EngineError and error.kind == "exit", error
    assert "closed its output while the referee awaited move for go 4" in str(error)
    assert "killed by the referee (exit code -9)" in str(error)
    assert seconds < BOUND
    assert waits == []  # no wait for an exit that is not coming
    assert not engine.running and sum(d.seat == 0 for d in referee.decisions) == 2


@pytest.mark.parametrize(
    ("how", "message"),
    [
        ("string", "sent move with seq '4' (awaiting go 4): a seq is an int"),
        ("missing", "sent move with no seq (awaiting go 4): a seq is an int"),
        ("early", "sent move 5 before its request was sent (awaiting go 5)"),
        ("readyok", "answered go 4 with readyok, not move"),
    ],
)
def test_a_bad_seq_is_a_protocol_error_at_once(engines: Marked, how: str, message: str) -> None:
    engine = engines(script("badseq", how), move_time=MOVE_TIME)
    error, seconds, referee = play_until_fault([engine, sg.bots.GreedyBot()], seed=1)
    assert type(error) is sg.EngineError and error.kind == "protocol", error
    assert f"engine 'badseq' (protocol): {message}" in str(error)
    assert seconds < BOUND
    assert not engine.running
    # The move answered with the early one was played; the early one never was.
    assert sum(d.seat == 0 for d in referee.decisions) == (3 if how == "early" else 2)


def test_a_bad_seq_in_the_handshake_is_a_protocol_error(engines: Marked) -> None:
    code = (
        "import json, sys\n"
        "for line in sys.stdin:\n"
        "    m = json.loads(line)\n"
        "    if m['type'] == 'hello':\n"
        "        print(json.dumps({'type': 'id', 'protocol': 1, 'name': 'x'}), flush=True)\n"
        "    elif m['type'] == 'isready':\n"
        "        print(json.dumps({'type': 'readyok', 'seq': True}), flush=True)\n"
    )
    with pytest.raises(sg.EngineError, match=r"sent readyok with seq True \(awaiting isready 1\)"):
        engines([sys.executable, "-c", code], handshake_time=MOVE_TIME)
