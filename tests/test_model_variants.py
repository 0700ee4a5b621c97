"""Tests of the reference model (``tests/model``) under the rule variants of docs/rules.md §9.

Each variant gets a small scenario that checks its rule on a rigged deal or a
given phase-2 position; then random games over random variant configurations
check card conservation, the structural invariants and every seat's knowledge
after every move.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence

import pytest

from tests.model.classic import (
    ALL_CARDS,
    COLLECTING,
    FLIP_MOVE,
    OVER,
    PASS_MOVE,
    PICK_UP_MOVE,
    SHEDDING,
    VARIANT_FIELDS,
    ModelGame,
    Move,
    VariantValue,
    is_run,
    mask,
    parse_card,
    rank,
    suit,
)
from tests.model.random_play import play_random, random_game
from tests.model.rng import Xoshiro256, deck_from_seed, shuffle

CLUBS, DIAMONDS, HEARTS, SPADES = range(4)


# ---------------------------------------------------------------- helpers


def c(name: str) -> int:
    """Return the code of a named card, e.g. ``c("9D")``."""
    return parse_card(name)


def cards(*names: str) -> set[int]:
    """Return the set of codes of the named cards."""
    return {parse_card(name) for name in names}


def play(*names: str) -> Move:
    """Return the move playing the named card(s) (one play)."""
    return ("play", frozenset(cards(*names)))


def play_cards(*codes: int) -> Move:
    """Return the move playing the given card codes (one play)."""
    return ("play", frozenset(codes))


def slough(*names: str) -> Move:
    """Return the move sloughing the named card(s)."""
    return ("slough", frozenset(cards(*names)))


def rigged_deck(
    players: int,
    dealer: int,
    hands: Sequence[Sequence[str]],
    stock_top: Sequence[str] = (),
    upcard: str | None = None,
) -> list[int]:
    """Build a deck that deals ``hands[seat]`` to each seat.

    Then comes ``upcard`` (the card turned up under ``trump="upcard"``), then
    ``stock_top`` (the first cards drawn), then the remaining cards in code order.
    """
    hand_size = len(hands[0])
    deck: list[int] = []
    for round_ in range(hand_size):
        for step in range(1, players + 1):
            seat = (dealer + step) % players
            deck.append(c(hands[seat][round_]))
    if upcard is not None:
        deck.append(c(upcard))
    deck.extend(c(name) for name in stock_top)
    deck.extend(card for card in sorted(ALL_CARDS) if card not in deck)
    assert len(set(deck)) == 52
    return deck


def table_cards(game: ModelGame) -> list[int]:
    """Return the cards on the table, bottom first."""
    return [card for _, card in game.table]


KIND_ORDER = {"play": 0, "slough": 0, "flip": 1, "pick_up": 2, "pass": 2}


def canonical(moves: Iterable[Move]) -> list[Move]:
    """Return ``moves`` in canonical order: plays (or sloughs) by mask, flip, pick-up (or pass)."""
    return sorted(moves, key=lambda m: (KIND_ORDER[m[0]], mask(m[1])))


def check_invariants(game: ModelGame) -> None:
    """Assert card conservation and the structural invariants of each phase, any variant."""
    rules = game.rules
    seen: list[int] = []
    for place in game.all_places():
        seen.extend(place)
    assert len(seen) == 52, game
    assert set(seen) == ALL_CARDS, game
    n = game.players
    assert len(set(game.finish_order)) == len(game.finish_order)
    if rules.trump == "upcard":
        assert game.upcard is not None
        assert game.trump == suit(game.upcard)
        assert game.trump_public
        assert (game.upcard in game.stock) == (game.last_drawer is None)
        if game.upcard in game.stock:
            assert game.stock[-1] == game.upcard
    else:
        assert game.upcard is None
    if rules.trump == "none":
        assert game.trump is None
    if game.phase == COLLECTING:
        seat = game.to_move
        assert seat is not None
        assert not game.finish_order
        assert game.collections is not None
        if game.in_window:
            assert seat == game.window[0]
            assert rules.trick_mode == "all"
            assert rules.slough
        else:
            assert seat in game.round_order
            assert game.hands[seat]
        for hand in game.hands:
            assert len(hand) <= game.hand_size
            if game.stock and rules.draw == "after_play":
                assert len(hand) == game.hand_size  # refilled after every play or slough
        if rules.last_card == "reveal":
            assert game.stock  # drawing the last card ends phase 1 at once
        if game.stock:
            assert game.last_drawer is None
            assert game.hidden_card is None
            if rules.trump != "upcard":
                assert game.trump is None
                assert not game.trump_public
        if game.hidden_card is not None:
            assert rules.last_card == "hidden"
            assert rules.trump != "upcard"
            assert game.hidden_holder == game.last_drawer
            expected = suit(game.hidden_card) if rules.trump == "last_card" else None
            assert game.trump == expected
        if not game.in_window:  # a slough may hold several ranks
            for _, cards_ in game.table_plays():
                assert len({rank(x) for x in cards_}) == 1
                assert len(cards_) == 1 or (rules.trick_mode == "all" and rules.multi_card_plays)
        if rules.trick_mode == "duel":
            assert game.follower == (game.leader + 1) % n
            assert seat in (game.leader, game.follower)
    else:
        assert not game.stock
        assert game.hidden_card is None
        assert all(not coll for coll in game.collections)
        assert game.trump_public
        assert not game.window
    if game.phase == SHEDDING:
        seat = game.to_move
        assert seat is not None
        assert game.hands[seat]
        holders = game.holders()
        assert len(holders) >= 2
        assert set(game.finish_order) == set(range(n)) - set(holders)
        plays = game.table_plays()
        if rules.trick_end == "count":
            assert len(plays) < game.target or not plays
        else:
            assert game.turns < game.target or not plays
        for index, (_, cards_) in enumerate(plays):
            ordered = sorted(cards_)
            assert len(ordered) == 1 or (rules.runs and is_run(ordered))
            if index:
                assert game.beats(ordered[0], plays[index - 1][1][-1])
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
            assert len(finish_order) == n - (1 if loser is not None else 0)
            if loser is not None:
                assert game.hands[loser]
    else:
        assert game.result is None
        moves = game.legal_moves()
        assert moves
        assert moves == canonical(moves)
        kinds = {kind for kind, _ in moves}
        if game.in_window:
            assert kinds <= {"slough", "pass"}
            assert moves[-1] == PASS_MOVE
            assert len(moves) >= 2  # seats that could only pass are skipped
        elif game.phase == COLLECTING:
            assert kinds <= {"play", "flip"}
        else:
            assert kinds <= {"play", "pick_up"}
            assert (PICK_UP_MOVE in moves) == bool(game.table)


def check_knowledge(game: ModelGame, public: set[int] | None = None) -> None:
    """Assert that each seat's knowledge, replayed from the log, agrees with the true state.

    With ``public`` (every card that has ever been shown to the table, tracked
    by the caller), a seat must know exactly the public cards another seat holds.
    """
    n = game.players
    upcard_in_stock = {game.upcard} & set(game.stock) if game.upcard is not None else set()
    for seat in range(n):
        info = game.knowledge(seat)
        known, unknown, slots = info["known"], info["unknown"], info["slots"]
        assert len(known) == n
        assert known[seat] == game.hands[seat] | game.collections[seat]
        true_unknown: set[int] = set(game.stock) - upcard_in_stock
        if game.hidden_card is not None:
            true_unknown.add(game.hidden_card)
            assert all(game.hidden_card not in k for k in known)
        placed: set[int] = set(table_cards(game)) | game.out_of_play | upcard_in_stock
        for other in range(n):
            held = game.hands[other] | game.collections[other]
            assert known[other] <= held  # known cards really are where they say
            assert not placed & known[other]
            placed |= known[other]
            if other != seat:
                assert slots[other] == len(held) - len(known[other])
                true_unknown |= held - known[other]
                if public is not None:
                    assert known[other] == held & public, (seat, other)
        assert unknown == true_unknown
        assert unknown | placed == ALL_CARDS
        assert not unknown & placed
        assert slots["stock"] == len(game.stock) - len(upcard_in_stock)
        assert slots["hidden"] == (1 if game.hidden_card is not None else 0)
        assert sum(slots.values()) == len(unknown)
        assert set(slots) == {t for t in range(n) if t != seat} | {"stock", "hidden"}


def owners(game: ModelGame) -> dict[int, int]:
    """Return the seat holding each card held in a hand or a collection."""
    return {
        card: seat
        for seat in range(game.players)
        for card in game.hands[seat] | game.collections[seat]
    }


class PublicCards:
    """Track, from the true states and moves, every card that has been shown to the whole table.

    Once shown, a card only moves publicly, so every seat can place it from then on.
    """

    def __init__(self, game: ModelGame) -> None:
        self.cards: set[int] = set()
        self.hidden: int | None = None
        self.before(game)
        self.after(game, ("pass", frozenset()))

    def before(self, game: ModelGame) -> None:
        """Remember what the next move may show: the stock's top and bottom, who holds what."""
        self.stock_top = game.stock[0] if game.stock else None
        self.stock_bottom = game.stock[-1] if game.stock else None
        self.owners = owners(game)

    def after(self, game: ModelGame, move: Move) -> set[int]:
        """Add what ``move`` showed; return the public cards."""
        self.cards |= set(move[1])  # played or sloughed
        if move[0] == "flip" and self.stock_top is not None:
            self.cards.add(self.stock_top)
        self.cards |= set(table_cards(game)) | game.out_of_play
        if game.upcard is not None:
            self.cards.add(game.upcard)
        shown_when_drawn = game.rules.last_card == "reveal" or game.rules.trump == "upcard"
        if not game.stock and self.stock_bottom is not None and shown_when_drawn:
            self.cards.add(self.stock_bottom)
        if game.hidden_card is not None:
            self.hidden = game.hidden_card
        elif self.hidden is not None:
            self.cards.add(self.hidden)  # turned up at the start of phase 2
        for card, seat in owners(game).items():
            if self.owners.get(card, seat) != seat:
                self.cards.add(card)  # passed from one seat to another (low cards)
        if game.phase != COLLECTING:
            # A card drawn by one seat and handed on by the low-card rule within the
            # same move: only the log tells it from a private draw.
            self.cards.update(card for e in game.log if e.kind == "give" for card in e.cards)
        return self.cards


