"""Scenario tests: one readable position per numbered rule of docs/rules.md §2, §3, §5, §6, §10.

Every position is built by hand: :func:`deck` puts the interesting cards on top
of the deck, :func:`dealt` builds the deck that deals given hands (docs/rules.md §2),
and :meth:`Game.from_shedding` sets up phase-2 positions. Every expected value
below is worked out from docs/rules.md, not read off the engine.

Only the classic rules (``Rules.classic()``) are played: two-card duels, ties
replayed, try your luck, drawing after each play, the last stock card hidden,
trump from the last card, pick up the top card, tricks that end by count.
"""

from __future__ import annotations

import random

import pytest

from skitgubbe import (
    Card,
    CardSet,
    EventKind,
    Game,
    GameResult,
    Move,
    Phase,
    Rules,
    Suit,
    TablePlay,
)
from skitgubbe.game.cards import ALL_CARDS
from tests.positions import (
    brief,
    burn_deck,
    cs,
    dealt,
    deck,
    ev,
    flip_pairs,
    phase,
    play,
    table,
)

# ---------------------------------------------------------------------------
# Building positions
# ---------------------------------------------------------------------------


def moves(text: str) -> set[Move]:
    """A set of moves from text such as ``"7H 9C flip pick"``."""
    return {Move.parse(token) for token in text.split()}


def assert_hidden_from_everyone(game: Game, card: str, holder: int) -> None:
    """docs/rules.md §3.7 and §8: the face-down last card is in nobody's hand and no
    player, its holder included, can place it; trump is not public yet."""
    hidden = Card.parse(card)
    assert game.hidden_card == hidden
    assert all(hidden not in hand for hand in game.hands)
    assert game.trump is None
    assert len(game.stock) == 0
    for seat in range(game.players):
        view = game.observation(seat)
        assert hidden not in view.hand
        assert hidden not in view.collection
        assert all(hidden not in known for known in view.known)
        assert hidden in view.unknown
        assert view.hidden_slots == 1
        assert view.hidden_holder == holder
        assert view.stock_slots == 0
        assert view.trump is None
        for event in view.history:
            assert hidden not in event.cards
    # The hidden card counts among the cards its holder has.
    view = game.observation(holder)
    assert view.holding(holder) == len(game.hands[holder]) + len(game.collections[holder]) + 1


def deal_cards(seat: int, game: Game) -> CardSet:
    """The cards the deal gave ``seat``, from the deal events."""
    (event,) = [e for e in game.history if e.kind is EventKind.DEAL and e.seat == seat]
    return event.cards


# ---------------------------------------------------------------------------
# §2 Cards and deal
# ---------------------------------------------------------------------------


def test_s2_deal_starts_left_of_the_dealer_and_the_rest_is_the_stock() -> None:
    # Three players, dealer seat 0: seat 1 gets deck[0], seat 2 deck[1],
    # seat 0 deck[2], and so on for three rounds; deck[9:] is the stock.
    order = deck("AS KH QD JC 10S 9H 8D 7C 6S 5H 4D")
    game = Game.new(Rules.classic(), deck=order, dealer=0)
    assert game.dealer == 0
    assert game.hands == (cs("QD 9H 6S"), cs("AS JC 8D"), cs("KH 10S 7C"))
    assert game.stock == tuple(Card.parse(c) for c in order[9:])
    assert game.stock[:2] == (Card.parse("5H"), Card.parse("4D"))
    assert game.collections == (cs(), cs(), cs())
    assert game.table == ()
    assert game.out_of_play == cs()
    assert game.hidden_card is None
    assert game.trump is None
    assert game.phase is Phase.COLLECTING
    # The deal events come in dealing order, the dealer's left neighbour first.
    deals = [e for e in game.history if e.kind is EventKind.DEAL]
    assert [e.seat for e in deals] == [1, 2, 0]
    assert [deal_cards(s, game) for s in range(3)] == list(game.hands)
    # §3.1: the dealer's left neighbour (seat 1) leads.
    assert game.to_move == 1


@pytest.mark.parametrize(("players", "hand_size", "dealer"), [(2, 3, 0), (4, 5, 2), (4, 3, 1)])
def test_s2_deal_order_for_other_tables(players: int, hand_size: int, dealer: int) -> None:
    order = deck("")
    game = Game.new(Rules.classic(players, hand_size=hand_size), deck=order, dealer=dealer)
    dealt_count = players * hand_size
    expected = [set[str]() for _ in range(players)]
    for k in range(dealt_count):
        expected[(dealer + 1 + k) % players].add(order[k])
    assert game.hands == tuple(CardSet.of(*hand) for hand in expected)
    assert game.stock == tuple(Card.parse(c) for c in order[dealt_count:])
    assert len(game.stock) == 52 - dealt_count
    assert game.to_move == (dealer + 1) % players


