"""``skitgubbe arena``, ``sprt`` and ``ladder``: matches between bots, and their figures.

``arena`` plays a match over duplicate deals and prints each bot's loss rate
(:func:`run_arena`, :func:`print_match`); ``sprt`` runs a sequential test of a
new bot against an old one (:func:`run_sprt_command`); ``ladder`` rates many bots
(:func:`run_ladder_command`). Each is a long run: Ctrl-C stops it with one line
on stderr and the status :data:`INTERRUPTED` (:func:`interruptible`).
"""

from __future__ import annotations

import argparse
import importlib.util
import secrets
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Final, TextIO

from ..._files import load_json_object
from ...bots import is_engine_spec
from ...errors import ArgumentError, SkitgubbeError
from .common import add_rules_arguments, check_move_time_option, rules_from_args

if TYPE_CHECKING:
    # The arena loads only for the commands that use it, so that `skitgubbe --help`
    # starts quickly.
    from ...arena import MatchResult
    from .common import Commands

__all__ = [
    "INTERRUPTED",
    "add_arena_command",
    "add_ladder_command",
    "add_sprt_command",
    "interruptible",
    "print_match",
    "run_arena",
    "run_ladder_command",
    "run_sprt_command",
]


INTERRUPTED: Final = 130
"""The exit status of a run stopped by Ctrl-C (128 + SIGINT, as shells report it)."""


def interruptible(command: Callable[[argparse.Namespace, TextIO], int], args: Any) -> int:
    """Run a long ``command`` (arena, sprt, ladder); Ctrl-C stops it with one line on
    stderr that says what was kept, and the status :data:`INTERRUPTED`, not a traceback.

    The state file (``--state``) is whole at any moment, each deal set a line appended
    once it is done, so the line can say to run the command again to resume.

    >>> def stopped(args: argparse.Namespace, out: TextIO) -> int:
    ...     raise KeyboardInterrupt
    >>> interruptible(stopped, argparse.Namespace(state=None)) == INTERRUPTED
    True
    """
    try:
        return command(args, sys.stdout)
    except KeyboardInterrupt:
        sys.stdout.flush()
        state = getattr(args, "state", None)
        if state is not None:
            seed = getattr(args, "seed_drawn", None)
            again = "" if seed is None else f" with --seed {seed}"
            kept = f"; {state} keeps the deal sets done: run the same command{again} to resume"
        elif hasattr(args, "state"):
            kept = "; nothing was kept (--state FILE makes a run resumable)"
        else:
            kept = ""
        sys.stderr.write(f"skitgubbe: interrupted{kept}\n")
        return INTERRUPTED


def _percent(rate: float) -> str:
    return f"{rate:.1%}"


