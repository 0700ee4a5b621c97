"""A game's history keeps its memory proportionate to its moves.

A position that only the next one refers to drops its state and its unread
events, except every ``HISTORY_CHECKPOINT``-th move and the start; reading it
(undo, the history, an observation) plays it again from the nearest state kept.
These tests check that the dropping happens, and that nothing a user can see
changes: every position, event, history and record is the same as in a game
whose positions were all kept.
"""

from __future__ import annotations

import json
import pickle
import random
import tracemalloc

import attrs
import pytest

import skitgubbe as sg
from skitgubbe import _core

CHECKPOINT = _core.HISTORY_CHECKPOINT


def _random_game(seed: int, rules: sg.Rules, moves: int) -> sg.Game:
    game = sg.Game.new(rules=rules, seed=seed)
    rng = random.Random(seed)
    while game.to_move is not None and game.moves_played < moves:
        game.play(rng.choice(game.legal_moves))
    return game


def _positions(game: sg.Game) -> list[sg.Game]:
    """A copy of ``game`` at every position from the start, each holding its position."""
    replay = sg.Game.from_record(game.record())
    copies = []
    for _ in range(replay.moves_played + 1):
        copies.append(replay.copy())
        if replay.moves_played:
            replay.undo()
    return copies[::-1]


def _kept(game: sg.Game) -> list[bool]:
    node = game._core
    kept = []
    while node is not None:
        kept.append(node.kept)
        node = node.parent
    return kept[::-1]


def test_a_replayed_history_keeps_states_only_at_checkpoints_and_the_last_moves() -> None:
    game = sg.Game.from_record(_random_game(3, sg.Rules.classic(3), 400).record())
    kept = _kept(game)
    n = game.moves_played
    assert n > 3 * CHECKPOINT
    dropped = [i for i, k in enumerate(kept) if not k]
    assert dropped, "no state was dropped"
    # The start, every checkpoint and the two newest positions keep theirs.
    assert all(kept[i] for i in range(0, n + 1, CHECKPOINT))
    assert kept[0] and kept[-1] and kept[-2]
    assert len(dropped) == sum(1 for i in range(1, n - 1) if i % CHECKPOINT)


def test_a_position_held_elsewhere_keeps_its_state() -> None:
    game = _random_game(5, sg.Rules.classic(3), 10)
    held = game.copy()
    for move in _random_game(5, sg.Rules.classic(3), 80).moves[10:80]:
        game.play(move)
    node = game._core
    while node.moves != 10:
        node = node.parent
    assert node is held._core
    assert node.kept  # the copy refers to it: never dropped
    assert held.legal_moves == _random_game(5, sg.Rules.classic(3), 10).legal_moves


@pytest.mark.parametrize("preset", ["classic", "modern"])
@pytest.mark.parametrize("players", [2, 4])
def test_undo_after_replay_walks_back_through_the_same_positions(preset: str, players: int) -> None:
    original = _random_game(11 + players, sg.Rules.preset(preset, players), 300)
    reference = _positions(original)  # every position held: none dropped
    replay = sg.Game.from_record(original.record())
    for expected in reversed(reference):
        assert replay._core.snapshot() == expected._core.snapshot()
        assert replay.legal_moves == expected.legal_moves
        for seat in range(players):
            assert replay.observation(seat) == expected.observation(seat)
        if replay.moves_played:
            replay.undo()
    assert replay.moves == ()


def test_events_of_dropped_steps_are_made_again_the_same() -> None:
    original = _random_game(21, sg.Rules.modern(3), 500)
    held = _positions(original)
    replay = sg.Game.from_record(original.record())
    assert not all(_kept(replay))
    assert replay.history == original.history
    steps = []
    node = replay._core
    while node.parent is not None:
        steps.append(node)
        node = node.parent
    for step, position in zip(reversed(steps), held[1:], strict=True):
        assert step.events == position._core.events
    for seat in range(3):
        assert tuple(replay.observation(seat).history) == tuple(original.observation(seat).history)


def test_a_replayed_game_records_pickles_and_plays_on_like_the_original() -> None:
    original = _random_game(8, sg.Rules.classic(4), 250)
    replay = sg.Game.from_record(json.loads(json.dumps(original.record())))
    assert replay.record() == original.record()
    assert pickle.loads(pickle.dumps(replay)).record() == original.record()
    for _ in range(CHECKPOINT + 3):
        replay.undo()
        original.undo()
    rng = random.Random(0)
    while replay.to_move is not None and replay.moves_played < 400:
        move = rng.choice(replay.legal_moves)
        assert replay.play(move) == original.play(move)
    assert replay.record() == original.record()


def test_replaying_a_long_record_costs_memory_of_the_order_of_its_json() -> None:
    # A long game: every step of the history is a small object; the states of
    # all but every CHECKPOINT-th are dropped. Before, every step kept its
    # whole state and events (about 500 bytes a move, 50 times the JSON).
    # Four greedy players loop until the move cap in this deal.
    rules = attrs.evolve(sg.Rules.classic(4), max_moves=3000)
    played = sg.Game.new(rules=rules, seed=1)
    bot = sg.bots.GreedyBot()
    while played.to_move is not None:
        played.play(bot.choose(played.observation(played.to_move)))
    data = json.loads(json.dumps(played.record()))
    del played
    tracemalloc.start()
    try:
        game = sg.Game.from_record(data)
        retained, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert game.moves_played == 3000
    assert retained / game.moves_played < 200, retained / game.moves_played


def test_the_replay_app_keeps_the_history_light_and_its_frames_right() -> None:
    from skitgubbe.apps.replay import Replay

    original = _random_game(4, sg.Rules.classic(3), 300)
    replay = Replay(original.record(), seat=2)
    assert not all(_kept(replay.game))  # frames are played on from marks, not held
    reference = _positions(original)
    for index in (0, 1, 31, 32, 33, 100, len(replay) - 1):
        assert replay._position(index).observation(2) == reference[index].observation(2)
        if index:
            before = reference[index - 1].observation(2).history
            after = reference[index].observation(2).history
            assert replay.events(index) == tuple(after)[len(before) :]
