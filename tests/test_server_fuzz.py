"""Generated seat specs against a real ``skitgubbe serve``: every option of every built-in
bot, and options no bot has, with paths, module names, C sources, huge and odd values.

Whatever the spec, the answer is 201 (a plain spec, as :func:`skitgubbe.bots.check_plain_spec`
says) or 400, never a 500; the server imports no module, compiles nothing, opens no file a
spec names (the slow tier watches its file system calls with strace), and its event loop is
never held over 100 ms (asyncio's debug mode logs any callback that is).

Each server listens on 127.0.0.1 only; the requests are bounded in count and time.
"""

from __future__ import annotations

import http.client
import inspect
import json
import os
import shutil
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("aiohttp")
from server_support import (
    CANARY,
    SLOW_CALLBACK,
    fifo_unopened,
    free_port,
    make_bait,
    server_env,
    start_server,
    stop_server,
)

from skitgubbe import bots

_KEYS = sorted(
    {
        name
        for factory in bots.BUILTIN_BOTS.values()
        for name in inspect.signature(factory).parameters
        if name != "seed"
    }
    | {"seed", "weights", "evaluation", "command", "move_time", "threads", "x"}
)
"""Every option of every built-in bot, and a few that no bot has (or that are refused)."""

_NAMES = [*bots.PLAIN_OPTIONS, "cmd", "ISMCTS", "Pimc", CANARY, "os", "antigravity", "nobot"]


def _values(folder: Path) -> st.SearchStrategy[str]:
    """Option values: paths, module and function names, C sources, numbers odd and huge."""
    paths = [
        str(folder / name)
        for name in ("w.sgnet", "x.sgnet", "pipe.sgnet", "dir.sgnet", "policy.c", ".")
    ]
    words = [
        *paths,
        f"{folder}/policy.c:choose",
        "/dev/zero",
        "/dev/stdin",
        "/etc/passwd",
        "/proc/self/mem",
        "~/.ssh/id_rsa",
        "../../../etc/shadow",
        f"{CANARY}:choose",
        f"{CANARY}:evaluate",
        "os:getpid",
        "os:system",
        "antigravity:geohash",
        "json:dumps",
        "builtins:eval",
        "net",
        "greedy",
        "mixed",
        "random",
        "rollout",
        "true",
        "false",
        "True",
        "nan",
        "inf",
        "-inf",
        "1e308",
        "1e-320",
        "-0.0",
        "0",
        "-1",
        str(2**31),
        str(2**32),
        str(2**64),
        "9" * 400,
        "",
    ]
    numbers = st.one_of(
        st.integers(min_value=-(2**70), max_value=2**70).map(str),
        st.floats(allow_nan=True, allow_infinity=True).map(repr),
    )
    text = st.text(
        alphabet=st.characters(blacklist_characters=",=", blacklist_categories=("Cs",)),
        max_size=12,
    )
    return st.one_of(st.sampled_from(words), numbers, text)


def _plain_value(kind: object) -> st.SearchStrategy[str]:
    """A value of a plain option's kind, in its bounds or not."""
    if kind == "bool":
        return st.sampled_from(["true", "false"])
    if kind == "int":
        return st.integers(min_value=-3, max_value=2**33).map(str)
    if kind == "number":
        return st.one_of(st.floats(min_value=-1, max_value=100).map(repr), st.just("0.01"))
    assert isinstance(kind, tuple)
    return st.sampled_from(kind)


@st.composite
def _plain_shaped(draw: st.DrawFn) -> str:
    """A spec of a built-in bot with its plain options, in their bounds or not."""
    name = draw(st.sampled_from(list(bots.PLAIN_OPTIONS)))
    allowed = bots.PLAIN_OPTIONS[name]
    keys = (
        draw(st.lists(st.sampled_from(sorted(allowed)), max_size=3, unique=True)) if allowed else []
    )
    options = ",".join(f"{key}={draw(_plain_value(allowed[key]))}" for key in keys)
    return name + (":" + options if options else "")


def _specs(folder: Path) -> st.SearchStrategy[str]:
    option = st.tuples(st.sampled_from(_KEYS), _values(folder)).map(lambda kv: "=".join(kv))
    options = st.lists(option, max_size=4).map(",".join)
    wild = st.tuples(st.sampled_from(_NAMES), options).map(
        lambda pair: pair[0] + (":" + pair[1] if pair[1] else "")
    )
    engine = st.tuples(options, _values(folder)).map(lambda pair: f"cmd[{pair[0]}]:{pair[1]}")
    others = st.sampled_from(["engine:x", "bot:x"])
    return st.one_of(wild, wild, wild, _plain_shaped(), _plain_shaped(), engine, others)


