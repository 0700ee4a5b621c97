"""Running match games in this process: the plan of a match (its deals and
seatings, its bots), one game under the referee, the deal sets, and the argument
checks that :func:`~skitgubbe.arena.match.run_match`,
:func:`~skitgubbe.arena.sprt.run_sprt` and :func:`~skitgubbe.arena.ladder.run_ladder`
share.

A bot that raises, answers an illegal move or overruns the time limit loses its
game (a :class:`~skitgubbe.arena.results.Crash`); the worker processes of
:mod:`skitgubbe.arena.workers` play their games with :func:`play_match_game` too.

>>> plan = make_plan(["greedy", "random"], None, 7, None, False)
>>> [game.seats for game in play_deals(plan, 0, 1)]
[('greedy', 'random'), ('random', 'greedy')]
"""

from __future__ import annotations

import collections
import contextlib
import functools
import itertools
import pickle
import sys
import time
import traceback
import warnings
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Executor
from typing import Any, Final, Literal, TypeAlias

import attrs

from .. import _core
from .._limits import check_move_time
from ..bots import registry
from ..bots.command import BotPool, EngineSpec, blinded_seed
from ..errors import (
    ArgumentError,
    ArgumentTypeError,
    EngineError,
    EngineTimeoutError,
    PlayerError,
    SkitgubbeError,
)
from ..game.rules import Rules
from ..game.state import Game
from ..play.players import Player
from ..play.referee import PlayerCall, Referee
from .results import Crash, CrashKind, MatchGame, arrangements

__all__ = [
    "METHODS",
    "MatchPlan",
    "Method",
    "Progress",
    "Publish",
    "Unit",
    "Watch",
    "check_int",
    "check_registered",
    "check_running",
    "late_error",
    "lost_game",
    "make_plan",
    "move_time_argument",
    "one_line",
    "play_deals",
    "play_match_game",
    "play_sets",
]

_PROGRESS_EVERY: Final = 3.0
"""Seconds between two progress lines on stderr."""

Progress: TypeAlias = Callable[[int, int], object]
"""Called with (deal sets done, deal sets in all) as the match goes on."""


@attrs.frozen
class MatchPlan:
    """What a worker needs to play any deal set of a match (pickled once per task).

    ``factories`` carries, per spec, the factory registered in the calling
    process, so that workers which did not register the bot (spawned processes,
    remote Dask workers) play the same bot; ``None`` where the factory could
    not be pickled, and the worker's own registry is used. ``move_time`` is the
    match's time limit per call to a bot. ``engines`` gives, per spec played out
    of process (an engine spec, or every spec of an isolated match), the
    :class:`~skitgubbe.bots.EngineSpec` that runs it. :func:`make_plan` checks
    the arguments and makes one.

    >>> plan = make_plan(["greedy", "random"], None, 7, 0.5, False)
    >>> plan.move_time, plan.make("greedy", seed=1).__class__.__name__
    (0.5, 'GreedyBot')
    """

    rules: Rules
    seatings: tuple[tuple[str, ...], ...]
    seed: int
    factories: tuple[tuple[str, registry.BotFactory | None], ...]
    move_time: float | None = None
    engines: tuple[tuple[str, EngineSpec], ...] = ()

    def pool(self) -> BotPool:
        """A pool for the engines of the games a process plays (close it after them)."""
        return BotPool(move_time=self.move_time, specs=dict(self.engines))

    def make(self, spec: str, seed: int) -> Player:
        """A new bot ``spec`` made with ``seed``, by the factory the plan carries (if any)."""
        factory = dict(self.factories).get(spec)
        if factory is None:
            return registry.make(spec, seed=seed)
        return factory(seed=seed, **registry.parse_spec(spec)[1])


def _portable(factory: registry.BotFactory) -> registry.BotFactory | None:
    try:
        pickle.dumps(factory)
    except Exception:  # lambdas, local classes: any pickling failure means "not portable"
        return None
    return factory


