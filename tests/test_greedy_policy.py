"""The greedy rollout policy in phase 2 agrees with its definition over the legal moves.

The search's rollouts spend most of their time in the greedy policy, so without runs
the core finds its phase-2 move from the hand's bits instead of the list of legal
moves (src/_core/search.c, greedy_shedding_singles). Here that move is checked
against the policy's definition, written over the legal moves as the core's general
path reads them, in positions of random games under random rules (runs too) and in
worlds sampled from their views.
"""

from __future__ import annotations

import random

from rules_gen import random_rules

import skitgubbe as sg
from skitgubbe import _core

PLAY, PICK_UP = 0, 2  # enum sg_move_kind


def kind(code: int) -> int:
    return code >> 61


def cards(code: int) -> list[int]:
    mask = code & ((1 << 61) - 1)
    return [card for card in range(64) if mask >> card & 1]


def greedy_shedding(world: _core.Core) -> int:
    """The cheapest play (its dearest card's rank, +16 for a trump, times 8, less
    its card count; the first such in move order), or a pick-up instead when there
    is none, or when it would spend a trump of jack or higher on a low plain card."""
    legal = world.legal_codes()
    trump = world.trump

    def cost(code: int) -> int:
        dearest = max(card % 16 + (16 if card // 16 == trump else 0) for card in cards(code))
        return dearest * 8 - len(cards(code))

    plays = [code for code in legal if kind(code) == PLAY]
    best = min(plays, key=cost) if plays else 0  # min keeps the first of equal costs
    table = world.table()
    if not table:
        return best
    pick = PICK_UP << 61
    if not best:
        return pick
    top = table[-1][0]
    if cost(best) >= (16 + 9) * 8 - 4 and top % 16 <= 5 and top // 16 != trump:
        return pick
    return best if best in legal else legal[0]


def test_the_greedy_phase_2_move_is_the_cheapest_play_of_the_legal_moves() -> None:
    rng = random.Random(33)
    checked = with_runs = 0
    for number in range(60):
        rules = sg.Rules.classic(rng.choice((2, 3, 4))) if number % 4 == 0 else random_rules(rng)
        game = sg.Game.new(rules, seed=rng.getrandbits(32))
        while game.to_move is not None:
            view = game.observation(game.to_move).core_view
            world = _core.sample_world(view, rng.getrandbits(64))
            if world.phase == 1:  # SG_PHASE_SHEDDING
                assert _core.greedy_move(world.snapshot()) == greedy_shedding(world)
                checked += 1
                with_runs += rules.runs
            game.play(rng.choice(game.legal_moves))
    assert checked > 1000 and with_runs > 100  # both paths were checked
