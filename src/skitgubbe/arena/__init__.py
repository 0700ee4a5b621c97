"""Evaluation: matches between bots over duplicate deals, sequential tests and ladders.

Every deal of a match is played under every distinct seat arrangement of the
entrants (as in duplicate bridge), so each bot meets each hand from each seat
and the luck of the cards cancels out of the comparison. Bots are named by
their registry specs (:func:`skitgubbe.bots.make`) and made fresh for every
game from a seed derived from the match seed, so a match gives the same result
however the work is spread. ``docs/arena.md`` explains the statistics.

The package's modules, each importing the others' public names only:

* :mod:`skitgubbe.arena.results`: :class:`MatchResult`, :class:`MatchGame`,
  :class:`Crash`, :class:`EntrantStats`, the Wilson interval and the match record;
* :mod:`skitgubbe.arena.runner`: running match games in this process (the plan
  of a match, one game under the referee, the argument checks);
* :mod:`skitgubbe.arena.workers`: worker processes with a shared-memory
  watchdog, and executors;
* :mod:`skitgubbe.arena.match`: :func:`run_match`;
* :mod:`skitgubbe.arena.sprt`: :func:`~skitgubbe.arena.sprt.run_sprt`, is a new
  bot stronger (``skitgubbe.sprt`` is its old path, an alias for one release);
* :mod:`skitgubbe.arena.ladder`: :func:`~skitgubbe.arena.ladder.run_ladder`,
  ratings of many bots (``skitgubbe.ladder`` likewise).

This package re-exports the names of the match (as ``skitgubbe.arena`` had them
when it was one module).

>>> import skitgubbe as sg
>>> result = sg.run_match(["random", "random", "random"], deals=4, seed=1)
>>> [stats.name for stats in result.stats], len(result.games)
(['random'], 4)
>>> result.stats[0].loss_rate == 1 / 3  # one loser in each game, three random seats
True
"""

from __future__ import annotations

from .match import run_match
from .results import (
    MATCH_FORMAT,
    MATCH_VERSION,
    Crash,
    CrashKind,
    EntrantStats,
    MatchGame,
    MatchResult,
    arrangements,
    wilson_interval,
)
from .runner import Method, Progress, Publish, Unit, Watch
from .workers import Job

__all__ = [
    "MATCH_FORMAT",
    "MATCH_VERSION",
    "Crash",
    "CrashKind",
    "EntrantStats",
    "Job",
    "MatchGame",
    "MatchResult",
    "Method",
    "Progress",
    "Publish",
    "Unit",
    "Watch",
    "arrangements",
    "run_match",
    "wilson_interval",
]
