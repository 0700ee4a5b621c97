"""Every event reads as one sentence, in the third person and in the second."""

from __future__ import annotations

import random
import re

import pytest

import skitgubbe as sg
from skitgubbe import CardSet, Event, EventKind
from skitgubbe.errors import ArgumentError, ArgumentTypeError
from skitgubbe.game.events import seen_by


def cards(text: str) -> CardSet:
    return CardSet.parse(text)


# For every kind: an event of seat 1 (where it has one), then its sentence in the third
# person, as seat 1 reads it, and as seat 0 reads it.
SENTENCES: dict[EventKind, tuple[Event, str, str, str]] = {
    EventKind.DEAL: (
        Event(EventKind.DEAL, seat=1, cards=cards("2C 3C 4C"), count=3),
        "seat 1 is dealt 2♣ 3♣ 4♣",
        "you are dealt 2♣ 3♣ 4♣",
        "seat 1 is dealt 3 cards",
    ),
    EventKind.PLAY: (
        Event(EventKind.PLAY, seat=1, cards=cards("7H"), count=1),
        "seat 1 plays 7♥",
        "you play 7♥",
        "seat 1 plays 7♥",
    ),
    EventKind.FLIP: (
        Event(EventKind.FLIP, seat=1, cards=cards("KS"), count=1),
        "seat 1 tries their luck and turns up K♠",
        "you try your luck and turn up K♠",
        "seat 1 tries their luck and turns up K♠",
    ),
    EventKind.DRAW: (
        Event(EventKind.DRAW, seat=1, cards=cards("7H"), count=1),
        "seat 1 draws 7♥",
        "you draw 7♥",
        "seat 1 draws 1 card",
    ),
    EventKind.DRAW_HIDDEN: (
        Event(EventKind.DRAW_HIDDEN, seat=1, count=1),
        "seat 1 draws the last stock card and lays it face down",
        "you draw the last stock card and lay it face down",
        "seat 1 draws the last stock card and lays it face down",
    ),
    EventKind.TIE: (
        Event(EventKind.TIE, seat=1, cards=cards("9H 9S"), count=2, seats=(1, 2)),
        "tie between seat 1 and seat 2 with 9♥ 9♠",
        "tie between you and seat 2 with 9♥ 9♠",
        "tie between seat 1 and seat 2 with 9♥ 9♠",
    ),
    EventKind.BOUNCE: (
        Event(EventKind.BOUNCE, seat=1, cards=cards("9H 9S"), count=2),
        "the tied cards 9♥ 9♠ go out of play",
        "the tied cards 9♥ 9♠ go out of play",
        "the tied cards 9♥ 9♠ go out of play",
    ),
    EventKind.TRICK_WON: (
        Event(EventKind.TRICK_WON, seat=1, cards=cards("5D 8H"), count=2),
        "seat 1 wins 5♦ 8♥",
        "you win 5♦ 8♥",
        "seat 1 wins 5♦ 8♥",
    ),
    EventKind.TAKE_BACK: (
        Event(EventKind.TAKE_BACK, seat=1, cards=cards("QC"), count=1),
        "seat 1 takes back Q♣",
        "you take back Q♣",
        "seat 1 takes back Q♣",
    ),
    EventKind.REVEAL: (
        Event(EventKind.REVEAL, seat=1, cards=cards("AH"), count=1),
        "seat 1 turns up the last stock card: A♥",
        "you turn up the last stock card: A♥",
        "seat 1 turns up the last stock card: A♥",
    ),
    EventKind.TRUMP: (
        Event(EventKind.TRUMP, suit=sg.Suit.HEARTS),
        "trump is hearts",
        "trump is hearts",
        "trump is hearts",
    ),
    EventKind.SHEDDING: (
        Event(EventKind.SHEDDING, seat=1),
        "phase 2 begins: seat 1 leads",
        "phase 2 begins: you lead",
        "phase 2 begins: seat 1 leads",
    ),
    EventKind.PICK_UP: (
        Event(EventKind.PICK_UP, seat=1, cards=cards("JD"), count=1),
        "seat 1 picks up J♦",
        "you pick up J♦",
        "seat 1 picks up J♦",
    ),
    EventKind.DISCARD: (
        Event(EventKind.DISCARD, seat=1, cards=cards("9D QD AD"), count=3),
        "the trick is complete: 9♦ Q♦ A♦ go out of play",
        "the trick is complete: 9♦ Q♦ A♦ go out of play",
        "the trick is complete: 9♦ Q♦ A♦ go out of play",
    ),
    EventKind.OUT: (
        Event(EventKind.OUT, seat=1),
        "seat 1 is out",
        "you are out",
        "seat 1 is out",
    ),
    EventKind.GAME_OVER: (
        Event(EventKind.GAME_OVER, seat=1),
        "game over: seat 1 is the skitgubbe",
        "game over: you are the skitgubbe",
        "game over: seat 1 is the skitgubbe",
    ),
    EventKind.TRUNCATED: (
        Event(EventKind.TRUNCATED),
        "the move cap is reached: the game ends with no loser",
        "the move cap is reached: the game ends with no loser",
        "the move cap is reached: the game ends with no loser",
    ),
    EventKind.SLOUGH: (
        Event(EventKind.SLOUGH, seat=1, cards=cards("8C 8S"), count=2),
        "seat 1 throws 8♣ 8♠ onto the trick",
        "you throw 8♣ 8♠ onto the trick",
        "seat 1 throws 8♣ 8♠ onto the trick",
    ),
    EventKind.PASS: (
        Event(EventKind.PASS, seat=1),
        "seat 1 throws nothing",
        "you throw nothing",
        "seat 1 throws nothing",
    ),
    EventKind.GIVE: (
        Event(EventKind.GIVE, seat=1, cards=cards("2H"), count=1, other=0),
        "seat 1 gives the low card 2♥ to seat 0",
        "you give the low card 2♥ to seat 0",
        "seat 1 gives the low card 2♥ to you",
    ),
    EventKind.UPCARD: (
        Event(EventKind.UPCARD, cards=cards("6S"), count=1, suit=sg.Suit.SPADES),
        "6♠ is turned up: trump is spades",
        "6♠ is turned up: trump is spades",
        "6♠ is turned up: trump is spades",
    ),
    EventKind.LOWER_OUT: (
        Event(EventKind.LOWER_OUT, cards=cards("3C 4D"), count=2),
        "3♣ 4♦ of the players not tied go out of play",
        "3♣ 4♦ of the players not tied go out of play",
        "3♣ 4♦ of the players not tied go out of play",
    ),
    EventKind.TAKE_UPCARD: (
        Event(EventKind.TAKE_UPCARD, seat=1, cards=cards("6S"), count=1),
        "seat 1 draws the turned-up card 6♠",
        "you draw the turned-up card 6♠",
        "seat 1 draws the turned-up card 6♠",
    ),
}


