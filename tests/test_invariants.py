"""Invariants on every move of many random games, through the public API.

All 52 cards lie in exactly one place; every game ends (or is truncated at the
cap); there is one loser unless the game was truncated or nobody holds cards;
undo restores the exact previous state; a copy is independent.
"""

from __future__ import annotations

import random

import pytest

import skitgubbe as sg
from tests.rules_gen import random_rules

GAMES = 10_200
FULL_DECK = sg.CardSet.full().mask


def places(game: sg.Game) -> list[int]:
    """Card masks of every place a card can lie."""
    core = game._core  # the referee's raw masks: fast enough for 10,000 games
    masks = [*core.hands, *core.collections, core.out]
    masks.extend(1 << card for card, _, _ in core.table())
    masks.extend(1 << card for card in core.stock())
    if core.hidden_card != 0xFF:
        masks.append(1 << core.hidden_card)
    return masks


def assert_cards_conserved(game: sg.Game, where: str) -> None:
    seen = 0
    total = 0
    for mask in places(game):
        assert not seen & mask, f"{where}: a card lies in two places"
        seen |= mask
        total += mask.bit_count()
    assert seen == FULL_DECK and total == 52, f"{where}: {total} cards in play"


def play_checked(index: int, rules: sg.Rules | None = None) -> None:
    rng = random.Random(index)
    if rules is None:
        players = 2 + index % 3
        rules = sg.Rules.classic(players=players, max_moves=60 if index % 50 == 0 else 10_000)
    players = rules.players
    cap = rules.max_moves
    game = sg.Game.new(rules, seed=index, dealer=rng.randrange(players))
    while True:
        where = f"game {index} move {game.moves_played}"
        assert_cards_conserved(game, where)
        moves = game.legal_moves
        if not moves:
            break
        assert game.to_move is not None
        move = moves[rng.randrange(len(moves))]
        before = game._core.snapshot()
        game.play(move)
        assert game.undo() == move
        assert game._core.snapshot() == before, f"{where}: undo did not restore the state"
        game.play(move)
        assert game.moves_played <= cap
    result = game.result
    assert result is not None and game.phase is sg.Phase.OVER and game.to_move is None
    if result.truncated:
        assert result.loser is None and result.moves_played == cap
    else:
        holding = [seat for seat, hand in enumerate(game.hands) if hand]
        assert len(holding) <= 1
        assert result.loser == (holding[0] if holding else None)
        assert sorted(result.finish_order) == list(range(players))


@pytest.mark.slow
@pytest.mark.parametrize("chunk", range(6))
def test_invariants_hold_on_every_move(chunk: int) -> None:
    per_chunk = GAMES // 6
    for index in range(chunk * per_chunk, (chunk + 1) * per_chunk):
        play_checked(index)


@pytest.mark.slow
@pytest.mark.parametrize("chunk", range(3))
def test_invariants_hold_under_random_rules(chunk: int) -> None:
    for index in range(chunk * 1000, (chunk + 1) * 1000):
        play_checked(index, random_rules(random.Random(-index)))


def test_undo_walks_back_to_the_deal() -> None:
    game = sg.Game.new(seed=77)
    snapshots = [game._core.snapshot()]
    rng = random.Random(1)
    while game.result is None:
        game.play(rng.choice(game.legal_moves))
        snapshots.append(game._core.snapshot())
    for expected in reversed(snapshots[:-1]):
        game.undo()
        assert game._core.snapshot() == expected
    assert game.moves == () and game.moves_played == 0
    with pytest.raises(sg.SkitgubbeError, match="no move to undo"):
        game.undo()


def test_copies_are_independent() -> None:
    rng = random.Random(5)
    game = sg.Game.new(seed=5)
    for _ in range(30):
        game.play(rng.choice(game.legal_moves))
    twin = game.copy()
    original = game._core.snapshot()
    history = game.history
    while twin.result is None:
        twin.play(rng.choice(twin.legal_moves))
    assert game._core.snapshot() == original and game.history == history
    assert game.moves_played == 30 and twin.moves_played > 30
    # and the other way round: moving the original leaves the copy alone
    twin_state = twin._core.snapshot()
    game.play(game.legal_moves[0])
    game.undo()
    game.undo()
    assert twin._core.snapshot() == twin_state
