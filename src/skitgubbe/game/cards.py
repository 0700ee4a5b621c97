"""Suits, ranks, cards and sets of cards.

The encoding is the C core's: a card is bit ``suit * 16 + (rank - 2)`` of a
64-bit mask (clubs 0, diamonds 1, hearts 2, spades 3; two 0 … ace 12), so a
:class:`CardSet` is a plain ``int`` and set algebra is bit arithmetic.

There are only 52 cards and every one is built once: :meth:`Card.from_code`,
:meth:`Card.parse` and iterating a :class:`CardSet` return these shared
instances, so code that handles millions of cards allocates none.

Values that do not describe a card (bad text, codes or masks) raise
:class:`~skitgubbe.errors.ParseError` naming the offending input; values of
the wrong type raise :class:`~skitgubbe.errors.ParseTypeError`, which is both
a ``ParseError`` and a :class:`TypeError`.

>>> hand = CardSet.parse("7H 10S QH")
>>> [str(card) for card in hand]
['7♥', 'Q♥', '10♠']
>>> Card.parse("qh") in hand
True
>>> str(hand.suit(Suit.HEARTS))
'7♥ Q♥'
"""

from __future__ import annotations

import operator
from collections.abc import Iterator
from enum import IntEnum
from typing import Any, Final

import attrs

from .._text import ascii_upper, brief
from ..errors import ParseError, ParseTypeError

__all__ = [
    "ALL_CARDS",
    "ALL_MASK",
    "Card",
    "CardSet",
    "Rank",
    "Suit",
]

#: Every card bit of the 64-bit encoding (13 bits per suit, 16 apart).
ALL_MASK: Final = 0x1FFF1FFF1FFF1FFF
_RANK_BITS: Final = 0x1FFF


class Suit(IntEnum):
    """The four suits, numbered as in the C core.

    ``str()`` gives the symbol; :attr:`letter` gives the ASCII letter.

    >>> [str(suit) for suit in Suit]
    ['♣', '♦', '♥', '♠']
    >>> Suit.HEARTS.letter, int(Suit.HEARTS)
    ('H', 2)
    """

    CLUBS = 0
    DIAMONDS = 1
    HEARTS = 2
    SPADES = 3

    @property
    def symbol(self) -> str:
        """The suit symbol.

        >>> Suit.SPADES.symbol
        '♠'
        """
        return "♣♦♥♠"[self]

    @property
    def letter(self) -> str:
        """The ASCII letter: ``C``, ``D``, ``H`` or ``S``.

        >>> Suit.DIAMONDS.letter
        'D'
        """
        return "CDHS"[self]

    def __str__(self) -> str:
        return self.symbol

    def __format__(self, spec: str) -> str:
        return format(self.symbol, spec)


_LABELS: Final = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")


class Rank(IntEnum):
    """The thirteen ranks, valued 2 (low) … 14 (ace, high).

    ``str()`` gives the label.

    >>> Rank.ACE > Rank.KING, int(Rank.TEN), str(Rank.TEN), str(Rank.QUEEN)
    (True, 10, '10', 'Q')
    """

    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10
    JACK = 11
    QUEEN = 12
    KING = 13
    ACE = 14

    @property
    def label(self) -> str:
        """The label printed on the card: ``2`` … ``10``, ``J``, ``Q``, ``K``, ``A``.

        >>> Rank.SEVEN.label, Rank.KING.label
        ('7', 'K')
        """
        return _LABELS[self - 2]

    def __str__(self) -> str:
        return self.label

    def __format__(self, spec: str) -> str:
        return format(self.label, spec)


def _to_suit(value: int) -> Suit:
    if isinstance(value, Suit):
        return value
    message = f"not a suit: {brief(value)}; expected a Suit or an int 0..3"
    if not isinstance(value, int) or isinstance(value, bool):
        raise ParseTypeError(message, brief(value))
    if 0 <= value <= 3:
        return Suit(value)
    raise ParseError(message, brief(value))


def _to_rank(value: int) -> Rank:
    if isinstance(value, Rank):
        return value
    message = f"not a rank: {brief(value)}; expected a Rank or an int 2..14"
    if not isinstance(value, int) or isinstance(value, bool):
        raise ParseTypeError(message, brief(value))
    if 2 <= value <= 14:
        return Rank(value)
    raise ParseError(message, brief(value))


