"""Observation tensors: their layout, and that each slice says what the observation says.

The non-interference test over tensors is in test_hidden_information.py; the C
core checks that a seat's view gives the same tensor as the state
(tests/c/core_check.c).
"""

from __future__ import annotations

import itertools
import pickle
import random

import numpy
import pytest
from rules_gen import random_rules

import skitgubbe as sg
from skitgubbe.game.tensors import (
    LAYOUT,
    STATE_LAYOUT,
    STATE_TENSOR_SIZE,
    TENSOR_SIZE,
    recent_moves,
)


def cards(plane: numpy.ndarray) -> sg.CardSet:
    return sg.CardSet(sum(sg.Card.from_index(i).mask for i in plane.nonzero()[0]))


def hot(part: numpy.ndarray) -> int | None:
    """The index of the one 1 in a one-hot slice, None when all are zero."""
    ones = part.nonzero()[0]
    assert len(ones) <= 1 and set(part.tolist()) <= {0.0, 1.0}
    return int(ones[0]) if len(ones) else None


def test_the_layout_covers_each_float_once() -> None:
    for layout, size in ((LAYOUT, TENSOR_SIZE), (STATE_LAYOUT, STATE_TENSOR_SIZE)):
        spans = sorted((s.start, s.stop) for s in layout.values())
        assert spans[0][0] == 0 and spans[-1][1] == size
        assert all(a[1] == b[0] for a, b in itertools.pairwise(spans))
    rule_floats = sum(
        len(f.values) if f.kind == "enum" else 2 if f.kind == "optional_int" else 1
        for f in sg.Rules.fields()
    )
    assert LAYOUT["rules"].stop - LAYOUT["rules"].start == rule_floats


def _check(game: sg.Game, seat: int) -> None:
    view = game.observation(seat)
    t = view.tensor()
    assert t.shape == (TENSOR_SIZE,) and t.dtype == numpy.float32
    assert ((t >= 0) & (t <= 1)).all()
    n = game.players

    def rel(p: int | None) -> int | None:
        return None if p is None else (p - seat) % n

    assert cards(t[LAYOUT["hand"]]) == view.hand
    assert cards(t[LAYOUT["collection"]]) == view.collection
    for r in range(1, 4):
        expected = view.known[(seat + r) % n] if r < n else sg.CardSet()
        assert cards(t[LAYOUT[f"known_{r}"]]) == expected
    assert cards(t[LAYOUT["unknown"]]) == view.unknown
    assert cards(t[LAYOUT["out_of_play"]]) == view.out_of_play
    table = sg.CardSet(sum(p.cards.mask for p in view.table))
    assert cards(t[LAYOUT["table"]]) == table
    top = view.table[-1].cards if view.table else sg.CardSet()
    assert cards(t[LAYOUT["top_play"]]) == top
    for r in range(4):
        laid = sum(p.cards.mask for p in view.table if rel(p.seat) == r)
        assert cards(t[LAYOUT[f"table_by_{r}"]]) == sg.CardSet(laid)
    assert cards(t[LAYOUT["slough_chosen"]]) == view.slough_chosen
    upcard = sg.CardSet(view.upcard.mask) if view.upcard else sg.CardSet()
    assert cards(t[LAYOUT["upcard"]]) == upcard
    assert hot(t[LAYOUT["phase"]]) == view.phase.value
    assert hot(t[LAYOUT["to_move"]]) == rel(view.to_move)
    assert hot(t[LAYOUT["dealer"]]) == rel(view.dealer)
    assert hot(t[LAYOUT["trump"]]) == (None if view.trump is None else view.trump.value)
    assert t[LAYOUT["trump_known"]][0] == (view.trump is not None)
    sizes = t[LAYOUT["hand_sizes"]] * 52
    for p in range(n):
        assert round(float(sizes[rel(p)])) == view.hand_sizes[p]  # type: ignore[index]
        slots = t[LAYOUT["unknown_slots"]][rel(p)] * 52  # type: ignore[index]
        assert round(float(slots)) == view.unknown_slots[p]
    assert round(float(t[LAYOUT["stock_size"]][0] * 52)) == view.stock_size
    assert hot(t[LAYOUT["hidden_holder"]]) == rel(view.hidden_holder)
    assert hot(t[LAYOUT["slough_winner"]]) == rel(view.slough_winner)
    assert {rel(p) for p in view.finished} == set(t[LAYOUT["out"]].nonzero()[0].tolist())
    # The recent moves: the game's last moves, newest first.
    recent = t[LAYOUT["recent"]].reshape(8, 61)
    for row, move, mover in zip(recent, reversed(game.moves), _movers(game), strict=False):
        assert hot(row[52:56]) == rel(mover)
        assert hot(row[56:61]) == move.kind.value
        if move.kind in (sg.MoveKind.PLAY, sg.MoveKind.SLOUGH):
            assert cards(row[:52]) == move.cards
    assert not recent[len(game.moves) :].any()


