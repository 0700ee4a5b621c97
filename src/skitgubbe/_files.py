"""The files the library writes and reads (private module; the names are public).

One place decides what a missing, unreadable or malformed file gets: a
:class:`~skitgubbe.errors.SkitgubbeError` naming the file for one that cannot be
read or written, a :class:`~skitgubbe.errors.RecordError` for one that is not a
JSON object (nesting too deep for the JSON reader included). One reader,
:func:`check_header`, checks the header of every record (game, session, match
and ladder records): its ``format`` name and its ``version``. One opener,
:func:`open_regular`, opens a file that is read whole or by a parser that seeks
(a training run's files): a regular file of at most a given size, checked before
a byte is read, so that a FIFO is never waited on and a device never read.

>>> load_json_object("no-such-file.json", "game record")  # doctest: +ELLIPSIS
Traceback (most recent call last):
    ...
skitgubbe.errors.SkitgubbeError: cannot read no-such-file.json: No such file or directory
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Collection, Iterable, Mapping
from typing import Any, BinaryIO, Final

from ._text import brief
from .errors import RecordError, SkitgubbeError

__all__ = [
    "OPEN_FLAGS",
    "check_header",
    "check_regular",
    "load_json_object",
    "not_regular",
    "open_regular",
    "write_csv",
    "write_text",
]

OPEN_FLAGS: Final[int] = (
    os.O_RDONLY
    | getattr(os, "O_NONBLOCK", 0)  # a FIFO swapped in after the check cannot block
    | getattr(os, "O_NOCTTY", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)
"""How a file a user names is opened to read: never blocking on a FIFO, never taking a
terminal, closed in child processes."""


def not_regular(mode: int) -> str:
    """What a file of ``mode`` that is not a regular file is, for a message.

    >>> import stat
    >>> not_regular(stat.S_IFIFO)
    'a FIFO (named pipe)'
    """
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def check_regular(name: str, info: os.stat_result, what: str, max_size: int | None) -> None:
    """Refuse the file ``name`` of status ``info`` unless it is a regular file (of at most
    ``max_size`` bytes when that is given): a :class:`~skitgubbe.errors.RecordError` that
    names it, says what it is, and calls it not a ``what``.

    >>> import os
    >>> check_regular("model-0.pt", os.stat(os.devnull), "PyTorch model file", None)
    Traceback (most recent call last):
        ...
    skitgubbe.errors.RecordError: model-0.pt is a device, not a PyTorch model file
    """
    if not stat.S_ISREG(info.st_mode):
        raise RecordError(f"{name} is {not_regular(info.st_mode)}, not a {what}")
    if max_size is not None and info.st_size > max_size:
        raise RecordError(
            f"{name} is {info.st_size:,} bytes, larger than any {what} (at most {max_size:,})"
        )


def open_regular(path: str | os.PathLike[str], what: str, max_size: int | None) -> BinaryIO:
    """The file at ``path``, a ``what``, open for reading in binary, once it is checked,
    before a byte of it is read, to be a regular file of at most ``max_size`` bytes
    (``None``: of any size).

    The path is checked before it is opened (a device is never opened: opening some
    does something) and what was opened is checked again (whatever the path names by
    then); it is opened without blocking, so that a FIFO put there in between is not
    waited on either. Anything else is a :class:`~skitgubbe.errors.RecordError` naming
    the file: a folder, a FIFO, a device, a socket, a larger file; one that cannot be
    opened a :class:`~skitgubbe.errors.SkitgubbeError` (its cause the ``OSError``). A caller that reads the whole
    file reads at most ``max_size + 1`` bytes of it (it may grow while it is read).

    >>> import os, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> fifo = os.path.join(folder, "state.json")
    >>> os.mkfifo(fifo)
    >>> open_regular(fifo, "training run's state", 1000)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    skitgubbe.errors.RecordError: .../state.json is a FIFO (named pipe), not a training run's state
    >>> os.remove(fifo)
    >>> with open(fifo, "wb") as file:  # a sparse file: 5,000 bytes on no disk
    ...     file.truncate(5000)
    5000
    >>> open_regular(fifo, "training run's state", 1000)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    skitgubbe.errors.RecordError: .../state.json is 5,000 bytes, larger than any training run's state (at most 1,000)
    >>> with open_regular(fifo, "training run's state", 5000) as file:
    ...     len(file.read())
    5000
    """  # noqa: E501
    name = os.fspath(path)

    def unreadable(exc: Exception) -> SkitgubbeError:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        return SkitgubbeError(f"cannot read {name}: {reason}")

    try:
        before = os.stat(name)
    except (OSError, ValueError) as exc:  # ValueError: a NUL in the path
        raise unreadable(exc) from exc
    check_regular(name, before, what, max_size)
    try:
        descriptor = os.open(name, OPEN_FLAGS)
    except OSError as exc:
        raise unreadable(exc) from exc
    try:
        check_regular(name, os.fstat(descriptor), what, max_size)
        return os.fdopen(descriptor, "rb")
    except BaseException:
        os.close(descriptor)
        raise


def load_json_object(
    path: str | os.PathLike[str], what: str, *, max_size: int | None = None
) -> dict[str, Any]:
    """The JSON object in the file at ``path``, a ``what`` ("game record", …).

    With ``max_size``, the file must be a regular file of at most that many bytes, checked
    before it is read (:func:`open_regular`): a FIFO, a device or a larger file is refused
    with a :class:`~skitgubbe.errors.RecordError` naming it, never waited on nor read.

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
        if max_size is None:
            with open(path, encoding="utf-8") as file:
                data: Any = json.load(file)
        else:
            with open_regular(path, what, max_size) as binary:
                text = binary.read(max_size + 1)
            if len(text) > max_size:
                raise RecordError(f"{name} grew as it was read, larger than any {what}")
            data = json.loads(text.decode("utf-8"))
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