@attrs.frozen(eq=False, repr=False)
class Card:
    """One playing card: immutable, hashable and ordered by rank, then suit.

    ``Card(suit, rank)`` validates its arguments; :meth:`parse` and
    :meth:`from_code` return the shared instance of each card, which is what
    the rest of the library uses. Equal cards compare and hash equal however
    they were made.

    >>> card = Card(Suit.HEARTS, Rank.SEVEN)
    >>> card, str(card)
    (Card.parse('7♥'), '7♥')
    >>> card.suit, card.rank, card.code, card.mask == 1 << 37
    (<Suit.HEARTS: 2>, <Rank.SEVEN: 7>, 37, True)
    >>> card == Card.parse("7h") and card is not Card.parse("7h")
    True
    >>> sorted(Card.parse(text) for text in ["KC", "7S", "7C"])
    [Card.parse('7♣'), Card.parse('7♠'), Card.parse('K♣')]
    >>> Card(Suit.HEARTS, 15)
    Traceback (most recent call last):
        ...
    skitgubbe.errors.ParseError: not a rank: 15; expected a Rank or an int 2..14
    """

    suit: Suit = attrs.field(converter=_to_suit)
    """The suit."""
    rank: Rank = attrs.field(converter=_to_rank)
    """The rank."""
    code: int = attrs.field(init=False)
    """The C core's bit index, ``suit * 16 + (rank - 2)``."""
    mask: int = attrs.field(init=False)
    """``1 << code``: the card as a one-card mask."""
    _order: int = attrs.field(init=False)

    def __attrs_post_init__(self) -> None:
        code = self.suit * 16 + self.rank - 2
        object.__setattr__(self, "code", code)
        object.__setattr__(self, "mask", 1 << code)
        object.__setattr__(self, "_order", (self.rank << 2) | self.suit)

    @staticmethod
    def from_code(code: int) -> Card:
        """The card with C-core bit index ``code`` (the shared instance).

        >>> Card.from_code(37)
        Card.parse('7♥')
        >>> Card.from_code(37) is Card.from_code(37)
        True
        >>> Card.from_code(13)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
            ...
        skitgubbe.errors.ParseError: not a card code: 13; ...
        """
        # type() rather than isinstance(): True and 1.0 hash like 1 and would
        # otherwise find a card in the table.
        if type(code) is int:
            card = _BY_CODE.get(code)
            if card is not None:
                return card
        elif isinstance(code, int) and not isinstance(code, bool):
            return Card.from_code(int(code))
        else:
            raise ParseTypeError(f"not a card code: {brief(code)}; expected an int", brief(code))
        raise ParseError(
            f"not a card code: {brief(code)}; card codes are suit * 16 + (rank - 2), "
            "suit 0..3, rank 2..14",
            brief(code),
        )

    @property
    def index(self) -> int:
        """The card's place in card order, ``suit * 13 + (rank - 2)``: 0 (2♣) to 51 (A♠).

        The deck's order and :mod:`integer actions <skitgubbe.game.actions>` use it.

        >>> Card.parse("2C").index, Card.parse("7H").index, Card.parse("AS").index
        (0, 31, 51)
        """
        return self.suit * 13 + self.rank - 2

    @staticmethod
    def from_index(index: int) -> Card:
        """The card at ``index`` in card order (see :attr:`index`; the shared instance).

        >>> Card.from_index(31)
        Card.parse('7♥')
        >>> Card.from_index(52)
        Traceback (most recent call last):
            ...
        skitgubbe.errors.ParseError: not a card index: 52; card indices are 0..51
        """
        if type(index) is not int:
            # numpy's integers (and anything with __index__) are indices too.
            if isinstance(index, bool) or not hasattr(type(index), "__index__"):
                message = f"not a card index: {brief(index)}; expected an int"
                raise ParseTypeError(message, brief(index))
            index = operator.index(index)
        if not 0 <= index < 52:
            raise ParseError(
                f"not a card index: {brief(index)}; card indices are 0..51", brief(index)
            )
        return _BY_CODE[index // 13 * 16 + index % 13]

    @staticmethod
    def parse(text: str) -> Card:
        """Parse one card: a rank then a suit, case-insensitive.

        Ranks are ``2`` … ``10``, ``T`` (ten), ``J``, ``Q``, ``K``, ``A``; suits
        are the letters ``C D H S`` or the symbols ``♣ ♦ ♥ ♠`` (the white
        symbols ``♧ ♢ ♡ ♤`` and emoji variation selectors are accepted too).
        Surrounding whitespace is ignored. Only ASCII letters fold case: other
        letters that upper-case to ASCII (``ſ``, dotless ``ı``) are refused.
        Returns the shared instance.

        >>> Card.parse("7H"), Card.parse(" th "), Card.parse("Q♠")
        (Card.parse('7♥'), Card.parse('10♥'), Card.parse('Q♠'))
        >>> Card.parse("1H")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
            ...
        skitgubbe.errors.ParseError: not a card: '1H'; ...
        >>> Card.parse("7ſ")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
            ...
        skitgubbe.errors.ParseError: not a card: '7ſ'; ...
        """
        if not isinstance(text, str):
            raise ParseTypeError(f"not card text: {brief(text)}; expected a str", brief(text))
        key = ascii_upper(text.strip())
        card = _BY_TEXT.get(key)
        if card is not None:
            return card
        card = _BY_TEXT.get(key.replace("\ufe0f", "").replace("\ufe0e", ""))
        if card is not None:
            return card
        raise ParseError(
            f"not a card: {brief(text)}; expected a rank (2-10, T, J, Q, K, A) followed "
            "by a suit (C, D, H, S or ♣ ♦ ♥ ♠), e.g. '7H', '10♠'",
            text,
        )

    def __str__(self) -> str:
        return _LABELS[self.rank - 2] + "♣♦♥♠"[self.suit]

    def __repr__(self) -> str:
        return f"Card.parse({str(self)!r})"

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Card):
            return self.code == other.code
        return NotImplemented

    def __hash__(self) -> int:
        return self.code

    def __lt__(self, other: Card) -> bool:
        if isinstance(other, Card):
            return self._order < other._order
        return NotImplemented

    def __le__(self, other: Card) -> bool:
        if isinstance(other, Card):
            return self._order <= other._order
        return NotImplemented

    def __gt__(self, other: Card) -> bool:
        if isinstance(other, Card):
            return self._order > other._order
        return NotImplemented

    def __ge__(self, other: Card) -> bool:
        if isinstance(other, Card):
            return self._order >= other._order
        return NotImplemented

    def __reduce__(self) -> tuple[Any, ...]:
        # Unpickling and copying give back the shared instance.
        return (Card.from_code, (self.code,))


