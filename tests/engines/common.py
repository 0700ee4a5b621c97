"""The shared part of the test engines: a correct handshake, then legal_moves[0] at each
``go`` unless the engine's ``misbehave(message, count)`` takes that go over.

Standard library only; run as scripts (this directory is on their sys.path).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any

MISBEHAVE_AT = 3  # the go that the hostile engines spoil (the first two are answered)


def send(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def run(
    misbehave: Callable[[dict[str, Any], int], bool] | None = None,
    *,
    name: str = "test-engine",
    options: list[dict[str, Any]] | None = None,
    record: str | None = None,
) -> None:
    """Serve until quit or the end of input; ``record`` appends every line received."""
    log = open(record, "a", encoding="utf-8") if record else None  # noqa: SIM115
    gos = 0
    for line in sys.stdin:
        if log is not None:
            log.write(line)
            log.flush()
        if not line.strip():
            continue
        message = json.loads(line)
        kind = message["type"]
        if kind == "hello":
            send(
                {
                    "type": "id",
                    "protocol": 1,
                    "name": name,
                    "author": "tests",
                    "version": "1",
                    "options": options or [],
                }
            )
        elif kind == "isready":
            send({"type": "readyok", "seq": message["seq"]})
        elif kind == "go":
            gos += 1
            if misbehave is None or not misbehave(message, gos):
                send({"type": "move", "seq": message["seq"], "move": message["legal_moves"][0]})
        elif kind == "quit":
            return


def first_time() -> bool:
    """True for the first process given the file ``sys.argv[1]`` (which it creates), and
    always when no file is given: engines that misbehave once, then play well."""
    if len(sys.argv) < 2:
        return True
    try:
        open(sys.argv[1], "x").close()
    except FileExistsError:
        return False
    return True
