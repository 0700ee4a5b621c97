"""Analysis for people: how good was each move, and what was better?

Two levels from one seat's own knowledge only, and an exact solver that sees
every card:

- :func:`analyse_position` weighs every legal move of an
  :class:`~skitgubbe.Observation`: its estimated chance of ending as the
  skitgubbe, the standard error, and the budget spent (:class:`PositionAnalysis`).
- :func:`analyse` reviews a seat's moves over a whole recorded game, labels each
  by what it cost (:data:`THRESHOLDS`: inaccuracy, mistake, blunder) and sums up
  (:class:`GameAnalysis`: accuracy, costliest moves, an evaluation graph in SVG).
- :func:`solve`, once two players hold cards in phase 2: with every card open,
  who ends as the skitgubbe with best play, a best move and every legal move's
  outcome (:class:`Solution`), exactly, like bridge's double-dummy solver.

Any search bot is the engine (``"ismcts:iterations=…"``, ``"pimc:…"``, a strength
level); the default, :data:`DEFAULT_ENGINE`, is the strongest measured, and the
terminal's and the server's hints and reviews run it too. Each position is seeded
from what its seat sees (:func:`position_seed`), so a hint and a review of the same
position agree; where the engine's choice has a higher estimate than another move,
:func:`explain_choice` says why in words. The same seed gives the same analysis:
an engine with a time budget besides its iterations (the ``expert`` level) is
analysed by its iterations alone, and a result whose engine had a time budget only
says it is not reproducible (:data:`NOT_REPRODUCIBLE`). The
search reads only the seat's observation at that moment, as a bot does, so an
analysis cannot reveal cards the seat did not see (tests/test_analysis.py proves
it as it does for the bots). docs/analysis.md shows the terminal and browser
uses and measures how well calibrated the probabilities are.

>>> import skitgubbe as sg
>>> from skitgubbe import analysis
>>> game = sg.Game.new(seed=4)
>>> hint = analysis.analyse_position(game.observation(game.to_move), "ismcts:iterations=1000")
>>> hint.best.move in game.legal_moves
True
"""

from __future__ import annotations

from .graph import COLOURS, evaluation_graph
from .position import (
    DEFAULT_ENGINE,
    NOT_REPRODUCIBLE,
    Engine,
    MoveEstimate,
    PositionAnalysis,
    analyse_position,
    engine_for,
    explain_choice,
    position_seed,
)
from .review import LABELS, THRESHOLDS, GameAnalysis, MoveReview, analyse, label
from .solver import DEFAULT_SOLVE_BUDGET, Outcome, Solution, SolvedMove, solve

__all__ = [
    "COLOURS",
    "DEFAULT_ENGINE",
    "DEFAULT_SOLVE_BUDGET",
    "LABELS",
    "NOT_REPRODUCIBLE",
    "THRESHOLDS",
    "Engine",
    "GameAnalysis",
    "MoveEstimate",
    "MoveReview",
    "Outcome",
    "PositionAnalysis",
    "Solution",
    "SolvedMove",
    "analyse",
    "analyse_position",
    "engine_for",
    "evaluation_graph",
    "explain_choice",
    "label",
    "position_seed",
    "solve",
]