def lowest_until(game: ModelGame, stop: object) -> None:
    """In phase 1, play the first legal move (a hand card) until ``stop(game)``."""
    assert callable(stop)
    while game.phase == COLLECTING and not stop(game):
        game.play(game.legal_moves()[0])
        check_invariants(game)


# ---------------------------------------------------------------- configuration


def test_defaults_are_classic() -> None:
    """Missing variants take the classic defaults; random play is unchanged by spelling them out."""
    game = ModelGame(3, deck_from_seed(1), 2)
    assert game.rules.as_dict() == {
        "trick_mode": "duel",
        "duel_tie": "replay",
        "all_tie": "pot",
        "multi_card_plays": False,
        "slough": True,
        "try_your_luck": True,
        "draw": "after_play",
        "last_card": "hidden",
        "trump": "last_card",
        "low_card_threshold": None,
        "runs": False,
        "pickup": "top",
        "trick_end": "count",
    }
    assert play_random(3, 5) == play_random(3, 5, **game.rules.as_dict())


def test_bad_variants_rejected() -> None:
    """Bad values, unknown fields and the upcard + multi-card combination raise ``ValueError``."""
    deck = deck_from_seed(0)
    for name, value in [
        ("trick_mode", "DUEL"),
        ("trick_mode", 1),
        ("duel_tie", "none"),
        ("all_tie", None),
        ("multi_card_plays", 1),
        ("slough", "yes"),
        ("draw", "after"),
        ("last_card", True),
        ("trump", "hearts"),
        ("low_card_threshold", 0),
        ("low_card_threshold", 14),
        ("low_card_threshold", True),
        ("runs", None),
        ("pickup", "all"),
        ("trick_end", "turns"),
    ]:
        with pytest.raises(ValueError, match=name):
            ModelGame(3, deck, 2, **{name: value})
    with pytest.raises(ValueError, match="jokers"):
        ModelGame(3, deck, 2, jokers=True)
    with pytest.raises(ValueError, match="upcard"):
        ModelGame(3, deck, 2, trick_mode="all", trump="upcard", multi_card_plays=True)
    with pytest.raises(ValueError, match="pickup"):
        ModelGame.from_shedding(2, [cards("2C"), cards("3C")], None, 0, pickup="run")
    # Fields without effect in a configuration are accepted (docs/rules.md §9).
    ModelGame(3, deck, 2, trick_mode="duel", multi_card_plays=True, all_tie="lower_out")
    ModelGame(3, deck, 2, trick_mode="all", duel_tie="bounce", low_card_threshold=13)


