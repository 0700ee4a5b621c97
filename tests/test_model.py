"""Tests of the reference model of classic Skitgubbe (``tests/model``) itself.

These pin the model to docs/rules.md: the worked examples of section 10, the
phase-1 details of section 3, the phase transition of section 5, phase 2 of
section 6, the observation of section 8 and the generator of section 2.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Iterable, Sequence

import pytest

from tests.model import vectors
from tests.model.classic import (
    ALL_CARDS,
    COLLECTING,
    FLIP_MOVE,
    OVER,
    PICK_UP_MOVE,
    SHEDDING,
    ModelGame,
    parse_card,
    play_move,
    rank,
    suit,
)
from tests.model.random_play import play_random, random_game
from tests.model.rng import (
    Xoshiro256,
    deck_from_seed,
    game_seed,
    shuffle,
    splitmix64,
)

CLUBS, DIAMONDS, HEARTS, SPADES = range(4)


# ---------------------------------------------------------------- helpers


def c(name: str) -> int:
    """Return the code of a named card, e.g. ``c("9D")``."""
    return parse_card(name)


def cards(*names: str) -> set[int]:
    """Return the set of codes of the named cards."""
    return {parse_card(name) for name in names}


def play(name: str) -> tuple[str, frozenset[int]]:
    """Return the move playing the named card."""
    return play_move(parse_card(name))


def rigged_deck(
    players: int, dealer: int, hands: Sequence[Sequence[str]], stock_top: Sequence[str] = ()
) -> list[int]:
    """Build a deck that deals ``hands[seat]`` to each seat and puts ``stock_top`` on the stock.

    The remaining cards follow in card-code order.
    """
    hand_size = len(hands[0])
    deck: list[int] = []
    for round_ in range(hand_size):
        for step in range(1, players + 1):
            seat = (dealer + step) % players
            deck.append(c(hands[seat][round_]))
    deck.extend(c(name) for name in stock_top)
    deck.extend(card for card in sorted(ALL_CARDS) if card not in deck)
    assert len(set(deck)) == 52
    return deck


def snapshot(game: ModelGame) -> dict[str, object]:
    """Return a deep copy of the whole game state."""
    return copy.deepcopy(game.__dict__)


def check_conservation(game: ModelGame) -> None:
    """Assert that every one of the 52 cards is in exactly one place."""
    seen: list[int] = []
    for place in game.all_places():
        seen.extend(place)
    assert len(seen) == 52, game
    assert set(seen) == ALL_CARDS, game


def check_invariants(game: ModelGame) -> None:
    """Assert card conservation and the structural invariants of each phase."""
    check_conservation(game)
    n = game.players
    assert len(set(game.finish_order)) == len(game.finish_order)
    if game.phase == COLLECTING:
        assert game.to_move in (game.leader, game.follower)
        assert game.follower == (game.leader + 1) % n
        assert game.to_move == (game.leader if len(game.table) % 2 == 0 else game.follower)
        assert game.hands[game.to_move]
        assert not game.finish_order
        assert not game.trump_public
        for hand in game.hands:
            assert len(hand) <= game.hand_size
            if game.stock:  # drawing after each play keeps hands full while the stock lasts
                assert len(hand) == game.hand_size
        if game.stock:
            assert game.hidden_card is None
            assert game.trump is None
        else:
            assert game.hidden_card is not None
            assert game.hidden_holder == game.last_drawer
            assert game.trump == suit(game.hidden_card)
    else:
        assert not game.stock
        assert game.hidden_card is None
        assert all(not coll for coll in game.collections)
        assert game.trump_public
    if game.phase == SHEDDING:
        assert game.to_move is not None
        assert game.hands[game.to_move]
        holders = game.holders()
        assert len(holders) >= 2
        assert set(game.finish_order) == set(range(n)) - set(holders)
        assert len(game.table) < game.target or not game.table
        for below, above in zip(game.table, game.table[1:], strict=False):
            assert game.beats(above[1], below[1])
    if game.phase == OVER:
        result = game.result
        assert result is not None
        loser, finish_order, truncated = result
        assert game.legal_moves() == []
        assert game.to_move is None
        if truncated:
            assert loser is None
            assert game.moves_played == game.max_moves
        else:
            assert loser not in finish_order
            expected = n - (1 if loser is not None else 0)
            assert len(finish_order) == expected
            if loser is not None:
                assert game.hands[loser]
    else:
        assert game.result is None
        moves = game.legal_moves()
        assert moves
        assert moves == canonical(moves)


def canonical(moves: Iterable[tuple[str, frozenset[int]]]) -> list[tuple[str, frozenset[int]]]:
    """Return ``moves`` in canonical order: plays by card code, flip, pick-up."""
    order = {"play": 0, "flip": 1, "pick_up": 2}
    return sorted(moves, key=lambda m: (order[m[0]], sorted(m[1])))


def check_knowledge(game: ModelGame) -> None:
    """Assert that each seat's knowledge, replayed from the log, agrees with the true state."""
    n = game.players
    for seat in range(n):
        info = game.knowledge(seat)
        known, unknown, slots = info["known"], info["unknown"], info["slots"]
        assert len(known) == n
        assert known[seat] == game.hands[seat] | game.collections[seat]
        true_unknown: set[int] = set(game.stock)
        if game.hidden_card is not None:
            true_unknown.add(game.hidden_card)
            assert all(game.hidden_card not in k for k in known)
        for other in range(n):
            if other == seat:
                continue
            held = game.hands[other] | game.collections[other]
            assert known[other] <= held
            assert slots[other] == len(held) - len(known[other])
            true_unknown |= held - known[other]
        assert unknown == true_unknown
        assert slots["stock"] == len(game.stock)
        assert slots["hidden"] == (1 if game.hidden_card is not None else 0)
        assert sum(slots.values()) == len(unknown)
        assert set(slots) == {t for t in range(n) if t != seat} | {"stock", "hidden"}


