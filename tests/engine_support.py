"""Helpers of the engine tests: the test engines, a marker in every engine's environment
and the scan of /proc that proves no engine process is left behind."""

from __future__ import annotations

import os
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import skitgubbe as sg
from skitgubbe.engine import EnginePlayer

ENGINES = Path(__file__).resolve().parent / "engines"
GREEDY = [sys.executable, "-m", "skitgubbe", "engine", "greedy"]
MARKER = "SKITGUBBE_TEST_ENGINE"


def script(name: str, *args: str) -> list[str]:
    """The command of the test engine ``tests/engines/NAME.py``."""
    return [sys.executable, str(ENGINES / f"{name}.py"), *args]


def processes(engine: EnginePlayer) -> list[int]:
    """The processes of a running engine: the engine, and on Linux its keeper (which the
    marker in the environment also reaches), in order of process id."""
    return sorted({pid for pid in (engine.pid, engine.child_pid) if pid is not None})


def marked_processes(marker: str) -> list[int]:
    """The processes whose environment holds ``MARKER=marker`` (Linux /proc)."""
    proc = Path("/proc")
    assert proc.is_dir(), "the no-orphan checks need /proc (Linux)"
    needle = f"{MARKER}={marker}".encode()
    found = []
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environ = (entry / "environ").read_bytes()
        except OSError:  # gone, or not ours to read
            continue
        if needle in environ.split(b"\0"):
            found.append(int(entry.name))
    return found


def running(pid: int) -> bool:
    """Whether the process ``pid`` runs (a zombie, dead but not yet reaped, does not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's: it exists
        return True
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:  # gone meanwhile, or no /proc: os.kill found it
        return Path("/proc").is_dir() is False
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")


def wait_stopped(pids: list[int], grace: float = 5.0) -> list[int]:
    """The processes of ``pids`` still running after up to ``grace`` seconds."""
    deadline = time.monotonic() + grace
    while (left := [pid for pid in pids if running(pid)]) and time.monotonic() < deadline:
        time.sleep(0.02)
    return left


def wait_gone(marker: str, grace: float = 2.0) -> list[int]:
    """The marked processes still alive after ``grace`` seconds (reaping takes a moment)."""
    deadline = time.monotonic() + grace
    while (left := marked_processes(marker)) and time.monotonic() < deadline:
        time.sleep(0.02)
    return left


class Marked:
    """Makes engine players whose processes carry one marker; checks they are all gone."""

    def __init__(self) -> None:
        self.marker = uuid.uuid4().hex
        self.env = {**os.environ, MARKER: self.marker}
        self.players: list[EnginePlayer] = []

    def __call__(self, command: list[str], **options: Any) -> EnginePlayer:
        player = EnginePlayer(command, env=self.env, **options)
        self.players.append(player)
        return player

    def alive(self) -> list[int]:
        return marked_processes(self.marker)

    def close_all(self) -> None:
        for player in self.players:
            player.close()


def marked_engines() -> Iterator[Marked]:
    """The body of each engine test file's ``engines`` fixture: engine players for a test;
    after it, every one is closed and no process with the test's marker may remain."""
    marked = Marked()
    yield marked
    marked.close_all()
    left = wait_gone(marked.marker)
    assert not left, f"engine processes left behind: {left}"


def play_until_fault(
    lineup: list[Any], seed: int
) -> tuple[BaseException | None, float, sg.Referee[Any]]:
    """Play turn by turn; the first exception from a call (or the referee's check of its
    answer), the seconds that call took, and the referee."""
    referee: sg.Referee[Any] = sg.Referee(lineup, seed=seed)
    for call in referee.start():
        call()
    while (turn := referee.turn()) is not None:
        started = time.monotonic()
        try:
            referee.accept(turn, turn())
        except Exception as error:
            return error, time.monotonic() - started, referee
    for call in referee.finish():
        call()
    return None, 0.0, referee