@pytest.mark.parametrize("players", [2, 3, 4])
def test_s2_dealer_defaults_to_the_last_seat(players: int) -> None:
    order = deck("")
    game = Game.new(Rules.classic(players), deck=order)
    assert game.dealer == players - 1
    assert game.to_move == 0
    assert Card.parse(order[0]) in game.hands[0]
    assert Card.parse(order[1]) in game.hands[1 % players]
    assert game.observation(0).dealer == players - 1


def test_s2_a_seed_gives_the_same_deck_every_time() -> None:
    first = Game.new(Rules.classic(), seed=20240601)
    again = Game.new(Rules.classic(), seed=20240601)
    other = Game.new(Rules.classic(), seed=20240602)
    deck_first = first.record()["start"]["deck"]
    assert deck_first == again.record()["start"]["deck"]
    assert first.hands == again.hands
    assert first.stock == again.stock
    assert first.seed == 20240601
    # A permutation of the 52 cards.
    assert sorted(Card.parse(c) for c in deck_first) == sorted(ALL_CARDS)
    assert deck_first != other.record()["start"]["deck"]
    # The seeded game is dealt from that deck exactly like an explicit deck.
    explicit = Game.new(Rules.classic(), deck=deck_first)
    assert explicit.hands == first.hands
    assert explicit.stock == first.stock
    # Different seeds give different decks (not just the two above).
    decks = {tuple(Game.new(Rules.classic(), seed=s).record()["start"]["deck"]) for s in range(20)}
    assert len(decks) == 20


# ---------------------------------------------------------------------------
# §3 Phase 1, classic
# ---------------------------------------------------------------------------


def test_s3_1_leader_is_left_of_dealer_and_follower_is_left_of_leader() -> None:
    # Four players, dealer seat 1: seat 2 leads, seat 3 follows.
    hands = ["2C 3C 4C", "5C 6C 7C", "9H 8C 10C", "JC QC KC"]
    game = Game.new(Rules.classic(4), deck=dealt(hands, "2D 3D", dealer=1), dealer=1)
    assert game.to_move == 2
    assert set(game.legal_moves) == moves("9H 8C 10C flip")
    play(game, "9H")
    assert game.to_move == 3
    # Nobody else may play: the follower is the leader's left neighbour.
    assert game.observation(3).legal_moves == game.legal_moves
    assert all(game.observation(s).legal_moves == () for s in (0, 1, 2))


def test_s3_2_follower_may_play_low() -> None:
    game = Game.new(Rules.classic(), deck=dealt(["9H 2S 3S", "2C KD AD", "4S 5S 6S"], "7C 8C"))
    play(game, "9H")
    # The follower could beat with K or A but may play any hand card (or flip).
    assert set(game.legal_moves) == moves("2C KD AD flip")
    events = play(game, "2C")
    assert events == [
        ev(EventKind.PLAY, 1, "2C"),
        ev(EventKind.DRAW, 1, "8C"),
        ev(EventKind.TRICK_WON, 0, "9H 2C"),
    ]
    assert game.collections == (cs("9H 2C"), cs(), cs())
    assert game.to_move == 0


def test_s3_3_try_your_luck_plays_the_top_stock_card_and_draws_nothing() -> None:
    game = Game.new(Rules.classic(), deck=dealt(["9H 2S 3S", "2C KD AD", "4S 5S 6S"], "KS 4H 8C"))
    hands = game.hands
    assert Move.flip() in game.legal_moves
    events = play(game, "flip")
    assert events == [ev(EventKind.FLIP, 0, "KS")]
    assert game.hands == hands
    assert game.table == (TablePlay(0, cs("KS")),)
    assert game.stock[0] == Card.parse("4H")
    assert game.to_move == 1
    # The follower may try his luck too; the higher rank wins (K over 4).
    events = play(game, "flip")
    assert events == [ev(EventKind.FLIP, 1, "4H"), ev(EventKind.TRICK_WON, 0, "KS 4H")]
    assert game.hands == hands
    assert game.collections == (cs("KS 4H"), cs(), cs())
    assert game.stock[0] == Card.parse("8C")
    assert len(game.stock) == 52 - 9 - 2


def test_s3_3_try_your_luck_needs_two_stock_cards() -> None:
    # Three players: 43 stock cards. 42 flips leave the last one, which may
    # not be turned.
    hands = ["AC KC QC", "2D 3D 4D", "5H 6H 7H"]
    game = Game.new(Rules.classic(), deck=burn_deck(hands, "9S"))
    flip_pairs(game, 20)
    assert len(game.stock) == 3
    game.play(Move.flip())
    assert len(game.stock) == 2
    assert Move.flip() in game.legal_moves  # two cards: still allowed
    game.play(Move.flip())
    assert game.stock == (Card.parse("9S"),)
    assert game.to_move == 0
    assert set(game.legal_moves) == moves("AC KC QC")
    assert not game.is_legal(Move.flip())