def test_from_rules_takes_a_whole_rules_dict() -> None:
    """``from_rules`` reads a ``Rules.to_dict()`` dict, e.g. ``Rules.modern(players=4)``."""
    modern: dict[str, VariantValue] = {
        "players": 4,
        "hand_size": 5,
        "trick_mode": "all",
        "duel_tie": "replay",
        "all_tie": "lower_out",
        "multi_card_plays": False,
        "slough": True,
        "try_your_luck": False,
        "draw": "after_trick",
        "last_card": "reveal",
        "trump": "last_card",
        "low_card_threshold": None,
        "runs": True,
        "pickup": "top_run",
        "trick_end": "rotation",
        "max_moves": 500,
    }
    assert set(modern) == {"players", "hand_size", "max_moves", *VARIANT_FIELDS}
    deck = deck_from_seed(7)
    game = ModelGame.from_rules(modern, deck, dealer=1)
    assert (game.players, game.hand_size, game.max_moves, game.dealer) == (4, 5, 500, 1)
    assert game.rules.trick_end == "rotation"
    assert FLIP_MOVE not in game.legal_moves()
    same = ModelGame(4, deck, 1, 5, 500, **{k: modern[k] for k in VARIANT_FIELDS})
    assert same.rules == game.rules
    with pytest.raises(ValueError, match="players"):
        ModelGame.from_rules({**modern, "players": "4"}, deck, 1)


# ---------------------------------------------------------------- phase 1, duels


def test_duel_tie_bounce() -> None:
    """docs/rules.md §3.6 BOUNCE: both tied cards go out of play; the follower leads the next
    trick."""
    hands = [["7C", "9H", "JS"], ["7D", "4S", "3H"], ["5C", "6C", "8C"]]
    game = ModelGame(3, rigged_deck(3, 2, hands, ["2D", "2H"]), 2, duel_tie="bounce")
    game.play(play("7C"))
    game.play(play("7D"))
    assert game.out_of_play == cards("7C", "7D")
    assert game.table == []
    assert all(not coll for coll in game.collections)
    assert (game.leader, game.follower, game.to_move) == (1, 2, 1)
    assert c("2D") in game.hands[0]  # drawn right after the play (after_play)
    assert c("2H") in game.hands[1]
    for seat in range(3):  # the bounced cards are public
        assert not cards("7C", "7D") & game.knowledge(seat)["unknown"]
    check_invariants(game)
    check_knowledge(game)


def test_duel_bounce_after_trick_refills_from_the_follower() -> None:
    """With ``draw="after_trick"`` a bounce is a decided trick: refills start with the follower."""
    hands = [["7C", "9H", "JS"], ["7D", "4S", "3H"], ["5C", "6C", "8C"]]
    deck = rigged_deck(3, 2, hands, ["2D", "2H", "2S"])
    game = ModelGame(3, deck, 2, duel_tie="bounce", draw="after_trick")
    game.play(play("7C"))
    assert len(game.hands[0]) == 2  # nobody draws during a trick
    game.play(play("7D"))
    assert c("2D") in game.hands[1]  # the follower, who leads next, refills first
    assert c("2H") in game.hands[0]
    assert game.stock[0] == c("2S")
    assert game.to_move == 1
    check_invariants(game)
    check_knowledge(game)


def test_after_trick_refills_from_the_winner() -> None:
    """docs/rules.md §3.9: nobody draws during a duel; then every seat refills from the next leader
    on."""
    hands = [["7C", "9H", "JS"], ["KD", "4S", "3H"], ["5C", "6C", "8C"]]
    deck = rigged_deck(3, 2, hands, ["2D", "2H", "2S"])
    game = ModelGame(3, deck, 2, draw="after_trick")
    game.play(play("7C"))
    assert game.stock[0] == c("2D")
    assert len(game.hands[0]) == 2
    game.play(play("KD"))
    assert game.collections[1] == cards("7C", "KD")
    assert game.hands[1] == cards("4S", "3H", "2D")  # the winner first
    assert game.hands[0] == cards("9H", "JS", "2H")  # seat 2 is full, then seat 0
    assert game.stock[0] == c("2S")
    assert (game.leader, game.to_move) == (1, 1)
    check_invariants(game)
    check_knowledge(game)


def test_empty_hand_in_a_replay_refills_first() -> None:
    """docs/rules.md §3.10: a tied player due to replay with an empty hand refills from the stock
    first."""
    hands = [["7C", "8C", "9C"], ["7D", "8D", "9D"], ["5S", "6S", "10S"]]
    deck = rigged_deck(3, 2, hands, ["2D", "3D", "4D", "2H", "3H", "4H"])
    game = ModelGame(3, deck, 2, draw="after_trick")
    for first, second in [("7C", "7D"), ("8C", "8D"), ("9C", "9D")]:
        game.play(play(first))
        game.play(play(second))
    assert len(game.table) == 6  # three tied pairs
    assert game.to_move == 0
    assert game.hands[0] == cards("2D", "3D", "4D")  # refilled to hand_size before playing
    assert game.hands[1] == set()
    game.play(play("4D"))
    assert game.to_move == 1
    assert game.hands[1] == cards("2H", "3H", "4H")
    game.play(play("2H"))
    assert game.collections[0] == cards("7C", "7D", "8C", "8D", "9C", "9D", "4D", "2H")
    # The trick is decided: every seat refills from the winner (seat 0) on.
    assert [len(h) for h in game.hands] == [3, 3, 3]
    check_invariants(game)
    check_knowledge(game)


