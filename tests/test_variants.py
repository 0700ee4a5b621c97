"""Scenario tests: one readable position per rule variant of docs/rules.md §3–§6 and §9.

Every position is built by hand, as in ``tests/test_scenarios.py``: :func:`dealt`
builds the deck that deals given hands (docs/rules.md §2), :func:`burn_deck` and
:func:`flip_pairs` run the stock down to its last cards, and
:meth:`Game.from_shedding` sets up phase-2 positions. Every expected value below
is worked out from docs/rules.md, its rules and the decisions marked **Decision**,
not read off the engine.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable, Sequence

import pytest

from skitgubbe import (
    AllTie,
    Card,
    CardSet,
    Draw,
    DuelTie,
    Event,
    EventKind,
    Game,
    IllegalMoveError,
    LastCard,
    Move,
    MoveKind,
    Phase,
    Pickup,
    Rules,
    Suit,
    TablePlay,
    TrickEnd,
    TrickMode,
    TrumpRule,
    play_game,
)
from skitgubbe.bots import RandomBot
from skitgubbe.game.cards import ALL_CARDS
from tests.positions import (
    brief,
    burn_deck,
    cards,
    cs,
    dealt,
    ev,
    flip_pairs,
    leader_wins_pairs,
    phase,
    play,
    table,
)

# ---------------------------------------------------------------------------
# Building positions (the small helpers of tests/test_scenarios.py)
# ---------------------------------------------------------------------------


def leader_wins_triples(pool: Iterable[str]) -> list[str]:
    """``pool`` ordered as triples whose first card outranks the other two: three
    players turning them in turn see the leader win every round (docs/rules.md §4.3)."""
    ordered = sorted((Card.parse(c) for c in pool), key=lambda c: c.rank, reverse=True)
    assert len(ordered) % 3 == 0
    third = len(ordered) // 3
    high, low = ordered[:third], ordered[third:]
    out: list[str] = []
    for i, h in enumerate(high):
        others = low[2 * i : 2 * i + 2]
        assert all(h.rank > o.rank for o in others)
        out += [str(h), *(str(o) for o in others)]
    return out


def upcard_burn_deck(hands: Sequence[str], upcard: str) -> list[str]:
    """``trump=UPCARD``: a deck dealing ``hands``, turning ``upcard`` up (it is
    the card after the deal, docs/rules.md §2) and then every other card in pairs the
    leader wins under up-card trump."""
    up = Card.parse(upcard)
    used = set(cards(" ".join(hands) + " " + upcard))
    rest = [str(card) for card in ALL_CARDS if str(card) not in used]
    return dealt(hands, " ".join([upcard, *leader_wins_pairs(rest, up.suit)]))


def flip_rounds(game: Game, rounds: int) -> None:
    """``trick_mode=ALL``: every player tries his luck, ``rounds`` times; with
    :func:`leader_wins_triples` the leader wins every round and no hand changes."""
    for _ in range(rounds):
        leader = game.to_move
        hands = game.hands
        for _ in range(game.players - 1):
            assert [e.kind for e in game.play(Move.flip())] == [EventKind.FLIP]
        events = game.play(Move.flip())
        assert [e.kind for e in events] == [EventKind.FLIP, EventKind.TRICK_WON]
        assert events[-1].seat == leader
        assert game.hands == hands
        assert game.to_move == leader


def stock(game: Game) -> tuple[Card, ...]:
    """The game's stock (a call, for the same reason)."""
    return game.stock


def ordered(*texts: str) -> tuple[Move, ...]:
    """The moves of ``texts`` in the order ``Game.legal_moves`` lists them:
    ascending move code (plays by ascending card mask, then flip, pick up,
    sloughs by ascending mask, pass)."""
    return tuple(sorted((Move.parse(text) for text in texts), key=lambda m: m.code))


def only(events: Sequence[Event], kind: EventKind) -> Event:
    """The one event of ``kind`` among ``events``."""
    (found,) = [e for e in events if e.kind is kind]
    return found


# ---------------------------------------------------------------------------
# §3.6 duel_tie=BOUNCE
# ---------------------------------------------------------------------------

BOUNCE_HANDS = ["7H 2S 3S", "7C KD AD", "4S 5S 6S"]


def test_bounce_tied_cards_go_out_of_play_and_the_follower_leads() -> None:
    rules = Rules.classic(3, duel_tie="bounce")
    game = Game.new(rules, deck=dealt(BOUNCE_HANDS, "8C 9C 10C JC"))
    assert play(game, "7H") == [ev(EventKind.PLAY, 0, "7H"), ev(EventKind.DRAW, 0, "8C")]
    events = game.play("7C")
    assert [e.kind for e in events] == [
        EventKind.PLAY,
        EventKind.DRAW,
        EventKind.TIE,
        EventKind.BOUNCE,
    ]
    assert brief(events)[:2] == [ev(EventKind.PLAY, 1, "7C"), ev(EventKind.DRAW, 1, "9C")]
    assert only(events, EventKind.TIE).seats == (0, 1)
    assert only(events, EventKind.TIE).cards == cs("7H 7C")
    assert only(events, EventKind.BOUNCE).cards == cs("7H 7C")
    # Both tied cards are out of play; nobody won anything.
    assert game.out_of_play == cs("7H 7C")
    assert table(game) == ()
    assert game.collections == (cs(), cs(), cs())
    assert game.hands == (cs("2S 3S 8C"), cs("KD AD 9C"), cs("4S 5S 6S"))
    assert game.phase is Phase.COLLECTING
    # The follower (seat 1) leads the next trick.
    assert game.to_move == 1
    assert game.legal_moves == ordered("9C", "KD", "AD", "flip")
    for seat in range(3):
        view = game.observation(seat)
        assert view.out_of_play == cs("7H 7C")
        assert view.unknown.isdisjoint(cs("7H 7C"))
    # ... against his left neighbour, seat 2 (not the old leader).
    assert play(game, "KD") == [ev(EventKind.PLAY, 1, "KD"), ev(EventKind.DRAW, 1, "10C")]
    assert game.to_move == 2
    assert play(game, "4S") == [
        ev(EventKind.PLAY, 2, "4S"),
        ev(EventKind.DRAW, 2, "JC"),
        ev(EventKind.TRICK_WON, 1, "KD 4S"),
    ]
    assert game.collections == (cs(), cs("KD 4S"), cs())
    assert game.to_move == 1


def test_bounce_with_draw_after_trick_refills_from_the_follower() -> None:
    rules = Rules.classic(3, duel_tie="bounce", draw="after_trick")
    game = Game.new(rules, deck=dealt(BOUNCE_HANDS, "8C 9C 10C JC"))
    assert play(game, "7H") == [ev(EventKind.PLAY, 0, "7H")]  # no draw during the trick
    assert game.hands[0] == cs("2S 3S")
    events = game.play("7C")
    # Refill after the bounce, starting with the follower (seat 1), clockwise:
    # seat 2 is full, then seat 0.
    assert brief(events) == [
        ev(EventKind.PLAY, 1, "7C"),
        ev(EventKind.TIE, events[1].seat, "7H 7C"),
        ev(EventKind.BOUNCE, None, "7H 7C"),
        ev(EventKind.DRAW, 1, "8C"),
        ev(EventKind.DRAW, 0, "9C"),
    ]
    assert game.hands == (cs("2S 3S 9C"), cs("KD AD 8C"), cs("4S 5S 6S"))
    assert game.stock[:2] == (Card.parse("10C"), Card.parse("JC"))
    assert game.out_of_play == cs("7H 7C")
    assert game.to_move == 1
    play(game, "AD")
    assert game.to_move == 2


# ---------------------------------------------------------------------------
# §4 trick_mode=ALL
# ---------------------------------------------------------------------------


