"""Text helpers for parsers and error messages (private).

Parsers fold case with :func:`ascii_upper` and :func:`ascii_lower`, which change
the ASCII letters only: ``str.upper`` would turn ``"ſ"`` (long s) into ``"S"``
and ``str.lower`` the Kelvin sign into ``"k"``, so text that is not one of the
documented spellings would parse.

Error messages show untrusted values with :func:`brief`, which cannot fail: a
deeply nested list, a huge int or an object whose ``repr`` raises becomes a
short, bounded text instead of a ``RecursionError`` or ``ValueError``, and a
long text or list (a 1,000-character move, a 520,000-card deck) is cut to about
60 characters with its length, so that the message stays one short line.

>>> ascii_upper("7ſ"), ascii_lower("PIC\\u212a") == "pic\\u212a"
('7ſ', True)
>>> nested: list[object] = []
>>> for _ in range(100_000):
...     nested = [nested]
>>> brief(nested)
'[[[[[[...]]]]]]'
>>> brief(10**5000)
'<int of 16610 bits>'
>>> brief("7H" * 500)
"'7H7H7H7H7H7H7H7H7H7H7H7H7H7...7H7H7H7H7H7H7H7H7H7H7H7H7H7H' (1000 characters)"
"""

from __future__ import annotations

import functools
import reprlib
from typing import Final

__all__ = ["ascii_lower", "ascii_upper", "brief"]

_UPPER: Final = str.maketrans(
    "abcdefghijklmnopqrstuvwxyz",
    "ABCDEFGHIJKLMNOPQRSTUVWXYZ",
)
_LOWER: Final = str.maketrans(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZ",
    "abcdefghijklmnopqrstuvwxyz",
)


def ascii_upper(text: str) -> str:
    """``text`` with its ASCII letters (only) in upper case.

    >>> ascii_upper("qh \u0131 \u017f")
    'QH \u0131 \u017f'
    """
    return text.translate(_UPPER)


def ascii_lower(text: str) -> str:
    """``text`` with its ASCII letters (only) in lower case.

    >>> ascii_lower("Pick \u212a")
    'pick \u212a'
    """
    return text.translate(_LOWER)


class _Brief(reprlib.Repr):
    def repr_int(self, x: int, level: int) -> str:
        if x.bit_length() > 256:
            return f"<int of {x.bit_length()} bits>"
        return super().repr_int(x, level)

    def repr_instance(self, x: object, level: int) -> str:
        try:
            return super().repr_instance(x, level)
        except Exception:
            return f"<{type(x).__name__} object>"


_UNITS: Final[dict[type, str]] = {
    str: "characters",
    list: "items",
    tuple: "items",
    dict: "items",
    set: "items",
    frozenset: "items",
}
"""The built-in types whose length :func:`brief` adds to a value it cut (their ``len``
cannot fail), and what it counts."""


@functools.lru_cache(maxsize=8)
def _brief_repr(limit: int) -> _Brief:
    """The ``repr`` that shows a text of at most about ``limit`` characters, 8 items of a
    list and 6 levels of nesting."""
    shown = _Brief()
    shown.maxlevel = 6
    shown.maxstring = shown.maxother = limit
    shown.maxlist = shown.maxtuple = shown.maxdict = shown.maxset = 8
    return shown


def brief(value: object, limit: int = 60) -> str:
    """A short ``repr`` of ``value`` for an error message; never raises.

    A text longer than ``limit`` characters shows its start and end, and a list
    its first 8 items; the whole ``repr`` is at most ``limit + 40`` characters. A
    string or built-in container that was cut is followed by its length, so the
    message still says how long the value was:

    >>> brief("7H"), brief([1, [2, [3]]]), brief("x" * 100)[:8]
    ("'7H'", '[1, [2, [3]]]', "'xxxxxxx")
    >>> brief("x" * 100, limit=10)
    "'xx...xxx' (100 characters)"
    >>> brief(["7H"] * 520_000)
    "['7H', '7H', '7H', '7H', '7H', '7H', '7H', '7H', ...] (520000 items)"
    >>> len(brief(["x" * 100] * 8)) <= 100 + len(" (8 items)")
    True
    """
    shown = _brief_repr(limit)
    try:
        text = shown.repr(value)
    except Exception:
        return f"<{type(value).__name__} object>"
    longest = limit + 40
    cut = len(text) > longest
    if cut:
        text = text[: longest - 1] + "…"
    unit = _UNITS.get(type(value))
    if unit is not None:
        size = len(value)  # type: ignore[arg-type]  # an exact built-in type: cannot fail
        if unit == "characters":
            cut = cut or size > limit or len(repr(value)) > limit  # as reprlib cuts a str
        else:
            cut = cut or size > shown.maxlist
        if cut:
            text += f" ({size} {unit if size != 1 else unit[:-1]})"
    return text
