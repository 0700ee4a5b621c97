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

:meth:`Event.describe` tells an event to one seat, in the second person where
it is about that seat, hiding what the seat does not see:

>>> event.describe(viewer=1), event.describe(viewer=2)
('you draw 7♥', 'seat 1 draws 1 card')
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from enum import IntEnum
from typing import Final

import attrs

from ..errors import ArgumentError, ArgumentTypeError
from .cards import CardSet, Suit, unchecked_set

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
    """``seat`` tried their luck: turned ``cards`` from the stock and played it."""
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
        return attrs.evolve(self, cards=unchecked_set(0))

    def describe(self, viewer: int | None = None, *, names: Sequence[str] | None = None) -> str:
        """This event as a sentence for a person.

        With ``viewer`` (a seat) the sentence is what that seat reads: its own
        doings in the second person ("you play 7♥"), the other seats'
        private cards hidden (as in its :class:`~skitgubbe.Observation`). With
        no viewer it is in the third person and shows the cards the event
        holds; ``str(event)`` is that form. ``names`` names the seats (by
        default ``"seat 0"``, ``"seat 1"`` …); the viewer is always "you".
        The sentence is not capitalised, so that it can be quoted mid-line.

        >>> from skitgubbe import Event, EventKind, CardSet
        >>> draw = Event(EventKind.DRAW, seat=0, cards=CardSet.parse("7H"), count=1)
        >>> draw.describe(), draw.describe(0), draw.describe(1)
        ('seat 0 draws 7♥', 'you draw 7♥', 'seat 0 draws 1 card')
        >>> give = Event(EventKind.GIVE, seat=1, cards=CardSet.parse("2C"), count=1, other=0)
        >>> give.describe(0, names=["Anna", "Ben", "Carla"])
        'Ben gives the low card 2♣ to you'
        """
        if viewer is not None and type(viewer) is not int:
            raise ArgumentTypeError(f"viewer is a seat number or None, not {viewer!r}")
        if isinstance(names, str):
            raise ArgumentTypeError(f"names is a sequence of names, one per seat, not {names!r}")
        event = self
        if viewer is not None and self.kind.private and self.seat != viewer:
            event = self.redacted()
        return _TEXTS[self.kind](_Sentence(event, viewer, names))

    def __str__(self) -> str:
        return self.describe()


class _Sentence:
    """The words of one event's sentence, for one viewer."""

    __slots__ = ("_names", "_viewer", "event")

    def __init__(self, event: Event, viewer: int | None, names: Sequence[str] | None) -> None:
        self.event = event
        self._viewer = viewer
        self._names = names

    def name(self, seat: int | None) -> str:
        """How the sentence names ``seat``: "you" for the viewer."""
        if seat is not None and seat == self._viewer:
            return "you"
        if seat is None or self._names is None:
            return f"seat {seat}"
        if not 0 <= seat < len(self._names):
            raise ArgumentError(f"names has {len(self._names)} names; seat {seat} has none")
        return self._names[seat]

    @property
    def who(self) -> str:
        """The event's seat."""
        return self.name(self.event.seat)

    def does(self, third: str, second: str) -> str:
        """A verb whose subject is the event's seat: ``second`` when that is the viewer."""
        seat = self.event.seat
        return second if seat is not None and seat == self._viewer else third

    @property
    def cards(self) -> str:
        """The cards, or how many when they are hidden."""
        event = self.event
        if event.cards:
            return str(event.cards)
        return f"{event.count} card" if event.count == 1 else f"{event.count} cards"

    @property
    def trump(self) -> str:
        suit = self.event.suit
        return "?" if suit is None else suit.name.lower()


# One sentence for each kind, in both persons; tests/test_events.py checks that every
# EventKind has one. A kind missing here raises KeyError, never prints as another kind.
_TEXTS: Final[Mapping[EventKind, Callable[[_Sentence], str]]] = {
    EventKind.DEAL: lambda s: f"{s.who} {s.does('is', 'are')} dealt {s.cards}",
    EventKind.PLAY: lambda s: f"{s.who} {s.does('plays', 'play')} {s.cards}",
    EventKind.FLIP: lambda s: (
        f"{s.who} {s.does('tries their', 'try your')} luck and "
        f"{s.does('turns', 'turn')} up {s.cards}"
    ),
    EventKind.DRAW: lambda s: f"{s.who} {s.does('draws', 'draw')} {s.cards}",
    EventKind.DRAW_HIDDEN: lambda s: (
        f"{s.who} {s.does('draws', 'draw')} the last stock card and "
        f"{s.does('lays', 'lay')} it face down"
    ),
    EventKind.TIE: lambda s: (
        f"tie between {' and '.join(map(s.name, s.event.seats))} with {s.cards}"
    ),
    EventKind.BOUNCE: lambda s: f"the tied cards {s.cards} go out of play",
    EventKind.TRICK_WON: lambda s: f"{s.who} {s.does('wins', 'win')} {s.cards}",
    EventKind.TAKE_BACK: lambda s: f"{s.who} {s.does('takes', 'take')} back {s.cards}",
    EventKind.REVEAL: lambda s: (
        f"{s.who} {s.does('turns', 'turn')} up the last stock card: {s.cards}"
    ),
    EventKind.TRUMP: lambda s: "no trump" if s.event.suit is None else f"trump is {s.trump}",
    EventKind.SHEDDING: lambda s: f"phase 2 begins: {s.who} {s.does('leads', 'lead')}",
    EventKind.PICK_UP: lambda s: f"{s.who} {s.does('picks', 'pick')} up {s.cards}",
    EventKind.DISCARD: lambda s: f"the trick is complete: {s.cards} go out of play",
    EventKind.OUT: lambda s: f"{s.who} {s.does('is', 'are')} out",
    EventKind.GAME_OVER: lambda s: (
        "game over: nobody is left holding cards"
        if s.event.seat is None
        else f"game over: {s.who} {s.does('is', 'are')} the skitgubbe"
    ),
    EventKind.TRUNCATED: lambda s: "the move cap is reached: the game ends with no loser",
    EventKind.SLOUGH: lambda s: f"{s.who} {s.does('throws', 'throw')} {s.cards} onto the trick",
    EventKind.PASS: lambda s: f"{s.who} {s.does('throws', 'throw')} nothing",
    EventKind.GIVE: lambda s: (
        f"{s.who} {s.does('gives', 'give')} the low card {s.cards} to {s.name(s.event.other)}"
    ),
    EventKind.UPCARD: lambda s: f"{s.cards} is turned up: trump is {s.trump}",
    EventKind.LOWER_OUT: lambda s: f"{s.cards} of the players not tied go out of play",
    EventKind.TAKE_UPCARD: lambda s: (
        f"{s.who} {s.does('draws', 'draw')} the turned-up card {s.cards}"
    ),
}


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
        cards=unchecked_set(mask),
        count=1 if kind is EventKind.DRAW_HIDDEN else mask.bit_count(),
        other=arg if kind is EventKind.GIVE else None,
        seats=tuple(s for s in range(4) if arg >> s & 1) if kind is EventKind.TIE else (),
        suit=_SUITS[arg] if kind in (EventKind.TRUMP, EventKind.UPCARD) and arg < 4 else None,
    )
    if len(_CACHE) < _CACHE_LIMIT:
        _CACHE[raw] = event
    return event
