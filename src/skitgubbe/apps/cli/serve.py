"""``skitgubbe serve``: the multiplayer server and its browser table (``docs/server.md``).

The server (:mod:`skitgubbe.server`) needs the ``server`` extra (aiohttp); it
loads only when the command runs, and its absence is a one-line error.

>>> parser = argparse.ArgumentParser(prog="skitgubbe")
>>> add_serve_command(parser.add_subparsers(dest="command"))
>>> parser.parse_args(["serve", "--port", "9000"]).port
9000
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from ...errors import ArgumentError
from .analyse import DEFAULT_ENGINE  # the analyses' engine, named without loading them

if TYPE_CHECKING:
    from .common import Commands

__all__ = ["add_serve_command"]


def add_serve_command(commands: Commands) -> None:
    """Add ``skitgubbe serve`` to the command line's ``commands``.

    >>> parser = argparse.ArgumentParser(prog="skitgubbe")
    >>> add_serve_command(parser.add_subparsers(dest="command"))
    >>> parser.parse_args(["serve", "--engine", "low=cmd:./lowbot"]).engine
    ['low=cmd:./lowbot']
    >>> parser.parse_args(["serve", "--hint-engine", "expert"]).hint_engine
    'expert'
    >>> parser.parse_args(["serve", "--bot", "mine=ismcts:net=my.sgnet"]).bot
    ['mine=ismcts:net=my.sgnet']
    """
    command = commands.add_parser(
        "serve",
        help="run the multiplayer server and its browser table (extra: server)",
        description="Serve the lobby, the websockets and the browser table (docs/server.md). "
        "Every move is stored in the SQLite file (or PostgreSQL database) before anyone is told "
        "of it; started again on the same store, the server resumes every game. Needs the "
        "'server' extra (pip install 'skitgubbe[server]').",
    )
    command.add_argument("--host", default="127.0.0.1", help="address (default 127.0.0.1)")
    command.add_argument("--port", type=int, default=8080, help="port (default 8080)")
    command.add_argument(
        "--db",
        default="skitgubbe-server.db",
        help="the SQLite file (default skitgubbe-server.db), or a PostgreSQL database by its URL "
        "(postgresql://user@host/name; extra: postgres)",
    )
    command.add_argument(
        "--engine",
        action="append",
        default=[],
        metavar="NAME=SPEC",
        help="let tables seat this engine as 'engine:NAME' (SPEC: an engine spec such as "
        "'cmd:./mybot'; repeat for more)",
    )
    command.add_argument(
        "--bot",
        action="append",
        default=[],
        metavar="NAME=SPEC",
        help="let tables seat this bot as 'bot:NAME' (SPEC: any bot spec, such as "
        "'ismcts:net=my.sgnet' or 'pimc:rollout=policy.c'; a client may name only "
        "built-in bots with plain options; repeat for more)",
    )
    command.add_argument(
        "--max-bot-iterations",
        type=int,
        default=20_000,
        metavar="N",
        help="refuse a table whose searching bot does more per move: an ismcts seat's "
        "iterations, a pimc seat's worlds x rollouts (default 20000)",
    )
    command.add_argument(
        "--hint-engine",
        default=DEFAULT_ENGINE,
        metavar="SPEC",
        help="the search behind the hint button at tables that allow hints (an ismcts or "
        f"pimc spec, or the level hard or expert; default {DEFAULT_ENGINE}, the one "
        "skitgubbe analyse and the terminal's hint use)",
    )
    command.add_argument(
        "--review-engine",
        default=DEFAULT_ENGINE,
        metavar="SPEC",
        help=f"the search behind the review page after a game (default {DEFAULT_ENGINE})",
    )
    command.add_argument(
        "--limit",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="change one of the bounds on what a client may make the server do, such as "
        "open_tables_per_client=4 or trusted_proxies=127.0.0.1 (the address of a reverse "
        "proxy whose X-Forwarded-For the server believes); docs/server.md lists them all "
        "with their defaults; repeat for more",
    )
    cluster = command.add_argument_group(
        "many processes (docs/server.md, 'Many processes'; --db postgresql://… only)"
    )
    cluster.add_argument(
        "--node",
        metavar="NAME",
        help="be this node of a cluster of processes sharing the PostgreSQL database (1 to 16 "
        "lowercase letters and digits, unique in the cluster; it begins the ids of the "
        "tables made here, which a proxy routes by)",
    )
    cluster.add_argument(
        "--advertise",
        metavar="URL",
        help="where the other nodes reach this one (default http://HOST:PORT); on a network "
        "clients cannot reach",
    )
    cluster.add_argument(
        "--lease",
        type=float,
        default=3.0,
        metavar="SECONDS",
        help="how long a node that stops answering keeps its tables before the others take "
        "them over (default 3)",
    )
    cluster.add_argument(
        "--workers",
        type=int,
        metavar="N",
        help="start N node processes on this port (named NODE1 … NODEN, NODE from --node, "
        "default w); the kernel spreads the connections among them",
    )
    command.set_defaults(handler=_run_server)


def _run_server(args: argparse.Namespace) -> int:  # pragma: no cover - serves until stopped
    """Serve the multiplayer server until interrupted."""
    try:
        from ...server.serving import run, run_workers
    except ModuleNotFoundError as error:
        raise ArgumentError(
            f"skitgubbe serve needs {error.name}: pip install 'skitgubbe[server]'"
        ) from None
    engines = _named(args.engine, "--engine", "low=cmd:./lowbot")
    named_bots = _named(args.bot, "--bot", "mine=ismcts:net=my.sgnet")
    if args.max_bot_iterations < 1:
        raise ArgumentError(f"--max-bot-iterations must be >= 1, not {args.max_bot_iterations}")
    from ...server.limits import Limits

    try:
        limits = Limits.from_options(args.limit)
    except ArgumentError as error:
        raise ArgumentError(f"--limit: {error}") from None
    if args.workers is not None and args.advertise is not None:
        raise ArgumentError("--advertise names one node: each of --workers has its own")
    if args.node is None and args.workers is None and args.advertise is not None:
        raise ArgumentError("--advertise is a node's: give --node NAME (or --workers N)")
    options = {
        "host": args.host,
        "port": args.port,
        "engines": engines,
        "max_bot_iterations": args.max_bot_iterations,
        "hint_engine": args.hint_engine,
        "review_engine": args.review_engine,
        "named_bots": named_bots,
        "limits": limits,
        "advertise": args.advertise,
        "lease": args.lease,
    }
    if args.workers is not None:
        run_workers(args.workers, args.db, prefix=args.node or "w", **options)
    else:
        run(store=args.db, node=args.node, **options)
    return 0


def _named(entries: list[str], option: str, example: str) -> dict[str, str]:
    """The ``NAME=SPEC`` entries of a repeated option, by name.

    >>> _named(["low=cmd:./lowbot"], "--engine", "low=cmd:./lowbot")
    {'low': 'cmd:./lowbot'}
    >>> _named(["low"], "--engine", "low=cmd:./lowbot")
    Traceback (most recent call last):
        ...
    skitgubbe.errors.ArgumentError: --engine takes NAME=SPEC (e.g. low=cmd:./lowbot), not 'low'
    """
    named: dict[str, str] = {}
    for entry in entries:
        name, equals, spec = entry.partition("=")
        if not equals or not name.strip() or not spec.strip():
            raise ArgumentError(f"{option} takes NAME=SPEC (e.g. {example}), not {entry!r}")
        named[name.strip()] = spec.strip()
    return named