def scripted_collecting(game: ModelGame, stop: object) -> None:
    """Play the lowest hand card (never flip) in phase 1 until ``stop(game)`` is true."""
    assert callable(stop)
    while game.phase == COLLECTING and not stop(game):
        game.play(game.legal_moves()[0])


# ---------------------------------------------------------------- RNG


def test_splitmix64_reference() -> None:
    """Splitmix64 from state 0 gives the published first output."""
    state, output = splitmix64(0)
    assert state == 0x9E3779B97F4A7C15
    assert output == 0xE220A8397B1DCDAF == vectors.SPLITMIX64_STATE0_FIRST


def test_rng_vectors() -> None:
    """Recompute the vectors that are compared against the C implementation."""
    rng = Xoshiro256(0)
    first = tuple(rng.next() for _ in range(4))
    big = Xoshiro256(vectors.BIG_SEED % 2**64)
    first_big = tuple(big.next() for _ in range(4))
    deck = deck_from_seed(1)
    print("Xoshiro256(0):", [f"0x{x:016X}" for x in first])
    print("Xoshiro256(12345678901234567890):", [f"0x{x:016X}" for x in first_big])
    print("deck_from_seed(1)[:10]:", deck[:10])
    assert first == vectors.XOSHIRO_SEED_0_FIRST4
    assert first_big == vectors.XOSHIRO_BIG_SEED_FIRST4
    assert tuple(deck[:10]) == vectors.DECK_SEED_1_FIRST10
    assert tuple(deck) == vectors.DECK_SEED_1
    below = Xoshiro256(42)
    assert (
        tuple(below.below(vectors.BELOW_BOUND) for _ in range(16)) == vectors.BELOW_SEED_42_FIRST16
    )
    assert tuple(game_seed(1, i) for i in range(4)) == vectors.GAME_SEED_1_FIRST4


def test_below_rejection_and_range() -> None:
    """``below`` stays in range, redraws in the biased zone and rejects bad bounds."""

    class Counting(Xoshiro256):
        calls = 0

        def next(self) -> int:
            Counting.calls += 1
            return super().next()

    rng = Counting(42)
    draws = [rng.below(vectors.BELOW_BOUND) for _ in range(16)]
    assert Counting.calls == 20  # four rejections happened
    assert all(0 <= d < vectors.BELOW_BOUND for d in draws)
    plain = Xoshiro256(9)
    assert all(plain.below(1) == 0 for _ in range(10))
    assert {plain.below(3) for _ in range(200)} == {0, 1, 2}
    with pytest.raises(ValueError, match="bound"):
        plain.below(0)