def test_all_everyone_plays_once_clockwise_and_the_highest_rank_leads_next() -> None:
    rules = Rules.classic(4, trick_mode="all", slough=False)
    hands = ["9H 2S 3S", "KC 4D 6D", "10S 7C 8C", "5H 6H JD"]
    game = Game.new(rules, deck=dealt(hands, "2C 3C 4C 5C 6C 9C 10C QC"))
    assert game.to_move == 0
    assert game.legal_moves == ordered("9H", "2S", "3S", "flip")
    assert play(game, "9H") == [ev(EventKind.PLAY, 0, "9H"), ev(EventKind.DRAW, 0, "2C")]
    assert game.to_move == 1
    assert play(game, "KC") == [ev(EventKind.PLAY, 1, "KC"), ev(EventKind.DRAW, 1, "3C")]
    assert game.to_move == 2
    # Two cards on the table decide nothing: everyone plays.
    assert play(game, "10S") == [ev(EventKind.PLAY, 2, "10S"), ev(EventKind.DRAW, 2, "4C")]
    assert game.to_move == 3
    assert game.observation(3).legal_moves == game.legal_moves
    assert all(game.observation(s).legal_moves == () for s in (0, 1, 2))
    assert play(game, "JD") == [
        ev(EventKind.PLAY, 3, "JD"),
        ev(EventKind.DRAW, 3, "5C"),
        ev(EventKind.TRICK_WON, 1, "9H KC 10S JD"),
    ]
    assert game.collections == (cs(), cs("9H KC 10S JD"), cs(), cs())
    assert table(game) == ()
    # The winner leads; then seats 2, 3, 0.
    assert game.to_move == 1
    play(game, "4D")
    assert game.to_move == 2
    play(game, "8C")
    assert game.to_move == 3
    play(game, "5H")
    assert game.to_move == 0
    assert play(game, "3S") == [
        ev(EventKind.PLAY, 0, "3S"),
        ev(EventKind.DRAW, 0, "QC"),
        ev(EventKind.TRICK_WON, 2, "4D 8C 5H 3S"),
    ]
    assert game.to_move == 2
    assert game.hands == (cs("2S 2C QC"), cs("6D 3C 6C"), cs("7C 4C 9C"), cs("6H 5C 10C"))


# Dealer seat 0, so seat 1 leads; the stock is only drawn from (draw=AFTER_PLAY).
TIE_STOCK = "2C 2D 2H 2S 3C 3D 3S 4C 4H"


def test_all_tie_pot_only_the_tied_players_replay_from_the_first_tied() -> None:
    rules = Rules.classic(4, trick_mode="all", all_tie="pot", slough=False)
    hands = ["9S JD 8S", "5C 10C QC", "9H JC 3H", "4D 6D 7D"]
    game = Game.new(rules, deck=dealt(hands, TIE_STOCK, dealer=0), dealer=0)
    assert game.to_move == 1
    play(game, "5C")
    play(game, "9H")
    play(game, "4D")
    assert game.to_move == 0
    events = game.play("9S")
    # Seats 2 and 0 tie with nines; seat 2 played first in the round, so he
    # replays first (the leader, seat 1, is not tied).
    assert brief(events) == [
        ev(EventKind.PLAY, 0, "9S"),
        ev(EventKind.DRAW, 0, "2S"),
        ev(EventKind.TIE, 2, "9H 9S"),
    ]
    assert events[-1].seats == (0, 2)
    assert game.table == (
        TablePlay(1, cs("5C")),
        TablePlay(2, cs("9H")),
        TablePlay(3, cs("4D")),
        TablePlay(0, cs("9S")),
    )
    assert game.collections == (cs(), cs(), cs(), cs())
    assert game.out_of_play == cs()
    assert game.to_move == 2
    assert game.legal_moves == ordered("JC", "2D", "3H", "flip")
    assert play(game, "JC") == [ev(EventKind.PLAY, 2, "JC"), ev(EventKind.DRAW, 2, "3C")]
    assert game.to_move == 0  # seat 3 (and seat 1) did not tie: skipped
    events = game.play("JD")
    # Tied again: the same two replay, seat 2 first again.
    assert brief(events) == [
        ev(EventKind.PLAY, 0, "JD"),
        ev(EventKind.DRAW, 0, "3D"),
        ev(EventKind.TIE, 2, "JC JD"),
    ]
    assert events[-1].seats == (0, 2)
    assert game.to_move == 2
    play(game, "3H")
    assert game.to_move == 0
    assert play(game, "8S") == [
        ev(EventKind.PLAY, 0, "8S"),
        ev(EventKind.DRAW, 0, "4C"),
        ev(EventKind.TRICK_WON, 0, "5C 9H 4D 9S JC JD 3H 8S"),
    ]
    # POT: the final winner takes every card, the tied and the lower ones.
    assert game.collections == (cs("5C 9H 4D 9S JC JD 3H 8S"), cs(), cs(), cs())
    assert game.out_of_play == cs()
    assert table(game) == ()
    assert game.to_move == 0
    assert game.hands == (cs("2S 3D 4C"), cs("10C QC 2C"), cs("2D 3C 3S"), cs("6D 7D 2H"))
    play(game, "4C")
    assert game.to_move == 1


def test_all_tie_lower_out_and_a_three_way_tie_narrowing_to_two() -> None:
    rules = Rules.classic(4, trick_mode="all", all_tie="lower_out", slough=False)
    hands = ["9S JD 8S", "5C 10C QC", "9H JC 3H", "9D 4D 7D"]
    game = Game.new(rules, deck=dealt(hands, TIE_STOCK, dealer=0), dealer=0)
    play(game, "5C")
    play(game, "9H")
    play(game, "9D")
    events = game.play("9S")
    # Three nines: seats 2, 3, 0 replay, seat 2 first; the 5♣ of seat 1 (not
    # tied) goes out of play when the replay starts.
    assert brief(events) == [
        ev(EventKind.PLAY, 0, "9S"),
        ev(EventKind.DRAW, 0, "2S"),
        ev(EventKind.TIE, 2, "9H 9D 9S"),
        ev(EventKind.LOWER_OUT, None, "5C"),
    ]
    assert events[2].seats == (0, 2, 3)
    assert game.out_of_play == cs("5C")
    assert game.table == (
        TablePlay(2, cs("9H")),
        TablePlay(3, cs("9D")),
        TablePlay(0, cs("9S")),
    )
    assert all(game.observation(s).out_of_play == cs("5C") for s in range(4))
    assert game.to_move == 2
    play(game, "JC")
    assert game.to_move == 3
    play(game, "4D")
    assert game.to_move == 0
    events = game.play("JD")
    # Seats 2 and 0 tie again; seat 3 is no longer tied: all his cards (the
    # nine of the first round too) go out of play.
    assert brief(events) == [
        ev(EventKind.PLAY, 0, "JD"),
        ev(EventKind.DRAW, 0, "3S"),
        ev(EventKind.TIE, 2, "JC JD"),
        ev(EventKind.LOWER_OUT, None, "9D 4D"),
    ]
    assert events[2].seats == (0, 2)
    assert game.out_of_play == cs("5C 9D 4D")
    assert game.to_move == 2
    play(game, "3H")
    assert game.to_move == 0  # seat 3 is skipped now
    events = game.play("8S")
    assert brief(events) == [
        ev(EventKind.PLAY, 0, "8S"),
        ev(EventKind.DRAW, 0, "4H"),
        ev(EventKind.TRICK_WON, 0, "9H 9S JC JD 3H 8S"),
    ]
    assert game.collections == (cs("9H 9S JC JD 3H 8S"), cs(), cs(), cs())
    assert game.out_of_play == cs("5C 9D 4D")
    assert table(game) == ()
    assert game.to_move == 0


def test_all_tie_pot_keeps_the_cards_of_players_dropped_from_a_replay() -> None:
    rules = Rules.classic(4, trick_mode="all", all_tie="pot", slough=False)
    hands = ["9S JD 8S", "5C 10C QC", "9H JC 3H", "9D 4D 7D"]
    game = Game.new(rules, deck=dealt(hands, TIE_STOCK, dealer=0), dealer=0)
    for move in ("5C", "9H", "9D", "9S", "JC", "4D", "JD", "3H"):
        events = game.play(move)
        assert EventKind.LOWER_OUT not in [e.kind for e in events]
    assert play(game, "8S")[-1] == ev(EventKind.TRICK_WON, 0, "5C 9H 9D 9S JC 4D JD 3H 8S")
    assert game.out_of_play == cs()


# ---------------------------------------------------------------------------
# §4.2 multi_card_plays
# ---------------------------------------------------------------------------


