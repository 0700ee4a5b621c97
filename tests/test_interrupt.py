"""Ctrl-C on a long command (``skitgubbe ladder``, ``sprt``, ``arena``): one short line,
the status 130, no traceback, and a state file that is whole and resumes."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from skitgubbe.apps.cli import main
from skitgubbe.arena import ladder
from skitgubbe.arena.ladder import LadderResult, run_ladder
from skitgubbe.arena.sprt import run_sprt

LADDER = ["greedy", "ismcts:iterations=300"]
"""Two bots whose deal sets take a while (the search), so a run can be stopped midway."""


def _interrupt(argv: list[str], state: Path, sets: int) -> subprocess.CompletedProcess[str]:
    """Run ``skitgubbe ARGV`` in a process group of its own and press Ctrl-C (SIGINT to the
    whole group, the command and its workers, as a terminal does) once ``state`` holds
    ``sets`` deal sets; what it printed and its exit status."""
    child = subprocess.Popen(
        [sys.executable, "-m", "skitgubbe", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        # Not ignored, as a background job's SIGINT may be in the process running the tests.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and child.poll() is None:
            if state.exists() and state.read_bytes().count(b"\n") > sets:
                os.killpg(child.pid, signal.SIGINT)
                break
            time.sleep(0.01)
        out, err = child.communicate(timeout=120)
    finally:
        if child.poll() is None:
            os.killpg(child.pid, signal.SIGKILL)
            child.wait()
    return subprocess.CompletedProcess(child.args, child.returncode, out, err)


def _whole_lines(state: Path) -> list[dict[str, object]]:
    data = state.read_bytes()
    assert data.endswith(b"\n")
    return [json.loads(line) for line in data.splitlines()]


@pytest.mark.slow
def test_ctrl_c_on_a_ladder_with_workers_stops_it_in_a_line_and_the_state_resumes(
    tmp_path: Path,
) -> None:
    state, out = tmp_path / "ladder.jsonl", tmp_path / "ladder.json"
    argv = ["ladder", *LADDER, "--rounds", "12", "--seed", "3", "--jobs", "2"]
    argv += ["--state", str(state), "--no-progress"]
    stopped = _interrupt(argv, state, 2)
    assert (stopped.returncode, stopped.stdout) == (130, ""), stopped.stderr
    assert stopped.stderr == (
        f"skitgubbe: interrupted; {state} keeps the deal sets done: "
        "run the same command to resume\n"
    )
    kept = _whole_lines(state)
    assert kept[0]["format"] == "skitgubbe-ladder-state"
    assert 3 <= len(kept) < 13, "the run ended before it was interrupted"
    again = subprocess.run(
        [sys.executable, "-m", "skitgubbe", *argv, "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert again.returncode == 0, again.stderr
    resumed = LadderResult.from_dict(json.loads(out.read_text(encoding="utf-8")))
    assert resumed == run_ladder(LADDER, rounds=12, seed=3)


@pytest.mark.slow
def test_ctrl_c_on_a_sequential_test_stops_it_in_a_line_and_the_state_resumes(
    tmp_path: Path,
) -> None:
    state, out = tmp_path / "sprt.jsonl", tmp_path / "sprt.json"
    argv = ["sprt", *LADDER, "--seed", "3", "--jobs", "2", "--max-deals", "10"]
    argv += ["--elo", "0", "5", "--state", str(state), "--no-progress"]
    stopped = _interrupt(argv, state, 2)
    assert (stopped.returncode, stopped.stdout) == (130, ""), stopped.stderr
    assert stopped.stderr.startswith("skitgubbe: interrupted; ")
    assert stopped.stderr.count("\n") == 1 and "Traceback" not in stopped.stderr
    assert 3 <= len(_whole_lines(state)) < 11  # the test stays undecided for all 10
    again = subprocess.run(
        [sys.executable, "-m", "skitgubbe", *argv, "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert again.returncode == 0, again.stderr
    resumed = json.loads(out.read_text(encoding="utf-8"))
    reference = run_sprt(*LADDER, seed=3, max_deals=10, elo0=0, elo1=5)
    expected = json.loads(json.dumps(reference.to_dict()))
    for data in (resumed, expected):  # deal sets played past a decision: as the workers ran
        del data["discarded"]
    assert resumed == expected


@pytest.mark.slow
def test_ctrl_c_on_an_arena_run_says_so_in_a_line() -> None:
    # --progress lines tell when games are being played; the interrupt comes after one.
    child = subprocess.Popen(
        [sys.executable, "-m", "skitgubbe", "arena", *LADDER, "--deals", "500", "--progress"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    assert child.stderr is not None
    assert child.stderr.readline().startswith("arena: ")  # playing now
    os.killpg(child.pid, signal.SIGINT)
    out, err = child.communicate(timeout=120)
    assert child.returncode == 130
    assert out == ""
    assert err.splitlines()[-1] == "skitgubbe: interrupted"
    assert "Traceback" not in err


def test_an_interrupted_run_names_the_seed_it_drew_to_resume_with(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    seeds: list[int] = []

    def stopped(*args: object, seed: int, **kwargs: object) -> None:
        seeds.append(seed)
        raise KeyboardInterrupt  # as Ctrl-C during the games

    monkeypatch.setattr(ladder, "run_ladder", stopped)
    state = tmp_path / "ladder.jsonl"
    # An engine among the bots: the command draws a secret seed, which resuming needs.
    assert main(["ladder", "cmd:./mybot", "greedy", "--state", str(state)]) == 130
    error = capsys.readouterr().err
    found = re.fullmatch(
        rf"skitgubbe: interrupted; {re.escape(str(state))} keeps the deal sets done: run the "
        r"same command with --seed (\d+) to resume\n",
        error,
    )
    assert found is not None and [int(found[1])] == seeds
    assert main(["ladder", "greedy", "random", "--state", str(state)]) == 130  # seed 0
    assert capsys.readouterr().err.endswith(": run the same command to resume\n")