def test_s3_4_a_hand_card_play_refills_the_hand_at_once() -> None:
    game = Game.new(Rules.classic(), deck=dealt(["9H 2S 3S", "2C KD AD", "4S 5S 6S"], "7C 8C 10D"))
    events = play(game, "2S")
    assert events == [ev(EventKind.PLAY, 0, "2S"), ev(EventKind.DRAW, 0, "7C")]
    assert game.hands[0] == cs("9H 3S 7C")
    assert game.stock[0] == Card.parse("8C")
    events = play(game, "KD")
    assert events[:2] == [ev(EventKind.PLAY, 1, "KD"), ev(EventKind.DRAW, 1, "8C")]
    assert game.hands[1] == cs("2C AD 8C")
    assert game.stock[0] == Card.parse("10D")
    # A draw is private: the others see one card drawn, not which.
    other_view = [e for e in game.observation(0).history if e.kind is EventKind.DRAW][-1]
    assert other_view.seat == 1
    assert other_view.count == 1
    assert other_view.cards == cs()


def test_s3_5_higher_rank_wins_whatever_the_suit_and_winner_leads_left() -> None:
    # Four players so that "his next player" is not the old leader.
    hands = ["9H 2S 3S", "10C 2D 3D", "4S 5S 6S", "7S 8S 9S"]
    game = Game.new(Rules.classic(4), deck=dealt(hands, "JH QH KH AH"))
    play(game, "9H")
    events = play(game, "10C")
    assert events == [
        ev(EventKind.PLAY, 1, "10C"),
        ev(EventKind.DRAW, 1, "QH"),
        ev(EventKind.TRICK_WON, 1, "9H 10C"),
    ]
    assert game.collections == (cs(), cs("9H 10C"), cs(), cs())
    assert game.table == ()
    assert game.to_move == 1
    play(game, "2D")
    assert game.to_move == 2  # the winner's left neighbour answers
    # 4♠ beats 2♦: only the rank counts.
    events = play(game, "4S")
    assert events[-1] == ev(EventKind.TRICK_WON, 2, "2D 4S")
    assert game.to_move == 2


def test_s3_6_tie_is_replayed_by_the_same_pair_and_the_winner_takes_all() -> None:
    hands = ["7H 8D KH", "7C 8S 2C", "3H 4H 5H"]
    game = Game.new(Rules.classic(), deck=dealt(hands, "9C 9D 10C 10D JC JD QS"))
    play(game, "7H")
    events = game.play("7C")
    assert brief(events) == [
        ev(EventKind.PLAY, 1, "7C"),
        ev(EventKind.DRAW, 1, "9D"),
        ev(EventKind.TIE, 0, "7H 7C"),
    ]
    assert events[-1].seats == (0, 1)
    assert game.table == (TablePlay(0, cs("7H")), TablePlay(1, cs("7C")))
    assert game.collections == (cs(), cs(), cs())
    assert game.to_move == 0  # the same leader plays again
    play(game, "8D")
    assert game.to_move == 1  # the same follower answers
    events = game.play("8S")
    assert brief(events)[-1] == ev(EventKind.TIE, 0, "8D 8S")  # a second tie
    assert len(game.table) == 4
    assert game.to_move == 0
    play(game, "KH")
    assert game.to_move == 1
    events = game.play("2C")
    assert brief(events)[-1] == ev(EventKind.TRICK_WON, 0, "7H 7C 8D 8S KH 2C")
    assert game.collections == (cs("7H 7C 8D 8S KH 2C"), cs(), cs())
    assert game.table == ()
    assert game.to_move == 0
    # Everybody kept a full hand: each play drew one card.
    assert game.hands == (cs("9C 10C JC"), cs("9D 10D JD"), cs("3H 4H 5H"))


def test_s3_6_the_follower_can_win_a_replayed_tie() -> None:
    hands = ["7H 2D KH", "7C 9S 2C", "3H 4H 5H"]
    game = Game.new(Rules.classic(), deck=dealt(hands, "9C 9D 10C 10D"))
    play(game, "7H")
    play(game, "7C")
    play(game, "2D")
    events = play(game, "9S")
    assert events[-1] == ev(EventKind.TRICK_WON, 1, "7H 7C 2D 9S")
    assert game.collections == (cs(), cs("7H 7C 2D 9S"), cs())
    assert game.to_move == 1
    play(game, "2C")
    assert game.to_move == 2


