"""Fixtures for the browser tests (tests/browser_support.py has their helpers): Debian's
Chromium through Playwright, and a real ``skitgubbe serve`` on 127.0.0.1. Playwright is
imported only by a test that asks for ``browser``.

And for the store and cluster tests: a real PostgreSQL server (tests/pg_support.py) with a
fresh database for each test, and HAProxy's program (tests/proxy_support.py)."""

from __future__ import annotations

import os
import re
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pg_support
import proxy_support
import pytest
from server_support import free_port, start_server


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    sync_api = pytest.importorskip("playwright.sync_api")
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        if os.environ.get("CI"):
            pytest.fail("no chromium: CI must run the browser tests (apt-get install chromium)")
        pytest.skip("no chromium on this machine")
    with sync_api.sync_playwright() as playwright:
        # --no-sandbox: CI runs as root, where Chromium's sandbox cannot start.
        launched = playwright.chromium.launch(
            executable_path=chromium, headless=True, args=["--no-sandbox"]
        )
        yield launched
        launched.close()


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    port = free_port()
    process = start_server(tmp_path / "server.db", port)
    yield f"http://127.0.0.1:{port}"
    process.terminate()
    try:
        process.wait(15)
    finally:
        process.kill()


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[pg_support.Postgres]:
    """A started PostgreSQL server on 127.0.0.1, one for the session (for each xdist
    worker: each on a port of its own), stopped and removed at the end."""
    if not pg_support.available():
        if os.environ.get("CI"):
            pytest.fail(
                "no PostgreSQL: CI must run the store tests against it (apt-get install postgresql)"
            )
        pytest.skip("no PostgreSQL on this machine (apt-get install postgresql)")
    with pg_support.started() as server:
        yield server


@pytest.fixture
def postgres_dsn(
    postgres_server: pg_support.Postgres, request: pytest.FixtureRequest
) -> Iterator[str]:
    """The DSN of a new, empty database on :func:`postgres_server`, for this test alone
    (dropped after it)."""
    test = re.sub(r"[^a-z0-9_]+", "_", request.node.name.lower())[:40]
    name = f"t_{test}_{uuid.uuid4().hex[:8]}"
    yield postgres_server.new_database(name)
    postgres_server.drop_database(name)


@pytest.fixture(scope="session")
def haproxy_binary() -> str:
    """The path of the ``haproxy`` program (for tests/proxy_support.py's HAProxy)."""
    binary = proxy_support.find_binary()
    if binary is None:
        if os.environ.get("CI"):
            pytest.fail("no haproxy: CI must run the cluster tests (apt-get install haproxy)")
        pytest.skip("no haproxy on this machine (apt-get install haproxy)")
    return binary


@pytest.fixture(params=["sqlite", "postgres"])
def store_db(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """What ``skitgubbe serve --db`` takes, for each store: an SQLite file's path, or a
    PostgreSQL database of its own (:func:`postgres_dsn`)."""
    if request.param == "sqlite":
        return str(tmp_path / "server.db")
    return str(request.getfixturevalue("postgres_dsn"))
