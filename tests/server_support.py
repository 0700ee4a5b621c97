"""Servers for the server and browser tests, on 127.0.0.1: a real `skitgubbe serve` process,
or an application in this process behind aiohttp's test client."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import IO, Any

_LOGS: dict[int, IO[bytes]] = {}  # each server's stderr, by its process id


def serve(test: Callable[[Any], Awaitable[None]], store: Any = ":memory:", **options: Any) -> None:
    """Run ``test(client)`` (at most 120 s) against ``create_app(store, **options)`` in this
    process, through aiohttp's test client."""
    from aiohttp.test_utils import TestClient, TestServer

    from skitgubbe.server import create_app

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
) -> subprocess.Popen[bytes]:
    """``skitgubbe serve`` (with ``args``) on ``port`` and ``db``, once it listens. Its stderr
    goes to a file (a pipe nobody reads would fill and stop the server): :func:`stop_server`
    gives it back. ``env`` adds to the environment; ``prefix`` runs the server under another
    program (``strace -f -o FILE``)."""
    log = tempfile.TemporaryFile()  # noqa: SIM115 - closed by stop_server, once read
    command = [sys.executable, "-m", "skitgubbe", "serve", "--port", str(port), "--db", str(db)]
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