def _crash_kind(exc: BaseException) -> CrashKind:
    """How a bot that raised ``exc`` lost: an engine that ran out of time, or whose
    process ended (or would not start), lost by ``timeout`` or ``died``."""
    if isinstance(exc, EngineTimeoutError):
        return "timeout"
    if isinstance(exc, EngineError) and exc.kind in ("exit", "start", "handshake"):
        return "died"
    return "error"


def one_line(exc: BaseException) -> str:
    """The exception's type and the first line of its message: a crash's ``error``.

    >>> one_line(ValueError("boom\\nmore")), one_line(KeyError())
    ('ValueError: boom', 'KeyError')
    """
    try:
        message = str(exc).strip().partition("\n")[0]
    except Exception:  # a player's exception whose __str__ fails still makes a crash record
        message = "<exception str() failed>"
    return f"{type(exc).__name__}: {message}" if message else type(exc).__name__


Method: TypeAlias = Literal["make", "game_started", "choose", "game_ended"]
"""The calls into a bot's code during a game: making it, then the referee's calls."""

METHODS: Final[tuple[Method, ...]] = ("make", "game_started", "choose", "game_ended")
"""Every :data:`Method`, in the order of a game (a worker shares a call's index in it)."""


def late_error(seat: int, spec: str, limit: float, method: Method) -> str:
    """The one-line error of a call to the bot ``spec`` at ``seat`` that overran ``limit``.

    >>> late_error(1, "greedy", 0.5, "choose")
    'PlayerTimeoutError: seat 1 (greedy) did not answer within 0.5 s'
    """
    if method == "choose":
        what = "did not answer"
    elif method == "make":
        what = "was not made"
    else:
        what = f"did not return from {method}"
    return f"PlayerTimeoutError: seat {seat} ({spec}) {what} within {limit} s"


def lost_game(
    plan: MatchPlan,
    deal: int,
    arrangement: int,
    crash: Crash,
    before: Sequence[int],
    truncated: bool,
    moves: int,
) -> MatchGame:
    """Game (``deal``, ``arrangement``) lost by the crash's seat, after ``moves`` moves.

    ``before`` are the seats out so far (in order); they keep their places and the
    crashed seat ends the finish order.

    >>> plan = make_plan(["greedy", "random", "random"], None, 0, None, False)
    >>> game = lost_game(plan, 0, 0, Crash(1, "E", ""), [2], False, 12)
    >>> game.loser, game.finish_order, game.seats
    (1, (2, 1), ('greedy', 'random', 'random'))
    """
    seat = crash.seat
    return MatchGame(
        deal=deal,
        arrangement=arrangement,
        seats=plan.seatings[arrangement],
        loser=seat,
        finish_order=(*(s for s in before if s != seat), seat),
        truncated=truncated,
        moves=moves,
        crash=crash,
    )


class _LostError(Exception):
    """A bot lost the game being played: the crash says how."""

    def __init__(self, crash: Crash) -> None:
        super().__init__(crash.error)
        self.crash = crash


Watch: TypeAlias = Callable[[int, Method, Sequence[int], bool, int], object]
"""Told ``(seat, method, seats out so far, truncated, moves played)`` before each call
into a bot, and ``(-1, method, (), False, 0)`` when it returns."""


Publish: TypeAlias = Callable[[BotPool], object]
"""Told the pool after its engines start for a game and after the game (a worker
shares their process ids with its parent, which kills what a stopped worker left)."""