def test_multi_card_plays_have_no_effect_in_duels() -> None:
    """``multi_card_plays`` only acts under ``trick_mode="all"``."""
    hands = [["7C", "7D", "2S"], ["8H", "4H", "3H"], ["3C", "5C", "6C"]]
    game = ModelGame(3, rigged_deck(3, 2, hands), 2, multi_card_plays=True)
    assert game.legal_moves() == [play("7C"), play("7D"), play("2S"), FLIP_MOVE]


# ---------------------------------------------------------------- phase 1, everyone plays


def all_tie_game(all_tie: str) -> ModelGame:
    """Four players, dealer 1 (seat 2 leads); seats 3 and 1 tie with nines."""
    hands = [
        ["5H", "6H", "7H"],
        ["9S", "QS", "10S"],
        ["4C", "3C", "8C"],
        ["9D", "2D", "3D"],
    ]
    deck = rigged_deck(4, 1, hands)
    game = ModelGame(
        4, deck, 1, trick_mode="all", all_tie=all_tie, slough=False, draw="after_trick"
    )
    assert game.round_order == [2, 3, 0, 1]
    for seat, name in [(2, "4C"), (3, "9D"), (0, "5H"), (1, "9S")]:
        assert game.to_move == seat
        game.play(play(name))
    # Only the tied players replay, starting with the one who played first (seat 3).
    assert game.round_order == [3, 1]
    assert game.to_move == 3
    return game


def test_all_tie_pot() -> None:
    """docs/rules.md §4.3 POT: a replayed tie keeps every card on the table for the final winner."""
    game = all_tie_game("pot")
    assert table_cards(game) == [c(x) for x in ("4C", "9D", "5H", "9S")]
    assert game.out_of_play == set()
    game.play(play("2D"))
    assert game.to_move == 1
    game.play(play("QS"))
    assert game.collections[1] == cards("4C", "9D", "5H", "9S", "2D", "QS")
    assert game.to_move == 1
    assert game.round_order == [1, 2, 3, 0]
    assert [len(h) for h in game.hands] == [3, 3, 3, 3]  # refilled from the winner on
    check_invariants(game)
    check_knowledge(game)


def test_all_tie_lower_out() -> None:
    """docs/rules.md §4.3 LOWER_OUT: when the tie is replayed the others' cards go out of play."""
    game = all_tie_game("lower_out")
    assert game.table == [(3, c("9D")), (1, c("9S"))]
    assert game.out_of_play == cards("4C", "5H")
    for seat in range(4):
        assert not cards("4C", "5H") & game.knowledge(seat)["unknown"]
    game.play(play("2D"))
    game.play(play("QS"))
    assert game.collections[1] == cards("9D", "9S", "2D", "QS")
    check_invariants(game)
    check_knowledge(game)


def test_slough_window() -> None:
    """docs/rules.md §4.4: after the winner is known, seats from his left throw cards of the
    trick's ranks.

    Seat 0 may throw and passes, seat 1 holds no such rank and is skipped, the
    winner throws last; the winner then collects everything.  With
    ``draw="after_trick"`` the refills follow the window, from the winner on.
    """
    hands = [["9C", "5S", "9S"], ["5D", "2D", "3D"], ["KH", "KC", "4H"]]
    deck = rigged_deck(3, 2, hands, ["2C", "3C", "4C", "6C"])
    game = ModelGame(3, deck, 2, trick_mode="all", draw="after_trick")
    game.play(play("9C"))
    game.play(play("5D"))
    game.play(play("KH"))  # seat 2 wins
    assert game.in_window
    assert game.window == [0, 1, 2]
    assert game.to_move == 0
    assert game.legal_moves() == [slough("5S"), slough("9S"), slough("5S", "9S"), PASS_MOVE]
    game.play(PASS_MOVE)
    assert game.to_move == 2  # seat 1 was skipped
    assert game.legal_moves() == [slough("KC"), PASS_MOVE]
    check_invariants(game)
    check_knowledge(game)
    game.play(slough("KC"))
    assert not game.in_window
    assert game.collections[2] == cards("9C", "5D", "KH", "KC")
    assert game.hands[2] == cards("4H", "2C", "3C")
    assert game.hands[0] == cards("5S", "9S", "4C")
    assert game.hands[1] == cards("2D", "3D", "6C")
    assert game.to_move == 2
    assert game.moves_played == 5  # plays, the pass and the slough all count
    check_invariants(game)
    check_knowledge(game)


def test_slough_after_play_refills_at_once_and_moves_count() -> None:
    """With ``draw="after_play"`` a slougher refills right away; a pass counts toward the cap."""
    hands = [["9C", "5S", "9S"], ["5D", "2D", "3D"], ["KH", "KC", "4H"]]
    deck = rigged_deck(3, 2, hands, ["2C", "3C", "4C", "6C", "7C", "8C"])
    game = ModelGame(3, deck, 2, trick_mode="all")
    game.play(play("9C"))  # draws 2C
    game.play(play("5D"))  # draws 3C
    game.play(play("KH"))  # draws 4C
    game.play(slough("5S", "9S"))
    assert game.hands[0] == cards("2C", "6C", "7C")
    assert game.to_move == 2
    capped = ModelGame(3, deck, 2, trick_mode="all", max_moves=4)
    for move in (play("9C"), play("5D"), play("KH"), PASS_MOVE):
        capped.play(move)
    assert capped.result == (None, (), True)


