"""Moves: what a player does on his turn.

A :class:`Move` is a kind and the cards it plays. Its :attr:`~Move.code` is the
C core's 64-bit move (the kind in the top three bits, the cards in the card
bits), and :meth:`Move.from_code` turns core codes back into shared ``Move``
instances cheaply. ``str(move)`` round-trips through :meth:`Move.parse`.

Values that do not describe a move raise :class:`~skitgubbe.errors.ParseError`
naming the offending input.

>>> move = Move.parse("7h 8h 9h")
>>> move.kind, str(move)
(<MoveKind.PLAY: 0>, '7♥ 8♥ 9♥')
>>> Move.from_code(move.code) is Move.from_code(move.code)
True
>>> Move.parse(str(Move.pick_up())) == Move.pick_up()
True
"""

from __future__ import annotations

from enum import IntEnum
from typing import Any, Final

import attrs

from .. import _core
from .._text import ascii_lower, brief
from ..errors import ArgumentError, ArgumentTypeError, ParseError, ParseTypeError
from .cards import ALL_MASK, Card, CardSet, parse_card_list

__all__ = ["Move", "MoveKind", "check_action"]

_KIND_SHIFT: Final = 61


class MoveKind(IntEnum):
    """The kinds of move, numbered as in the C core.

    ``PLAY`` lays hand cards (one card; equal cards or a run where the rules
    allow them), ``FLIP`` turns the top stock card and plays it (try your luck,
    docs/rules.md §3.3), ``PICK_UP`` takes cards from the table in phase 2 (docs/rules.md
    §6.3), ``SLOUGH`` throws cards of ranks already in the trick after it is won
    and ``PASS`` throws nothing (the slough window, docs/rules.md §4.4).

    >>> [kind.name for kind in MoveKind]
    ['PLAY', 'FLIP', 'PICK_UP', 'SLOUGH', 'PASS']
    """

    PLAY = 0
    FLIP = 1
    PICK_UP = 2
    SLOUGH = 3
    PASS = 4


def _to_kind(value: int) -> MoveKind:
    if isinstance(value, MoveKind):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        try:
            return MoveKind(value)
        except ValueError:
            pass
    kinds = ", ".join(f"{kind.name}={kind.value}" for kind in MoveKind)
    message = f"not a move kind: {brief(value)}; expected a MoveKind ({kinds})"
    if not isinstance(value, int) or isinstance(value, bool):
        raise ParseTypeError(message, brief(value))
    raise ParseError(message, brief(value))


def _check_cards(move: Move, _: attrs.Attribute[CardSet], cards: CardSet) -> None:
    if not isinstance(cards, CardSet):
        raise ParseTypeError(f"Move cards must be a CardSet; got {brief(cards)}", brief(cards))
    if move.kind in (MoveKind.PLAY, MoveKind.SLOUGH):
        if not cards:
            raise ParseError(f"a {move.kind.name} move needs at least one card", brief(cards))
    elif cards:
        raise ParseError(f"a {move.kind.name} move takes no cards; got {cards}", str(cards))


def check_action(action: object) -> int:
    """``action`` if it is an integer action id, ``0 <= action < 563``, else an error naming it.

    The id check of the integer action space (:mod:`skitgubbe.game.actions`, where it
    is :func:`~skitgubbe.game.actions.check`); it lives here, below the action space,
    because :meth:`Move.from_action` needs it.

    >>> check_action(507)
    507
    >>> check_action(600)
    Traceback (most recent call last):
        ...
    skitgubbe.errors.ArgumentError: an action id is 0 <= action < 563, not 600
    """
    if type(action) is not int:
        raise ArgumentTypeError(f"an action id is an int, not {brief(action)}")
    if not 0 <= action < _core.NUM_ACTIONS:
        raise ArgumentError(
            f"an action id is 0 <= action < {_core.NUM_ACTIONS}, not {brief(action)}"
        )
    return action


