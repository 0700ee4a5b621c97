"""Move-count ("perft") regression numbers, agreed by the engine and the model.

perft(position, depth) counts the move sequences of length ``depth`` (fewer
where the game ends first). The committed numbers were produced by both the C
core and the plain-Python model; a change in either shows up here.
"""

from __future__ import annotations

import copy

import pytest

import skitgubbe as sg
from skitgubbe import _core
from tests.model.classic import ModelGame

KIND_NAMES = {0: "play", 1: "flip", 2: "pick_up"}


def engine_perft(core: _core.Core, depth: int) -> int:
    moves = core.legal_codes()
    if depth == 0 or not moves:
        return 1
    total = 0
    for move in moves:
        child = core.copy()
        child.apply(move)
        total += engine_perft(child, depth - 1)
    return total


def model_perft(model: ModelGame, depth: int) -> int:
    moves = model.legal_moves()
    if depth == 0 or not moves:
        return 1
    total = 0
    for move in moves:
        child = copy.deepcopy(model)
        child.play(move)
        total += model_perft(child, depth - 1)
    return total


def as_model(move: sg.Move) -> tuple[str, frozenset[int]]:
    return KIND_NAMES[move.kind], frozenset(c.code for c in move.cards)


def dealt(players: int, seed: int, prefix: int) -> tuple[sg.Game, ModelGame]:
    """A seeded deal with ``prefix`` moves played (always the first legal move)."""
    deck = list(_core.deck_from_seed(seed))
    game = sg.Game.new(sg.Rules.classic(players=players), deck=[sg.Card.from_code(c) for c in deck])
    model = ModelGame(players, deck, dealer=players - 1)
    for _ in range(prefix):
        move = game.legal_moves[0]
        game.play(move)
        model.play(as_model(move))
    return game, model


# (players, seed, moves played first, depth) -> perft
PERFT = {
    (3, 1, 0, 4): (4, 16, 64, 256),  # start of phase 1: three cards and a flip each time
    (2, 9, 44, 6): (4, 12, 33, 72, 126, 144),  # the stock runs out and phase 2 begins
    (3, 7, 40, 6): (4, 16, 48, 144, 288, 710),  # flips stop at one stock card
    (4, 3, 60, 5): (12, 85, 249, 297, 2326),
    (3, 11, 70, 4): (17, 78, 288, 1201),
    (4, 3, 100, 4): (1, 3, 6, 18),
    (2, 8, 60, 3): (22, 240, 4604),
}


@pytest.mark.slow
@pytest.mark.parametrize("key", sorted(PERFT))
def test_perft_of_seeded_positions(key: tuple[int, int, int, int]) -> None:
    players, seed, prefix, depth = key
    game, model = dealt(players, seed, prefix)
    counts = [engine_perft(game._core, d) for d in range(1, depth + 1)]
    assert counts == [model_perft(model, d) for d in range(1, depth + 1)]
    assert tuple(counts) == PERFT[key]


def test_perft_of_a_phase_two_position() -> None:
    hands = ["9D QD 4C 7S KH", "JD AD 2C 8S", "3D 10C JC AS 5H 6H"]
    game = sg.Game.from_shedding(sg.Rules.classic(), hands, trump="S", leader=0)
    model = ModelGame.from_shedding(
        3, [{c.code for c in sg.CardSet.parse(h)} for h in hands], trump=3, leader=0
    )
    counts = [engine_perft(game._core, d) for d in range(1, 6)]
    assert counts == [model_perft(model, d) for d in range(1, 6)]
    assert tuple(counts) == PHASE_TWO_PERFT


PHASE_TWO_PERFT = (5, 13, 46, 124, 380)