def test_shuffle_is_a_permutation_and_deterministic() -> None:
    """A shuffle uses all 52 cards and the same seed gives the same deck."""
    for seed in range(20):
        deck = deck_from_seed(seed)
        assert sorted(deck) == sorted(ALL_CARDS)
        assert deck == shuffle(Xoshiro256(seed))
    assert deck_from_seed(1) != deck_from_seed(2)


@pytest.mark.slow
def test_playout_vectors() -> None:
    """Recompute the random-playout totals compared against the C ``sg_play_random``."""
    for players, expected in vectors.PLAYOUT_TOTALS.items():
        results = [play_random(players, seed) for seed in vectors.PLAYOUT_SEEDS]
        total = sum(r[1] for r in results)
        losses = tuple(sum(1 for r in results if r[0] == seat) for seat in range(players))
        truncated = sum(1 for r in results if r[2])
        no_loser = sum(1 for r in results if r[3])
        assert (total, losses, truncated, no_loser) == expected
        assert (
            tuple(play_random(players, seed) for seed in range(5))
            == vectors.PLAYOUT_FIRST5[players]
        )


# ---------------------------------------------------------------- deal


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("hand_size", [3, 5])
def test_deal(players: int, hand_size: int) -> None:
    """Cards go one at a time clockwise from the dealer's left; the rest is the stock."""
    deck = deck_from_seed(5)
    dealer = 1
    game = ModelGame(players, deck, dealer, hand_size=hand_size)
    for i in range(hand_size * players):
        seat = (dealer + 1 + i) % players
        assert deck[i] in game.hands[seat]
    assert game.stock == deck[hand_size * players :]
    assert game.phase == COLLECTING
    assert game.to_move == (dealer + 1) % players
    assert game.leader == (dealer + 1) % players
    assert game.follower == (dealer + 2) % players
    check_invariants(game)
    check_knowledge(game)


def test_knowledge_after_deal() -> None:
    """After the deal a seat knows only its own hand."""
    game = ModelGame(3, deck_from_seed(3), dealer=2)
    info = game.knowledge(0)
    assert info["known"][0] == game.hands[0]
    assert info["known"][1] == set()
    assert info["known"][2] == set()
    assert info["unknown"] == ALL_CARDS - game.hands[0]
    assert info["slots"] == {1: 3, 2: 3, "stock": 43, "hidden": 0}


def test_bad_configuration_rejected() -> None:
    """Out-of-range settings are refused."""
    deck = deck_from_seed(0)
    with pytest.raises(ValueError, match="players"):
        ModelGame(5, deck, 0)
    with pytest.raises(ValueError, match="dealer"):
        ModelGame(3, deck, 3)
    with pytest.raises(ValueError, match="hand_size"):
        ModelGame(3, deck, 0, hand_size=4)
    with pytest.raises(ValueError, match="deck"):
        ModelGame(3, [*deck[:-1], deck[0]], 0)


# ---------------------------------------------------------------- phase 1


@pytest.mark.parametrize("players", [2, 3])
def test_rules_example_phase1(players: int) -> None:
    """docs/rules.md §10: Anna leads a 7, Ben throws his 3 to keep the king, Anna wins and leads
    again."""
    dealer = players - 1  # Anna = seat 0 leads, Ben = seat 1 follows
    hands = [["7C", "9H", "JS"], ["KD", "4S", "3H"], ["5C", "6C", "8C"]][:players]
    game = ModelGame(players, rigged_deck(players, dealer, hands), dealer)
    stock_top = game.stock[:2]
    game.play(play("7C"))
    assert stock_top[0] in game.hands[0]
    assert len(game.hands[0]) == 3
    assert game.to_move == 1
    assert game.legal_moves() == [
        *(play_move(x) for x in sorted(cards("KD", "4S", "3H"))),
        FLIP_MOVE,
    ]
    game.play(play("3H"))
    assert stock_top[1] in game.hands[1]
    assert len(game.hands[1]) == 3
    assert c("KD") in game.hands[1]
    assert game.collections[0] == cards("7C", "3H")
    assert game.table == []
    assert (game.leader, game.follower, game.to_move) == (0, 1, 0)
    game.play(game.legal_moves()[0])
    assert game.to_move == 1  # Ben must answer again
    check_invariants(game)
    check_knowledge(game)
    assert game.knowledge(1)["known"][0] == cards("3H", "7C")  # won face up


