"""Tests for skitgubbe.game.cards: Suit, Rank, Card and CardSet."""

from __future__ import annotations

import copy
import pickle
import re
from typing import Any

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from skitgubbe.errors import ParseError, ParseTypeError
from skitgubbe.game.cards import ALL_CARDS, ALL_MASK, Card, CardSet, Rank, Suit

cards_st = st.sampled_from(ALL_CARDS)
card_lists = st.lists(cards_st, max_size=52)
card_sets = card_lists.map(lambda cards: CardSet.of(*cards))

SUIT_LETTERS = {Suit.CLUBS: "C", Suit.DIAMONDS: "D", Suit.HEARTS: "H", Suit.SPADES: "S"}
SUIT_SYMBOLS = {Suit.CLUBS: "♣", Suit.DIAMONDS: "♦", Suit.HEARTS: "♥", Suit.SPADES: "♠"}


# ---- Suit and Rank ------------------------------------------------------------


def test_suit_values_match_the_core() -> None:
    assert [(s.name, int(s)) for s in Suit] == [
        ("CLUBS", 0),
        ("DIAMONDS", 1),
        ("HEARTS", 2),
        ("SPADES", 3),
    ]


def test_suit_symbol_letter_and_str() -> None:
    for suit in Suit:
        assert suit.symbol == SUIT_SYMBOLS[suit]
        assert suit.letter == SUIT_LETTERS[suit]
        assert str(suit) == SUIT_SYMBOLS[suit]
        assert f"{suit}" == SUIT_SYMBOLS[suit]
    assert f"{Suit.HEARTS:>3}" == "  ♥"


def test_rank_values_and_labels() -> None:
    assert [int(r) for r in Rank] == list(range(2, 15))
    labels = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
    assert [r.label for r in Rank] == labels
    assert [str(r) for r in Rank] == labels
    assert [f"{r}" for r in Rank] == labels
    assert Rank.ACE > Rank.KING > Rank.TWO


# ---- Card ---------------------------------------------------------------------


def test_card_code_and_mask_follow_the_core_encoding() -> None:
    for suit in Suit:
        for rank in Rank:
            card = Card(suit, rank)
            assert card.code == suit * 16 + rank - 2
            assert card.mask == 1 << card.code
            assert (card.suit, card.rank) == (suit, rank)


def test_card_accepts_plain_ints_and_converts_them() -> None:
    card = Card(2, 7)
    assert card.suit is Suit.HEARTS
    assert card.rank is Rank.SEVEN
    assert card == Card.parse("7H")


@pytest.mark.parametrize(
    ("suit", "rank", "bad"),
    [
        (4, 7, "4"),
        (-1, 7, "-1"),
        (2, 1, "1"),
        (2, 15, "15"),
    ],
)
def test_card_constructor_rejects_bad_suit_or_rank(suit: Any, rank: Any, bad: str) -> None:
    with pytest.raises(ParseError, match=re.escape(bad)) as info:
        Card(suit, rank)
    assert type(info.value) is ParseError
    assert info.value.text == bad


@pytest.mark.parametrize(
    ("suit", "rank", "bad"),
    [
        (True, 7, "True"),
        (2, False, "False"),
        ("H", 7, "'H'"),
        (2, "7", "'7'"),
        (2.0, 7, "2.0"),
    ],
)
def test_card_constructor_rejects_suits_and_ranks_of_the_wrong_type(
    suit: Any, rank: Any, bad: str
) -> None:
    with pytest.raises(TypeError, match=re.escape(bad)) as info:
        Card(suit, rank)
    assert isinstance(info.value, ParseTypeError)
    assert info.value.text == bad


def test_card_is_frozen() -> None:
    card = Card.parse("7H")
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        card.rank = Rank.ACE  # type: ignore[misc]
    assert card.rank is Rank.SEVEN


def test_card_from_code_returns_the_shared_instance() -> None:
    for card in ALL_CARDS:
        assert Card.from_code(card.code) is card
    assert Card.from_code(37) is Card.parse("7♥")


@pytest.mark.parametrize("code", [-1, 13, 14, 15, 29, 45, 61, 64, 1 << 70])
def test_card_from_code_rejects_non_card_codes(code: int) -> None:
    with pytest.raises(ParseError, match=f"not a card code: {code}") as info:
        Card.from_code(code)
    assert info.value.text == repr(code)