def play_match_game(
    plan: MatchPlan,
    pool: BotPool,
    deal: int,
    arrangement: int,
    watch: Watch | None = None,
    publish: Publish | None = None,
) -> MatchGame:
    """Play one game with a :class:`~skitgubbe.Referee`; a bot that fails it loses it.

    A bot that raises (while being made, in ``choose`` or in a hook), answers
    anything but a legal move, or returns from a call later than
    ``plan.move_time`` (by the monotonic clock) crashes: the game ends there, lost
    by that bot. The crash keeps the bot's own exception (the
    :class:`~skitgubbe.PlayerError` itself for an illegal answer). ``watch``,
    if given, is told about every call into a bot before it is made and after
    it returns (a worker process shares this with its parent, which stops a
    call that never returns).

    Bots played out of process are engines of ``pool``, started (or started
    again after a fault) before the game, outside the time limit: a start is not
    a move, and the handshake has its own time. An engine that cannot start, or
    whose process ends during the game, loses it (``"died"``); one that runs out
    of time loses by ``"timeout"``.

    >>> from skitgubbe.bots.command import BotPool
    >>> plan = make_plan(["greedy", "random"], None, 7, None, False)
    >>> with BotPool() as pool:
    ...     game = play_match_game(plan, pool, deal=0, arrangement=1)
    >>> game.seats, game.crash
    (('random', 'greedy'), None)
    """
    seats = plan.seatings[arrangement]
    deck_seed = _core.game_seed(plan.seed, deal)
    game = Game.new(plan.rules, seed=deck_seed)
    bot_seed = _core.game_seed(deck_seed, arrangement)
    limit = plan.move_time

    def call(seat: int, method: Method, make: Callable[[], Any], before: Sequence[int]) -> Any:
        over = game.result
        if watch is not None:
            watch(seat, method, before, over is not None and over.truncated, game.moves_played)
        started = time.monotonic()
        try:
            answer = make()
        except Exception as exc:
            crash = Crash(seat, one_line(exc), _traceback(exc), _crash_kind(exc))
            raise _LostError(crash) from None
        finally:
            if watch is not None:
                watch(-1, method, (), False, 0)
        if limit is not None and time.monotonic() - started > limit:
            late = late_error(seat, seats[seat], limit, method)
            raise _LostError(Crash(seat, late, late + "\n", "timeout"))
        return answer

    def ask(turn: PlayerCall[Player]) -> Any:
        observation = turn.observation
        before = observation.finished if turn.method != "game_ended" else turn.args[1].finish_order
        return call(turn.seat, turn.method, turn, before)

    try:
        lineup: list[Player] = []
        copies: collections.Counter[str] = collections.Counter()
        for seat, spec in enumerate(seats):
            seed = _core.game_seed(bot_seed, seat)
            if pool.out_of_process(spec):
                slot = copies[spec]
                copies[spec] += 1
                try:
                    pool.start(spec, slot=slot)
                except EngineError as error:
                    crash = Crash(seat, one_line(error), _traceback(error), _crash_kind(error))
                    raise _LostError(crash) from None
                made = functools.partial(pool.make, spec, seed=seed, slot=slot)
            else:  # the same seed the pool gives an engine
                made = functools.partial(plan.make, spec, blinded_seed(seed))
            lineup.append(call(seat, "make", made, ()))
        if publish is not None:
            publish(pool)
        referee = Referee(lineup, game=game)
        for hook in referee.start():
            ask(hook)
        while (turn := referee.turn()) is not None:
            answer = ask(turn)
            try:
                referee.accept(turn, answer)
            except PlayerError as error:
                crash = Crash(turn.seat, one_line(error), _traceback(error), "illegal")
                raise _LostError(crash) from None
        failures: list[_LostError] = []
        for hook in referee.finish():  # every bot hears the end, even after one fails
            try:
                ask(hook)
            except _LostError as lost:
                failures.append(lost)
        if failures:
            raise failures[0]
    except _LostError as lost:
        for player in lineup:  # engines hear that the game was stopped
            abandon = getattr(player, "abandon", None) if pool.owns(player) else None
            if abandon is not None:
                abandon(f"seat {lost.crash.seat} lost the game: {lost.crash.error}"[:500])
        over = game.result
        seat = lost.crash.seat
        before = over.finish_order if over is not None else game.observation(seat).finished
        truncated = over is not None and over.truncated
        return lost_game(plan, deal, arrangement, lost.crash, before, truncated, game.moves_played)
    finally:
        if publish is not None:
            publish(pool)  # engines that failed in the game are gone
    result = referee.result
    assert result is not None
    return MatchGame(
        deal=deal,
        arrangement=arrangement,
        seats=seats,
        loser=result.loser,
        finish_order=result.finish_order,
        truncated=result.truncated,
        moves=result.moves_played,
    )