def test_follower_wins_and_leads_against_his_neighbour() -> None:
    """The follower who wins leads next, against his own left neighbour."""
    hands = [["7C", "9H", "JS"], ["KD", "4S", "3H"], ["5C", "6C", "8C"]]
    game = ModelGame(3, rigged_deck(3, 2, hands), 2)
    game.play(play("7C"))
    game.play(play("KD"))
    assert game.collections[1] == cards("7C", "KD")
    assert (game.leader, game.follower, game.to_move) == (1, 2, 1)


def test_tie_replay() -> None:
    """docs/rules.md §3.6: tied cards stay; the same pair replays; the first untied pair takes
    everything."""
    hands = [["7C", "9D", "2S"], ["7D", "9H", "5H"], ["AC", "AD", "AH"]]
    game = ModelGame(3, rigged_deck(3, 2, hands), 2)
    game.play(play("7C"))
    game.play(play("7D"))
    assert [card for _, card in game.table] == [c("7C"), c("7D")]
    assert game.to_move == 0
    assert game.follower == 1
    game.play(play("9D"))
    assert game.to_move == 1
    game.play(play("9H"))  # a second tie
    assert len(game.table) == 4
    assert game.to_move == 0
    game.play(play("2S"))
    game.play(play("5H"))
    assert game.collections[1] == cards("7C", "7D", "9D", "9H", "2S", "5H")
    assert game.collections[0] == set()
    assert game.collections[2] == set()
    assert game.table == []
    assert (game.leader, game.follower, game.to_move) == (1, 2, 1)
    check_invariants(game)
    check_knowledge(game)


def test_flip() -> None:
    """docs/rules.md §3.3: a flip plays the top stock card; the hand is unchanged, nothing is
    drawn."""
    hands = [["7C", "9H", "JS"], ["KD", "4S", "3H"]]
    game = ModelGame(2, rigged_deck(2, 1, hands, stock_top=["QS", "2D"]), 1)
    hand_before = set(game.hands[0])
    stock_before = len(game.stock)
    assert game.legal_moves()[-1] == FLIP_MOVE
    game.play(FLIP_MOVE)
    assert game.table == [(0, c("QS"))]
    assert game.hands[0] == hand_before
    assert len(game.stock) == stock_before - 1
    assert game.stock[0] == c("2D")
    assert game.moves_played == 1
    game.play(play("KD"))  # Ben beats the flipped queen
    assert game.collections[1] == cards("QS", "KD")
    check_invariants(game)
    check_knowledge(game)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_flip_refused_at_one_stock_card(players: int) -> None:
    """Try your luck is allowed with two stock cards and refused with one."""
    game = ModelGame(players, deck_from_seed(11), players - 1)
    scripted_collecting(game, lambda g: len(g.stock) == 2)
    assert FLIP_MOVE in game.legal_moves()
    game.play(game.legal_moves()[0])  # a hand card: one card drawn
    assert len(game.stock) == 1
    assert game.phase == COLLECTING
    assert FLIP_MOVE not in game.legal_moves()
    before = snapshot(game)
    with pytest.raises(ValueError, match="illegal move"):
        game.play(FLIP_MOVE)
    assert snapshot(game) == before


def test_illegal_moves_leave_state_unchanged() -> None:
    """Illegal moves raise ``ValueError`` and change nothing."""
    game = ModelGame(3, deck_from_seed(4), 2)
    before = snapshot(game)
    not_held = min(ALL_CARDS - game.hands[0])
    for move in (
        play_move(not_held),
        PICK_UP_MOVE,
        ("play", frozenset()),
        ("play", frozenset(game.hands[0])),
    ):
        with pytest.raises(ValueError, match="illegal move"):
            game.play(move)
        assert snapshot(game) == before