#: The 52 cards in C-core code order: clubs 2 … A, diamonds, hearts, spades.
#: This is also the order of the unshuffled deck the core's shuffle starts from.
ALL_CARDS: Final[tuple[Card, ...]] = tuple(Card(s, r) for s in Suit for r in Rank)
_BY_CODE: Final[dict[int, Card]] = {card.code: card for card in ALL_CARDS}
_BY_MASK: Final[dict[int, Card]] = {card.mask: card for card in ALL_CARDS}


def _text_table() -> dict[str, Card]:
    suit_names = {
        Suit.CLUBS: ("C", "♣", "♧"),
        Suit.DIAMONDS: ("D", "♦", "♢"),
        Suit.HEARTS: ("H", "♥", "♡"),
        Suit.SPADES: ("S", "♠", "♤"),
    }
    table: dict[str, Card] = {}
    for card in ALL_CARDS:
        rank_names = [card.rank.label] + (["T"] if card.rank == Rank.TEN else [])
        for rank_name in rank_names:
            for suit_name in suit_names[card.suit]:
                table[rank_name + suit_name] = card
    return table


_BY_TEXT: Final[dict[str, Card]] = _text_table()


def parse_card_list(text: str) -> list[Card]:
    """The cards of ``text`` in order, repeats kept (what CardSet.parse and Move.parse read).

    >>> parse_card_list("7h 7c 7h")
    [Card.parse('7♥'), Card.parse('7♣'), Card.parse('7♥')]
    """
    if not isinstance(text, str):
        raise ParseTypeError(f"not card text: {brief(text)}; expected a str", brief(text))
    cards = []
    for token in text.replace(",", " ").split():
        card = _BY_TEXT.get(ascii_upper(token))
        if card is None:
            try:
                card = Card.parse(token)
            except ParseError:
                raise ParseError(
                    f"not a card: {brief(token, 24)} in {brief(text)}; expected cards such as "
                    "'7H 10S QD' or '7♥ 10♠ Q♦'",
                    text,
                ) from None
        cards.append(card)
    return cards


