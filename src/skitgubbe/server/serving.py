"""``skitgubbe serve``: one server process (:func:`run`), or many on one machine sharing a
port and a PostgreSQL database (:func:`run_workers`), each a node of a cluster
(:mod:`skitgubbe.server.cluster`).
"""

from __future__ import annotations

import logging
import multiprocessing
import signal
import socket
import time
from collections.abc import Mapping
from typing import Any, Final

from aiohttp import web

from ..errors import ArgumentError
from .advice import HINT_ENGINE, REVIEW_ENGINE
from .app import create_app, tune_gc
from .cluster import LEASE, NODE_NAME, Cluster
from .config import MAX_BOT_ITERATIONS
from .limits import Limits
from .postgres import is_postgres

__all__ = ["MAX_WORKERS", "RESTART_SECONDS", "run", "run_workers", "worker_names"]

MAX_WORKERS: Final = 64
"""The most processes ``skitgubbe serve --workers`` starts."""
RESTART_SECONDS: Final = 1.0
"""How long :func:`run_workers` waits before it starts a worker that stopped again."""

_log: Final = logging.getLogger("skitgubbe.server")


def _listen(host: str, port: int, *, reuse_port: bool = False) -> socket.socket:
    """A listening socket on ``host:port`` (shared with other processes with
    ``reuse_port``: the kernel spreads the connections among them)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if reuse_port:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind((host, port))
    sock.listen(1024)
    sock.setblocking(False)
    return sock


def run(
    host: str = "127.0.0.1",
    port: int = 8080,
    store: str = "skitgubbe-server.db",
    engines: Mapping[str, str] | None = None,
    max_bot_iterations: int = MAX_BOT_ITERATIONS,
    hint_engine: str = HINT_ENGINE,
    review_engine: str = REVIEW_ENGINE,
    named_bots: Mapping[str, str] | None = None,
    limits: Limits | None = None,
    *,
    node: str | None = None,
    advertise: str | None = None,
    lease: float = LEASE,
    reuse_port: bool = False,
) -> None:  # pragma: no cover - serves until interrupted
    """Serve :func:`~skitgubbe.server.create_app` on ``host:port`` until interrupted
    (``skitgubbe serve``), with the collector tuned for many tables (:func:`tune_gc`).

    With ``node``, the process is that node of a cluster on the PostgreSQL ``store``
    (:class:`~skitgubbe.server.cluster.Cluster`): the other nodes reach it at
    ``advertise`` (default ``http://host:port``; with ``reuse_port``, the port other
    processes share, it listens on a port of its own on 127.0.0.1 for them too).

    >>> import inspect
    >>> from skitgubbe.server import run
    >>> [p.default for p in inspect.signature(run).parameters.values()][:5]
    ['127.0.0.1', 8080, 'skitgubbe-server.db', None, 20000]
    >>> inspect.signature(run).parameters["hint_engine"].default
    'ismcts:iterations=30000'
    """
    sockets = []
    cluster = None
    if node is not None:
        if advertise is None and reuse_port:  # the shared port reaches any process: its own
            sockets.append(_listen("127.0.0.1", 0))
            advertise = f"http://127.0.0.1:{sockets[-1].getsockname()[1]}"
        shown = f"[{host}]" if ":" in host else host
        cluster = Cluster(node, advertise or f"http://{shown}:{port}", lease, min(0.5, lease / 3))
    app = create_app(
        store,
        engines=engines,
        named_bots=named_bots,
        max_bot_iterations=max_bot_iterations,
        hint_engine=hint_engine,
        review_engine=review_engine,
        limits=limits,
        cluster=cluster,
    )
    tune_gc(app)
    # The port listens only once the application is made (its bots checked): a bad option
    # never leaves a port that accepts connections and answers nothing.
    sockets.insert(0, _listen(host, port, reuse_port=reuse_port))
    # Open sockets do not hold a shutdown up: the store already has every move.
    web.run_app(app, sock=sockets, shutdown_timeout=2, print=None if node else print)


def worker_names(workers: int, prefix: str = "w") -> list[str]:
    """The node names of ``workers`` processes: the prefix and a number from 1.

    >>> worker_names(3, "a")
    ['a1', 'a2', 'a3']
    """
    if type(workers) is not int or not 1 <= workers <= MAX_WORKERS:
        raise ArgumentError(f"workers must be a number 1 … {MAX_WORKERS}, not {workers!r}")
    names = [f"{prefix}{number}" for number in range(1, workers + 1)]
    for name in names:
        if not NODE_NAME.fullmatch(name):
            raise ArgumentError(
                f"the workers' names begin with the node name, 1 to 16 lowercase letters and "
                f"digits in all: {name!r} is not one"
            )
    return names


def run_workers(
    workers: int, store: str, *, prefix: str = "w", **options: Any
) -> None:  # pragma: no cover - serves until interrupted (tests/test_cluster.py runs it)
    """Serve with ``workers`` processes on one port (``skitgubbe serve --workers N``), each a
    node of a cluster on the PostgreSQL ``store`` (named ``prefix1``, ``prefix2``, …; the
    kernel spreads the connections, and each passes what another node plays on to it).
    A worker that stops is started again after :data:`RESTART_SECONDS` (its tables played
    on meanwhile by the others); SIGINT or SIGTERM stops them all. ``options`` are
    :func:`run`'s.

    >>> run_workers(2, "skitgubbe-server.db")
    Traceback (most recent call last):
        ...
    skitgubbe.errors.ArgumentError: --workers needs a PostgreSQL store: --db postgresql://…
    """
    if not is_postgres(store):
        raise ArgumentError("--workers needs a PostgreSQL store: --db postgresql://…")
    names = worker_names(workers, prefix)
    context = multiprocessing.get_context("spawn")
    stopping = False

    def start(name: str) -> Any:
        process = context.Process(
            target=run,
            kwargs={**options, "store": store, "node": name, "reuse_port": True},
            name=f"skitgubbe {name}",
        )
        process.start()
        return process

    def stop(signum: int, frame: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    processes = {name: start(name) for name in names}
    print(f"skitgubbe serve: {workers} workers ({', '.join(names)})", flush=True)
    while not stopping:
        time.sleep(0.2)
        for name, process in processes.items():
            if not process.is_alive() and not stopping:
                _log.warning("worker %s stopped (exit %s): started again", name, process.exitcode)
                time.sleep(RESTART_SECONDS)
                processes[name] = start(name)
    for process in processes.values():
        process.terminate()
    for process in processes.values():
        process.join(15)
        if process.is_alive():
            process.kill()