@attrs.frozen(eq=False, repr=False)
class Move:
    """One move: a :class:`MoveKind` and the :class:`~skitgubbe.game.cards.CardSet` it plays.

    A ``PLAY`` has at least one card (several cards are allowed here; whether
    they are legal is the game's business); ``FLIP`` and ``PICK_UP`` have none.
    Moves are immutable, hashable and compare equal by kind and cards.

    >>> move = Move.play("7H")
    >>> move.kind, move.cards
    (<MoveKind.PLAY: 0>, CardSet.parse('7♥'))
    >>> move == Move(MoveKind.PLAY, CardSet.parse("7♥"))
    True
    >>> Move(MoveKind.FLIP, CardSet.parse("7H"))
    Traceback (most recent call last):
        ...
    skitgubbe.errors.ParseError: a FLIP move takes no cards; got 7♥
    """

    kind: MoveKind = attrs.field(converter=_to_kind)
    """What the move does."""
    cards: CardSet = attrs.field(default=CardSet(), validator=_check_cards)
    """The cards it plays (empty for ``FLIP`` and ``PICK_UP``)."""
    code: int = attrs.field(init=False)
    """The C core's move: ``(kind << 61) | cards.mask``."""

    def __attrs_post_init__(self) -> None:
        object.__setattr__(self, "code", (self.kind << _KIND_SHIFT) | self.cards.mask)

    @staticmethod
    def play(*cards: Card | str) -> Move:
        """A ``PLAY`` of the given cards (:class:`~skitgubbe.game.cards.Card` objects or text).

        >>> Move.play("7H", "8h"), Move.play(Card.parse("10S"))
        (Move.parse('7♥ 8♥'), Move.parse('10♠'))
        >>> Move.play("7H", "7H")
        Traceback (most recent call last):
            ...
        skitgubbe.errors.ParseError: Move.play got 7♥ more than once
        """
        mask = 0
        for card in cards:
            bit = CardSet.of(card).mask
            if mask & bit:
                raise ParseError(f"Move.play got {CardSet(bit)} more than once", brief(cards))
            mask |= bit
        if not mask:
            raise ParseError("Move.play needs at least one card", brief(cards))
        return Move.from_code(mask)

    @staticmethod
    def flip() -> Move:
        """Try your luck: turn the top stock card and play it.

        >>> Move.flip(), str(Move.flip())
        (Move.flip(), 'flip')
        """
        return _FLIP

    @staticmethod
    def pick_up() -> Move:
        """Pick up from the table (phase 2).

        >>> Move.pick_up(), str(Move.pick_up())
        (Move.pick_up(), 'pick')
        """
        return _PICK_UP

    @staticmethod
    def slough(*cards: Card | str) -> Move:
        """Throw cards of ranks already in the trick (the slough window, docs/rules.md §4.4).

        >>> Move.slough("7H", "7S"), str(Move.slough("7H"))
        (Move.parse('slough 7♥ 7♠'), 'slough 7♥')
        """
        return Move.from_code(Move.play(*cards).code | MoveKind.SLOUGH << _KIND_SHIFT)

    @staticmethod
    def pass_() -> Move:
        """Throw nothing in the slough window (the trailing underscore: ``pass`` is a keyword).

        >>> Move.pass_(), str(Move.pass_())
        (Move.pass_(), 'pass')
        """
        return _PASS

    @staticmethod
    def from_code(code: int) -> Move:
        """The move with C-core code ``code``; repeated codes give the same object.

        >>> Move.from_code(1 << 61)
        Move.flip()
        >>> Move.from_code(Card.parse("7H").mask)
        Move.parse('7♥')
        >>> Move.from_code(7 << 61)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
            ...
        skitgubbe.errors.ParseError: not a move code: 16140901064495857664; ...
        """
        move = _BY_CODE.get(code) if type(code) is int else None
        if move is not None:
            return move
        if (
            isinstance(code, int)
            and not isinstance(code, bool)
            and not code & ~(ALL_MASK | 7 << _KIND_SHIFT)
        ):
            kind = code >> _KIND_SHIFT
            mask = code & ALL_MASK
            try:
                move = Move(kind, CardSet(mask))
            except ParseError as error:
                raise ParseError(f"not a move code: {code!r}; {error}", repr(code)) from None
            if len(_BY_CODE) < _CACHE_LIMIT:
                _BY_CODE[move.code] = move
            return move
        message = (
            f"not a move code: {brief(code)}; move codes are (kind << 61) | card mask, kind 0..4"
        )
        if not isinstance(code, int) or isinstance(code, bool):
            raise ParseTypeError(message, brief(code))
        raise ParseError(message, brief(code))

    @staticmethod
    def parse(text: str) -> Move:
        """Parse a move: ``str(move)`` output or its ASCII forms, case-insensitive.

        Cards as for :meth:`~skitgubbe.game.cards.CardSet.parse` make a ``PLAY``;
        ``flip`` is ``FLIP``; ``pick``, ``pick up``, ``pickup`` and ``pick_up``
        are ``PICK_UP``. Surrounding whitespace is ignored. A card given twice
        is refused, as :meth:`play` refuses it; only ASCII letters fold case.

        >>> Move.parse("10h"), Move.parse(" Pick Up ")
        (Move.parse('10♥'), Move.pick_up())
        >>> Move.parse("jump")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
            ...
        skitgubbe.errors.ParseError: not a move: 'jump' ('jump' is not a card); ...
        >>> Move.parse("7h 7H")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
            ...
        skitgubbe.errors.ParseError: not a move: '7h 7H' (7♥ is given twice); ...
        """
        if not isinstance(text, str):
            raise ParseTypeError(f"not move text: {brief(text)}; expected a str", brief(text))
        words = " ".join(ascii_lower(text).split())
        move = _BY_WORD.get(words)
        if move is not None:
            return move
        kind = MoveKind.PLAY
        cards_text = text
        if words.startswith("slough"):
            kind = MoveKind.SLOUGH
            cards_text = text.strip()[len("slough") :]
        try:
            cards = parse_card_list(cards_text)
        except ParseError:
            bad = [word for word in cards_text.replace(",", " ").split() if not _is_card(word)]
            problem = f"{brief(bad[0], 24)} is not a card"
        else:
            mask = 0
            for card in cards:
                if mask & card.mask:
                    problem = f"{card} is given twice"
                    break
                mask |= card.mask
            else:
                if mask:
                    return Move.from_code(mask | kind << _KIND_SHIFT)
                problem = "it is empty" if kind is MoveKind.PLAY else "a slough needs cards"
        raise ParseError(
            f"not a move: {brief(text)} ({problem}); expected 'flip', 'pick', 'pass', "
            "cards such as '7H' or '7♥ 8♥ 9♥', or 'slough' and cards",
            text,
        )

    @property
    def actions(self) -> tuple[int, ...]:
        """The integer actions that play this move, in order (see :mod:`skitgubbe.game.actions`).

        One action for most moves; a slough is its cards, one action each in
        ascending card index, then the action that throws them. Empty for a
        move no rule variant allows (cards of two ranks that are no run, say).

        >>> Move.parse("7H").actions, Move.flip().actions
        ((31,), (507,))
        >>> Move.slough("7H", "7C").actions
        (515, 541, 562)
        """
        return _core.move_actions(self.code)

    @staticmethod
    def from_action(action: int) -> Move:
        """The move that action ``action`` plays on its own (the shared instance).

        The steps of a slough (adding a card, throwing the slough chosen) are
        not moves on their own: an :class:`~skitgubbe.ArgumentError` says so.

        >>> Move.from_action(31), Move.from_action(507)
        (Move.parse('7♥'), Move.flip())
        >>> Move.from_action(562)
        Traceback (most recent call last):
            ...
        skitgubbe.errors.ArgumentError: action 562 is a step of a slough, not a move on its own
        """
        code = _core.action_move(check_action(action))
        if code is None:
            raise ArgumentError(f"action {action} is a step of a slough, not a move on its own")
        return Move.from_code(code)

    def __str__(self) -> str:
        kind = self.kind
        if kind == MoveKind.PLAY:
            return str(self.cards)
        if kind == MoveKind.SLOUGH:
            return f"slough {self.cards}"
        return _WORDS[kind]

    def __repr__(self) -> str:
        kind = self.kind
        if kind == MoveKind.PLAY:
            return f"Move.parse({str(self.cards)!r})"
        if kind == MoveKind.SLOUGH:
            return f"Move.parse({str(self)!r})"
        return _REPRS[kind]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Move):
            return self.code == other.code
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.code)

    def __reduce__(self) -> tuple[Any, ...]:
        # Unpickling and copying give back the shared instance.
        return (Move.from_code, (self.code,))


