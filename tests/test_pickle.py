"""Pickle and deepcopy: a Game (history included) and every public value survive both.

Multiprocessing, Ray and OpenSpiel move games between processes and copy them; a
pickled Observation must carry only what its seat knows.
"""

from __future__ import annotations

import copy
import json
import os
import pickle
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rules_gen import random_rules

import skitgubbe as sg
from skitgubbe import _core


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
    return [sg.Card.from_code(c) for c in _core.deck_from_seed(seed)]


def test_a_core_refuses_bytes_that_are_not_a_state() -> None:
    core = sg.Game.new(seed=1)._core
    assert pickle.loads(pickle.dumps(core)) == core
    for bad in (b"\x00" * 10, "text", None):
        with pytest.raises(sg.StateError) as caught:
            _core.from_snapshot(bad)
        assert caught.value.field is None and not isinstance(caught.value, _core.CoreError)
    broken = bytearray(core.snapshot())
    broken[:20] = b"\xff" * 20  # the rules first: 255 players
    with pytest.raises(sg.StateError, match="rules") as caught:
        _core.from_snapshot(bytes(broken))
    assert caught.value.field == "rules"


# ---- tampered pickles -------------------------------------------------------------
#
# A pickle is data from outside: every byte of its start state may have been changed.
# Each tampered pickle must either raise StateError (a ValueError of the package)
# naming what is wrong, or load a game that is valid and fully usable. The
# tampering runs in a child process, so that a crash (as on the engine before
# sg_state_check: a table_len of 250 wrote past the heap) fails the test instead of
# killing pytest.

TESTS = Path(__file__).resolve().parent

# The reported cases: one field of a pickled game's start state, set to a
# value out of its range, and the field StateError must name.
REPORTED = (
    ("table_len", 250),
    ("stock_len", 200),
    ("follower", 7),
    ("end_pending", 9),
    ("window", 0xF8),
    ("n_finished", 200),
)


def _layout() -> dict[str, tuple[int, int, int]]:
    members, _ = _core.state_layout()
    return {name: (offset, size, count) for name, offset, size, count in members}


def _start_snapshot(game: sg.Game) -> bytes:
    core = game.__reduce__()[1][3]
    assert isinstance(core, _core.Core)
    return core.snapshot()


def _tampered(data: bytes, snapshot: bytes, offset: int, raw: bytes) -> bytes:
    """The pickle `data` with bytes offset.. of its start state replaced by `raw`."""
    at = data.find(snapshot)
    assert at >= 0 and data.find(snapshot, at + 1) < 0
    state = bytearray(snapshot)
    state[offset : offset + len(raw)] = raw
    return data[:at] + bytes(state) + data[at + len(snapshot) :]


def _world(rules: sg.Rules, seed: int, moves: int, after: int) -> sg.Game:
    """A sampled world (a game whose pickle starts mid-game, with no deal to
    compare with), played on for `after` moves (its pickled history)."""
    game = _played(seed, moves, rules)
    assert game.to_move is not None
    world = game.observation(game.to_move).sample_world(seed)
    rng = random.Random(seed)
    for _ in range(after):
        if world.to_move is None:
            break
        world.play(rng.choice(world.legal_moves))
    return world


def _bases() -> dict[str, sg.Game]:
    """Positions to tamper with, in every phase and trick mode."""
    modern = sg.Rules.modern(4)
    window = sg.Game.new(sg.Rules.modern(), seed=0)  # a slough window (see slough_chosen)
    for _ in range(11):
        window.play(window.legal_moves[0])
    assert window.legal_moves[-1].kind is sg.MoveKind.PASS
    shedding = sg.Game.from_shedding(None, ["9D QD 2S", "JD AD", "4C 5C"], trump="S", leader=0)
    shedding.play(shedding.legal_moves[0])
    return {
        "dealt": _played(3, 6),
        "shedding-start": shedding,
        "world-duel": _world(sg.Rules.classic(), 4, 5, 2),
        "world-all": _world(modern, 5, 9, 3),
        "world-window": window.observation(window.to_move or 0).sample_world(1),
        "world-upcard": _world(sg.Rules.classic(2, trump="upcard", last_card="reveal"), 6, 7, 1),
        "world-shedding": _world(sg.Rules.classic(), 7, 60, 2),
        "world-rotation": _world(modern, 8, 70, 1),
    }


