"""Tests for skitgubbe.game.moves: MoveKind and Move."""

from __future__ import annotations

import copy
import pickle
import re
from typing import Any

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from skitgubbe.errors import ParseError
from skitgubbe.game import moves as moves_module
from skitgubbe.game.cards import ALL_CARDS, ALL_MASK, Card, CardSet
from skitgubbe.game.moves import Move, MoveKind

play_cards = st.lists(st.sampled_from(ALL_CARDS), min_size=1, max_size=52, unique=True)
plays = play_cards.map(lambda cards: Move.play(*cards))
sloughs = play_cards.map(lambda cards: Move.slough(*cards))
all_moves = plays | sloughs | st.sampled_from([Move.flip(), Move.pick_up(), Move.pass_()])


def test_move_kind_values_match_the_core() -> None:
    assert {k.name: k.value for k in MoveKind} == {
        "PLAY": 0,
        "FLIP": 1,
        "PICK_UP": 2,
        "SLOUGH": 3,
        "PASS": 4,
    }


# ---- construction -----------------------------------------------------------------


def test_play_from_cards_and_text() -> None:
    move = Move.play(Card.parse("7H"), "8h", "9♥")
    assert move.kind is MoveKind.PLAY
    assert move.cards == CardSet.parse("7H 8H 9H")
    assert Move.play("7H").cards == CardSet.parse("7H")


def test_play_needs_a_card() -> None:
    with pytest.raises(ParseError, match="at least one card"):
        Move.play()


def test_play_rejects_duplicates() -> None:
    with pytest.raises(ParseError, match="7♥ more than once"):
        Move.play("7H", Card.parse("7♥"))


def test_play_rejects_bad_cards_naming_them() -> None:
    with pytest.raises(ParseError, match="'1H'") as info:
        Move.play("7H", "1H")
    assert info.value.text == "1H"
    with pytest.raises(ParseError, match="37"):
        Move.play(37)  # type: ignore[arg-type]


def test_flip_and_pick_up() -> None:
    assert Move.flip().kind is MoveKind.FLIP
    assert Move.pick_up().kind is MoveKind.PICK_UP
    assert Move.flip().cards == CardSet()
    assert Move.pick_up().cards == CardSet()
    assert Move.flip() is Move.flip()
    assert Move.pick_up() is Move.pick_up()
    assert Move.flip() != Move.pick_up()


def test_constructor() -> None:
    assert Move(MoveKind.PLAY, CardSet.parse("7H")) == Move.play("7H")
    assert Move(MoveKind.FLIP) == Move.flip()
    assert Move(2) == Move.pick_up()
    assert Move(MoveKind.FLIP).kind is MoveKind.FLIP
    assert Move(1).kind is MoveKind.FLIP


@pytest.mark.parametrize(
    ("kind", "cards", "message"),
    [
        (MoveKind.PLAY, CardSet(), "at least one card"),
        (MoveKind.FLIP, CardSet.parse("7H"), "FLIP move takes no cards; got 7♥"),
        (MoveKind.PICK_UP, CardSet.parse("7H 8H"), "PICK_UP move takes no cards"),
        (5, CardSet(), "not a move kind: 5"),
        (3, CardSet(), "a SLOUGH move needs at least one card"),
        (4, CardSet.parse("7H"), "a PASS move takes no cards"),
        (-1, CardSet(), "not a move kind: -1"),
        (True, CardSet(), "not a move kind: True"),
        ("play", CardSet.parse("7H"), "not a move kind: 'play'"),
        (MoveKind.PLAY, "7H", "must be a CardSet; got '7H'"),
        (MoveKind.PLAY, Card.parse("7H").mask, "must be a CardSet"),
    ],
)
def test_constructor_validates(kind: Any, cards: Any, message: str) -> None:
    with pytest.raises(ParseError, match=re.escape(message)):
        Move(kind, cards)


def test_move_is_frozen() -> None:
    move = Move.play("7H")
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        move.kind = MoveKind.FLIP  # type: ignore[misc]
    assert move.kind is MoveKind.PLAY


