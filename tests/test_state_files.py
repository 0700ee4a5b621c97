"""The state files of ``skitgubbe sprt`` and ``skitgubbe ladder`` (``--state``): a file that
is not the command's own state is refused and left as it was, never overwritten."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import skitgubbe as sg
from skitgubbe.apps.cli import main
from skitgubbe.arena.ladder import run_ladder
from skitgubbe.arena.sprt import run_sprt


def _ladder(state: Path) -> Any:
    return run_ladder(["greedy", "random"], rounds=2, seed=5, state=str(state))


def _sprt(state: Path) -> Any:
    return run_sprt("greedy", "random", seed=5, max_deals=2, state=str(state))


RUNS: dict[str, Callable[[Path], Any]] = {"ladder": _ladder, "sprt": _sprt}

NOT_STATE = {
    "a word": b"hello",
    "a line": b"hello\n",
    "a JSON object": b'{"a": 1}',
    "a JSON line": b'{"a": 1}\n',
    "a list": b"[1, 2]\n",
    "a brace": b"{",
    "deep JSON": b"[" * 100_000,
    "not UTF-8": b"\xff\xfe\n",
    "two lines": b"hello\nworld\n",
    "a CSV": b"rank,bot,elo\n1,greedy,120\n",
}


@pytest.mark.parametrize("kind", sorted(RUNS))
@pytest.mark.parametrize("contents", sorted(NOT_STATE))
def test_a_file_that_is_not_the_commands_state_is_refused_and_kept(
    tmp_path: Path, kind: str, contents: str
) -> None:
    state = tmp_path / "notes.txt"
    state.write_bytes(NOT_STATE[contents])
    with pytest.raises(sg.RecordError) as caught:
        RUNS[kind](state)
    assert str(caught.value).startswith(f"{state} is not a skitgubbe-{kind}-state file")
    assert "left as it is" in str(caught.value)
    assert state.read_bytes() == NOT_STATE[contents]


@pytest.mark.parametrize("kind", sorted(RUNS))
def test_the_other_commands_state_is_refused_and_kept(tmp_path: Path, kind: str) -> None:
    other = "sprt" if kind == "ladder" else "ladder"
    state = tmp_path / "state.jsonl"
    RUNS[other](state)
    for data in (state.read_bytes(), state.read_bytes().splitlines()[0]):  # and its header
        state.write_bytes(data)
        with pytest.raises(sg.RecordError, match=f"is not a skitgubbe-{kind}-state file"):
            RUNS[kind](state)
        assert state.read_bytes() == data


@pytest.mark.parametrize("kind", sorted(RUNS))
def test_an_empty_file_or_the_runs_own_torn_header_is_used(tmp_path: Path, kind: str) -> None:
    reference = RUNS[kind](tmp_path / "reference.jsonl")
    header = (tmp_path / "reference.jsonl").read_bytes().splitlines(keepends=True)[0]
    for data in (b"", header[:60], header[:-1], header):
        state = tmp_path / f"state-{len(data)}.jsonl"
        state.write_bytes(data)
        assert RUNS[kind](state).games == reference.games
        assert state.read_bytes().startswith(header)
        assert len(state.read_bytes().splitlines()) == 3  # the header and two deal sets


def test_the_command_line_refuses_such_a_file_in_a_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    state = tmp_path / "notes.txt"
    state.write_text("my notes\n", encoding="utf-8")
    with pytest.raises(SystemExit) as exit_:
        main(["ladder", "greedy", "random", "--rounds", "1", "--seed", "1", "--state", str(state)])
    assert exit_.value.code == 2
    error = capsys.readouterr().err
    assert error.startswith(f"skitgubbe: error: {state} is not a skitgubbe-ladder-state file")
    assert error.count("\n") == 1
    assert state.read_text(encoding="utf-8") == "my notes\n"
    assert "(its first line is 'my notes')" in error