def _traceback(exc: BaseException) -> str:
    return "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))


def check_registered(plan: MatchPlan) -> None:
    """Fail the match, not every game, if this process cannot make one of its bots.

    >>> check_registered(make_plan(["greedy", "random"], None, 7, None, False))
    """
    engines = dict(plan.engines)
    for spec, factory in plan.factories:
        if spec in engines:
            continue
        if factory is None and registry.parse_spec(spec)[0] not in registry.available():
            raise SkitgubbeError(
                f"bot {spec!r} is not registered in this worker process and its factory "
                "cannot be pickled: register a module-level class or function, at import "
                "of a module the workers import"
            )


def play_sets(
    plan: MatchPlan, deals: Iterable[int], pool: BotPool | None = None
) -> list[list[MatchGame]]:
    """Play the deal sets ``deals`` (each deal under every arrangement): the unit of work
    given to an executor (with engines of its own, ended with the task), or played here
    with ``pool``.

    >>> sets = play_sets(make_plan(["greedy", "random"], None, 7, None, False), [0, 5])
    >>> [[game.deal for game in games] for games in sets]
    [[0, 0], [5, 5]]
    """
    check_registered(plan)
    with contextlib.ExitStack() as stack:
        if pool is None:
            pool = stack.enter_context(plan.pool())
        return [
            [
                play_match_game(plan, pool, deal, arrangement)
                for arrangement in range(len(plan.seatings))
            ]
            for deal in deals
        ]


def play_deals(
    plan: MatchPlan, first: int, stop: int, pool: BotPool | None = None
) -> list[MatchGame]:
    """The games of deal sets ``first`` to ``stop - 1``, in order (see :func:`play_sets`).

    >>> games = play_deals(make_plan(["greedy", "random"], None, 7, None, False), 2, 4)
    >>> [(game.deal, game.arrangement) for game in games]
    [(2, 0), (2, 1), (3, 0), (3, 1)]
    """
    return list(itertools.chain.from_iterable(play_sets(plan, range(first, stop), pool)))


Unit: TypeAlias = tuple[int, MatchPlan, int]
"""A deal set to play: (its key, the plan of its table, its deal)."""


class _StderrProgress:
    """Prints a progress line on stderr every few seconds, and one at the end.

    A total of 0 means "not known in advance" (a sequential test)."""

    def __init__(self, name: str = "arena") -> None:
        self.name = name
        self.start = self.last = time.monotonic()

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        if (done < total or not total) and now - self.last < _PROGRESS_EVERY:
            return
        self.last = now
        elapsed = now - self.start
        if not total:
            print(f"{self.name}: {done} deal sets, {elapsed:.0f} s", file=sys.stderr, flush=True)
            return
        line = f"{self.name}: {done}/{total} deal sets ({done / total:.0%}), {elapsed:.0f} s"
        if done < total:
            line += f", about {elapsed * (total - done) / done:.0f} s left"
        print(line, file=sys.stderr, flush=True)


def check_int(name: str, value: object, low: int, high: int | None = None) -> int:
    """``value`` if it is an int ``low <= value < high`` (no upper bound if ``high`` is
    None), else an :class:`~skitgubbe.errors.ArgumentError` (or ``ArgumentTypeError``)
    naming ``name``.

    >>> check_int("deals", 3, 1)
    3
    >>> check_int("deals", 0, 1)
    Traceback (most recent call last):
        ...
    skitgubbe.errors.ArgumentError: deals must be an int 1 <= deals, not 0
    """
    bound = f"{low} <= {name}" + (f" < {high}" if high is not None else "")
    if type(value) is not int:
        raise ArgumentTypeError(f"{name} must be an int {bound}, not {value!r}")
    if value < low or (high is not None and value >= high):
        raise ArgumentError(f"{name} must be an int {bound}, not {value!r}")
    return value


