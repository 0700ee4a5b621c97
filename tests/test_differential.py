"""The engine against the plain-Python model of docs/rules.md (tests/model), move by move.

Both are dealt the same deck; after every move they must agree on the phase,
the player to move, the legal moves, the result and where every card lies; and
in a share of the games, on what each seat knows.
"""

from __future__ import annotations

import random

import pytest

import skitgubbe as sg
from skitgubbe import _core
from tests.model.classic import ModelGame
from tests.rules_gen import random_rules

GAMES = 2100
KINDS = {
    sg.MoveKind.PLAY: "play",
    sg.MoveKind.FLIP: "flip",
    sg.MoveKind.PICK_UP: "pick_up",
    sg.MoveKind.SLOUGH: "slough",
    sg.MoveKind.PASS: "pass",
}
PHASES = {"collecting": sg.Phase.COLLECTING, "shedding": sg.Phase.SHEDDING, "over": sg.Phase.OVER}

ModelMove = tuple[str, frozenset[int]]


def as_model(move: sg.Move) -> ModelMove:
    return KINDS[move.kind], frozenset(card.code for card in move.cards)


def codes(cards: sg.CardSet) -> set[int]:
    return {card.code for card in cards}


def assert_same_state(game: sg.Game, model: ModelGame, where: str) -> None:
    assert game.phase is PHASES[model.phase], where
    assert game.to_move == model.to_move, where
    assert [as_model(m) for m in game.legal_moves] == model.legal_moves(), where
    assert [codes(h) for h in game.hands] == model.hands, where
    if game.phase is sg.Phase.COLLECTING:
        assert [codes(c) for c in game.collections] == model.collections, where
    assert [c.code for c in game.stock] == model.stock, where
    table = [(play.seat, card.code) for play in game.table for card in play.cards]
    assert table == model.table, where
    assert codes(game.out_of_play) == model.out_of_play, where
    hidden = game.hidden_card
    assert (None if hidden is None else hidden.code) == model.hidden_card, where
    assert game.moves_played == model.moves_played, where
    result = game.result
    if model.result is None:
        assert result is None, where
    else:
        loser, order, truncated = model.result
        assert result is not None, where
        assert (result.loser, result.truncated) == (loser, truncated), where
        assert result.finish_order == order + ((loser,) if loser is not None else ()), where


def assert_same_knowledge(game: sg.Game, model: ModelGame, where: str) -> None:
    for seat in range(game.players):
        view = game.observation(seat)
        oracle = model.knowledge(seat)
        assert [codes(k) for k in view.known] == oracle["known"], f"{where} seat {seat}"
        assert codes(view.unknown) == oracle["unknown"], f"{where} seat {seat}"
        slots = oracle["slots"]
        expected = tuple(0 if t == seat else slots[t] for t in range(game.players))
        assert view.unknown_slots == expected, f"{where} seat {seat}"
        assert (view.stock_slots, view.hidden_slots) == (slots["stock"], slots["hidden"])


def play_both(index: int, rules: sg.Rules | None = None) -> int:
    """Plays game ``index`` in the engine and the model; returns its length in moves."""
    rng = random.Random(index)
    if rules is None:
        players = 2 + index % 3
        hand_size = 5 if index % 7 == 0 else 3
        max_moves = rng.choice([40, 150]) if index % 11 == 0 else 10_000
        rules = sg.Rules.classic(players=players, hand_size=hand_size, max_moves=max_moves)
    players = rules.players
    deck = list(_core.deck_from_seed(index))
    dealer = rng.randrange(players)
    game = sg.Game.new(rules, deck=[sg.Card.from_code(c) for c in deck], dealer=dealer)
    model = ModelGame.from_rules(rules.to_dict(), deck, dealer)
    check_knowledge = index % 20 == 0
    step = 0
    while True:
        where = f"game {index} ({rules}, dealer {dealer}) after {step} moves"
        assert_same_state(game, model, where)
        if check_knowledge:
            assert_same_knowledge(game, model, where)
        moves = game.legal_moves
        if not moves:
            return step
        move = moves[rng.randrange(len(moves))]
        game.play(move)
        model.play(as_model(move))
        step += 1


@pytest.mark.slow
@pytest.mark.parametrize("chunk", range(6))
def test_engine_and_model_agree_on_every_move(chunk: int) -> None:
    per_chunk = GAMES // 6
    total = sum(play_both(i) for i in range(chunk * per_chunk, (chunk + 1) * per_chunk))
    assert total > per_chunk * 50  # games really were played out


VARIANT_GAMES = 3000


@pytest.mark.slow
@pytest.mark.parametrize("chunk", range(6))
def test_engine_and_model_agree_under_random_rules(chunk: int) -> None:
    per_chunk = VARIANT_GAMES // 6
    total = 0
    for index in range(chunk * per_chunk, (chunk + 1) * per_chunk):
        rules = random_rules(random.Random(10**6 + index))
        total += play_both(index, rules)
    assert total > per_chunk * 30  # games really were played out


def test_phase_two_positions_agree() -> None:
    """Random phase-2 starts (Game.from_shedding) against the model's."""
    for index in range(150):
        rng = random.Random(10_000 + index)
        players = 2 + index % 3
        cards = [suit * 16 + rank for suit in range(4) for rank in range(13)]
        rng.shuffle(cards)
        hands: list[set[int]] = [set() for _ in range(players)]
        for card in cards[: rng.randrange(players, 30)]:
            hands[rng.randrange(players)].add(card)
        trump = rng.choice([None, 0, 1, 2, 3])
        leader = rng.randrange(players)
        game = sg.Game.from_shedding(
            sg.Rules.classic(players=players),
            [sg.CardSet.of(*(sg.Card.from_code(c) for c in hand)) for hand in hands],
            trump=None if trump is None else sg.Suit(trump),
            leader=leader,
        )
        model = ModelGame.from_shedding(players, hands, trump, leader)
        step = 0
        while True:
            where = f"position {index} after {step} moves"
            assert_same_state(game, model, where)
            moves = game.legal_moves
            if not moves:
                break
            move = moves[rng.randrange(len(moves))]
            game.play(move)
            model.play(as_model(move))
            step += 1
