"""The files the library writes and reads (private module; the names are public).

One place decides what a missing, unreadable or malformed file gets: a
:class:`~skitgubbe.errors.SkitgubbeError` naming the file for one that cannot be
read or written, a :class:`~skitgubbe.errors.RecordError` for one that is not a
JSON object (nesting too deep for the JSON reader included). One reader,
:func:`check_header`, checks the header of every record (game, session, match
and ladder records): its ``format`` name and its ``version``.

>>> load_json_object("no-such-file.json", "game record")  # doctest: +ELLIPSIS
Traceback (most recent call last):
    ...
skitgubbe.errors.SkitgubbeError: cannot read no-such-file.json: No such file or directory
"""

from __future__ import annotations

import json
import os
from collections.abc import Collection, Iterable, Mapping
from typing import Any

from ._text import brief
from .errors import RecordError, SkitgubbeError

__all__ = ["check_header", "load_json_object", "write_csv", "write_text"]


def load_json_object(path: str | os.PathLike[str], what: str) -> dict[str, Any]:
    """The JSON object in the file at ``path``, a ``what`` ("game record", …).

    >>> import json, tempfile, os
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = os.path.join(folder, "list.json")
    ...     with open(path, "w") as file:
    ...         json.dump([1, 2], file)
    ...     load_json_object(path, "match record")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    skitgubbe.errors.RecordError: ...list.json holds list, not a match record
    """
    name = os.fspath(path)
    try:
        with open(path, encoding="utf-8") as file:
            data: Any = json.load(file)
    except OSError as exc:
        raise SkitgubbeError(f"cannot read {name}: {exc.strerror or exc}") from exc
    except (ValueError, UnicodeDecodeError) as exc:
        raise RecordError(f"{name} is not a JSON {what}: {exc}") from exc
    except RecursionError as exc:
        raise RecordError(f"{name} is not a {what}: JSON nested too deeply") from exc
    if not isinstance(data, dict):
        raise RecordError(f"{name} holds {type(data).__name__}, not a {what}")
    return data


def check_header(data: object, *, format: str, versions: Collection[int], what: str) -> int:
    """The version of the record ``data``, a ``what`` ("game record", …), once its
    header is checked: a mapping whose ``format`` is ``format`` and whose
    ``version`` is one of ``versions``; else a :class:`~skitgubbe.errors.RecordError`.

    >>> check_header({"format": "skitgubbe-match", "version": 2},
    ...              format="skitgubbe-match", versions=(1, 2), what="match record")
    2
    >>> check_header({"format": "skitgubbe-record"},
    ...              format="skitgubbe-match", versions=(1, 2), what="match record")
    Traceback (most recent call last):
        ...
    skitgubbe.errors.RecordError: not a match record: format is 'skitgubbe-record'
    >>> check_header({"format": "skitgubbe-match", "version": 3},
    ...              format="skitgubbe-match", versions=(1, 2), what="match record")
    Traceback (most recent call last):
        ...
    skitgubbe.errors.RecordError: match record version 3 is not supported (this library reads versions 1 to 2)
    >>> check_header([], format="skitgubbe-record", versions=(1,), what="game record")
    Traceback (most recent call last):
        ...
    skitgubbe.errors.RecordError: a game record is a mapping, not list
    """  # noqa: E501
    if not isinstance(data, Mapping):
        raise RecordError(f"a {what} is a mapping, not {type(data).__name__}")
    if data.get("format") != format:
        raise RecordError(f"not a {what}: format is {brief(data.get('format'))}")
    version = data.get("version")
    if type(version) is not int or version not in versions:
        known = sorted(versions)
        reads = (
            f"version {known[0]}"
            if len(known) == 1
            else f"versions {known[0]} to {known[-1]}"
            if known == list(range(known[0], known[-1] + 1))
            else "versions " + ", ".join(map(str, known))
        )
        raise RecordError(
            f"{what} version {brief(version)} is not supported (this library reads {reads})"
        )
    return version


def write_text(path: str, text: str) -> None:
    """Write ``text`` to the file at ``path`` (UTF-8); a
    :class:`~skitgubbe.errors.SkitgubbeError` naming the file if it cannot be written.

    >>> write_text("/nonexistent/folder/result.json", "{}")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    skitgubbe.errors.SkitgubbeError: cannot write /nonexistent/folder/result.json: ...
    """
    try:
        with open(path, "w", encoding="utf-8") as file:
            file.write(text)
    except OSError as exc:
        raise SkitgubbeError(f"cannot write {path}: {exc.strerror or exc}") from exc


def write_csv(path: str, header: list[str], rows: Iterable[list[Any]]) -> None:
    """Write a CSV file: the ``header`` row, then ``rows`` (errors as :func:`write_text`).

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "table.csv")
    >>> write_csv(path, ["bot", "elo"], [["greedy", 120.5]])
    >>> open(path, encoding="utf-8").read().splitlines()
    ['bot,elo', 'greedy,120.5']
    """
    import csv  # here, not at import: game records need none, and `import skitgubbe` stays light

    try:
        with open(path, "w", encoding="utf-8", newline="") as file:
            writer = csv.writer(file)
            writer.writerow(header)
            writer.writerows(rows)
    except OSError as exc:
        raise SkitgubbeError(f"cannot write {path}: {exc.strerror or exc}") from exc
