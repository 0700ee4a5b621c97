"""A match between bots over duplicate deals: :func:`run_match`.

Every deal is played under every seating of the entrants; the games run in this
process, in worker processes of the match's own (:mod:`skitgubbe.arena.workers`)
or on an executor, with the same result however the work is spread. The result
is a :class:`~skitgubbe.arena.results.MatchResult`.

>>> run_match(["greedy", "random"], deals=2, seed=7).entrant("greedy").games
4
"""

from __future__ import annotations

import itertools
import multiprocessing
from collections.abc import Sequence
from concurrent.futures import Executor
from typing import Final

from ..game.rules import Rules
from .results import MatchGame, MatchResult
from .runner import (
    Progress,
    check_int,
    check_running,
    make_plan,
    move_time_argument,
    play_deals,
)
from .workers import completed, play_in_workers

__all__ = ["run_match"]

_TASKS: Final = 200
"""By default the deal sets are cut into about this many tasks for an executor:
enough to balance the workers and report progress, few enough that per-task
overhead (pickling, scheduling) stays small next to the games."""


def _forks() -> bool:
    """Whether worker processes are forked from this one (and so know its bots)."""
    # The first of all start methods is the default; asking get_start_method() without
    # allow_none would fix the start method for the whole program.
    method = multiprocessing.get_start_method(allow_none=True)
    return (method or multiprocessing.get_all_start_methods()[0]) == "fork"


def run_match(
    entrants: Sequence[str],
    rules: Rules | None = None,
    *,
    deals: int,
    seed: int,
    jobs: int | None = None,
    executor: Executor | None = None,
    progress: bool | Progress = False,
    chunk_size: int | None = None,
    move_time: float | None = None,
    isolate: bool = False,
    timeout: float | None = None,
) -> MatchResult:
    """Play a match between bots over ``deals`` duplicate deals.

    ``entrants`` are bot specs (:func:`skitgubbe.bots.make`), one per seat,
    engine specs among them (``"cmd:./mybot"``: a program speaking the engine
    protocol, in a process of its own; see :mod:`skitgubbe.bots.command`);
    ``rules`` default to the classic rules for that many players. Deal ``d`` is
    shuffled from ``game_seed(seed, d)`` (``skitgubbe._core``), dealt by the
    last seat, and played once under each of :func:`arrangements`; the bot at
    seat ``s`` of arrangement ``a`` is made fresh with the seed
    ``blinded_seed(game_seed(game_seed(game_seed(seed, d), a), s))``
    (:func:`~skitgubbe.bots.blinded_seed`: one-way, so that no bot can work
    back to the deal). A bot that raises or
    answers an illegal move loses that game (a crash, kept with its traceback)
    and the match goes on.

    An engine is started once per worker (or once, in this process) and plays
    every game of its entrant there, sent the game's bot seed before each game
    where it declares a ``seed`` option; ``isolate=True`` plays every entrant
    so, a registered bot served by ``skitgubbe engine`` (trusted code then runs
    apart from the referee: no bot can reach another's state or the game's). The
    deals follow from ``seed`` by a public algorithm: against bots you do not
    trust, keep it secret (``secrets.randbits(63)``).
    A seeded engine plays exactly as the bot in process would. An engine whose
    process ends, or that cannot start, loses its game (a :class:`Crash` of
    kind ``"died"``) and is started again for the next.

    ``move_time`` is a time limit in seconds for every call into a bot (making
    it, ``choose``, its hooks; ``None``, the default: no limit): a bot whose
    call takes longer loses that game, exactly like a crash (a :class:`Crash`
    of kind ``"timeout"``). With a limit the games run in worker processes
    (one, unless ``jobs`` says more) and a call that does not return is
    stopped: its worker is killed a moment after the limit and replaced. On an
    ``executor``, or in this process when a bot cannot be sent to a worker, a
    late answer still loses but a call that never returns stalls the match.

    ``timeout`` is the old name of ``move_time`` (deprecated: it still works,
    with a :class:`DeprecationWarning`, for one release). The limit is kept in
    :attr:`MatchResult.timeout <skitgubbe.arena.results.MatchResult.timeout>`
    (the match record's key).

    The work runs in this process (``jobs`` None or 1, no ``move_time``), in
    ``jobs`` worker processes of the match's own, or on any ``executor`` (e.g. a
    Dask client's), in tasks of ``chunk_size`` deal sets (by default about 200
    tasks in all); the result is the same whichever (a time limit aside). A
    worker process of the match's own that dies (a crash in native code,
    ``os._exit``, a kill) loses its game for the bot in a call at that moment
    (a :class:`Crash` of kind ``"died"``) and is replaced. ``progress=True``
    prints a line on stderr every few seconds; a callable gets ``(deal sets
    done, deal sets in all)``.

    >>> import skitgubbe as sg
    >>> result = sg.run_match(["random", "random", "random"], deals=10, seed=7)
    >>> stats = result.entrant("random")
    >>> stats.games, stats.seat_games, len(result.games)
    (30, (10, 10, 10), 10)
    >>> result == sg.run_match(["random"] * 3, deals=10, seed=7, progress=lambda done, total: None)
    True
    >>> timed = sg.run_match(["greedy", "random"], deals=2, seed=7, move_time=10)
    >>> timed.timeout, timed.crashes
    (10, ())
    >>> sg.run_match(["greedy", "random"], deals=2, seed=7, isolate=True) == sg.run_match(
    ...     ["greedy", "random"], deals=2, seed=7
    ... )
    True
    """
    move_time = move_time_argument(move_time, timeout, "run_match")
    plan = make_plan(entrants, rules, seed, move_time, isolate)
    specs, rules, move_time = plan.seatings[0], plan.rules, plan.move_time
    check_int("deals", deals, 1)
    report = check_running(jobs, executor, chunk_size, progress)
    size = chunk_size or -(-deals // _TASKS)
    games: list[MatchGame] = []
    # A worker can take every bot if their factories travel or the worker is forked
    # from this process, registry and all.
    portable = all(factory is not None for _, factory in plan.factories)
    if executor is None and ((jobs or 1) > 1 or (move_time is not None and (portable or _forks()))):
        starts = range(0, deals, size)
        tasks = [
            [
                (deal, arrangement, number)
                for deal in range(start, min(start + size, deals))
                for arrangement in range(len(plan.seatings))
            ]
            for number, start in enumerate(starts)
        ]
        sets = {number: min(size, deals - start) for number, start in enumerate(starts)}
        played = play_in_workers(plan, tasks, jobs or 1, sets, report, deals)
        games = [played[deal, arrangement] for deal, arrangement, _ in itertools.chain(*tasks)]
    elif executor is None:
        with plan.pool() as engine_pool:
            for deal in range(deals):
                games.extend(play_deals(plan, deal, deal + 1, engine_pool))
                if report is not None:
                    report(deal + 1, deals)
    else:
        starts = range(0, deals, size)
        parts: dict[int, list[MatchGame]] = {}
        calls = ((start, play_deals, (plan, start, min(start + size, deals))) for start in starts)
        for start, part in completed(executor, calls):
            parts[start] = part
            if report is not None:
                report(sum(map(len, parts.values())) // len(plan.seatings), deals)
        for start in starts:
            games.extend(parts[start])
    return MatchResult(
        entrants=specs, rules=rules, deals=deals, seed=seed, games=tuple(games), timeout=move_time
    )
