"""Hints during a game and reviews after it, for the people at a server's tables.

A hint weighs the legal moves of the seat to move with
:func:`skitgubbe.analysis.analyse_position`, from that seat's own
:class:`~skitgubbe.Observation` only (never the game: a hint knows what the seat
knows), seeded from the observation itself (:func:`hint_seed`), so that two deals the
seat cannot tell apart get the same hint. A review goes through a finished game's
record, move by move, with :func:`skitgubbe.analysis.analyse`: the record of a
finished game is public to its players. The review seeds each decision the same way,
and both run the same engine by default (:data:`HINT_ENGINE` and :data:`REVIEW_ENGINE`
are :data:`skitgubbe.analysis.DEFAULT_ENGINE`, as ``skitgubbe analyse`` and the
terminal's hint are), so a hint and the review agree on the engine's choice at a
position. Where that choice has a higher estimate than another move, both say why in
words (:func:`skitgubbe.analysis.explain_choice`). Both searches run in worker threads
(the search releases the GIL), hints and reviews in threads apart, a few at a time
(:class:`Advisor`), so the event loop serves the tables meanwhile and a hint never
waits behind a review: a hint takes about 0.1 s, a game's review a few seconds.

>>> import skitgubbe as sg
>>> from skitgubbe.engine import protocol
>>> from skitgubbe.server.advice import hint
>>> game = sg.Game.new(seed=4)
>>> view = game.observation(game.to_move)
>>> advice = hint(view, "ismcts:iterations=500", seed=1)
>>> sorted(m["move"] for m in advice["moves"]) == sorted(map(protocol.move_text, view.legal_moves))
True
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import functools
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, Final

import attrs

from .. import analysis
from ..engine import protocol
from ..errors import ArgumentError, SkitgubbeError
from ..game import svg
from ..game.observation import Observation
from ..game.state import Game
from .errors import TableError
from .limits import Limits
from .pool import FairPool

__all__ = [
    "HINT_ENGINE",
    "MAX_AT_ONCE",
    "MAX_PENDING_REVIEWS",
    "MAX_REVIEWS",
    "MAX_REVIEWS_AT_ONCE",
    "MAX_REVIEWS_PER_CLIENT",
    "RETRY_SECONDS",
    "REVIEW_ENGINE",
    "Advisor",
    "Review",
    "ReviewStoppedError",
    "TurnHint",
    "check_engine",
    "hint",
    "hint_seed",
    "review",
]

HINT_ENGINE: Final = analysis.DEFAULT_ENGINE
"""The search a hint runs by default, the one every analysis runs
(:data:`skitgubbe.analysis.DEFAULT_ENGINE`): about 0.1 s a position on one core."""
REVIEW_ENGINE: Final = analysis.DEFAULT_ENGINE
"""The search a review runs at each of the seat's decisions by default: the same as a
hint's, so the two agree (a game's review of one seat takes about 3 s on one core)."""
MAX_AT_ONCE: Final = 2
"""The most hints a server works out at once (each in a hint thread of its own); the
others wait their turn, behind other hints only."""
MAX_REVIEWS_AT_ONCE: Final = 1
"""The most reviews a server works out at once (in review threads, apart from hints)."""
MAX_PENDING_REVIEWS: Final = 16
"""The most reviews under way or waiting: past it a review is refused (503)."""
MAX_REVIEWS_PER_CLIENT: Final = 2
"""The most reviews one client (one address) may have under way or waiting (429 past it)."""
RETRY_SECONDS: Final = 5
"""The ``Retry-After`` of a refused review, in seconds."""
MAX_REVIEWS: Final = 256
"""The most reviews a server keeps (the oldest finished one goes first)."""

_log: Final = logging.getLogger("skitgubbe.server")


def check_engine(engine: str, what: str) -> str:
    """``engine`` if it is a search an analysis can run (a bot spec of ``ismcts`` or
    ``pimc``, or a strength level that plays one), else :class:`ArgumentError` naming
    ``what`` it was for.

    >>> check_engine("ismcts:iterations=2000", "hint_engine")
    'ismcts:iterations=2000'
    >>> check_engine("greedy", "hint_engine")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    skitgubbe.errors.ArgumentError: hint_engine: an analysis needs a search bot ..., not 'greedy'
    """
    if not isinstance(engine, str):
        raise ArgumentError(f"{what} must be a bot spec string, not {type(engine).__name__}")
    view = Game.new(seed=0).observation(0)
    try:
        analysis.engine_for(engine, 0, view)
    except SkitgubbeError as error:
        raise ArgumentError(f"{what}: {error}") from None
    return engine


def hint_seed(view: Observation) -> int:
    """The seed of a hint at ``view``: drawn from the observation alone (what its seat
    knows), so the same position as the seat sees it gets the same hint, and the
    same analysis as the game's review gives it
    (:func:`skitgubbe.analysis.position_seed` with the review's default seed).

    >>> import skitgubbe as sg
    >>> game = sg.Game.new(seed=4)
    >>> hint_seed(game.observation(0)) == hint_seed(sg.Game.new(seed=4).observation(0))
    True
    """
    return analysis.position_seed(view)


def hint(view: Observation, engine: str = HINT_ENGINE, seed: int = 0) -> dict[str, Any]:
    """A hint for the seat whose turn ``view`` is, as JSON-able data: ``moves`` (every legal
    move, lowest chance of losing first: ``move`` in the engine protocol's spelling, as a
    ``move`` frame sends it, ``text`` as people read it, ``loss`` the estimated chance of
    ending as the skitgubbe after it, ``error`` its standard error, ``visits`` the
    simulations behind it), ``best`` (the search's choice), ``why`` (None, or why the
    search chose ``best`` though another move has a lower estimate, in words:
    :func:`skitgubbe.analysis.explain_choice`), ``n`` (the move it is for), ``engine``,
    ``iterations`` and ``seconds``. Only ``view`` is searched: nothing the seat does not
    know can reach a hint.

    >>> import skitgubbe as sg
    >>> game = sg.Game.new(seed=4)
    >>> advice = hint(game.observation(0), "pimc:worlds=4", seed=2)
    >>> advice["n"], advice["best"] in [m["move"] for m in advice["moves"]]
    (0, True)
    """
    found = analysis.analyse_position(view, engine, seed)
    return {
        "n": view.moves_played,
        "best": protocol.move_text(found.best.move),
        "why": analysis.explain_choice(found),
        "moves": [
            {
                "move": protocol.move_text(estimate.move),
                "text": str(estimate.move),
                "loss": estimate.loss,
                "error": estimate.error,
                "visits": estimate.visits,
            }
            for estimate in found.estimates
        ],
        "engine": found.engine,
        "iterations": found.iterations,
        "seconds": found.seconds,
    }


def review(
    record: Mapping[str, Any],
    seat: int,
    names: Sequence[str] | None = None,
    engine: str = REVIEW_ENGINE,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """A finished game reviewed from ``seat``, as the review page shows it (JSON-able):
    every move of the game in order (``moves``: ``index``, ``seat``, ``move``; for the
    seat's own moves also ``label``, ``cost``, ``loss`` and ``error`` (its standard
    error), ``best`` (the engine's choice: as people read it; ``best_move`` in the
    engine protocol's spelling, as a hint's ``best``), ``best_loss``, ``best_error``
    and ``why`` (None, or why the engine chose ``best`` though the move played, or
    another, has a lower estimate: :func:`skitgubbe.analysis.explain_choice`); at each
    of the costliest moves also ``view``, the seat's own view before it as SVG),
    ``costliest`` (the indices of the seat's three costliest moves), ``accuracy``,
    ``counts``, ``summary`` (a few lines of text), ``svg`` (the evaluation graph,
    :meth:`GameAnalysis.svg <skitgubbe.analysis.GameAnalysis.svg>`), ``names``, ``loser``,
    ``engine``, ``iterations`` (its simulations a decision, None if it has no such
    budget) and ``seconds``. ``progress(done, total)`` is called after each decision.
    Each decision is seeded as a hint at it is (:func:`hint_seed`), so with the same
    engine its ``best`` is the hint's.

    >>> import skitgubbe as sg
    >>> game = sg.Game.new(sg.Rules.classic(2), seed=5)
    >>> while game.result is None:
    ...     _ = game.play(game.legal_moves[0])
    >>> data = review(game.record(), 1, ["Ann", "easy"], engine="pimc:worlds=2")
    >>> len(data["moves"]) == len(game.moves), data["svg"].startswith("<svg")
    (True, True)
    >>> all(m["label"] for m in data["moves"] if m["seat"] == 1)
    True
    """
    found = analysis.analyse(record, seat, engine=engine, progress=progress)
    game = Game.from_record({**record, "moves": [], "result": None})
    reviews = {r.index: r for r in found.reviews}
    costliest = [r.index for r in found.costliest(3)]
    moves: list[dict[str, Any]] = []
    iterations: int | None = None
    for index, text in enumerate(record["moves"]):
        mover = game.to_move
        entry: dict[str, Any] = {"index": index, "seat": mover, "move": str(text)}
        checked = reviews.get(index)
        if checked is not None:
            entry.update(_reviewed(checked))
            if checked.analysis is not None:
                iterations = iterations or checked.analysis.iterations
            if index in costliest:  # what the seat saw then: its own view, no other hand
                entry["view"] = svg.observation(game.observation(seat))
        moves.append(entry)
        game.play(text)
    players = found.rules.players
    return {
        "seat": seat,
        "names": list(names) if names is not None else [f"seat {s}" for s in range(players)],
        "engine": found.engine,
        "iterations": _budget(engine, iterations),
        "seconds": found.seconds,
        "loser": found.loser,
        "accuracy": found.accuracy,
        "average_cost": found.average_cost,
        "counts": found.counts(),
        "summary": found.summary(),
        "svg": found.svg(),
        "costliest": costliest,
        "moves": moves,
    }


def _reviewed(checked: analysis.MoveReview) -> dict[str, Any]:
    """The review page's fields of one of the seat's moves."""
    played, best = checked.played, checked.best
    why = None
    if checked.analysis is not None and played is not None and best is not None:
        # Against the move played when it looked better than the choice, else the lowest.
        against = played.move if played.loss < best.loss else None
        why = analysis.explain_choice(checked.analysis, against)
    return {
        "label": checked.label,
        "cost": checked.cost,
        "loss": None if played is None else played.loss,
        "error": None if played is None else played.error,
        "best": None if best is None else str(best.move),
        "best_move": None if best is None else protocol.move_text(best.move),
        "best_loss": None if best is None else best.loss,
        "best_error": None if best is None else best.error,
        "why": why,
    }


def _budget(engine: str, searched: int | None) -> int | None:
    """The simulations a decision of a review by ``engine`` gets: its iteration budget
    (the one analysed, :func:`skitgubbe.analysis.engine_for`), else what a search did."""
    bot = analysis.engine_for(engine, 0, Game.new(seed=0).observation(0))
    budget = getattr(bot, "iterations", None)
    return budget if isinstance(budget, int) else searched


class ReviewStoppedError(Exception):
    """Raised in a review's worker thread to stop it (:attr:`Review.stopped`).

    >>> review = Review(stopped=True)
    >>> review.progress(1, 10)
    Traceback (most recent call last):
        ...
    skitgubbe.server.advice.ReviewStoppedError: the review was stopped
    """


@attrs.define(eq=False)
class Review:
    """A review being worked out, or done: ``done`` of ``total`` decisions analysed so far,
    then ``result`` (:func:`review`'s data) or ``error`` (why it failed).

    >>> Review().status()
    {'status': 'working', 'done': 0, 'total': None}
    """

    done: int = 0
    total: int | None = None
    result: dict[str, Any] | None = None
    error: str | None = None
    task: asyncio.Task[None] | None = None
    stopped: bool = False
    """Set to stop the review at its next decision (a server shutting down)."""

    def progress(self, done: int, total: int) -> None:
        """Called by the analysis (from its worker thread) after each decision; stops it
        (:class:`ReviewStoppedError`) once :attr:`stopped` is set."""
        if self.stopped:
            raise ReviewStoppedError("the review was stopped")
        self.done, self.total = done, total

    def status(self) -> dict[str, Any]:
        """How far it is, for a client that waits."""
        return {"status": "working", "done": self.done, "total": self.total}


class TurnHint:
    """The hint of one turn of one seat at a table: one search however often it is asked
    (asked again, the seat is sent the same hint), and none once the turn ends
    (:meth:`cancel`: a hint still waiting for a thread never runs).

    >>> import asyncio, skitgubbe as sg
    >>> async def main() -> list:
    ...     advisor = Advisor(hint_engine="ismcts:iterations=100")
    ...     sent: list = []
    ...     async def send(message) -> None:
    ...         sent.append(message["type"])
    ...     turn = TurnHint(advisor, "t", seat=0, number=0)
    ...     view = sg.Game.new(seed=4).observation(0)
    ...     turn.ask(view, "192.0.2.1", send)
    ...     while turn.advice is None:
    ...         await asyncio.sleep(0.01)
    ...     turn.ask(view, "192.0.2.1", send)  # found already: sent again, no search
    ...     await asyncio.sleep(0.01)
    ...     await advisor.close()
    ...     return sent
    >>> asyncio.run(main())
    ['hint', 'hint']
    """

    def __init__(self, advisor: Advisor, table: str, seat: int, number: int) -> None:
        self.advisor = advisor
        self.table = table
        self.seat = seat
        self.number = number
        self.advice: dict[str, Any] | None = None
        self._searching: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    def ask(
        self,
        view: Observation,
        client: str,
        send: Callable[[Mapping[str, Any]], Awaitable[None]],
    ) -> None:
        """The seat asks (``client``: who, for the bounds on hints waiting): the hint is
        searched at ``view`` the first time (in the advisor's hint threads) and handed to
        ``send`` as a ``hint`` frame once found, or an ``error`` frame (too many hints
        waiting: it may be asked again; a failed search)."""
        loop = asyncio.get_running_loop()
        if self.advice is not None:
            work: Awaitable[None] = send({"type": "hint", **self.advice})
        elif self._searching is None:
            self._searching = loop.create_task(self._search(view, client, send))
            return
        else:
            return  # under way: it is sent when it is found
        task = loop.create_task(_awaited(work))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _search(
        self,
        view: Observation,
        client: str,
        send: Callable[[Mapping[str, Any]], Awaitable[None]],
    ) -> None:
        try:
            self.advice = await self.advisor.hint(view, client, self.table)
        except TableError as error:  # too many hints waiting: said; it may be asked again
            self._searching = None
            await send({"type": "error", "error": str(error), "code": error.code})
            return
        except Exception:  # a bug in the search: the seat is told, the table plays on
            _log.exception("table %s: the hint for seat %s failed", self.table, self.seat)
            self._searching = None
            await send(
                {"type": "error", "error": "the hint failed (a bug, logged)", "code": "internal"}
            )
            return
        await send({"type": "hint", **self.advice})

    def cancel(self) -> None:
        """The turn is over: the search is dropped if it still waits for a thread (a running
        one finishes in its thread, and nobody is sent it)."""
        for task in [self._searching, *self._tasks]:
            if task is not None:
                task.cancel()


async def _awaited(work: Awaitable[None]) -> None:
    await work


class Advisor:
    """Hints and reviews for one server's tables: the engines they run, and the reviews
    done so far (at most :data:`MAX_REVIEWS`, by table and seat).

    Hints come first: they run in worker threads of their own (``at_once`` at a time),
    reviews in others (:data:`MAX_REVIEWS_AT_ONCE`), so a hint never waits behind a review,
    nor behind the tables' bots; both are shared fairly between clients
    (:class:`~skitgubbe.server.pool.FairPool`: one client's hints or reviews never hold
    every thread, and take turns with everybody else's). What waits is bounded by
    ``limits`` (:class:`~skitgubbe.server.limits.Limits`): hints waiting per client and in
    all; reviews under way per client (429 past it); the decisions all reviews under way
    still have to analyse (503 past it, with a ``Retry-After``); and the decisions of one
    review (a longer game's review is refused, saying so). Each finished game and seat is
    reviewed once (the result is kept).

    >>> import asyncio, skitgubbe as sg
    >>> async def main() -> tuple:
    ...     advisor = Advisor(hint_engine="ismcts:iterations=200")
    ...     game = sg.Game.new(seed=4)
    ...     advice = await advisor.hint(game.observation(0))
    ...     await advisor.close()
    ...     return advice["engine"], len(advice["moves"]) == len(game.legal_moves)
    >>> asyncio.run(main())
    ('ismcts:iterations=200', True)
    >>> Advisor(review_engine="random")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    skitgubbe.errors.ArgumentError: review_engine: an analysis needs a search bot ..., not 'random'
    """

    def __init__(
        self,
        hint_engine: str = HINT_ENGINE,
        review_engine: str = REVIEW_ENGINE,
        at_once: int = MAX_AT_ONCE,
        limits: Limits | None = None,
    ) -> None:
        if type(at_once) is not int or at_once < 1:
            raise ArgumentError(f"at_once must be an int >= 1, not {at_once!r}")
        self.hint_engine = check_engine(hint_engine, "hint_engine")
        self.review_engine = check_engine(review_engine, "review_engine")
        self.at_once = at_once
        self.limits = limits or Limits()
        self.reviews: collections.OrderedDict[tuple[str, int], Review] = collections.OrderedDict()
        # Threads of their own: hints never queue behind reviews or the tables' searches.
        self._hints = FairPool(
            at_once,
            per_client=max(1, at_once - 1),
            max_queued_per_client=self.limits.hints_per_client,
            max_queued=self.limits.hints,
            name="skitgubbe-hint",
        )
        self._reviews = FairPool(MAX_REVIEWS_AT_ONCE, name="skitgubbe-review")
        self._asked: collections.Counter[str] = collections.Counter()  # pending, by client
        self._decisions: collections.OrderedDict[tuple[str, int], int] = (
            collections.OrderedDict()
        )  # each reviewed game and seat's decisions, counted once
        self.pending_decisions = 0
        """The decisions the reviews under way still have to analyse."""

    async def hint(self, view: Observation, client: str = "", table: str = "") -> dict[str, Any]:
        """A hint at ``view`` (:func:`hint`), worked out in a hint thread when the turn of
        ``client`` (who asked) and ``table`` comes; :class:`~skitgubbe.server.pool.PoolFullError`
        (a :class:`TableError`, 429 or 503) when too many hints wait already."""
        return await self._hints.run(
            client, table, functools.partial(hint, view, self.hint_engine, hint_seed(view))
        )

    def pending(self) -> int:
        """How many reviews are under way or waiting for a thread.

        >>> Advisor().pending()
        0
        """
        return sum(1 for found in self.reviews.values() if found.task is not None)

    def decisions(self, table_id: str, seat: int, record: Mapping[str, Any]) -> int:
        """How many of ``seat``'s moves a review of ``record`` analyses (counted once a game
        and seat: a game of the move cap is replayed once, however often it is asked).

        >>> import skitgubbe as sg
        >>> game = sg.Game.new(sg.Rules.classic(2), seed=5)
        >>> while game.result is None:
        ...     _ = game.play(game.legal_moves[0])
        >>> mine = sum(1 for e in game.history if getattr(e, "seat", None) == 0)
        >>> Advisor().decisions("t", 0, game.record()) <= len(game.moves)
        True
        """
        key = (table_id, seat)
        found = self._decisions.get(key)
        if found is None:
            game = Game.from_record({**record, "moves": [], "result": None})
            found = 0
            for text in record["moves"]:
                if game.to_move == seat:
                    found += 1
                game.play(text)
            self._decisions[key] = found
            while len(self._decisions) > MAX_REVIEWS:
                self._decisions.popitem(last=False)
        return found

    def review(
        self,
        table_id: str,
        seat: int,
        record: Mapping[str, Any],
        names: Sequence[str],
        client: str = "",
    ) -> Review:
        """The review of ``seat`` at finished table ``table_id`` (whose ``record`` is given):
        the one done or under way, else a new one, started in the running loop for
        ``client`` (who asked: a client key), unless its game is too long to review (400),
        too much review work is pending (503) or ``client`` has too many under way (429)
        (:class:`~skitgubbe.server.errors.TableError`)."""
        key = (table_id, seat)
        found = self.reviews.get(key)
        if found is not None and found.error is None:
            self.reviews.move_to_end(key)
            return found
        decisions = self.decisions(table_id, seat, record)
        limits = self.limits
        if decisions > limits.review_max_decisions:
            raise TableError(
                f"this game has {decisions} moves of seat {seat} to review; this server "
                f"reviews at most {limits.review_max_decisions} (a game that long is cut by "
                "the move limit: review it with skitgubbe analyse on your own machine)"
            )
        if self._asked[client] >= limits.reviews_per_client:
            raise TableError(
                f"you have {limits.reviews_per_client} reviews under way: ask for another once "
                "they are done",
                429,
                retry_after=RETRY_SECONDS,
            )
        if self.pending_decisions + decisions > limits.review_decisions:
            raise TableError(
                f"the server has {self.pending_decisions} decisions of reviews to work out "
                f"already: ask again in {RETRY_SECONDS} s",
                503,
                retry_after=RETRY_SECONDS,
            )
        started = Review()
        self.reviews[key] = started
        self._asked[client] += 1
        self.pending_decisions += decisions

        async def work() -> None:
            try:
                started.result = await self._reviews.run(
                    client,
                    table_id,
                    functools.partial(
                        review, record, seat, names, self.review_engine, started.progress
                    ),
                )
            except SkitgubbeError as error:  # a record the analysis refuses
                started.error = str(error)
            except ReviewStoppedError:
                started.error = "the review was stopped (the server is shutting down)"
            except asyncio.CancelledError:
                started.error = "the review was stopped (the server is shutting down)"
                raise
            except Exception:  # a bug: said to the client, logged with its traceback
                _log.exception("the review of table %s, seat %s failed", table_id, seat)
                started.error = "the review failed (a bug, logged)"
            finally:
                started.task = None
                self.pending_decisions -= decisions
                self._asked[client] -= 1
                if self._asked[client] <= 0:
                    del self._asked[client]

        started.task = asyncio.get_running_loop().create_task(work())
        while len(self.reviews) > MAX_REVIEWS:  # the oldest finished one goes
            oldest = next((k for k, r in self.reviews.items() if r.task is None), None)
            if oldest is None:
                break
            del self.reviews[oldest]
        return started

    def under_way(self, client: str) -> int:
        """How many reviews ``client`` has under way or waiting.

        >>> Advisor().under_way("192.0.2.1")
        0
        """
        return self._asked.get(client, 0)

    async def close(self) -> None:
        """Stop the reviews under way (a server shutting down: each stops at its next
        decision) and the advisor's threads."""
        for found in list(self.reviews.values()):
            found.stopped = True
            if found.task is not None:
                found.task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await found.task
        for pool in (self._hints, self._reviews):
            await pool.close()