def test_hidden_last_card() -> None:
    """docs/rules.md §3.7 and §5: the last stock card lies hidden by its drawer, gives trump, is
    revealed."""
    deck = deck_from_seed(21)
    game = ModelGame(3, deck, 2)
    scripted_collecting(game, lambda g: len(g.stock) == 1)
    drawer = game.to_move
    assert drawer is not None
    game.play(game.legal_moves()[0])
    assert game.stock == []
    assert game.hidden_card == deck[51]
    assert game.hidden_holder == drawer == game.last_drawer
    assert game.trump == suit(deck[51])
    assert not game.trump_public
    assert len(game.hands[drawer]) == 2  # the hidden card is not in his hand
    assert all(deck[51] not in h for h in game.hands)
    assert all(deck[51] not in k for k in game.collections)
    for seat in range(3):
        info = game.knowledge(seat)
        assert deck[51] in info["unknown"]  # unknown to every player, its holder included
        assert info["slots"]["hidden"] == 1
    assert FLIP_MOVE not in game.legal_moves()
    check_invariants(game)
    check_knowledge(game)
    scripted_collecting(game, lambda g: False)
    assert game.phase in (SHEDDING, OVER)
    assert game.hidden_card is None
    assert game.hidden_holder is None
    assert game.trump_public
    assert game.trump == suit(deck[51])
    assert deck[51] in game.hands[drawer]
    for seat in range(3):
        assert deck[51] in game.knowledge(seat)["known"][drawer]
    if game.phase == SHEDDING:
        assert game.to_move == (drawer if game.hands[drawer] else game.leader)
    check_invariants(game)
    check_knowledge(game)


def test_phase2_leader_is_last_drawer() -> None:
    """docs/rules.md §5.5: over many games, phase 2 starts with the last drawer (or his next
    holder)."""
    checked = 0
    for seed in range(60):
        game = ModelGame(3, deck_from_seed(seed), 2)
        chooser = random.Random(seed)
        while game.phase == COLLECTING:
            moves = game.legal_moves()
            game.play(moves[chooser.randrange(len(moves))])
        if game.phase != SHEDDING:
            continue
        drawer = game.last_drawer
        assert drawer is not None
        if game.hands[drawer]:
            assert game.to_move == drawer
        else:
            expected = next(s for s in ((drawer + k) % 3 for k in (1, 2)) if game.hands[s])
            assert game.to_move == expected
        checked += 1
    assert checked > 50


def test_take_back_at_end_of_phase1() -> None:
    """docs/rules.md §3.8: cards of an unfinished trick go back to whoever played them, publicly."""
    found = 0
    for players in (2, 3, 4):
        for seed in range(300):
            game = ModelGame(players, deck_from_seed(seed), players - 1)
            chooser = random.Random(seed)
            while game.phase == COLLECTING:
                table_before = list(game.table)
                seat = game.to_move
                moves = game.legal_moves()
                move = moves[chooser.randrange(len(moves))]
                game.play(move)
                if game.phase == COLLECTING:
                    continue
                # Phase 1 has just ended: the last move must not have completed a duel.
                pending = (
                    [*table_before, (seat, next(iter(move[1])))] if move[0] == "play" else None
                )
                taken = [(e.seat, e.cards[0]) for e in game.log if e.kind == "take_back"]
                if not taken:
                    continue
                assert pending is not None
                assert len(pending) % 2 == 1 or rank(pending[-1][1]) == rank(pending[-2][1])
                assert taken == pending
                for owner, card in taken:
                    assert owner is not None
                    assert card in game.hands[owner]
                    if game.phase == SHEDDING:
                        for observer in range(players):
                            assert card in game.knowledge(observer)["known"][owner]
                found += 1
                check_invariants(game)
                check_knowledge(game)
    assert found >= 5


def test_phase1_ends_when_player_to_move_has_no_hand_card() -> None:
    """Phase 1 runs until the player due to play has no hand card, and no further."""
    for seed in range(100):
        game = ModelGame(2, deck_from_seed(seed), 1)
        chooser = random.Random(seed)
        while game.phase == COLLECTING:
            moves = game.legal_moves()
            table_before = list(game.table)
            game.play(moves[chooser.randrange(len(moves))])
            if game.phase == COLLECTING:
                continue
            # The state just before phase 2 cannot be seen any more; check what it implies.
            taken = [e for e in game.log if e.kind == "take_back"]
            assert len(taken) in (len(table_before) + 1, 0)


# ---------------------------------------------------------------- phase 2