def print_match(result: MatchResult, out: TextIO) -> None:
    """Print the per-entrant figures of a match as a table, then its crashes.

    >>> from skitgubbe.arena import run_match
    >>> from skitgubbe.game.rules import Rules
    >>> result = run_match(["random", "greedy"], Rules.classic(players=2), deals=1, seed=0)
    >>> print_match(result, sys.stdout)
    random, greedy: classic, 2 players, seed 0; 1 deal set x 2 seat arrangements = 2 games
    entrant  seats  loss rate   95 % interval  mean place  games  truncated  crashes
    random       1     100.0%  20.7% - 100.0%        2.00      2          0        0
    greedy       1       0.0%    0.0% - 79.3%        1.00      2          0        0
    (per seat played: a bot in k seats plays k seat-games per game; fair share 50.0%)
    """
    write = out.write
    sets, seatings = result.deals, len(result.arrangements)
    limit = "" if result.timeout is None else f"; at most {result.timeout:g} s per move"
    write(
        f"{', '.join(result.entrants)}: {result.rules.describe()}, seed {result.seed}; "
        f"{sets} deal set{'s' if sets != 1 else ''} x {seatings} seat arrangement"
        f"{'s' if seatings != 1 else ''} = {len(result.games)} games{limit}\n"
    )
    rows = [
        (
            stats.name,
            str(stats.copies),
            _percent(stats.loss_rate),
            f"{_percent(stats.low)} - {_percent(stats.high)}",
            f"{stats.mean_place:.2f}",
            str(stats.games),
            str(stats.truncated),
            str(stats.crashes),
        )
        for stats in result.stats
    ]
    header = (
        "entrant",
        "seats",
        "loss rate",
        "95 % interval",
        "mean place",
        "games",
        "truncated",
        "crashes",
    )
    widths = [max(len(row[i]) for row in (header, *rows)) for i in range(len(header))]
    for row in (header, *rows):
        cells = [row[0].ljust(widths[0])] + [
            c.rjust(w) for c, w in zip(row[1:], widths[1:], strict=True)
        ]
        write("  ".join(cells).rstrip() + "\n")
    write(
        f"(per seat played: a bot in k seats plays k seat-games per game; "
        f"fair share {_percent(1 / result.rules.players)})\n"
    )
    crashes = result.crashes
    for game in crashes[:5]:
        assert game.crash is not None
        write(
            f"crash: deal {game.deal}, arrangement {game.arrangement}, seat {game.crash.seat} "
            f"({game.seats[game.crash.seat]}): {game.crash.error}\n"
        )
    if len(crashes) > 5:
        write(f"... and {len(crashes) - 5} more crashes (tracebacks in the JSON file)\n")


def run_arena(args: argparse.Namespace, out: TextIO) -> int:
    """Play the match the ``arena`` arguments describe, print it and save what was asked.

    >>> parser = argparse.ArgumentParser(prog="skitgubbe")
    >>> add_arena_command(parser.add_subparsers(dest="command"))
    >>> run_arena(parser.parse_args(["arena", "random", "greedy", "--deals", "1"]), sys.stdout)
    random, greedy: classic, 2 players, seed 0; 1 deal set x 2 seat arrangements = 2 games
    ...
    0
    """
    from ...arena import run_match

    entrants: list[str] = args.entrants
    if args.players is None:
        if not 2 <= len(entrants) <= 4:
            raise ArgumentError(f"a match needs 2 to 4 entrants, one per seat, not {len(entrants)}")
        args.players = len(entrants)
    elif args.players != len(entrants):
        raise ArgumentError(
            f"--players {args.players} needs {args.players} entrants, one per seat, "
            f"not {len(entrants)}"
        )
    _check_run_options(args)
    seed = args.seed
    if seed is None:
        seed = secrets.randbits(63) if args.isolate or any(map(is_engine_spec, entrants)) else 0
    result = run_match(
        entrants,
        rules_from_args(args),
        deals=args.deals,
        seed=seed,
        jobs=args.jobs,
        progress=_progress(args),
        move_time=args.timeout,
        isolate=args.isolate,
    )
    print_match(result, out)
    saves = [
        (args.out, result.save_json),
        (args.csv, result.save_csv),
        (args.summary_csv, result.save_summary_csv),
        (args.plot, result.plot),
    ]
    return _save(out, saves)


def _check_run_options(args: argparse.Namespace) -> None:
    """Fail before a long run, not after it: ``--plot`` without matplotlib, a bad
    ``--move-time``."""
    if args.plot is not None and importlib.util.find_spec("matplotlib") is None:
        raise SkitgubbeError("--plot needs matplotlib: pip install 'skitgubbe[plot]'")
    check_move_time_option(args.timeout)


def _progress(args: argparse.Namespace) -> bool:
    """Whether to write progress lines on stderr: ``--progress``, else when it is a terminal."""
    return sys.stderr.isatty() if args.progress is None else bool(args.progress)


