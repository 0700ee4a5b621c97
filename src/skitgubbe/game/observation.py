"""What one seat knows: the frozen view a :class:`~skitgubbe.Player` is given.

An :class:`Observation` holds exactly what a person at the table with perfect
memory knows (docs/rules.md §8): his own hand and collection, the table, every
count, the cards every player can place in each other player's hands, the
cards he cannot place and how many unknown slots each opponent, the stock and
the face-down last card hold, the public history, and the legal moves when it
is his turn. It is plain immutable data: nothing in it leads back to the
:class:`~skitgubbe.Game` or to the engine's state.

>>> import skitgubbe as sg
>>> game = sg.Game.new(sg.Rules.classic(), seed=7)
>>> view = game.observation(0)
>>> len(view.hand), view.stock_size, view.trump
(3, 43, None)
>>> len(view.unknown) == sum(view.unknown_slots) + view.stock_slots + view.hidden_slots
True
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Iterator, Sequence
from enum import IntEnum
from itertools import chain
from typing import TYPE_CHECKING, Any, Final, overload

import attrs

from .. import _core
from .._text import brief
from ..errors import ArgumentError, ArgumentTypeError, SkitgubbeError
from .cards import Card, CardSet, Suit
from .events import Event
from .moves import Move
from .rules import Rules

if TYPE_CHECKING:
    from .state import Game

__all__ = ["History", "Observation", "Phase", "TablePlay"]


class Phase(IntEnum):
    """The phases of a game.

    >>> import skitgubbe as sg
    >>> sg.Game.new(seed=1).phase
    <Phase.COLLECTING: 0>
    """

    COLLECTING = 0
    """Phase 1: tricks to collect cards."""
    SHEDDING = 1
    """Phase 2: beat the top card or pick up."""
    OVER = 2
    """The game is over."""


@attrs.frozen
class TablePlay:
    """One play lying on the table: who made it and its cards.

    >>> from skitgubbe import CardSet
    >>> print(TablePlay(seat=1, cards=CardSet.parse("JD")))
    seat 1: J♦
    """

    seat: int
    cards: CardSet

    def __str__(self) -> str:
        return f"seat {self.seat}: {self.cards}"


class HistoryNode:
    """One move's events as one seat sees them, linked to the moves before.

    The nodes of a :class:`History`, shared between the observations (and games)
    that have the same past.

    >>> root = HistoryNode(None, ())
    >>> HistoryNode(root, ()).length
    0
    """

    __slots__ = ("events", "length", "parent")

    def __init__(self, parent: HistoryNode | None, events: tuple[Event, ...]) -> None:
        self.parent = parent
        self.events = events
        self.length: int = (parent.length if parent else 0) + len(events)


class History(Sequence[Event]):
    """The public history seen by one seat: an immutable sequence of events.

    Built lazily: observations share the events of earlier moves, so taking
    an observation does not copy the whole game's history.

    >>> import skitgubbe as sg
    >>> game = sg.Game.new(seed=3)
    >>> history = game.observation(1).history
    >>> [str(event) for event in history][:2]
    ['seat 0 is dealt 3 cards', 'seat 1 is dealt 5♦ 10♦ 4♥']
    """

    __slots__ = ("_items", "_node")

    def __init__(self, node: HistoryNode | None) -> None:
        self._node = node
        self._items: tuple[Event, ...] | None = None

    def _all(self) -> tuple[Event, ...]:
        if self._items is None:
            chunks = []
            node = self._node
            while node is not None:
                chunks.append(node.events)
                node = node.parent
            self._items = tuple(chain.from_iterable(reversed(chunks)))
        return self._items

    def __len__(self) -> int:
        return self._node.length if self._node else 0

    @overload
    def __getitem__(self, index: int) -> Event: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[Event, ...]: ...
    def __getitem__(self, index: int | slice) -> Event | tuple[Event, ...]:
        if (
            isinstance(index, slice)
            and self._items is None
            and index.step is None
            and index.stop is None
            and type(index.start) is int
            and index.start >= 0
        ):
            return self.since(index.start)
        return self._all()[index]

    def since(self, start: int) -> tuple[Event, ...]:
        """The events from index ``start`` on, in time proportional to their number
        (``history[start:]`` takes this way): what a table that has shown a seat its
        first ``start`` events shows it next.

        >>> import skitgubbe as sg
        >>> game = sg.Game.new(seed=3)
        >>> seen = len(game.observation(1).history)
        >>> _ = game.play(game.legal_moves[0])
        >>> [str(event) for event in game.observation(1).history.since(seen)]
        ['seat 0 plays 4♣', 'seat 0 draws 1 card']
        """
        chunks: list[tuple[Event, ...]] = []
        node = self._node
        while node is not None and node.length > start:
            chunks.append(node.events)
            node = node.parent
        if not chunks:
            return ()
        below = node.length if node is not None else 0
        first = chunks[-1][start - below :] if start > below else chunks[-1]
        return tuple(chain(first, *reversed(chunks[:-1])))

    def __iter__(self) -> Iterator[Event]:
        return iter(self._all())

    def __reversed__(self) -> Iterator[Event]:
        # Newest first, reading only as far back as the caller goes.
        node = self._node
        while node is not None:
            yield from reversed(node.events)
            node = node.parent

    def __eq__(self, other: object) -> bool:
        if isinstance(other, History):
            return self._node is other._node or self._all() == other._all()
        if isinstance(other, tuple):
            return self._all() == other
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._all())

    def __repr__(self) -> str:
        return f"History({len(self)} events)"

    def __reduce__(self) -> tuple[object, ...]:
        # Flat, so that a long history pickles without deep recursion.
        return (history_of, (self._all(),))


def _check_view(view: object) -> None:
    """Refuse bytes that are not a seat's view the engine can search from."""
    if not isinstance(view, bytes):
        raise ArgumentTypeError(f"core_view must be bytes, not {type(view).__name__}")
    failed = _core.view_check(view)
    if failed:
        raise ArgumentError(
            "core_view is not a view this engine made: "
            + ("wrong size" if failed < 0 else f"check {failed} of sg_view_check fails")
        )


