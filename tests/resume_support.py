"""Helpers for the tests that a long run (a match, a sequential test, a ladder) gives the
same result when killed and resumed, or when played on a Dask cluster."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

TORN_LINE = '{"set": 999, "games": ['
"""What a kill in the middle of writing a deal set leaves at the end of a state file."""


def kill_mid_run(code: str, state: Path, lines: int, timeout: float = 60) -> None:
    """Run ``code`` in a fresh interpreter, kill it (SIGKILL) as soon as the state file
    ``state`` holds ``lines`` lines, and tear its last line as a kill mid-write would.

    Fails if the run ended before it could be killed: then nothing was resumed.
    """
    child = subprocess.Popen([sys.executable, "-c", code])
    try:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and child.poll() is None:
            if state.exists() and state.read_text().count("\n") >= lines:
                break
            time.sleep(0.01)
        child.kill()
    finally:
        child.wait()
    assert child.returncode == -signal.SIGKILL, f"the run ended first ({child.returncode})"
    assert state.read_text().count("\n") >= lines, "the run was killed before it wrote enough"
    with state.open("a") as file:
        file.write(TORN_LINE)


def on_dask(call: str, out: Path) -> Any:
    """Evaluate ``call`` (an expression that may use ``executor``, a Dask client's, and the
    modules ``skitgubbe.arena.sprt`` as ``sprt`` and ``skitgubbe.arena.ladder`` as ``ladder``) in a
    fresh interpreter on a local Dask cluster; the JSON its ``save_json`` wrote.

    A fresh interpreter because a Dask client leaves threads behind, and a process with
    threads that forks (as the arena's workers do) may deadlock its children.
    """
    pytest.importorskip("distributed")
    code = (
        "import sys, distributed\n"
        "from skitgubbe.arena import ladder, sprt\n"
        "with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,\n"
        "        dashboard_address=None) as cluster, distributed.Client(cluster) as client:\n"
        "    executor = client.get_executor()\n"
        f"    result = {call}\n"
        "result.save_json(sys.argv[1])\n"
    )
    run_python(code, str(out))
    return json.loads(out.read_text())


def run_python(code: str, *argv: str) -> None:
    """Run ``code`` in a fresh interpreter with the arguments ``argv``; fail with its
    stderr unless it succeeds."""
    done = subprocess.run(
        [sys.executable, "-c", code, *argv],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
