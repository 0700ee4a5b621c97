"""A seat's view crosses into the C search as bytes (Observation.core_view): bytes that
fail sg_view_check (lengths, seats, cards, unknown slots, and the relations between
fields that play relies on) are refused with a clear error, and damaged views --
randomly, or one relation at a time -- are refused or searched, never a crash.
tests/fuzz/ fuzzes the same boundary in C under the sanitizers."""

from __future__ import annotations

import random
import subprocess
import sys
from collections.abc import Callable

import attrs
import pytest

import skitgubbe as sg
from skitgubbe import _core


def test_a_tampered_view_is_refused_when_the_observation_is_made() -> None:
    view = sg.Game.new(seed=3).observation(0)
    for tampered in (view.core_view[:-1], b"\xff" * len(view.core_view)):
        with pytest.raises(sg.ArgumentError, match="core_view"):
            attrs.evolve(view, core_view=tampered)
    with pytest.raises(sg.ArgumentTypeError, match="core_view"):
        attrs.evolve(view, core_view="bytes")


def test_the_search_refuses_a_view_that_is_not_one() -> None:
    view = bytearray(sg.Game.new(seed=3).observation(0).core_view)
    view[:20] = b"\xff" * 20  # the rules first: 255 players
    for call in (
        lambda v: _core.sample_world(v, 1),
        _core.greedy_move,
        lambda v: _core.pimc(v, 2, 1, 1, 50, 1),
        lambda v: _core.ismcts(v, 10, 0.0, 0.7, 1, 50, 1),
    ):
        with pytest.raises(_core.ViewError) as info:
            call(bytes(view))
        assert isinstance(info.value, ValueError)


def test_a_finished_game_has_a_view_but_nothing_to_search() -> None:
    game = sg.Game.new(seed=5)
    while game.to_move is not None:
        game.play(game.legal_moves[0])
    view = game.observation(0).core_view
    assert _core.view_check(view) == 0
    with pytest.raises(_core.ViewError, match="player to move"):
        _core.greedy_move(view)


SCRIPT = """
import random, sys
import skitgubbe as sg
from skitgubbe import _core
rng = random.Random(7)
views = []
for seed in range(12):
    rules = sg.Rules.modern(2 + seed % 3) if seed % 2 else sg.Rules.classic(2 + seed % 3)
    game = sg.Game.new(rules, seed=seed)
    for _ in range(rng.randrange(80)):
        if game.to_move is None:
            break
        game.play(rng.choice(game.legal_moves))
    if game.to_move is not None:
        views.append(game.observation(game.to_move).core_view)
refused = 0
for i in range(1500):
    view = bytearray(rng.choice(views))
    for _ in range(rng.randrange(1, 4)):
        view[rng.randrange(len(view))] = rng.randrange(256)
    try:
        _core.sample_world(bytes(view), i)
        _core.greedy_move(bytes(view))
        _core.pimc(bytes(view), 2, 1, 1, 50, i)
        _core.ismcts(bytes(view), 30, 0.0, 0.7, 1, 50, i)
    except _core.ViewError:
        refused += 1
print(refused)
"""


def test_randomly_damaged_views_are_searched_or_refused_never_a_crash() -> None:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert 100 < int(done.stdout) < 1500  # some refused, some searched


# Offsets of sg_state's fields in a view's bytes (skitgubbe.h: the rules take 24 bytes,
# then hand, coll, known (4 x 8 each), out, stock, table, table_seat, table_play).
HAND, STOCK_TOP, STOCK_LEN, TABLE_LEN, PHASE, TO_MOVE = 24, 336, 337, 338, 339, 341
LEADER, FOLLOWER, HIDDEN_CARD, HIDDEN_HOLDER, LAST_DRAWER = 342, 343, 347, 348, 349
ROUND_START, WINNER, WINDOW, TRICK_TARGET, N_FINISHED, FINISHED = 352, 354, 355, 356, 358, 359
LOSER, MOVES, SIZE = 363, 372, 376
SEAT_FIELDS = (TO_MOVE, LEADER, FOLLOWER, HIDDEN_HOLDER, LAST_DRAWER, 351, WINNER, LOSER)


def views_where(rules: sg.Rules, want: Callable[[bytes], bool], count: int = 3) -> list[bytes]:
    """Views of the player to move, in random games under `rules`, where `want` holds."""
    rng = random.Random(11)
    found: list[bytes] = []
    for seed in range(200):
        game = sg.Game.new(rules, seed=seed)
        while game.to_move is not None and len(found) < count:
            view = game.observation(game.to_move).core_view
            if want(view):
                found.append(view)
                break
            game.play(rng.choice(game.legal_moves))
        if len(found) == count:
            return found
    raise AssertionError("no such position")


def damaged(view: bytes, fields: dict[int, int]) -> bytes:
    raw = bytearray(view)
    for offset, value in fields.items():
        raw[offset] = value
    return bytes(raw)


