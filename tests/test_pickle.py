"""Pickle and deepcopy: a Game (history included) and every public value survive both.

Multiprocessing, Ray and OpenSpiel move games between processes and copy them; a
pickled Observation must carry only what its seat knows.
"""

from __future__ import annotations

import copy
import pickle
import random

import pytest

import skitgubbe as sg
from skitgubbe import _engine


def _played(seed: int, moves: int, rules: sg.Rules | None = None) -> sg.Game:
    game = sg.Game.new(rules, seed=seed)
    rng = random.Random(seed)
    for _ in range(moves):
        if game.to_move is None:
            break
        game.play(rng.choice(game.legal_moves))
    return game


def _same_game(a: sg.Game, b: sg.Game) -> None:
    assert a.moves == b.moves
    assert a.history == b.history
    assert a.record() == b.record()
    assert a.legal_moves == b.legal_moves
    for seat in range(a.players):
        assert a.observation(seat) == b.observation(seat)


@pytest.mark.parametrize("clone", ["pickle", "deepcopy", "copy"])
@pytest.mark.parametrize("rules", [sg.Rules.classic(), sg.Rules.modern(4)], ids=str)
def test_a_game_survives_pickle_and_copy_with_its_history(clone: str, rules: sg.Rules) -> None:
    for seed in range(8):
        game = _played(seed, 40 + 17 * seed, rules)
        if clone == "pickle":
            twin = pickle.loads(pickle.dumps(game))
        elif clone == "deepcopy":
            twin = copy.deepcopy(game)
        else:
            twin = copy.copy(game)
        _same_game(game, twin)
        # undo works after the round trip, all the way back to the deal
        while twin.moves:
            assert twin.undo() == game.undo()
            _same_game(game, twin)
        # and the two are independent afterwards
        move = twin.legal_moves[0]
        twin.play(move)
        assert len(twin.moves) == len(game.moves) + 1


def test_a_finished_game_and_a_phase_two_position_pickle() -> None:
    game = _played(3, 10_000)
    assert game.result is not None
    twin = pickle.loads(pickle.dumps(game))
    assert twin.result == game.result
    _same_game(game, twin)
    start = sg.Game.from_shedding(None, ["9D QD", "JD AD", "4C"], trump="S", leader=0)
    start.play(start.legal_moves[0])
    _same_game(start, pickle.loads(pickle.dumps(start)))


def test_a_sampled_world_pickles_without_a_record() -> None:
    world = _played(5, 20).observation(0).sample_world(3)
    twin = pickle.loads(pickle.dumps(world))
    assert twin.hands == world.hands and twin.stock == world.stock
    assert twin.legal_moves == world.legal_moves


def test_a_long_game_pickles_flat() -> None:
    # A pickle of linked history steps would recurse once per move.
    rules = sg.Rules.classic(4, max_moves=5000)
    game = sg.Game.new(rules, seed=1)
    while game.to_move is not None:
        game.play(game.legal_moves[-1])
    limit = 200
    assert len(game.moves) > limit
    twin = pickle.loads(pickle.dumps(game))
    assert twin.moves == game.moves


def test_every_public_value_survives_pickle_and_deepcopy() -> None:
    game = _played(11, 30)
    view = game.observation(1)
    values: list[object] = [
        sg.Card.parse("7H"),
        sg.CardSet.parse("7H 8H 9H"),
        sg.Rules.modern(4, hand_size=5),
        sg.Move.parse("7h 8h"),
        sg.Move.flip(),
        game.history[0],
        game.play(game.legal_moves[0]),
        view,
        view.history,
        view.table,
        _played(2, 10_000).result,
        sg.simulate(sg.Rules.classic(), 20, seed=1),
        sg.Phase.SHEDDING,
        sg.TrickMode.ALL,
        sg.EventKind.DRAW,
        sg.MoveKind.PICK_UP,
        sg.Suit.HEARTS,
        sg.Rank.ACE,
    ]
    for value in values:
        for twin in (pickle.loads(pickle.dumps(value)), copy.deepcopy(value)):
            assert twin == value, type(value).__name__
            assert type(twin) is type(value)


def test_an_unpickled_observation_still_samples_and_feeds_the_bots() -> None:
    view = _played(4, 25).observation(2)
    twin = pickle.loads(pickle.dumps(view))
    assert twin.sample_world(9).hands == view.sample_world(9).hands
    if twin.my_turn:
        assert sg.bots.GreedyBot().choose(twin) == sg.bots.GreedyBot().choose(view)


def test_a_pickled_observation_carries_only_what_its_seat_knows() -> None:
    # Two deals that differ only in cards seat 0 cannot place (two other seats'
    # hands swapped) give byte-identical pickles of seat 0's observation.
    base = sg.Game.new(seed=21)
    hands = base.hands
    swapped_deck = [str(c) for c in _engine_deck(21)]
    one, two = sorted(hands[1])[0], sorted(hands[2])[0]
    a, b = swapped_deck.index(str(one)), swapped_deck.index(str(two))
    swapped_deck[a], swapped_deck[b] = swapped_deck[b], swapped_deck[a]
    other = sg.Game.new(deck=swapped_deck, dealer=base.dealer)
    assert other.hands[1] != hands[1]
    assert other.stock == base.stock  # only the two hands differ
    mine = base.observation(0)
    theirs = other.observation(0)
    assert pickle.dumps(mine) == pickle.dumps(theirs)
    # ... while the seats that hold the swapped cards do see a difference
    assert pickle.dumps(base.observation(1)) != pickle.dumps(other.observation(1))


def _engine_deck(seed: int) -> list[sg.Card]:
    return [sg.Card.from_code(c) for c in _engine.deck_from_seed(seed)]


def test_a_core_refuses_bytes_that_are_not_a_state() -> None:
    core = sg.Game.new(seed=1)._core
    assert pickle.loads(pickle.dumps(core)) == core
    with pytest.raises(_engine.CoreError):
        _engine.from_snapshot(b"\x00" * 10)
    broken = bytearray(core.snapshot())
    broken[:20] = b"\xff" * 20  # the rules first: 255 players
    with pytest.raises(_engine.CoreError):
        _engine.from_snapshot(bytes(broken))
