"""A seat's history: the events since a point are read without the whole history.

``play_game_async(on_event=...)`` tells each seat its new events after every move;
building the whole history each time made a long game quadratic.
"""

from __future__ import annotations

import random

import skitgubbe as sg


def test_the_events_since_a_point_equal_a_slice_and_leave_the_rest_unbuilt() -> None:
    rng = random.Random(4)
    game = sg.Game.new(sg.Rules.modern(3), seed=4)
    seen = [0, 0, 0]
    while game.to_move is not None:
        game.play(rng.choice(game.legal_moves))
        for seat in range(3):
            history = game.observation(seat).history
            new = history[seen[seat] :]
            assert history._items is None  # the whole history was not built
            assert new == history._all()[seen[seat] :]
            assert history.since(len(history)) == () and history.since(len(history) + 3) == ()
            seen[seat] = len(history)
    assert seen[0] > 100


def test_a_table_update_carries_exactly_the_new_events() -> None:
    import asyncio

    updates: list[sg.TableUpdate] = []

    async def record(update: sg.TableUpdate) -> None:
        updates.append(update)

    lineup = [sg.bots.GreedyBot() for _ in range(3)]
    asyncio.run(sg.play_game_async(lineup, seed=8, on_event=record))
    for seat in range(3):
        told = [e for u in updates if u.viewer == seat for e in u.events]
        last = [u for u in updates if u.viewer == seat][-1]
        assert last.observation is not None
        assert tuple(told) == tuple(last.observation.history)