def _common_run(args: argparse.Namespace, specs: Sequence[str]) -> dict[str, Any]:
    """The keyword arguments a sequential test and a ladder share: the seed (drawn in secret
    when an entrant runs out of process), the state file, how the work is spread and the
    progress; fails early when --plot cannot be drawn."""
    _check_run_options(args)
    seed = args.seed
    if seed is None and (args.isolate or any(map(is_engine_spec, specs))):
        seed = args.seed_drawn = secrets.randbits(63)  # named if the run is interrupted
    elif seed is None:
        seed = 0
    return {
        "seed": seed,
        "state": args.state,
        "jobs": args.jobs,
        "chunk_size": args.chunk_size,
        "progress": _progress(args),
        "move_time": args.timeout,
        "isolate": args.isolate,
    }


def _save(out: TextIO, saves: Sequence[tuple[str | None, Callable[[str], None]]]) -> int:
    """Save to each path given (``--out``, ``--csv``, ``--plot``), saying so; the exit status."""
    for path, save in saves:
        if path is not None:
            save(path)
            out.write(f"Saved {path}.\n")
    return 0


def run_sprt_command(args: argparse.Namespace, out: TextIO) -> int:
    """Run the sequential test the ``sprt`` arguments describe and print its report.

    >>> parser = argparse.ArgumentParser(prog="skitgubbe")
    >>> add_sprt_command(parser.add_subparsers(dest="command"))
    >>> args = parser.parse_args(["sprt", "greedy", "random", "--max-deals", "2"])
    >>> run_sprt_command(args, sys.stdout)
    greedy vs 2 x random: classic, 3 players, seed 0
    ...
    0
    """
    from ...arena.sprt import run_sprt

    running = _common_run(args, [args.new, args.old])
    bounds: dict[str, Any] = {}
    if args.delta is not None:
        if args.elo is not None:
            raise ArgumentError("give --elo or --delta, not both")
        bounds["delta"] = tuple(args.delta)
    elif args.elo is not None:
        bounds["elo0"], bounds["elo1"] = args.elo
    result = run_sprt(
        args.new,
        args.old,
        rules_from_args(args),
        alpha=args.alpha,
        beta=args.beta,
        max_deals=args.max_deals,
        **running,
        **bounds,
    )
    out.write(result.describe() + "\n")
    return _save(out, [(args.out, result.save_json), (args.plot, result.plot)])


def run_ladder_command(args: argparse.Namespace, out: TextIO) -> int:
    """Play the ladder the ``ladder`` arguments describe and print its table.

    >>> parser = argparse.ArgumentParser(prog="skitgubbe")
    >>> add_ladder_command(parser.add_subparsers(dest="command"))
    >>> args = parser.parse_args(["ladder", "random", "greedy", "--rounds", "2"])
    >>> run_ladder_command(args, sys.stdout)
    Ladder: classic, 2 players, seed 0; 2 deal sets, 4 games; Elo anchored at random = 0
    ...
    0
    """
    from ...arena.ladder import LadderResult, run_ladder

    running = _common_run(args, args.bots)
    base = None
    if args.base is not None:
        base = LadderResult.from_dict(load_json_object(args.base, "ladder record"))
    if base is not None and args.players is None and not args.set and args.rules == "classic":
        rules = None  # the base ladder's
    else:
        if args.players is None:
            args.players = 3 if len(args.bots) >= 3 else 2
        rules = rules_from_args(args)
    result = run_ladder(args.bots, rules, rounds=args.rounds, base=base, by=args.by, **running)
    out.write(result.describe() + "\n")
    return _save(
        out, [(args.out, result.save_json), (args.csv, result.save_csv), (args.plot, result.plot)]
    )


def _add_move_time_argument(command: argparse.ArgumentParser, text: str) -> None:
    """``--move-time SECONDS`` (also ``--timeout``, its old name), kept as ``args.timeout``."""
    command.add_argument(
        "--move-time", "--timeout", dest="timeout", type=float, metavar="SECONDS", help=text
    )


def _add_progress_argument(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        help="progress lines on stderr (default: when stderr is a terminal)",
    )


