"""A reviewed move's cost is never negative.

The cost of a move is how much it raised the seat's loss probability over the
engine's choice. The engine's choice (ISMCTS: its most simulated move) is not
always the move with the lowest estimated loss, so the played move can look
better than it; the cost is then 0, not negative: a move is not credited for
beating the engine's own choice on a noisy estimate, and a negative cost would
lower the mean cost and the costliest list below what the moves cost.
"""

from __future__ import annotations

from typing import Any

import pytest

import skitgubbe as sg
from skitgubbe.analysis import MoveEstimate, PositionAnalysis, analyse, review

CHEAP = "ismcts:iterations=100"  # few simulations: the most simulated move is often not the lowest


def played_game(seed: int) -> sg.Game:
    """A 2-player game played to its end by the greedy bot."""
    game = sg.Game.new(sg.Rules.classic(2), seed=seed)
    bot = sg.bots.GreedyBot()
    while game.result is None:
        assert game.to_move is not None
        game.play(bot.choose(game.observation(game.to_move)))
    return game


def test_seeded_games_reviewed_by_a_cheap_engine_have_no_negative_cost() -> None:
    undercut = 0  # moves that look better than the engine's choice: where the clip acts
    for seed in range(4):
        game = played_game(seed)
        for seat in (0, 1):
            result = analyse(game, seat, CHEAP, seed=seed)
            for move in result.choices:
                assert move.played is not None and move.best is not None
                assert move.cost >= 0.0, (seed, seat, str(move))
                if move.played.loss < move.best.loss:
                    undercut += 1
                    assert move.cost == 0.0 and move.label == "good", (seed, seat, str(move))
            assert result.average_cost >= 0.0
            assert all(move.cost > 0 for move in result.costliest(len(result.reviews)))
    # The games hold such moves (about one in thirty of these), else the test tests nothing.
    assert undercut >= 3, undercut


def test_a_move_estimated_better_than_the_engines_choice_costs_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # An engine whose choice (the last legal move, 30 %) is estimated worse than
    # every other move (20 %); the seat plays the first legal move each time.
    def analyse_position(observation: sg.Observation, engine: Any, seed: int) -> PositionAnalysis:
        legal = observation.legal_moves
        estimates = [MoveEstimate(move, 0.2, 0.01, 50) for move in legal[:-1]]
        best = MoveEstimate(legal[-1], 0.3, 0.01, 60)
        return PositionAnalysis(
            seat=observation.seat,
            estimates=(*estimates, best),
            best=best,
            iterations=100,
            seconds=0.0,
            engine="fake",
            observation=observation,
        )

    monkeypatch.setattr(review, "analyse_position", analyse_position)
    game = sg.Game.new(sg.Rules.classic(2), seed=5)
    while game.result is None and len(game.moves) < 20:
        game.play(game.legal_moves[0])
    result = analyse(game, 0, "ismcts:iterations=1")
    assert result.choices  # the seat had choices, each estimated at 20 % against 30 %
    for move in result.choices:
        assert move.played is not None and move.best is not None
        assert (move.played.loss, move.best.loss) == (0.2, 0.3)
        assert move.cost == 0.0 and move.label == "good", str(move)
    assert result.average_cost == 0.0 and result.costliest() == ()
    assert result.accuracy == 100.0
    assert "cost" not in result.text().split("\n\n")[0]  # no line tells a cost
