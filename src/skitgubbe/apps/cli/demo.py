"""``skitgubbe demo`` and ``skitgubbe simulate``: random bots playing, watched or counted.

``demo`` prints one seeded game between random bots in a form a person can
follow (:func:`demo`); ``simulate`` plays many random games in the C core and
prints the totals (:func:`run_simulation`).

>>> import io
>>> out = io.StringIO()
>>> demo(Rules.classic(players=2), seed=5, full=False, out=out)
0
>>> out.getvalue().splitlines()[0]
'Skitgubbe, classic, 2 players, seed 5. Seat 1 deals; random bots play every seat.'
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, TextIO

from ...bots import RandomBot
from ...game.events import Event, EventKind
from ...game.rules import Rules, TrickMode, TrumpRule
from ...game.state import Game
from ...play.simulate import simulate
from .common import add_rules_arguments, rules_from_args

if TYPE_CHECKING:
    from .common import Commands

__all__ = ["add_demo_command", "add_simulate_command", "demo", "run_simulation"]


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
        lines.append((event if full else event.redacted()).describe())
    return lines


def demo(rules: Rules, seed: int, full: bool, out: TextIO) -> int:
    """Print one game between RandomBots; returns the exit status.

    >>> import io
    >>> out = io.StringIO()
    >>> demo(Rules.classic(players=2), seed=5, full=True, out=out)
    0
    >>> out.getvalue().splitlines()[2].startswith("  seat 0 holds ")
    True
    """
    players = rules.players
    game = Game.new(rules, seed=seed)
    bots = [RandomBot(seed=seed * 31 + seat) for seat in range(players)]
    write = out.write
    write(
        f"Skitgubbe, {rules.describe()}, seed {seed}. "
        f"Seat {game.dealer} deals; random bots play every seat.\n"
    )
    write(f"Each seat is dealt {rules.hand_size} cards; {len(game.stock)} cards form the stock.\n")
    if full:
        for seat, hand in enumerate(game.hands):
            write(f"  seat {seat} holds {hand}\n")
    if rules.trump is TrumpRule.UPCARD:
        trump = game.trump.name.lower() if game.trump else "?"
        write(f"{game.stock[-1]} is turned up and put under the stock: trump is {trump}.\n")
    tricks = "two-card tricks" if rules.trick_mode is TrickMode.DUEL else "tricks everyone plays to"
    write(f"\nPhase 1: collecting cards in {tricks}.\n")
    number = 0
    window: int | None = None  # the winner of the trick whose slough window is open
    while (to_move := game.to_move) is not None:
        move = bots[to_move].choose(game.observation(to_move))
        number += 1
        lines = _narrate(game.play(move), full, game)
        if game.to_move is not None:
            winner = game.observation(game.to_move).slough_winner
            if winner is not None and winner != window:
                lines.append(f"seat {winner} takes the trick; others may throw cards of its ranks")
            window = winner
        write(f"{number:4}. {lines[0]}\n")
        for line in lines[1:]:
            write(f"{line}\n" if line.startswith("\n") else f"      {line}\n")
    result = game.result
    assert result is not None
    if result.truncated:
        write(f"\nThe move cap ended the game after {result.moves_played} moves: no loser.\n")
    elif result.loser is None:
        write(f"\nNobody is left holding cards after {result.moves_played} moves: no loser.\n")
    else:
        order = ", ".join(f"seat {s}" for s in result.finish_order[:-1])
        write(
            f"\nSeat {result.loser} is the skitgubbe after {result.moves_played} moves. "
            f"Out before: {order}.\n"
        )
    return 0


def run_simulation(rules: Rules, games: int, seed: int, out: TextIO, threads: int = 1) -> int:
    """Play ``games`` random games in C (on ``threads`` threads) and print the totals.

    >>> import io
    >>> out = io.StringIO()
    >>> run_simulation(Rules.classic(players=2), 10, seed=1, out=out)
    0
    >>> out.getvalue().splitlines()[0]  # doctest: +ELLIPSIS
    '10 random games, classic, 2 players, seed 1: ... moves per game, ... games/s'
    """
    start = time.perf_counter()
    result = simulate(rules, games, seed=seed, threads=threads)
    seconds = time.perf_counter() - start
    out.write(
        f"{result.games} random games, {rules.describe()}, seed {seed}: "
        f"{result.moves_per_game:.1f} moves per game, "
        f"{result.games / seconds if seconds else 0:,.0f} games/s\n"
    )
    for seat, (losses, rate) in enumerate(zip(result.losses, result.loss_rates, strict=True)):
        out.write(f"  seat {seat}: skitgubbe {losses} times ({rate:.1%})\n")
    if result.truncated or result.no_loser:
        out.write(f"  truncated: {result.truncated}, no loser: {result.no_loser}\n")
    return 0


def add_demo_command(commands: Commands) -> None:
    """Add ``skitgubbe demo`` to the command line's ``commands``.

    >>> parser = argparse.ArgumentParser(prog="skitgubbe")
    >>> add_demo_command(parser.add_subparsers(dest="command"))
    >>> parser.parse_args(["demo", "--seed", "3", "--full"]).full
    True
    """
    command = commands.add_parser("demo", help="watch one game between random bots")
    command.add_argument("--players", type=int, choices=(2, 3, 4))
    add_rules_arguments(command)
    command.add_argument("--seed", type=int, default=1, help="deal and bots seed (default 1)")
    command.add_argument(
        "--full", action="store_true", help="show every card, as the referee sees it"
    )
    command.set_defaults(handler=_run_demo)


def _run_demo(args: argparse.Namespace) -> int:
    return demo(rules_from_args(args), args.seed, args.full, sys.stdout)


def add_simulate_command(commands: Commands) -> None:
    """Add ``skitgubbe simulate`` to the command line's ``commands``.

    >>> parser = argparse.ArgumentParser(prog="skitgubbe")
    >>> add_simulate_command(parser.add_subparsers(dest="command"))
    >>> parser.parse_args(["simulate", "--games", "50"]).games
    50
    """
    command = commands.add_parser("simulate", help="play many random games in the C core")
    command.add_argument("--players", type=int, choices=(2, 3, 4))
    add_rules_arguments(command)
    command.add_argument("--games", type=int, default=100_000)
    command.add_argument("--seed", type=int, default=0)
    command.add_argument(
        "--threads", type=int, default=1, help="threads sharing the games (same totals)"
    )
    command.set_defaults(handler=_run_simulate)


def _run_simulate(args: argparse.Namespace) -> int:
    return run_simulation(rules_from_args(args), args.games, args.seed, sys.stdout, args.threads)