def make_plan(
    entrants: Sequence[str],
    rules: Rules | None,
    seed: int,
    move_time: float | None,
    isolate: bool,
) -> MatchPlan:
    """Check the arguments that make a match's plan, and make it (shared by
    :func:`~skitgubbe.arena.match.run_match`, :func:`~skitgubbe.arena.sprt.run_sprt`
    and :func:`~skitgubbe.arena.ladder.run_ladder`).

    An unknown bot, bad options or an engine that does not start fail here, at
    once, not in every game.

    >>> plan = make_plan(["greedy", "random"], None, 7, None, False)
    >>> plan.seatings, plan.rules.players
    ((('greedy', 'random'), ('random', 'greedy')), 2)
    >>> from skitgubbe.game.rules import Rules
    >>> make_plan(["greedy", "random"], Rules.classic(players=3), 7, None, False)
    Traceback (most recent call last):
        ...
    skitgubbe.errors.ArgumentError: 3 players need 3 entrants, one per seat, not 2
    """
    if isinstance(entrants, str) or not isinstance(entrants, Sequence):
        raise ArgumentTypeError(f"entrants must be a sequence of bot specs, not {entrants!r}")
    specs = tuple(entrants)
    if type(isolate) is not bool:
        raise ArgumentTypeError(f"isolate must be True or False, not {isolate!r}")
    move_time = check_move_time(move_time)
    with BotPool(isolate=isolate) as pool:
        engines = {}
        for spec in specs:
            if pool.out_of_process(spec):
                engines[spec] = pool.spec(spec)
                pool.start(spec)
            else:
                registry.make(spec, seed=0)
    if rules is None:
        rules = Rules.classic(players=len(specs))
    elif not isinstance(rules, Rules):
        raise ArgumentTypeError(f"rules must be a Rules, not {rules!r}")
    if len(specs) != rules.players:
        raise ArgumentError(
            f"{rules.players} players need {rules.players} entrants, one per seat, not {len(specs)}"
        )
    check_int("seed", seed, 0, 2**64)
    # The factories go to the workers with the work (see MatchPlan).
    return MatchPlan(
        rules,
        arrangements(specs),
        seed,
        tuple(
            (spec, _portable(registry.factory(registry.parse_spec(spec)[0])))
            for spec in dict.fromkeys(specs)
        ),
        move_time,
        tuple(engines.items()),
    )


def check_running(
    jobs: int | None,
    executor: Executor | None,
    chunk_size: int | None,
    progress: bool | Progress,
    name: str = "arena",
) -> Progress | None:
    """Check how the work is to be run; the progress report asked for (or None).

    >>> check_running(None, None, None, False) is None
    True
    >>> check_running(2, None, 5, True).name
    'arena'
    """
    if jobs is not None:
        check_int("jobs", jobs, 1)
        if executor is not None:
            raise ArgumentError("give jobs or an executor, not both")
    if chunk_size is not None:
        check_int("chunk_size", chunk_size, 1)
    if isinstance(progress, bool):
        return _StderrProgress(name) if progress else None
    if callable(progress):
        return progress
    raise ArgumentTypeError(f"progress must be a bool or a callable, not {progress!r}")


def move_time_argument(move_time: float | None, timeout: float | None, where: str) -> float | None:
    """The move time limit given to ``where`` (``"run_match"``, …) as ``move_time``, or
    as ``timeout``, its old name (with a :class:`DeprecationWarning`; one release);
    both given is an :class:`~skitgubbe.errors.ArgumentError`. The value is checked by
    :func:`skitgubbe._limits.check_move_time`.

    >>> move_time_argument(0.5, None, "run_match")
    0.5
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     move_time_argument(None, 2, "run_match"), caught[0].category.__name__
    (2, 'DeprecationWarning')
    >>> move_time_argument(1, 2, "run_match")
    Traceback (most recent call last):
        ...
    skitgubbe.errors.ArgumentError: run_match: give move_time (timeout is its old name), not both
    """
    if timeout is None:
        return check_move_time(move_time)
    if move_time is not None:
        raise ArgumentError(f"{where}: give move_time (timeout is its old name), not both")
    warnings.warn(
        f"{where}(timeout=...) is deprecated: the time limit per move is move_time=",
        DeprecationWarning,
        stacklevel=3,
    )
    return check_move_time(timeout, "timeout")
