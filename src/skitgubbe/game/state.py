"""The game: a referee holding the true state, over the C core.

A :class:`Game` owns the engine's state. It lists legal moves, applies a
:class:`~skitgubbe.Move` and returns the :class:`~skitgubbe.Event` objects that
followed, undoes moves, copies itself in constant time, hands out per-seat
:class:`~skitgubbe.Observation` views, and saves and replays records.

>>> import skitgubbe as sg
>>> game = sg.Game.new(sg.Rules.classic(players=3), seed=42)
>>> game.phase, game.to_move
(<Phase.COLLECTING: 0>, 0)
>>> events = game.play(game.legal_moves[0])
>>> str(events[0])
'seat 0 plays 7♦'
>>> game.undo()
Move.parse('7♦')
>>> while game.result is None:
...     _ = game.play(game.legal_moves[0])
>>> game.result.loser in range(3)
True
"""

from __future__ import annotations

import functools
import secrets
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Final

import attrs

from .. import _core
from .._files import check_header
from .._text import ascii_upper, brief
from ..errors import (
    ArgumentError,
    ArgumentTypeError,
    IllegalActionError,
    IllegalMoveError,
    ParseError,
    ParseTypeError,
    RecordError,
    RulesError,
    SkitgubbeError,
    StateError,
)
from .cards import Card, CardSet, Suit, unchecked_set
from .events import Event, from_raw, seen_by
from .moves import Move
from .observation import History, HistoryNode, Observation, Phase, TablePlay
from .rules import Rules, TrumpRule

__all__ = ["RECORD_FORMAT", "RECORD_VERSION", "Events", "Game", "GameResult"]

RECORD_FORMAT: Final = "skitgubbe-record"
"""The ``format`` field of every game record."""
RECORD_VERSION: Final = 1
"""The version of the record layout written by :meth:`Game.record`."""

_NO_SEAT: Final = _core.NO_SEAT
_PHASES: Final = (Phase.COLLECTING, Phase.SHEDDING, Phase.OVER)
_SUITS: Final = tuple(Suit)


@attrs.frozen
class GameResult:
    """How a game ended.

    ``loser`` is the skitgubbe (``None`` when the game was truncated or nobody
    was left holding cards); ``finish_order`` lists the seats from the first
    to go out to the skitgubbe; ``truncated`` is true when the move cap ended
    the game (docs/rules.md §6.8); ``moves_played`` is the number of moves played.

    >>> import skitgubbe as sg
    >>> result = sg.play_game([sg.bots.RandomBot(seed=s) for s in range(3)], seed=1)
    >>> result.finish_order[-1] == result.loser, result.truncated
    (True, False)
    """

    loser: int | None
    finish_order: tuple[int, ...]
    truncated: bool
    moves_played: int

    def to_dict(self) -> dict[str, Any]:
        """The result as JSON-able data.

        The key ``moves`` keeps its name in records (record version 1).

        >>> GameResult(loser=1, finish_order=(0, 2, 1), truncated=False, moves_played=9).to_dict()
        {'loser': 1, 'finish_order': [0, 2, 1], 'truncated': False, 'moves': 9}
        """
        return {
            "loser": self.loser,
            "finish_order": list(self.finish_order),
            "truncated": self.truncated,
            "moves": self.moves_played,
        }


Events = _core.Events
"""The events one move caused, in order: an immutable sequence of :class:`Event`.

:meth:`Game.play` returns one. The engine hands a move's events over packed; they
become :class:`Event` objects only when first read, so a loop that ignores them does
not pay for them. Compares equal to a tuple (or another ``Events``) of the same events.

>>> import skitgubbe as sg
>>> events = sg.Game.new(seed=2).play("6H")
>>> len(events), [str(e) for e in events]
(2, ['seat 0 plays 6♥', 'seat 0 draws 5♠'])
>>> events[0].kind, events == tuple(events)
(<EventKind.PLAY: 1>, True)
"""


_EMPTY_SET: Final = CardSet()


@functools.lru_cache(maxsize=64)
def _card_name(code: int) -> str:
    """The text of the card with C-core code ``code`` (52 of them: a deal asks for each)."""
    return str(Card.from_code(code))


def _decode_events(raw: bytes) -> tuple[Event, ...]:
    return tuple([from_raw(r) for r in _core.events_from_bytes(raw)])


_core.share_event_decoder(_decode_events)


def seat_view(position: _core.Core, seat: int, players: int) -> HistoryNode:
    """The history up to ``position`` as ``seat`` saw it (each step built once, then shared).

    Positions are the game's history steps: each keeps its parent, the move that
    led to it and that move's events; ``views`` caches one history node per seat.

    >>> import skitgubbe as sg
    >>> game = sg.Game.new(sg.Rules.classic(players=3), seed=1)
    >>> events = game.play(game.legal_moves[0])
    >>> seat_view(game._core, 1, 3).length == len(game.observation(1).history)
    True
    """
    pending: list[_core.Core] = []
    node: _core.Core | None = position
    while node is not None and (node.views is None or node.views[seat] is None):
        pending.append(node)
        node = node.parent
    below: HistoryNode | None = None
    if node is not None and node.views is not None:
        below = node.views[seat]
    for step in reversed(pending):
        below = HistoryNode(below, tuple([seen_by(e, seat) for e in step.events]))
        if step.views is None:
            step.views = [None] * players
        step.views[seat] = below
    assert below is not None
    return below


