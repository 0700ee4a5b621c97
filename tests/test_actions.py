"""Integer actions: one fixed numbering of every move, checked against the moves.

In every position of random games under random rules, the complete action
paths are exactly the legal moves, one path each; a move's actions play it
exactly; observations agree with the game; illegal actions change nothing.
"""

from __future__ import annotations

import copy
import pickle
import random

import pytest
from rules_gen import random_rules

import skitgubbe as sg
from skitgubbe.game.actions import FLIP, NUM_ACTIONS, PASS, PICK_UP, SLOUGH_CARD, SLOUGH_DONE


def _state(game: sg.Game) -> tuple[bytes, sg.CardSet]:
    return game._core.snapshot(), game.slough_chosen


def _completed_moves(game: sg.Game) -> list[sg.Move]:
    """Every move reached by a complete path of legal actions from ``game``."""
    moves = []
    for action in game.legal_actions:
        step = game.copy()
        before = step.moves_played
        step.play_action(action)
        if step.slough_chosen:
            assert step.moves_played == before
            moves += _completed_moves(step)
        else:
            assert step.moves_played == before + 1
            moves.append(step.moves[-1])
    return moves


def _slough_window(rules: sg.Rules, seed: int) -> sg.Game:
    """A game of ``rules`` (from ``seed`` on) played until a slough window offers two cards."""
    for attempt in range(seed, seed + 100):
        game = sg.Game.new(rules, seed=attempt)
        rng = random.Random(attempt)
        while game.to_move is not None:
            slough = [m for m in game.legal_moves if m.kind is sg.MoveKind.SLOUGH]
            if len(slough) >= 3:
                return game
            game.play(rng.choice(game.legal_moves))
    raise AssertionError("no slough window with two cards in 100 games")


def test_every_action_id_that_is_a_move_maps_back_to_itself() -> None:
    for action in range(SLOUGH_CARD):
        move = sg.Move.from_action(action)
        assert move.actions == (action,)
    assert [sg.Move.from_action(a) for a in (FLIP, PICK_UP, PASS)] == [
        sg.Move.flip(),
        sg.Move.pick_up(),
        sg.Move.pass_(),
    ]
    for action in range(SLOUGH_CARD, NUM_ACTIONS):
        with pytest.raises(sg.ArgumentError, match="step of a slough"):
            sg.Move.from_action(action)
    for bad in (-1, NUM_ACTIONS):
        with pytest.raises(sg.ArgumentError, match="action id"):
            sg.Move.from_action(bad)
    for bad_type in (True, 1.0, "7"):
        with pytest.raises(sg.ArgumentTypeError):
            sg.Move.from_action(bad_type)  # type: ignore[arg-type]


def test_card_indices_are_the_card_order() -> None:
    cards = [sg.Card.from_index(i) for i in range(52)]
    assert [c.index for c in cards] == list(range(52))
    assert cards[0] == sg.Card.parse("2C") and cards[51] == sg.Card.parse("AS")
    assert [c.suit for c in cards[::13]] == list(sg.Suit)


def test_a_slough_is_its_cards_in_ascending_index_then_done() -> None:
    move = sg.Move.slough("KS", "3C", "3H")
    cards = sorted(move.cards, key=lambda c: c.index)
    assert move.actions == (*(SLOUGH_CARD + c.index for c in cards), SLOUGH_DONE)
    # Cards of two ranks that are not a run are no move of any variant.
    assert sg.Move(sg.MoveKind.PLAY, sg.CardSet.parse("3C 5C")).actions == ()


@pytest.mark.parametrize("seed", range(12))
def test_action_paths_are_the_legal_moves_one_each(seed: int) -> None:
    rng = random.Random(seed)
    rules = random_rules(rng)
    game = sg.Game.new(rules, seed=seed)
    positions = 0
    while game.to_move is not None and positions < 150:
        legal = game.legal_actions
        assert list(legal) == sorted(set(legal))
        assert [a for a, bit in enumerate(game.action_mask) if bit] == list(legal)
        completed = _completed_moves(game)
        assert sorted(completed, key=lambda m: m.code) == sorted(
            game.legal_moves, key=lambda m: m.code
        )
        seat = game.to_move
        view = game.observation(seat)
        assert view.legal_actions == legal and view.action_mask == game.action_mask
        other = game.observation((seat + 1) % game.players)
        assert other.legal_actions == () and not any(other.action_mask)
        for move in game.legal_moves:
            by_move, by_actions = game.copy(), game.copy()
            events = by_move.play(move)
            for action in move.actions:
                last = by_actions.play_action(action)
            assert _state(by_actions) == _state(by_move)
            assert last == events
            assert by_actions.moves == by_move.moves
        game.play(rng.choice(game.legal_moves))
        positions += 1
    assert positions > 10


