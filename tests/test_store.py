"""The store's contract, on both stores: the SQLite file and a real PostgreSQL server (which
the ``postgres_dsn`` fixture starts: tests/pg_support.py), and the versioned schemas of both."""

from __future__ import annotations

import asyncio
import json
import logging
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from server_support import serve

from skitgubbe.server import StoredSeat
from skitgubbe.server.store import SQLiteStore, Store, StoredTable, StoreError

KINDS = ["sqlite", "postgres"]


@pytest.fixture(params=KINDS)
def open_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Callable[[], Any]]:
    """Opens the same store again each call (a restart): a SQLite file, or a PostgreSQL
    database of its own on the test server."""
    if request.param == "sqlite":
        where = str(tmp_path / "store.db")

        def make() -> Any:
            return SQLiteStore(where)
    else:
        from skitgubbe.server.postgres import PostgresStore

        dsn = request.getfixturevalue("postgres_dsn")

        def make() -> Any:
            return PostgresStore(dsn)

    opened: list[Any] = []

    def opening() -> Any:
        opened.append(make())
        return opened[-1]

    yield opening
    for store in opened:
        store.close()


def _table(table_id: str = "t", players: int = 2, **fields: Any) -> StoredTable:
    return StoredTable(table_id, {"seats": [None] * players}, 7, [None] * players, **fields)


def test_a_table_its_seats_and_moves_come_back_after_a_restart(open_store: Any) -> None:
    store = open_store()
    assert isinstance(store, Store)
    store.create(_table("a", 3, created=10.0))
    store.create(_table("b", 2, created=20.0))
    store.claim("a", 1, "ab" * 32, "Ann")
    store.claim("a", 2, "cd" * 32, "Bo")
    store.release("a", 2)
    store.start("a")
    for index, move in enumerate(["6♥", "7♣", "take"]):
        store.append_move("a", index, move, "timeout" if index == 1 else None)
    store.flush()
    store.close()
    again = open_store()
    a, b = again.load()
    assert (a.id, a.status, a.moves, a.stand_ins) == (
        "a",
        "running",
        ["6♥", "7♣", "take"],
        {1: "timeout"},
    )
    assert a.seats == [None, StoredSeat("ab" * 32, "Ann"), None] and a.created == 10.0
    assert (b.id, b.status, b.moves) == ("b", "open", [])
    again.append_move("a", 3, "8♦", None)  # the count goes on from what was stored
    with pytest.raises(ValueError, match="would repeat one"):
        again.append_move("a", 3, "8♦", None)
    with pytest.raises(ValueError, match="leave a gap"):
        again.append_move("b", 1, "8♦", None)


def test_moves_are_stored_only_by_a_flush_and_in_runs(open_store: Any) -> None:
    store = open_store()
    store.create(_table("t"))
    store.append_move("t", 0, "6♥", None)
    reader = open_store()
    assert reader.table("t").moves == []  # appended, not flushed
    store.flush()
    for index in range(1, 40):
        store.append_move("t", index, f"m{index}", None)
        if index % 7 == 0:
            store.flush()
    store.flush()
    assert reader.table("t").moves == ["6♥"] + [f"m{index}" for index in range(1, 40)]


def test_the_clock_of_a_turn_is_kept(open_store: Any) -> None:
    store = open_store()
    store.create(_table("t"))
    store.set_clock("t", 4, 1234.5)
    store.flush()
    assert open_store().table("t").clock == (4, 1234.5)
    store.finish("t", {"moves": []})
    assert open_store().table("t").clock is None  # a finished table has no clock


def test_finished_tables_are_listed_newest_first_and_paged(open_store: Any) -> None:
    store = open_store()
    for n in range(5):
        store.create(_table(f"t{n}"))
        store.finish(f"t{n}", {"moves": [], "n": n}, public_at=100.0 + n)
    store.create(_table("late"))
    store.finish("late", {"moves": []}, public_at=10.0**12)  # not public yet
    assert [t.id for t in store.finished(3, now=200.0)] == ["t4", "t3", "t2"]
    assert [t.id for t in store.finished(3, "t2", now=200.0)] == ["t1", "t0"]
    assert store.record("t3") == {"moves": [], "n": 3} and store.record("late") is not None
    assert store.record("nothing") is None
    store.set_rematch("t3", "t9")
    assert store.table("t3").rematch == "t9" and store.table("t3").status == "over"
    assert store.load() == [] and {t.id for t in store.load(("over",))} == {
        "late",
        *(f"t{n}" for n in range(5)),
    }