def test_multi_card_plays_equal_cards_count_as_one_play_of_their_rank() -> None:
    rules = Rules.classic(3, hand_size=5, trick_mode="all", multi_card_plays=True, slough=False)
    hands = ["7C 7H 9D 9S KC", "10H QC QD 2D 3D", "9H QH 4S 5S 6S"]
    game = Game.new(rules, deck=dealt(hands, "2C 3C 4C 5C 6C 8C 10C JC AC 2H"))
    assert game.legal_moves == ordered("7C", "7H", "7C 7H", "9D", "9S", "9D 9S", "KC", "flip")
    # A pair is one play; the hand refills to five at once (two cards).
    assert play(game, "9D 9S") == [
        ev(EventKind.PLAY, 0, "9D 9S"),
        ev(EventKind.DRAW, 0, "2C 3C"),
    ]
    assert game.hands[0] == cs("7C 7H KC 2C 3C")
    assert game.table == (TablePlay(0, cs("9D 9S")),)
    assert game.to_move == 1
    assert game.legal_moves == ordered("10H", "QC", "QD", "QC QD", "2D", "3D", "flip")
    assert play(game, "10H") == [ev(EventKind.PLAY, 1, "10H"), ev(EventKind.DRAW, 1, "4C")]
    # Two nines are one play of rank 9: the ten wins, and the single 9♥ does
    # not tie with the pair (it is not the highest rank).
    assert play(game, "9H") == [
        ev(EventKind.PLAY, 2, "9H"),
        ev(EventKind.DRAW, 2, "5C"),
        ev(EventKind.TRICK_WON, 1, "9D 9S 10H 9H"),
    ]
    assert game.to_move == 1
    assert play(game, "QC QD") == [
        ev(EventKind.PLAY, 1, "QC QD"),
        ev(EventKind.DRAW, 1, "6C 8C"),
    ]
    play(game, "QH")
    events = game.play("7C 7H")
    # The pair of queens and the single queen tie: seats 1 and 2 replay, seat 1 first.
    assert brief(events) == [
        ev(EventKind.PLAY, 0, "7C 7H"),
        ev(EventKind.DRAW, 0, "JC AC"),
        ev(EventKind.TIE, 1, "QC QD QH"),
    ]
    assert events[-1].seats == (1, 2)
    assert game.to_move == 1
    assert all(len(hand) == 5 for hand in game.hands)


def test_multi_card_plays_have_no_effect_in_duels() -> None:
    rules = Rules.classic(3, multi_card_plays=True)
    game = Game.new(rules, deck=dealt(["7C 7H KC", "2D 3D 4D", "5S 6S 8S"], "9C 10C"))
    assert game.legal_moves == ordered("7C", "KC", "7H", "flip")
    with pytest.raises(IllegalMoveError):
        game.play("7C 7H")
    assert game.hands[0] == cs("7C 7H KC")
    assert game.moves_played == 0


def test_a_tied_player_with_an_empty_hand_refills_before_replaying() -> None:
    """docs/rules.md §4.3 and §3.10: seat 0 plays all three nines at once
    (draw=AFTER_TRICK: he draws nothing); seat 1 ties with the fourth nine;
    seat 0 must replay first with no hand card, so he refills first."""
    rules = Rules.classic(
        3, trick_mode="all", multi_card_plays=True, draw="after_trick", slough=False
    )
    hands = ["9C 9D 9H", "9S 2D 3D", "4S 5S 6S"]
    game = Game.new(rules, deck=dealt(hands, "2C 3C 4C 5C 6C 7C 8C"))
    assert game.legal_moves == ordered(
        "9C", "9D", "9C 9D", "9H", "9C 9H", "9D 9H", "9C 9D 9H", "flip"
    )
    assert play(game, "9C 9D 9H") == [ev(EventKind.PLAY, 0, "9C 9D 9H")]
    assert game.hands[0] == cs()
    assert play(game, "9S") == [ev(EventKind.PLAY, 1, "9S")]
    events = game.play("4S")
    assert brief(events) == [
        ev(EventKind.PLAY, 2, "4S"),
        ev(EventKind.TIE, 0, "9C 9D 9H 9S"),
        ev(EventKind.DRAW, 0, "2C 3C 4C"),
    ]
    assert events[1].seats == (0, 1)
    assert game.phase is Phase.COLLECTING
    assert game.to_move == 0
    assert game.hands[0] == cs("2C 3C 4C")
    play(game, "4C")
    assert game.to_move == 1
    # After the trick everyone refills from the winner (seat 0), clockwise.
    assert play(game, "3D") == [
        ev(EventKind.PLAY, 1, "3D"),
        ev(EventKind.TRICK_WON, 0, "9C 9D 9H 9S 4S 4C 3D"),
        ev(EventKind.DRAW, 0, "5C"),
        ev(EventKind.DRAW, 1, "6C 7C"),
        ev(EventKind.DRAW, 2, "8C"),
    ]
    assert game.hands == (cs("2C 3C 5C"), cs("2D 6C 7C"), cs("5S 6S 8C"))


# ---------------------------------------------------------------------------
# §4.4 the slough window
# ---------------------------------------------------------------------------

SLOUGH_HANDS = ["7H KD 2C", "KC 4H 9C", "7D 7S 4C", "4S 10D JD"]
# No 7, K or 4 is drawn while the first trick lasts; no Q, 5, J or K in the second.
SLOUGH_STOCK = "2D 3D 5D 6D 8D 9D QD 2H 3H 6H 8H"


def test_slough_window_from_the_winners_left_round_to_the_winner() -> None:
    game = Game.new(Rules.classic(4, trick_mode="all"), deck=dealt(SLOUGH_HANDS, SLOUGH_STOCK))
    play(game, "7H")
    play(game, "KC")
    play(game, "7D")
    # The last play decides the trick (K wins) but opens the window: no TRICK_WON yet.
    assert play(game, "4S") == [ev(EventKind.PLAY, 3, "4S"), ev(EventKind.DRAW, 3, "6D")]
    assert game.collections == (cs(), cs(), cs(), cs())
    assert len(game.table) == 4
    assert all(game.observation(s).slough_winner == 1 for s in range(4))
    # The winner's left neighbour first: seat 2 may throw any non-empty
    # selection of his 7s and 4s (ranks in the trick), or pass.
    assert game.to_move == 2
    assert game.hands[2] == cs("7S 4C 5D")
    assert game.legal_moves == ordered("slough 4C", "slough 7S", "slough 4C 7S", "pass")
    assert game.observation(2).legal_moves == game.legal_moves
    with pytest.raises(IllegalMoveError):
        game.play("5D")
    assert play(game, "slough 7S 4C") == [
        ev(EventKind.SLOUGH, 2, "4C 7S"),
        ev(EventKind.DRAW, 2, "8D 9D"),  # draw=AFTER_PLAY refills after a slough too
    ]
    assert game.table[-1] == TablePlay(2, cs("4C 7S"))
    # Seat 3 holds no 7, K or 4 (10♦ J♦ 6♦): skipped. Seat 0 may throw K♦.
    assert game.hands[3] == cs("10D JD 6D")
    assert game.to_move == 0
    assert game.legal_moves == ordered("slough KD", "pass")
    assert play(game, "pass") == [ev(EventKind.PASS, 0)]
    # The winner is last.
    assert game.to_move == 1
    assert game.observation(1).slough_winner == 1
    assert game.legal_moves == ordered("slough 4H", "pass")
    assert play(game, "slough 4H") == [
        ev(EventKind.SLOUGH, 1, "4H"),
        ev(EventKind.DRAW, 1, "QD"),
        ev(EventKind.TRICK_WON, 1, "7H KC 7D 4S 4C 7S 4H"),
    ]
    # Thrown cards go to the winner with the trick.
    assert game.collections == (cs(), cs("7H KC 7D 4S 4C 7S 4H"), cs(), cs())
    assert table(game) == ()
    assert all(game.observation(s).slough_winner is None for s in range(4))
    assert all(cs("4C 7S 4H") <= game.observation(s).known[1] for s in range(4))
    assert game.hands == (cs("KD 2C 2D"), cs("9C 3D QD"), cs("5D 8D 9D"), cs("10D JD 6D"))
    # Window over: the winner leads with his hand cards.
    assert game.to_move == 1
    assert game.legal_moves == ordered("9C", "3D", "QD", "flip")

    # Second trick: Q, 5, J, K; nobody holds one of these ranks afterwards,
    # so there is no window at all.
    play(game, "QD")
    play(game, "5D")
    play(game, "JD")
    assert play(game, "KD") == [
        ev(EventKind.PLAY, 0, "KD"),
        ev(EventKind.DRAW, 0, "8H"),
        ev(EventKind.TRICK_WON, 0, "QD 5D JD KD"),
    ]
    assert game.observation(0).slough_winner is None
    assert game.to_move == 0
    assert game.legal_moves == ordered("2C", "2D", "8H", "flip")