def test_s3_7_to_s3_8_and_s5_follower_runs_out_mid_tie_with_a_flipped_card() -> None:
    """Two players (46 stock cards): seat 1, the follower, draws the last card.

    After 22 flipped pairs (seat 0 wins them all) the stock is 9♣ 8♥. Seat 0
    flips 9♣; seat 1 ties with 9♦ and draws 8♥ face down. J♥/J♠ and 5♥/5♠ tie
    again; seat 1 has no hand card left; seat 0 leads K♦ and seat 1 cannot
    follow: phase 1 ends and everyone takes his cards back, 9♣ to seat 0 who
    turned it.
    """
    hands = ["JH 5H KD", "9D JS 5S"]
    game = Game.new(Rules.classic(2), deck=burn_deck(hands, "9C 8H"))
    flip_pairs(game, 22)
    burned = game.collections[0]
    assert len(burned) == 44
    assert game.stock == (Card.parse("9C"), Card.parse("8H"))
    assert game.to_move == 0

    assert play(game, "flip") == [ev(EventKind.FLIP, 0, "9C")]
    events = game.play("9D")
    assert [e.kind for e in events] == [EventKind.PLAY, EventKind.DRAW_HIDDEN, EventKind.TIE]
    assert events[1].seat == 1
    assert events[1].cards == cs()
    # §3.7: not in his hand, unknown to every player including him.
    assert game.hands == (cs("JH 5H KD"), cs("JS 5S"))
    assert_hidden_from_everyone(game, "8H", holder=1)
    assert game.to_move == 0

    play(game, "JH")
    assert play(game, "JS")[-1] == ev(EventKind.TIE, 0, "JH JS")
    play(game, "5H")
    assert play(game, "5S")[-1] == ev(EventKind.TIE, 0, "5H 5S")
    assert game.hands == (cs("KD"), cs())
    assert game.phase is Phase.COLLECTING
    assert game.to_move == 0

    events = game.play("KD")
    got = brief(events)
    assert got[0] == ev(EventKind.PLAY, 0, "KD")
    # §3.8: the unfinished trick is taken back, the flipped 9♣ by its flipper.
    assert sorted(got[1:3], key=lambda e: e[1] or 0) == [
        ev(EventKind.TAKE_BACK, 0, "9C JH 5H KD"),
        ev(EventKind.TAKE_BACK, 1, "9D JS 5S"),
    ]
    # §5.1/§5.2: the hidden card joins its drawer, trump is its suit, public.
    assert got[3] == ev(EventKind.REVEAL, 1, "8H")
    assert events[4].kind is EventKind.TRUMP
    assert events[4].suit is Suit.HEARTS
    # §5.5: the phase-2 leader is the last drawer (seat 1, not seat 0).
    assert got[5] == ev(EventKind.SHEDDING, 1)
    assert len(events) == 6

    assert phase(game) is Phase.SHEDDING
    assert game.trump is Suit.HEARTS
    assert all(game.observation(s).trump is Suit.HEARTS for s in range(2))
    assert game.hidden_card is None
    assert game.table == ()
    assert len(game.stock) == 0
    assert game.out_of_play == cs()
    assert game.collections == (cs(), cs())
    assert game.hands == (burned | cs("9C JH 5H KD"), cs("9D JS 5S 8H"))
    assert game.to_move == 1
    assert set(game.legal_moves) == moves("9D JS 5S 8H")  # §6.1
    # Everybody now knows where the revealed card is.
    assert Card.parse("8H") in game.observation(0).known[1]


def test_s3_8_and_s3_1_follower_without_a_hand_card_ends_phase_1_no_skipping() -> None:
    """Four players (40 stock cards): seat 1, following, draws the last card and
    then loses every duel; when seat 0 leads J♣ seat 1 has no hand card. Seats 2
    and 3 still hold cards, but nobody is skipped to: phase 1 ends."""
    hands = ["AC KC QC", "2D 3D 4D", "5H 6H 7H", "5S 6S 7S"]
    game = Game.new(Rules.classic(4), deck=burn_deck(hands, "JC 9S"))
    flip_pairs(game, 19)
    assert game.stock == (Card.parse("JC"), Card.parse("9S"))
    assert play(game, "AC") == [ev(EventKind.PLAY, 0, "AC"), ev(EventKind.DRAW, 0, "JC")]
    events = play(game, "2D")
    assert events == [
        ev(EventKind.PLAY, 1, "2D"),
        ev(EventKind.DRAW_HIDDEN, 1),
        ev(EventKind.TRICK_WON, 0, "AC 2D"),
    ]
    assert_hidden_from_everyone(game, "9S", holder=1)
    play(game, "KC")
    play(game, "3D")
    play(game, "QC")
    play(game, "4D")
    assert game.hands[:2] == (cs("JC"), cs())
    assert game.to_move == 0
    final = game.play("JC")
    got = brief(final)
    assert got[:3] == [
        ev(EventKind.PLAY, 0, "JC"),
        ev(EventKind.TAKE_BACK, 0, "JC"),
        ev(EventKind.REVEAL, 1, "9S"),
    ]
    assert final[3].kind is EventKind.TRUMP
    assert final[3].suit is Suit.SPADES
    assert got[4:] == [ev(EventKind.SHEDDING, 1)]
    assert game.phase is Phase.SHEDDING
    assert game.hands[1] == cs("9S")
    assert game.hands[2] == cs("5H 6H 7H")
    assert game.hands[3] == cs("5S 6S 7S")
    assert len(game.hands[0]) == 52 - 1 - 3 - 3
    assert game.to_move == 1
    assert game.observation(2).finished == ()