@pytest.mark.parametrize("code", [True, False, 1.0, "5", None])
def test_card_from_code_rejects_non_ints(code: Any) -> None:
    with pytest.raises(ParseTypeError, match=re.escape(repr(code))):
        Card.from_code(code)


def test_card_from_code_accepts_int_subclasses() -> None:
    # An IntEnum is an int: Suit.HEARTS is code 2, the four of clubs.
    assert Card.from_code(Suit.HEARTS) is Card.parse("4C")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("7H", (Suit.HEARTS, Rank.SEVEN)),
        ("7h", (Suit.HEARTS, Rank.SEVEN)),
        ("10H", (Suit.HEARTS, Rank.TEN)),
        ("10h", (Suit.HEARTS, Rank.TEN)),
        ("TH", (Suit.HEARTS, Rank.TEN)),
        ("th", (Suit.HEARTS, Rank.TEN)),
        ("7♥", (Suit.HEARTS, Rank.SEVEN)),
        ("Q♠", (Suit.SPADES, Rank.QUEEN)),
        ("qs", (Suit.SPADES, Rank.QUEEN)),
        ("  ad\n", (Suit.DIAMONDS, Rank.ACE)),
        ("2c", (Suit.CLUBS, Rank.TWO)),
        ("k♣", (Suit.CLUBS, Rank.KING)),
        ("J♦", (Suit.DIAMONDS, Rank.JACK)),
        ("9♡", (Suit.HEARTS, Rank.NINE)),
        ("7♥\ufe0f", (Suit.HEARTS, Rank.SEVEN)),
    ],
)
def test_card_parse_accepts(text: str, expected: tuple[Suit, Rank]) -> None:
    card = Card.parse(text)
    assert (card.suit, card.rank) == expected
    assert card is Card.from_code(card.code)


@pytest.mark.parametrize(
    "text",
    ["", "   ", "7", "H", "1H", "11H", "0H", "7X", "H7", "7 H", "7HH", "10", "1♥", "T"],
)
def test_card_parse_rejects_and_names_the_text(text: str) -> None:
    with pytest.raises(ParseError) as info:
        Card.parse(text)
    assert repr(text) in str(info.value)
    assert info.value.text == text


@pytest.mark.parametrize("value", [7, None, b"7H", Card.parse("7H")])
def test_card_parse_rejects_non_strings(value: Any) -> None:
    with pytest.raises(ParseTypeError, match=re.escape(repr(value))) as info:
        Card.parse(value)
    assert isinstance(info.value, TypeError) and info.value.text == repr(value)


def test_card_str_and_repr() -> None:
    assert str(Card.parse("7H")) == "7♥"
    assert str(Card.parse("TS")) == "10♠"
    assert str(Card.parse("ac")) == "A♣"
    assert repr(Card.parse("qd")) == "Card.parse('Q♦')"
    assert f"{Card.parse('7H'):>4}" == "  7♥"
    assert f"{Card.parse('10S'):<4}|" == "10♠ |"


def test_card_repr_evaluates_to_an_equal_card() -> None:
    for card in ALL_CARDS:
        assert eval(repr(card), {"Card": Card}) is card


@given(cards_st)
def test_card_str_parse_round_trip(card: Card) -> None:
    assert Card.parse(str(card)) is card


@given(
    cards_st,
    st.booleans(),
    st.booleans(),
    st.sampled_from(["", " ", "\t", "\n "]),
)
def test_card_ascii_forms_parse(card: Card, lower: bool, ten_as_t: bool, pad: str) -> None:
    rank = "T" if ten_as_t and card.rank == Rank.TEN else card.rank.label
    text = rank + card.suit.letter
    if lower:
        text = text.lower()
    assert Card.parse(pad + text + pad) is card


def test_cards_order_by_rank_then_suit() -> None:
    seven_clubs, seven_spades, king_clubs = (Card.parse(t) for t in ("7C", "7S", "KC"))
    assert seven_clubs < seven_spades < king_clubs
    assert king_clubs > seven_spades >= seven_spades
    assert seven_clubs <= seven_clubs
    assert not seven_spades < seven_clubs
    expected = sorted(ALL_CARDS, key=lambda c: (int(c.rank), int(c.suit)))
    assert sorted(reversed(ALL_CARDS)) == expected


