"""A Game may be read on one thread while another plays it.

A game's state is one reference to an immutable position (the position holds its
history), so a reader sees one whole position or the next, never a mix.
"""

from __future__ import annotations

import random
import sys
import threading
import time

import skitgubbe as sg


def test_observations_taken_while_another_thread_plays_are_whole_positions() -> None:
    game = sg.Game.new(sg.Rules.modern(4), seed=12)
    seen: list[sg.Observation] = []
    done = threading.Event()

    def read() -> None:
        while not done.is_set():
            seen.append(game.observation(len(seen) % 4))

    reader = threading.Thread(target=read)
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as possible
    reader.start()
    try:
        rng = random.Random(12)
        moves = []
        while game.to_move is not None:
            move = rng.choice(game.legal_moves)
            game.play(move)
            moves.append(move)
            # Let the reader in before the next move too (it also runs during moves).
            wanted, deadline = len(seen) + 1, time.monotonic() + 1.0
            while len(seen) < wanted and time.monotonic() < deadline:
                time.sleep(0.0001)
    finally:
        done.set()
        reader.join()
        sys.setswitchinterval(old)
    assert len(seen) > 50
    replay = sg.Game.new(sg.Rules.modern(4), seed=12)
    positions = [replay.copy()]
    for move in moves:
        replay.play(move)
        positions.append(replay.copy())
    for view in seen:
        expected = positions[view.moves_played].observation(view.seat)
        assert view == expected
        assert len(view.history) == len(expected.history)
