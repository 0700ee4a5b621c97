"""``skitgubbe analyse``: how good was each of a seat's moves in a saved game?

The command reads a game record, reviews one seat's moves with
:func:`skitgubbe.analysis.analyse` and prints the annotated game
(:meth:`~skitgubbe.analysis.GameAnalysis.text`); ``--json`` and ``--plot`` save
the analysis and its evaluation graph. ``skitgubbe replay --analyse`` shares its
options and its run (:func:`add_analysis_arguments`, :func:`run_analysis`).

A game record is what :meth:`Game.record <skitgubbe.Game.record>` gives, as JSON:
what ``skitgubbe play`` saves, and what the server's ``GET
/api/tables/{id}/record`` answers. A session record (``skitgubbe session
--save``) holds one game record per game; ``--game N`` picks one
(:func:`load_game`).

>>> import argparse
>>> parser = argparse.ArgumentParser(prog="skitgubbe")
>>> add_analyse_command(parser.add_subparsers(dest="command"))
>>> args = parser.parse_args(["analyse", "game.json", "--seat", "1", "--jobs", "2"])
>>> args.file, args.seat, args.jobs, args.engine
('game.json', 1, 2, None)
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Final, TextIO

from ..._files import load_json_object, write_text
from ..._progress import ProgressBar
from ...errors import ArgumentError, RecordError, SkitgubbeError
from .match import interruptible

if TYPE_CHECKING:
    # The analysis loads only when a command runs it, so that `skitgubbe --help` starts quickly.
    from ...analysis import GameAnalysis
    from ...game.state import Game
    from .common import Commands

__all__ = [
    "DEFAULT_ENGINE",
    "add_analyse_command",
    "add_analysis_arguments",
    "check_engine",
    "load_game",
    "run_analyse",
    "run_analysis",
]

SESSION_FORMAT: Final = "skitgubbe-session"
"""The ``format`` of a session record, whose ``games`` are game records."""

DEFAULT_ENGINE: Final = "ismcts:iterations=30000"
""":data:`skitgubbe.analysis.DEFAULT_ENGINE`, named in the help without loading the
analysis (every command builds the parser, ``skitgubbe engine`` too; a test keeps the two
equal). :func:`run_analysis` reads the library's own."""


def load_game(path: str, game: int | None = None) -> dict[str, Any]:
    """The game record in the JSON file ``path``: the file itself when it holds a game
    record, or game number ``game`` (from 1, as ``skitgubbe session`` prints it) of a
    session record; a session of one game needs no number.

    The record is returned as read; :func:`skitgubbe.analysis.analyse` checks it move
    by move.

    >>> import json, tempfile, os
    >>> import skitgubbe as sg
    >>> folder = tempfile.mkdtemp()
    >>> session = sg.Session([sg.bots.RandomBot(seed=s) for s in range(2)], seed=1)
    >>> _ = session.play(3)
    >>> path = os.path.join(folder, "session.json")
    >>> with open(path, "w", encoding="utf-8") as file:
    ...     json.dump(session.record(), file)
    >>> load_game(path, game=2) == session.record()["games"][1]
    True
    >>> load_game(path)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    skitgubbe.errors.ArgumentError: .../session.json is a session of 3 games: choose one with --game 1..3
    """  # noqa: E501
    record = load_json_object(path, "game record")
    if record.get("format") != SESSION_FORMAT:
        if game is not None:
            raise ArgumentError(f"--game picks a game of a session record; {path} holds one game")
        return record
    games = record.get("games")
    if not isinstance(games, list):
        raise RecordError(f"{path} is a session record without a list of games")
    count = len(games)
    if not games:
        raise RecordError(f"{path} is a session record with no game played")
    if game is None:
        if count > 1:
            raise ArgumentError(
                f"{path} is a session of {count} games: choose one with --game 1..{count}"
            )
        game = 1
    if type(game) is not int or not 1 <= game <= count:
        raise ArgumentError(f"--game must be 1..{count} in {path}'s session, not {game!r}")
    chosen = games[game - 1]
    if not isinstance(chosen, dict):
        raise RecordError(
            f"game {game} of {path} is not a game record: it holds {type(chosen).__name__}"
        )
    return chosen