# ---- codes ------------------------------------------------------------------------


def test_codes_follow_the_core_encoding() -> None:
    assert Move.play("2C").code == 1
    assert Move.play("7H").code == 1 << 37
    assert Move.play("2C", "AS").code == 1 | 1 << 60
    assert Move.flip().code == 1 << 61
    assert Move.pick_up().code == 2 << 61
    assert Move.slough("2C").code == 3 << 61 | 1
    assert Move.pass_().code == 4 << 61


@given(all_moves)
def test_code_round_trip(move: Move) -> None:
    assert move.code == (move.kind << 61) | move.cards.mask
    again = Move.from_code(move.code)
    assert again == move
    assert Move.from_code(move.code) is again


def test_from_code_caches_instances() -> None:
    code = Move.play("5D", "6D").code
    assert Move.from_code(code) is Move.from_code(code)
    assert Move.from_code(1 << 61) is Move.flip()
    assert Move.play("5D", "6D") is Move.from_code(code)


def test_from_code_cache_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(moves_module, "_BY_CODE", {})
    monkeypatch.setattr(moves_module, "_CACHE_LIMIT", 10)
    made = [Move.from_code(card.mask) for card in ALL_CARDS[:30]]
    assert len(moves_module._BY_CODE) == 10
    # Moves past the limit are still right, just not shared.
    assert [m.cards for m in made] == [CardSet.of(c) for c in ALL_CARDS[:30]]


@pytest.mark.parametrize(
    "code",
    [
        0,  # a PLAY of no cards
        1 << 13,  # not a card bit
        1 << 47,
        3 << 61,  # a SLOUGH of no cards
        (4 << 61) | 1,  # PASS with a card
        5 << 61,  # kinds 5..7 do not exist
        7 << 61,
        (1 << 61) | 1,  # FLIP with a card
        (2 << 61) | 1 << 37,  # PICK_UP with a card
        -1,
        1 << 64,
        ALL_MASK + 1,
    ],
)
def test_from_code_rejects_bad_codes(code: int) -> None:
    with pytest.raises(ParseError, match=f"not a move code: {code}") as info:
        Move.from_code(code)
    assert info.value.text == repr(code)


@pytest.mark.parametrize("code", [True, 1.0, "1", None])
def test_from_code_rejects_non_ints(code: Any) -> None:
    with pytest.raises(ParseError, match=re.escape(repr(code))):
        Move.from_code(code)


# ---- text -------------------------------------------------------------------------


def test_str() -> None:
    assert str(Move.play("7H")) == "7♥"
    assert str(Move.play("9H", "7H", "8H")) == "7♥ 8♥ 9♥"
    assert str(Move.play("TS")) == "10♠"
    assert str(Move.flip()) == "flip"
    assert str(Move.pick_up()) == "pick"


def test_repr() -> None:
    assert repr(Move.play("7H")) == "Move.parse('7♥')"
    assert repr(Move.play("8H", "7H")) == "Move.parse('7♥ 8♥')"
    assert repr(Move.flip()) == "Move.flip()"
    assert repr(Move.pick_up()) == "Move.pick_up()"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("7h", Move.play("7H")),
        ("7H", Move.play("7H")),
        ("  7♥ ", Move.play("7H")),
        ("10h", Move.play("TH")),
        ("th", Move.play("TH")),
        ("7H 8H 9H", Move.play("7H", "8H", "9H")),
        ("7h,8h, 9h", Move.play("7H", "8H", "9H")),
        ("flip", Move.flip()),
        (" FLIP ", Move.flip()),
        ("pick", Move.pick_up()),
        ("Pick", Move.pick_up()),
        ("pick up", Move.pick_up()),
        ("PICK   UP", Move.pick_up()),
        ("pickup", Move.pick_up()),
        ("pick_up", Move.pick_up()),
        ("pass", Move.pass_()),
        (" PASS ", Move.pass_()),
        ("slough 7h 7s", Move.slough("7H", "7S")),
        ("Slough 7♥", Move.slough("7H")),
    ],
)
def test_parse(text: str, expected: Move) -> None:
    assert Move.parse(text) == expected


