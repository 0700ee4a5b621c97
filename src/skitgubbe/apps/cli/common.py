"""The options and checks several commands share: the rules options and the move time.

Every command that deals cards takes ``--rules PRESET`` and ``--set FIELD=VALUE``
(:func:`add_rules_arguments`) and turns them, with ``--players``, into
:class:`~skitgubbe.game.rules.Rules` (:func:`rules_from_args`). The commands that time
their bots check ``--move-time`` with :func:`check_move_time_option`, which is
:func:`skitgubbe._limits.check_move_time`, the move time's one validator.

>>> import argparse
>>> parser = argparse.ArgumentParser(prog="example")
>>> parser.add_argument("--players", type=int)  # doctest: +ELLIPSIS
_StoreAction(...)
>>> add_rules_arguments(parser)
>>> rules_from_args(parser.parse_args(["--players", "2", "--set", "runs=true"])).describe()
'classic, 2 players, runs=True'
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from ..._limits import check_move_time
from ...errors import ArgumentError, RulesError
from ...game.rules import Rules

if TYPE_CHECKING:
    from typing import TypeAlias

    Commands: TypeAlias = argparse._SubParsersAction[argparse.ArgumentParser]
    """The ``COMMAND`` choice of the ``skitgubbe`` parser, which each command joins."""

__all__ = ["add_rules_arguments", "check_move_time_option", "rules_from_args"]


def add_rules_arguments(command: argparse.ArgumentParser) -> None:
    """Give ``command`` the options ``--rules PRESET`` and ``--set FIELD=VALUE`` (repeatable).

    >>> parser = argparse.ArgumentParser(prog="example")
    >>> add_rules_arguments(parser)
    >>> parser.parse_args(["--rules", "modern", "--set", "runs=true"])
    Namespace(rules='modern', set=['runs=true'])
    """
    command.add_argument("--rules", choices=Rules.presets(), default="classic", help="rules preset")
    fields = ", ".join(f"{field.name} ({field.allowed()})" for field in Rules.fields())
    command.add_argument(
        "--set",
        action="append",
        metavar="FIELD=VALUE",
        help="override one field of the rules, e.g. --set runs=true --set pickup=pile; "
        f"fields: {fields}",
    )


def rules_from_args(args: argparse.Namespace) -> Rules:
    """The rules from ``--rules PRESET``, ``--players`` and every ``--set FIELD=VALUE``.

    The fields, and the text each takes, come from the one table of rule fields.

    >>> args = argparse.Namespace(rules="classic", players=None, set=["pickup=pile"])
    >>> rules_from_args(args).describe()
    'classic, 3 players, pickup=pile'
    >>> rules_from_args(argparse.Namespace(rules="classic", players=4, set=["runs"]))
    Traceback (most recent call last):
    ...
    skitgubbe.errors.ArgumentError: --set takes FIELD=VALUE, not 'runs'
    """
    overrides: dict[str, Any] = {}
    players: Any = 3 if args.players is None else args.players
    try:
        for item in args.set or ():
            name, sep, text = item.partition("=")
            if not sep:
                raise ArgumentError(f"--set takes FIELD=VALUE, not {item!r}")
            overrides[name.strip().replace("-", "_")] = Rules.field(
                name.strip().replace("-", "_")
            ).parse(text)
        players = overrides.pop("players", players)
        return Rules.preset(args.rules, players, **overrides)
    except RulesError as exc:
        raise ArgumentError(f"bad rules: {exc}") from exc


def check_move_time_option(seconds: float | None) -> None:
    """Refuse a ``--move-time`` that is not a positive, finite number of seconds
    (:func:`~skitgubbe._limits.check_move_time`, named ``--move-time``).

    ``None`` (the option not given: no limit) passes.

    >>> check_move_time_option(0.5)
    >>> check_move_time_option(None)
    >>> check_move_time_option(0.0)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    skitgubbe.errors.ArgumentError: --move-time must be a positive, finite number ... not 0.0
    """
    check_move_time(seconds, "--move-time")