def test_slough_false_gives_no_window() -> None:
    rules = Rules.classic(4, trick_mode="all", slough=False)
    game = Game.new(rules, deck=dealt(SLOUGH_HANDS, SLOUGH_STOCK))
    for move in ("7H", "KC", "7D"):
        game.play(move)
    assert play(game, "4S") == [
        ev(EventKind.PLAY, 3, "4S"),
        ev(EventKind.DRAW, 3, "6D"),
        ev(EventKind.TRICK_WON, 1, "7H KC 7D 4S"),
    ]
    assert game.observation(2).slough_winner is None
    assert game.to_move == 1
    assert game.legal_moves == ordered("4H", "9C", "3D", "flip")
    with pytest.raises(IllegalMoveError):
        game.play(Move.pass_())


def test_slough_with_draw_after_trick_refills_after_the_window_from_the_winner() -> None:
    rules = Rules.classic(3, trick_mode="all", draw="after_trick")
    hands = ["7H 2C 3C", "KC 9C 10C", "7D 7S 2D"]
    game = Game.new(rules, deck=dealt(hands, "5H 6H 8H 9H"))
    assert play(game, "7H") == [ev(EventKind.PLAY, 0, "7H")]
    assert play(game, "KC") == [ev(EventKind.PLAY, 1, "KC")]
    assert play(game, "7D") == [ev(EventKind.PLAY, 2, "7D")]
    assert game.to_move == 2
    assert game.observation(0).slough_winner == 1
    assert game.legal_moves == ordered("slough 7S", "pass")
    # Seats 0 and 1 hold no 7 or K: skipped; the window closes after seat 2.
    # Then the refill: the winner (seat 1) first, clockwise; seat 2 lacks two.
    assert play(game, "slough 7S") == [
        ev(EventKind.SLOUGH, 2, "7S"),
        ev(EventKind.TRICK_WON, 1, "7H KC 7D 7S"),
        ev(EventKind.DRAW, 1, "5H"),
        ev(EventKind.DRAW, 2, "6H 8H"),
        ev(EventKind.DRAW, 0, "9H"),
    ]
    assert game.hands == (cs("2C 3C 9H"), cs("9C 10C 5H"), cs("2D 6H 8H"))
    assert game.to_move == 1


@pytest.mark.parametrize("all_tie", [AllTie.POT, AllTie.LOWER_OUT])
def test_slough_ranks_are_those_lying_on_the_table(all_tie: AllTie) -> None:
    """Seats 1 and 2 tie with nines, seat 1 wins the replay (J over 3). Under
    LOWER_OUT the 5♣ of seat 0 went out of play, so his 5♦ may not be thrown;
    under POT it still lies in the trick and may."""
    rules = Rules.classic(3, trick_mode="all", all_tie=all_tie)
    hands = ["5C 5D 2H", "9H JC 8H", "9D 3H JS"]
    game = Game.new(rules, deck=dealt(hands, "6C 7C 8C 10C QC"))
    play(game, "5C")
    play(game, "9H")
    tie = game.play("9D")
    assert tie[-1].kind is (EventKind.LOWER_OUT if all_tie is AllTie.LOWER_OUT else EventKind.TIE)
    play(game, "JC")
    assert play(game, "3H") == [ev(EventKind.PLAY, 2, "3H"), ev(EventKind.DRAW, 2, "QC")]
    assert game.observation(0).slough_winner == 1
    assert game.hands == (cs("5D 2H 6C"), cs("8H 7C 10C"), cs("JS 8C QC"))
    assert game.to_move == 2
    assert game.legal_moves == ordered("slough JS", "pass")
    events = game.play("pass")
    if all_tie is AllTie.LOWER_OUT:
        # Seat 0 (5♦ 2♥ 6♣) and seat 1 hold no 9, J or 3: skipped.
        assert brief(events) == [
            ev(EventKind.PASS, 2),
            ev(EventKind.TRICK_WON, 1, "9H 9D JC 3H"),
        ]
        assert game.out_of_play == cs("5C")
        return
    assert brief(events) == [ev(EventKind.PASS, 2)]
    assert game.to_move == 0
    assert game.legal_moves == ordered("slough 5D", "pass")
    assert play(game, "slough 5D") == [
        ev(EventKind.SLOUGH, 0, "5D"),
        ev(EventKind.DRAW, 0, "2C"),
        ev(EventKind.TRICK_WON, 1, "5C 9H 9D JC 3H 5D"),
    ]


# ---------------------------------------------------------------------------
# §3.3 try_your_luck
# ---------------------------------------------------------------------------


def test_try_your_luck_false_has_no_flip() -> None:
    rules = Rules.classic(3, try_your_luck=False)
    game = Game.new(rules, deck=dealt(["9H 2S 3S", "2C KD AD", "4S 5S 6S"], "7C 8C"))
    assert game.legal_moves == ordered("9H", "2S", "3S")
    with pytest.raises(IllegalMoveError):
        game.play(Move.flip())
    assert game.stock[0] == Card.parse("7C")
    assert game.moves_played == 0
    play(game, "9H")
    assert game.legal_moves == ordered("2C", "KD", "AD")


def test_flip_is_refused_with_exactly_one_stock_card() -> None:
    hands = ["AC KC QC", "2D 3D 4D", "5H 6H 7H"]
    game = Game.new(Rules.classic(), deck=burn_deck(hands, "9S"))
    flip_pairs(game, 21)
    assert game.stock == (Card.parse("9S"),)
    assert game.legal_moves == ordered("AC", "KC", "QC")
    with pytest.raises(IllegalMoveError):
        game.play(Move.flip())
    assert game.stock == (Card.parse("9S"),)
    assert table(game) == ()
    assert game.to_move == 0
    assert game.moves_played == 42


# ---------------------------------------------------------------------------
# §3.9 draw=AFTER_TRICK
# ---------------------------------------------------------------------------


def test_draw_after_trick_everyone_refills_from_the_next_leader() -> None:
    rules = Rules.classic(4, trick_mode="all", draw="after_trick", slough=False)
    hands = ["9H 2S 3S", "KC 4D 6D", "10S 7C 8C", "5H 6H JD"]
    game = Game.new(rules, deck=dealt(hands, "2C 3C 4C 5C 6C"))
    assert play(game, "3S") == [ev(EventKind.PLAY, 0, "3S")]
    # Trying one's luck is unaffected: seat 1 turns 2♣ and keeps his hand.
    assert play(game, "flip") == [ev(EventKind.FLIP, 1, "2C")]
    assert play(game, "10S") == [ev(EventKind.PLAY, 2, "10S")]
    assert [len(hand) for hand in game.hands] == [2, 3, 2, 3]
    # The ten wins; seat 2 leads next, so the refill runs 2, 3, 0, 1 (seat 1,
    # who tried his luck, is full and draws nothing).
    assert play(game, "5H") == [
        ev(EventKind.PLAY, 3, "5H"),
        ev(EventKind.TRICK_WON, 2, "3S 2C 10S 5H"),
        ev(EventKind.DRAW, 2, "3C"),
        ev(EventKind.DRAW, 3, "4C"),
        ev(EventKind.DRAW, 0, "5C"),
    ]
    assert game.hands == (cs("9H 2S 5C"), cs("KC 4D 6D"), cs("7C 8C 3C"), cs("6H JD 4C"))
    assert game.stock[0] == Card.parse("6C")
    assert game.to_move == 2


def test_draw_after_trick_in_a_duel() -> None:
    rules = Rules.classic(3, draw="after_trick")
    game = Game.new(rules, deck=dealt(["9H 2S 3S", "KD 4C 5C", "6H 7H 8H"], "10C JC QC"))
    assert play(game, "9H") == [ev(EventKind.PLAY, 0, "9H")]
    assert play(game, "KD") == [
        ev(EventKind.PLAY, 1, "KD"),
        ev(EventKind.TRICK_WON, 1, "9H KD"),
        ev(EventKind.DRAW, 1, "10C"),
        ev(EventKind.DRAW, 0, "JC"),
    ]
    assert game.hands == (cs("2S 3S JC"), cs("4C 5C 10C"), cs("6H 7H 8H"))
    assert game.to_move == 1
    play(game, "4C")
    assert game.to_move == 2


# ---------------------------------------------------------------------------
# §3.8 last_card=REVEAL
# ---------------------------------------------------------------------------


