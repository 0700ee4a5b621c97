"""``skitgubbe play`` and ``skitgubbe replay``: the commands that draw in the terminal.

``play`` puts you at the table against bots (:class:`~skitgubbe.apps.play.PlaySession`);
``replay`` steps through a saved game (:class:`~skitgubbe.apps.replay.Replay`), with
``--analyse`` a seat's moves reviewed beside it (:mod:`skitgubbe.analysis`). Both
draw with rich, which loads only when one of them runs.

>>> parser = argparse.ArgumentParser(prog="skitgubbe")
>>> commands = parser.add_subparsers(dest="command")
>>> add_play_command(commands)
>>> add_replay_command(commands)
>>> parser.parse_args(["replay", "game.json", "--seat", "1"]).seat
1
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Final, TextIO

from ...errors import ArgumentError
from .analyse import add_analysis_arguments, run_analysis
from .common import add_rules_arguments, rules_from_args
from .match import interruptible

if TYPE_CHECKING:
    from .common import Commands

__all__ = ["add_play_command", "add_replay_command"]


def _run_play(args: argparse.Namespace) -> int:
    """Play the game the ``play`` arguments describe, in this terminal."""
    from ..play import PlaySession  # rich is imported only by the commands that draw with it

    session = PlaySession.new(
        rules_from_args(args), bots=args.bots, seat=args.seat, seed=args.seed, casual=args.casual
    )
    return session.run()


def _run_replay(args: argparse.Namespace) -> int:
    """Replay the record in ``args.file``: step through it in a terminal, else print it;
    with ``--analyse`` the seat's moves are analysed first (Ctrl-C stops that cleanly)."""
    if not args.analyse and any(getattr(args, name) is not None for name in _ANALYSIS_OPTIONS):
        raise ArgumentError("--engine, --seed, --jobs and --progress go with --analyse")
    return interruptible(_replay, args)


_ANALYSIS_OPTIONS: Final = ("engine", "seed", "jobs", "progress")


def _replay(args: argparse.Namespace, out: TextIO) -> int:
    from rich.console import Console

    from ..replay import Replay

    replay = Replay.load(args.file, seat=args.seat)
    if args.analyse:
        seat = 0 if args.seat is None else args.seat
        replay.annotate(run_analysis(replay.game, seat, args))
    console = Console(file=out, highlight=False)
    if args.all or not sys.stdin.isatty():
        replay.print_all(console)
        return 0
    return replay.step(console)


def add_play_command(commands: Commands) -> None:
    """Add ``skitgubbe play`` to the command line's ``commands``.

    >>> parser = argparse.ArgumentParser(prog="skitgubbe")
    >>> add_play_command(parser.add_subparsers(dest="command"))
    >>> parser.parse_args(["play", "--bots", "pimc", "--casual"]).bots
    ['pimc']
    """
    command = commands.add_parser(
        "play",
        help="play a game against bots in the terminal",
        description="You against bots: answer with a move number or move text (7h, 7h 8h 9h, "
        "pick, flip, slough 7h, pass); commands: hint, undo (--casual), save [FILE], quit, help.",
    )
    command.add_argument(
        "--players", type=int, choices=(2, 3, 4), help="number of players (default 3)"
    )
    command.add_argument(
        "--bots",
        nargs="+",
        metavar="SPEC",
        default=["greedy"],
        help="bot specs for the other seats: one for all, or one per seat in seat order "
        "(default greedy; a strength level: easy, medium, hard, expert; or any bot: "
        "random, net, pimc, 'ismcts:iterations=5000', or an engine in a process of its own: "
        "'cmd:./mybot')",
    )
    command.add_argument("--seat", type=int, default=0, help="your seat (default 0, leads first)")
    add_rules_arguments(command)
    command.add_argument("--seed", type=int, help="deal and bots seed (default: a random one)")
    command.add_argument(
        "--casual", action="store_true", help="a casual game: undo takes moves back"
    )
    command.set_defaults(handler=_run_play)


def add_replay_command(commands: Commands) -> None:
    """Add ``skitgubbe replay`` to the command line's ``commands``.

    >>> parser = argparse.ArgumentParser(prog="skitgubbe")
    >>> add_replay_command(parser.add_subparsers(dest="command"))
    >>> parser.parse_args(["replay", "game.json", "--all"]).all
    True
    """
    command = commands.add_parser(
        "replay",
        help="step through a saved game, from one seat's view or every card face up",
        description="Replay a game record (from `skitgubbe play`'s save, or Game.record()). "
        "In a terminal: Enter shows the next move, b the one before, a number jumps to that "
        "move, q quits. Without a terminal, or with --all, the whole game is printed. With "
        "--analyse (and --engine, --seed, --jobs), the seat's moves are analysed first.",
    )
    command.add_argument("file", metavar="FILE", help="a JSON game record")
    command.add_argument(
        "--seat", type=int, help="show only what this seat saw (default: every card)"
    )
    command.add_argument(
        "--all", action="store_true", help="print the whole game at once (no stepping)"
    )
    command.add_argument(
        "--analyse",
        action="store_true",
        help="review the moves of --seat (default seat 0) as `skitgubbe analyse` does, and "
        "show each one's verdict and the engine's candidates under it",
    )
    add_analysis_arguments(command)
    command.set_defaults(handler=_run_replay)
