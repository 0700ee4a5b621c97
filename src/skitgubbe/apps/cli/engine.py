"""``skitgubbe engine SPEC``: run a bot as an engine, over the engine protocol on stdin and stdout.

A referee (the arena with ``cmd:skitgubbe engine greedy``, or any program that
speaks ``docs/protocol.md``) starts the command and talks to it in JSON lines;
nothing else is written to stdout. The serving itself is
:func:`skitgubbe.bots.run_engine_spec`, loaded only when the command runs.

>>> parser = argparse.ArgumentParser(prog="skitgubbe")
>>> add_engine_command(parser.add_subparsers(dest="command"))
>>> parser.parse_args(["engine", "pimc:worlds=32"]).spec
'pimc:worlds=32'
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .common import Commands

__all__ = ["add_engine_command"]


def add_engine_command(commands: Commands) -> None:
    """Add ``skitgubbe engine`` to the command line's ``commands``.

    >>> parser = argparse.ArgumentParser(prog="skitgubbe")
    >>> add_engine_command(parser.add_subparsers(dest="command"))
    >>> parser.parse_args(["engine", "mybots.py:Cautious"]).spec
    'mybots.py:Cautious'
    """
    command = commands.add_parser(
        "engine",
        help="run a bot as an engine: the engine protocol on stdin and stdout (docs/protocol.md)",
        description="Play as an engine: a referee (the arena with 'cmd:skitgubbe engine "
        "greedy', or any program speaking the protocol) starts this command and talks to it "
        "in JSON lines on stdin and stdout. Nothing else is written to stdout.",
    )
    command.add_argument(
        "spec",
        metavar="SPEC",
        help="a built-in bot spec (greedy, 'pimc:worlds=32') or your own class or factory: "
        "module:Name or path/to/file.py:Name",
    )
    command.set_defaults(handler=_run_engine)


def _run_engine(args: argparse.Namespace) -> int:
    from ...bots.hosting import run_engine_spec

    return run_engine_spec(args.spec)