def _seat(value: object, players: int, what: str) -> int:
    if type(value) is not int:
        raise ArgumentTypeError(
            f"{what} must be a seat (an int 0..{players - 1}), not {type(value).__name__} {value!r}"
        )
    if not 0 <= value < players:
        raise ArgumentError(f"{what} must be a seat 0..{players - 1}, not {value!r}")
    return value


def _some(cards: Sequence[Card], shown: int = 8) -> str:
    """The first ``shown`` of ``cards`` and how many more, for an error message."""
    more = f" and {len(cards) - shown} more" if len(cards) > shown else ""
    return " ".join(map(str, cards[:shown])) + more


def _deck_bytes(deck: Iterable[Card | str]) -> bytes:
    if isinstance(deck, (str, bytes)):
        raise ParseError("a deck is a sequence of 52 cards, not one string", str(deck))
    cards = [card if isinstance(card, Card) else Card.parse(card) for card in deck]
    counts = Counter(cards)
    if len(cards) != 52 or len(counts) != 52:
        repeated = sorted(card for card, n in counts.items() if n > 1)
        missing = sorted(set(CardSet.full()) - counts.keys())
        raise ParseError(
            f"a deck must hold each of the 52 cards once: got {len(cards)} cards"
            + (f", repeated {_some(repeated)}" if repeated else "")
            + (f", missing {_some(missing)}" if missing else ""),
            " ".join(map(str, cards)),
        )
    return bytes(c.code for c in cards)


def _hand_masks(
    hands: Sequence[CardSet | str | Iterable[Card | str]], players: int
) -> tuple[int, ...]:
    if not isinstance(hands, Sequence) or isinstance(hands, (str, bytes)):
        raise ArgumentTypeError(
            f"hands must be a sequence of {players} hands, not {type(hands).__name__}"
        )
    if len(hands) != players:
        raise ArgumentError(f"expected {players} hands (one per seat), got {len(hands)}")
    masks: list[int] = []
    for seat, hand in enumerate(hands):
        if isinstance(hand, CardSet):
            masks.append(hand.mask)
        elif isinstance(hand, str):
            masks.append(CardSet.parse(hand).mask)
        elif isinstance(hand, Iterable) and not isinstance(hand, (bytes, Mapping)):
            masks.append(CardSet.of(*hand).mask)
        else:
            raise ArgumentTypeError(
                f"the hand of seat {seat} must be a CardSet, card text or cards, "
                f"not {type(hand).__name__}"
            )
    seen = 0
    for seat, mask in enumerate(masks):
        if mask & seen:
            raise ArgumentError(
                f"hand of seat {seat} repeats {unchecked_set(mask & seen)} from another hand"
            )
        seen |= mask
    return (*masks, *([0] * (4 - players)))


def _to_suit(trump: Suit | str | None) -> int:
    if trump is None:
        return _core.NO_SUIT
    if isinstance(trump, Suit):
        return int(trump)
    if isinstance(trump, str):
        key = ascii_upper(trump.strip())
        for suit in Suit:
            if key in (suit.name, suit.letter, suit.symbol):
                return int(suit)
    message = f"not a suit: {brief(trump)}; expected a Suit, a suit name or None"
    if isinstance(trump, str):
        raise ParseError(message, trump)
    raise ParseTypeError(message, brief(trump))


def _check_start(start: Mapping[str, Any], players: int) -> None:
    """Check the start fields of a record by type and range (RecordError naming the field)."""

    def refuse(field: str, what: str) -> RecordError:
        return RecordError(
            f"the record's start {field!r} must be {what}, not {brief(start[field])}"
        )

    seat = f"a seat (an int 0..{players - 1})"
    for field in ("dealer", "leader"):
        if field in start:
            value = start[field]
            if type(value) is not int or not 0 <= value < players:
                raise refuse(field, seat)
    if "deck" in start:
        deck = start["deck"]
        if not isinstance(deck, (list, tuple)) or not all(type(c) is str for c in deck):
            raise refuse("deck", "a list of 52 card strings")
    if "hands" in start:
        hands = start["hands"]
        if not isinstance(hands, (list, tuple)) or not all(type(h) is str for h in hands):
            raise refuse("hands", f"a list of {players} strings of cards")
    if "trump" in start and not (start["trump"] is None or type(start["trump"]) is str):
        raise refuse("trump", "a suit name or null")


def _same_json(ours: object, theirs: object) -> bool:
    """Whether ``theirs`` is exactly the JSON data ``ours`` (``True`` is not ``1``, nor
    ``9.0`` ``9``)."""
    if type(ours) is not type(theirs):
        return isinstance(ours, list) and type(theirs) is tuple and _same_json(ours, list(theirs))
    if isinstance(ours, dict):
        assert isinstance(theirs, dict)
        return ours.keys() == theirs.keys() and all(
            _same_json(value, theirs[key]) for key, value in ours.items()
        )
    if isinstance(ours, list):
        assert isinstance(theirs, list)
        return len(ours) == len(theirs) and all(map(_same_json, ours, theirs))
    return ours == theirs


