"""The contract between the C core and Python: named fields, one source for each fact.

What crosses from C to Python crosses by the names of the C structs' fields; every
reason the core gives for an illegal move has its sentence; legality is decided in C.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

import skitgubbe as sg
from skitgubbe import _core
from skitgubbe.game import state as game_module
from tests.rules_gen import random_rules

HEADER = Path(__file__).resolve().parent.parent / "src" / "_core" / "skitgubbe.h"


def _struct_fields(name: str) -> list[str]:
    """The member names of ``typedef struct name {...} name;`` in the C header."""
    text = HEADER.read_text(encoding="utf-8")
    body = re.search(r"typedef struct " + name + r" \{(.*?)\} " + name + ";", text, re.S)
    assert body is not None, name
    code = re.sub(r"/\*.*?\*/", "", body.group(1), flags=re.S)
    return re.findall(r"\b(\w+)(?:\[[^]]*\])?;", code)


# Members that cross as the length of the arrays they count, and padding.
_FOLDED = {"n_table_plays", "n_finished", "n_finish", "reserved"}


def test_an_observation_crosses_by_the_names_of_the_c_struct() -> None:
    fields = set(_struct_fields("sg_observation")) - _FOLDED
    observed = sg.Game.new(seed=1)._core.observe(0)
    assert set(observed) - {"legal_moves"} == fields


def test_a_result_crosses_by_the_names_of_the_c_struct() -> None:
    game = sg.Game.new(seed=1)
    while game.to_move is not None:
        game.play(game.legal_moves[0])
    result = game._core.result()
    assert result is not None
    assert set(result) == set(_struct_fields("sg_result")) - _FOLDED


def test_every_reason_the_core_gives_has_its_sentence() -> None:
    reasons = _core.illegal_reasons()
    assert len(reasons) > 10
    assert set(reasons) == set(game_module._REASONS)


def _candidates(game: sg.Game, rng: random.Random) -> list[int]:
    """Move codes to ask about: every single card, some pairs and runs, the
    moves without cards, and junk."""
    codes = [sg.Card.from_code(c).mask for c in range(64) if c % 16 < 13]
    hand = list(game.hands[game.to_move or 0])
    for _ in range(6):
        if len(hand) >= 2:
            picked = rng.sample(hand, rng.randint(2, min(4, len(hand))))
            codes.append(sg.CardSet.of(*picked).mask)
    for kind in sg.MoveKind:
        codes.append(kind << 61)
        codes.append(kind << 61 | sg.Card.parse("7H").mask)
    codes += [7 << 61, 1 << 13, 2**64 - 1]
    return codes


@pytest.mark.parametrize("index", range(12))
def test_the_core_explains_every_illegal_move_and_only_those(index: int) -> None:
    rng = random.Random(index)
    rules = random_rules(rng) if index % 2 else sg.Rules.classic(rng.choice([2, 3, 4]))
    game = sg.Game.new(rules, seed=index)
    seen: set[str] = set()
    while game.to_move is not None:
        legal = {move.code for move in game.legal_moves}
        for code in _candidates(game, rng):
            reason, _ = game._core.why_illegal(code)
            assert (reason == "none") == (code in legal), (reason, hex(code))
            seen.add(reason)
            if reason != "none" and code < 5 << 61:
                move = sg.Move.from_code(code) if code in legal else None
                if move is None:
                    try:
                        move = sg.Move.from_code(code)
                    except sg.ParseError:
                        continue
                with pytest.raises(sg.IllegalMoveError) as info:
                    game.play(move)
                assert info.value.reason == game._why_illegal(move)
                assert info.value.reason and "legal" not in info.value.reason
        game.play(rng.choice(game.legal_moves))
    assert {"none", "not_held"} <= seen


def test_a_very_long_game_is_freed_without_deep_recursion() -> None:
    # A game's positions link back to their parents; freeing the last one frees
    # the chain. Run with a small stack so that a recursion as deep as the game
    # is long would crash the child.
    import resource
    import subprocess
    import sys

    script = (
        "import skitgubbe as sg\n"
        "g = sg.Game.new(sg.Rules.classic(4, max_moves=10**6), seed=1)\n"
        "for _ in range(2000):\n"
        "    g.play(sg.bots.GreedyBot().choose(g.observation(g.to_move)))\n"
        "while g.moves_played < 200_000:\n"
        "    g.play(g.legal_moves[0])\n"
        "del g\n"
        "print('freed')\n"
    )

    def small_stack() -> None:
        resource.setrlimit(resource.RLIMIT_STACK, (1 << 20, resource.RLIM_INFINITY))

    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=small_stack,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "freed"


def test_games_give_back_their_memory() -> None:
    # Positions are not tracked by the garbage collector (they cannot form a
    # cycle): dropping a game must free them by reference counting alone.
    import gc
    import tracemalloc

    def play_some() -> None:
        rng = random.Random(5)
        for seed in range(30):
            game = sg.Game.new(sg.Rules.modern(4), seed=seed)
            while game.to_move is not None:
                game.play(rng.choice(game.legal_moves))
                if game.moves_played % 7 == 0:
                    game.observation(game.to_move or 0)
            copy = game.copy()
            del game, copy

    play_some()  # warm caches (interned moves, events, table plays)
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        play_some()
        gc.disable()  # what is left must have gone without the collector
        after = tracemalloc.get_traced_memory()[0]
    finally:
        gc.enable()
        tracemalloc.stop()
    assert after - before < 200_000, after - before