def add_analysis_arguments(command: argparse.ArgumentParser) -> None:
    """Give ``command`` the options of an analysis: ``--engine``, ``--seed``, ``--jobs``
    and the progress bar's ``--progress``/``--no-progress`` (``--quiet``). Each defaults
    to None, which :func:`run_analysis` reads as the library's default.

    >>> parser = argparse.ArgumentParser(prog="example")
    >>> add_analysis_arguments(parser)
    >>> args = parser.parse_args(["--engine", "pimc:worlds=8", "--quiet"])
    >>> args.engine, args.seed, args.jobs, args.progress
    ('pimc:worlds=8', None, None, False)
    """
    command.add_argument(
        "--engine",
        metavar="SPEC",
        help=f"the search that weighs the moves (default {DEFAULT_ENGINE!r}; any ismcts or "
        "pimc spec, e.g. 'ismcts:iterations=5000', 'pimc:worlds=40', or a strength level)",
    )
    command.add_argument(
        "--seed",
        type=int,
        help="analysis seed: the same seed, the same analysis, unless the engine has a time "
        "budget only (default 0)",
    )
    command.add_argument(
        "--jobs",
        type=int,
        metavar="N",
        help="worker processes (default 1; the result is the same for any number)",
    )
    command.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        help="a progress bar on stderr (default: when stderr is a terminal)",
    )
    command.add_argument(
        "--quiet",
        dest="progress",
        action="store_false",
        default=None,
        help="no progress bar (as --no-progress)",
    )


def check_engine(spec: str, game: Game, seat: int) -> None:
    """Refuse, before any work, an engine an analysis cannot use: a bad spec, a bot that
    does not search (``greedy``), an engine in a process of its own (``cmd:...``, never
    started).

    >>> import skitgubbe as sg
    >>> check_engine("ismcts:iterations=10", sg.Game.new(seed=1), 0)
    >>> check_engine("cmd:./mybot", sg.Game.new(seed=1), 0)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    skitgubbe.errors.ArgumentError: an analysis needs a search bot (ismcts, pimc, ...
    """
    from ...analysis import engine_for

    engine_for(spec, 0, game.observation(seat))


def run_analysis(
    game: Game | Mapping[str, Any],
    seat: int,
    args: argparse.Namespace,
    *,
    stream: TextIO | None = None,
) -> GameAnalysis:
    """Analyse ``seat``'s moves in ``game`` (a game or its record) with the options of
    :func:`add_analysis_arguments` in ``args``; the progress bar goes to ``stream``
    (stderr) when asked for, or when that stream is a terminal.

    The seat, the engine and ``--jobs`` are checked before the work starts; a bad
    record raises :class:`~skitgubbe.RecordError`.

    >>> import skitgubbe as sg
    >>> played = sg.Game.new(sg.Rules.classic(players=2), seed=5)
    >>> for _ in range(6):
    ...     _ = played.play(played.legal_moves[0])
    >>> args = argparse.Namespace(engine="pimc:worlds=4", seed=None, jobs=None, progress=None)
    >>> run_analysis(played.record(), 1, args).seat
    1
    >>> run_analysis(played, 2, args)
    Traceback (most recent call last):
        ...
    skitgubbe.errors.ArgumentError: --seat must be 0..1, not 2
    """
    from ...analysis import DEFAULT_ENGINE, analyse
    from ...game.state import Game

    replay = game if isinstance(game, Game) else Game.from_record(game)
    if not 0 <= seat < replay.players:
        raise ArgumentError(f"--seat must be 0..{replay.players - 1}, not {seat}")
    engine = DEFAULT_ENGINE if args.engine is None else args.engine
    check_engine(engine, replay, seat)
    jobs = 1 if args.jobs is None else args.jobs
    if jobs < 1:
        raise ArgumentError(f"--jobs must be at least 1, not {jobs}")
    out = stream if stream is not None else sys.stderr
    shown = out.isatty() if args.progress is None else bool(args.progress)
    bar = ProgressBar(f"analysing seat {seat}", out, unit="decisions") if shown else None
    progress: Callable[[int, int], None] | None = bar
    try:
        return analyse(
            replay,
            seat,
            engine=engine,
            seed=0 if args.seed is None else args.seed,
            jobs=jobs,
            progress=progress,
        )
    finally:
        if bar is not None:
            bar.close()