class Game(_core.GameCore):
    """One game of Skitgubbe: the referee's complete, true state.

    Make one with :meth:`new` (a deal) or :meth:`from_shedding` (a phase-2
    position) or :meth:`from_record`. Never hand a ``Game`` to a player: give
    it :meth:`observation` of its seat.

    >>> import skitgubbe as sg
    >>> game = sg.Game.new(sg.Rules.classic(players=2), seed=9)
    >>> [str(m) for m in game.legal_moves]
    ['6♦', 'A♥', 'K♠', 'flip']
    >>> game.play("flip")[0].kind
    <EventKind.FLIP: 2>
    """

    # _core, the current position (through its parents, the whole history), and
    # to_move, legal_actions and play_action come from the engine (GameCore).
    __slots__ = ("_rules", "_seed", "_start")

    _rules: Rules
    _seed: int | None
    # The record's start position; its sequences are tuples, shared by copies.
    _start: dict[str, Any]

    # -- creation ---------------------------------------------------------------

    @classmethod
    def new(
        cls,
        rules: Rules | None = None,
        *,
        seed: int | None = None,
        deck: Sequence[Card | str] | None = None,
        dealer: int | None = None,
    ) -> Game:
        """Deal a new game.

        The deck comes from ``deck`` (52 cards, top first) or is shuffled from
        ``seed`` with the engine's versioned generator (docs/rules.md §2); with
        neither, from a fresh random seed. ``dealer`` defaults to the last seat,
        so seat 0 leads.

        >>> import skitgubbe as sg
        >>> game = sg.Game.new(seed=1)
        >>> game.dealer, game.to_move, [len(h) for h in game.hands]
        (2, 0, [3, 3, 3])
        >>> sg.Game.new(sg.Rules.modern(players=4), seed=1).legal_moves[:2]
        (Move.parse('J♣'), Move.parse('2♦'))
        """
        rules = Rules.classic() if rules is None else rules
        if not isinstance(rules, Rules):
            raise ArgumentTypeError(f"rules must be a Rules, not {type(rules).__name__}")
        if deck is not None and seed is not None:
            raise ArgumentError("give a seed or a deck, not both")
        if deck is None:
            if seed is None:
                seed = secrets.randbits(64)
            if type(seed) is not int:
                raise ArgumentTypeError(f"seed must be an int, not {type(seed).__name__} {seed!r}")
            if not 0 <= seed < 2**64:
                raise ArgumentError(f"seed must be an int 0 <= seed < 2**64, not {seed!r}")
            raw_deck = _core.deck_from_seed(seed)
        else:
            raw_deck = _deck_bytes(deck)
        dealer = rules.players - 1 if dealer is None else _seat(dealer, rules.players, "dealer")
        core = _core.Core.deal(rules._core_values(), raw_deck, dealer)
        start = {"dealer": dealer, "deck": tuple([_card_name(c) for c in raw_deck])}
        return cls._make(rules, core, start, seed)

    @classmethod
    def from_shedding(
        cls,
        rules: Rules | None,
        hands: Sequence[CardSet | str | Iterable[Card | str]],
        *,
        trump: Suit | str | None,
        leader: int,
    ) -> Game:
        """Start directly in phase 2: each seat holds ``hands[seat]``, every other
        card is out of play, ``trump`` is public, ``leader`` leads.

        The dealer is the seat before the leader, so players without cards go
        out in seat order starting with the leader. Under rules with
        ``trump=TrumpRule.NONE`` there is no trump (docs/rules.md §5.1): give
        ``trump=None``; a suit is refused.

        >>> import skitgubbe as sg
        >>> game = sg.Game.from_shedding(None, ["9D QD", "JD AD", "4C"], trump="S", leader=0)
        >>> game.phase, [str(m) for m in game.legal_moves]
        (<Phase.SHEDDING: 1>, ['9♦', 'Q♦'])
        >>> no_trump = sg.Rules.classic(players=2, trump="none")
        >>> sg.Game.from_shedding(no_trump, ["JC", "TH"], trump="C", leader=0)
        Traceback (most recent call last):
            ...
        skitgubbe.errors.ArgumentError: these rules have no trump (trump='none', \
docs/rules.md §5.1), so trump must be None, not 'C'
        """
        if rules is None:
            if not isinstance(hands, Sequence) or isinstance(hands, (str, bytes)):
                raise ArgumentTypeError(
                    f"hands must be a sequence of hands, not {type(hands).__name__}"
                )
            rules = Rules.classic(players=len(hands))
        if not isinstance(rules, Rules):
            raise ArgumentTypeError(f"rules must be a Rules or None, not {type(rules).__name__}")
        masks = _hand_masks(hands, rules.players)
        leader = _seat(leader, rules.players, "leader")
        suit = _to_suit(trump)
        if rules.trump is TrumpRule.NONE and suit != _core.NO_SUIT:
            raise ArgumentError(
                "these rules have no trump (trump='none', docs/rules.md §5.1), "
                f"so trump must be None, not {brief(trump)}"
            )
        core = _core.Core.shedding(rules._core_values(), masks, suit, leader)
        start = {
            "hands": tuple([str(unchecked_set(m)) for m in masks[: rules.players]]),
            "trump": None if suit == _core.NO_SUIT else Suit(suit).name.lower(),
            "leader": leader,
        }
        return cls._make(rules, core, start, None)

    @classmethod
    def _from_world(cls, rules: Rules, core: _core.Core) -> Game:
        """A game at a sampled position (Observation.sample_world): no history, no record."""
        return cls._make(rules, core, {}, None)

    @classmethod
    def _make(
        cls,
        rules: Rules,
        core: _core.Core,
        start: dict[str, Any],
        seed: int | None,
    ) -> Game:
        game = cls.__new__(cls)
        game._rules = rules
        game._core = core
        game._start = start
        game._seed = seed
        return game

    # -- the state --------------------------------------------------------------

    @property
    def rules(self) -> Rules:
        """The rules of this game."""
        return self._rules

    @property
    def players(self) -> int:
        """The number of players."""
        return self._rules.players

    @property
    def phase(self) -> Phase:
        """:class:`Phase` ``COLLECTING``, ``SHEDDING`` or ``OVER``."""
        return _PHASES[self._core.phase]

    @property
    def dealer(self) -> int:
        """The dealer's seat."""
        return self._core.dealer

    @property
    def trump(self) -> Suit | None:
        """The trump suit once it is public (from phase 2 on), else ``None``."""
        core = self._core
        return Suit(core.trump) if core.trump_public and core.trump < 4 else None

    @property
    def hands(self) -> tuple[CardSet, ...]:
        """Every seat's hand (referee's view; phase 2: every card held)."""
        return tuple(unchecked_set(m) for m in self._core.hands)

    @property
    def collections(self) -> tuple[CardSet, ...]:
        """Every seat's phase-1 collection (referee's view)."""
        return tuple(unchecked_set(m) for m in self._core.collections)

    @property
    def stock(self) -> tuple[Card, ...]:
        """The stock, top first (referee's view)."""
        return tuple(Card.from_code(c) for c in self._core.stock())

    @property
    def hidden_card(self) -> Card | None:
        """The face-down last stock card while it lies face down (referee's view)."""
        card = self._core.hidden_card
        return None if card == 0xFF else Card.from_code(card)

    @property
    def table(self) -> tuple[TablePlay, ...]:
        """The plays on the table, bottom first."""
        return tuple([_table_play(seat, mask) for seat, mask in self._core.table_plays()])

    @property
    def out_of_play(self) -> CardSet:
        """Cards removed from the game."""
        return unchecked_set(self._core.out)

    @property
    def moves(self) -> tuple[Move, ...]:
        """The moves played so far, first to last."""
        moves: list[Move] = []
        node: _core.Core | None = self._core
        while node is not None and node.move is not None:
            moves.append(node.move)
            node = node.parent
        return tuple(reversed(moves))

    @property
    def moves_played(self) -> int:
        """How many moves have been played (the move cap counts these)."""
        return self._core.moves

    @property
    def history(self) -> tuple[Event, ...]:
        """Every event so far, unredacted (referee's view)."""
        chunks: list[Events] = []
        node: _core.Core | None = self._core
        while node is not None:
            chunks.append(node.events)
            node = node.parent
        return tuple(e for chunk in reversed(chunks) for e in chunk)

    @property
    def result(self) -> GameResult | None:
        """``None`` until the game is over, then its :class:`GameResult`."""
        result = self._core.result()
        if result is None:
            return None
        return GameResult(
            loser=_seat_or_none(result["loser"]),
            finish_order=result["finish_order"],
            truncated=result["truncated"],
            moves_played=result["moves"],
        )

    @property
    def seed(self) -> int | None:
        """The seed the deck was shuffled from, if it was."""
        return self._seed

    # -- moves ----------------------------------------------------------------------

    @property
    def legal_moves(self) -> tuple[Move, ...]:
        """The legal moves of the player to move (empty when the game is over).

        Order: plays by ascending card mask, then flip, then pick up.

        >>> import skitgubbe as sg
        >>> [str(m) for m in sg.Game.new(seed=2).legal_moves]
        ['4♥', '6♥', 'J♥', 'flip']
        """
        return self._core.legal_move_objects()

    def is_legal(self, move: Move) -> bool:
        """True when ``move`` is legal now.

        >>> import skitgubbe as sg
        >>> game = sg.Game.new(seed=2)
        >>> game.is_legal(sg.Move.flip()), game.is_legal(sg.Move.pick_up())
        (True, False)
        """
        return type(move) is Move and move.code in self._core.legal_codes()

    def state_tensor(self, out: Any = None) -> Any:
        """The whole state as a float32 numpy array, for centralised critics only.

        Seat 0's tensor, then every hidden card where it lies (see
        :mod:`skitgubbe.game.tensors`): it holds what no player knows, so never give
        it to a player. ``out`` is filled and returned when given. Needs numpy.

        >>> import skitgubbe as sg
        >>> sg.Game.new(seed=2).state_tensor().shape
        (1879,)
        """
        from .tensors import state_tensor

        return state_tensor(self, out)

    # -- integer actions ---------------------------------------------------------------

    @property
    def action_mask(self) -> bytes:
        """One byte per action id, 1 where ``legal_actions`` has it, else 0.

        ``numpy.frombuffer(game.action_mask, numpy.int8)`` makes it an array.

        >>> import skitgubbe as sg
        >>> mask = sg.Game.new(seed=2).action_mask
        >>> len(mask), [a for a, legal in enumerate(mask) if legal]
        (563, [28, 30, 35, 507])
        """
        return self._core.legal_actions()[1]

    @property
    def slough_chosen(self) -> CardSet:
        """The cards added so far to the slough being chosen by integer actions.

        Empty unless the player to move is choosing a slough one card at a time
        (:data:`~skitgubbe.game.actions.SLOUGH_CARD` actions). :meth:`play` and
        :meth:`undo` drop a slough being chosen.

        >>> import skitgubbe as sg
        >>> game = sg.Game.new(sg.Rules.modern(), seed=0)
        >>> for _ in range(11):
        ...     _ = game.play(game.legal_moves[0])
        >>> [str(m) for m in game.legal_moves]
        ['slough 3♠', 'slough 8♠', 'slough 3♠ 8♠', 'pass']
        >>> game.play_action(sg.actions.SLOUGH_CARD + sg.Card.parse("3S").index)
        Events([])
        >>> game.slough_chosen, game.legal_actions
        (CardSet.parse('3♠'), (555, 562))
        """
        return unchecked_set(self._core.pending)

    def _illegal_action(self, action: object) -> SkitgubbeError:
        """The error for an action ``play_action`` refused, with the core's reason."""
        from .actions import SLOUGH_CARD, SLOUGH_DONE, check, describe

        try:
            check(action)
        except (ArgumentError, ArgumentTypeError) as error:
            return type(error)(f"{error}; legal actions: {self.legal_actions}")
        assert type(action) is int
        legal = self.legal_actions
        chosen = self.slough_chosen
        if self.to_move is None:
            reason = "the game is over"
        elif chosen and action < SLOUGH_CARD:
            reason = f"a slough is being chosen ({chosen}): add a card or throw it"
        elif action == SLOUGH_DONE:
            reason = "no card is chosen for a slough"
        elif action >= SLOUGH_CARD:
            card = Card.from_index(action - SLOUGH_CARD)
            reason = f"{card} cannot be added to the slough" + (
                f" after {chosen} (cards are added in ascending order)" if chosen else ""
            )
        else:
            reason = self._why_illegal(Move.from_action(action))
        return IllegalActionError(
            f"illegal action {action} ({describe(action)}): {reason}; legal actions: {legal}",
            action,
            reason,
            legal,
        )

    def play(self, move: Move | str) -> Events:
        """Play ``move`` (a :class:`Move` or its text) for the player to move.

        Returns the :class:`Events` it caused. An illegal move raises
        :class:`~skitgubbe.IllegalMoveError` (naming the move, the reason and
        the legal moves) and leaves the game exactly as it was.

        >>> import skitgubbe as sg
        >>> game = sg.Game.new(seed=2)
        >>> [str(e) for e in game.play("6H")]
        ['seat 0 plays 6♥', 'seat 0 draws 5♠']
        >>> game.play("pick")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
            ...
        skitgubbe.errors.IllegalMoveError: illegal move pick: nobody picks up in phase 1; ...
        """
        if type(move) is not Move:
            move = self._to_move(move)
        try:
            self._core = self._core.play(move.code)
        except _core.CoreError:
            legal = self.legal_moves
            reason = self._why_illegal(move)
            shown = ", ".join(str(m) for m in legal) or "none"
            raise IllegalMoveError(
                f"illegal move {move}: {reason}; legal moves: {shown}", move, reason, legal
            ) from None
        return self._core.events

    def _to_move(self, move: object) -> Move:
        """``move`` as a Move: parsed from text, or an error naming what it is."""
        if isinstance(move, str):
            return Move.parse(move)
        if isinstance(move, Move):  # a subclass: only the engine's own value counts
            return Move.from_code(move.code)
        legal = self.legal_moves
        shown = ", ".join(str(m) for m in legal) or "none"
        raise IllegalMoveError(
            f"not a move: {move!r} ({type(move).__name__}); expected a Move or move text; "
            f"legal moves: {shown}",
            move,  # type: ignore[arg-type]
            "not a Move",
            legal,
        )

    def _why_illegal(self, move: Move) -> str:
        """The C core's reason ``move`` is illegal, as a sentence."""
        reason, detail = self._core.why_illegal(move.code)
        return _REASONS[reason](self, move, detail)

    def undo(self) -> Move:
        """Take back the last move and return it (and drop a slough being chosen).

        >>> import skitgubbe as sg
        >>> game = sg.Game.new(seed=2)
        >>> before = game.observation(0)
        >>> _ = game.play("6H"); game.undo()
        Move.parse('6♥')
        >>> game.observation(0) == before
        True
        """
        position = self._core
        if position.move is None or position.parent is None:
            raise ArgumentError("there is no move to undo")
        self._core = position.parent
        return position.move  # type: ignore[no-any-return]

    def copy(self) -> Game:
        """An independent copy of this game (constant time: history is shared).

        >>> import skitgubbe as sg
        >>> game = sg.Game.new(seed=2)
        >>> twin = game.copy()
        >>> _ = twin.play("6H")
        >>> game.moves_played, twin.moves_played
        (0, 1)
        """
        twin = Game.__new__(Game)
        twin._rules = self._rules
        twin._core = self._core
        twin._start = self._start
        twin._seed = self._seed
        return twin

    def __copy__(self) -> Game:
        return self.copy()

    def __deepcopy__(self, memo: dict[int, object]) -> Game:
        # Positions and history nodes are immutable: sharing them is a deep copy.
        return self.copy()

    def __reduce__(self) -> tuple[Any, ...]:
        # The start position, its events and the moves: unpickling replays them,
        # so the history (and undo) survive, and pickles stay flat and small.
        codes: list[int] = []
        start = self._core
        while start.move is not None and start.parent is not None:
            codes.append(start.move.code)
            start = start.parent
        codes.reverse()
        state = (
            self._rules,
            self._start,
            self._seed,
            start.copy(),
            tuple(start.events),
            codes,
            self._core.pending,
        )
        return (_unpickle_game, state)

    # -- what players see ---------------------------------------------------------

    def observation(self, seat: int) -> Observation:
        """The frozen view of ``seat`` (docs/rules.md §8): all it knows, nothing more.

        >>> import skitgubbe as sg
        >>> game = sg.Game.new(seed=2)
        >>> view = game.observation(1)
        >>> view.hand == game.hands[1], view.legal_moves
        (True, ())
        """
        players = self._rules.players
        seat = _seat(seat, players, "seat")
        # One read of the position: a game played on another thread moves
        # self._core to a new position, never changes the one read here.
        core = self._core
        o = core.observe(seat)
        return Observation(
            seat=seat,
            rules=self._rules,
            phase=_PHASES[o["phase"]],
            to_move=_seat_or_none(o["to_move"]),
            dealer=o["dealer"],
            trump=_suit_or_none(o["trump"]),
            hand=unchecked_set(o["hand"]),
            collection=unchecked_set(o["collection"]),
            table=tuple(map(_table_play, o["table_seat"], o["table_cards"])),
            hand_sizes=o["hand_sizes"],
            collection_sizes=o["collection_sizes"],
            stock_size=o["stock_size"],
            out_of_play=unchecked_set(o["out_of_play"]),
            hidden_holder=_seat_or_none(o["hidden_holder"]),
            known=tuple(map(unchecked_set, o["known"])),
            unknown=unchecked_set(o["unknown"]),
            unknown_slots=o["unknown_slots"],
            stock_slots=o["stock_slots"],
            hidden_slots=o["hidden_slots"],
            finished=o["finished"],
            moves_played=o["moves_played"],
            legal_moves=o["legal_moves"],
            upcard=None if o["upcard"] == _core.NO_CARD else Card.from_code(o["upcard"]),
            slough_winner=_seat_or_none(o["slough_winner"]),
            history=History(seat_view(core, seat, players)),
            core_view=core.view(seat),
            slough_chosen=unchecked_set(core.pending) if o["to_move"] == seat else _EMPTY_SET,
        )

    # -- records ----------------------------------------------------------------------

    def record(self) -> dict[str, Any]:
        """The game as JSON-able data: format, rules, start position, moves, result.

        >>> import json, skitgubbe as sg
        >>> game = sg.Game.new(seed=2)
        >>> _ = game.play("6H")
        >>> record = game.record()
        >>> record["moves"], record["start"]["dealer"], record["result"]
        (['6♥'], 2, None)
        >>> sg.Game.from_record(json.loads(json.dumps(record))).moves
        (Move.parse('6♥'),)
        """
        if not self._start:
            raise ArgumentError("a sampled world starts mid-game and has no record")
        result = self.result
        record: dict[str, Any] = {
            "format": RECORD_FORMAT,
            "version": RECORD_VERSION,
            "rng_version": _core.RNG_VERSION,
            "rules": self._rules.to_dict(),
            # Fresh lists: the caller may change the record, never the game (or its copies).
            "start": {k: list(v) if isinstance(v, tuple) else v for k, v in self._start.items()},
            "moves": [str(m) for m in self.moves],
            "result": None if result is None else result.to_dict(),
        }
        if self._seed is not None:
            record["seed"] = self._seed
        return record

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> Game:
        """Replay a record made by :meth:`record`, checking every field and move.

        Every field is checked by type and range (``seed`` an int 0 … 2**64-1,
        ``dealer`` and ``leader`` seats, ``deck`` 52 card strings, ``moves`` a
        list of move strings, ``result`` what the replay ends with). Raises
        :class:`~skitgubbe.RecordError` naming the first bad field or move (and
        its index) when the record is damaged or tampered with; never another
        exception, however deep or odd the data. Keys it does not know are ignored.

        >>> import skitgubbe as sg
        >>> record = sg.Game.new(seed=2).record()
        >>> record["moves"] = ["6H", "KS"]
        >>> sg.Game.from_record(record)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
            ...
        skitgubbe.errors.RecordError: move 1 ('KS') is illegal: ...
        >>> record = sg.Game.new(seed=2).record()
        >>> record["seed"] = 2.5
        >>> sg.Game.from_record(record)
        Traceback (most recent call last):
            ...
        skitgubbe.errors.RecordError: the record's 'seed' must be an int 0 <= seed < 2**64, not 2.5
        """
        check_header(record, format=RECORD_FORMAT, versions=(RECORD_VERSION,), what="game record")
        missing = [key for key in ("rules", "start", "moves", "result") if key not in record]
        if missing:
            raise RecordError(f"the record has no {', '.join(repr(k) for k in missing)}")
        rng_version = record.get("rng_version")
        if "rng_version" in record and (type(rng_version) is not int or rng_version < 0):
            raise RecordError(
                f"the record's 'rng_version' must be an int >= 0, not {brief(rng_version)}"
            )
        seed = record.get("seed")
        if "seed" in record and (type(seed) is not int or not 0 <= seed < 2**64):
            raise RecordError(
                f"the record's 'seed' must be an int 0 <= seed < 2**64, not {brief(seed)}"
            )
        try:
            rules = Rules.from_dict(record["rules"])
        except RulesError as exc:
            raise RecordError(f"bad rules in record: {exc}") from exc
        start = record["start"]
        if not isinstance(start, Mapping):
            raise RecordError("the record's 'start' must be a mapping")
        dealt = "deck" in start
        needed = ("deck", "dealer") if dealt else ("hands", "trump", "leader")
        absent = [key for key in needed if key not in start]
        if absent:
            raise RecordError(f"the record's start has no {', '.join(repr(k) for k in absent)}")
        if dealt and "hands" in start:
            raise RecordError("the record's start has both a 'deck' and 'hands'")
        if not dealt and "seed" in record:
            raise RecordError("the record has a 'seed' but no dealt deck")
        _check_start(start, rules.players)
        try:
            if dealt:
                game = cls.new(rules, deck=start["deck"], dealer=start["dealer"])
                # A seed is checked only against the generator version that made it;
                # the deck alone is enough to replay.
                if seed is not None and rng_version == _core.RNG_VERSION:
                    if _core.deck_from_seed(seed) != _deck_bytes(start["deck"]):
                        raise RecordError(f"the deck is not the one seed {seed} deals")
                    game._seed = seed
            else:
                game = cls.from_shedding(
                    rules, start["hands"], trump=start["trump"], leader=start["leader"]
                )
        except RecordError:
            raise
        except SkitgubbeError as exc:
            field = " ('deck')" if dealt else ""  # a shedding start's errors name their field
            raise RecordError(f"bad start position in record{field}: {exc}") from exc
        moves = record["moves"]
        if not isinstance(moves, list):
            raise RecordError("'moves' must be a list of move strings")
        for index, text in enumerate(moves):
            try:
                move = Move.parse(text)
            except ParseError as exc:  # it names the text already
                raise RecordError(f"move {index} is illegal: {exc}", index) from exc
            try:
                game.play(move)
            except IllegalMoveError as exc:
                raise RecordError(f"move {index} ({brief(text)}) is illegal: {exc}", index) from exc
        expected = record["result"]
        result = game.result
        replayed = None if result is None else result.to_dict()
        if not _same_json(replayed, expected):
            raise RecordError(
                f"the record's result {brief(expected)} does not match the replay's {replayed}"
            )
        return game

    def _repr_svg_(self) -> str:
        """The referee's view (every hand) as an SVG drawing, for Jupyter
        (:func:`skitgubbe.game.svg.game`)."""
        from . import svg

        return svg.game(self)

    def __repr__(self) -> str:
        return (
            f"<Game {self._rules.players} players, {self.phase.name.lower()}, "
            f"{self._core.moves} moves, to move: {self.to_move}>"
        )