def _values(raw: bytes, rng: random.Random) -> list[bytes]:
    """Boundary, neighbouring and random values for one element of `raw`'s size."""
    size = len(raw)
    value = int.from_bytes(raw, sys.byteorder)
    if size == 1:
        numbers = [0, 1, 2, 3, 4, 5, 12, 13, 15, 16, 51, 52, 53, 0x7F, 0x80, 0xFA, 0xFE, 0xFF]
        numbers += [(value + 1) % 256, (value - 1) % 256, rng.randrange(256)]
    elif size == 4:
        numbers = [0, 1, value + 1, max(value - 1, 0), 9999, 10_000, 10_001, 2**32 - 1]
    else:
        card = rng.randrange(64)
        numbers = [0, value ^ (1 << card), value | 1 << 13, value & (value - 1)]
        numbers += [sg.CardSet.full().mask, 2**64 - 1, rng.getrandbits(64)]
    out = []
    for number in numbers:
        candidate = (number % 2 ** (8 * size)).to_bytes(size, sys.byteorder)
        if candidate != raw and candidate not in out:
            out.append(candidate)
    return out


def _use(game: sg.Game, rng: random.Random) -> None:
    """Everything a game is for: copies, pickles, views, tensors, moves, to the end."""
    twin = pickle.loads(pickle.dumps(game))
    assert twin.legal_moves == game.legal_moves and twin.moves == game.moves
    assert game.copy().state_tensor().shape == game.state_tensor().shape
    for moves in range(3000):
        if moves in (0, 1) or game.to_move is None:
            mask = game.action_mask
            assert [a for a, legal in enumerate(mask) if legal] == list(game.legal_actions)
            game.state_tensor()
            for seat in range(game.players):
                view = game.observation(seat)
                view.tensor()
                if view.my_turn:
                    assert view.legal_moves == game.legal_moves
                    assert view.sample_world(moves).legal_moves == game.legal_moves
        if game.to_move is None:
            assert game.result is not None
            break
        legal = game.legal_moves
        assert legal, "a game going on without a legal move"
        game.play(rng.choice(legal))
    assert pickle.loads(pickle.dumps(game)).moves == game.moves


def _outcome(data: bytes, rng: random.Random) -> dict[str, object]:
    """What loading the pickle `data` does: an error's type and field, or "ok"."""
    try:
        game = pickle.loads(data)
    except Exception as error:  # what the test checks: the kind of error
        return {
            "outcome": "error",
            "type": type(error).__name__,
            "package_value_error": isinstance(error, sg.SkitgubbeError)
            and isinstance(error, ValueError)
            and not isinstance(error, _core.CoreError),
            "field": getattr(error, "field", None),
            "text": str(error),
        }
    _use(game, rng)
    return {"outcome": "ok"}


def _child_reported() -> list[dict[str, object]]:
    game = _played(3, 6)
    data, snapshot, layout = pickle.dumps(game), _start_snapshot(game), _layout()
    results = []
    for name, value in REPORTED:
        offset, size, _ = layout[name]
        raw = value.to_bytes(size, sys.byteorder)
        result = _outcome(_tampered(data, snapshot, offset, raw), random.Random(0))
        results.append({"case": name, **result})
    for name, value in REPORTED:  # the same without a deal to compare with
        world = _world(sg.Rules.classic(), 2, 9, 0)
        data, snapshot = pickle.dumps(world), _start_snapshot(world)
        offset, size, _ = layout[name]
        raw = value.to_bytes(size, sys.byteorder)
        result = _outcome(_tampered(data, snapshot, offset, raw), random.Random(0))
        results.append({"case": f"world {name}", **result})
    return results