def test_an_abandoned_table_keeps_its_reason(open_store: Any) -> None:
    store = open_store()
    store.create(_table("t"))
    store.abandon("t", "its bot is gone")
    closed = open_store().table("t")
    assert (closed.status, closed.record) == ("closed", {"closed": "its bot is gone"})


def test_a_refused_write_changes_nothing_and_keeps_the_moves_pending(open_store: Any) -> None:
    store = open_store()
    store.create(_table("t"))
    store.append_move("t", 0, "6♥", None)
    with pytest.raises(StoreError, match="could not write"):
        store.create(_table("t"))  # the same id again: the transaction fails
    assert open_store().table("t").moves == []  # the pending move went with it...
    store.flush()
    assert open_store().table("t").moves == ["6♥"]  # ...and is stored by the next write


def test_a_whole_game_on_the_server_is_stored_on_either_store(open_store: Any) -> None:
    """The server plays a game of bots on the store and its record is kept, a restart
    finds it finished."""
    store = open_store()

    async def test(client: Any) -> None:
        made = await (await client.post("/api/tables", json={"seats": ["greedy", "random"]})).json()
        for _ in range(600):
            record = await client.get(f"/api/tables/{made['id']}/record")
            if record.status == 200:
                break
            await asyncio.sleep(0.05)
        assert record.status == 200
        assert (await record.json())["moves"]

    serve(test, store)
    finished = open_store().finished(5)
    assert len(finished) == 1 and finished[0].record is not None


def test_a_sqlite_file_of_the_last_release_is_upgraded_once_saying_so(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A file of schema 2 (the release before the clock was kept) opens, is upgraded to
    this release's schema with one log line, and keeps its tables; opening it again says
    nothing."""
    from skitgubbe.server.store import _MIGRATIONS, _SCHEMA, SCHEMA_VERSION

    path = tmp_path / "old.db"
    db = sqlite3.connect(path)
    db.executescript(_SCHEMA)
    for statement in _MIGRATIONS[1]:
        db.execute(statement)
    db.execute("PRAGMA user_version = 2")
    config = json.dumps({"seats": [None, None]})
    db.execute(
        "INSERT INTO tables (id, config, seed, status, created) VALUES ('t', ?, '5', 'running', 1)",
        (config,),
    )
    db.execute("INSERT INTO moves VALUES ('t', 0, '6♥')")
    db.commit()
    db.close()
    with caplog.at_level(logging.WARNING, "skitgubbe.server"):
        store = SQLiteStore(str(path))
        assert store.load()[0].moves == ["6♥"]
        store.set_clock("t", 1, 99.0)
        store.close()
        SQLiteStore(str(path)).close()
    upgraded = [r.getMessage() for r in caplog.records if "upgraded" in r.getMessage()]
    assert upgraded == [f"the store {path} was upgraded from schema 2 to {SCHEMA_VERSION}"]
    assert sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def test_a_newer_schema_is_refused_by_both_stores(tmp_path: Path, postgres_dsn: str) -> None:
    import psycopg

    from skitgubbe.server.postgres import PostgresStore

    path = tmp_path / "new.db"
    sqlite3.connect(path).execute("PRAGMA user_version = 99")
    with pytest.raises(StoreError, match="newer than this release"):
        SQLiteStore(str(path))
    PostgresStore(postgres_dsn).close()
    with psycopg.connect(postgres_dsn, autocommit=True) as db:
        db.execute("UPDATE skitgubbe_schema SET version = 99")
    with pytest.raises(StoreError, match="newer than this release"):
        PostgresStore(postgres_dsn)


def test_processes_that_open_a_new_database_together_make_its_schema_once(
    postgres_dsn: str,
) -> None:
    """Eight stores opened at once on an empty database: one makes the schema (under the
    advisory lock), none fails."""
    from concurrent.futures import ThreadPoolExecutor

    from skitgubbe.server.postgres import SCHEMA_VERSION, PostgresStore

    with ThreadPoolExecutor(8) as pool:
        stores = list(pool.map(lambda _: PostgresStore(postgres_dsn), range(8)))
    for store in stores:
        store.close()
    import psycopg

    with psycopg.connect(postgres_dsn) as db:
        assert db.execute("SELECT version FROM skitgubbe_schema").fetchall() == [(SCHEMA_VERSION,)]


def test_postgres_says_when_it_cannot_be_reached() -> None:
    from skitgubbe.server.postgres import PostgresStore

    with pytest.raises(StoreError, match="could not reach PostgreSQL"):
        PostgresStore("postgresql://nobody@127.0.0.1:1/none", connect_timeout=1)
