"""The ``skitgubbe`` command line (also ``python -m skitgubbe``).

``skitgubbe demo`` prints one seeded game between random bots in a form a
person can follow; ``skitgubbe simulate`` plays many random games in the C core
and prints the totals.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Sequence
from typing import TextIO

from .bots import RandomBot
from .errors import SkitgubbeError
from .events import Event, EventKind
from .game import Game
from .rules import Rules
from .simulate import simulate

__all__ = ["main"]


def _narrate(events: Sequence[Event], full: bool, game: Game) -> list[str]:
    """Lines for a move's events as a spectator sees them (``full``: as the referee).

    Lines starting with a newline are headings.
    """
    lines = []
    for event in events:
        if event.kind is EventKind.DEAL:
            continue
        if event.kind is EventKind.SHEDDING:
            held = ", ".join(
                f"seat {seat}: {len(hand)}" for seat, hand in enumerate(game.hands) if hand
            )
            lines.append(
                f"\nPhase 2: getting rid of the cards. Cards held: {held}. Seat {event.seat} leads."
            )
            continue
        lines.append(str(event if full else event.redacted()))
    return lines


def demo(players: int, seed: int, full: bool, out: TextIO) -> int:
    """Print one game between RandomBots; returns the exit status."""
    rules = Rules.classic(players=players)
    game = Game.new(rules, seed=seed)
    bots = [RandomBot(seed=seed * 31 + seat) for seat in range(players)]
    write = out.write
    write(
        f"Skitgubbe, classic rules, {players} players, seed {seed}. "
        f"Seat {game.dealer} deals; random bots play every seat.\n"
    )
    write(f"Each seat is dealt {rules.hand_size} cards; {len(game.stock)} cards form the stock.\n")
    if full:
        for seat, hand in enumerate(game.hands):
            write(f"  seat {seat} holds {hand}\n")
    write("\nPhase 1: collecting cards in two-card tricks.\n")
    number = 0
    while (to_move := game.to_move) is not None:
        move = bots[to_move].choose(game.observation(to_move))
        number += 1
        lines = _narrate(game.play(move), full, game)
        write(f"{number:4}. {lines[0]}\n")
        for line in lines[1:]:
            write(f"{line}\n" if line.startswith("\n") else f"      {line}\n")
    result = game.result
    assert result is not None
    if result.truncated:
        write(f"\nThe move cap ended the game after {result.moves} moves: no loser.\n")
    elif result.loser is None:
        write(f"\nNobody is left holding cards after {result.moves} moves: no loser.\n")
    else:
        order = ", ".join(f"seat {s}" for s in result.finish_order[:-1])
        write(
            f"\nSeat {result.loser} is the skitgubbe after {result.moves} moves. "
            f"Out before: {order}.\n"
        )
    return 0


def run_simulation(players: int, games: int, seed: int, out: TextIO) -> int:
    """Play ``games`` random games in C and print the totals."""
    rules = Rules.classic(players=players)
    start = time.perf_counter()
    result = simulate(rules, games, seed=seed)
    seconds = time.perf_counter() - start
    out.write(
        f"{result.games} random games, classic rules, {players} players, seed {seed}: "
        f"{result.moves_per_game:.1f} moves per game, "
        f"{result.games / seconds if seconds else 0:,.0f} games/s\n"
    )
    for seat, (losses, rate) in enumerate(zip(result.losses, result.loss_rates, strict=True)):
        out.write(f"  seat {seat}: skitgubbe {losses} times ({rate:.1%})\n")
    if result.truncated or result.no_loser:
        out.write(f"  truncated: {result.truncated}, no loser: {result.no_loser}\n")
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="skitgubbe", description="The Swedish card game Skitgubbe: engine and bots."
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    demo_cmd = commands.add_parser("demo", help="watch one game between random bots")
    demo_cmd.add_argument("--players", type=int, choices=(2, 3, 4), default=3)
    demo_cmd.add_argument("--seed", type=int, default=1, help="deal and bots seed (default 1)")
    demo_cmd.add_argument(
        "--full", action="store_true", help="show every card, as the referee sees it"
    )
    sim_cmd = commands.add_parser("simulate", help="play many random games in the C core")
    sim_cmd.add_argument("--players", type=int, choices=(2, 3, 4), default=3)
    sim_cmd.add_argument("--games", type=int, default=100_000)
    sim_cmd.add_argument("--seed", type=int, default=0)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``skitgubbe`` command; returns the exit status.

    >>> main(["simulate", "--players", "2", "--games", "10", "--seed", "1"])  # doctest: +ELLIPSIS
    10 random games, classic rules, 2 players, seed 1: ... moves per game, ... games/s
      seat 0: skitgubbe ... times (...%)
      seat 1: skitgubbe ... times (...%)
    0
    """
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        return _run(parser, args)
    except BrokenPipeError:  # e.g. `skitgubbe demo | head`: stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def _run(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    try:
        if args.command == "demo":
            return demo(args.players, args.seed, args.full, sys.stdout)
        if args.command == "simulate":
            return run_simulation(args.players, args.games, args.seed, sys.stdout)
    except SkitgubbeError as exc:
        parser.exit(2, f"skitgubbe: error: {exc}\n")
    parser.print_help()
    return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
