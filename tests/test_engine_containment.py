"""Nothing an engine starts outlives it: not even a process that daemonized (``fork``,
``setsid``, ``fork``), which leaves the engine's process group and session, so that no
kill of a group reaches it. On Linux every engine runs under a keeper, a child
subreaper to which such a daemon is reparented, and which kills it when the engine
ends (``skitgubbe._keeper``)."""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from engine_support import MARKER, Marked, marked_engines, script, wait_gone, wait_stopped

import skitgubbe as sg
from skitgubbe import bots
from skitgubbe.engine import KEEPER
from skitgubbe.engine import process as process_module

linux_only = pytest.mark.skipif(not KEEPER, reason="daemons are contained on Linux only")


@pytest.fixture
def engines() -> Iterator[Marked]:
    yield from marked_engines()


def daemons(folder: Path) -> list[int]:
    """The daemons the engines started, by the files they left in ``folder``."""
    return sorted(int(path.name) for path in folder.iterdir())


@linux_only
def test_a_daemon_of_an_engine_does_not_outlive_its_game(engines: Marked, tmp_path: Path) -> None:
    engine = engines(script("daemon", str(tmp_path)), move_time=10)
    players = [engine, sg.bots.GreedyBot(), sg.bots.GreedyBot()]
    assert sg.play_game(players, seed=1).moves_played > 0  # a whole game, as it should
    (daemon,) = daemons(tmp_path)
    assert wait_stopped([daemon], grace=0) == [daemon]  # it runs while its engine does
    engine.close()
    assert wait_stopped([daemon]) == []


@linux_only
def test_a_daemon_dies_with_an_engine_killed_for_a_fault(engines: Marked, tmp_path: Path) -> None:
    engine = engines(script("daemon", str(tmp_path)), move_time=10)
    game = sg.Game.new(seed=2)
    engine.choose(game.observation(game.to_move))
    (daemon,) = daemons(tmp_path)
    keeper = engine.child_pid
    assert keeper is not None and keeper != engine.pid
    engine.kill()  # as a fault, or a cancelled call, does
    assert wait_stopped([daemon]) == []
    os.waitid(os.P_PID, keeper, os.WEXITED | os.WNOWAIT)  # the keeper exits after the sweep
    assert engine.ping() < 10  # the next call starts a fresh engine
    engine.close()


@linux_only
def test_the_arena_command_leaves_no_daemon_behind(engines: Marked, tmp_path: Path) -> None:
    spec = "cmd:" + shlex.join(script("daemon", str(tmp_path)))
    options = ["--deals", "1", "--jobs", "2", "--seed", "1"]
    done = subprocess.run(
        [sys.executable, "-m", "skitgubbe", "arena", spec, "greedy", "greedy", *options],
        env={**engines.env, "PYTHONPATH": os.pathsep.join(sys.path)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "cmd:" in done.stdout
    found = daemons(tmp_path)
    assert found  # each engine that played left one
    assert wait_stopped(found) == []


@linux_only
def test_a_stopped_worker_leaves_no_daemon_behind(
    engines: Marked, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The wrecker loops forever in some games: the match stops its worker (SIGKILL),
    # and the daemon the engine left must go with the engine.
    from arena_bots import Wrecker

    bots.register("test-wrecker", Wrecker)
    monkeypatch.setenv(MARKER, engines.marker)
    spec = "cmd:" + shlex.join(script("daemon", str(tmp_path)))
    entrants = [spec, "test-wrecker:how=loop,sometimes=true", "random"]
    result = sg.run_match(entrants, deals=1, seed=6, move_time=0.3)
    assert {game.crash.kind for game in result.crashes} == {"timeout"}  # type: ignore[union-attr]
    found = daemons(tmp_path)
    assert found
    assert wait_stopped(found) == []


def test_without_a_keeper_the_engines_process_group_is_killed(
    engines: Marked, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Where there is no keeper (not Linux), the referee kills the engine's process group:
    # the children that stayed in it die with the engine (a daemon would escape).
    monkeypatch.setattr(process_module, "KEEPER", False)
    engine = engines(script("forker", "polite"), move_time=10)
    assert engine.child_pid == engine.pid  # no keeper: the engine is the referee's child
    assert len(engines.alive()) == 3  # the engine and its two children
    sg.play_game([engine, sg.bots.GreedyBot()], seed=1)
    engine.close()
    assert wait_gone(engines.marker) == []


@linux_only
def test_a_keeper_signalled_again_and_again_still_ends_everything(engines: Marked) -> None:
    # SIGTERM (the referee's death, the arena's parent, anyone) makes the keeper end the
    # engine and all it started, however many come and whenever they come.
    engine = engines(script("forker", "polite"))
    keeper = engine.child_pid
    assert keeper is not None and len(engines.alive()) == 4  # keeper, engine, 2 children
    for _ in range(3):
        os.kill(keeper, signal.SIGTERM)
    os.waitid(os.P_PID, keeper, os.WEXITED | os.WNOWAIT)
    assert wait_gone(engines.marker) == []
    assert engine.ping() < 10  # and the next call starts a fresh engine