def test_s3_8_and_s5_3_leader_without_a_hand_card_ends_phase_1_empty_player_is_out() -> None:
    """Three players (43 stock cards): seat 0 leads and draws the last card,
    then wins every duel against seat 1 and must lead with no hand card. Seat 1
    has no cards at all: out at once (§5.3). Seat 0 leads phase 2 (§5.5)."""
    hands = ["AC KC QC", "2D 3D 4D", "5H 6H 7H"]
    game = Game.new(Rules.classic(), deck=burn_deck(hands, "9S"))
    flip_pairs(game, 21)
    assert game.stock == (Card.parse("9S"),)
    assert play(game, "AC") == [ev(EventKind.PLAY, 0, "AC"), ev(EventKind.DRAW_HIDDEN, 0)]
    assert game.hands[0] == cs("KC QC")
    assert_hidden_from_everyone(game, "9S", holder=0)
    play(game, "2D")
    play(game, "KC")
    play(game, "3D")
    play(game, "QC")
    events = game.play("4D")
    got = brief(events)
    assert got[:3] == [
        ev(EventKind.PLAY, 1, "4D"),
        ev(EventKind.TRICK_WON, 0, "QC 4D"),
        ev(EventKind.REVEAL, 0, "9S"),
    ]
    assert events[3].kind is EventKind.TRUMP
    assert events[3].suit is Suit.SPADES
    assert got[4:] == [ev(EventKind.OUT, 1), ev(EventKind.SHEDDING, 0)]
    assert EventKind.TAKE_BACK not in [e.kind for e in events]
    assert game.phase is Phase.SHEDDING
    assert game.hands == (~cs("5H 6H 7H"), cs(), cs("5H 6H 7H"))
    assert game.observation(0).finished == (1,)
    assert game.result is None
    assert game.to_move == 0


@pytest.mark.parametrize(("players", "hand_size"), [(2, 3), (3, 3), (4, 3), (2, 5), (3, 5), (4, 5)])
def test_s3_10_hands_stay_full_while_the_stock_lasts(players: int, hand_size: int) -> None:
    """§3.10 (empty hand while the stock is not empty) cannot happen under the
    classic rules: every hand-card play refills at once (§3.4) and trying your
    luck leaves the hand alone (§3.3), so every hand holds ``hand_size`` cards
    while the stock lasts. This checks that, and that phase 1 only ever ends
    with an empty stock, over random games with many ties."""
    rules = Rules.classic(players, hand_size=hand_size)
    for seed in range(12):
        rng = random.Random(seed)
        game = Game.new(rules, seed=seed)
        while game.phase is Phase.COLLECTING:
            if game.stock:
                assert all(len(hand) == hand_size for hand in game.hands)
            assert game.is_legal(Move.flip()) == (len(game.stock) >= 2)
            game.play(rng.choice(game.legal_moves))
        assert game.stock == ()
        assert game.hidden_card is None
        assert game.trump is not None


# ---------------------------------------------------------------------------
# §5 Between the phases (positions from Game.from_shedding)
# ---------------------------------------------------------------------------


def test_s5_3_a_player_without_cards_is_out_at_once() -> None:
    game = Game.from_shedding(Rules.classic(), ["", "9D 2C", "4C"], trump="S", leader=1)
    assert [(e.kind, e.seat) for e in game.history if e.kind is EventKind.OUT] == [
        (EventKind.OUT, 0)
    ]
    assert game.observation(1).finished == (0,)
    assert game.phase is Phase.SHEDDING
    assert game.result is None
    assert game.to_move == 1