def test_reveal_ends_phase_1_at_once_and_takes_back_the_unfinished_trick() -> None:
    hands = ["AC KC QC", "2D 3D 4D", "5H 6H 7H"]
    game = Game.new(Rules.classic(3, last_card="reveal"), deck=burn_deck(hands, "9S"))
    flip_pairs(game, 21)
    burned = game.collections[0]
    assert game.stock == (Card.parse("9S"),)
    events = game.play("AC")
    # Seat 0 draws the last card, shows it, takes it into his hand; spades
    # are trump; phase 1 ends before seat 1 answers: A♣ goes back.
    assert brief(events) == [
        ev(EventKind.PLAY, 0, "AC"),
        ev(EventKind.REVEAL, 0, "9S"),
        ev(EventKind.TRUMP, None),
        ev(EventKind.TAKE_BACK, 0, "AC"),
        ev(EventKind.SHEDDING, 0),
    ]
    assert events[2].suit is Suit.SPADES
    assert phase(game) is Phase.SHEDDING
    assert game.trump is Suit.SPADES
    assert game.hidden_card is None
    assert stock(game) == ()
    assert table(game) == ()
    assert game.collections == (cs(), cs(), cs())
    assert game.hands == (burned | cs("AC KC QC 9S"), cs("2D 3D 4D"), cs("5H 6H 7H"))
    assert game.to_move == 0  # the drawer leads phase 2
    # The revealed card is public: every seat places it with seat 0.
    for seat in range(3):
        view = game.observation(seat)
        assert Card.parse("9S") in view.known[0]
        assert Card.parse("9S") not in view.unknown
        assert view.trump is Suit.SPADES
        assert only(view.history, EventKind.REVEAL).cards == cs("9S")


def test_reveal_settles_a_trick_that_the_revealing_play_completed() -> None:
    # Two players, 46 stock cards: after 22 flipped pairs the stock is J♣ 9♠.
    hands = ["AC KC QC", "2D 3D 4D"]
    game = Game.new(Rules.classic(2, last_card="reveal"), deck=burn_deck(hands, "JC 9S"))
    flip_pairs(game, 22)
    burned = game.collections[0]
    assert play(game, "AC") == [ev(EventKind.PLAY, 0, "AC"), ev(EventKind.DRAW, 0, "JC")]
    events = game.play("2D")
    # The follower's play completes the duel and draws the last card: the
    # trick is decided (A beats 2) and won before phase 1 ends; nothing is taken back.
    assert brief(events) == [
        ev(EventKind.PLAY, 1, "2D"),
        ev(EventKind.REVEAL, 1, "9S"),
        ev(EventKind.TRUMP, None),
        ev(EventKind.TRICK_WON, 0, "AC 2D"),
        ev(EventKind.SHEDDING, 1),
    ]
    assert events[2].suit is Suit.SPADES
    assert phase(game) is Phase.SHEDDING
    assert game.hands == (burned | cs("AC 2D KC QC JC"), cs("3D 4D 9S"))
    assert game.hands[0] == ~cs("3D 4D 9S")
    assert game.out_of_play == cs()
    assert game.to_move == 1
    assert Card.parse("9S") in game.observation(0).known[1]


# Three players, everyone plays: the hands hold only 2s, 3s and 4s, the stock
# is 13 rounds of higher cards the leader wins, then 4♦ 4♥ 4♠ 5♠.
ALL_REVEAL_HANDS = ["2C 2D 2H", "2S 3C 3D", "3H 3S 4C"]
ALL_REVEAL_LAST = "4D 4H 4S 5S"


def all_reveal_deck() -> list[str]:
    used = set(cards(" ".join(ALL_REVEAL_HANDS) + " " + ALL_REVEAL_LAST))
    rest = [str(card) for card in ALL_CARDS if str(card) not in used]
    return dealt(ALL_REVEAL_HANDS, " ".join([*leader_wins_triples(rest), ALL_REVEAL_LAST]))


def test_reveal_during_the_slough_window_the_winner_collects_first() -> None:
    game = Game.new(Rules.classic(3, trick_mode="all", last_card="reveal"), deck=all_reveal_deck())
    flip_rounds(game, 13)
    burned = game.collections[0]
    assert game.stock == tuple(Card.parse(c) for c in cards(ALL_REVEAL_LAST))
    assert play(game, "2C") == [ev(EventKind.PLAY, 0, "2C"), ev(EventKind.DRAW, 0, "4D")]
    assert play(game, "3C") == [ev(EventKind.PLAY, 1, "3C"), ev(EventKind.DRAW, 1, "4H")]
    assert play(game, "4C") == [ev(EventKind.PLAY, 2, "4C"), ev(EventKind.DRAW, 2, "4S")]
    # Seat 2 wins; the window opens at seat 0, who holds 2♦ 2♥ 4♦.
    assert game.to_move == 0
    assert game.observation(0).slough_winner == 2
    assert game.legal_moves == ordered(
        "slough 2D",
        "slough 2H",
        "slough 4D",
        "slough 2D 2H",
        "slough 2D 4D",
        "slough 2H 4D",
        "slough 2D 2H 4D",
        "pass",
    )
    events = game.play("slough 2D")
    # His refill draws the last card: it is shown, the winner collects the
    # trick (the thrown 2♦ with it), and phase 1 ends; nothing is taken back.
    assert brief(events) == [
        ev(EventKind.SLOUGH, 0, "2D"),
        ev(EventKind.REVEAL, 0, "5S"),
        ev(EventKind.TRUMP, None),
        ev(EventKind.TRICK_WON, 2, "2C 3C 4C 2D"),
        ev(EventKind.SHEDDING, 0),
    ]
    assert events[2].suit is Suit.SPADES
    assert phase(game) is Phase.SHEDDING
    assert game.hands == (
        burned | cs("2H 4D 5S"),
        cs("2S 3D 4H"),
        cs("3H 3S 4S 2C 3C 4C 2D"),
    )
    assert game.out_of_play == cs()
    assert game.to_move == 0


def test_reveal_with_draw_after_trick_in_the_refill_after_a_trick() -> None:
    rules = Rules.classic(3, trick_mode="all", last_card="reveal", draw="after_trick", slough=False)
    game = Game.new(rules, deck=all_reveal_deck())
    flip_rounds(game, 13)
    burned = game.collections[0]
    play(game, "2C")
    play(game, "3C")
    assert play(game, "4C") == [
        ev(EventKind.PLAY, 2, "4C"),
        ev(EventKind.TRICK_WON, 2, "2C 3C 4C"),
        ev(EventKind.DRAW, 2, "4D"),
        ev(EventKind.DRAW, 0, "4H"),
        ev(EventKind.DRAW, 1, "4S"),
    ]
    assert game.stock == (Card.parse("5S"),)
    assert game.to_move == 2
    play(game, "3H")
    play(game, "4H")
    # Seat 0 wins and refills first: he draws the last card and shows it;
    # phase 1 ends at once.
    assert play(game, "2S") == [
        ev(EventKind.PLAY, 1, "2S"),
        ev(EventKind.TRICK_WON, 0, "3H 4H 2S"),
        ev(EventKind.REVEAL, 0, "5S"),
        ev(EventKind.TRUMP, None),
        ev(EventKind.SHEDDING, 0),
    ]
    assert phase(game) is Phase.SHEDDING
    assert game.trump is Suit.SPADES
    assert game.hands == (
        burned | cs("3H 4H 2S 2D 2H 5S"),
        cs("3D 4S"),
        cs("3S 4D 2C 3C 4C"),  # seat 2 won the first trick
    )
    assert all(Card.parse("5S") in game.observation(s).known[0] for s in range(3))


# ---------------------------------------------------------------------------
# §5.1 trump=NONE
# ---------------------------------------------------------------------------


