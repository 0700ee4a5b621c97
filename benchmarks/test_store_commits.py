"""The group commit on each store: moves a second when one transaction carries one move of
each of many tables (what the server's loop does under load), SQLite file against a real
PostgreSQL on this machine (tests/pg_support.py, with ``fsync`` on, PostgreSQL's default:
each commit waits for the disk; the SQLite file's write-ahead log is ``synchronous=NORMAL``,
the server's default, whose commits do not).

Both stores do the same work in turn, round by round (A B A B …): ``TABLES`` tables each
append one move, then one :meth:`~skitgubbe.server.store.Store.flush`. The figure is the
median round's time a move. ``PYTHONPATH=src python -m pytest benchmarks/test_store_commits.py
-s``; with ``--benchmark-disable`` it runs a few rounds.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from pytest_benchmark.fixture import BenchmarkFixture
from support import Figure, Figures

sys.path.append(str(Path(__file__).resolve().parents[1] / "tests"))
pytest.importorskip("psycopg")
import pg_support

from skitgubbe.server.store import SQLiteStore, StoredTable

TABLES = (1, 10, 100)
"""Tables a commit carries a move of: alone, a few, a busy server."""


def _round(store: Any, prefix: str, tables: int, move: int) -> float:
    """One round: each table appends its move ``move``, then one flush; seconds."""
    started = time.perf_counter()
    for table in range(tables):
        store.append_move(f"{prefix}{table}", move, "6♥", None)
    store.flush()
    return time.perf_counter() - started


def test_moves_a_second_through_the_group_commit_on_each_store(
    benchmark: BenchmarkFixture, figures: Figures, tmp_path: Path
) -> None:
    from skitgubbe.server.postgres import PostgresStore

    rounds = 5 if benchmark.disabled else 200
    server = pg_support.Postgres(fsync=True)
    server.start()
    rows: list[Figure] = []
    try:
        stores = {
            "sqlite": SQLiteStore(str(tmp_path / "bench.db")),
            "postgres": PostgresStore(server.new_database("bench")),
        }
        per_move: dict[tuple[str, int], float] = {}
        for tables in TABLES:  # tables of their own for each size, from move 0
            for store in stores.values():
                for table in range(tables):
                    config = {"seats": [None, None]}
                    store.create(StoredTable(f"p{tables}t{table}", config, 1, [None, None]))
            times: dict[str, list[float]] = {name: [] for name in stores}
            for move in range(rounds):
                for name, store in stores.items():  # A B A B: the same moment for both
                    times[name].append(_round(store, f"p{tables}t", tables, move))
            for name in stores:
                per_move[name, tables] = statistics.median(times[name]) / tables
        for store in stores.values():
            store.close()
    finally:
        server.close()
    for tables in TABLES:
        for name in ("sqlite", "postgres"):
            rows.append(
                Figure(
                    f"{name}_{tables}_moves_per_s",
                    f"{name}, {tables} tables a commit",
                    1 / per_move[name, tables],
                    "moves/s",
                )
            )
        rows.append(
            Figure(
                f"postgres_over_sqlite_{tables}",
                f"time a move, PostgreSQL / SQLite, {tables} tables a commit",
                per_move["postgres", tables] / per_move["sqlite", tables],
                "x",
            )
        )
    benchmark.pedantic(lambda: None, rounds=1)
    figures.add("store-commits", benchmark, *rows)
    print("\n" + "\n".join(f"{row.label}: {row.value:,.1f} {row.unit}" for row in rows))
