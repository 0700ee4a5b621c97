"""What happens in a game: the events :meth:`Game.play <skitgubbe.Game.play>` returns.

Every move produces one or more events (the play itself, then whatever follows
from it: draws, a trick won, a player going out …). Events are public except
the cards of a deal or a draw, which only their receiver sees: the history in
another seat's :class:`~skitgubbe.Observation` keeps the event with its
:attr:`Event.count` but not its cards (:meth:`Event.redacted`).

>>> from skitgubbe import Event, EventKind, CardSet
>>> event = Event(EventKind.DRAW, seat=1, cards=CardSet.parse("7H"), count=1)
>>> str(event), str(event.redacted())
('seat 1 draws 7♥', 'seat 1 draws 1 card')
"""

from __future__ import annotations

from enum import IntEnum
from typing import Final

import attrs

from .cards import CardSet, Suit, _new_set

__all__ = ["Event", "EventKind"]

_NO_SEAT: Final = 0xFF
_SUITS: Final = tuple(Suit)


class EventKind(IntEnum):
    """The kinds of :class:`Event` (numbered as in the C core).

    >>> EventKind.PICK_UP, EventKind.PICK_UP.private
    (<EventKind.PICK_UP: 12>, False)
    >>> EventKind.DRAW.private
    True
    """

    DEAL = 0
    """``seat`` was dealt ``cards`` (private)."""
    PLAY = 1
    """``seat`` played ``cards`` from his hand."""
    FLIP = 2
    """``seat`` tried his luck: turned ``cards`` from the stock and played it."""
    DRAW = 3
    """``seat`` drew ``cards`` from the stock (private)."""
    DRAW_HIDDEN = 4
    """``seat`` drew the last stock card and laid it face down, unseen."""
    TIE = 5
    """``seats`` tied with ``cards``; ``seat`` replays first if the tie is replayed."""
    BOUNCE = 6
    """Tied ``cards`` went out of play (``duel_tie=BOUNCE``)."""
    TRICK_WON = 7
    """``seat`` won the phase-1 trick ``cards`` into his collection."""
    TAKE_BACK = 8
    """Phase 1 ended mid-trick: ``seat`` took his ``cards`` back."""
    REVEAL = 9
    """``seat``'s face-down last card, ``cards``, was turned up."""
    TRUMP = 10
    """The trump ``suit`` is known (``None``: no trump)."""
    SHEDDING = 11
    """Phase 2 began; ``seat`` leads."""
    PICK_UP = 12
    """``seat`` picked ``cards`` up from the table."""
    DISCARD = 13
    """A phase-2 trick was complete: ``cards`` went out of play; ``seat`` played last."""
    OUT = 14
    """``seat`` has no cards left: out and safe."""
    GAME_OVER = 15
    """The game is over; ``seat`` is the skitgubbe (``None``: nobody)."""
    TRUNCATED = 16
    """The move cap ended the game with no loser."""
    SLOUGH = 17
    """``seat`` threw ``cards`` in the slough window."""
    PASS = 18
    """``seat`` passed in the slough window."""
    GIVE = 19
    """Low cards: ``seat`` gave ``cards`` to ``other``."""
    UPCARD = 20
    """``cards`` was turned up at the deal; its ``suit`` is trump."""
    LOWER_OUT = 21
    """A tie is replayed: the ``cards`` of the players not tied went out of play."""
    TAKE_UPCARD = 22
    """``seat`` drew the up-card ``cards`` into his hand, in view of all."""

    @property
    def private(self) -> bool:
        """True for the kinds whose cards only their receiver sees."""
        return self in (EventKind.DEAL, EventKind.DRAW)


