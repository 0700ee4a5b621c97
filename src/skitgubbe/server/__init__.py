"""A multiplayer skitgubbe server: a lobby, a websocket per seat, bots, spectators and a
browser table, with every move stored before anyone is told of it.

Install the extra (``pip install "skitgubbe[server]"``, which brings aiohttp) and run
``skitgubbe serve``, or mount :func:`create_app` in your own aiohttp application.
See ``docs/server.md`` for the HTTP and websocket API.

>>> from skitgubbe.server import Lobby, SQLiteStore, TableConfig
>>> TableConfig.from_json({"seats": [None, "greedy"]}).rules.players
2
"""

from __future__ import annotations

from .app import (
    FULL_GC_SECONDS,
    MAX_BAD_FRAMES,
    MAX_BOT_ITERATIONS,
    MAX_FRAME,
    MAX_REQUEST,
    STORE_UNAVAILABLE,
    create_app,
    tune_gc,
)
from .config import TableConfig
from .errors import TableError
from .lobby import Lobby
from .serving import run
from .store import SQLiteStore, Store, StoredSeat, StoredTable, StoreError
from .tables import Connection, Table, hash_token

__all__ = [
    "FULL_GC_SECONDS",
    "MAX_BAD_FRAMES",
    "MAX_BOT_ITERATIONS",
    "MAX_FRAME",
    "MAX_REQUEST",
    "STORE_UNAVAILABLE",
    "Connection",
    "Lobby",
    "SQLiteStore",
    "Store",
    "StoreError",
    "StoredSeat",
    "StoredTable",
    "Table",
    "TableConfig",
    "TableError",
    "create_app",
    "hash_token",
    "run",
    "tune_gc",
]