def _unpickle_game(
    rules: Rules,
    start: dict[str, Any],
    seed: int | None,
    core: _core.Core,
    events: tuple[Event, ...],
    codes: Sequence[int],
    pending: int = 0,
) -> Game:
    """The game :meth:`Game.__reduce__` describes: its start, replayed move by move,
    then the slough being chosen, card by card.

    Every part is checked, as a record is (:meth:`Game.from_record`): the start
    state passed the C core's whole-state check when it was unpickled
    (``_core.from_snapshot``); here the rules must be the state's, a start
    position (deck or hands) must deal exactly that state and its events, and
    every move must be legal. Anything else raises :class:`~skitgubbe.StateError`
    naming the part at fault.
    """
    from .actions import SLOUGH_CARD

    if not isinstance(core, _core.Core):
        raise StateError(f"the pickled start is not a position: {brief(core)}", "state")
    if not isinstance(rules, Rules) or rules._core_values() != core.rules:
        raise StateError(
            f"the pickled rules {brief(rules)} are not those of the pickled state", "rules"
        )
    if not (seed is None or (type(seed) is int and 0 <= seed < 2**64)):
        raise StateError(
            f"the pickled seed must be None or an int 0 <= seed < 2**64, not {brief(seed)}", "seed"
        )
    if type(events) is not tuple or not all(type(e) is Event for e in events):
        raise StateError(f"the pickled start's events are not Events: {brief(events)}", "events")
    if type(start) is not dict:
        raise StateError(f"the pickled start must be a dict, not {brief(start)}", "start")
    if start:
        _check_pickled_start(rules, start, seed, core, events)
    elif seed is not None:
        raise StateError("a pickled game with a seed has no dealt deck", "seed")
    game = Game._make(rules, core.with_events(events), start, seed)
    if not isinstance(codes, (list, tuple)):
        raise StateError(f"the pickled moves must be a list, not {brief(codes)}", "moves")
    for index, code in enumerate(codes):
        try:
            move = Move.from_code(code)
            game.play(move)
        except (SkitgubbeError, TypeError, ValueError, OverflowError) as exc:
            raise StateError(
                f"move {index} of the pickled history ({brief(code)}) is not legal there: {exc}",
                "moves",
            ) from exc
    if type(pending) is not int or pending < 0 or pending & ~CardSet.full().mask:
        raise StateError(
            f"the pickled slough being chosen is not cards: {brief(pending)}", "slough"
        )
    chosen = unchecked_set(pending)
    for card in chosen:
        try:
            game.play_action(SLOUGH_CARD + card.index)
        except IllegalActionError as exc:
            raise StateError(
                f"the pickled slough being chosen ({chosen}) cannot be chosen: {exc}", "slough"
            ) from exc
    return game