def _child_sweep(base: str) -> list[dict[str, object]]:
    game = _bases()[base]
    data, snapshot = pickle.dumps(game), _start_snapshot(game)
    rng = random.Random(f"tamper {base}")
    members, _ = _core.state_layout()
    results = []
    for name, offset, size, count in members:
        for element in range(count):
            at = offset + element * size
            for raw in _values(snapshot[at : at + size], rng):
                result = _outcome(_tampered(data, snapshot, at, raw), rng)
                results.append({"case": f"{name}[{element}] = {raw.hex()}", **result})
    return results


def _in_child(*args: str) -> list[dict[str, Any]]:
    """Runs test_pickle._child_<args[0]>(*args[1:]) in a fresh interpreter."""
    code = (
        "import json, sys; sys.path.insert(0, sys.argv[1]); import test_pickle; "
        "print(json.dumps(getattr(test_pickle, '_child_' + sys.argv[2])(*sys.argv[3:])))"
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    done = subprocess.run(
        [sys.executable, "-c", code, str(TESTS), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=900,
        check=False,
    )
    assert done.returncode == 0, f"the child died ({done.returncode}): {done.stderr[-3000:]}"
    results: list[dict[str, Any]] = json.loads(done.stdout.splitlines()[-1])
    return results


def test_the_reported_tampered_pickles_raise_a_state_error_naming_the_field() -> None:
    results = _in_child("reported")
    assert len(results) == 2 * len(REPORTED)
    for result in results:
        assert result["outcome"] == "error", result
        assert result["type"] == "StateError" and result["package_value_error"], result
        name = str(result["case"]).removeprefix("world ")
        assert result["field"] == name, result
        assert repr(name) in result["text"], result


@pytest.mark.parametrize(
    "base",
    # The worlds load most tamperings (stale bytes) and play each out: about 10 s each.
    [
        pytest.param(b, marks=pytest.mark.slow) if b.startswith("world") else b
        for b in sorted(_bases())
    ],
)
def test_every_byte_of_a_pickled_state_tampered_loads_valid_or_raises_state_error(
    base: str,
) -> None:
    results = _in_child("sweep", base)
    members, size = _core.state_layout()
    assert sum(s * n for _, _, s, n in members) == size  # every byte is tampered with
    errors = [r for r in results if r["outcome"] == "error"]
    assert errors and all(r["type"] == "StateError" and r["package_value_error"] for r in errors), [
        r for r in errors if r["type"] != "StateError" or not r["package_value_error"]
    ][:5]
    assert all(r["field"] for r in errors), [r for r in errors if not r["field"]][:5]
    if base.startswith("world"):  # no deal to compare with: the C check decides
        fields = {r["field"] for r in errors}
        assert {"table_len", "stock_len", "follower", "n_finished", "hand"} <= fields, fields


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.randoms(use_true_random=False), st.booleans())
def test_every_position_of_real_play_passes_the_state_check_and_unpickles(
    rng: random.Random, from_shedding: bool
) -> None:
    # No false rejections: every state real play reaches (under any rules, from a
    # deal or a phase-2 position, to the end or the move cap) passes sg_state_check,
    # and so do worlds sampled from any seat's view (tests/test_worlds.py checks the
    # worlds themselves); the game unpickles at every point.
    rules = random_rules(rng)
    if from_shedding:
        hands: list[list[sg.Card]] = [[] for _ in range(rules.players)]
        for card in sg.CardSet.full():
            seat = rng.randrange(rules.players + 1)
            if seat < rules.players:
                hands[seat].append(card)
        leader = rng.randrange(rules.players)
        trump = rng.choice([None, "S", "H"])
        if rules.trump is sg.TrumpRule.NONE:  # no trump to name (docs/rules.md §5.1)
            trump = None
        game = sg.Game.from_shedding(rules, hands, trump=trump, leader=leader)
    else:
        game = sg.Game.new(rules, seed=rng.getrandbits(64))
    while True:
        assert _core.state_check(game._core.snapshot()) == (0, None), game
        if rng.random() < 0.05:
            _same_game(game, pickle.loads(pickle.dumps(game)))
        if game.to_move is None:
            break
        if rng.random() < 0.25:  # a world at one position in four (each reads the history)
            world = game.observation(game.to_move).sample_world(rng.getrandbits(32))
            assert _core.state_check(world._core.snapshot()) == (0, None)
        game.play(rng.choice(game.legal_moves))
    _same_game(game, pickle.loads(pickle.dumps(game)))


def test_the_other_parts_of_a_game_pickle_are_checked_too() -> None:
    # Besides the start state: the rules, the start position, the seed, the deal's
    # events, the moves and the slough being chosen; each refused part is named.
    game = sg.Game.new(sg.Rules.modern(), seed=0)
    for _ in range(11):
        game.play(game.legal_moves[0])
    game.play_action(sg.actions.SLOUGH_CARD + sg.Card.parse("3S").index)
    unpickle, parts = game.__reduce__()
    rules, start, seed, core, events, codes, pending = parts
    twin = unpickle(*parts)
    assert twin.slough_chosen == game.slough_chosen and twin.moves == game.moves
    other_deck = {**start, "deck": start["deck"][1:] + start["deck"][:1]}
    bad: list[tuple[str, tuple[Any, ...]]] = [
        ("rules", (sg.Rules.modern(4), start, seed, core, events, codes, pending)),
        ("rules", ("modern", start, seed, core, events, codes, pending)),
        ("state", (rules, start, seed, "core", events, codes, pending)),
        ("start", (rules, {**start, "dealer": 0}, seed, core, events, codes, pending)),
        ("start", (rules, {"deck": start["deck"]}, seed, core, events, codes, pending)),
        ("start", (rules, [], seed, core, events, codes, pending)),
        ("seed", (rules, start, seed + 1, core, events, codes, pending)),
        ("seed", (rules, start, -1, core, events, codes, pending)),
        ("seed", (rules, other_deck, seed, core, events, codes, pending)),
        ("start", (rules, other_deck, None, core, events, codes, pending)),
        ("events", (rules, start, seed, core, events[1:], codes, pending)),
        ("events", (rules, start, seed, core, list(events), codes, pending)),
        ("moves", (rules, start, seed, core, events, [*codes[:3], codes[5]], pending)),
        ("moves", (rules, start, seed, core, events, [*codes, 2**70], pending)),
        ("moves", (rules, start, seed, core, events, [*codes, "3S"], pending)),
        ("moves", (rules, start, seed, core, events, 7, pending)),
        ("slough", (rules, start, seed, core, events, codes, 1 << 63)),
        ("slough", (rules, start, seed, core, events, codes, pending | 1)),
        ("slough", (rules, start, seed, core, events, codes, "3S")),
    ]
    for field, changed in bad:
        with pytest.raises(sg.StateError) as caught:
            unpickle(*changed)
        assert caught.value.field == field, (field, caught.value)
        assert isinstance(caught.value, ValueError)
    # A phase-2 start is dealt again too.
    shedding = sg.Game.from_shedding(None, ["9D QD", "JD AD", "4C"], trump="S", leader=0)
    unpickle, parts = shedding.__reduce__()
    rules, start, seed, core, events, codes, pending = parts
    assert unpickle(*parts).legal_moves == shedding.legal_moves
    for start_bad in ({**start, "leader": 1}, {**start, "trump": "H"}, {**start, "hands": ()}):
        with pytest.raises(sg.StateError) as caught:
            unpickle(rules, start_bad, seed, core, events, codes, pending)
        assert caught.value.field == "start"


def test_a_state_error_is_a_value_error_of_the_package_and_pickles_with_its_field() -> None:
    error = sg.StateError("not a state of a game: its 'table_len' is wrong", "table_len")
    twin = pickle.loads(pickle.dumps(error))
    assert type(twin) is sg.StateError and str(twin) == str(error) and twin.field == "table_len"
    assert isinstance(twin, sg.SkitgubbeError) and isinstance(twin, ValueError)
    assert not isinstance(twin, _core.CoreError)