def _illegal(game: sg.Game) -> list[object]:
    legal = set(game.legal_actions)
    return [*[a for a in range(NUM_ACTIONS) if a not in legal][:40], -1, NUM_ACTIONS, 2**70]


@pytest.mark.parametrize("seed", range(4))
def test_an_illegal_action_is_refused_and_changes_nothing(seed: int) -> None:
    game = _slough_window(sg.Rules.modern(3), seed)
    for chosen in (False, True):
        if chosen:
            first = min(game.legal_moves[0].cards, key=lambda c: c.index)
            game.play_action(SLOUGH_CARD + first.index)
        before = _state(game)
        legal = game.legal_actions
        for action in _illegal(game):
            error: type[Exception] = sg.IllegalActionError
            if not isinstance(action, int) or not 0 <= action < NUM_ACTIONS:
                error = sg.ArgumentError
            with pytest.raises(error) as caught:
                game.play_action(action)  # type: ignore[arg-type]
            assert str(legal) in str(caught.value)
            if isinstance(caught.value, sg.IllegalActionError):
                assert caught.value.action == action
                assert caught.value.legal_actions == legal
                assert caught.value.reason
            assert _state(game) == before
        for bad_type in (True, 3.0, "3", None):
            with pytest.raises(sg.ArgumentTypeError):
                game.play_action(bad_type)  # type: ignore[arg-type]
            assert _state(game) == before


def test_a_slough_chosen_card_by_card_is_part_of_the_position() -> None:
    game = _slough_window(sg.Rules.modern(3), 1)
    seat = game.to_move
    assert seat is not None
    moves_before = game.moves
    eligible = sorted({c for m in game.legal_moves for c in m.cards}, key=lambda c: c.index)
    assert game.play_action(SLOUGH_CARD + eligible[0].index) == ()
    assert game.slough_chosen == sg.CardSet(eligible[0].mask)
    assert game.moves == moves_before and game.to_move == seat
    # Cards go in ascending order only: a lower card is refused now.
    assert all(a > SLOUGH_CARD + eligible[0].index for a in game.legal_actions)
    assert SLOUGH_DONE in game.legal_actions and PASS not in game.legal_actions
    view = game.observation(seat)
    assert view.slough_chosen == game.slough_chosen
    assert all(game.observation(s).slough_chosen == sg.CardSet() for s in range(3) if s != seat)
    # Copies, deep copies and pickles keep the slough being chosen.
    for twin in (game.copy(), copy.deepcopy(game), pickle.loads(pickle.dumps(game))):
        assert twin.slough_chosen == game.slough_chosen
        assert twin.legal_actions == game.legal_actions
    # Throwing it plays the slough move; undo comes back without a slough chosen.
    events = game.copy().play_action(SLOUGH_DONE)
    assert any(e.kind is sg.EventKind.SLOUGH for e in events)
    thrown = game.copy()
    thrown.play_action(SLOUGH_DONE)
    assert thrown.moves[-1] == sg.Move.slough(eligible[0])
    assert thrown.undo() == sg.Move.slough(eligible[0])
    assert thrown.slough_chosen == sg.CardSet() and thrown.moves == moves_before
    # play(move) and undo() drop a slough being chosen.
    played = game.copy()
    played.play(sg.Move.pass_())
    assert played.slough_chosen == sg.CardSet()
    assert played.undo() == sg.Move.pass_()
    assert played._core.snapshot() == game._core.snapshot()
    undone = game.copy()
    undone.undo()
    assert undone.slough_chosen == sg.CardSet() and undone.moves == moves_before[:-1]
    # The record holds moves only.
    assert game.record()["moves"] == [str(m) for m in moves_before]
