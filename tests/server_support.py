"""Servers for the server and browser tests, on 127.0.0.1: a real `skitgubbe serve` process,
or an application in this process behind aiohttp's test client."""

from __future__ import annotations

import asyncio
import errno
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Sequence
from importlib import resources
from pathlib import Path
from typing import IO, Any

_LOGS: dict[int, IO[bytes]] = {}  # each server's stderr, by its process id


ROOMY = (
    "creates_per_minute_per_client=100000",
    "creates_per_minute=100000",
    "open_tables_per_client=100000",
    "open_tables=100000",
)
"""Limits for tests that are not about them: one test client makes as many tables as it
needs (the other bounds stay at their defaults). ``--limit`` options of ``skitgubbe serve``,
and :class:`~skitgubbe.server.limits.Limits` by :func:`roomy`."""


def roomy(**changes: Any) -> Any:
    """:data:`ROOMY` as :class:`~skitgubbe.server.limits.Limits`, with ``changes``."""
    import attrs

    from skitgubbe.server.limits import Limits

    return attrs.evolve(Limits.from_options(ROOMY), **changes)


def serve(test: Callable[[Any], Awaitable[None]], store: Any = ":memory:", **options: Any) -> None:
    """Run ``test(client)`` (at most 120 s) against ``create_app(store, **options)`` in this
    process, through aiohttp's test client (with :func:`roomy` limits unless ``options``
    give some)."""
    from aiohttp.test_utils import TestClient, TestServer

    from skitgubbe.server import create_app

    options.setdefault("limits", roomy())

    async def main() -> None:
        async with TestClient(TestServer(create_app(store, **options))) as client:
            await asyncio.wait_for(test(client), 120)

    asyncio.run(main())


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def start_server(
    db: Path,
    port: int,
    *args: str,
    env: dict[str, str] | None = None,
    prefix: Sequence[str] = (),
    limits: Sequence[str] = ROOMY,
) -> subprocess.Popen[bytes]:
    """``skitgubbe serve`` (with ``args``) on ``port`` and ``db``, once it listens. Its stderr
    goes to a file (a pipe nobody reads would fill and stop the server): :func:`stop_server`
    gives it back. ``env`` adds to the environment; ``prefix`` runs the server under another
    program (``strace -f -o FILE``); ``limits`` are its ``--limit`` options (:data:`ROOMY`;
    ``()`` for the defaults)."""
    log = tempfile.TemporaryFile()  # noqa: SIM115 - closed by stop_server, once read
    command = [sys.executable, "-m", "skitgubbe", "serve", "--port", str(port), "--db", str(db)]
    for limit in limits:
        command += ["--limit", limit]
    server = subprocess.Popen(
        [*prefix, *command, *args],
        stdout=subprocess.DEVNULL,
        stderr=log,
        env=None if env is None else {**os.environ, **env},
    )
    _LOGS[server.pid] = log
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return server
        except OSError:
            if server.poll() is not None:
                raise AssertionError(_read_log(server)) from None
            time.sleep(0.05)
    server.kill()
    raise AssertionError("the server did not start")


def _read_log(server: subprocess.Popen[bytes]) -> str:
    log = _LOGS.pop(server.pid, None)
    if log is None:
        return ""
    with log:
        log.seek(0)
        return log.read().decode("utf-8", "replace")


def stop_server(server: subprocess.Popen[bytes]) -> str:
    """Stop a server (SIGTERM, as an operator would) and give back what it wrote to stderr."""
    server.terminate()
    try:
        server.wait(20)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait(20)
    return _read_log(server)


def peak_memory_kib(pid: int) -> int:
    """A process's peak resident memory (VmHWM), in KiB (Linux)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise AssertionError("no VmHWM in /proc/PID/status")


# -- bait for a server that must not touch what a request names --------------------------

CANARY = "sgcanary_never_imported"
"""A module on the server's path whose import leaves a mark (the file ``imported``)."""

SLOW_CALLBACK = re.compile(r"Executing .* took \d+\.\d+ seconds")
"""What asyncio's debug mode logs for a callback that held the loop over 100 ms."""


def make_bait(folder: Path) -> Path:
    """A folder of what a request might name: a module whose import leaves a mark (the
    file ``imported``), a C policy, a valid weight file (the shipped one), a FIFO and a
    folder named like weights."""
    from skitgubbe.bots.net import DEFAULT_WEIGHTS

    folder.mkdir()
    mark = folder / "imported"
    (folder / f"{CANARY}.py").write_text(
        f"import pathlib\npathlib.Path({str(mark)!r}).write_text('imported')\n"
        "def choose(view):\n    return 0\n\ndef evaluate(view):\n    return 0.5\n"
    )
    (folder / "policy.c").write_text("int choose(const void *view) { (void)view; return 0; }\n")
    shipped = resources.files("skitgubbe") / "weights" / DEFAULT_WEIGHTS
    (folder / "w.sgnet").write_bytes(shipped.read_bytes())
    os.mkfifo(folder / "pipe.sgnet")
    (folder / "dir.sgnet").mkdir()
    return folder


def server_env(bait: Path, cache: Path) -> dict[str, str]:
    """The server's environment: the bait module importable, the C policies' build cache in
    a folder of the test's own, asyncio's debug mode on (slow callbacks logged)."""
    cache.mkdir(exist_ok=True)
    path = os.pathsep.join(filter(None, [str(bait), os.environ.get("PYTHONPATH")]))
    return {"PYTHONPATH": path, "XDG_CACHE_HOME": str(cache), "PYTHONASYNCIODEBUG": "1"}


def fifo_unopened(fifo: Path) -> bool:
    """Whether no process holds ``fifo`` open for reading (opening it to write without
    blocking fails with ENXIO then)."""
    try:
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
    except OSError as error:
        return error.errno == errno.ENXIO
    return False