def _check_pickled_start(
    rules: Rules,
    start: dict[str, Any],
    seed: int | None,
    core: _core.Core,
    events: tuple[Event, ...],
) -> None:
    """A pickled game's start position must deal exactly its start state and events."""
    try:
        if "deck" in start:
            if set(start) != {"deck", "dealer"}:
                raise StateError(f"the pickled start has keys {sorted(start)}", "start")
            _check_start(start, rules.players)
            if seed is None:
                dealt = Game.new(rules, deck=start["deck"], dealer=start["dealer"])
            else:  # the seed's deck, compared with the pickled one as text (no parsing)
                dealt = Game.new(rules, seed=seed, dealer=start["dealer"])
                if dealt._start["deck"] != tuple(start["deck"]):
                    raise StateError(f"the pickled deck is not the one seed {seed} deals", "seed")
        else:
            if set(start) != {"hands", "trump", "leader"}:
                raise StateError(f"the pickled start has keys {sorted(start)}", "start")
            if seed is not None:
                raise StateError("a pickled game with a seed has no dealt deck", "seed")
            _check_start(start, rules.players)
            dealt = Game.from_shedding(
                rules, start["hands"], trump=start["trump"], leader=start["leader"]
            )
    except StateError:
        raise
    except (SkitgubbeError, TypeError, ValueError) as exc:
        raise StateError(f"the pickled start position is not one: {exc}", "start") from exc
    if dealt._start != start:
        raise StateError(f"the pickled start is not written as a game writes it: {start}", "start")
    if dealt._core != core:
        raise StateError("the pickled start state is not the one its start position deals", "start")
    if tuple(dealt._core.events) != events:
        raise StateError("the pickled start's events are not those of its deal", "events")