def _add_run_arguments(command: argparse.ArgumentParser) -> None:
    """The options of a long, resumable run (sprt and ladder)."""
    command.add_argument("--seed", type=int, help="seed of the deals (default 0)")
    command.add_argument(
        "--state",
        metavar="FILE",
        help="a JSON-lines file keeping every finished deal set: run again to resume "
        "(a ladder also with more --rounds, to play only the new ones)",
    )
    command.add_argument("--jobs", type=int, help="worker processes (default: this process)")
    command.add_argument("--chunk-size", type=int, help="deal sets per task (default 1)")
    _add_move_time_argument(
        command, "time limit of each move; a bot that takes longer loses that game"
    )
    command.add_argument(
        "--isolate", action="store_true", help="play every bot in a process of its own"
    )
    _add_progress_argument(command)


def add_arena_command(commands: Commands) -> None:
    """Add ``skitgubbe arena`` to the command line's ``commands``.

    >>> parser = argparse.ArgumentParser(prog="skitgubbe")
    >>> add_arena_command(parser.add_subparsers(dest="command"))
    >>> parser.parse_args(["arena", "greedy", "random", "--timeout", "2"]).timeout
    2.0
    """
    command = commands.add_parser(
        "arena",
        help="a match between bots over duplicate deals: loss rates with 95 %% intervals",
        description="Play every deal under every seat arrangement of the entrants and print "
        "each bot's loss rate (with a 95 % Wilson interval over deal sets), mean finishing "
        "place, truncated games and crashes. A bot that raises, answers an illegal move, takes "
        "longer than --move-time or dies with its worker process loses that game (a crash).",
    )
    command.add_argument(
        "entrants",
        nargs="+",
        metavar="BOT",
        help="bot specs, one per seat, e.g. greedy 'pimc:worlds=32' random, or engines in "
        "processes of their own: 'cmd:./mybot', 'cmd[move_time=1,style=high]:node bot.js'",
    )
    command.add_argument(
        "--players", type=int, choices=(2, 3, 4), help="(default: the number of entrants)"
    )
    add_rules_arguments(command)
    command.add_argument("--deals", type=int, default=100, help="deal sets (default 100)")
    command.add_argument(
        "--seed",
        type=int,
        help="match seed (default 0; a random one, printed, when an entrant is out of process: "
        "an engine that knew the seed could deal the cards itself)",
    )
    command.add_argument(
        "--jobs", type=int, help="worker processes (default: play in this process)"
    )
    _add_move_time_argument(
        command,
        "time limit of each move (each call into a bot: choose and its hooks); a bot "
        "that takes longer loses that game. The games then run in worker processes (at least "
        "one), so a bot that never answers is stopped (default: no limit)",
    )
    command.add_argument(
        "--isolate",
        action="store_true",
        help="play every entrant in a process of its own, over the engine protocol (a built-in "
        "or registered bot is served by 'skitgubbe engine'): no bot can reach the referee's "
        "game or another bot; engine specs (cmd:COMMAND) always are",
    )
    command.add_argument("--out", metavar="FILE", help="save the match as JSON")
    command.add_argument("--csv", metavar="FILE", help="save one CSV row per game")
    command.add_argument("--summary-csv", metavar="FILE", help="save one CSV row per entrant")
    command.add_argument(
        "--plot", metavar="FILE", help="save a PNG of the loss rates (needs matplotlib)"
    )
    _add_progress_argument(command)
    command.set_defaults(handler=_run_arena)


def _run_arena(args: argparse.Namespace) -> int:
    return interruptible(run_arena, args)