def _movers(game: sg.Game) -> list[int]:
    """The seat that made each move, newest first."""
    return [seat for _, seat, _ in recent_moves(game.observation(0).history)]


@pytest.mark.parametrize("seed", range(8))
def test_each_slice_says_what_the_observation_says(seed: int) -> None:
    rng = random.Random(seed)
    game = sg.Game.new(random_rules(rng), seed=seed)
    steps = 0
    while True:
        for seat in range(game.players):
            _check(game, seat)
        if game.to_move is None or steps > 120:
            break
        game.play(rng.choice(game.legal_moves))
        steps += 1


def test_a_slough_being_chosen_is_in_the_choosers_tensor_only() -> None:
    from test_actions import _slough_window

    game = _slough_window(sg.Rules.modern(3), 2)
    seat = game.to_move
    assert seat is not None
    card = min((c for m in game.legal_moves for c in m.cards), key=lambda c: c.index)
    before = [game.observation(s).tensor() for s in range(3)]
    game.play_action(sg.actions.SLOUGH_CARD + card.index)
    after = [game.observation(s).tensor() for s in range(3)]
    assert cards(after[seat][LAYOUT["slough_chosen"]]) == sg.CardSet(card.mask)
    assert after[seat][LAYOUT["choosing_slough"]][0] == 1
    for s in range(3):
        if s != seat:
            assert (after[s] == before[s]).all()


def test_the_state_tensor_is_seat_0s_tensor_and_every_hidden_card() -> None:
    rng = random.Random(3)
    game = sg.Game.new(sg.Rules.classic(4), seed=3)
    for _ in range(25):
        game.play(rng.choice(game.legal_moves))
    state = game.state_tensor()
    assert state.shape == (STATE_TENSOR_SIZE,)
    assert (state[STATE_LAYOUT["observation"]] == game.observation(0).tensor()).all()
    for p in range(4):
        assert cards(state[STATE_LAYOUT[f"hand_{p}"]]) == game.hands[p]
        assert cards(state[STATE_LAYOUT[f"collection_{p}"]]) == game.collections[p]
    assert cards(state[STATE_LAYOUT["stock"]]) == sg.CardSet(sum(c.mask for c in game.stock))
    hidden = game.hidden_card
    assert cards(state[STATE_LAYOUT["hidden_card"]]) == (
        sg.CardSet(hidden.mask) if hidden else sg.CardSet()
    )


def test_out_buffers_and_pickled_observations() -> None:
    game = sg.Game.new(seed=5)
    for move in ("flip", "flip"):
        if sg.Move.parse(move) in game.legal_moves:
            game.play(move)
    view = game.observation(1)
    buffer = numpy.full(TENSOR_SIZE, 7.0, numpy.float32)
    assert view.tensor(buffer) is buffer and (buffer == view.tensor()).all()
    # An unpickled observation has its history flattened: the same tensor.
    assert (pickle.loads(pickle.dumps(view)).tensor() == view.tensor()).all()
    for bad in (
        numpy.zeros(TENSOR_SIZE, numpy.float64),
        numpy.zeros(TENSOR_SIZE + 1, numpy.float32),
    ):
        with pytest.raises(sg.ArgumentError, match="float32"):
            view.tensor(bad)
    with pytest.raises(sg.ArgumentTypeError):
        view.tensor([0.0] * TENSOR_SIZE)
    with pytest.raises(sg.ArgumentError):
        game.state_tensor(numpy.zeros(TENSOR_SIZE, numpy.float32))