def test_no_window_when_nobody_can_slough() -> None:
    """Without a card of the trick's ranks anywhere there is no window."""
    hands = [["9C", "2S", "3S"], ["5D", "2D", "3D"], ["KH", "4C", "4H"]]
    game = ModelGame(3, rigged_deck(3, 2, hands, ["6C", "7C", "8C"]), 2, trick_mode="all")
    for name in ("9C", "5D", "KH"):
        game.play(play(name))
    assert not game.in_window
    assert game.collections[2] == cards("9C", "5D", "KH")
    assert game.to_move == 2
    no_slough = ModelGame(3, rigged_deck(3, 2, hands), 2, trick_mode="all", slough=False)
    for name in ("9C", "5D", "KH"):
        no_slough.play(play(name))
    assert no_slough.to_move == 2


def test_multi_card_plays() -> None:
    """docs/rules.md §4.2: two or more equal cards are one play of their rank; moves ordered by
    mask."""
    hands = [["7C", "7D", "2S"], ["8H", "4H", "3H"], ["3C", "5C", "6C"]]
    deck = rigged_deck(3, 2, hands, ["2D", "2H", "9S"])
    game = ModelGame(3, deck, 2, trick_mode="all", multi_card_plays=True, slough=False)
    assert game.legal_moves() == [
        play("7C"),
        play("7D"),
        play("7C", "7D"),
        play("2S"),
        FLIP_MOVE,
    ]
    game.play(play("7D", "7C"))
    assert game.table == [(0, c("7C")), (0, c("7D"))]
    assert game.hands[0] == cards("2S", "2D", "2H")  # two cards drawn
    assert game.table_plays() == [(0, (c("7C"), c("7D")))]
    assert game.legal_moves() == [play("3H"), play("4H"), play("8H"), FLIP_MOVE]
    game.play(play("8H"))  # one eight beats the pair of sevens
    game.play(play("3C"))
    assert game.collections[1] == cards("7C", "7D", "8H", "3C")
    assert game.to_move == 1
    check_invariants(game)
    check_knowledge(game)


def test_multi_card_play_ties_with_a_single_card() -> None:
    """A pair of sevens ties with one seven: the play's rank is what counts."""
    hands = [["7C", "7D", "2S"], ["7H", "4H", "3H"], ["3C", "5C", "6C"]]
    game = ModelGame(
        3, rigged_deck(3, 2, hands), 2, trick_mode="all", multi_card_plays=True, slough=False
    )
    game.play(play("7C", "7D"))
    game.play(play("7H"))
    game.play(play("3C"))
    assert game.round_order == [0, 1]
    assert game.to_move == 0


# ---------------------------------------------------------------- try your luck


def test_try_your_luck_needs_two_stock_cards_counting_the_upcard() -> None:
    """docs/rules.md §3.3: flipping needs two stock cards; the up-card at the bottom is one of
    them."""
    game = ModelGame(2, deck_from_seed(11), 1, trump="upcard")
    lowest_until(game, lambda g: len(g.stock) == 2)
    assert game.stock[-1] == game.upcard
    assert FLIP_MOVE in game.legal_moves()
    game.play(game.legal_moves()[0])  # a hand card: one card drawn
    assert game.stock == [game.upcard]
    assert game.phase == COLLECTING
    assert FLIP_MOVE not in game.legal_moves()
    with pytest.raises(ValueError, match="illegal move"):
        game.play(FLIP_MOVE)


def test_try_your_luck_off() -> None:
    """``try_your_luck=False``: no flip, in duels and when everyone plays."""
    for mode in ("duel", "all"):
        game = ModelGame(3, deck_from_seed(2), 2, trick_mode=mode, try_your_luck=False)
        assert all(kind == "play" for kind, _ in game.legal_moves())


def test_flip_in_all_mode_is_a_single_card_play() -> None:
    """Under ``"all"`` a flipped card is the player's play for the round."""
    hands = [["7C", "9H", "JS"], ["KD", "4S", "3H"], ["5C", "6C", "8C"]]
    game = ModelGame(3, rigged_deck(3, 2, hands, ["AS", "2D"]), 2, trick_mode="all", slough=False)
    game.play(FLIP_MOVE)
    assert game.table == [(0, c("AS"))]
    game.play(play("KD"))
    game.play(play("5C"))
    assert game.collections[0] == cards("AS", "KD", "5C")


# ---------------------------------------------------------------- the last card


def test_revealed_last_card_ends_phase1_and_takes_back_the_trick() -> None:
    """docs/rules.md §3.8 REVEAL: the drawer shows the last card, takes it; phase 1 ends;
    the trick is taken back.

    Three players, classic duels otherwise: at one stock card the leader of a
    trick plays, draws the last card and reveals it; his card goes back.
    """
    deck = deck_from_seed(4)
    game = ModelGame(3, deck, 2, last_card="reveal")
    lowest_until(game, lambda g: len(g.stock) == 1)
    assert game.phase == COLLECTING
    drawer = game.to_move
    assert drawer == game.leader
    pending = [*game.table]
    move = game.legal_moves()[0]
    game.play(move)
    (card,) = move[1]
    assert game.phase in (SHEDDING, OVER)
    assert game.last_drawer == drawer
    assert game.hidden_card is None
    assert deck[51] in game.hands[drawer]
    assert game.trump == suit(deck[51])
    assert game.trump_public
    taken = [(e.seat, e.cards[0]) for e in game.log if e.kind == "take_back"]
    assert taken == [*pending, (drawer, card)]
    for seat in range(3):
        info = game.knowledge(seat)
        assert deck[51] in info["known"][drawer]
        assert card in info["known"][drawer]
    if game.phase == SHEDDING:
        assert game.to_move == drawer
    check_invariants(game)
    check_knowledge(game)


def test_revealed_last_card_after_a_decided_trick() -> None:
    """**Model choice**: the follower's play decides the duel before his refill reveals the card.

    Two players: the follower draws the last card with the play that completes
    the duel; the trick has a winner, so the winner collects and nothing is
    taken back.
    """
    found = 0
    for seed in range(40):
        game = ModelGame(2, deck_from_seed(seed), 1, last_card="reveal")
        lowest_until(game, lambda g: len(g.stock) == 1)
        assert game.to_move == game.follower
        lead = game.table[-1][1]
        move = game.legal_moves()[0]
        (card,) = move[1]
        if rank(card) == rank(lead):
            continue
        winner = game.leader if rank(lead) > rank(card) else game.follower
        game.play(move)
        assert game.phase in (SHEDDING, OVER)
        assert not [e for e in game.log if e.kind == "take_back"]
        wins = [e for e in game.log if e.kind == "win"]
        assert wins[-1].seat == winner
        assert {lead, card} <= set(wins[-1].cards)
        check_invariants(game)
        check_knowledge(game)
        found += 1
    assert found > 20