def test_rules_example_phase2() -> None:
    """docs/rules.md §10: 9D, JD, Carla picks up, Anna QD on her own 9D, Ben AD: the trick is
    complete."""
    hands = [cards("9D", "QD", "4C"), cards("JD", "AD", "5C"), cards("2D", "3S")]
    game = ModelGame.from_shedding(3, hands, trump=HEARTS, leader=0)
    assert game.phase == SHEDDING
    assert game.to_move == 0
    assert PICK_UP_MOVE not in game.legal_moves()  # nothing to pick up on an empty table
    game.play(play("9D"))
    assert game.target == 3
    assert game.to_move == 1
    assert game.legal_moves() == [play("JD"), play("AD"), PICK_UP_MOVE]
    game.play(play("JD"))
    assert game.to_move == 2
    assert game.legal_moves() == [PICK_UP_MOVE]  # no higher diamond, no trump
    game.play(PICK_UP_MOVE)
    assert c("JD") in game.hands[2]
    assert game.table == [(0, c("9D"))]
    assert game.to_move == 0  # Anna must beat her own 9D
    assert game.legal_moves() == [play("QD"), PICK_UP_MOVE]
    game.play(play("QD"))
    assert game.to_move == 1
    game.play(play("AD"))
    assert game.table == []
    assert cards("9D", "QD", "AD") <= game.out_of_play
    assert game.to_move == 1
    assert game.leader == 1
    assert game.legal_moves() == [play("5C")]
    check_invariants(game)
    check_knowledge(game)
    assert game.knowledge(0)["known"][2] == cards("JD")


def test_beating_rules() -> None:
    """docs/rules.md §6.2: a higher card of the suit, or a trump on a non-trump; higher trump on
    trump."""
    game = ModelGame.from_shedding(2, [cards("5C"), cards("6C")], trump=HEARTS, leader=0)
    assert game.beats(c("6C"), c("5C"))
    assert not game.beats(c("4C"), c("5C"))
    assert not game.beats(c("AD"), c("5C"))
    assert game.beats(c("2H"), c("AC"))
    assert game.beats(c("3H"), c("2H"))
    assert not game.beats(c("2H"), c("3H"))
    assert not game.beats(c("AS"), c("2H"))
    no_trump = ModelGame.from_shedding(2, [cards("5C"), cards("6C")], trump=None, leader=0)
    assert not no_trump.beats(c("2H"), c("AC"))


def test_pick_up_always_allowed_and_empty_table() -> None:
    """docs/rules.md §6.2, §6.6: pick-up is allowed even if one could beat; an empty table passes
    the lead."""
    hands = [cards("5C", "9S"), cards("AC", "2D"), cards("3H", "4H")]
    game = ModelGame.from_shedding(3, hands, trump=DIAMONDS, leader=0)
    game.play(play("5C"))
    assert game.legal_moves() == [play("AC"), play("2D"), PICK_UP_MOVE]
    game.play(PICK_UP_MOVE)
    assert game.table == []
    assert c("5C") in game.hands[1]
    assert game.to_move == 2
    assert game.leader == 2
    assert PICK_UP_MOVE not in game.legal_moves()
    check_invariants(game)


def test_out_player_skipped() -> None:
    """docs/rules.md §1 and §6.7: a player who went out is skipped when the turn passes."""
    hands = [cards("3C", "9C", "2D"), cards("4C"), cards("5S", "KS")]
    game = ModelGame.from_shedding(3, hands, trump=HEARTS, leader=0)
    game.play(play("3C"))
    assert game.target == 3
    game.play(play("4C"))
    assert game.finish_order == [1]  # Ben is out and safe
    assert game.to_move == 2
    game.play(PICK_UP_MOVE)
    assert game.to_move == 0
    game.play(play("9C"))
    assert game.to_move == 2  # seat 1 is skipped
    game.play(PICK_UP_MOVE)
    assert game.to_move == 0
    check_invariants(game)
    check_knowledge(game)


def test_target_counts_holders_at_the_lead() -> None:
    """docs/rules.md §6.5: the target is fixed at the lead and does not shrink when someone goes
    out."""
    hands = [cards("3C", "9S"), cards("4C"), cards("5C", "6C"), cards("7C", "8C")]
    game = ModelGame.from_shedding(4, hands, trump=HEARTS, leader=0)
    game.play(play("3C"))
    assert game.target == 4
    game.play(play("4C"))  # Ben goes out; the target stays 4
    assert game.finish_order == [1]
    assert game.target == 4
    game.play(play("5C"))
    game.play(play("7C"))  # four plays: complete
    assert game.table == []
    assert game.to_move == 3
    game.play(play("8C"))
    assert game.target == 3  # three players hold cards at this lead