def test_trump_none_from_a_deal_no_suit_beats_another() -> None:
    hands = ["AC KC QC", "2D 3D 4D", "5H 6S 2C"]
    game = Game.new(Rules.classic(3, trump="none"), deck=burn_deck(hands, "9S"))
    flip_pairs(game, 21)
    assert play(game, "AC") == [ev(EventKind.PLAY, 0, "AC"), ev(EventKind.DRAW_HIDDEN, 0)]
    # The last card still lies face down (it sets no trump).
    assert game.hidden_card == Card.parse("9S")
    assert game.trump is None
    for move in ("2D", "KC", "3D", "QC"):
        game.play(move)
    events = game.play("4D")
    assert brief(events) == [
        ev(EventKind.PLAY, 1, "4D"),
        ev(EventKind.TRICK_WON, 0, "QC 4D"),
        ev(EventKind.REVEAL, 0, "9S"),
        ev(EventKind.TRUMP, None),
        ev(EventKind.OUT, 1),
        ev(EventKind.SHEDDING, 0),
    ]
    assert events[3].suit is None  # the TRUMP event says: no trump
    assert phase(game) is Phase.SHEDDING
    assert game.trump is None
    assert all(game.observation(s).trump is None for s in range(3))
    assert game.hands == (~cs("5H 6S 2C"), cs(), cs("5H 6S 2C"))
    # Seat 0 leads 4♥: seat 2 may beat only with a higher heart (not with the
    # spade, the suit of the last card).
    play(game, "4H")
    assert game.to_move == 2
    assert game.legal_moves == ordered("5H", "pick")
    assert play(game, "5H") == [ev(EventKind.PLAY, 2, "5H"), ev(EventKind.DISCARD, 2, "4H 5H")]
    play(game, "2C")
    assert game.to_move == 0
    assert game.legal_moves == ordered(
        "3C", "4C", "5C", "6C", "7C", "8C", "9C", "10C", "JC", "QC", "KC", "AC", "pick"
    )


def test_trump_none_in_phase_2() -> None:
    rules = Rules.classic(3, trump="none")
    game = Game.from_shedding(rules, ["9D 2S", "AS 10D 3C 2H", "KC"], trump=None, leader=0)
    assert game.trump is None
    assert game.observation(1).trump is None
    play(game, "9D")
    assert game.legal_moves == ordered("10D", "pick")
    play(game, "pick")
    assert game.to_move == 2
    assert game.legal_moves == ordered("KC")


# ---------------------------------------------------------------------------
# §2, §5.1 trump=UPCARD
# ---------------------------------------------------------------------------


def test_upcard_is_public_trump_and_decides_phase_1_tricks() -> None:
    hands = ["9H 10H 4S", "KC 2S JH", "QH 3S 5D"]
    game = Game.new(
        Rules.classic(3, trump="upcard"), deck=dealt(hands, "6S 7C 8C 9C 10C 3D AC 2H 3H")
    )
    assert brief(game.history)[3:] == [ev(EventKind.UPCARD, None, "6S"), ev(EventKind.TRUMP, None)]
    assert game.history[3].suit is Suit.SPADES
    assert game.history[4].suit is Suit.SPADES
    # The up-card lies at the bottom of the stock, drawn last.
    assert len(game.stock) == 43
    assert game.stock[0] == Card.parse("7C")
    assert game.stock[-1] == Card.parse("6S")
    assert game.trump is Suit.SPADES
    for seat in range(3):
        view = game.observation(seat)
        assert view.trump is Suit.SPADES
        assert view.upcard == Card.parse("6S")
        assert Card.parse("6S") not in view.unknown
        assert view.stock_size == 43
        assert view.stock_slots == view.stock_size - 1

    # A higher card of another suit (not trump) loses.
    play(game, "9H")
    assert play(game, "KC") == [
        ev(EventKind.PLAY, 1, "KC"),
        ev(EventKind.DRAW, 1, "8C"),
        ev(EventKind.TRICK_WON, 0, "9H KC"),
    ]
    # Any trump beats a card of another suit.
    play(game, "10H")
    assert play(game, "2S")[-1] == ev(EventKind.TRICK_WON, 1, "10H 2S")
    assert game.to_move == 1
    # The higher card of the suit led wins.
    play(game, "JH")
    assert play(game, "QH")[-1] == ev(EventKind.TRICK_WON, 2, "JH QH")
    assert game.to_move == 2
    # A trump is beaten by a higher trump.
    play(game, "3S")
    assert play(game, "4S")[-1] == ev(EventKind.TRICK_WON, 0, "3S 4S")
    assert game.collections == (cs("9H KC 3S 4S"), cs("10H 2S"), cs("JH QH"))
    assert game.hands == (cs("7C 9C 3H"), cs("8C 10C 3D"), cs("5D AC 2H"))
    # No ties: an equal rank of another suit loses like any off-suit card.
    assert game.to_move == 0
    play(game, "3H")
    assert play(game, "3D")[-1] == ev(EventKind.TRICK_WON, 0, "3H 3D")
    assert game.to_move == 0


@pytest.mark.parametrize("last_card", [LastCard.HIDDEN, LastCard.REVEAL])
def test_upcard_is_drawn_last_into_the_drawers_hand_in_view_of_all(last_card: LastCard) -> None:
    hands = ["AC KC QC", "2D 3D 4D", "5H 6H 7H"]
    rules = Rules.classic(3, trump="upcard", last_card=last_card)
    game = Game.new(rules, deck=upcard_burn_deck(hands, "9S"))
    flip_pairs(game, 21)
    assert game.stock == (Card.parse("9S"),)
    assert game.observation(1).upcard == Card.parse("9S")
    assert game.observation(1).stock_slots == 0
    # Trying one's luck may not turn it: it is the only stock card.
    assert game.legal_moves == ordered("AC", "KC", "QC")
    events = game.play("AC")
    assert brief(events)[:2] == [
        ev(EventKind.PLAY, 0, "AC"),
        ev(EventKind.TAKE_UPCARD, 0, "9S"),
    ]
    assert stock(game) == ()
    assert game.hidden_card is None
    assert game.trump is Suit.SPADES
    for seat in range(3):
        view = game.observation(seat)
        assert Card.parse("9S") in view.known[0]
        assert Card.parse("9S") not in view.unknown
        assert view.upcard is None
        assert view.trump is Suit.SPADES
    if last_card is LastCard.REVEAL:
        # Phase 1 ends at once; the lead goes back.
        assert brief(events)[2:] == [ev(EventKind.TAKE_BACK, 0, "AC"), ev(EventKind.SHEDDING, 0)]
        assert phase(game) is Phase.SHEDDING
        assert Card.parse("9S") in game.hands[0]
        assert game.hands[1] == cs("2D 3D 4D")
        assert game.to_move == 0
        return
    # HIDDEN: the 9♠ is an ordinary hand card now and phase 1 plays on.
    assert len(events) == 2
    assert phase(game) is Phase.COLLECTING
    assert game.hands[0] == cs("KC QC 9S")
    assert game.to_move == 1
    assert game.legal_moves == ordered("2D", "3D", "4D")
    assert play(game, "2D")[-1] == ev(EventKind.TRICK_WON, 0, "AC 2D")
    play(game, "9S")
    assert play(game, "3D")[-1] == ev(EventKind.TRICK_WON, 0, "9S 3D")
    play(game, "KC")
    assert play(game, "4D")[-1] == ev(EventKind.TRICK_WON, 0, "KC 4D")
    # Seat 1 has nothing to answer Q♣ with: phase 1 ends; he is out.
    events = game.play("QC")
    assert brief(events) == [
        ev(EventKind.PLAY, 0, "QC"),
        ev(EventKind.TAKE_BACK, 0, "QC"),
        ev(EventKind.OUT, 1),
        ev(EventKind.SHEDDING, 0),
    ]
    assert phase(game) is Phase.SHEDDING
    assert game.hands == (~cs("5H 6H 7H"), cs(), cs("5H 6H 7H"))
    assert game.trump is Suit.SPADES


# ---------------------------------------------------------------------------
# §5.4 low_card_threshold
# ---------------------------------------------------------------------------