@given(cards_st, cards_st)
def test_card_comparisons_agree_with_rank_suit_tuples(a: Card, b: Card) -> None:
    ka, kb = (a.rank, a.suit), (b.rank, b.suit)
    assert (a < b) == (ka < kb)
    assert (a <= b) == (ka <= kb)
    assert (a > b) == (ka > kb)
    assert (a >= b) == (ka >= kb)
    assert (a == b) == (ka == kb)


def test_card_comparison_with_other_types() -> None:
    card = Card.parse("7H")
    assert card != 37
    assert card != "7H"
    with pytest.raises(TypeError):
        card < 37  # type: ignore[operator]  # noqa: B015


def test_constructed_cards_equal_and_hash_like_shared_ones() -> None:
    made = Card(Suit.HEARTS, Rank.SEVEN)
    shared = Card.parse("7H")
    assert made == shared
    assert made is not shared
    assert hash(made) == hash(shared)
    assert len({made, shared}) == 1
    assert made != Card.parse("7D")


def test_card_pickle_and_copy_give_the_shared_instance() -> None:
    card = Card.parse("7H")
    assert pickle.loads(pickle.dumps(card)) is card
    assert copy.copy(card) is card
    assert copy.deepcopy(card) is card
    assert pickle.loads(pickle.dumps(Card(Suit.SPADES, Rank.ACE))) is Card.parse("AS")


def test_all_cards() -> None:
    assert len(ALL_CARDS) == 52
    assert len(set(ALL_CARDS)) == 52
    assert [card.code for card in ALL_CARDS] == sorted(card.code for card in ALL_CARDS)
    assert ALL_CARDS[0] == Card.parse("2C")
    assert ALL_CARDS[-1] == Card.parse("AS")
    mask = 0
    for card in ALL_CARDS:
        mask |= card.mask
    assert mask == ALL_MASK == 0x1FFF1FFF1FFF1FFF


# ---- CardSet ------------------------------------------------------------------


def test_cardset_empty() -> None:
    empty = CardSet()
    assert empty.mask == 0
    assert len(empty) == 0
    assert not empty
    assert list(empty) == []
    assert str(empty) == ""
    assert repr(empty) == "CardSet()"
    assert empty == CardSet.parse("") == CardSet.parse("  , ") == CardSet.of()


def test_cardset_from_mask() -> None:
    cards = CardSet(Card.parse("7H").mask | Card.parse("2C").mask)
    assert list(cards) == [Card.parse("2C"), Card.parse("7H")]
    assert CardSet(ALL_MASK) == CardSet.full()
    assert len(CardSet.full()) == 52


@pytest.mark.parametrize("mask", [-1, 1 << 13, 1 << 61, 1 << 64, ALL_MASK + 1, ALL_MASK | 1 << 15])
def test_cardset_rejects_non_card_bits(mask: int) -> None:
    with pytest.raises(ParseError, match="not a card mask") as info:
        CardSet(mask)
    assert info.value.text == repr(mask)


@pytest.mark.parametrize("mask", [True, 1.0, "1", None, [1]])
def test_cardset_rejects_non_ints(mask: Any) -> None:
    with pytest.raises(ParseTypeError, match=re.escape(repr(mask))):
        CardSet(mask)


def test_cardset_of_accepts_cards_and_text() -> None:
    cards = CardSet.of(Card.parse("AS"), "2c", "7♥", "7H")
    assert cards == CardSet.parse("2C 7H AS")
    assert len(cards) == 3


def test_cardset_of_rejects_bad_items() -> None:
    with pytest.raises(ParseError, match="'1H'") as info:
        CardSet.of("1H")
    assert not isinstance(info.value, TypeError)
    with pytest.raises(ParseTypeError, match="37"):
        CardSet.of(37)  # type: ignore[arg-type]


def test_cardset_parse_separators() -> None:
    expected = CardSet.of("7H", "8H", "9H")
    for text in ["7H 8H 9H", "7h,8h,9h", " 7♥, 8♥\t9♥ ", "9H 8H 7H", "7H 7H 8H 9H"]:
        assert CardSet.parse(text) == expected