def test_revealed_last_card_on_a_tie_takes_everything_back() -> None:
    """**Model choice**: a tie found by the play whose refill reveals the last card is no replay.

    Phase 1 ends at once and the trick is unfinished: every card on the table,
    the non-tied ones included, goes back to whoever played it, even under
    ``LOWER_OUT`` (whose cards go out of play only when a replay begins).
    """
    found = 0
    for seed in range(100):
        game = ModelGame(
            4,
            deck_from_seed(seed),
            3,
            trick_mode="all",
            all_tie="lower_out",
            last_card="reveal",
            slough=False,
        )
        chooser = random.Random(seed)
        while game.phase == COLLECTING and len(game.stock) > 1:
            moves = game.legal_moves()
            game.play(moves[chooser.randrange(len(moves))])
        seat = game.to_move
        if game.phase != COLLECTING or seat != game.round_order[-1] or len(game.table) != 3:
            continue
        best = max(rank(card) for _, card in game.table)
        tie = [card for card in sorted(game.hands[seat]) if rank(card) == best]
        if not tie:
            continue
        pending = [*game.table, (seat, tie[0])]
        gone = set(game.out_of_play)
        game.play(play_cards(tie[0]))
        assert game.phase in (SHEDDING, OVER)
        assert game.out_of_play == gone
        assert [(e.seat, e.cards[0]) for e in game.log if e.kind == "take_back"] == pending
        check_invariants(game)
        check_knowledge(game)
        found += 1
    assert found >= 3


def test_upcard_trump_and_phase1_tricks() -> None:
    """docs/rules.md §5.1 UPCARD: the up-card lies face up under the stock; trump wins, else suit
    led."""
    hands = [["AC", "KD", "5S"], ["3H", "4C", "AS"]]
    deck = rigged_deck(2, 1, hands, upcard="2H")
    game = ModelGame(2, deck, 1, trump="upcard")
    assert game.upcard == c("2H")
    assert game.stock[-1] == c("2H")
    assert game.trump == HEARTS
    assert game.trump_public
    for seat in range(2):
        info = game.knowledge(seat)
        assert c("2H") not in info["unknown"]  # public, and placed in the stock
        assert info["slots"]["stock"] == len(game.stock) - 1
    check_knowledge(game)
    game.play(play("AC"))
    game.play(play("3H"))  # the only trump wins
    assert c("AC") in game.collections[1]
    assert game.to_move == 1
    game.play(play("4C"))
    game.play(play("KD"))  # neither trump nor the suit led: the four of clubs wins
    assert game.collections[1] == cards("AC", "3H", "4C", "KD")
    check_invariants(game)
    check_knowledge(game)


def test_upcard_in_all_mode() -> None:
    """Under ``"all"`` too: the highest trump, else the highest card of the suit led."""
    hands = [["5D", "5C", "7S"], ["AD", "3S", "4S"], ["KS", "2C", "3C"]]
    deck = rigged_deck(3, 2, hands, upcard="2H")
    game = ModelGame(3, deck, 2, trick_mode="all", trump="upcard", slough=False)
    for name in ("5D", "AD", "KS"):
        game.play(play(name))
    assert game.collections[1] == cards("5D", "AD", "KS")  # the king of spades is off-suit
    assert game.to_move == 1
    hands = [["5D", "5C", "7S"], ["AD", "3S", "4S"], ["2H", "2C", "3C"]]
    deck = rigged_deck(3, 2, hands, upcard="9H")
    game = ModelGame(3, deck, 2, trick_mode="all", trump="upcard", slough=False)
    for name in ("5D", "AD", "2H"):
        game.play(play(name))
    assert game.collections[2] == cards("5D", "AD", "2H")  # the lowest trump beats the ace
    assert game.to_move == 2


def test_upcard_drawn_in_view_of_all() -> None:
    """The drawer takes the up-card into his hand publicly; with REVEAL phase 1 ends at once."""
    for last_card in ("hidden", "reveal"):
        game = ModelGame(3, deck_from_seed(9), 2, trump="upcard", last_card=last_card)
        up = game.upcard
        assert up is not None
        lowest_until(game, lambda g: len(g.stock) == 1)
        drawer = game.to_move
        assert drawer is not None
        game.play(game.legal_moves()[0])
        assert game.last_drawer == drawer
        assert game.hidden_card is None
        if last_card == "hidden":
            assert game.phase == COLLECTING
            assert up in game.hands[drawer]
        else:
            assert game.phase in (SHEDDING, OVER)
        for seat in range(3):
            assert up in game.knowledge(seat)["known"][drawer]
        check_invariants(game)
        check_knowledge(game)


def test_no_trump_hidden_last_card() -> None:
    """``trump="none"`` with a hidden last card: it still lies face down but sets no trump."""
    game = ModelGame(3, deck_from_seed(21), 2, trump="none")
    lowest_until(game, lambda g: not g.stock)
    assert game.hidden_card is not None
    assert game.trump is None
    lowest_until(game, lambda g: False)
    assert game.trump is None
    assert game.hidden_card is None
    nt = ModelGame.from_shedding(2, [cards("5C", "9D"), cards("2H", "3H")], None, 0)
    nt.play(play("5C"))
    assert nt.legal_moves() == [PICK_UP_MOVE]  # no trump beats a club


# ---------------------------------------------------------------- between the phases


