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

import math

from ._text import brief
from .errors import ArgumentError, ArgumentTypeError

__all__ = ["check_move_time"]


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