# One sentence for each reason the C core gives for an illegal move (sg_why_illegal),
# from the reason's detail: the core decides, Python only words it.
_REASONS: Final[dict[str, Callable[[Game, Move, int], str]]] = {
    "none": lambda game, move, _: "it is legal",
    "game_over": lambda game, move, _: "the game is over",
    "malformed": lambda game, move, _: "it is not a move the engine knows",
    "window_open": lambda game, move, cards: (
        "the trick is won: throw cards of ranks in it (slough) or pass"
        + (f" (you may throw {unchecked_set(cards)})" if cards else "")
    ),
    "no_window": lambda game, move, _: "there is no slough window open",
    "flip_phase": lambda game, move, _: "trying your luck is for phase 1",
    "flip_rules": lambda game, move, _: "these rules do not allow trying your luck",
    "flip_stock": lambda game, move, size: (
        f"trying your luck needs at least two cards in the stock (it has {size})"
    ),
    "pick_up_phase": lambda game, move, _: "nobody picks up in phase 1",
    "pick_up_empty": lambda game, move, _: "there is nothing on the table to pick up",
    "not_held": lambda game, move, cards: (
        f"seat {game.to_move} does not hold {unchecked_set(cards)}"
    ),
    "slough_rank": lambda game, move, cards: (
        f"{unchecked_set(cards)} are not of ranks lying in the trick"
    ),
    "one_card_collecting": lambda game, move, _: "these rules allow one card per play in phase 1",
    "one_card_shedding": lambda game, move, _: "these rules allow one card per play in phase 2",
    "mixed_ranks": lambda game, move, _: "cards played together must be of one rank",
    "not_a_run": lambda game, move, cards: (
        f"{unchecked_set(cards)} is not a run (consecutive cards of one suit)"
    ),
    "does_not_beat": lambda game, move, top: (
        f"{min(move.cards)} does not beat {unchecked_set(top)}"
    ),
}

_TABLE_PLAYS: dict[tuple[int, int], TablePlay] = {}


def _table_play(seat: int, mask: int) -> TablePlay:
    """The TablePlay of ``seat`` laying the cards of ``mask``; most are single cards, so
    they are cached."""
    cached = _TABLE_PLAYS.get((seat, mask))
    if cached is None:
        cached = TablePlay(seat, unchecked_set(mask))
        if len(_TABLE_PLAYS) < 1 << 14:
            _TABLE_PLAYS[seat, mask] = cached
    return cached


def _seat_or_none(seat: int) -> int | None:
    return None if seat == _NO_SEAT else seat


def _suit_or_none(suit: int) -> Suit | None:
    return None if suit == _core.NO_SUIT else _SUITS[suit]