def test_low_cards_go_round_and_round_to_the_short_players() -> None:
    """Four players (40 stock cards), dealer seat 3: after 19 flipped pairs the
    stock is J♣ 5♠. Seat 0 draws J♣, seat 1 draws 5♠ (hidden) and loses every
    duel; when seat 0 leads J♣ seat 1 has no hand card and phase 1 ends.

    Seat 1 holds only 5♠, seats 2 and 3 their three dealt cards: all three are
    short (< 4). Seat 0's low cards (2–5) are dealt to them lowest first (rank,
    then C D H S), in seat order from the dealer's left: 1, 2, 3, 1, 2, 3 …"""
    hands = ["AC KC QC", "6D 7D 8D", "2C 3C 4C", "2D 3D 4D"]
    rules = Rules.classic(4, low_card_threshold=4)
    game = Game.new(rules, deck=burn_deck(hands, "JC 5S"))
    flip_pairs(game, 19)
    assert game.stock == (Card.parse("JC"), Card.parse("5S"))
    play(game, "AC")
    assert play(game, "6D")[1:] == [
        ev(EventKind.DRAW_HIDDEN, 1),
        ev(EventKind.TRICK_WON, 0, "AC 6D"),
    ]
    for move in ("KC", "7D", "QC", "8D"):
        game.play(move)
    events = game.play("JC")
    assert brief(events)[:3] == [
        ev(EventKind.PLAY, 0, "JC"),
        ev(EventKind.TAKE_BACK, 0, "JC"),
        ev(EventKind.REVEAL, 1, "5S"),
    ]
    assert events[3].kind is EventKind.TRUMP
    assert events[3].suit is Suit.SPADES
    gives = [(e.seat, e.other, str(e.cards)) for e in events if e.kind is EventKind.GIVE]
    expected = [
        ("2H", 1),
        ("2S", 2),
        ("3H", 3),
        ("3S", 1),
        ("4H", 2),
        ("4S", 3),
        ("5C", 1),
        ("5D", 2),
        ("5H", 3),
    ]
    assert gives == [(0, to, str(cs(card))) for card, to in expected]
    assert [e.kind for e in events[4:]] == [EventKind.GIVE] * 9 + [EventKind.SHEDDING]
    assert events[-1].seat == 1  # the last drawer leads phase 2
    assert phase(game) is Phase.SHEDDING
    assert game.hands == (
        ~cs("5S 2H 3S 5C 2C 3C 4C 2S 4H 5D 2D 3D 4D 3H 4S 5H"),
        cs("5S 2H 3S 5C"),
        cs("2C 3C 4C 2S 4H 5D"),
        cs("2D 3D 4D 3H 4S 5H"),
    )
    assert game.to_move == 1
    # Public: every seat places every given card.
    for seat in range(4):
        view = game.observation(seat)
        for card, to in expected:
            assert Card.parse(card) in view.known[to]
            assert Card.parse(card) not in view.unknown


def test_low_cards_skip_players_who_are_out() -> None:
    """Three players: seat 1 ends phase 1 with no cards (out, not short); seat
    2 (three cards) is the only short player and gets all of seat 0's low cards."""
    hands = ["AC KC QC", "2D 3D 4D", "5H 6H 7H"]
    game = Game.new(Rules.classic(3, low_card_threshold=4), deck=burn_deck(hands, "9S"))
    flip_pairs(game, 21)
    for move in ("AC", "2D", "KC", "3D", "QC"):
        game.play(move)
    events = game.play("4D")
    low = "2C 2D 2H 2S 3C 3D 3H 3S 4C 4D 4H 4S 5C 5D 5S"
    assert brief(events) == [
        ev(EventKind.PLAY, 1, "4D"),
        ev(EventKind.TRICK_WON, 0, "QC 4D"),
        ev(EventKind.REVEAL, 0, "9S"),
        ev(EventKind.TRUMP, None),
        ev(EventKind.OUT, 1),
        *[ev(EventKind.GIVE, 0, card) for card in low.split()],
        ev(EventKind.SHEDDING, 0),
    ]
    assert {e.other for e in events if e.kind is EventKind.GIVE} == {2}
    assert game.hands == (~cs("5H 6H 7H " + low), cs(), cs("5H 6H 7H " + low))
    assert game.to_move == 0


def test_low_cards_need_a_player_below_the_threshold() -> None:
    # The same end of phase 1 with k=3: seat 2 holds 3 cards, not fewer: nothing moves.
    hands = ["AC KC QC", "2D 3D 4D", "5H 6H 7H"]
    game = Game.new(Rules.classic(3, low_card_threshold=3), deck=burn_deck(hands, "9S"))
    flip_pairs(game, 21)
    for move in ("AC", "2D", "KC", "3D", "QC"):
        game.play(move)
    events = game.play("4D")
    assert EventKind.GIVE not in [e.kind for e in events]
    assert game.hands == (~cs("5H 6H 7H"), cs(), cs("5H 6H 7H"))


def test_low_cards_can_leave_a_giver_without_cards_who_is_out() -> None:
    """The four-player end of phase 1 above with k=2: only seat 1 (one card) is
    short. Seats 2 and 3 hold three low cards each and give them all away: they
    are out, in seat order from the dealer's left; seats 0 and 1 play on."""
    hands = ["AC KC QC", "6D 7D 8D", "2C 3C 4C", "2D 3D 4D"]
    game = Game.new(Rules.classic(4, low_card_threshold=2), deck=burn_deck(hands, "JC 5S"))
    flip_pairs(game, 19)
    for move in ("AC", "6D", "KC", "7D", "QC", "8D"):
        game.play(move)
    events = game.play("JC")
    givers = {card: 2 for card in cards(hands[2])} | {card: 3 for card in cards(hands[3])}
    low = cards("2C 2D 2H 2S 3C 3D 3H 3S 4C 4D 4H 4S 5C 5D 5H")
    assert [(e.seat, e.other, e.cards) for e in events if e.kind is EventKind.GIVE] == [
        (givers.get(card, 0), 1, cs(card)) for card in low
    ]
    assert brief(events)[-3:] == [
        ev(EventKind.OUT, 2),
        ev(EventKind.OUT, 3),
        ev(EventKind.SHEDDING, 1),
    ]
    assert phase(game) is Phase.SHEDDING
    all_low = cs(" ".join(low) + " 5S")
    assert game.hands == (~all_low, all_low, cs(), cs())
    assert game.observation(0).finished == (2, 3)
    assert game.to_move == 1


# ---------------------------------------------------------------------------
# §6.2 runs
# ---------------------------------------------------------------------------


def test_runs_are_led_and_laid_as_one_play() -> None:
    rules = Rules.classic(3, runs=True)
    hands = ["7H 8H 9H 2C 4D", "10H JH QH 3S 4S 5H 6H 6C", "KH AH 5C"]
    game = Game.from_shedding(rules, hands, trump="S", leader=0)
    # A lead: any card or any run.
    assert game.legal_moves == ordered("2C", "4D", "7H", "8H", "9H", "7H 8H", "8H 9H", "7H 8H 9H")
    assert play(game, "7H 8H 9H") == [ev(EventKind.PLAY, 0, "7H 8H 9H")]
    assert game.table == (TablePlay(0, cs("7H 8H 9H")),)
    assert game.observation(1).top == Card.parse("9H")
    # On 9♥: runs whose lowest card beats it (higher hearts, or trumps); 5♥ 6♥
    # is a run but its lowest card does not beat 9♥.
    assert game.to_move == 1
    assert game.legal_moves == ordered(
        "10H", "JH", "QH", "10H JH", "JH QH", "10H JH QH", "3S", "4S", "3S 4S", "pick"
    )
    assert play(game, "10H JH") == [ev(EventKind.PLAY, 1, "10H JH")]
    assert game.legal_moves == ordered("KH", "AH", "KH AH", "pick")
    # Three plays (seven cards) complete the three-player trick.
    assert play(game, "KH AH") == [
        ev(EventKind.PLAY, 2, "KH AH"),
        ev(EventKind.DISCARD, 2, "7H 8H 9H 10H JH KH AH"),
    ]
    assert table(game) == ()
    assert game.out_of_play == ~cs("2C 4D QH 3S 4S 5H 6H 6C 5C")
    assert game.to_move == 2
    assert game.legal_moves == ordered("5C")


def test_without_runs_a_run_is_refused_in_phase_2() -> None:
    game = Game.from_shedding(Rules.classic(2), ["7H 8H", "2C"], trump="S", leader=0)
    assert game.legal_moves == ordered("7H", "8H")
    with pytest.raises(IllegalMoveError):
        game.play("7H 8H")


# ---------------------------------------------------------------------------
# §6.3 pickup
# ---------------------------------------------------------------------------


def test_pickup_top_run_takes_the_unbroken_descending_sequence() -> None:
    rules = Rules.classic(4, runs=True, pickup="top_run")
    hands = ["5H 2C", "7H 8H 3C", "9H 4C", "6C 10C"]
    game = Game.from_shedding(rules, hands, trump="S", leader=0)
    play(game, "5H")
    play(game, "7H 8H")
    play(game, "9H")
    assert [str(p.cards) for p in game.table] == [str(cs(t)) for t in ("5H", "7H 8H", "9H")]
    assert game.to_move == 3
    assert game.legal_moves == (Move.pick_up(),)
    # Table 5♥ 7♥ 8♥ 9♥: the 9♥, then 8♥ and 7♥ (across plays); 6♥ is missing.
    assert play(game, "pick") == [ev(EventKind.PICK_UP, 3, "7H 8H 9H")]
    assert game.table == (TablePlay(0, cs("5H")),)
    assert game.hands[3] == cs("6C 10C 7H 8H 9H")
    assert game.to_move == 0
    assert game.legal_moves == (Move.pick_up(),)


