"""Equivalent moves (sg_merge_moves, ISMCTSBot merge=True; docs/bots.md).

In phase 2, plays of cards of one suit with no card still in play between them are one
class, and the lowest card stands for it; under runs=True or pickup=TOP_RUN only the ends
of a block of consecutive ranks whose neighbours are out of play (and the runs from and to
those ends). Phase 1 has no classes.
"""

from __future__ import annotations

import random

import pytest

import skitgubbe as sg
from skitgubbe import _core


def merged(game: sg.Game) -> list[str]:
    view = game.observation(game.to_move)
    return [str(sg.Move.from_code(code)) for code in _core.merged_moves(view.core_view)]


def test_cards_with_only_cards_out_of_play_between_them_are_one_move() -> None:
    # Only the hands' cards are in play: 8♥ is out, 10♥ is not.
    game = sg.Game.from_shedding(None, ["7H 9H JH 3C", "10H 2C", "4D"], trump="S", leader=0)
    assert [str(m) for m in game.legal_moves] == ["3♣", "7♥", "9♥", "J♥"]
    assert merged(game) == ["3♣", "7♥", "J♥"]


def test_the_class_holds_the_cards_in_hand_between_its_ends() -> None:
    game = sg.Game.from_shedding(None, ["6D 7D 8D 10D", "AD", "2C"], trump=None, leader=0)
    assert merged(game) == ["6♦"]  # 9♦ is out of play: 6 7 8 10 are one class


def test_a_card_on_the_table_is_in_play() -> None:
    # 9♥ lies on the table: 8♥ and 10♥ are not one class; the pick-up is kept.
    game = sg.Game.from_shedding(None, ["9H 2C", "8H 10H 4C", "3D"], trump=None, leader=0)
    game.play("9H")
    assert [str(m) for m in game.legal_moves] == ["10♥", "pick"]
    assert merged(game) == ["10♥", "pick"]
    game = sg.Game.from_shedding(None, ["7H 2C", "8H 10H 4C", "3D"], trump=None, leader=0)
    game.play("7H")
    assert merged(game) == ["8♥", "pick"]  # 9♥ is out of play


def test_with_runs_only_the_ends_of_a_block_between_cards_out_of_play_merge() -> None:
    rules = sg.Rules.classic(players=3, runs=True)
    game = sg.Game.from_shedding(rules, ["7H 8H 9H", "2C", "3D"], trump=None, leader=0)
    legal = [str(m) for m in game.legal_moves]
    assert "9♥" in legal and "8♥ 9♥" in legal
    # 9♥ goes behind 7♥ and 8♥ 9♥ behind 7♥ 8♥; the middle card and the whole run stay.
    assert sorted(merged(game)) == sorted(m for m in legal if m not in ("9♥", "8♥ 9♥"))
    # A neighbour in play (10♥) ends the equivalence: a run could continue there.
    game = sg.Game.from_shedding(rules, ["7H 8H 9H", "10H", "3D"], trump=None, leader=0)
    assert merged(game) == [str(m) for m in game.legal_moves]
    # A gap (8♥ out of play) is no block under runs: 7♥ and 9♥ are not equivalent.
    game = sg.Game.from_shedding(rules, ["7H 9H", "2C", "3D"], trump=None, leader=0)
    assert merged(game) == ["7♥", "9♥"]


def test_top_run_pick_ups_merge_like_runs() -> None:
    rules = sg.Rules.classic(players=3, pickup="top_run")
    game = sg.Game.from_shedding(rules, ["7H 8H", "2C", "3D"], trump=None, leader=0)
    assert merged(game) == ["7♥"]
    game = sg.Game.from_shedding(rules, ["7H 9H", "2C", "3D"], trump=None, leader=0)
    assert merged(game) == ["7♥", "9♥"]


def test_phase_one_has_no_equivalent_moves() -> None:
    rng = random.Random(3)
    for rules in (sg.Rules.classic(), sg.Rules.modern()):
        game = sg.Game.new(rules, seed=2)
        while game.phase is sg.Phase.COLLECTING:
            assert merged(game) == [str(m) for m in game.legal_moves]
            game.play(rng.choice(game.legal_moves))


def test_merged_moves_are_legal_and_each_dropped_play_has_a_lower_one_kept() -> None:
    rng = random.Random(8)
    dropped = 0
    for rules in (sg.Rules.classic(), sg.Rules.modern(), sg.Rules.classic(players=4)):
        for seed in range(3):
            game = sg.Game.new(rules, seed=seed)
            while game.result is None:
                legal = list(game.legal_moves)
                kept = [sg.Move.from_code(c) for c in _core.merged_moves(
                    game.observation(game.to_move).core_view)]  # fmt: skip
                assert kept == [m for m in legal if m in kept]
                for move in legal:
                    if move in kept:
                        continue
                    dropped += 1
                    low = min(move.cards)
                    assert any(
                        k.cards and min(k.cards).suit == low.suit and min(k.cards) < low
                        and len(k.cards) == len(move.cards)
                        for k in kept
                    )  # fmt: skip
                game.play(rng.choice(legal))
    assert dropped > 50


@pytest.mark.parametrize("rollout", ["mixed", "random"])
def test_a_merging_search_visits_only_the_class_s_lowest_card(rollout: str) -> None:
    game = sg.Game.from_shedding(None, ["7H 9H JH 3C", "10H 2C", "4D 5D"], trump="S", leader=0)
    bot = sg.bots.ISMCTSBot(iterations=400, merge=True, rollout=rollout, seed=1)
    stats = bot.statistics(game.observation(0))
    assert stats[sg.Move.parse("9H")] == (0, 0.0)
    assert sum(visits for visits, _ in stats.values()) == 400
    assert bot.choose(game.observation(0)) in game.legal_moves
    assert "merge" not in repr(bot)  # the default
    assert "merge=False" in repr(sg.bots.ISMCTSBot(merge=False))


def test_merge_is_a_plain_option() -> None:
    from skitgubbe.bots.plain import check_plain_spec

    assert check_plain_spec("ismcts:merge=true,sampling=uniform") == (
        "ismcts",
        {"merge": True, "sampling": "uniform"},
    )
    assert check_plain_spec("pimc:sampling=exact") == ("pimc", {"sampling": "exact"})
    with pytest.raises(sg.ArgumentError, match="merge must be true or false here"):
        check_plain_spec("ismcts:merge=1")
