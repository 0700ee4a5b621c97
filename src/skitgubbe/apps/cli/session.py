"""``skitgubbe session``: a session (docs/rules.md §7) between bots, saved and resumed.

The session cuts for the first deal, plays its games with the deal passing
clockwise, prints each game (or every ``--every``-th) and the tally, shares the
pot (``--pot``), and saves its record (``--save``) with the bots it was played
with, so ``--resume`` plays on exactly as an uninterrupted session would
(:func:`run_session`).

>>> import io
>>> out = io.StringIO()
>>> run_session(2, 1, 7, None, None, None, 1, out)
0
>>> out.getvalue().splitlines()[0]
'Skitgubbe session: classic, 2 players, seed 7; random bots play every seat.'
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import sys
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Final, TextIO

from ... import _core
from ..._files import load_json_object
from ...bots import BotPool, EngineSpec, is_engine_spec, make
from ...errors import ArgumentError, RulesError, SkitgubbeError
from ...game.rules import Rules
from ...play.players import Player
from .common import rules_from_args

if TYPE_CHECKING:
    # Sessions load only when the command runs, so that `skitgubbe --help` starts quickly.
    from ...play.session import Session, SessionGame
    from .common import Commands

__all__ = ["add_session_command", "random_lineup", "run_session"]


def _lineup(
    seed: int, specs: Sequence[str], pool: BotPool | None = None
) -> Callable[[int], list[Player]]:
    """The bots of each game of a session, so a resumed session plays on exactly as an
    uninterrupted one: in game ``index`` seat ``s`` is the bot ``specs[s]`` made with
    the seed ``game_seed(game_seed(seed, index), s)`` (an engine of ``pool`` is kept
    running and sent that seed)."""
    bots = pool if pool is not None else BotPool()

    def lineup(index: int) -> list[Player]:
        game = _core.game_seed(seed, index)
        return [
            bots.make(spec, seed=_core.game_seed(game, seat), slot=seat)
            for seat, spec in enumerate(specs)
        ]

    return lineup


def random_lineup(seed: int, players: int) -> Callable[[int], list[Player]]:
    """Fresh RandomBots for each game of a session, as ``skitgubbe session`` seats them:
    in game ``index`` seat ``s`` is ``RandomBot`` made with the seed
    ``game_seed(game_seed(seed, index), s)``.

    >>> [type(bot).__name__ for bot in random_lineup(40, 3)(0)]
    ['RandomBot', 'RandomBot', 'RandomBot']
    """
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
    from ...play.session import Session

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

    >>> import io
    >>> out = io.StringIO()
    >>> run_session(3, 2, 4, True, None, None, 1, out, bots=["greedy"])
    0
    >>> print(out.getvalue().splitlines()[0])
    Skitgubbe session: classic, 3 players, seed 4, with a token pot; greedy plays every seat.
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
    from ...play.session import Session

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


def add_session_command(commands: Commands) -> None:
    """Add ``skitgubbe session`` to the command line's ``commands``.

    >>> parser = argparse.ArgumentParser(prog="skitgubbe")
    >>> add_session_command(parser.add_subparsers(dest="command"))
    >>> parser.parse_args(["session", "--bots", "greedy", "random", "random"]).bots
    ['greedy', 'random', 'random']
    """
    command = commands.add_parser(
        "session",
        help="play a session of games between bots: cut, rotating deal, tally, pot",
    )
    command.add_argument(
        "--players", type=int, choices=(2, 3, 4), help="number of players (default 3)"
    )
    command.add_argument("--games", type=int, default=10, help="games to play (default 10)")
    command.add_argument(
        "--bots",
        nargs="+",
        metavar="SPEC",
        help="bot specs: one for every seat, or one per seat in seat order (default random; "
        "e.g. greedy, 'pimc:worlds=16', or an engine in a process of its own: 'cmd:./mybot'); "
        "saved with the session",
    )
    command.add_argument(
        "--seed",
        type=int,
        help="session seed (default 1; a random one when a bot is an engine, cmd:...)",
    )
    command.add_argument(
        "--pot", action="store_true", default=None, help="each loss puts a token in the pot"
    )
    command.add_argument("--save", metavar="FILE", help="write the session record as JSON")
    command.add_argument("--resume", metavar="FILE", help="continue the session saved in FILE")
    command.add_argument(
        "--every", type=int, default=1, metavar="N", help="print every Nth game (default 1)"
    )
    command.add_argument(
        "--rules", choices=("classic", "modern"), help="rules preset of a new session"
    )
    command.add_argument(
        "--set", action="append", metavar="FIELD=VALUE", help="override a rule of a new session"
    )
    command.set_defaults(handler=_run_session)


def _run_session(args: argparse.Namespace) -> int:
    return run_session(
        args.players,
        args.games,
        args.seed,
        args.pot,
        args.save,
        args.resume,
        args.every,
        sys.stdout,
        rules_from_args(args) if args.rules or args.set else None,
        args.bots,
    )