def test_cardset_parse_error_names_the_token_and_the_text() -> None:
    with pytest.raises(ParseError) as info:
        CardSet.parse("7H 1H 9H")
    assert "'1H'" in str(info.value)
    assert "'7H 1H 9H'" in str(info.value)
    assert info.value.text == "7H 1H 9H"


def test_cardset_parse_rejects_non_strings() -> None:
    with pytest.raises(ParseTypeError, match="42"):
        CardSet.parse(42)  # type: ignore[arg-type]


def test_cardset_iterates_in_code_order() -> None:
    cards = CardSet.parse("AS 2D KC 7H 2C")
    assert [str(c) for c in cards] == ["2♣", "K♣", "2♦", "7♥", "A♠"]
    assert list(CardSet.full()) == list(ALL_CARDS)


def test_cardset_iteration_yields_shared_instances() -> None:
    for card in CardSet.full():
        assert card is Card.from_code(card.code)


def test_cardset_str_and_repr() -> None:
    cards = CardSet.parse("8H 7H")
    assert str(cards) == "7♥ 8♥"
    assert repr(cards) == "CardSet.parse('7♥ 8♥')"


def test_cardset_contains() -> None:
    cards = CardSet.parse("7H 8H")
    assert Card.parse("7H") in cards
    assert Card(Suit.HEARTS, Rank.EIGHT) in cards
    assert Card.parse("7D") not in cards
    assert "7H" not in cards
    assert 37 not in cards


def test_cardset_suit_rank_and_ranks() -> None:
    cards = CardSet.parse("7H 8S 9H 7C AD 7S")
    assert cards.suit(Suit.HEARTS) == CardSet.parse("7H 9H")
    assert cards.suit(Suit.CLUBS) == CardSet.parse("7C")
    assert cards.suit(Suit.DIAMONDS) == CardSet.parse("AD")
    assert cards.suit(Suit.SPADES) == CardSet.parse("7S 8S")
    assert cards.rank(Rank.SEVEN) == CardSet.parse("7C 7H 7S")
    assert cards.rank(Rank.TWO) == CardSet()
    assert cards.ranks() == (Rank.SEVEN, Rank.EIGHT, Rank.NINE, Rank.ACE)
    assert CardSet().ranks() == ()
    assert CardSet.full().ranks() == tuple(Rank)


def test_cardset_suit_and_rank_reject_bad_arguments() -> None:
    with pytest.raises(ParseError, match="not a suit: 4"):
        CardSet.full().suit(4)  # type: ignore[arg-type]
    with pytest.raises(ParseError, match="not a rank: 1"):
        CardSet.full().rank(1)  # type: ignore[arg-type]
    with pytest.raises(ParseTypeError, match="not a suit: 'hearts'"):
        CardSet.full().suit("hearts")  # type: ignore[arg-type]


@given(card_sets)
def test_cardset_suit_and_rank_agree_with_filters(cards: CardSet) -> None:
    for suit in Suit:
        assert set(cards.suit(suit)) == {c for c in cards if c.suit == suit}
    for rank in Rank:
        assert set(cards.rank(rank)) == {c for c in cards if c.rank == rank}
    assert cards.ranks() == tuple(sorted({c.rank for c in cards}))


@given(card_lists)
def test_cardset_behaves_like_a_python_set(cards: list[Card]) -> None:
    cs = CardSet.of(*cards)
    py = set(cards)
    assert len(cs) == len(py)
    assert set(cs) == py
    assert bool(cs) == bool(py)
    assert list(cs) == sorted(py, key=lambda c: c.code)
    for card in ALL_CARDS:
        assert (card in cs) == (card in py)


@given(card_lists, card_lists)
def test_cardset_algebra_matches_python_sets(xs: list[Card], ys: list[Card]) -> None:
    a, b = CardSet.of(*xs), CardSet.of(*ys)
    pa, pb = set(xs), set(ys)
    assert set(a | b) == pa | pb
    assert set(a & b) == pa & pb
    assert set(a - b) == pa - pb
    assert set(a ^ b) == pa ^ pb
    assert set(~a) == set(ALL_CARDS) - pa
    assert (a <= b) == (pa <= pb)
    assert (a < b) == (pa < pb)
    assert (a >= b) == (pa >= pb)
    assert (a > b) == (pa > pb)
    assert (a == b) == (pa == pb)
    assert (a != b) == (pa != pb)
    assert a.isdisjoint(b) == pa.isdisjoint(pb)