@attrs.frozen
class Event:
    """One thing that happened, in the order it happened.

    ``seat`` is the player concerned (``None`` when none is), ``cards`` the
    cards involved (empty when hidden from the viewer), ``count`` how many cards
    (also when they are hidden), ``other`` the receiving seat of a
    :attr:`EventKind.GIVE`, ``seats`` the tied seats of a :attr:`EventKind.TIE`
    and ``suit`` the trump suit of a :attr:`EventKind.TRUMP` or
    :attr:`EventKind.UPCARD` event.

    >>> from skitgubbe import Event, EventKind, CardSet
    >>> print(Event(EventKind.PLAY, seat=0, cards=CardSet.parse("9D"), count=1))
    seat 0 plays 9♦
    """

    kind: EventKind
    seat: int | None = None
    cards: CardSet = attrs.field(factory=CardSet)
    count: int = 0
    other: int | None = None
    seats: tuple[int, ...] = ()
    suit: Suit | None = None

    def redacted(self) -> Event:
        """This event as other players see it: private cards hidden, count kept.

        >>> from skitgubbe import Event, EventKind, CardSet
        >>> deal = Event(EventKind.DEAL, seat=2, cards=CardSet.parse("2C 3C 4C"), count=3)
        >>> deal.redacted().cards, deal.redacted().count
        (CardSet(), 3)
        """
        if not self.kind.private or not self.cards:
            return self
        return attrs.evolve(self, cards=_new_set(0))

    def __str__(self) -> str:
        who = f"seat {self.seat}"
        cards = str(self.cards) if self.cards else _count(self.count)
        kind = self.kind
        if kind is EventKind.DEAL:
            return f"{who} is dealt {cards}"
        if kind is EventKind.PLAY:
            return f"{who} plays {cards}"
        if kind is EventKind.FLIP:
            return f"{who} tries his luck and turns up {cards}"
        if kind is EventKind.DRAW:
            return f"{who} draws {cards}"
        if kind is EventKind.DRAW_HIDDEN:
            return f"{who} draws the last stock card and lays it face down"
        if kind is EventKind.TIE:
            tied = " and ".join(f"seat {s}" for s in self.seats)
            return f"tie between {tied} with {cards}"
        if kind is EventKind.BOUNCE:
            return f"the tied cards {cards} go out of play"
        if kind is EventKind.TRICK_WON:
            return f"{who} wins {cards}"
        if kind is EventKind.TAKE_BACK:
            return f"{who} takes back {cards}"
        if kind is EventKind.REVEAL:
            return f"{who} turns up the last stock card: {cards}"
        if kind is EventKind.TRUMP:
            return "no trump" if self.suit is None else f"trump is {self.suit.name.lower()}"
        if kind is EventKind.SHEDDING:
            return f"phase 2 begins: {who} leads"
        if kind is EventKind.PICK_UP:
            return f"{who} picks up {cards}"
        if kind is EventKind.DISCARD:
            return f"the trick is complete: {cards} go out of play"
        if kind is EventKind.OUT:
            return f"{who} is out"
        if kind is EventKind.SLOUGH:
            return f"{who} throws {cards} onto the trick"
        if kind is EventKind.PASS:
            return f"{who} throws nothing"
        if kind is EventKind.GIVE:
            return f"{who} gives the low card {cards} to seat {self.other}"
        if kind is EventKind.UPCARD:
            return f"{cards} is turned up: trump is {self.suit.name.lower() if self.suit else '?'}"
        if kind is EventKind.LOWER_OUT:
            return f"{cards} of the players not tied go out of play"
        if kind is EventKind.TAKE_UPCARD:
            return f"{who} draws the turned-up card {cards}"
        if kind is EventKind.GAME_OVER:
            return (
                "game over: nobody is left holding cards"
                if self.seat is None
                else (f"game over: {who} is the skitgubbe")
            )
        return "the move cap is reached: the game ends with no loser"


def _count(n: int) -> str:
    return f"{n} card" if n == 1 else f"{n} cards"


_CACHE: dict[tuple[int, int, int, int], Event] = {}
_CACHE_LIMIT: Final = 1 << 16


_PRIVATE: Final = frozenset({EventKind.DEAL, EventKind.DRAW})
_REDACTED: dict[tuple[EventKind, int | None, int], Event] = {}


def seen_by(event: Event, seat: int) -> Event:
    """``event`` as ``seat`` sees it (the same object when nothing is hidden from it)."""
    if event.kind not in _PRIVATE or event.seat == seat:
        return event
    key = (event.kind, event.seat, event.count)
    redacted = _REDACTED.get(key)
    if redacted is None:
        redacted = _REDACTED[key] = event.redacted()
    return redacted


def from_raw(raw: tuple[int, int, int, int]) -> Event:
    """The :class:`Event` for one raw core event ``(kind, seat, arg, cards)``."""
    event = _CACHE.get(raw)
    if event is not None:
        return event
    kind_no, seat, arg, mask = raw
    kind = EventKind(kind_no)
    event = Event(
        kind,
        seat=None if seat == _NO_SEAT else seat,
        cards=_new_set(mask),
        count=1 if kind is EventKind.DRAW_HIDDEN else mask.bit_count(),
        other=arg if kind is EventKind.GIVE else None,
        seats=tuple(s for s in range(4) if arg >> s & 1) if kind is EventKind.TIE else (),
        suit=_SUITS[arg] if kind in (EventKind.TRUMP, EventKind.UPCARD) and arg < 4 else None,
    )
    if len(_CACHE) < _CACHE_LIMIT:
        _CACHE[raw] = event
    return event
