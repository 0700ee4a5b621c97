"""The text of bot options, ``key=value,...``, shared by bot specs and engine specs."""

from __future__ import annotations

from typing import Any

from ..errors import ArgumentError


def value(text: str) -> Any:
    """An option's value: an int, a float, ``true``/``false``, else the text itself."""
    lowered = text.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def options(text: str, spec: str) -> dict[str, Any]:
    """The comma-separated ``key=value`` options of ``text`` (part of ``spec``), by key
    (``-`` in a key read as ``_``)."""
    found: dict[str, Any] = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        key, sep, given = item.partition("=")
        if not sep or not key.strip():
            raise ArgumentError(f"bot option {item!r} in {spec!r} is not key=value")
        found[key.strip().replace("-", "_")] = value(given.strip())
    return found