@given(card_sets)
def test_cardset_str_parse_round_trip(cards: CardSet) -> None:
    assert CardSet.parse(str(cards)) == cards


@given(card_sets, st.sampled_from([" ", ",", ", ", "  \t"]), st.booleans())
def test_cardset_ascii_forms_parse(cards: CardSet, sep: str, lower: bool) -> None:
    text = sep.join(c.rank.label + c.suit.letter for c in cards)
    assert CardSet.parse(text.lower() if lower else text) == cards


@given(card_sets)
def test_cardset_repr_evaluates_to_an_equal_set(cards: CardSet) -> None:
    assert eval(repr(cards), {"CardSet": CardSet}) == cards


@given(card_sets)
def test_cardset_mask_round_trip_and_hash(cards: CardSet) -> None:
    again = CardSet(cards.mask)
    assert again == cards
    assert hash(again) == hash(cards)
    assert len({again, cards}) == 1


def test_cardset_equality_with_other_types() -> None:
    cards = CardSet.parse("7H")
    assert cards != Card.parse("7H").mask
    assert cards != {Card.parse("7H")}
    with pytest.raises(TypeError):
        cards | {Card.parse("8H")}  # type: ignore[operator]
    with pytest.raises(TypeError):
        cards <= 5  # type: ignore[operator]  # noqa: B015


def test_cardset_is_frozen_and_picklable() -> None:
    cards = CardSet.parse("7H 8H")
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        cards.mask = 0  # type: ignore[misc]
    assert pickle.loads(pickle.dumps(cards)) == cards
    assert copy.deepcopy(cards) == cards
    assert cards.mask == CardSet.parse("7H 8H").mask


def test_cardset_operations_return_cardsets() -> None:
    a, b = CardSet.parse("7H 8H"), CardSet.parse("8H 9H")
    for result in (a | b, a & b, a - b, a ^ b, ~a, a.suit(Suit.HEARTS)):
        assert type(result) is CardSet
        assert result.mask & ~ALL_MASK == 0


# Issue 9, point 9: only the ASCII letters fold case. str.upper() turns the long s
# into "S", dotless i into "I" and the ligature "ﬅ" into "ST"; none of them is a
# documented spelling, so none of them parses.
@pytest.mark.parametrize(
    "text",
    [
        "7\u017f",  # long s: "ſ".upper() == "S"
        "\u212a\u017f",  # Kelvin sign K and long s
        "\u212aS",  # Kelvin sign, an upper-case letter that lower-cases to "k"
        "7\u0131",  # dotless i
        "A\u017f",
        "\uff17H",  # fullwidth digit seven
        "7\uff28",  # fullwidth H
        "1\u0030\u017f",
    ],
)
def test_letters_that_fold_to_ascii_are_not_suits_or_ranks(text: str) -> None:
    with pytest.raises(ParseError):
        Card.parse(text)
    with pytest.raises(ParseError):
        CardSet.parse(f"7H {text}")


def test_a_repeated_card_counts_once_in_a_set() -> None:
    # A CardSet is a set: a repeat is harmless and documented (Move.parse refuses it).
    assert CardSet.parse("7h 7H 7♥") == CardSet.parse("7H")


@pytest.mark.parametrize("value", [3.5, None, "7H", [1], pytest.param(10**5000, id="huge")])
def test_bad_codes_and_masks_with_huge_or_odd_values_are_parse_errors(value: object) -> None:
    with pytest.raises(ParseError):
        Card.from_code(value)  # type: ignore[arg-type]
    with pytest.raises(ParseError):
        CardSet(value)  # type: ignore[arg-type]


def test_deeply_nested_values_are_parse_type_errors_not_recursion_errors() -> None:
    nested: list[Any] = []
    for _ in range(100_000):
        nested = [nested]
    for parse in (Card.parse, CardSet.parse, Card.from_code, CardSet, CardSet.of):
        with pytest.raises(ParseTypeError):
            parse(nested)
