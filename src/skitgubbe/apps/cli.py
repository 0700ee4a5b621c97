"""The ``skitgubbe`` command line (also ``python -m skitgubbe``).

``skitgubbe demo`` prints one seeded game between random bots in a form a
person can follow; ``skitgubbe simulate`` plays many random games in the C core
and prints the totals; ``skitgubbe session`` plays a session (docs/rules.md §7)
between random bots, and saves and resumes it; ``skitgubbe arena`` plays a
match between bots over duplicate deals and prints each bot's figures;
``skitgubbe play`` is a game against bots in the terminal and ``skitgubbe
replay`` steps through a saved game; ``skitgubbe engine SPEC`` serves a bot
over the engine protocol (``docs/protocol.md``) on stdin and stdout.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import os
import secrets
import sys
import time
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Final, TextIO

from .. import __version__, _engine
from .._files import load_json_object
from ..bots import BotPool, EngineSpec, RandomBot, is_engine_spec, make
from ..errors import ArgumentError, RulesError, SkitgubbeError
from ..events import Event, EventKind
from ..game import Game
from ..players import Player
from ..rules import Rules, TrickMode, TrumpRule
from ..simulate import simulate

if TYPE_CHECKING:
    # The arena and sessions load only for the commands that use them (rich only for play
    # and replay), so that `skitgubbe --help` starts quickly.
    from ..arena import MatchResult
    from ..session import Session, SessionGame

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
        lines.append((event if full else event.redacted()).describe())
    return lines


def demo(rules: Rules, seed: int, full: bool, out: TextIO) -> int:
    """Print one game between RandomBots; returns the exit status."""
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
    """Play ``games`` random games in C (on ``threads`` threads) and print the totals."""
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


def _lineup(
    seed: int, specs: Sequence[str], pool: BotPool | None = None
) -> Callable[[int], list[Player]]:
    """The bots of each game of a session, so a resumed session plays on exactly as an
    uninterrupted one: in game ``index`` seat ``s`` is the bot ``specs[s]`` made with
    the seed ``game_seed(game_seed(seed, index), s)`` (an engine of ``pool`` is kept
    running and sent that seed)."""
    bots = pool if pool is not None else BotPool()

    def lineup(index: int) -> list[Player]:
        game = _engine.game_seed(seed, index)
        return [
            bots.make(spec, seed=_engine.game_seed(game, seat), slot=seat)
            for seat, spec in enumerate(specs)
        ]

    return lineup


def _random_lineup(seed: int, players: int) -> Callable[[int], list[Player]]:
    """Fresh RandomBots for each game of a session (see :func:`_lineup`)."""
    return _lineup(seed, ["random"] * players)


def _session_bots(given: Sequence[str] | None, players: int) -> list[str]:
    """One bot spec per seat from ``--bots`` (one for all, or one per seat)."""
    specs = ["random"] if not given else list(given)
    if len(specs) == 1:
        specs *= players
    if len(specs) != players:
        raise ArgumentError(
            f"--bots takes one spec for all {players} seats or one per seat, not {len(specs)}"
        )
    for spec in specs:  # a bad spec fails before the cut is printed
        if is_engine_spec(spec):
            EngineSpec.parse(spec)
        else:
            make(spec, seed=0)
    return specs


def _seats(seats: Sequence[int]) -> str:
    names = [str(seat) for seat in seats]
    if len(names) == 1:
        return f"seat {names[0]}"
    return f"seats {', '.join(names[:-1])} and {names[-1]}"


def _tokens(amount: Fraction) -> str:
    whole, rest = divmod(amount, 1)
    if not rest:
        return f"{whole} token{'s' if whole != 1 else ''}"
    return f"{f'{whole} ' if whole else ''}{rest.numerator}/{rest.denominator} tokens"


def _load_session(
    path: str, given: Sequence[str] | None, pool: BotPool
) -> tuple[Session, list[str]]:
    """The session saved in ``path`` with its bots (``--bots``, if given, must match)."""
    from ..session import Session

    record = load_json_object(path, "session record")
    try:
        seed, players = record["seed"], Rules.from_dict(record["rules"]).players
    except (KeyError, TypeError, RulesError):
        seed, players = 0, 3  # the record is bad: Session.resume says how
    saved = record.get("bots", ["random"] * players)  # sessions saved before --bots
    if not isinstance(saved, list) or not all(isinstance(spec, str) for spec in saved):
        raise ArgumentError(f"the bots saved in {path} are not a list of bot specs: {saved!r}")
    specs = _session_bots(saved, players)
    if given and _session_bots(given, players) != specs:
        raise ArgumentError(f"--bots {' '.join(given)} does not match the saved session's bots")
    return Session.resume(record, _lineup(seed, specs, pool)), specs


def _save_session(session: Session, specs: Sequence[str], path: str) -> None:
    record = {**session.record(), "bots": list(specs)}  # the command line's own key
    text = json.dumps(record, ensure_ascii=False) + "\n"
    temporary = f"{path}.tmp"
    try:
        with open(temporary, "w", encoding="utf-8") as file:
            file.write(text)
        os.replace(temporary, path)  # a crash never leaves half a record behind
    except OSError as exc:
        raise SkitgubbeError(f"cannot write {path}: {exc.strerror or exc}") from exc


def run_session(
    players: int | None,
    games: int,
    seed: int | None,
    pot: bool | None,
    save: str | None,
    resume: str | None,
    every: int,
    out: TextIO,
    rules_given: Rules | None = None,
    bots: Sequence[str] | None = None,
) -> int:
    """Play a session between bots (new, or resumed from a file); print it.

    ``rules_given`` (from ``--rules``/``--set``) applies to a new session only;
    ``bots`` are the ``--bots`` specs (by default random bots at every seat).
    """
    if type(every) is not int or every < 1:
        raise ArgumentError(f"--every must be at least 1, not {every}")
    with BotPool() as pool:  # the session's engines, ended with it
        if resume is not None:
            session, specs = _resumed_session(resume, players, seed, pot, bots, pool, out)
        else:
            session, specs = _new_session(players, seed, pot, rules_given, bots, pool, out)
        _play_session(session, specs, games, every, save, out)
    return 0


_POT_TEXT: Final = ", with a token pot"


def _resumed_session(
    resume: str,
    players: int | None,
    seed: int | None,
    pot: bool | None,
    bots: Sequence[str] | None,
    pool: BotPool,
    out: TextIO,
) -> tuple[Session, list[str]]:
    """The session saved in ``resume``, checked against the flags given again."""
    session, specs = _load_session(resume, bots, pool)
    rules = session.rules
    for flag, given, saved in (
        ("--players", players, rules.players),
        ("--seed", seed, session.seed),
    ):
        if given is not None and given != saved:
            raise ArgumentError(f"{flag} {given} does not match the saved session's {saved}")
    if pot and not session.pot:
        raise ArgumentError("--pot does not match the saved session, which has no pot")
    out.write(
        f"Resuming the session saved in {resume}: {rules.describe()}, seed {session.seed}"
        f"{_POT_TEXT if session.pot else ''}; {session.games_played} games played"
        f"{_who(specs)}.\n"
    )
    return session, specs


def _new_session(
    players: int | None,
    seed: int | None,
    pot: bool | None,
    rules_given: Rules | None,
    bots: Sequence[str] | None,
    pool: BotPool,
    out: TextIO,
) -> tuple[Session, list[str]]:
    """A new session from the flags (``rules_given`` from ``--rules``/``--set``)."""
    from ..session import Session

    players = 3 if players is None else players
    rules = rules_given or Rules.classic(players=players)
    if rules.players != players:
        raise ArgumentError(f"--players {players} does not match the rules' {rules.players}")
    specs = _session_bots(bots, players)
    if seed is None:  # an engine that knew the seed could deal the cards itself
        seed = secrets.randbits(63) if any(map(is_engine_spec, specs)) else 1
    session = Session(_lineup(seed, specs, pool), rules, seed=seed, pot=bool(pot))
    out.write(
        f"Skitgubbe session: {rules.describe()}, seed {seed}{_POT_TEXT if pot else ''}"
        f"{_who(specs)}.\n"
    )
    return session, specs


def _play_session(
    session: Session, specs: Sequence[str], games: int, every: int, save: str | None, out: TextIO
) -> None:
    """Print the cut, play ``games`` games (every ``every``-th printed), the tally, and save."""
    write = out.write
    write("The cut for the first deal (the highest card deals, suits do not matter):\n")
    for number in range(session.cuts[-1].round + 1):
        cuts = [cut for cut in session.cuts if cut.round == number]
        line = f"  round {number + 1}: {', '.join(map(str, cuts))}"
        top = max(cut.card.rank for cut in cuts)
        tied = [cut.seat for cut in cuts if cut.card.rank == top]
        if len(tied) > 1:
            line += f"; {_seats(tied)} tie and cut again"
        write(line + "\n")
    write(f"Seat {session.first_dealer} deals first; the deal passes clockwise.\n")
    last = session.games_played + games
    width = len(str(last))

    def progress(game: SessionGame) -> None:
        number = game.index + 1
        if number % every and number != last:
            return
        result = game.result
        if result.truncated:
            outcome = f"truncated after {result.moves_played} moves"
        elif result.loser is None:
            outcome = "nobody is left holding cards"
        else:
            outcome = f"seat {result.loser} is the skitgubbe"
        tally = " ".join(map(str, session.losses))
        write(f"game {number:>{width}}: seat {game.dealer} deals, {outcome:<30} losses {tally}\n")

    session.play(games, progress)
    standings = session.standings()
    write(f"\nAfter {standings.games} games:\n")
    for seat, losses in enumerate(standings.losses):
        write(f"  seat {seat}: skitgubbe {losses} time{'s' if losses != 1 else ''}\n")
    write(f"  truncated games: {standings.truncated}, games with no loser: {standings.no_loser}\n")
    fewest = standings.losses[standings.winners[0]]
    write(f"Fewest losses ({fewest}): {_seats(standings.winners)}.\n")
    if standings.pot is not None and standings.shares is not None:
        share = standings.shares[standings.winners[0]]
        if len(standings.winners) == 1:
            split = f"{_seats(standings.winners)} takes it all"
        else:
            split = f"{_seats(standings.winners)} share it, {_tokens(share)} each"
        write(f"The pot holds {_tokens(Fraction(standings.pot))}: {split}.\n")
    if save is not None:
        _save_session(session, specs, save)
        write(f"Saved the session to {save}.\n")


def _who(specs: Sequence[str]) -> str:
    """Who plays a session, for its first line."""
    if len(set(specs)) == 1:
        name = "random bots" if specs[0] == "random" else specs[0]
        return f"; {name} play{'' if specs[0] == 'random' else 's'} every seat"
    return "; " + ", ".join(f"seat {seat}: {spec}" for seat, spec in enumerate(specs))


def _percent(rate: float) -> str:
    return f"{rate:.1%}"


def print_match(result: MatchResult, out: TextIO) -> None:
    """Print the per-entrant figures of a match as a table, then its crashes."""
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
    """Play the match the ``arena`` arguments describe, print it and save what was asked."""
    from ..arena import run_match

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
    if args.plot is not None and importlib.util.find_spec("matplotlib") is None:
        # Say so now, not after a long match.
        raise SkitgubbeError("--plot needs matplotlib: pip install 'skitgubbe[plot]'")
    if args.timeout is not None and not (args.timeout > 0 and math.isfinite(args.timeout)):
        raise ArgumentError(f"--move-time must be a positive number of seconds, not {args.timeout}")
    progress = sys.stderr.isatty() if args.progress is None else args.progress
    seed = args.seed
    if seed is None:
        seed = secrets.randbits(63) if args.isolate or any(map(is_engine_spec, entrants)) else 0
    result = run_match(
        entrants,
        _rules(args),
        deals=args.deals,
        seed=seed,
        jobs=args.jobs,
        progress=progress,
        timeout=args.timeout,
        isolate=args.isolate,
    )
    print_match(result, out)
    for path, save in (
        (args.out, result.save_json),
        (args.csv, result.save_csv),
        (args.summary_csv, result.save_summary_csv),
        (args.plot, result.plot),
    ):
        if path is not None:
            save(path)
            out.write(f"Saved {path}.\n")
    return 0


def _common_run(args: argparse.Namespace, specs: Sequence[str]) -> dict[str, Any]:
    """The keyword arguments a sequential test and a ladder share: the seed (drawn in secret
    when an entrant runs out of process), the state file, how the work is spread and the
    progress; fails early when --plot cannot be drawn."""
    if args.plot is not None and importlib.util.find_spec("matplotlib") is None:
        raise SkitgubbeError("--plot needs matplotlib: pip install 'skitgubbe[plot]'")
    if args.timeout is not None and not (args.timeout > 0 and math.isfinite(args.timeout)):
        raise ArgumentError(f"--move-time must be a positive number of seconds, not {args.timeout}")
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
        "progress": sys.stderr.isatty() if args.progress is None else args.progress,
        "timeout": args.timeout,
        "isolate": args.isolate,
    }


def _report(
    out: TextIO, text: str, saves: Sequence[tuple[str | None, Callable[[str], None]]]
) -> int:
    """Print ``text``, then save to each path given (``--out``, ``--csv``, ``--plot``)."""
    out.write(text + "\n")
    for path, save in saves:
        if path is not None:
            save(path)
            out.write(f"Saved {path}.\n")
    return 0


def run_sprt_command(args: argparse.Namespace, out: TextIO) -> int:
    """Run the sequential test the ``sprt`` arguments describe and print its report."""
    from ..sprt import run_sprt

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
        _rules(args),
        alpha=args.alpha,
        beta=args.beta,
        max_deals=args.max_deals,
        **running,
        **bounds,
    )
    return _report(out, result.describe(), [(args.out, result.save_json), (args.plot, result.plot)])


def run_ladder_command(args: argparse.Namespace, out: TextIO) -> int:
    """Play the ladder the ``ladder`` arguments describe and print its table."""
    from ..ladder import LadderResult, run_ladder

    running = _common_run(args, args.bots)
    base = None
    if args.base is not None:
        base = LadderResult.from_dict(load_json_object(args.base, "ladder record"))
    if base is not None and args.players is None and not args.set and args.rules == "classic":
        rules = None  # the base ladder's
    else:
        if args.players is None:
            args.players = 3 if len(args.bots) >= 3 else 2
        rules = _rules(args)
    result = run_ladder(args.bots, rules, rounds=args.rounds, base=base, **running)
    saves = [(args.out, result.save_json), (args.csv, result.save_csv), (args.plot, result.plot)]
    return _report(out, result.describe(), saves)


def _rules(args: argparse.Namespace) -> Rules:
    """The rules from ``--rules PRESET``, ``--players`` and every ``--set FIELD=VALUE``.

    The fields, and the text each takes, come from the one table of rule fields.
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