def test_pickup_pile_takes_the_whole_table_and_the_next_player_leads() -> None:
    rules = Rules.classic(3, pickup="pile")
    game = Game.from_shedding(rules, ["9D 2C", "JD 3C", "4C 5C"], trump="S", leader=0)
    play(game, "9D")
    play(game, "JD")
    assert game.legal_moves == (Move.pick_up(),)
    assert play(game, "pick") == [ev(EventKind.PICK_UP, 2, "9D JD")]
    assert game.hands[2] == cs("4C 5C 9D JD")
    assert table(game) == ()
    assert game.to_move == 0  # the picker's next player leads a new trick
    assert game.legal_moves == ordered("2C")


# ---------------------------------------------------------------------------
# §6.5 trick_end=ROTATION
# ---------------------------------------------------------------------------


def test_rotation_ends_after_one_turn_each_and_the_top_cards_owner_leads() -> None:
    rules = Rules.classic(3, trick_end="rotation")
    game = Game.from_shedding(rules, ["9D 2C", "JD 3C", "4C 5C"], trump="S", leader=0)
    play(game, "9D")
    play(game, "JD")
    # Third turn (a pick-up) ends the trick: the 9♦ left goes out of play and
    # seat 0, whose play is on top, leads.
    assert play(game, "pick") == [
        ev(EventKind.PICK_UP, 2, "JD"),
        ev(EventKind.DISCARD, 0, "9D"),
    ]
    assert table(game) == ()
    assert game.out_of_play == ~cs("2C 3C 4C 5C JD")
    assert game.hands == (cs("2C"), cs("3C"), cs("4C 5C JD"))
    assert game.to_move == 0
    assert game.legal_moves == ordered("2C")


def test_rotation_counts_turns_not_plays() -> None:
    rules = Rules.classic(4, trick_end="rotation")
    hands = ["9D 2C", "JD 3C", "4C 5C", "10D 6C"]
    game = Game.from_shedding(rules, hands, trump="S", leader=0)
    play(game, "9D")
    play(game, "JD")
    play(game, "pick")
    # Two plays lie on the table after four turns: the trick is over.
    assert play(game, "10D") == [
        ev(EventKind.PLAY, 3, "10D"),
        ev(EventKind.DISCARD, 3, "9D 10D"),
    ]
    assert game.to_move == 3


def test_rotation_top_cards_owner_out_his_next_player_leads() -> None:
    rules = Rules.classic(3, trick_end="rotation")
    game = Game.from_shedding(rules, ["9D", "JD 3C", "4C 5C"], trump="S", leader=0)
    assert play(game, "9D") == [ev(EventKind.PLAY, 0, "9D"), ev(EventKind.OUT, 0)]
    play(game, "JD")
    assert play(game, "pick") == [
        ev(EventKind.PICK_UP, 2, "JD"),
        ev(EventKind.DISCARD, 0, "9D"),
    ]
    assert game.to_move == 1
    assert game.legal_moves == ordered("3C")


def test_rotation_ending_on_an_empty_table_the_pickers_next_player_leads() -> None:
    rules = Rules.classic(3, trick_end="rotation", pickup="top_run")
    game = Game.from_shedding(rules, ["9D 2C", "10D 3C", "4C 5C"], trump="S", leader=0)
    play(game, "9D")
    play(game, "10D")
    # The third turn takes 10♦ 9♦: the table is empty, nothing is discarded.
    assert play(game, "pick") == [ev(EventKind.PICK_UP, 2, "9D 10D")]
    assert table(game) == ()
    assert game.out_of_play == ~cs("9D 2C 10D 3C 4C 5C")
    assert game.to_move == 0
    assert game.legal_moves == ordered("2C")


def test_rotation_a_pick_up_emptying_the_table_ends_the_trick_at_once() -> None:
    rules = Rules.classic(4, trick_end="rotation")
    hands = ["9D 2C", "3C 4C", "5C 6C", "7C 8C"]
    game = Game.from_shedding(rules, hands, trump="S", leader=0)
    play(game, "9D")
    assert play(game, "pick") == [ev(EventKind.PICK_UP, 1, "9D")]
    assert table(game) == ()
    assert game.to_move == 2
    assert game.legal_moves == ordered("5C", "6C")


# ---------------------------------------------------------------------------
# §9 presets, complete games and records
# ---------------------------------------------------------------------------


def test_modern_presets_are_the_fields_of_rules_md_section_9() -> None:
    common = {
        "hand_size": 3,
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
        "max_moves": 10_000,
    }
    three = Rules.modern()
    assert three.to_dict() == {
        "players": 3,
        "trick_mode": "all",
        "duel_tie": "replay",
        **common,
    }
    assert (three.trick_mode, three.all_tie, three.draw) == (
        TrickMode.ALL,
        AllTie.LOWER_OUT,
        Draw.AFTER_TRICK,
    )
    assert (three.last_card, three.trump, three.pickup, three.trick_end) == (
        LastCard.REVEAL,
        TrumpRule.LAST_CARD,
        Pickup.TOP_RUN,
        TrickEnd.ROTATION,
    )
    two = Rules.modern(players=2)
    assert two.to_dict() == {"players": 2, "trick_mode": "duel", "duel_tie": "bounce", **common}
    assert (two.trick_mode, two.duel_tie) == (TrickMode.DUEL, DuelTie.BOUNCE)
    assert Rules.modern(4).to_dict() == {**three.to_dict(), "players": 4}


@pytest.mark.parametrize("players", [2, 3])
def test_modern_rules_play_complete_games(players: int) -> None:
    rules = Rules.modern(players=players)
    kinds: set[EventKind] = set()
    for seed in range(12):
        game = Game.new(rules, seed=seed)
        bots = [RandomBot(seed=100 * seed + s) for s in range(players)]
        result = play_game(bots, game=game)
        assert game.phase is Phase.OVER
        assert game.result == result
        assert not result.truncated
        if result.loser is not None:
            assert sorted(result.finish_order) == list(range(players))
        history = game.history
        kinds |= {e.kind for e in history}
        # last_card=REVEAL: the last stock card is shown, never hidden; no flips.
        assert EventKind.REVEAL in {e.kind for e in history}
        assert EventKind.DRAW_HIDDEN not in {e.kind for e in history}
        assert EventKind.FLIP not in {e.kind for e in history}
        # Every card is somewhere at the end.
        held = CardSet()
        for hand in game.hands:
            held |= hand
        assert len(held) + len(game.out_of_play) + sum(len(p.cards) for p in game.table) == 52
    if players == 2:
        assert EventKind.BOUNCE in kinds
    else:
        assert {EventKind.SLOUGH, EventKind.PASS} <= kinds


def test_every_new_move_kind_round_trips_through_a_record() -> None:
    rules = Rules.classic(
        4, hand_size=5, trick_mode="all", multi_card_plays=True, runs=True, pickup="top_run"
    )
    seen: set[str] = set()
    for seed in range(40):
        rng = random.Random(seed)
        game = Game.new(rules, seed=seed)
        while game.result is None:
            game.play(rng.choice(game.legal_moves))
        record = json.loads(json.dumps(game.record()))
        texts: list[str] = record["moves"]
        for move, text in zip(game.moves, texts, strict=True):
            assert Move.parse(text) == move
            if move.kind is MoveKind.SLOUGH:
                assert text.startswith("slough ")
                seen.add("slough")
            elif move.kind is MoveKind.PASS:
                assert text == "pass"
                seen.add("pass")
            elif move.kind is MoveKind.PLAY and len(move.cards) > 1:
                seen.add("equal" if len(move.cards.ranks()) == 1 else "run")
        again = Game.from_record(record)
        assert again.moves == game.moves
        assert again.history == game.history
        assert again.result == game.result
        assert again.hands == game.hands
        assert again.out_of_play == game.out_of_play
        if seen == {"slough", "pass", "equal", "run"}:
            break
    assert seen == {"slough", "pass", "equal", "run"}