class _Client:
    """One keep-alive HTTP connection to the server, and what it was answered."""

    def __init__(self, port: int) -> None:
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        self.tried = 0
        self.statuses: dict[int, int] = {}

    def seat(self, spec: str) -> tuple[int, dict[str, object]]:
        body = json.dumps({"seats": [None, spec]})
        self.connection.request("POST", "/api/tables", body, {"Content-Type": "application/json"})
        response = self.connection.getresponse()
        answer = json.loads(response.read())
        self.tried += 1
        self.statuses[response.status] = self.statuses.get(response.status, 0) + 1
        return response.status, answer


def _fuzz(client: _Client, folder: Path, examples: int) -> None:
    @settings(
        max_examples=examples,
        deadline=None,
        derandomize=True,
        suppress_health_check=list(HealthCheck),
        database=None,
    )
    @given(_specs(folder))
    def check(spec: str) -> None:
        status, answer = client.seat(spec)
        plain = bots.is_plain_spec(spec)
        if len(spec) <= 200 and plain:  # a plain spec may still be over a bound: 400
            assert status in (201, 400), (spec, answer)
        else:
            assert status == 400, (spec, answer)
        if status == 201:
            assert plain, spec

    check()


@pytest.fixture
def bait(tmp_path: Path) -> Iterator[Path]:
    folder = make_bait(tmp_path / "bait")
    yield folder
    assert not (folder / "imported").exists(), "the server imported a module a request named"


@pytest.fixture
def cache(tmp_path: Path) -> Iterator[Path]:
    folder = tmp_path / "cache"
    yield folder
    assert not any(folder.rglob("*")), "the server compiled a C source a request named"


def test_generated_specs_never_reach_code_or_files(tmp_path: Path, bait: Path, cache: Path) -> None:
    port = free_port()
    server = start_server(tmp_path / "server.db", port, env=server_env(bait, cache))
    client = _Client(port)
    try:
        _fuzz(client, bait, int(os.environ.get("SKITGUBBE_SPEC_EXAMPLES", "400")))
        assert fifo_unopened(bait / "pipe.sgnet")
    finally:
        client.connection.close()
        log = stop_server(server)
    print(f"\n{client.tried} generated specs, answers by status: {client.statuses}")
    assert 500 not in client.statuses
    assert not SLOW_CALLBACK.search(log), log
    assert "Traceback" not in log, log


def _children(pid: int) -> list[int]:
    """The processes ``pid`` started (Linux)."""
    found = Path(f"/proc/{pid}/task/{pid}/children")
    return [int(child) for child in found.read_text().split()] if found.exists() else []


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("strace") is None, reason="strace is not installed")
def test_generated_specs_open_no_file_under_strace(tmp_path: Path, bait: Path, cache: Path) -> None:
    """The server under ``strace -f``: no file system call names a bait file (no open,
    stat or access of a path a spec holds) and no program is started (no compiler)."""
    trace = tmp_path / "trace"
    port = free_port()
    server = start_server(
        tmp_path / "server.db",
        port,
        env=server_env(bait, cache),
        prefix=["strace", "-f", "-qq", "-e", "trace=%file,execve", "-o", str(trace)],
    )
    time.sleep(1)  # the start's own calls (imports) are over
    started = trace.stat().st_size
    client = _Client(port)
    try:
        _fuzz(client, bait, 1500)
    finally:
        client.connection.close()
        # strace detaches when it is stopped: the server it started is stopped first.
        for child in _children(server.pid):
            os.kill(child, signal.SIGTERM)
        stop_server(server)
    print(f"\n{client.tried} generated specs under strace, answers by status: {client.statuses}")
    assert 500 not in client.statuses
    with trace.open("rb") as calls:
        calls.seek(started)
        during = calls.read().decode("utf-8", "replace")
    # The bait's own files (the folder itself is on the server's path, so an import of
    # anything may look in it, but never for these names).
    baits = ("w.sgnet", "x.sgnet", "pipe.sgnet", "dir.sgnet", "policy.c", CANARY)
    named = [line for line in during.splitlines() if any(name in line for name in baits)]
    assert not named, named[:5]
    started_programs = [line for line in during.splitlines() if "execve(" in line]
    assert not started_programs, started_programs[:5]