def test_s5_3_only_one_player_with_cards_is_the_skitgubbe_at_once() -> None:
    game = Game.from_shedding(Rules.classic(), ["", "", "4C KD"], trump="S", leader=1)
    # Seats without cards go out in seat order from the dealer's left neighbour.
    first = (game.dealer + 1) % 3
    expected_out = [seat for seat in ((first + k) % 3 for k in range(3)) if seat != 2]
    assert expected_out == [1, 0]  # dealer 0 (the leader's right): seat 1 first
    outs = [e.seat for e in game.history if e.kind is EventKind.OUT]
    assert outs == expected_out
    assert game.history[-1].kind is EventKind.GAME_OVER
    assert game.history[-1].seat == 2
    assert game.phase is Phase.OVER
    assert game.to_move is None
    assert game.legal_moves == ()
    assert game.result == GameResult(
        loser=2, finish_order=(*expected_out, 2), truncated=False, moves_played=0
    )


def test_s5_5_leader_out_at_the_start_passes_the_lead_to_his_next_player() -> None:
    game = Game.from_shedding(Rules.classic(), ["", "9D", "4C"], trump="S", leader=0)
    assert game.to_move == 1
    shedding = [e for e in game.history if e.kind is EventKind.SHEDDING]
    assert [e.seat for e in shedding] == [1]
    # Four players, leader and his left neighbour out: the next holder leads.
    game = Game.from_shedding(Rules.classic(4), ["", "", "4C", "5C"], trump="S", leader=0)
    assert game.to_move == 2


def test_s5_1_trump_is_public_from_the_start_of_phase_2() -> None:
    game = Game.from_shedding(Rules.classic(), ["9D", "JD", "4C"], trump="clubs", leader=0)
    assert game.trump is Suit.CLUBS
    assert all(game.observation(s).trump is Suit.CLUBS for s in range(3))


# ---------------------------------------------------------------------------
# §6 Phase 2
# ---------------------------------------------------------------------------


def test_s6_1_lead_any_card_and_no_pick_up_on_an_empty_table() -> None:
    game = Game.from_shedding(Rules.classic(), ["9D 2C AS 5H", "JD", "4C"], trump="S", leader=0)
    assert set(game.legal_moves) == moves("9D 2C AS 5H")
    assert Move.pick_up() not in game.legal_moves


def test_s6_2_beat_with_a_higher_card_of_the_suit_or_any_trump() -> None:
    hands = ["9D 3C", "2D 8D 10D AD 2S 2H KC", "KS 4S 5H AH"]
    game = Game.from_shedding(Rules.classic(), hands, trump="S", leader=0)
    play(game, "9D")
    # Higher diamonds, any trump (even the 2), or pick up — nothing else.
    assert set(game.legal_moves) == moves("10D AD 2S pick")
    play(game, "2S")
    # A trump is beaten only by a higher trump: the ace of hearts will not do.
    assert set(game.legal_moves) == moves("4S KS pick")


def test_s6_2_trump_led_needs_a_higher_trump() -> None:
    game = Game.from_shedding(Rules.classic(), ["5S 2C", "AD 4S 6S", "3C"], trump="S", leader=0)
    play(game, "5S")
    assert set(game.legal_moves) == moves("6S pick")


def test_s6_2_picking_up_is_allowed_even_when_able_to_beat() -> None:
    game = Game.from_shedding(Rules.classic(), ["9D 3C", "AD 2H", "4C 5C"], trump="S", leader=0)
    play(game, "9D")
    assert Move.parse("AD") in game.legal_moves
    assert Move.pick_up() in game.legal_moves
    events = play(game, "pick")
    assert events == [ev(EventKind.PICK_UP, 1, "9D")]
    assert game.hands[1] == cs("AD 2H 9D")


def test_s6_3_pick_up_takes_only_the_top_card() -> None:
    hands = ["9D 2C", "JD 3C", "QD 4C", "5C 6C"]
    game = Game.from_shedding(Rules.classic(4), hands, trump="S", leader=0)
    play(game, "9D")
    play(game, "JD")
    play(game, "QD")
    assert set(game.legal_moves) == {Move.pick_up()}
    assert play(game, "pick") == [ev(EventKind.PICK_UP, 3, "QD")]
    assert game.hands[3] == cs("5C 6C QD")
    assert game.table == (TablePlay(0, cs("9D")), TablePlay(1, cs("JD")))
    assert game.to_move == 0  # the picker's next player must beat J♦
    assert set(game.legal_moves) == {Move.pick_up()}  # 2♣ cannot


def test_s6_5_trick_is_complete_after_as_many_plays_as_holders() -> None:
    # Two holders: the lead and one answer complete the trick (the leader counts).
    game = Game.from_shedding(Rules.classic(2), ["9D 2C", "JD 3C"], trump="S", leader=0)
    play(game, "9D")
    events = play(game, "JD")
    assert events == [ev(EventKind.PLAY, 1, "JD"), ev(EventKind.DISCARD, 1, "9D JD")]
    assert game.out_of_play == ~cs("2C 3C")
    assert game.table == ()
    assert game.to_move == 1  # the last player leads
    assert Move.pick_up() not in game.legal_moves