def test_last_play_goes_out_next_holder_leads() -> None:
    """docs/rules.md §6.5: when the completing play was the player's last card, his next player
    leads."""
    hands = [cards("3C", "9S"), cards("4C", "10S"), cards("5C")]
    game = ModelGame.from_shedding(3, hands, trump=HEARTS, leader=0)
    game.play(play("3C"))
    game.play(play("4C"))
    game.play(play("5C"))  # completes the trick and goes out
    assert game.finish_order == [2]
    assert game.table == []
    assert game.to_move == 0
    assert game.leader == 0


def test_game_end_and_loser() -> None:
    """docs/rules.md §6.7: the game ends the moment at most one player holds cards."""
    game = ModelGame.from_shedding(2, [cards("5C"), cards("2C", "3C")], trump=HEARTS, leader=0)
    game.play(play("5C"))
    assert game.phase == OVER
    assert game.result == (1, (0,), False)
    assert game.to_move is None
    assert game.legal_moves() == []


def test_from_shedding_outs_in_seat_order_from_leader() -> None:
    """Seats without cards are out at once, in seat order from the leader."""
    game = ModelGame.from_shedding(
        4, [set(), cards("2C"), set(), cards("3C")], trump=None, leader=2
    )
    assert game.finish_order == [2, 0]
    assert game.to_move == 3
    lone = ModelGame.from_shedding(3, [set(), cards("2C"), set()], trump=None, leader=0)
    assert lone.result == (1, (0, 2), False)
    empty = ModelGame.from_shedding(2, [set(), set()], trump=None, leader=1)
    assert empty.result == (None, (1, 0), False)


# ---------------------------------------------------------------- move cap


def test_move_cap_truncates() -> None:
    """docs/rules.md §6.8: reaching the cap ends the game with no loser, marked truncated."""
    game = ModelGame(3, deck_from_seed(8), 2, max_moves=5)
    for _ in range(5):
        assert game.phase != OVER
        game.play(game.legal_moves()[0])
    assert game.phase == OVER
    assert game.moves_played == 5
    assert game.result == (None, (), True)
    assert game.legal_moves() == []
    assert game.to_move is None
    with pytest.raises(ValueError, match="illegal move"):
        game.play(PICK_UP_MOVE)


def test_move_cap_counts_pick_ups() -> None:
    """Endless pick-ups are cut by the cap; every kind of move counts."""
    hands = [cards("5C", "6C"), cards("7C", "8C"), cards("9C", "10C")]
    game = ModelGame.from_shedding(3, hands, trump=HEARTS, leader=0, max_moves=9)
    kinds = []
    while game.phase != OVER:
        move = PICK_UP_MOVE if PICK_UP_MOVE in game.legal_moves() else game.legal_moves()[0]
        kinds.append(move[0])
        game.play(move)
    assert kinds == ["play", "pick_up"] * 4 + ["play"]
    assert game.result == (None, (), True)
    assert game.moves_played == 9


def test_natural_end_on_the_cap_move_is_not_truncated() -> None:
    """A game that ends by the rules on the capping move is a normal result."""
    game = ModelGame.from_shedding(
        2, [cards("5C"), cards("2C")], trump=HEARTS, leader=0, max_moves=1
    )
    game.play(play("5C"))
    assert game.result == (1, (0,), False)


def test_random_game_truncated() -> None:
    """``play_random`` reports truncation."""
    loser, moves, truncated, no_loser = play_random(3, 7, max_moves=50)
    assert (loser, moves, truncated, no_loser) == (None, 50, True, False)


# ---------------------------------------------------------------- conservation


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 3, 4])
def test_conservation_random_games(players: int) -> None:
    """Over 200 random games every card is always in exactly one place; invariants hold.

    The (slower) knowledge replay is checked after every move in the first 15
    games and at the end of every game.
    """
    for seed in range(200):
        rng = Xoshiro256(game_seed(players, seed))
        deck = shuffle(rng)
        game = ModelGame(players, deck, dealer=seed % players, hand_size=3 if seed % 5 else 5)
        check_invariants(game)
        while game.phase != OVER:
            moves = game.legal_moves()
            game.play(moves[rng.below(len(moves))])
            check_invariants(game)
            if seed < 15:
                check_knowledge(game)
        check_knowledge(game)
        result = game.result
        assert result is not None
        assert not result[2]


def test_random_game_matches_play_random() -> None:
    """``random_game`` and ``play_random`` agree."""
    game = random_game(4, 3)
    assert game.result is not None
    assert play_random(4, 3) == (game.result[0], game.moves_played, game.result[2], False)
