"""Values nested deeper than Python's recursion limit, for the bad-input tests."""

from __future__ import annotations

from typing import Any


def nested(depth: int) -> list[Any]:
    """A list inside a list ``depth`` times: ``[[[...]]]``."""
    value: list[Any] = []
    for _ in range(depth):
        value = [value]
    return value
