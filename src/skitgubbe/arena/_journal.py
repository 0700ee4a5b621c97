"""Append-only JSON-lines state files that let a long run resume where it stopped.

The first line is a header (the library and RNG versions, the rules, the bots, the
seed and the parameters of the run); each further line is one finished deal set,
``{"set": KEY, "games": [...]}``. A run that resumes checks the header, drops a torn
last line (a write cut short by a kill) and plays only the deal sets missing.

A run never overwrites a file that is not its own state: an empty file (or the run's
own header, cut short by a kill) is started afresh; any other file whose first line
is not the header of this command is refused with a :class:`~skitgubbe.RecordError`
naming it, one holding another run's header with an :class:`~skitgubbe.ArgumentError`
naming what differs, and either is left as it was. A run may name parameters that can
grow (a ladder's rounds): a file whose header differs from the run's only in those is
the run's own, its first header kept. A file that is not a regular file (a FIFO, a
device, a folder) is refused before it is read.

Every line is checked as it is read: a deal set on two lines is refused, and so is one
the run's ``check`` refuses (a ladder checks each set against its own schedule), with a
:class:`~skitgubbe.RecordError` naming the line.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

from .. import _core
from .._files import open_regular
from .._text import brief
from .._version import __version__
from ..errors import ArgumentError, RecordError, SkitgubbeError
from .results import MatchGame


def state_header(kind: str, rules: Mapping[str, Any], **fields: Any) -> dict[str, Any]:
    """The header of a state file of ``kind`` ("sprt", "ladder")."""
    return {
        "format": f"skitgubbe-{kind}-state",
        "version": 1,
        "skitgubbe": __version__,
        "rng_version": _core.RNG_VERSION,
        "rules": dict(rules),
        **fields,
    }


SetCheck = Callable[[int, Sequence[MatchGame]], None]
"""Told each deal set read back (its key and games); raises a
:class:`~skitgubbe.RecordError` saying what is wrong with it (the journal adds the line)."""


class Journal:
    """A state file open for appending; :attr:`sets` holds the deal sets read back.

    ``check``, if given, is told every deal set read back and refuses one that is not
    what the run would have written; a deal set on two lines is refused either way:

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "state.jsonl")
    >>> header = state_header("sprt", {"players": 2}, specs=["a", "b"], seed=1, params={})
    >>> game = MatchGame(0, 0, ("a", "b"), 1, (0, 1), False, 30)
    >>> journal = Journal(path, header)
    >>> journal.append(0, [game])
    >>> journal.append(0, [game])
    >>> journal.close()
    >>> Journal(path, header)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    skitgubbe.errors.RecordError: .../state.jsonl, line 3: deal set 0 again (first on line 2)
    """

    def __init__(
        self,
        path: str,
        header: Mapping[str, Any],
        grows: Collection[str] = (),
        check: SetCheck | None = None,
    ) -> None:
        self.path = path
        self.grows = frozenset(grows)
        """Keys of the header's ``params`` that may differ from the file's."""
        self.check = check
        self.sets: dict[int, tuple[MatchGame, ...]] = {}
        self.lines: dict[int, int] = {}
        """The line of each deal set read back."""
        header = json.loads(json.dumps(header))  # as it reads back (tuples as lists)
        try:  # a regular file, checked before it is read: a FIFO is not waited on
            with open_regular(path, f"{header['format']} file", None) as file:
                data = file.read()
        except RecordError:
            raise
        except SkitgubbeError as exc:
            if not isinstance(exc.__cause__, FileNotFoundError):
                raise
            data = b""
        first = json.dumps(header).encode() + b"\n"
        # Empty, or this run's own header cut short by a kill (at least its format, so
        # that a few bytes of another file are not taken for one): written afresh.
        # Anything else is read, and refused unless its first line is this run's header.
        named = len(json.dumps({"format": header["format"]})) - 1
        own = not data or (len(data) >= named and first.startswith(data))
        keep = 0 if own else self._read(data, header)
        try:
            self.file = open(path, "ab")  # noqa: SIM115 - closed by close()
            if keep < len(data):  # a torn last line (or a torn header) is dropped
                self.file.truncate(keep)
            if keep == 0:
                self.file.write(first)
                self.file.flush()
        except OSError as exc:
            raise SkitgubbeError(f"cannot write {path}: {exc.strerror or exc}") from exc

    def _read(self, data: bytes, header: Mapping[str, Any]) -> int:
        """Read ``data`` into :attr:`sets`; the length of its whole, good lines."""
        lines = data.split(b"\n")
        end = 0
        for number, line in enumerate(lines, 1):
            last = number == len(lines)  # the text after the last newline: torn or empty
            try:
                record = json.loads(line)
            except (ValueError, RecursionError) as exc:
                if number == 1:  # not this command's file (its own torn header was taken)
                    self._check_header(line.decode("utf-8", "replace"), header)
                if last or (number == len(lines) - 1 and not lines[-1]):
                    break  # the last line is torn: drop it
                raise RecordError(f"{self.path}, line {number}: not JSON ({exc})") from None
            if number == 1:
                self._check_header(record, header)  # even without its newline
            if last:
                break  # complete JSON but no newline: the write may have been cut short
            if number > 1:
                self._add(record, number)
            end += len(line) + 1
        return end

    def _check_header(self, found: Any, header: Mapping[str, Any]) -> None:
        if not isinstance(found, dict) or found.get("format") != header["format"]:
            raise RecordError(
                f"{self.path} is not a {header['format']} file (its first line is "
                f"{brief(found)}); it is left as it is: give a new or empty file, or the "
                "state file of this run"
            )
        differ = [key for key in sorted({*found, *header}) if found.get(key) != header.get(key)]
        if differ == ["params"] and self.grows:
            mine, theirs = dict(header["params"]), found["params"]
            if (
                isinstance(theirs, dict)
                and {**theirs, **{key: mine.get(key) for key in self.grows}} == mine
            ):
                return
        if differ:
            detail = "; ".join(
                f"{key}: file has {brief(found.get(key))}, this run {brief(header.get(key))}"
                for key in differ
            )
            raise ArgumentError(
                f"{self.path} holds another run: {detail} (give the same arguments to "
                "resume it, or another state file)"
            )

    def _add(self, record: Any, number: int) -> None:
        if not isinstance(record, dict) or type(record.get("set")) is not int or record["set"] < 0:
            raise RecordError(f"{self.path}, line {number}: no deal set number ('set')")
        games = record.get("games")
        if not isinstance(games, list) or not games:
            raise RecordError(f"{self.path}, line {number}: 'games' must be a non-empty list")
        key = record["set"]
        if key in self.lines:
            raise RecordError(
                f"{self.path}, line {number}: deal set {key} again (first on line "
                f"{self.lines[key]})"
            )
        try:
            played = tuple(MatchGame.from_dict(game) for game in games)
            if self.check is not None:
                self.check(key, played)
        except RecordError as exc:
            raise RecordError(f"{self.path}, line {number}: {exc}") from None
        self.sets[key] = played
        self.lines[key] = number

    def append(self, key: int, games: Sequence[MatchGame]) -> None:
        """Record the finished deal set ``key`` (one line, flushed to the system)."""
        line = json.dumps({"set": key, "games": [game.to_dict() for game in games]})
        try:
            self.file.write(line.encode() + b"\n")
            self.file.flush()
            os.fsync(self.file.fileno())
        except OSError as exc:
            raise SkitgubbeError(f"cannot write {self.path}: {exc.strerror or exc}") from exc
        self.sets[key] = tuple(games)

    def close(self) -> None:
        self.file.close()