def at_end_of_phase1(
    players: int,
    dealer: int,
    holdings: Sequence[set[int]],
    last_drawer: int,
    **variants: VariantValue,
) -> ModelGame:
    """Return a game whose phase 1 just ended with ``holdings[seat]`` collected by each seat.

    The position is set up by hand (the other cards out of play) and phase 1 is
    then ended by the model, so the transition of docs/rules.md §5 runs on it.
    """
    game = ModelGame(players, deck_from_seed(0), dealer, **variants)
    game.stock = []
    game.hands = [set() for _ in range(players)]
    game.collections = [set(h) for h in holdings]
    game.out_of_play = set(ALL_CARDS - set().union(*holdings))
    game.last_drawer = last_drawer
    game._end_collecting()
    return game


def test_low_card_redistribution() -> None:
    """docs/rules.md §5.4: short players receive the others' 2-5s, lowest first, from the dealer's
    left."""
    holdings = [
        cards("AC", "KC"),  # short
        cards("2D", "3C", "5H", "9S", "10S", "JS"),
        cards("AD"),  # short
        cards("4S", "2C", "QD", "QH", "QS"),  # five cards: not short with a threshold of 5
    ]
    game = at_end_of_phase1(4, 3, holdings, last_drawer=1, low_card_threshold=5)
    assert game.hands == [
        cards("AC", "KC", "2C", "3C", "5H"),
        cards("9S", "10S", "JS"),
        cards("AD", "2D", "4S"),
        cards("QD", "QH", "QS"),
    ]
    gives = [(e.seat, e.cards, e.receiver, e.visibility) for e in game.log if e.kind == "give"]
    assert gives == [
        (3, (c("2C"),), 0, "public"),
        (1, (c("2D"),), 2, "public"),
        (1, (c("3C"),), 0, "public"),
        (3, (c("4S"),), 2, "public"),
        (1, (c("5H"),), 0, "public"),
    ]
    assert game.to_move == 1
    plain = at_end_of_phase1(4, 3, holdings, last_drawer=1)
    assert plain.hands == holdings
    high = at_end_of_phase1(4, 3, holdings, last_drawer=1, low_card_threshold=1)
    assert high.hands == holdings  # nobody is short


def test_low_cards_can_end_the_game() -> None:
    """A holder stripped of all his cards is out; the game may end right there."""
    game = at_end_of_phase1(2, 1, [cards("AC"), cards("2S", "3S", "4S")], 1, low_card_threshold=3)
    assert game.hands == [cards("AC", "2S", "3S", "4S"), set()]
    assert game.result == (0, (1,), False)
    three = at_end_of_phase1(
        3,
        2,
        [cards("AC"), cards("2S", "3S", "4S"), cards("KD", "KH", "KS")],
        1,
        low_card_threshold=3,
    )
    assert three.finish_order == [1]
    assert three.to_move == 2  # the last drawer is out: his next player leads


# ---------------------------------------------------------------- phase 2


def test_run_played_and_picked_up_top_run() -> None:
    """docs/rules.md §6.2, §6.3: a run beats with its lowest card; TOP_RUN takes the unbroken
    sequence."""
    hands = [cards("5H", "2C"), cards("7H", "8H", "9H", "3C"), cards("4D", "6C")]
    game = ModelGame.from_shedding(3, hands, SPADES, 0, runs=True, pickup="top_run")
    assert game.legal_moves() == [play("2C"), play("5H")]
    game.play(play("5H"))
    assert game.legal_moves() == [
        play("7H"),
        play("8H"),
        play("7H", "8H"),
        play("9H"),
        play("8H", "9H"),
        play("7H", "8H", "9H"),
        PICK_UP_MOVE,
    ]
    game.play(play("7H", "8H", "9H"))
    assert table_cards(game) == [c(x) for x in ("5H", "7H", "8H", "9H")]
    assert game.table_plays() == [(0, (c("5H"),)), (1, (c("7H"), c("8H"), c("9H")))]
    assert game.to_move == 2  # two plays of three: the trick goes on
    game.play(PICK_UP_MOVE)
    assert game.hands[2] == cards("4D", "6C", "7H", "8H", "9H")
    assert game.table == [(0, c("5H"))]
    assert game.to_move == 0
    for seat in range(3):
        assert cards("7H", "8H", "9H") <= game.knowledge(seat)["known"][2]
    check_invariants(game)
    check_knowledge(game)


def test_top_pick_up_leaves_the_rest_of_a_run() -> None:
    """TOP takes only the top card of a run; what is left of it still counts as one play."""
    hands = [cards("5H", "2C", "JH"), cards("7H", "8H", "9H", "3C"), cards("4D", "10H", "6C")]
    game = ModelGame.from_shedding(3, hands, SPADES, 0, runs=True)
    game.play(play("5H"))
    game.play(play("7H", "8H", "9H"))
    game.play(PICK_UP_MOVE)  # allowed although 10H would beat
    assert c("9H") in game.hands[2]
    assert game.table_plays() == [(0, (c("5H"),)), (1, (c("7H"), c("8H")))]
    assert game.to_move == 0
    game.play(play("JH"))  # the third play on the table: the trick is complete
    assert game.table == []
    assert game.out_of_play >= cards("5H", "7H", "8H", "JH")
    assert (game.leader, game.to_move) == (0, 0)
    check_invariants(game)
    check_knowledge(game)


def test_pile_pick_up() -> None:
    """docs/rules.md §6.3 PILE: the whole table is taken, which ends the trick; the picker's next
    leads."""
    hands = [cards("5C", "2D"), cards("9C", "3D"), cards("4H", "6H")]
    game = ModelGame.from_shedding(3, hands, SPADES, 0, pickup="pile")
    game.play(play("5C"))
    game.play(play("9C"))
    game.play(PICK_UP_MOVE)
    assert game.hands[2] == cards("4H", "6H", "5C", "9C")
    assert game.table == []
    assert (game.leader, game.to_move) == (0, 0)
    check_invariants(game)
    check_knowledge(game)