def _add_rules_arguments(command: argparse.ArgumentParser) -> None:
    command.add_argument("--rules", choices=Rules.presets(), default="classic", help="rules preset")
    fields = ", ".join(f"{field.name} ({field.allowed()})" for field in Rules.fields())
    command.add_argument(
        "--set",
        action="append",
        metavar="FIELD=VALUE",
        help="override one field of the rules, e.g. --set runs=true --set pickup=pile; "
        f"fields: {fields}",
    )


def _add_run_arguments(command: argparse.ArgumentParser) -> None:
    """The options of a long, resumable run (sprt and ladder)."""
    command.add_argument("--seed", type=int, help="seed of the deals (default 0)")
    command.add_argument(
        "--state",
        metavar="FILE",
        help="a JSON-lines file keeping every finished deal set: run again to resume",
    )
    command.add_argument("--jobs", type=int, help="worker processes (default: this process)")
    command.add_argument("--chunk-size", type=int, help="deal sets per task (default 1)")
    command.add_argument(
        "--move-time",
        "--timeout",
        dest="timeout",
        type=float,
        metavar="SECONDS",
        help="time limit of each move; a bot that takes longer loses that game",
    )
    command.add_argument(
        "--isolate", action="store_true", help="play every bot in a process of its own"
    )
    command.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        help="progress lines on stderr (default: when stderr is a terminal)",
    )


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="skitgubbe", description="The Swedish card game Skitgubbe: engine and bots."
    )
    parser.add_argument("--version", action="version", version=f"skitgubbe {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    demo_cmd = commands.add_parser("demo", help="watch one game between random bots")
    demo_cmd.add_argument("--players", type=int, choices=(2, 3, 4))
    _add_rules_arguments(demo_cmd)
    demo_cmd.add_argument("--seed", type=int, default=1, help="deal and bots seed (default 1)")
    demo_cmd.add_argument(
        "--full", action="store_true", help="show every card, as the referee sees it"
    )
    sim_cmd = commands.add_parser("simulate", help="play many random games in the C core")
    sim_cmd.add_argument("--players", type=int, choices=(2, 3, 4))
    _add_rules_arguments(sim_cmd)
    sim_cmd.add_argument("--games", type=int, default=100_000)
    sim_cmd.add_argument("--seed", type=int, default=0)
    sim_cmd.add_argument(
        "--threads", type=int, default=1, help="threads sharing the games (same totals)"
    )
    session_cmd = commands.add_parser(
        "session",
        help="play a session of games between bots: cut, rotating deal, tally, pot",
    )
    session_cmd.add_argument(
        "--players", type=int, choices=(2, 3, 4), help="number of players (default 3)"
    )
    session_cmd.add_argument("--games", type=int, default=10, help="games to play (default 10)")
    session_cmd.add_argument(
        "--bots",
        nargs="+",
        metavar="SPEC",
        help="bot specs: one for every seat, or one per seat in seat order (default random; "
        "e.g. greedy, 'pimc:worlds=16', or an engine in a process of its own: 'cmd:./mybot'); "
        "saved with the session",
    )
    session_cmd.add_argument(
        "--seed",
        type=int,
        help="session seed (default 1; a random one when a bot is an engine, cmd:...)",
    )
    session_cmd.add_argument(
        "--pot", action="store_true", default=None, help="each loss puts a token in the pot"
    )
    session_cmd.add_argument("--save", metavar="FILE", help="write the session record as JSON")
    session_cmd.add_argument("--resume", metavar="FILE", help="continue the session saved in FILE")
    session_cmd.add_argument(
        "--every", type=int, default=1, metavar="N", help="print every Nth game (default 1)"
    )
    session_cmd.add_argument(
        "--rules", choices=("classic", "modern"), help="rules preset of a new session"
    )
    session_cmd.add_argument(
        "--set", action="append", metavar="FIELD=VALUE", help="override a rule of a new session"
    )
    arena_cmd = commands.add_parser(
        "arena",
        help="a match between bots over duplicate deals: loss rates with 95 %% intervals",
        description="Play every deal under every seat arrangement of the entrants and print "
        "each bot's loss rate (with a 95 % Wilson interval over deal sets), mean finishing "
        "place, truncated games and crashes. A bot that raises, answers an illegal move, takes "
        "longer than --move-time or dies with its worker process loses that game (a crash).",
    )
    arena_cmd.add_argument(
        "entrants",
        nargs="+",
        metavar="BOT",
        help="bot specs, one per seat, e.g. greedy 'pimc:worlds=32' random, or engines in "
        "processes of their own: 'cmd:./mybot', 'cmd[move_time=1,style=high]:node bot.js'",
    )
    arena_cmd.add_argument(
        "--players", type=int, choices=(2, 3, 4), help="(default: the number of entrants)"
    )
    _add_rules_arguments(arena_cmd)
    arena_cmd.add_argument("--deals", type=int, default=100, help="deal sets (default 100)")
    arena_cmd.add_argument(
        "--seed",
        type=int,
        help="match seed (default 0; a random one, printed, when an entrant is out of process: "
        "an engine that knew the seed could deal the cards itself)",
    )
    arena_cmd.add_argument(
        "--jobs", type=int, help="worker processes (default: play in this process)"
    )
    arena_cmd.add_argument(
        "--move-time",
        "--timeout",
        dest="timeout",
        type=float,
        metavar="SECONDS",
        help="time limit of each move (each call into a bot: choose and its hooks); a bot "
        "that takes longer loses that game. The games then run in worker processes (at least "
        "one), so a bot that never answers is stopped (default: no limit)",
    )
    arena_cmd.add_argument(
        "--isolate",
        action="store_true",
        help="play every entrant in a process of its own, over the engine protocol (a built-in "
        "or registered bot is served by 'skitgubbe engine'): no bot can reach the referee's "
        "game or another bot; engine specs (cmd:COMMAND) always are",
    )
    arena_cmd.add_argument("--out", metavar="FILE", help="save the match as JSON")
    arena_cmd.add_argument("--csv", metavar="FILE", help="save one CSV row per game")
    arena_cmd.add_argument("--summary-csv", metavar="FILE", help="save one CSV row per entrant")
    arena_cmd.add_argument(
        "--plot", metavar="FILE", help="save a PNG of the loss rates (needs matplotlib)"
    )
    arena_cmd.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        help="progress lines on stderr (default: when stderr is a terminal)",
    )
    sprt_cmd = commands.add_parser(
        "sprt",
        help="is NEW stronger than OLD? a sequential test over duplicate deals",
        description="Seat NEW against copies of OLD and play deal sets (a deal under every "
        "seating) until the generalized SPRT on NEW's share of the loss decides: H1, NEW is "
        "stronger by the upper bound, or H0, it is not stronger than the lower bound. Elo "
        "bounds mean P(lose) = 1/(1 + (n-1) 10^(elo/400)).",
    )
    sprt_cmd.add_argument("new", metavar="NEW", help="the bot under test (a bot spec)")
    sprt_cmd.add_argument("old", metavar="OLD", help="the bot it must beat, in every other seat")
    sprt_cmd.add_argument("--players", type=int, choices=(2, 3, 4), default=3)
    _add_rules_arguments(sprt_cmd)
    sprt_cmd.add_argument(
        "--elo",
        type=float,
        nargs=2,
        metavar=("ELO0", "ELO1"),
        help="H0 and H1 as Elo (default 0 10)",
    )
    sprt_cmd.add_argument(
        "--delta",
        type=float,
        nargs=2,
        metavar=("D0", "D1"),
        help="H0 and H1 as loss-rate differences below the fair share 1/n",
    )
    sprt_cmd.add_argument("--alpha", type=float, default=0.05, help="false H1 rate (0.05)")
    sprt_cmd.add_argument("--beta", type=float, default=0.05, help="false H0 rate (0.05)")
    sprt_cmd.add_argument("--max-deals", type=int, help="stop undecided after this many deal sets")
    _add_run_arguments(sprt_cmd)
    sprt_cmd.add_argument("--out", metavar="FILE", help="save the test as JSON")
    sprt_cmd.add_argument("--plot", metavar="FILE", help="save a PNG of the LLR's path")
    ladder_cmd = commands.add_parser(
        "ladder",
        help="rate many bots: Plackett-Luce Elo with intervals clustered by deal set",
        description="Play the bots at tables (every table for up to ten bots, balanced random "
        "tables beyond; with --base only the new bot's tables, a gauntlet), every deal under "
        "every seating, and fit Plackett-Luce ratings to the finishing orders, Elo-scaled and "
        "anchored at random (else the first bot).",
    )
    ladder_cmd.add_argument("bots", nargs="+", metavar="BOT", help="bot specs (one with --base)")
    ladder_cmd.add_argument("--players", type=int, choices=(2, 3, 4), help="seats per table (3)")
    _add_rules_arguments(ladder_cmd)
    ladder_cmd.add_argument("--rounds", type=int, default=20, help="rounds of tables (20)")
    ladder_cmd.add_argument(
        "--base", metavar="FILE", help="a saved ladder (--out) to add the one BOT to"
    )
    _add_run_arguments(ladder_cmd)
    ladder_cmd.add_argument("--out", metavar="FILE", help="save the ladder as JSON")
    ladder_cmd.add_argument("--csv", metavar="FILE", help="save one CSV row per bot")
    ladder_cmd.add_argument("--plot", metavar="FILE", help="save a PNG of the ratings")
    play_cmd = commands.add_parser(
        "play",
        help="play a game against bots in the terminal",
        description="You against bots: answer with a move number or move text (7h, 7h 8h 9h, "
        "pick, flip, slough 7h, pass); commands: hint, undo (--casual), save [FILE], quit, help.",
    )
    play_cmd.add_argument(
        "--players", type=int, choices=(2, 3, 4), help="number of players (default 3)"
    )
    play_cmd.add_argument(
        "--bots",
        nargs="+",
        metavar="SPEC",
        default=["greedy"],
        help="bot specs for the other seats: one for all, or one per seat in seat order "
        "(default greedy; e.g. random, pimc, 'ismcts:iterations=5000', or an engine in a "
        "process of its own: 'cmd:./mybot')",
    )
    play_cmd.add_argument("--seat", type=int, default=0, help="your seat (default 0, leads first)")
    _add_rules_arguments(play_cmd)
    play_cmd.add_argument("--seed", type=int, help="deal and bots seed (default: a random one)")
    play_cmd.add_argument(
        "--casual", action="store_true", help="a casual game: undo takes moves back"
    )
    engine_cmd = commands.add_parser(
        "engine",
        help="serve a bot over the engine protocol on stdin and stdout (docs/protocol.md)",
        description="Play as an engine: a referee (the arena with 'cmd:skitgubbe engine "
        "greedy', or any program speaking the protocol) starts this command and talks to it "
        "in JSON lines on stdin and stdout. Nothing else is written to stdout.",
    )
    engine_cmd.add_argument(
        "spec",
        metavar="SPEC",
        help="a built-in bot spec (greedy, 'pimc:worlds=32') or your own class or factory: "
        "module:Name or path/to/file.py:Name",
    )
    replay_cmd = commands.add_parser(
        "replay",
        help="step through a saved game, from one seat's view or every card face up",
        description="Replay a game record (from `skitgubbe play`'s save, or Game.record()). "
        "In a terminal: Enter shows the next move, b the one before, a number jumps to that "
        "move, q quits. Without a terminal, or with --all, the whole game is printed.",
    )
    replay_cmd.add_argument("file", metavar="FILE", help="a JSON game record")
    replay_cmd.add_argument(
        "--seat", type=int, help="show only what this seat saw (default: every card)"
    )
    replay_cmd.add_argument(
        "--all", action="store_true", help="print the whole game at once (no stepping)"
    )
    serve_cmd = commands.add_parser(
        "serve",
        help="run the multiplayer server and its browser table (extra: server)",
        description="Serve the lobby, the websockets and the browser table (docs/server.md). "
        "Every move is stored in the SQLite file before anyone is told of it; started again "
        "on the same file, the server resumes every game. Needs the 'server' extra "
        "(pip install 'skitgubbe[server]').",
    )
    serve_cmd.add_argument("--host", default="127.0.0.1", help="address (default 127.0.0.1)")
    serve_cmd.add_argument("--port", type=int, default=8080, help="port (default 8080)")
    serve_cmd.add_argument(
        "--db", default="skitgubbe-server.db", help="the SQLite file (default skitgubbe-server.db)"
    )
    serve_cmd.add_argument(
        "--engine",
        action="append",
        default=[],
        metavar="NAME=SPEC",
        help="let tables seat this engine as 'engine:NAME' (SPEC: an engine spec such as "
        "'cmd:./mybot'; repeat for more)",
    )
    serve_cmd.add_argument(
        "--max-bot-iterations",
        type=int,
        default=20_000,
        metavar="N",
        help="refuse a table whose searching bot does more per move: an ismcts seat's "
        "iterations, a pimc seat's worlds x rollouts (default 20000)",
    )
    return parser