def _is_card(text: str) -> bool:
    try:
        Card.parse(text)
    except ParseError:
        return False
    return True


# Plays seen so far, by code. Bounded: any mask is a valid PLAY code, and a
# caller feeding arbitrary codes must not grow the cache without limit.
_CACHE_LIMIT: Final = 1 << 16
_FLIP: Final = Move(MoveKind.FLIP)
_PICK_UP: Final = Move(MoveKind.PICK_UP)
_PASS: Final = Move(MoveKind.PASS)
_BY_CODE: Final[dict[int, Move]] = {m.code: m for m in (_FLIP, _PICK_UP, _PASS)}
_WORDS: Final = {MoveKind.FLIP: "flip", MoveKind.PICK_UP: "pick", MoveKind.PASS: "pass"}
_REPRS: Final = {
    MoveKind.FLIP: "Move.flip()",
    MoveKind.PICK_UP: "Move.pick_up()",
    MoveKind.PASS: "Move.pass_()",
}
_BY_WORD: Final[dict[str, Move]] = {
    "flip": _FLIP,
    "pick": _PICK_UP,
    "pick up": _PICK_UP,
    "pickup": _PICK_UP,
    "pick_up": _PICK_UP,
    "pass": _PASS,
}

# The engine hands out these shared objects for legal moves directly.
_core.share_moves(_BY_CODE, Move.from_code)