def test_the_offsets_above_are_those_of_sg_state() -> None:
    game = sg.Game.new(sg.Rules.classic(3), seed=4)
    view = game.observation(0).core_view
    assert len(view) == SIZE
    assert view[PHASE] == 0 and view[TO_MOVE] == game.to_move
    assert (view[STOCK_TOP], view[STOCK_LEN], view[TABLE_LEN]) == (0, 52 - 9, 0)
    assert view[LAST_DRAWER] == view[HIDDEN_HOLDER] == view[LOSER] == 0xFF
    assert int.from_bytes(view[MOVES : MOVES + 4], "little") == 0
    assert int.from_bytes(view[HAND : HAND + 8], "little") == game.observation(0).hand.mask


def phase1_stock_empty(view: bytes) -> bool:
    return view[PHASE] == 0 and view[STOCK_TOP] == view[STOCK_LEN]


def phase2_trick(view: bytes) -> bool:
    return view[PHASE] == 1 and view[TABLE_LEN] > 0


def window_open(view: bytes) -> bool:
    return view[PHASE] == 0 and view[WINDOW] != 0


CLASSIC, MODERN = sg.Rules.classic(3), sg.Rules.modern(3)
# (name, rules, where, damage, the check that catches it)
RELATIONAL_DAMAGE = [
    (
        "stock empty, nobody drew its last card",
        CLASSIC,
        phase1_stock_empty,
        {LAST_DRAWER: 0xFF},
        19,
    ),
    (
        "a last drawer with cards still in the stock",
        CLASSIC,
        lambda v: v[PHASE] == 0,
        {LAST_DRAWER: 0},
        19,
    ),
    (
        "a hidden card beside nobody",
        CLASSIC,
        lambda v: phase1_stock_empty(v) and v[HIDDEN_CARD] != 0xFF,
        {HIDDEN_HOLDER: 0xFF},
        19,
    ),
    ("a slough window without a winner", MODERN, window_open, {WINNER: 0xFF}, 20),
    (
        "a round starting past the table",
        MODERN,
        lambda v: v[PHASE] == 0 and v[WINDOW] == 0,
        {ROUND_START: 52},
        20,
    ),
    ("a duel without a follower", CLASSIC, lambda v: v[PHASE] == 0, {FOLLOWER: 0xFF}, 20),
    ("no leader", CLASSIC, lambda v: v[PHASE] == 0, {LEADER: 0xFF}, 14),
    ("a loser while the game goes on", CLASSIC, lambda v: True, {LOSER: 0}, 12),
    (
        "the move cap reached",
        CLASSIC,
        lambda v: True,
        {MOVES: 0x10, MOVES + 1: 0x27},
        11,
    ),
    ("the player to move already out", CLASSIC, phase2_trick, {N_FINISHED: 1}, 13),
    ("a trick without a target", CLASSIC, phase2_trick, {TRICK_TARGET: 0}, 18),
]


@pytest.mark.parametrize(
    ("rules", "where", "damage", "check"),
    [case[1:] for case in RELATIONAL_DAMAGE],
    ids=[case[0] for case in RELATIONAL_DAMAGE],
)
def test_relational_damage_is_refused_by_its_check(
    rules: sg.Rules, where: Callable[[bytes], bool], damage: dict[int, int], check: int
) -> None:
    for view in views_where(rules, where):
        if N_FINISHED in damage:  # the finish order names the player to move
            damage = {**damage, FINISHED: view[TO_MOVE]}
        bad = damaged(view, damage)
        assert _core.view_check(view) == 0
        assert _core.view_check(bad) == check
        with pytest.raises(_core.ViewError, match=f"check {check} of sg_view_check: "):
            _core.greedy_move(bad)


DAMAGE_SCRIPT = """
import random, sys
import skitgubbe as sg
from skitgubbe import _core
SEAT_FIELDS = %r
COUNTERS = (336, 337, 338, 350, 352, 353, 355, 356, 357, 358, 364, 372)
rng = random.Random(5)
views = []
for seed in range(24):
    players = 2 + seed %% 3
    rules = sg.Rules.modern(players) if seed %% 2 else sg.Rules.classic(players)
    game = sg.Game.new(rules, seed=seed)
    for _ in range(rng.randrange(150)):
        if game.to_move is None:
            break
        game.play(rng.choice(game.legal_moves))
    if game.to_move is not None:
        views.append(game.observation(game.to_move).core_view)
refused = searched = 0
for i, view in enumerate(views):
    for offset in SEAT_FIELDS + COUNTERS:
        for value in (0, 1, 2, 3, 4, 0x33, 0x34, 0xFE, 0xFF):
            bad = bytearray(view)
            bad[offset] = value
            bad = bytes(bad)
            try:
                _core.sample_world(bad, i)
                _core.greedy_move(bad)
                _core.pimc(bad, 1, 1, 1, 40, i)
                _core.ismcts(bad, 8, 0.0, 0.7, 1, 40, i)
                searched += 1
            except _core.ViewError:
                refused += 1
print(refused, searched)
"""


def test_each_seat_field_and_counter_damaged_is_refused_or_searched() -> None:
    done = subprocess.run(
        [sys.executable, "-c", DAMAGE_SCRIPT % (SEAT_FIELDS,)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    refused, searched = map(int, done.stdout.split())
    assert refused > 1000 and searched > 100
