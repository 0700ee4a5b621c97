"""The C core's versioned generator and random playouts against the Python model."""

from __future__ import annotations

import pytest

import skitgubbe as sg
from skitgubbe import _core
from tests.model import rng as model_rng
from tests.model import vectors
from tests.model.random_play import play_random


def test_xoshiro_outputs_match_the_committed_vectors() -> None:
    assert tuple(_core.rng_outputs(0, 4)) == vectors.XOSHIRO_SEED_0_FIRST4
    assert tuple(_core.rng_outputs(vectors.BIG_SEED, 4)) == vectors.XOSHIRO_BIG_SEED_FIRST4


def test_bounded_draws_match_the_model_including_rejections() -> None:
    draws = _core.rng_below(42, vectors.BELOW_BOUND, len(vectors.BELOW_SEED_42_FIRST16))
    assert tuple(draws) == vectors.BELOW_SEED_42_FIRST16


@pytest.mark.parametrize("bound", [1, 2, 3, 7, 52, 1000, 2**31 + 1, 2**32 - 1])
def test_bounded_draws_agree_with_the_model_for_many_bounds(bound: int) -> None:
    model = model_rng.Xoshiro256(99)
    assert _core.rng_below(99, bound, 200) == [model.below(bound) for _ in range(200)]


def test_deck_from_seed_matches_the_model() -> None:
    assert tuple(_core.deck_from_seed(1)) == vectors.DECK_SEED_1
    for seed in (0, 2, 3, 2**64 - 1, vectors.BIG_SEED):
        assert list(_core.deck_from_seed(seed)) == model_rng.deck_from_seed(seed)


def test_game_seeds_match_the_model() -> None:
    assert tuple(_core.game_seed(1, i) for i in range(4)) == vectors.GAME_SEED_1_FIRST4
    assert _core.game_seed(7, 10**6) == model_rng.game_seed(7, 10**6)


def test_seeded_games_deal_the_generators_deck() -> None:
    game = sg.Game.new(seed=1)
    deck = [c.code for c in game.stock]
    dealt = model_rng.deck_from_seed(1)
    assert deck == dealt[9:]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_simulate_totals_equal_the_model_playouts(players: int) -> None:
    """sg_simulate plays game i from game_seed(seed, i) with the canonical move order."""
    seed, games = 2024, 60
    result = sg.simulate(sg.Rules.classic(players=players), games, seed=seed)
    losses = [0] * players
    moves = truncated = no_loser = 0
    for index in range(games):
        loser, n, trunc, nobody = play_random(players, model_rng.game_seed(seed, index))
        moves += n
        truncated += trunc
        no_loser += nobody
        if loser is not None:
            losses[loser] += 1
    assert result.games == games
    assert result.moves_played == moves
    assert result.losses == tuple(losses)
    assert (result.truncated, result.no_loser) == (truncated, no_loser)


def test_simulate_splits_into_batches_with_the_same_totals() -> None:
    rules = sg.Rules.classic()._core_values()
    whole = _core.simulate(rules, 5, 0, 200)
    first = _core.simulate(rules, 5, 0, 120)
    second = _core.simulate(rules, 5, 120, 80)
    assert whole[0] == first[0] + second[0]
    assert whole[1] == first[1] + second[1]
    assert whole[2] == tuple(a + b for a, b in zip(first[2], second[2], strict=True))