def test_s6_5_target_counts_players_holding_cards_not_seats() -> None:
    # Four seats, one out from the start: three plays complete the trick.
    hands = ["9D 2C", "", "JD 3C", "QD 4C"]
    game = Game.from_shedding(Rules.classic(4), hands, trump="S", leader=0)
    play(game, "9D")
    assert game.to_move == 2  # seat 1 is out and skipped
    play(game, "JD")
    events = play(game, "QD")
    assert events == [ev(EventKind.PLAY, 3, "QD"), ev(EventKind.DISCARD, 3, "9D JD QD")]
    assert CardSet.parse("9D JD QD") <= game.out_of_play
    assert game.to_move == 3


def test_s6_5_target_does_not_shrink_when_a_player_goes_out_mid_trick() -> None:
    game = Game.from_shedding(Rules.classic(), ["9D 2C", "JD", "KD 3H"], trump="S", leader=0)
    play(game, "9D")
    events = play(game, "JD")
    # Seat 1 is out; two players hold cards and two plays lie on the table, but
    # the target fixed at the lead is three: the trick goes on.
    assert events == [ev(EventKind.PLAY, 1, "JD"), ev(EventKind.OUT, 1)]
    assert game.table == (TablePlay(0, cs("9D")), TablePlay(1, cs("JD")))
    assert game.to_move == 2
    events = play(game, "KD")
    assert events == [ev(EventKind.PLAY, 2, "KD"), ev(EventKind.DISCARD, 2, "9D JD KD")]
    assert game.to_move == 2
    assert game.phase is Phase.SHEDDING


def test_s6_5_last_play_was_his_last_card_so_his_next_player_leads() -> None:
    game = Game.from_shedding(Rules.classic(), ["9D 2C", "JD 5H", "KD"], trump="S", leader=0)
    play(game, "9D")
    play(game, "JD")
    events = play(game, "KD")
    assert events == [
        ev(EventKind.PLAY, 2, "KD"),
        ev(EventKind.OUT, 2),
        ev(EventKind.DISCARD, 2, "9D JD KD"),
    ]
    assert game.to_move == 0  # seat 2's next player still holding cards
    assert set(game.legal_moves) == moves("2C")


def test_s6_6_a_pick_up_that_empties_the_table_gives_the_lead_to_the_next_player() -> None:
    game = Game.from_shedding(Rules.classic(), ["9D 2C", "3C 4C", "5C 6C"], trump="S", leader=0)
    play(game, "9D")
    assert set(game.legal_moves) == {Move.pick_up()}
    assert play(game, "pick") == [ev(EventKind.PICK_UP, 1, "9D")]
    assert game.table == ()
    assert game.to_move == 2
    assert set(game.legal_moves) == moves("5C 6C")  # a new lead: no pick up


def test_s6_6_the_next_player_after_a_pick_up_skips_players_who_are_out() -> None:
    hands = ["9D 2C", "3C 4C", "", "5C 6C"]
    game = Game.from_shedding(Rules.classic(4), hands, trump="S", leader=0)
    play(game, "9D")
    play(game, "pick")
    assert game.table == ()
    assert game.to_move == 3  # seat 2 is out and skipped
    assert set(game.legal_moves) == moves("5C 6C")


def test_s6_7_going_out_and_the_game_ends_when_one_player_holds_cards() -> None:
    game = Game.from_shedding(Rules.classic(), ["9D", "JD 2C", "KD 3C"], trump="S", leader=0)
    assert play(game, "9D") == [ev(EventKind.PLAY, 0, "9D"), ev(EventKind.OUT, 0)]
    assert game.result is None  # two players still hold cards
    assert game.to_move == 1
    play(game, "JD")
    play(game, "KD")  # three plays: the target fixed at the lead
    assert game.to_move == 2
    events = play(game, "3C")
    assert events == [
        ev(EventKind.PLAY, 2, "3C"),
        ev(EventKind.OUT, 2),
        ev(EventKind.GAME_OVER, 1),
    ]
    assert game.phase is Phase.OVER
    assert game.to_move is None
    assert game.legal_moves == ()
    assert game.result == GameResult(
        loser=1, finish_order=(0, 2, 1), truncated=False, moves_played=4
    )


def test_s6_7_two_players_the_first_out_wins_at_once() -> None:
    game = Game.from_shedding(Rules.classic(2), ["9D", "JD 2C"], trump="S", leader=0)
    assert play(game, "9D") == [
        ev(EventKind.PLAY, 0, "9D"),
        ev(EventKind.OUT, 0),
        ev(EventKind.GAME_OVER, 1),
    ]
    assert game.result == GameResult(loser=1, finish_order=(0, 1), truncated=False, moves_played=1)


