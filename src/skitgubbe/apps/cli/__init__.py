"""The ``skitgubbe`` command line (also ``python -m skitgubbe``).

``skitgubbe demo`` prints one seeded game between random bots in a form a
person can follow; ``skitgubbe simulate`` plays many random games in the C core
and prints the totals; ``skitgubbe session`` plays a session (docs/rules.md §7)
between random bots, and saves and resumes it; ``skitgubbe arena`` plays a
match between bots over duplicate deals and prints each bot's figures;
``skitgubbe play`` is a game against bots in the terminal and ``skitgubbe
replay`` steps through a saved game; ``skitgubbe analyse`` reviews a seat's
moves in a saved game; ``skitgubbe engine SPEC`` serves a bot
over the engine protocol (``docs/protocol.md``) on stdin and stdout;
``skitgubbe train`` trains the network by self-play.

This module assembles the parser and runs the command; each command lives in a
module of its own, which adds its options and holds what it does:
``demo`` (demo, simulate), ``session``, ``match`` (arena, sprt, ladder),
``terminal`` (play, replay), ``analyse``, ``engine``, ``serve`` and ``train``; ``common`` holds the
options and checks several of them share.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from ..._version import __version__
from ...errors import SkitgubbeError
from . import analyse, demo, engine, match, serve, session, terminal, train

__all__ = ["build_parser", "main"]


def build_parser() -> argparse.ArgumentParser:
    """The parser of the ``skitgubbe`` command: every command with its options.

    The commands are listed in ``skitgubbe --help`` in the order added here; each
    sets ``handler``, the function that runs it.

    >>> args = build_parser().parse_args(["demo", "--seed", "3"])
    >>> args.command, args.seed
    ('demo', 3)
    """
    parser = argparse.ArgumentParser(
        prog="skitgubbe", description="The Swedish card game Skitgubbe: engine and bots."
    )
    parser.add_argument("--version", action="version", version=f"skitgubbe {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    for add_command in (
        demo.add_demo_command,
        demo.add_simulate_command,
        session.add_session_command,
        match.add_arena_command,
        match.add_sprt_command,
        match.add_ladder_command,
        terminal.add_play_command,
        engine.add_engine_command,
        terminal.add_replay_command,
        analyse.add_analyse_command,
        serve.add_serve_command,
        train.add_train_command,
    ):
        add_command(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``skitgubbe`` command; returns the exit status.

    >>> main(["simulate", "--players", "2", "--games", "10", "--seed", "1"])  # doctest: +ELLIPSIS
    10 random games, classic, 2 players, seed 1: ... moves per game, ... games/s
      seat 0: skitgubbe ... times (...%)
      seat 1: skitgubbe ... times (...%)
    0
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return _run(parser, args)
    except BrokenPipeError:  # e.g. `skitgubbe demo | head`: stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def _run(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    """Run the command ``args`` name; a :class:`SkitgubbeError` is a one-line error
    and the status 2, as argparse gives a bad option. No command: the help, status 2."""
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return 2
    try:
        status: int = handler(args)
    except SkitgubbeError as exc:
        parser.exit(2, f"skitgubbe: error: {exc}\n")
    return status
