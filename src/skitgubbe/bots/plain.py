"""Plain bot specs: the specs a program may take from someone it does not trust.

A plain spec names a built-in bot or strength level (:data:`PLAIN_OPTIONS`), with
options that are numbers, booleans or one of a few built-in words, and nothing else:
never a module, a function, a file, a C source, a weight file or a program. Making the
bot of a plain spec reads no file, imports nothing and compiles nothing (the shipped
network, which ``net=true`` and the levels use, comes with the package). A server checks
every spec a client sends with :func:`check_plain_spec` before anything is built from it;
the bots that need more (a weight file of your own, a C policy, a program) are the
operator's to name (``skitgubbe serve --bot NAME=SPEC``, ``--engine NAME=SPEC``).

>>> from skitgubbe.bots.plain import check_plain_spec
>>> check_plain_spec("ismcts:iterations=500,net=true")
('ismcts', {'iterations': 500, 'net': True})
>>> check_plain_spec("ismcts:net=/etc/passwd")  # doctest: +ELLIPSIS
Traceback (most recent call last):
    ...
skitgubbe.errors.ArgumentError: bot spec 'ismcts:net=/etc/passwd': option net must be true or ...
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, Literal, TypeAlias

from .._text import brief
from ..errors import ArgumentError, ArgumentTypeError
from .registry import parse_spec

__all__ = ["PLAIN_OPTIONS", "Kind", "check_plain_spec", "is_plain_spec"]

Kind: TypeAlias = "Literal['int', 'number', 'bool'] | tuple[str, ...]"
"""What a plain option holds: an ``int``, a ``number`` (an int or a float), a ``bool``,
or one of the words of a tuple."""

_ROLLOUTS: Final = ("random", "greedy", "mixed", "net")
"""The built-in rollout policies (:data:`skitgubbe.bots.policy.BUILTIN`) and the network's."""

PLAIN_OPTIONS: Final[Mapping[str, Mapping[str, Kind]]] = {
    "random": {},
    "greedy": {},
    "easy": {},
    "medium": {},
    "hard": {},
    "expert": {},
    "net": {"temperature": "number"},
    "pimc": {
        "worlds": "int",
        "rollouts": "int",
        "rollout": _ROLLOUTS,
        "rollout_cap": "int",
        "net": "bool",
        "sampling": ("exact", "uniform"),
    },
    "ismcts": {
        "iterations": "int",
        "time": "number",
        "exploration": "number",
        "rollout": _ROLLOUTS,
        "rollout_cap": "int",
        "net": "bool",
        "leaf": ("net", "rollout"),
        "prior": "bool",
        "threads": "int",
        "solver": "int",
        "playout": ("plain", "mast", "nast"),
        "random_fraction": "number",
        "playout_temperature": "number",
        "blend": "number",
        "sampling": ("exact", "uniform"),
        "merge": "bool",
    },
}
"""The bots a plain spec may name, and each one's plain options with what they hold.
The options left out name code or files: ``evaluation`` (a Python function or a C
source), ``rollout`` other than a built-in word, ``net`` as a weight file's path, and
``net``'s ``weights``. The bounds of the values are the bots' own (checked when the
bot is made).

>>> sorted(PLAIN_OPTIONS["pimc"])
['net', 'rollout', 'rollout_cap', 'rollouts', 'sampling', 'worlds']
"""

_WHY: Final = (
    "a plain spec holds numbers, true/false and built-in words only: no module, file, "
    "C source or weights"
)


def _check(spec: str, key: str, value: object, kind: Kind) -> None:
    """Refuse ``value`` of option ``key`` if it does not hold what ``kind`` says."""
    if kind == "bool":
        fits, wanted = type(value) is bool, "true or false"
    elif kind == "int":
        fits, wanted = type(value) is int, "a whole number"
    elif kind == "number":
        fits, wanted = type(value) in (int, float), "a number"
    else:
        fits, wanted = isinstance(value, str) and value in kind, "one of " + ", ".join(kind)
    if not fits:
        raise ArgumentError(
            f"bot spec {brief(spec)}: option {key} must be {wanted} here, not "
            f"{brief(value)} ({_WHY})"
        )


def check_plain_spec(spec: object) -> tuple[str, dict[str, Any]]:
    """The name and options of ``spec`` if it is plain (see the module), else
    :class:`~skitgubbe.errors.ArgumentError` naming what is not.

    Nothing is built, read or imported here: the bounds of the values are checked when
    the bot is made (:func:`skitgubbe.bots.make`).

    >>> from skitgubbe.bots.plain import check_plain_spec
    >>> check_plain_spec("expert")
    ('expert', {})
    >>> check_plain_spec("cmd:./mybot")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    skitgubbe.errors.ArgumentError: bot spec 'cmd:./mybot': 'cmd' is not a built-in bot ...
    >>> check_plain_spec("pimc:evaluation=os:getpid")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    skitgubbe.errors.ArgumentError: bot spec 'pimc:evaluation=os:getpid': pimc takes no ...
    """
    if not isinstance(spec, str):
        raise ArgumentTypeError(f"a bot spec is a string such as 'greedy', not {brief(spec)}")
    name, options = parse_spec(spec)
    allowed = PLAIN_OPTIONS.get(name)
    if allowed is None:
        raise ArgumentError(
            f"bot spec {brief(spec)}: {brief(name)} is not a built-in bot or level; "
            f"plain specs name one of {', '.join(PLAIN_OPTIONS)}"
        )
    for key, value in options.items():
        kind = allowed.get(key)
        if kind is None:
            takes = ", ".join(allowed) or "none"
            raise ArgumentError(
                f"bot spec {brief(spec)}: {name} takes no option {brief(key)[1:-1]} here "
                f"(its plain options: {takes}; {_WHY})"
            )
        _check(spec, key, value, kind)
    return name, options


def is_plain_spec(spec: object) -> bool:
    """Whether ``spec`` is a plain spec (:func:`check_plain_spec` accepts it).

    >>> from skitgubbe.bots.plain import is_plain_spec
    >>> is_plain_spec("pimc:worlds=8"), is_plain_spec("ismcts:rollout=policy.c")
    (True, False)
    """
    try:
        check_plain_spec(spec)
    except (ArgumentError, ArgumentTypeError):
        return False
    return True