def test_s6_8_the_move_cap_truncates_with_no_loser() -> None:
    rules = Rules.classic(max_moves=3)
    game = Game.new(rules, deck=dealt(["9H 2S 3S", "2C KD AD", "4S 5S 6S"], "KS 4H 8C"))
    play(game, "flip")
    play(game, "flip")
    assert game.phase is Phase.COLLECTING
    assert game.result is None
    events = play(game, "9H")
    assert events[-1] == ev(EventKind.TRUNCATED, None)
    assert phase(game) is Phase.OVER
    assert game.to_move is None
    assert game.legal_moves == ()
    assert game.result == GameResult(loser=None, finish_order=(), truncated=True, moves_played=3)


def test_s6_8_the_move_cap_in_phase_2_keeps_who_went_out() -> None:
    rules = Rules.classic(max_moves=2)
    game = Game.from_shedding(rules, ["9D", "JD 2C", "KD 3C"], trump="S", leader=0)
    play(game, "9D")
    assert play(game, "JD")[-1] == ev(EventKind.TRUNCATED, None)
    assert game.result == GameResult(loser=None, finish_order=(0,), truncated=True, moves_played=2)


def test_s6_8_a_game_that_ends_on_the_capped_move_is_not_truncated() -> None:
    # Interpretation: the cap ends a game still running; this one is already over.
    game = Game.from_shedding(Rules.classic(2, max_moves=1), ["9D", "JD"], trump="S", leader=0)
    play(game, "9D")
    assert game.result == GameResult(loser=1, finish_order=(0, 1), truncated=False, moves_played=1)


# ---------------------------------------------------------------------------
# §10 Worked examples
# ---------------------------------------------------------------------------

ANNA, BEN, CARLA = 0, 1, 2


def test_s10_phase_1_example() -> None:
    """Anna leads a 7. Ben holds K, 4, 3, plays the 3 to keep his king; Anna
    wins, both have drawn already, Anna leads again and Ben must answer again."""
    hands = ["7H 2S 9C", "KC 4D 3S", "5H 6H 8H"]
    game = Game.new(Rules.classic(), deck=dealt(hands, "10D JD QD"))
    assert game.to_move == ANNA
    assert play(game, "7H") == [ev(EventKind.PLAY, ANNA, "7H"), ev(EventKind.DRAW, ANNA, "10D")]
    assert game.to_move == BEN
    assert set(game.legal_moves) == moves("KC 4D 3S flip")
    assert play(game, "3S") == [
        ev(EventKind.PLAY, BEN, "3S"),
        ev(EventKind.DRAW, BEN, "JD"),
        ev(EventKind.TRICK_WON, ANNA, "7H 3S"),
    ]
    assert game.hands[ANNA] == cs("2S 9C 10D")
    assert game.hands[BEN] == cs("KC 4D JD")  # he kept his king
    assert game.collections == (cs("7H 3S"), cs(), cs())
    assert game.to_move == ANNA
    play(game, "2S")
    assert game.to_move == BEN


def test_s10_phase_2_example() -> None:
    """Three players, trump not diamonds: Anna leads 9♦, Ben beats with J♦,
    Carla (no higher diamond, no trump) picks up J♦, Anna beats her own 9♦ with
    Q♦, Ben plays A♦: three plays, the trick is complete, Ben discards and leads."""
    hands = ["9D QD 2H", "JD AD 3H", "5D 4C"]
    game = Game.from_shedding(Rules.classic(), hands, trump="S", leader=ANNA)
    assert play(game, "9D") == [ev(EventKind.PLAY, ANNA, "9D")]
    assert play(game, "JD") == [ev(EventKind.PLAY, BEN, "JD")]
    assert game.to_move == CARLA
    assert set(game.legal_moves) == {Move.pick_up()}
    assert play(game, "pick") == [ev(EventKind.PICK_UP, CARLA, "JD")]
    assert game.hands[CARLA] == cs("5D 4C JD")
    assert game.table == (TablePlay(ANNA, cs("9D")),)
    assert game.to_move == ANNA
    assert set(game.legal_moves) == moves("QD pick")
    play(game, "QD")
    # §6.4: the picked-up J♦ no longer counts: two plays lie on the table.
    assert table(game) == (TablePlay(ANNA, cs("9D")), TablePlay(ANNA, cs("QD")))
    assert game.to_move == BEN
    events = play(game, "AD")
    assert events == [ev(EventKind.PLAY, BEN, "AD"), ev(EventKind.DISCARD, BEN, "9D QD AD")]
    assert table(game) == ()
    assert game.out_of_play == ~cs("2H 3H 5D 4C JD")
    assert game.to_move == BEN
    assert set(game.legal_moves) == moves("3H")
