"""Reading the JSON files the library writes (private): game, session and match records.

One place decides what a missing, unreadable or malformed file gets: a
:class:`~skitgubbe.errors.SkitgubbeError` naming the file for one that cannot be
read, a :class:`~skitgubbe.errors.RecordError` for one that is not a JSON object
(nesting too deep for the JSON reader included).

>>> load_json_object("no-such-file.json", "game record")  # doctest: +ELLIPSIS
Traceback (most recent call last):
    ...
skitgubbe.errors.SkitgubbeError: cannot read no-such-file.json: No such file or directory
"""

from __future__ import annotations

import json
import os
from typing import Any

from .errors import RecordError, SkitgubbeError

__all__ = ["load_json_object"]


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