def _to_mask(value: int) -> int:
    if type(value) is int and not value & ~ALL_MASK:
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        value = int(value)
        if not value & ~ALL_MASK:
            return value
        raise ParseError(
            f"not a card mask: {value:#x}; only the card bits {ALL_MASK:#x} may be set",
            brief(value),
        )
    raise ParseTypeError(f"not a card mask: {brief(value)}; expected an int", brief(value))


def unchecked_set(mask: int) -> CardSet:
    """The set of the card bits ``mask``, made without checking them.

    Only for masks known to hold card bits only, such as those the C core
    returns (the game state, events and the protocol use it); it writes the
    slot directly, because the engine makes several sets per observation.

    >>> unchecked_set(CardSet.parse("2c 3c").mask) == CardSet.parse("2c 3c")
    True
    """
    cards = _object_new(CardSet)
    _set_mask(cards, mask)
    return cards


@attrs.frozen(eq=False, repr=False)
class CardSet:
    """An immutable set of cards stored as a 52-card bit mask.

    Supports ``len``, ``in`` (with a :class:`Card`), ``bool``, iteration,
    ``| & - ^`` and ``~`` (the complement within the 52 cards), ``==`` and
    ``hash`` by mask, and ``<= < >= >`` as subset/superset tests.

    Iteration is in ascending code order: clubs 2 … A, then diamonds, hearts,
    spades (the C core's order, not the rank order of :class:`Card`).

    >>> a = CardSet.parse("7H 8H 9H")
    >>> b = CardSet.parse("9H 10S")
    >>> a | b
    CardSet.parse('7♥ 8♥ 9♥ 10♠')
    >>> a & b, a - b, a ^ b
    (CardSet.parse('9♥'), CardSet.parse('7♥ 8♥'), CardSet.parse('7♥ 8♥ 10♠'))
    >>> len(a), Card.parse("8H") in a, CardSet.parse("7H") <= a
    (3, True, True)
    >>> CardSet.parse("2C 4C").mask, CardSet(5)
    (5, CardSet.parse('2♣ 4♣'))
    >>> CardSet(1 << 13)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    skitgubbe.errors.ParseError: not a card mask: 0x2000; ...
    """

    mask: int = attrs.field(default=0, converter=_to_mask)
    """The bit mask: bit ``card.code`` is set for each card in the set."""

    @staticmethod
    def of(*cards: Card | str) -> CardSet:
        """The set of the given cards (:class:`Card` objects or card text).

        >>> CardSet.of(Card.parse("AS"), "2c")
        CardSet.parse('2♣ A♠')
        """
        mask = 0
        for card in cards:
            if isinstance(card, Card):
                mask |= card.mask
            elif isinstance(card, str):
                mask |= Card.parse(card).mask
            else:
                raise ParseTypeError(
                    f"not a card: {brief(card)}; expected a Card or card text",
                    brief(card),
                )
        return unchecked_set(mask)

    @staticmethod
    def parse(text: str) -> CardSet:
        """Parse cards separated by whitespace and/or commas (see :meth:`Card.parse`).

        The empty string gives the empty set; a card given twice counts once
        (this is a set: :meth:`Move.parse <skitgubbe.Move.parse>`, which reads
        what a player lays, refuses a repeated card).

        >>> CardSet.parse("7H, 8h 9♥")
        CardSet.parse('7♥ 8♥ 9♥')
        >>> CardSet.parse("")
        CardSet()
        >>> CardSet.parse("7H 1H")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
            ...
        skitgubbe.errors.ParseError: not a card: '1H' in '7H 1H'; ...
        """
        mask = 0
        for card in parse_card_list(text):
            mask |= card.mask
        return unchecked_set(mask)

    @staticmethod
    def full() -> CardSet:
        """All 52 cards.

        >>> len(CardSet.full())
        52
        """
        return unchecked_set(ALL_MASK)

    def suit(self, suit: Suit) -> CardSet:
        """The cards of one suit.

        >>> CardSet.parse("7H 8S 9H").suit(Suit.HEARTS)
        CardSet.parse('7♥ 9♥')
        """
        return unchecked_set(self.mask & (_RANK_BITS << (16 * _to_suit(suit))))

    def rank(self, rank: Rank) -> CardSet:
        """The cards of one rank.

        >>> CardSet.parse("7H 8S 7C").rank(Rank.SEVEN)
        CardSet.parse('7♣ 7♥')
        """
        return unchecked_set(self.mask & (0x0001000100010001 << (_to_rank(rank) - 2)))

    def ranks(self) -> tuple[Rank, ...]:
        """The distinct ranks in the set, lowest first.

        >>> CardSet.parse("KH 7S 7C AD").ranks()
        (<Rank.SEVEN: 7>, <Rank.KING: 13>, <Rank.ACE: 14>)
        """
        mask = self.mask
        bits = (mask | mask >> 16 | mask >> 32 | mask >> 48) & _RANK_BITS
        ranks = []
        while bits:
            low = bits & -bits
            ranks.append(Rank(low.bit_length() + 1))
            bits ^= low
        return tuple(ranks)

    def isdisjoint(self, other: CardSet) -> bool:
        """Whether the two sets share no card.

        >>> CardSet.parse("7H").isdisjoint(CardSet.parse("8H"))
        True
        """
        return not self.mask & other.mask

    def __len__(self) -> int:
        return self.mask.bit_count()

    def __bool__(self) -> bool:
        return bool(self.mask)

    def __contains__(self, card: object) -> bool:
        if isinstance(card, Card):
            return bool(self.mask & card.mask)
        return False

    def __iter__(self) -> Iterator[Card]:
        mask = self.mask
        by_mask = _BY_MASK
        while mask:
            low = mask & -mask
            yield by_mask[low]
            mask ^= low

    def __str__(self) -> str:
        return " ".join([str(card) for card in self])

    def __repr__(self) -> str:
        if not self.mask:
            return "CardSet()"
        return f"CardSet.parse({str(self)!r})"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, CardSet):
            return self.mask == other.mask
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.mask)

    def __or__(self, other: CardSet) -> CardSet:
        if isinstance(other, CardSet):
            return unchecked_set(self.mask | other.mask)
        return NotImplemented

    def __and__(self, other: CardSet) -> CardSet:
        if isinstance(other, CardSet):
            return unchecked_set(self.mask & other.mask)
        return NotImplemented

    def __sub__(self, other: CardSet) -> CardSet:
        if isinstance(other, CardSet):
            return unchecked_set(self.mask & ~other.mask)
        return NotImplemented

    def __xor__(self, other: CardSet) -> CardSet:
        if isinstance(other, CardSet):
            return unchecked_set(self.mask ^ other.mask)
        return NotImplemented

    def __invert__(self) -> CardSet:
        return unchecked_set(ALL_MASK ^ self.mask)

    def __le__(self, other: CardSet) -> bool:
        if isinstance(other, CardSet):
            return not self.mask & ~other.mask
        return NotImplemented

    def __lt__(self, other: CardSet) -> bool:
        if isinstance(other, CardSet):
            return self.mask != other.mask and not self.mask & ~other.mask
        return NotImplemented

    def __ge__(self, other: CardSet) -> bool:
        if isinstance(other, CardSet):
            return not other.mask & ~self.mask
        return NotImplemented

    def __gt__(self, other: CardSet) -> bool:
        if isinstance(other, CardSet):
            return self.mask != other.mask and not other.mask & ~self.mask
        return NotImplemented

    def __reduce__(self) -> tuple[Any, ...]:
        return (CardSet, (self.mask,))


_object_new: Final = object.__new__
_set_mask: Final = CardSet.__dict__["mask"].__set__