def run_play(args: argparse.Namespace) -> int:
    """Play the game the ``play`` arguments describe, in this terminal."""
    from .play import PlaySession  # rich is imported only by the commands that draw with it

    session = PlaySession.new(
        _rules(args), bots=args.bots, seat=args.seat, seed=args.seed, casual=args.casual
    )
    return session.run()


def run_replay(args: argparse.Namespace) -> int:
    """Replay the record in ``args.file``: step through it in a terminal, else print it."""
    from rich.console import Console

    from .replay import Replay

    replay = Replay.load(args.file, seat=args.seat)
    console = Console(highlight=False)
    if args.all or not sys.stdin.isatty():
        replay.print_all(console)
        return 0
    return replay.step(console)


def run_server(args: argparse.Namespace) -> int:  # pragma: no cover - serves until stopped
    """Serve the multiplayer server until interrupted."""
    try:
        from ..server import run
    except ModuleNotFoundError as error:
        raise ArgumentError(
            f"skitgubbe serve needs {error.name}: pip install 'skitgubbe[server]'"
        ) from None
    engines: dict[str, str] = {}
    for entry in args.engine:
        name, equals, spec = entry.partition("=")
        if not equals or not name.strip() or not spec.strip():
            raise ArgumentError(f"--engine takes NAME=SPEC (e.g. low=cmd:./lowbot), not {entry!r}")
        engines[name.strip()] = spec.strip()
    if args.max_bot_iterations < 1:
        raise ArgumentError(f"--max-bot-iterations must be >= 1, not {args.max_bot_iterations}")
    run(args.host, args.port, args.db, engines, args.max_bot_iterations)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``skitgubbe`` command; returns the exit status.

    >>> main(["simulate", "--players", "2", "--games", "10", "--seed", "1"])  # doctest: +ELLIPSIS
    10 random games, classic, 2 players, seed 1: ... moves per game, ... games/s
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