def test_rotation_ends_with_a_card_on_top() -> None:
    """docs/rules.md §6.5 ROTATION: after one turn each, the table goes; the owner of the top play
    leads."""
    hands = [cards("5C", "2D"), cards("9C", "3D"), cards("4H", "6H")]
    game = ModelGame.from_shedding(3, hands, SPADES, 0, trick_end="rotation")
    game.play(play("5C"))
    game.play(play("9C"))
    game.play(PICK_UP_MOVE)  # the third turn
    assert game.table == []
    assert c("5C") in game.out_of_play
    assert c("9C") in game.hands[2]
    assert (game.leader, game.to_move) == (0, 0)
    counted = ModelGame.from_shedding(3, hands, SPADES, 0)  # under COUNT the trick goes on
    for move in (play("5C"), play("9C"), PICK_UP_MOVE):
        counted.play(move)
    assert counted.table == [(0, c("5C"))]
    assert counted.to_move == 0
    check_invariants(game)
    check_knowledge(game)


def test_rotation_ends_with_an_empty_table() -> None:
    """A pick-up that empties the table ends the trick at once; the picker's next player leads."""
    hands = [cards("5C", "2D"), cards("9C", "3D"), cards("4H", "6H")]
    game = ModelGame.from_shedding(3, hands, SPADES, 0, trick_end="rotation")
    game.play(play("5C"))
    game.play(PICK_UP_MOVE)
    assert game.table == []
    assert c("5C") in game.hands[1]
    assert c("5C") not in game.out_of_play
    assert (game.leader, game.to_move) == (2, 2)
    check_invariants(game)


def test_rotation_top_owner_out() -> None:
    """The owner of the top play is out: his next player leads."""
    hands = [cards("5C", "2D"), cards("9C"), cards("JC", "3H"), cards("4H", "6H")]
    game = ModelGame.from_shedding(4, hands, SPADES, 0, trick_end="rotation")
    game.play(play("5C"))
    game.play(play("9C"))  # seat 1 goes out
    game.play(play("JC"))
    game.play(PICK_UP_MOVE)  # the fourth turn: 9C of seat 1 is on top
    assert game.finish_order == [1]
    assert game.table == []
    assert cards("5C", "9C") <= game.out_of_play
    assert (game.leader, game.to_move) == (2, 2)
    check_invariants(game)
    check_knowledge(game)


# ---------------------------------------------------------------- random games


STRING_VALUES: dict[str, tuple[str, ...]] = {
    "trick_mode": ("duel", "all"),
    "duel_tie": ("replay", "bounce"),
    "all_tie": ("pot", "lower_out"),
    "draw": ("after_play", "after_trick"),
    "last_card": ("hidden", "reveal"),
    "trump": ("last_card", "none", "upcard"),
    "pickup": ("top", "top_run", "pile"),
    "trick_end": ("count", "rotation"),
}


def random_variants(chooser: random.Random) -> dict[str, VariantValue]:
    """Draw every variant field at random (never the refused upcard + multi-card combination)."""
    variants: dict[str, VariantValue] = {
        name: chooser.choice(values) for name, values in STRING_VALUES.items()
    }
    for name in ("multi_card_plays", "slough", "try_your_luck", "runs"):
        variants[name] = chooser.random() < 0.5
    variants["low_card_threshold"] = chooser.choice([None, chooser.randint(1, 13)])
    if variants["trump"] == "upcard":
        variants["multi_card_plays"] = False
    assert set(variants) == set(VARIANT_FIELDS)
    return variants


@pytest.mark.slow
def test_random_variant_games() -> None:
    """600 random games over random configurations: invariants and knowledge after every move.

    Every game ends (the cap of 3000 moves is never needed in practice), and
    every rule of interest is seen at work at least once.
    """
    seen: dict[str, int] = {}

    def count(what: str) -> None:
        seen[what] = seen.get(what, 0) + 1

    truncated = 0
    for index in range(600):
        chooser = random.Random(index)
        players = 2 + index % 3
        variants = random_variants(chooser)
        rng = Xoshiro256(index)
        game = ModelGame(
            players,
            shuffle(rng),
            dealer=chooser.randrange(players),
            hand_size=chooser.choice([3, 5]),
            max_moves=3000,
            **variants,
        )
        public = PublicCards(game)
        check_invariants(game)
        check_knowledge(game, public.cards)
        while game.phase != OVER:
            moves = game.legal_moves()
            move = moves[rng.below(len(moves))]
            before = len(game.log)
            phase = game.phase
            public.before(game)
            game.play(move)
            check_invariants(game)
            check_knowledge(game, public.after(game, move))
            kinds = {e.kind for e in game.log[before:]}
            count(move[0])
            if move[0] == "play" and len(move[1]) > 1:
                count("run" if phase == SHEDDING else "multi")
            for kind in kinds:
                count(kind)
            if phase == COLLECTING and game.phase != COLLECTING:
                count("phase1_" + ("taken_back" if "take_back" in kinds else "clean"))
                if move[0] == "slough":
                    count("revealed_in_window")
                    assert "take_back" not in kinds
        truncated += game.truncated
    assert truncated <= 3
    for what in (
        "slough",
        "pass",
        "flip",
        "pick_up",
        "multi",
        "run",
        "give",
        "discard",
        "draw_upcard",
        "hide",
        "reveal",
        "take_back",
        "phase1_clean",
        "phase1_taken_back",
        "revealed_in_window",
    ):
        assert seen.get(what, 0) > 0, (what, seen)


def test_random_game_with_variants_matches_play_random() -> None:
    """``random_game`` and ``play_random`` agree, variants passed through."""
    variants: dict[str, VariantValue] = {
        "trick_mode": "all",
        "all_tie": "lower_out",
        "draw": "after_trick",
        "last_card": "reveal",
        "runs": True,
        "pickup": "top_run",
        "trick_end": "rotation",
        "try_your_luck": False,
    }
    for players in (2, 3, 4):
        for seed in range(5):
            game = random_game(players, seed, 3, 10_000, **variants)
            result = game.result
            assert result is not None
            loser, _, truncated = result
            no_loser = loser is None and not truncated
            expected = (loser, game.moves_played, truncated, no_loser)
            assert play_random(players, seed, 3, 10_000, **variants) == expected
