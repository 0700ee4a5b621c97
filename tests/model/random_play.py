"""Random playouts with the model, mirroring the C core's ``sg_play_random``.

One generator drives both the shuffle and the move choices: the deck is
shuffled first, then each move is ``moves[rng.below(len(moves))]`` over the
canonical move order of :meth:`ModelGame.legal_moves`.  Rule variants (the
fields of docs/rules.md §9 other than ``players``, ``hand_size`` and
``max_moves``) are passed through to :class:`ModelGame`.
"""

from __future__ import annotations

from .classic import OVER, ModelGame, VariantValue
from .rng import Xoshiro256, shuffle


def random_game(
    players: int,
    seed: int,
    hand_size: int = 3,
    max_moves: int = 10_000,
    **variants: VariantValue,
) -> ModelGame:
    """Play one game with uniformly random legal moves and return the finished game.

    The dealer is ``players - 1``, so seat 0 leads first.
    """
    rng = Xoshiro256(seed)
    deck = shuffle(rng)
    game = ModelGame(
        players, deck, dealer=players - 1, hand_size=hand_size, max_moves=max_moves, **variants
    )
    while game.phase != OVER:
        moves = game.legal_moves()
        game.play(moves[rng.below(len(moves))])
    return game


def play_random(
    players: int,
    seed: int,
    hand_size: int = 3,
    max_moves: int = 10_000,
    **variants: VariantValue,
) -> tuple[int | None, int, bool, bool]:
    """Play one random game; return ``(loser, moves, truncated, no_loser)``.

    ``loser`` is ``None`` when there is none; ``no_loser`` is true only for a
    game that ended naturally with nobody holding cards (never for a truncated game).
    """
    game = random_game(players, seed, hand_size, max_moves, **variants)
    result = game.result
    assert result is not None
    loser, _, truncated = result
    return loser, game.moves_played, truncated, loser is None and not truncated