def add_sprt_command(commands: Commands) -> None:
    """Add ``skitgubbe sprt`` to the command line's ``commands``.

    >>> parser = argparse.ArgumentParser(prog="skitgubbe")
    >>> add_sprt_command(parser.add_subparsers(dest="command"))
    >>> parser.parse_args(["sprt", "pimc", "greedy", "--elo", "0", "20"]).elo
    [0.0, 20.0]
    """
    command = commands.add_parser(
        "sprt",
        help="is NEW stronger than OLD? a sequential test over duplicate deals",
        description="Seat NEW against copies of OLD and play deal sets (a deal under every "
        "seating) until the generalized SPRT on NEW's share of the loss decides: H1, NEW is "
        "stronger by the upper bound, or H0, it is not stronger than the lower bound. Elo "
        "bounds mean P(lose) = 1/(1 + (n-1) 10^(elo/400)).",
    )
    command.add_argument("new", metavar="NEW", help="the bot under test (a bot spec)")
    command.add_argument("old", metavar="OLD", help="the bot it must beat, in every other seat")
    command.add_argument("--players", type=int, choices=(2, 3, 4), default=3)
    add_rules_arguments(command)
    command.add_argument(
        "--elo",
        type=float,
        nargs=2,
        metavar=("ELO0", "ELO1"),
        help="H0 and H1 as Elo (default 0 10)",
    )
    command.add_argument(
        "--delta",
        type=float,
        nargs=2,
        metavar=("D0", "D1"),
        help="H0 and H1 as loss-rate differences below the fair share 1/n",
    )
    command.add_argument("--alpha", type=float, default=0.05, help="false H1 rate (0.05)")
    command.add_argument("--beta", type=float, default=0.05, help="false H0 rate (0.05)")
    command.add_argument("--max-deals", type=int, help="stop undecided after this many deal sets")
    _add_run_arguments(command)
    command.add_argument("--out", metavar="FILE", help="save the test as JSON")
    command.add_argument("--plot", metavar="FILE", help="save a PNG of the LLR's path")
    command.set_defaults(handler=_run_sprt)


def _run_sprt(args: argparse.Namespace) -> int:
    return interruptible(run_sprt_command, args)


def add_ladder_command(commands: Commands) -> None:
    """Add ``skitgubbe ladder`` to the command line's ``commands``.

    >>> parser = argparse.ArgumentParser(prog="skitgubbe")
    >>> add_ladder_command(parser.add_subparsers(dest="command"))
    >>> parser.parse_args(["ladder", "random", "greedy", "pimc", "--rounds", "5"]).bots
    ['random', 'greedy', 'pimc']
    """
    command = commands.add_parser(
        "ladder",
        help="rate many bots: Plackett-Luce Elo with intervals clustered by deal set",
        description="Play the bots at tables (every table for up to ten bots, balanced random "
        "tables beyond; with --base only the new bot's tables, a gauntlet), every deal under "
        "every seating, and fit Plackett-Luce ratings to the finishing orders, Elo-scaled and "
        "anchored at random (else the first bot).",
    )
    command.add_argument("bots", nargs="+", metavar="BOT", help="bot specs (one with --base)")
    command.add_argument("--players", type=int, choices=(2, 3, 4), help="seats per table (3)")
    add_rules_arguments(command)
    command.add_argument("--rounds", type=int, default=20, help="rounds of tables (20)")
    command.add_argument(
        "--base", metavar="FILE", help="a saved ladder (--out) to add the one BOT to"
    )
    command.add_argument(
        "--by",
        choices=("order", "loser"),
        default="order",
        help="fit the ratings to the whole finishing order (order, the default) or to who "
        "lost only (loser: the game's own verdict, everybody else wins alike); a finished "
        "--state file can be rated again either way without playing",
    )
    _add_run_arguments(command)
    command.add_argument("--out", metavar="FILE", help="save the ladder as JSON")
    command.add_argument("--csv", metavar="FILE", help="save one CSV row per bot")
    command.add_argument("--plot", metavar="FILE", help="save a PNG of the ratings")
    command.set_defaults(handler=_run_ladder)


def _run_ladder(args: argparse.Namespace) -> int:
    return interruptible(run_ladder_command, args)