def test_a_slough_needs_cards() -> None:
    with pytest.raises(ParseError, match="a slough needs cards"):
        Move.parse("slough")


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("", None),
        ("   ", None),
        ("jump", "'jump'"),
        ("7H 1H", "'1H'"),
        ("flip 7H", "'flip'"),
        ("pick it", "'pick'"),
        ("slough 1H", "'1H'"),
        ("passes", "'passes'"),
        ("7", "'7'"),
    ],
)
def test_parse_rejects_naming_the_text(text: str, named: str | None) -> None:
    with pytest.raises(ParseError) as info:
        Move.parse(text)
    message = str(info.value)
    assert repr(text) in message
    if named is not None:
        assert f"({named} is not a card)" in message
    assert info.value.text == text


def test_parse_rejects_non_strings() -> None:
    with pytest.raises(ParseError, match="42"):
        Move.parse(42)  # type: ignore[arg-type]


@given(all_moves)
def test_str_parse_round_trip(move: Move) -> None:
    assert Move.parse(str(move)) == move


@given(all_moves)
def test_repr_evaluates_to_an_equal_move(move: Move) -> None:
    assert eval(repr(move), {"Move": Move}) == move


@given(play_cards, st.booleans(), st.sampled_from([" ", ", ", ","]))
def test_ascii_forms_parse(cards: list[Card], lower: bool, sep: str) -> None:
    text = sep.join(c.rank.label + c.suit.letter for c in cards)
    move = Move.parse(text.lower() if lower else text)
    assert move == Move.play(*cards)


@given(all_moves, all_moves)
def test_equality_and_hash_follow_kind_and_cards(a: Move, b: Move) -> None:
    same = a.kind == b.kind and a.cards == b.cards
    assert (a == b) == same
    if same:
        assert hash(a) == hash(b)


def test_equality_with_other_types() -> None:
    assert Move.play("7H") != "7♥"
    assert Move.play("7H") != Move.play("7H").code
    assert Move.play("7H") != CardSet.parse("7H")


def test_pickle_and_copy_give_the_shared_instance() -> None:
    move = Move.play("7H", "8H")
    assert pickle.loads(pickle.dumps(move)) is Move.from_code(move.code)
    assert pickle.loads(pickle.dumps(Move.flip())) is Move.flip()
    assert copy.deepcopy(Move.pick_up()) is Move.pick_up()
    made = Move(MoveKind.PLAY, CardSet.parse("QS"))
    assert pickle.loads(pickle.dumps(made)) == made


# Issue 9, point 9: Move.parse refuses what Move.play refuses.
@pytest.mark.parametrize("text", ["7h 7h", "7H, 7♥", "7h 8h 7H", "slough 7h 7h", "10h th"])
def test_a_card_given_twice_is_refused_as_move_text(text: str) -> None:
    with pytest.raises(ParseError, match="given twice") as info:
        Move.parse(text)
    assert info.value.text == text


@pytest.mark.parametrize(
    "text", ["7\u017f", "pic\u212a", "PIC\u212a", "fl\u0131p", "pa\u017f\u017f", "\u017flough 7h"]
)
def test_letters_that_fold_to_ascii_are_not_move_words(text: str) -> None:
    with pytest.raises(ParseError):
        Move.parse(text)


@pytest.mark.parametrize("value", [7, None, 3.5, b"7h", ["7h"]])
def test_move_text_of_the_wrong_type_is_a_parse_type_error(value: object) -> None:
    from skitgubbe.errors import ParseTypeError

    with pytest.raises(ParseTypeError):
        Move.parse(value)  # type: ignore[arg-type]
    if not isinstance(value, int):
        with pytest.raises(ParseTypeError):
            Move.from_code(value)  # type: ignore[arg-type]