_NO_CARDS: Final = CardSet()


def history_of(events: tuple[Event, ...]) -> History:
    """A History holding ``events`` (unpickling, the engine protocol's reader).

    >>> len(history_of(()))
    0
    """
    return History(HistoryNode(None, tuple(events)) if events else None)


@attrs.frozen(repr=False)
class Observation:
    """Everything seat :attr:`seat` knows at one moment, and nothing more.

    Card sets per seat (``known``, ``hand_sizes`` …) are indexed by seat.
    ``known[seat]`` is this seat's own hand and collection; for another seat it
    is the cards every player can place with him (cards he won face up, took
    back, picked up, or the revealed last card), minus those he has played.

    >>> import skitgubbe as sg
    >>> game = sg.Game.new(sg.Rules.classic(players=2), seed=11)
    >>> view = game.observation(game.to_move)
    >>> view.my_turn, view.legal_moves[-1]
    (True, Move.flip())
    >>> print(view)  # doctest: +ELLIPSIS
    seat 0 of 2 · collecting · to move: seat 0 · trump: unknown
    ...
    """

    seat: int
    """The seat this view belongs to."""
    rules: Rules
    """The rules of the game."""
    phase: Phase
    """The phase of the game."""
    to_move: int | None
    """The seat to move, ``None`` when the game is over."""
    dealer: int
    """The dealer's seat."""
    trump: Suit | None
    """The trump suit once every player knows it, else ``None``."""
    hand: CardSet
    """This seat's hand (in phase 2: every card it holds)."""
    collection: CardSet
    """This seat's phase-1 collection (the hidden last card is never in it)."""
    table: tuple[TablePlay, ...]
    """The plays on the table, bottom first."""
    hand_sizes: tuple[int, ...]
    """Cards in each seat's hand."""
    collection_sizes: tuple[int, ...]
    """Cards in each seat's collection (phase 1)."""
    stock_size: int
    """Cards left in the stock."""
    out_of_play: CardSet
    """Cards removed from the game (discarded phase-2 tricks)."""
    hidden_holder: int | None
    """The seat beside which the face-down last card lies, while it is face down."""
    known: tuple[CardSet, ...]
    """Per seat: the cards this seat can place with that seat."""
    unknown: CardSet
    """The cards this seat cannot place."""
    unknown_slots: tuple[int, ...]
    """Per seat: how many of its cards are unknown to this seat (0 for itself)."""
    stock_slots: int
    """How many unknown cards lie in the stock."""
    hidden_slots: int
    """1 while the face-down last card is unknown, else 0."""
    finished: tuple[int, ...]
    """Seats that are out (safe), in the order they went out."""
    moves_played: int
    """Moves played so far in the game."""
    legal_moves: tuple[Move, ...]
    """This seat's legal moves; empty when it is not its turn."""
    upcard: Card | None
    """``trump=UPCARD``: the turned-up card while it lies at the bottom of the stock."""
    slough_winner: int | None
    """While a slough window is open: the seat that won the trick, else ``None``."""
    history: History = attrs.field(eq=True)
    """Every event so far as this seat saw it (others' draws as counts)."""
    core_view: bytes = attrs.field(repr=False, validator=lambda _, __, v: _check_view(v))
    """The engine's state as this seat knows it: the C core's state with every card
    this seat cannot place blanked (``sg_view`` in the C core). Opaque bytes of this
    engine version, for the search bots and :meth:`sample_world`; it holds nothing
    the other fields do not."""
    slough_chosen: CardSet = _NO_CARDS
    """While this seat chooses a slough one card at a time (integer actions): the
    cards added so far; else empty."""

    @property
    def legal_actions(self) -> tuple[int, ...]:
        """This seat's legal integer actions, ascending (see :mod:`skitgubbe.game.actions`);
        empty when it is not its turn.

        >>> import skitgubbe as sg
        >>> sg.Game.new(seed=2).observation(0).legal_actions
        (28, 30, 35, 507)
        """
        return self._actions()[0]

    @property
    def action_mask(self) -> bytes:
        """One byte per action id: 1 where :attr:`legal_actions` has it, else 0.

        >>> import skitgubbe as sg
        >>> mask = sg.Game.new(seed=2).observation(1).action_mask
        >>> len(mask), any(mask)
        (563, False)
        """
        return self._actions()[1]

    def tensor(self, out: Any = None) -> Any:
        """What this seat knows as a float32 numpy array (see :mod:`skitgubbe.game.tensors`).

        ``out``, a contiguous float32 array of ``TENSOR_SIZE`` floats, is filled
        and returned instead of a new array. Needs numpy.

        >>> import skitgubbe as sg
        >>> sg.Game.new(seed=2).observation(1).tensor().shape
        (1359,)
        """
        from .tensors import observation_tensor

        return observation_tensor(self, out)

    def _actions(self) -> tuple[tuple[int, ...], bytes]:
        from .. import _core

        if self.to_move != self.seat:
            return (), bytes(_core.NUM_ACTIONS)
        return _core.view_actions(self.core_view, self.slough_chosen.mask)

    def sample_world(self, rng: random.Random | int | None = None) -> Game:
        """A game consistent with everything this seat knows (docs/rules.md §8).

        The cards this seat cannot place are dealt into the unknown slots (each
        opponent's unseen cards, the stock and the face-down last card) at random,
        every deal as likely as the history allows: uniformly under the classic
        rules, and under the slough window and the low-card rule only among the deals
        that respect what the history proves (:mod:`skitgubbe.game.worlds`). ``rng``
        is a :class:`random.Random` (one 64-bit draw is taken from it) or an int seed;
        the same observation and seed give the same world. The world starts at this
        position and has no history.

        >>> import skitgubbe as sg
        >>> game = sg.Game.new(seed=4)
        >>> view = game.observation(1)
        >>> world = view.sample_world(7)
        >>> world.hands[1] == view.hand, [len(h) for h in world.hands]
        (True, [3, 3, 3])
        >>> world.hands == view.sample_world(7).hands
        True
        """
        from .. import _core
        from .state import Game
        from .worlds import belief

        if self.to_move is None:
            raise SkitgubbeError("the game is over: there is no hidden world to sample")
        if rng is None:
            seed = secrets.randbits(64)
        elif isinstance(rng, random.Random):
            seed = rng.getrandbits(64)
        elif type(rng) is int and 0 <= rng < 2**64:
            seed = rng
        else:
            error = ArgumentError if type(rng) is int else ArgumentTypeError
            raise error(
                f"rng must be a random.Random, a seed 0 <= seed < 2**64 or None, not {brief(rng)}"
            )
        facts = belief(self)
        if facts is None:
            return Game._from_world(self.rules, _core.sample_world(self.core_view, seed))
        world, _outcome = _core.sample_belief(self.core_view, facts.core(), seed)
        return Game._from_world(self.rules, world)

    @property
    def players(self) -> int:
        """The number of players.

        >>> import skitgubbe as sg
        >>> sg.Game.new(sg.Rules.classic(players=4), seed=1).observation(0).players
        4
        """
        return len(self.hand_sizes)

    @property
    def my_turn(self) -> bool:
        """True when this seat is to move."""
        return self.to_move == self.seat

    @property
    def top(self) -> Card | None:
        """The top card of the table, or ``None`` on an empty table.

        The top card is the last card laid: the highest card of the last play
        (a run is laid in ascending order).

        >>> import skitgubbe as sg
        >>> game = sg.Game.new(seed=5)
        >>> _ = game.play(sg.Move.play(min(game.observation(0).hand)))
        >>> game.observation(1).top == min(game.observation(0).table[0].cards)
        True
        """
        if not self.table:
            return None
        return max(self.table[-1].cards)

    def holding(self, seat: int) -> int:
        """How many cards ``seat`` holds in all (hand, collection, hidden card).

        ``seat`` must be a seat of this game: an int ``0 <= seat < players``
        (else :class:`~skitgubbe.ArgumentError`, or
        :class:`~skitgubbe.ArgumentTypeError` for a value that is not an int).

        >>> import skitgubbe as sg
        >>> sg.Game.new(seed=1).observation(0).holding(2)
        3
        >>> sg.Game.new(seed=1).observation(0).holding(-1)
        Traceback (most recent call last):
            ...
        skitgubbe.errors.ArgumentError: seat must be a seat 0..2, not -1
        """
        players = self.players
        if type(seat) is not int:
            raise ArgumentTypeError(
                f"seat must be a seat (an int 0..{players - 1}), "
                f"not {type(seat).__name__} {brief(seat)}"
            )
        if not 0 <= seat < players:
            raise ArgumentError(f"seat must be a seat 0..{players - 1}, not {seat!r}")
        hidden = 1 if self.hidden_holder == seat else 0
        return self.hand_sizes[seat] + self.collection_sizes[seat] + hidden

    def _repr_svg_(self) -> str:
        """This seat's table as an SVG drawing, for Jupyter
        (:func:`skitgubbe.game.svg.observation`)."""
        from . import svg

        return svg.observation(self)

    def __repr__(self) -> str:
        return (
            f"<Observation seat={self.seat} phase={self.phase.name} to_move={self.to_move} "
            f"hand={self.hand} moves={self.moves_played}>"
        )

    def __str__(self) -> str:
        turn = "over" if self.to_move is None else f"seat {self.to_move}"
        trump = "none" if self.trump is None else self.trump.name.lower()
        if self.trump is None and self.phase is Phase.COLLECTING:
            trump = "unknown"
        lines = [
            f"seat {self.seat} of {self.players} · {self.phase.name.lower()} · to move: {turn}"
            f" · trump: {trump}",
            f"hand: {self.hand or '-'}",
            f"table: {' | '.join(str(p) for p in self.table) or '-'}",
            "cards held: "
            + ", ".join(f"seat {s}: {self.holding(s)}" for s in range(self.players))
            + f" · stock: {self.stock_size}",
        ]
        if self.legal_moves:
            lines.append("legal: " + ", ".join(str(m) for m in self.legal_moves))
        return "\n".join(lines)
