"""The server's one error: :class:`TableError`, a request a table or the lobby refuses.

Every part of the server raises it (the configuration's checks, the tables, the lobby) and the
application (:mod:`skitgubbe.server.app`) answers it with its HTTP status and a JSON error.
"""

from __future__ import annotations

from typing import Final

from .._text import brief
from ..errors import SkitgubbeError

__all__ = ["MovingError", "TableError", "shorten"]


class TableError(SkitgubbeError):
    """A request the table refuses: a bad seat, token, move or configuration.

    ``status`` is the HTTP status that fits (400, 403, 404, 409, 410 for a table the
    server closed, 429 or 503 for work it will not take on now); ``retry_after``, when
    set, is how many seconds the client should wait before it asks again.

    >>> from skitgubbe.server import Lobby, SQLiteStore, TableError
    >>> try:
    ...     Lobby(SQLiteStore(":memory:")).get("nope")
    ... except TableError as error:
    ...     print(error.status, error)
    404 no table 'nope'
    """

    def __init__(self, message: str, status: int = 400, retry_after: int | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.retry_after = retry_after

    @property
    def code(self) -> str:
        """A stable name of the kind of error, for programs: ``bad_request`` (400),
        ``forbidden`` (403), ``not_found`` (404), ``conflict`` (409), ``gone`` (410),
        ``too_many_requests`` (429) or ``busy`` (503).

        >>> from skitgubbe.server import TableError
        >>> TableError("it is not your turn", 409).code
        'conflict'
        """
        return _CODES.get(self.status, "bad_request")


class MovingError(TableError):
    """A table moving from one process of many to another (:mod:`skitgubbe.server.cluster`):
    ``503`` with the code ``moving``; the client asks again a second later.

    >>> error = MovingError("table n1-00 is moving between servers: try again")
    >>> error.status, error.code, error.retry_after
    (503, 'moving', 1)
    """

    def __init__(self, message: str) -> None:
        super().__init__(message, 503, retry_after=1)

    @property
    def code(self) -> str:
        """``moving``."""
        return "moving"


_CODES: Final = {
    400: "bad_request",
    403: "forbidden",
    404: "not_found",
    409: "conflict",
    410: "gone",
    429: "too_many_requests",
    503: "busy",
}


def shorten(value: object) -> str:
    """A value named in an error, cut short (it may be a long string from a request):
    :func:`skitgubbe._text.brief`, which never fails and gives a cut value's length.

    >>> shorten(3), shorten("x" * 100)
    ('3', "'xxxxxxxxxxxxxxxxxxxxxxxxxxx...xxxxxxxxxxxxxxxxxxxxxxxxxxxx' (100 characters)")
    """
    return brief(value)