def _check_writable(path: str | None) -> None:
    """Fail before a long run, not after it: the folder of an output file must exist."""
    if path is None:
        return
    folder = os.path.dirname(path) or "."
    if not os.path.isdir(folder):
        raise SkitgubbeError(f"cannot write {path}: no folder {folder}")


def run_analyse(args: argparse.Namespace, out: TextIO) -> int:
    """Run ``skitgubbe analyse``: print the annotated game, save what was asked.

    >>> import json, os, tempfile
    >>> import skitgubbe as sg
    >>> game = sg.Game.new(sg.Rules.classic(players=2), seed=5)
    >>> for _ in range(6):
    ...     _ = game.play(game.legal_moves[0])
    >>> path = os.path.join(tempfile.mkdtemp(), "game.json")
    >>> with open(path, "w", encoding="utf-8") as file:
    ...     json.dump(game.record(), file)
    >>> parser = argparse.ArgumentParser(prog="skitgubbe")
    >>> add_analyse_command(parser.add_subparsers(dest="command"))
    >>> args = parser.parse_args(["analyse", path, "--seat", "0", "--engine", "pimc:worlds=4"])
    >>> run_analyse(args, sys.stdout)  # doctest: +ELLIPSIS
    Analysis of ...game.json: classic, 2 players, seed 5, 6 moves (unfinished); seat 0, ...
    move 1: ...
    ...
    0
    """
    from ...game.state import Game

    for path in (args.json, args.plot):
        _check_writable(path)
    record = load_game(args.file, args.game)
    game = Game.from_record(record)
    analysis = run_analysis(game, args.seat, args)
    which = "" if args.game is None else f" (game {args.game})"
    ended = "" if game.result is not None else " (unfinished)"
    seed = f", seed {game.seed}" if game.seed is not None else ""
    out.write(
        f"Analysis of {args.file}{which}: {game.rules.describe()}{seed}, "
        f"{game.moves_played} moves{ended}; seat {args.seat}, by {analysis.engine}, "
        f"analysis seed {args.seed or 0}\n"
    )
    out.write(analysis.text() + "\n")
    for path, text in ((args.json, analysis.to_json()), (args.plot, analysis.svg())):
        if path is not None:
            write_text(path, text + "\n")
            out.write(f"Saved {path}.\n")
    return 0


def add_analyse_command(commands: Commands) -> None:
    """Add ``skitgubbe analyse`` to the command line's ``commands``.

    >>> parser = argparse.ArgumentParser(prog="skitgubbe")
    >>> add_analyse_command(parser.add_subparsers(dest="command"))
    >>> args = parser.parse_args(["analyse", "s.json", "--seat", "0", "--game", "3"])
    >>> args.game, args.json, args.plot
    (3, None, None)
    """
    command = commands.add_parser(
        "analyse",
        help="review a seat's moves in a saved game: best, inaccuracy, mistake, blunder",
        description="Weigh every decision of one seat in a saved game with a search that "
        "sees only what that seat saw, and print each move with its estimated chance of "
        "ending as the skitgubbe, its label and a summary. FILE is a game record (what "
        "`skitgubbe play` saves, Game.record() as JSON, the server's record of a table) or "
        "a session record (`skitgubbe session --save`, with --game N).",
    )
    command.add_argument("file", metavar="FILE", help="a JSON game record (or session record)")
    command.add_argument(
        "--seat", type=int, required=True, help="the seat whose moves are reviewed"
    )
    command.add_argument(
        "--game",
        type=int,
        metavar="N",
        help="in a session record: the game to analyse (from 1, as `skitgubbe session` "
        "numbers them)",
    )
    add_analysis_arguments(command)
    command.add_argument("--json", metavar="FILE", help="save the analysis as JSON")
    command.add_argument(
        "--plot", metavar="FILE", help="save the evaluation graph as an SVG picture"
    )
    command.set_defaults(handler=_run_analyse)


def _run_analyse(args: argparse.Namespace) -> int:
    return interruptible(run_analyse, args)
