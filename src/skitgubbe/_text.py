"""Text helpers for parsers and error messages (private).

Parsers fold case with :func:`ascii_upper` and :func:`ascii_lower`, which change
the ASCII letters only: ``str.upper`` would turn ``"ſ"`` (long s) into ``"S"``
and ``str.lower`` the Kelvin sign into ``"k"``, so text that is not one of the
documented spellings would parse.

Error messages show untrusted values with :func:`brief`, which cannot fail: a
deeply nested list, a huge int or an object whose ``repr`` raises becomes a
short, bounded text instead of a ``RecursionError`` or ``ValueError``.

>>> ascii_upper("7ſ"), ascii_lower("PIC\\u212a") == "pic\\u212a"
('7ſ', True)
>>> nested: list[object] = []
>>> for _ in range(100_000):
...     nested = [nested]
>>> brief(nested)
'[[[[[[...]]]]]]'
>>> brief(10**5000)
'<int of 16610 bits>'
"""

from __future__ import annotations

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


_BRIEF: Final = _Brief()
_BRIEF.maxlevel = 6
_BRIEF.maxstring = 60
_BRIEF.maxother = 60
_BRIEF.maxlist = _BRIEF.maxtuple = _BRIEF.maxdict = _BRIEF.maxset = 8


def brief(value: object) -> str:
    """A short ``repr`` of ``value`` for an error message; never raises.

    >>> brief("7H"), brief([1, [2, [3]]]), brief("x" * 100)[:8]
    ("'7H'", '[1, [2, [3]]]', "'xxxxxxx")
    """
    try:
        return _BRIEF.repr(value)
    except Exception:
        return f"<{type(value).__name__} object>"
