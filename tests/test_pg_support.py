"""The real components of the store and cluster tests work here: PostgreSQL
(tests/pg_support.py, the ``postgres_server`` and ``postgres_dsn`` fixtures) and HAProxy
(tests/proxy_support.py, the ``haproxy_binary`` fixture)."""

from __future__ import annotations

import http.server
import importlib.util
import os
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from types import ModuleType

import pg_support
import proxy_support
import pytest
from server_support import free_port


def _psycopg() -> ModuleType:
    """psycopg (3), the driver of the store tests; failing in CI when it is missing."""
    if os.environ.get("CI") and importlib.util.find_spec("psycopg") is None:
        pytest.fail("no psycopg: CI must run the store tests (pip install 'psycopg[binary]')")
    module: ModuleType = pytest.importorskip("psycopg")
    return module


def test_a_database_of_its_own_stores_and_reads(postgres_dsn: str) -> None:
    psycopg = _psycopg()
    with psycopg.connect(postgres_dsn) as connection:
        connection.execute("CREATE TABLE seats (id integer PRIMARY KEY, name text NOT NULL)")
        connection.execute("INSERT INTO seats VALUES (1, %s)", ("Åsa",))
        connection.commit()
    with psycopg.connect(postgres_dsn) as connection:
        assert connection.execute("SELECT id, name FROM seats").fetchall() == [(1, "Åsa")]


def test_new_databases_are_separate(postgres_server: pg_support.Postgres) -> None:
    psycopg = _psycopg()
    first = postgres_server.new_database("pg_support_first")
    second = postgres_server.new_database("pg_support_second")
    try:
        assert first != second
        with psycopg.connect(first) as connection:
            connection.execute("CREATE TABLE only_here (x integer)")
        with psycopg.connect(second) as connection:
            name = connection.execute("SELECT current_database()").fetchone()
            assert name == ("pg_support_second",)
            found = connection.execute("SELECT to_regclass('only_here')").fetchone()
            assert found == (None,)
    finally:
        postgres_server.drop_database("pg_support_first")
        postgres_server.drop_database("pg_support_second")
    with pytest.raises(ValueError, match="not a plain database name"):
        postgres_server.new_database('x"; DROP DATABASE postgres; --')


@pytest.mark.usefixtures("postgres_server")  # skipped, or failed in CI, without PostgreSQL
def test_a_stopped_server_refuses_and_a_restarted_one_has_the_data() -> None:
    psycopg = _psycopg()
    # A server of this test's own: the session's is shared by the worker's other tests.
    server = pg_support.Postgres()
    try:
        server.start()
        with psycopg.connect(server.dsn, autocommit=True) as connection:
            connection.execute("CREATE TABLE kept (x integer)")
            connection.execute("INSERT INTO kept VALUES (7)")
        port = server.port
        server.stop()
        assert not server.running
        with pytest.raises(psycopg.OperationalError):
            psycopg.connect(server.dsn, connect_timeout=2)
        server.restart()
        assert server.port == port
        with psycopg.connect(server.dsn, autocommit=True) as connection:
            assert connection.execute("SELECT x FROM kept").fetchall() == [(7,)]
            connection.execute("INSERT INTO kept VALUES (8)")
        # A crash: the committed rows come back from the WAL.
        server.kill()
        assert not server.running
        with pytest.raises(psycopg.OperationalError):
            psycopg.connect(server.dsn, connect_timeout=2)
        server.start()
        with psycopg.connect(server.dsn) as connection:
            assert connection.execute("SELECT x FROM kept ORDER BY x").fetchall() == [(7,), (8,)]
    finally:
        server.close()
    assert server.folder is None


class _Hello(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = b"hello from the backend"
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def backend() -> Iterator[int]:
    """An HTTP server on 127.0.0.1 in a thread: its port."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), _Hello)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()
    thread.join(10)


def _fetch(port: int) -> bytes:
    # No proxy from the environment (http_proxy): straight to HAProxy.
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(f"http://127.0.0.1:{port}/", timeout=10) as response:
        body: bytes = response.read()
        return body


def test_haproxy_forwards_stops_and_starts_again(haproxy_binary: str, backend: int) -> None:
    port = free_port()
    config = f"""
defaults
    mode http
    timeout connect 5s
    timeout client 30s
    timeout server 30s

frontend web
    bind 127.0.0.1:{port}
    default_backend app

backend app
    server one 127.0.0.1:{backend}
"""
    proxy = proxy_support.HAProxy(config, port, binary=haproxy_binary)
    try:
        proxy.start()
        assert _fetch(port) == b"hello from the backend"
        proxy.stop()
        assert not proxy.running
        with pytest.raises(urllib.error.URLError):
            _fetch(port)
        proxy.start()
        assert _fetch(port) == b"hello from the backend"
        proxy.kill()
        with pytest.raises(urllib.error.URLError):
            _fetch(port)
    finally:
        proxy.close()


def test_haproxy_refuses_an_invalid_configuration(haproxy_binary: str) -> None:
    with pytest.raises(RuntimeError, match="invalid"):
        proxy_support.HAProxy(
            "frontend\n    no_such_keyword 1\n", free_port(), binary=haproxy_binary
        )