@pytest.mark.parametrize("kind", list(EventKind), ids=lambda kind: kind.name)
def test_every_kind_has_a_sentence_in_both_persons(kind: EventKind) -> None:
    event, third, mine, theirs = SENTENCES[kind]  # a new kind needs its sentences here
    assert event.kind is kind
    assert str(event) == event.describe() == third
    assert event.describe(1) == event.describe(viewer=1) == mine
    assert event.describe(0) == theirs


def test_the_sentences_of_other_kinds_differ() -> None:
    """No kind borrows another's sentence (as a fall-through branch would)."""
    thirds = [third for _, third, _, _ in SENTENCES.values()]
    assert len(set(thirds)) == len(thirds)


def test_a_private_event_is_told_to_others_as_a_count() -> None:
    draw = Event(EventKind.DRAW, seat=1, cards=cards("7H"), count=1)
    assert draw.describe(1) == "you draw 7♥"
    assert draw.describe(2) == "seat 1 draws 1 card"
    assert draw.redacted().describe() == "seat 1 draws 1 card"
    assert draw.redacted().describe(1) == "you draw 1 card"  # a seat's own, redacted elsewhere


def test_the_no_seat_and_no_suit_forms() -> None:
    assert str(Event(EventKind.TRUMP)) == "no trump"
    assert str(Event(EventKind.GAME_OVER)) == "game over: nobody is left holding cards"
    assert Event(EventKind.GAME_OVER).describe(0) == "game over: nobody is left holding cards"
    assert str(Event(EventKind.UPCARD, cards=cards("6S"), count=1)) == "6♠ is turned up: trump is ?"


def test_names_name_the_seats_and_the_viewer_is_you() -> None:
    names = ["Anna", "Ben", "Carla"]
    tie = Event(EventKind.TIE, seat=1, cards=cards("9H 9S"), count=2, seats=(0, 2))
    assert tie.describe(names=names) == "tie between Anna and Carla with 9♥ 9♠"
    assert tie.describe(2, names=names) == "tie between Anna and you with 9♥ 9♠"
    give = Event(EventKind.GIVE, seat=2, cards=cards("2H"), count=1, other=1)
    assert give.describe(names=names) == "Carla gives the low card 2♥ to Ben"
    assert give.describe(2, names=names) == "you give the low card 2♥ to Ben"


def test_bad_arguments_are_refused() -> None:
    play = Event(EventKind.PLAY, seat=2, cards=cards("7H"), count=1)
    with pytest.raises(ArgumentTypeError, match="viewer is a seat number"):
        play.describe("2")  # type: ignore[arg-type]
    with pytest.raises(ArgumentTypeError, match="names is a sequence"):
        play.describe(names="Anna")
    with pytest.raises(ArgumentError, match="names has 2 names; seat 2 has none"):
        play.describe(names=["Anna", "Ben"])
    assert play.describe(2, names=["Anna", "Ben"]) == "you play 7♥"


RULES = [
    sg.Rules.classic(players=3),
    sg.Rules.modern(players=4),
    sg.Rules.classic(players=4, trump="upcard", low_card_threshold=5),
    sg.Rules.classic(players=2, duel_tie="bounce"),
]


@pytest.mark.parametrize("rules", RULES, ids=str)
def test_a_seat_reads_its_observation_history(rules: sg.Rules) -> None:
    """describe(seat) of the referee's events is the seat's own history, told to it."""
    rng = random.Random(5)
    game = sg.Game.new(rules, seed=5)
    while game.result is None:
        game.play(rng.choice(game.legal_moves))
    for seat in range(rules.players):
        seen = game.observation(seat).history
        assert [seen_by(event, seat) for event in game.history] == list(seen)
        told = [event.describe(seat) for event in game.history]
        assert told == [event.describe(seat) for event in seen]
        for event, text in zip(game.history, told, strict=True):
            concerned = event.seats if event.kind is EventKind.TIE else (event.seat, event.other)
            if re.search(r"\byou\b", text):
                assert seat in concerned, text
            elif event.kind in (EventKind.PLAY, EventKind.DRAW, EventKind.OUT):
                assert event.seat != seat, text
