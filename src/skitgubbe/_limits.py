"""The move time limit's one validator (private module; the names are public).

Everywhere a player's time per move is set — ``play_game``, ``play_game_async``,
sessions, matches, engines, tables and ``--move-time`` on the command line — the
value is called ``move_time`` and is checked here: a positive, finite number of
seconds, or ``None`` for no limit. Infinity is refused, not read as "no limit":
``None`` says that, and one spelling per meaning keeps records comparable.

>>> check_move_time(0.5)
0.5
>>> check_move_time(float("inf"))  # doctest: +ELLIPSIS
Traceback (most recent call last):
    ...
skitgubbe.errors.ArgumentError: move_time must be a positive, finite number ... not inf
"""

from __future__ import annotations

import enum
import math
import warnings
from typing import Final

from ._text import brief
from .errors import ArgumentError, ArgumentTypeError

__all__ = ["NOT_GIVEN", "NotGiven", "check_move_time", "move_time_or_timeout"]


class NotGiven(enum.Enum):
    """The type of :data:`NOT_GIVEN`: the default of a deprecated keyword, so that a
    call can tell it was not passed (``None`` means "no limit").

    >>> NOT_GIVEN is NotGiven.NOT_GIVEN
    True
    """

    NOT_GIVEN = "NOT_GIVEN"

    def __repr__(self) -> str:
        return "NOT_GIVEN"


NOT_GIVEN: Final = NotGiven.NOT_GIVEN
"""The default of the deprecated ``timeout=`` keyword: not passed."""


def check_move_time(value: object, name: str = "move_time") -> float | None:
    """``value`` if it is a move time limit: positive, finite seconds, or ``None``.

    The number is returned as given (an int stays an int, so messages show
    ``30 s``). A value of the wrong type is an
    :class:`~skitgubbe.errors.ArgumentTypeError`, a number out of range an
    :class:`~skitgubbe.errors.ArgumentError`; both name ``name`` (``"--move-time"``
    on the command line, ``"Limits.move_time"``, …).

    >>> check_move_time(None) is None
    True
    >>> check_move_time(30)
    30
    >>> check_move_time(0, "--move-time")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    skitgubbe.errors.ArgumentError: --move-time must be a positive, finite number ... not 0
    >>> check_move_time("1")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    skitgubbe.errors.ArgumentTypeError: move_time must be a positive, finite number ... not '1'
    """
    if value is None:
        return None
    # brief: the value may come from a record (any JSON, nested too deeply for repr)
    message = f"{name} must be a positive, finite number of seconds or None, not {brief(value)}"
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ArgumentTypeError(message)
    if not (value > 0 and math.isfinite(value)):
        raise ArgumentError(message)
    return value


def move_time_or_timeout(move_time: object, timeout: object) -> tuple[object, str]:
    """The move time a call was given, and the keyword it came by: ``move_time=``, or
    the deprecated ``timeout=`` (kept for one release), which warns
    (:class:`DeprecationWarning`, pointing at the caller's caller). Both given is an
    :class:`~skitgubbe.errors.ArgumentError`. The value is not checked here: the
    caller checks it with :func:`check_move_time` under the name returned.

    >>> move_time_or_timeout(5, NOT_GIVEN)
    (5, 'move_time')
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     move_time_or_timeout(None, 5)
    (5, 'timeout')
    >>> print(caught[0].message)
    timeout= is deprecated: use move_time= (the same seconds)
    >>> move_time_or_timeout(5, 5)
    Traceback (most recent call last):
        ...
    skitgubbe.errors.ArgumentError: give move_time= or timeout= (deprecated), not both
    """
    if timeout is NOT_GIVEN:
        return move_time, "move_time"
    if move_time is not None:
        raise ArgumentError("give move_time= or timeout= (deprecated), not both")
    warnings.warn(
        "timeout= is deprecated: use move_time= (the same seconds)",
        DeprecationWarning,
        stacklevel=3,
    )
    return timeout, "timeout"