INTERRUPTED: Final = 130
"""The exit status of a run stopped by Ctrl-C (128 + SIGINT, as shells report it)."""


def _interruptible(command: Callable[[argparse.Namespace, TextIO], int], args: Any) -> int:
    """Run a long ``command`` (arena, sprt, ladder); Ctrl-C stops it with one line on
    stderr that says what was kept, and the status :data:`INTERRUPTED`, not a traceback.

    The state file (``--state``) is whole at any moment, each deal set a line appended
    once it is done, so the line can say to run the command again to resume.
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


def _run(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    try:
        if args.command == "demo":
            return demo(_rules(args), args.seed, args.full, sys.stdout)
        if args.command == "simulate":
            return run_simulation(_rules(args), args.games, args.seed, sys.stdout, args.threads)
        if args.command == "session":
            return run_session(
                args.players,
                args.games,
                args.seed,
                args.pot,
                args.save,
                args.resume,
                args.every,
                sys.stdout,
                _rules(args) if args.rules or args.set else None,
                args.bots,
            )
        if args.command == "arena":
            return _interruptible(run_arena, args)
        if args.command == "sprt":
            return _interruptible(run_sprt_command, args)
        if args.command == "ladder":
            return _interruptible(run_ladder_command, args)
        if args.command == "play":
            return run_play(args)
        if args.command == "replay":
            return run_replay(args)
        if args.command == "engine":
            from ..serve import serve_spec

            return serve_spec(args.spec)
        if args.command == "serve":
            return run_server(args)
    except SkitgubbeError as exc:
        parser.exit(2, f"skitgubbe: error: {exc}\n")
    parser.print_help()
    return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
