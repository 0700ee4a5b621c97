"""A plain-Python reference model of Skitgubbe, every rule variant of docs/rules.md §9.

The module keeps its historical name: it started as the model of the classic
rules (every default of section 9) and now plays any combination of the
variant fields, for 2, 3 and 4 players:

- phase 1 (docs/rules.md §3, §4): two-card duels or everyone playing to each trick
  (``trick_mode``), replayed or bounced duel ties (``duel_tie``), replayed
  all-play ties with the lower cards kept or put out (``all_tie``),
  multi-card plays, the slough window, try your luck, drawing after each play
  or after each trick (``draw``) and a hidden or revealed last card
  (``last_card``);
- between the phases (docs/rules.md §5): the trump rule (``trump``) and the low-card
  redistribution (``low_card_threshold``);
- phase 2 (docs/rules.md §6): runs, the pick-up rule (``pickup``), the end of a trick
  (``trick_end``) and the move cap (``max_moves``).

Where a rule leaves a question open, the decisions of ``docs/rules.md`` (each
marked **Decision**) settle it.  The few questions left open even there are answered
as follows (each is also marked **Model choice** where it is coded):

1. A hand-card play whose ``after_play`` refill draws the revealed last card
   (phase 1 ends at once): the trick is first settled as far as it is decided
   by that play.  If the play completed a round with a single winner, the
   winner collects the table; if it completed a duel tie under ``BOUNCE``, both
   cards go out of play.  Otherwise (the trick still under way, or a tie that
   would now be replayed) every card on the table is taken back by whoever
   played it, also under ``LOWER_OUT``: no replay begins, so nothing goes out.
2. ``LOWER_OUT`` puts the non-tied players' cards out of play as the replay
   begins: right after the tie is found (if phase 1 goes on), before the first
   tied player's turn and so before any docs/rules.md §3.10 refill of his.
3. Nobody must play in the slough window, so docs/rules.md §3.10 does not apply
   there: a seat with an empty hand holds no card of a trick rank and is skipped.
4. Under ``trump="upcard"`` the up-card is a stock card for try your luck: a
   flip needs two stock cards, the up-card included (so it is never flipped).

The model is written for clarity, straight from the rules text, and is used as
the test oracle for the C engine.  It never looks at the engine.

Card codes are ``suit * 16 + rank``: suit 0 clubs, 1 diamonds, 2 hearts,
3 spades; rank 0 is the two and rank 12 the ace.  A move is a tuple
``(kind, cards)`` where ``kind`` is ``"play"``, ``"flip"``, ``"pick_up"``,
``"slough"`` or ``"pass"`` and ``cards`` is a ``frozenset`` of card codes
(one or more cards for a play or a slough, empty for the other kinds).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from itertools import pairwise
from typing import TypedDict

Move = tuple[str, frozenset[int]]
"""A move: ``(kind, cards)``."""

Result = tuple[int | None, tuple[int, ...], bool]
"""A finished game: ``(loser, finish_order, truncated)``."""

VariantValue = str | bool | int | None
"""The value of one variant field, as ``skitgubbe.Rules.to_dict()`` writes it."""

PLAY = "play"
FLIP = "flip"
PICK_UP = "pick_up"
SLOUGH = "slough"
PASS = "pass"

COLLECTING = "collecting"
SHEDDING = "shedding"
OVER = "over"

SUIT_LETTERS = "CDHS"
RANK_NAMES = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
LOW_RANKS = range(0, 4)
"""Ranks 2, 3, 4 and 5: the cards moved by the low-card rule (docs/rules.md §5.4)."""

ALL_CARDS: frozenset[int] = frozenset(s * 16 + r for s in range(4) for r in range(13))
"""The 52 valid card codes."""

FLIP_MOVE: Move = (FLIP, frozenset())
PICK_UP_MOVE: Move = (PICK_UP, frozenset())
PASS_MOVE: Move = (PASS, frozenset())


def rank(card: int) -> int:
    """Return the rank of a card code (0 = two ... 12 = ace)."""
    return card & 15


def suit(card: int) -> int:
    """Return the suit of a card code (0 clubs, 1 diamonds, 2 hearts, 3 spades)."""
    return card >> 4


def make_card(rank_: int, suit_: int) -> int:
    """Return the code of the card with the given rank and suit."""
    return suit_ * 16 + rank_


def parse_card(text: str) -> int:
    """Parse a card name such as ``"9D"``, ``"10H"`` or ``"AS"`` into its code."""
    text = text.strip().upper()
    rank_text, suit_text = text[:-1], text[-1]
    if rank_text not in RANK_NAMES or suit_text not in SUIT_LETTERS:
        raise ValueError(f"not a card name: {text!r}")
    return make_card(RANK_NAMES.index(rank_text), SUIT_LETTERS.index(suit_text))


def card_name(card: int) -> str:
    """Return the short name of a card code, e.g. ``"9D"``."""
    return RANK_NAMES[rank(card)] + SUIT_LETTERS[suit(card)]


def play_move(card: int) -> Move:
    """Return the move that plays the single card ``card``."""
    return (PLAY, frozenset((card,)))


def mask(cards: Iterable[int]) -> int:
    """Return the card mask of ``cards``: the sum of ``1 << code``."""
    total = 0
    for card in cards:
        total |= 1 << card
    return total


def move_key(move: Move) -> int:
    """Return the sort key of a move within its kind: the mask of its cards."""
    return mask(move[1])


def nonempty_subsets(cards: Iterable[int]) -> list[frozenset[int]]:
    """Return every non-empty subset of ``cards``."""
    items = sorted(cards)
    return [
        frozenset(card for i, card in enumerate(items) if bits >> i & 1)
        for bits in range(1, 1 << len(items))
    ]


def runs_in(cards: Iterable[int]) -> list[frozenset[int]]:
    """Return every run in ``cards``: two or more cards of one suit with consecutive ranks.

    Aces are high only, so there is no wrap from the ace to the two (docs/rules.md §6.2).
    """
    held = set(cards)
    runs: list[frozenset[int]] = []
    for card in held:
        length = 1
        while card + length in held and rank(card) + length <= 12:
            length += 1
            runs.append(frozenset(range(card, card + length)))
    return runs


def is_run(cards: Iterable[int]) -> bool:
    """Return whether ``cards`` is a run (two or more consecutive cards of one suit)."""
    ordered = sorted(cards)
    return len(ordered) >= 2 and all(b == a + 1 for a, b in pairwise(ordered))


# ---------------------------------------------------------------- variants

_STRING_CHOICES: dict[str, tuple[str, ...]] = {
    "trick_mode": ("duel", "all"),
    "duel_tie": ("replay", "bounce"),
    "all_tie": ("pot", "lower_out"),
    "draw": ("after_play", "after_trick"),
    "last_card": ("hidden", "reveal"),
    "trump": ("last_card", "none", "upcard"),
    "pickup": ("top", "top_run", "pile"),
    "trick_end": ("count", "rotation"),
}
_BOOL_FIELDS = ("multi_card_plays", "slough", "try_your_luck", "runs")


@dataclass(frozen=True)
class Variants:
    """The variant fields of docs/rules.md §9 (all but ``players``, ``hand_size``, ``max_moves``).

    Values are spelled as ``skitgubbe.Rules.to_dict()`` writes them; the
    defaults are the classic rules.
    """

    trick_mode: str = "duel"
    duel_tie: str = "replay"
    all_tie: str = "pot"
    multi_card_plays: bool = False
    slough: bool = True
    try_your_luck: bool = True
    draw: str = "after_play"
    last_card: str = "hidden"
    trump: str = "last_card"
    low_card_threshold: int | None = None
    runs: bool = False
    pickup: str = "top"
    trick_end: str = "count"

    @classmethod
    def parse(cls, values: Mapping[str, VariantValue]) -> Variants:
        """Check ``values`` field by field and return the variants; missing fields are defaults.

        Raises ``ValueError`` naming the field for an unknown field, a bad value,
        or the refused combination ``trump="upcard"`` with ``multi_card_plays=True``.
        """
        strings: dict[str, str] = {}
        bools: dict[str, bool] = {}
        threshold: int | None = None
        for name, value in values.items():
            if name in _STRING_CHOICES:
                if not isinstance(value, str) or value not in _STRING_CHOICES[name]:
                    allowed = ", ".join(_STRING_CHOICES[name])
                    raise ValueError(f"{name} must be one of {allowed}, got {value!r}")
                strings[name] = value
            elif name in _BOOL_FIELDS:
                if not isinstance(value, bool):
                    raise ValueError(f"{name} must be True or False, got {value!r}")
                bools[name] = value
            elif name == "low_card_threshold":
                if value is not None and (
                    isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 13
                ):
                    raise ValueError(f"low_card_threshold must be None or 1..13, got {value!r}")
                threshold = value if isinstance(value, int) else None
            else:
                raise ValueError(f"unknown variant field {name!r}")
        variants = cls(
            trick_mode=strings.get("trick_mode", "duel"),
            duel_tie=strings.get("duel_tie", "replay"),
            all_tie=strings.get("all_tie", "pot"),
            multi_card_plays=bools.get("multi_card_plays", False),
            slough=bools.get("slough", True),
            try_your_luck=bools.get("try_your_luck", True),
            draw=strings.get("draw", "after_play"),
            last_card=strings.get("last_card", "hidden"),
            trump=strings.get("trump", "last_card"),
            low_card_threshold=threshold,
            runs=bools.get("runs", False),
            pickup=strings.get("pickup", "top"),
            trick_end=strings.get("trick_end", "count"),
        )
        if variants.trump == "upcard" and variants.multi_card_plays:
            raise ValueError("trump='upcard' cannot be combined with multi_card_plays=True")
        return variants

    def as_dict(self) -> dict[str, VariantValue]:
        """Return the fields as a dict (the ``Rules.to_dict()`` spelling)."""
        return {
            "trick_mode": self.trick_mode,
            "duel_tie": self.duel_tie,
            "all_tie": self.all_tie,
            "multi_card_plays": self.multi_card_plays,
            "slough": self.slough,
            "try_your_luck": self.try_your_luck,
            "draw": self.draw,
            "last_card": self.last_card,
            "trump": self.trump,
            "low_card_threshold": self.low_card_threshold,
            "runs": self.runs,
            "pickup": self.pickup,
            "trick_end": self.trick_end,
        }


VARIANT_FIELDS: tuple[str, ...] = tuple(Variants().as_dict())
"""The names of the variant fields, in ``Rules.to_dict()`` order."""


# ---------------------------------------------------------------- events and knowledge


@dataclass(frozen=True)
class Event:
    """One entry of the game's event log, the source of :meth:`ModelGame.knowledge`.

    ``visibility`` says who learns the identity of ``cards``: ``"public"``
    (everybody), ``"private"`` (only ``seat``) or ``"secret"`` (nobody; the
    hidden last card).  The kind, the seat, the receiver and the number of
    cards of every event are public in all cases.

    Kinds: ``start`` (``count`` cards in play, all in the stock at first),
    ``deal``/``draw`` (stock to ``seat``'s hand), ``upcard`` (the up-card laid
    face up at the bottom of the stock), ``draw_upcard`` (the up-card taken
    from the stock into ``seat``'s hand), ``hide``/``reveal`` (the hidden last
    card), ``play``/``slough`` (``seat``'s hand to the table), ``flip`` (stock
    to the table), ``win``/``take_back``/``pick_up`` (table to ``seat``),
    ``discard`` (out of play), ``give`` (``seat``'s hand to ``receiver``'s
    hand, the low-card rule).
    """

    kind: str
    seat: int | None = None
    cards: tuple[int, ...] = ()
    visibility: str = "public"
    count: int = 0
    receiver: int | None = None

    def visible_to(self, observer: int) -> bool:
        """Return whether ``observer`` sees which cards this event moved."""
        if self.visibility == "public":
            return True
        if self.visibility == "private":
            return self.seat == observer
        return False


class Knowledge(TypedDict):
    """What one seat can deduce from everything it has seen (docs/rules.md §8)."""

    known: list[set[int]]
    unknown: set[int]
    slots: dict[int | str, int]


@dataclass
class _View:
    """One seat's running replay of the event log (what it has seen so far)."""

    seat: int
    players: int
    consumed: int = 0
    known: list[set[int]] = field(default_factory=list)
    counts: list[int] = field(default_factory=list)  # public: cards in hand + collection
    stock: int = 0  # face-down stock cards (the up-card excluded)
    hidden: int = 0
    upcard_in_stock: set[int] = field(default_factory=set)
    table: set[int] = field(default_factory=set)
    gone: set[int] = field(default_factory=set)

    def __post_init__(self) -> None:
        self.known = [set() for _ in range(self.players)]
        self.counts = [0] * self.players

    def apply(self, event: Event) -> None:
        """Update the view with one event, as the seat saw it."""
        sees = event.visible_to(self.seat)
        who = event.seat
        n = len(event.cards)
        if event.kind == "start":
            self.stock = event.count
        elif event.kind in ("deal", "draw"):
            assert who is not None
            self.stock -= n
            self.counts[who] += n
            if sees:
                self.known[who].update(event.cards)
        elif event.kind == "upcard":
            self.stock -= n
            self.upcard_in_stock.update(event.cards)
        elif event.kind == "draw_upcard":
            assert who is not None
            self.upcard_in_stock.difference_update(event.cards)
            self.counts[who] += n
            self.known[who].update(event.cards)
        elif event.kind == "hide":
            self.stock -= n
            self.hidden += n
        elif event.kind == "reveal":
            assert who is not None
            self.hidden -= n
            self.counts[who] += n
            self.known[who].update(event.cards)
        elif event.kind in ("play", "slough"):
            assert who is not None
            self.counts[who] -= n
            self.known[who].difference_update(event.cards)
            self.table.update(event.cards)
        elif event.kind == "flip":
            self.stock -= n
            self.table.update(event.cards)
        elif event.kind in ("win", "take_back", "pick_up"):
            assert who is not None
            self.counts[who] += n
            self.known[who].update(event.cards)
            self.table.difference_update(event.cards)
        elif event.kind == "discard":
            self.table.difference_update(event.cards)
            self.gone.update(event.cards)
        elif event.kind == "give":
            assert who is not None and event.receiver is not None
            self.counts[who] -= n
            self.known[who].difference_update(event.cards)
            self.counts[event.receiver] += n
            self.known[event.receiver].update(event.cards)
        else:
            raise AssertionError(f"unknown event {event.kind}")

    def knowledge(self) -> Knowledge:
        """Return the seat's knowledge as of the events applied so far."""
        placed = self.table | self.gone | self.upcard_in_stock
        for cards in self.known:
            placed |= cards
        slots: dict[int | str, int] = {
            other: self.counts[other] - len(self.known[other])
            for other in range(self.players)
            if other != self.seat
        }
        slots["stock"] = self.stock
        slots["hidden"] = self.hidden
        return {
            "known": [set(cards) for cards in self.known],
            "unknown": set(ALL_CARDS - placed),
            "slots": slots,
        }


# ---------------------------------------------------------------- the game


class ModelGame:
    """One game of Skitgubbe under any rule variant, from the deal to the end.

    Public state (read it, do not write it):

    - ``players``, ``dealer``, ``hand_size``, ``max_moves`` and ``rules`` (the
      :class:`Variants`).
    - ``phase``: ``"collecting"`` (phase 1), ``"shedding"`` (phase 2) or ``"over"``.
    - ``to_move``: the seat to move, ``None`` when the game is over.
    - ``hands``: per seat, the phase-1 hand; in phase 2 every card the seat holds.
    - ``collections``: per seat, the cards won in phase 1 (empty in phase 2).
    - ``stock``: the stock, top (next card drawn) first; under ``trump="upcard"``
      the up-card lies at its bottom until drawn.
    - ``table``: ``(seat, card)`` pairs, bottom first; ``seat`` is who put the
      card there.  The cards of one play (several equal cards, a run) are laid
      in ascending code order.
    - ``out_of_play``: cards removed from the game.
    - ``hidden_card`` / ``hidden_holder``: the face-down last stock card and its
      holder while it is face down, else ``None``.
    - ``upcard``: the card turned up at the deal under ``trump="upcard"``, else ``None``.
    - ``trump``: the trump suit once the game has determined it, else ``None``
      (always ``None`` under ``trump="none"``).
    - ``trump_public``: whether every player knows the trump (from the deal under
      ``"upcard"``, from the revealed last card under ``last_card="reveal"``, else
      from the start of phase 2).
    - ``last_drawer``: the seat that drew the last stock card, else ``None``.
    - ``leader`` / ``follower``: in phase 1 the leader of the current trick and
      his left neighbour (the duel's two players under ``"duel"``); in phase 2
      ``leader`` is the leader of the current trick.
    - ``round_order``: phase 1, the seats playing in the current round, in
      order (the whole table, or the tied players of a replay).
    - ``window``: phase 1, the seats still to have their turn in the slough
      window (the first is to move), empty outside a window.
    - ``target``: phase 2, the number of players holding cards at the lead of
      the current trick (the play count that completes it under ``"count"``, the
      number of turns under ``"rotation"``); ``turns``: turns taken in it.
    - ``finish_order``: seats in the order they went out.
    - ``moves_played``: moves applied so far (every kind counts).
    - ``log``: the event log.
    """

    # ------------------------------------------------------------------ setup

    def __init__(
        self,
        players: int,
        deck: list[int],
        dealer: int,
        hand_size: int = 3,
        max_moves: int = 10_000,
        **variants: VariantValue,
    ) -> None:
        """Deal ``deck`` (``deck[0]`` = top) and get ready for the first phase-1 move."""
        self._init_fields(players, dealer, hand_size, max_moves, variants)
        if len(deck) != 52 or set(deck) != ALL_CARDS:
            raise ValueError("deck must hold each of the 52 card codes exactly once")
        self._deal(list(deck))
        self._start_trick(self._seat_after(dealer))

    @classmethod
    def from_rules(
        cls, rules: Mapping[str, VariantValue], deck: list[int], dealer: int
    ) -> ModelGame:
        """Start a game from a whole ``skitgubbe.Rules.to_dict()`` dict."""
        data = dict(rules)
        players = data.pop("players", 3)
        hand_size = data.pop("hand_size", 3)
        max_moves = data.pop("max_moves", 10_000)
        for name, value in (("players", players), ("hand_size", hand_size)):
            if not isinstance(value, int) or isinstance(value, bool):
                raise ValueError(f"{name} must be an int, got {value!r}")
        if not isinstance(max_moves, int) or isinstance(max_moves, bool):
            raise ValueError(f"max_moves must be an int, got {max_moves!r}")
        assert isinstance(players, int) and isinstance(hand_size, int)
        return cls(players, deck, dealer, hand_size, max_moves, **data)

    @classmethod
    def from_shedding(
        cls,
        players: int,
        hands: list[set[int]],
        trump: int | None,
        leader: int,
        max_moves: int = 10_000,
        **variants: VariantValue,
    ) -> ModelGame:
        """Start a game directly in phase 2 (a test helper).

        Each seat holds ``hands[seat]``; every other card is out of play; the
        trump is public.  Seats without cards are out at once, in seat order
        starting with ``leader``.  ``leader`` leads the first trick (his next
        player holding cards if he holds none).  There is no hidden card, no
        last drawer and no low-card redistribution; the dealer is recorded as
        the seat before ``leader``.  Only the phase-2 variants (``runs``,
        ``pickup``, ``trick_end``) matter, but every field given is checked.
        Here ``trump`` is the trump *suit* (0..3 or ``None``), so the variant
        field of that name cannot be passed (it has no effect in phase 2).
        """
        if players not in (2, 3, 4) or not 0 <= leader < players:
            raise ValueError(f"leader must be a seat of a 2-4 player game, got {leader}")
        game = cls.__new__(cls)
        game._init_fields(players, (leader - 1) % players, 3, max_moves, variants)
        if len(hands) != players:
            raise ValueError("need one hand per seat")
        held: set[int] = set()
        for hand in hands:
            if not set(hand) <= ALL_CARDS or held & set(hand):
                raise ValueError("hands must be disjoint sets of valid card codes")
            held |= set(hand)
        if trump is not None and trump not in range(4):
            raise ValueError(f"trump must be a suit 0..3 or None, got {trump}")
        game.log.append(Event("start", count=len(held)))
        for seat, hand in enumerate(hands):
            for card in sorted(hand):
                game.hands[seat].add(card)
                game.log.append(Event("deal", seat, (card,), "private"))
        game.out_of_play = set(ALL_CARDS - held)
        game.log.append(Event("discard", None, tuple(sorted(game.out_of_play))))
        game.trump = trump
        game.trump_public = True
        game.phase = SHEDDING
        for step in range(players):
            seat = (leader + step) % players
            if not game.hands[seat]:
                game.finish_order.append(seat)
        if not game._end_if_decided():
            first = leader if game.hands[leader] else game._next_holder(leader)
            game.leader = first
            game.to_move = first
        return game

    def _init_fields(
        self,
        players: int,
        dealer: int,
        hand_size: int,
        max_moves: int,
        variants: Mapping[str, VariantValue],
    ) -> None:
        """Check the configuration and set every field to its empty value."""
        if players not in (2, 3, 4):
            raise ValueError(f"players must be 2, 3 or 4, got {players}")
        if not 0 <= dealer < players:
            raise ValueError(f"dealer must be a seat 0..{players - 1}, got {dealer}")
        if hand_size not in (3, 5):
            raise ValueError(f"hand_size must be 3 or 5, got {hand_size}")
        if max_moves < 1:
            raise ValueError(f"max_moves must be positive, got {max_moves}")
        self.rules = Variants.parse(variants)
        self.players = players
        self.dealer = dealer
        self.hand_size = hand_size
        self.max_moves = max_moves
        self.phase = COLLECTING
        self.to_move: int | None = None
        self.hands: list[set[int]] = [set() for _ in range(players)]
        self.collections: list[set[int]] = [set() for _ in range(players)]
        self.stock: list[int] = []
        self.table: list[tuple[int, int]] = []
        self._table_plays: list[int] = []  # parallel to ``table``: the play each card belongs to
        self._next_play_id = 0
        self.out_of_play: set[int] = set()
        self.hidden_card: int | None = None
        self.hidden_holder: int | None = None
        self.upcard: int | None = None
        self.trump: int | None = None
        self.trump_public = False
        self.last_drawer: int | None = None
        self.leader = 0
        self.follower = 0
        self.round_order: list[int] = []
        self._round_plays: dict[int, tuple[int, ...]] = {}
        self._tied: list[int] = []
        self._winner: int | None = None
        self.window: list[int] = []
        self._window_ranks: frozenset[int] = frozenset()
        self.target = 0
        self.turns = 0
        self.finish_order: list[int] = []
        self.loser: int | None = None
        self.truncated = False
        self.moves_played = 0
        self.log: list[Event] = []
        self._views: dict[int, _View] = {}

    def _deal(self, deck: list[int]) -> None:
        """Deal ``hand_size`` rounds clockwise from the dealer's left; the rest is the stock.

        Under ``trump="upcard"`` the next card is turned up, sets the trump (public
        at once) and goes to the bottom of the stock (docs/rules.md §2, §5.1).
        """
        self.log.append(Event("start", count=52))
        position = 0
        for _ in range(self.hand_size):
            for step in range(1, self.players + 1):
                seat = (self.dealer + step) % self.players
                card = deck[position]
                position += 1
                self.hands[seat].add(card)
                self.log.append(Event("deal", seat, (card,), "private"))
        if self.rules.trump == "upcard":
            up = deck[position]
            self.upcard = up
            self.trump = suit(up)
            self.trump_public = True
            self.stock = [*deck[position + 1 :], up]
            self.log.append(Event("upcard", None, (up,)))
        else:
            self.stock = deck[position:]

    # ------------------------------------------------------------ public API

    @property
    def result(self) -> Result | None:
        """``None`` while the game runs, else ``(loser, finish_order, truncated)``."""
        if self.phase != OVER:
            return None
        return (self.loser, tuple(self.finish_order), self.truncated)

    @property
    def in_window(self) -> bool:
        """Whether the game is in a slough window (docs/rules.md §4.4)."""
        return self.phase == COLLECTING and bool(self.window)

    def legal_moves(self) -> list[Move]:
        """Return the legal moves in canonical order.

        Plays by ascending card mask, then the flip (phase 1, if allowed), then
        the pick-up (phase 2 on a non-empty table).  In a slough window: the
        sloughs by ascending card mask, then the pass.  Empty when the game is over.
        """
        if self.phase == OVER or self.to_move is None:
            return []
        hand = self.hands[self.to_move]
        if self.phase == COLLECTING:
            if self.window:
                eligible = [card for card in hand if rank(card) in self._window_ranks]
                sloughs = [(SLOUGH, cards) for cards in nonempty_subsets(eligible)]
                return [*sorted(sloughs, key=move_key), PASS_MOVE]
            if self.rules.trick_mode == "all" and self.rules.multi_card_plays:
                plays: list[frozenset[int]] = []
                for rank_ in {rank(card) for card in hand}:
                    plays += nonempty_subsets(card for card in hand if rank(card) == rank_)
            else:
                plays = [frozenset((card,)) for card in hand]
            moves = sorted(((PLAY, cards) for cards in plays), key=move_key)
            # docs/rules.md §3.3: try your luck only while the stock holds at least 2 cards
            # (model choice 4: the up-card at the bottom counts).
            if self.rules.try_your_luck and len(self.stock) >= 2:
                moves.append(FLIP_MOVE)
            return moves
        plays = [frozenset((card,)) for card in hand]
        if self.rules.runs:
            plays += runs_in(hand)
        if self.table:
            top = self.table[-1][1]
            # docs/rules.md §6.2: a single card beats the top; a run's lowest card must beat it.
            plays = [cards for cards in plays if self.beats(min(cards), top)]
        moves = sorted(((PLAY, cards) for cards in plays), key=move_key)
        if self.table:
            moves.append(PICK_UP_MOVE)
        return moves

    def play(self, move: Move) -> None:
        """Apply ``move`` for the player to move; raise ``ValueError`` if it is not legal."""
        if move not in self.legal_moves():
            raise ValueError(f"illegal move {move!r}")
        kind, cards = move[0], frozenset(move[1])
        seat = self.to_move
        assert seat is not None
        self.moves_played += 1
        if self.phase == COLLECTING:
            if kind in (SLOUGH, PASS):
                self._window_move(seat, kind, cards)
            else:
                self._play_collecting(seat, kind, cards)
        else:
            self._play_shedding(seat, kind, cards)
        # docs/rules.md §6.8: the move cap ends a game that is not otherwise over.
        if self.phase != OVER and self.moves_played >= self.max_moves:
            self._finish(loser=None, truncated=True)

    def beats(self, card: int, top: int) -> bool:
        """Return whether ``card`` beats ``top`` in phase 2 (docs/rules.md §6.2)."""
        if suit(card) == suit(top):
            return rank(card) > rank(top)
        return self.trump is not None and suit(card) == self.trump

    def holders(self) -> list[int]:
        """Return the seats holding cards (phase 2), in seat order."""
        return [seat for seat in range(self.players) if self.hands[seat]]

    def table_plays(self) -> list[tuple[int, tuple[int, ...]]]:
        """Return the table as plays ``(seat, cards)``, bottom first (docs/rules.md §6.4)."""
        plays: list[tuple[int, tuple[int, ...]]] = []
        last_id: int | None = None
        for (seat, card), play_id in zip(self.table, self._table_plays, strict=True):
            if play_id == last_id:
                plays[-1] = (seat, (*plays[-1][1], card))
            else:
                plays.append((seat, (card,)))
            last_id = play_id
        return plays

    # ---------------------------------------------------------- the table

    def _lay(self, seat: int, cards: Iterable[int]) -> None:
        """Put one play on the table, its cards in ascending code order."""
        for card in sorted(cards):
            self.table.append((seat, card))
            self._table_plays.append(self._next_play_id)
        self._next_play_id += 1

    def _clear_table(self) -> list[tuple[int, int]]:
        """Empty the table and return what lay on it, bottom first."""
        cleared = list(self.table)
        self.table.clear()
        self._table_plays.clear()
        return cleared

    def _discard(self, cards: Iterable[int]) -> None:
        """Put ``cards`` out of play (public)."""
        gone = tuple(cards)
        if gone:
            self.out_of_play.update(gone)
            self.log.append(Event("discard", None, gone))

    # ---------------------------------------------------------- phase 1

    def _seat_after(self, seat: int) -> int:
        """Return the left neighbour of ``seat`` (phase-1 "next player")."""
        return (seat + 1) % self.players

    def _refill(self, seat: int) -> bool:
        """Refill ``seat`` from the stock top to ``hand_size`` cards, as far as the stock lasts.

        The last stock card (docs/rules.md §3.7, §3.8, §5.1): under ``trump="upcard"`` it is
        the up-card, taken into the hand in view of all; else with
        ``last_card="reveal"`` it is shown and taken into the hand (its suit is
        trump under ``trump="last_card"``); else it lies face down beside its
        drawer, unknown to everybody (its suit is trump under ``"last_card"``).
        Return ``True`` when the draw ends phase 1 at once (``last_card="reveal"``).
        """
        while len(self.hands[seat]) < self.hand_size and self.stock:
            card = self.stock.pop(0)
            if self.stock:
                self.hands[seat].add(card)
                self.log.append(Event("draw", seat, (card,), "private"))
                continue
            self.last_drawer = seat
            if self.rules.trump == "upcard":
                self.hands[seat].add(card)
                self.log.append(Event("draw_upcard", seat, (card,)))
            elif self.rules.last_card == "reveal":
                self.hands[seat].add(card)
                self.log.append(Event("draw", seat, (card,), "public"))
                if self.rules.trump == "last_card":
                    self.trump = suit(card)
                self.trump_public = True
            else:
                self.hidden_card = card
                self.hidden_holder = seat
                if self.rules.trump == "last_card":
                    self.trump = suit(card)
                self.log.append(Event("hide", seat, (card,), "secret"))
            return self.rules.last_card == "reveal"
        return False

    def _start_trick(self, leader: int) -> None:
        """Start a phase-1 trick led by ``leader``.

        Under ``"duel"`` the round is the leader and his left neighbour; under
        ``"all"`` every seat, clockwise from the leader (docs/rules.md §3.1, §4.1).
        """
        self.leader = leader
        self.follower = self._seat_after(leader)
        if self.rules.trick_mode == "duel":
            self.round_order = [leader, self.follower]
        else:
            self.round_order = [(leader + step) % self.players for step in range(self.players)]
        self._round_plays = {}
        self._winner = None
        self._begin_collecting_turn(leader)

    def _begin_collecting_turn(self, seat: int) -> None:
        """Make ``seat`` the player who must play now.

        docs/rules.md §3.10: with no hand card and a non-empty stock he refills first (to
        ``hand_size``); if that reveals the last card, phase 1 ends at once.
        docs/rules.md §3.8: if his hand is still empty, phase 1 ends.
        """
        if not self.hands[seat] and self.stock and self._refill(seat):
            self._end_collecting()
            return
        if not self.hands[seat]:
            self._end_collecting()
            return
        self.to_move = seat

    def _play_collecting(self, seat: int, kind: str, cards: frozenset[int]) -> None:
        """Apply a phase-1 play (one or more hand cards) or flip, then move the trick on.

        With ``draw="after_play"`` the player refills right after a hand-card play
        (docs/rules.md §3.4; not after a flip, docs/rules.md §3.3).  **Model choice**
        (1) when that refill reveals the last card (``last_card="reveal"``, phase 1 ends
        at once): if the play completed a round with a single winner, the winner
        collects the table (docs/rules.md §3.8); if it completed a duel tie under
        ``BOUNCE``, the two cards go out of play (a bounced trick is decided); otherwise
        (the trick still under way, or a tie waiting for its replay, also under
        ``LOWER_OUT``) every card on the table is taken back.
        """
        if kind == PLAY:
            for card in cards:
                self.hands[seat].remove(card)
            self._lay(seat, cards)
            self.log.append(Event("play", seat, tuple(sorted(cards))))
            played = tuple(sorted(cards))
        else:  # FLIP, docs/rules.md §3.3: the top stock card is played, nothing is drawn
            card = self.stock.pop(0)
            self._lay(seat, (card,))
            self.log.append(Event("flip", seat, (card,)))
            played = (card,)
        self._round_plays[seat] = played
        outcome = self._resolve_round(seat)
        if kind == PLAY and self.rules.draw == "after_play" and self._refill(seat):
            if outcome == "won":
                self._collect()
            self._end_collecting()
            return
        self._continue(outcome)

    def _resolve_round(self, seat: int) -> str | int:
        """Decide the round if ``seat``'s play completed it; say what comes next.

        Returns the seat due to play next in the round, ``"won"`` when a single
        winner is recorded, ``"bounced"`` after a duel bounce (both tied cards out
        of play; the trick is decided) or ``"tied"`` when the tied players must
        replay (they are kept in ``_tied``).
        """
        position = self.round_order.index(seat)
        if position + 1 < len(self.round_order):
            return self.round_order[position + 1]
        best = self._round_best()
        if len(best) == 1:
            self._winner = best[0]
            return "won"
        if self.rules.trick_mode == "duel" and self.rules.duel_tie == "bounce":
            # docs/rules.md §3.6 BOUNCE: both tied cards go out of play.
            self._discard(card for _, card in self._clear_table())
            return "bounced"
        self._tied = best
        return "tied"

    def _round_best(self) -> list[int]:
        """Return the players of the finished round with the best play, in round order.

        Under ``trump="upcard"`` (docs/rules.md §5.1) the highest trump wins, else the highest
        card of the suit led (the suit of the trick's first card): one winner.
        Otherwise the highest rank (suits ignored); several players on a tie.
        """
        plays = [(seat, self._round_plays[seat]) for seat in self.round_order]
        if self.rules.trump == "upcard":
            led = suit(self.table[0][1])
            candidates = [(seat, card) for seat, cards in plays for card in cards]
            trumps = [pair for pair in candidates if suit(pair[1]) == self.trump]
            pool = trumps or [pair for pair in candidates if suit(pair[1]) == led]
            return [max(pool, key=lambda pair: rank(pair[1]))[0]]
        best = max(rank(cards[0]) for _, cards in plays)
        return [seat for seat, cards in plays if rank(cards[0]) == best]

    def _continue(self, outcome: str | int) -> None:
        """Go on after a phase-1 play that did not end phase 1."""
        if outcome == "bounced":
            # docs/rules.md §3.6 BOUNCE: the follower leads the next trick.
            self._trick_decided(self.follower)
        elif outcome == "won":
            self._open_window()
        elif outcome == "tied":
            self._start_replay()
        else:
            assert isinstance(outcome, int)
            self._begin_collecting_turn(outcome)

    def _start_replay(self) -> None:
        """Replay a tie: only the tied players, in the order they just played.

        See docs/rules.md §3.6 and §4.3.

        **Model choice** (2): with ``LOWER_OUT`` (``"all"`` only) every card on the
        table of a player who is not among the tied players goes out of play now,
        as the replay begins (before the first tied player's turn and any refill
        of docs/rules.md §3.10).
        """
        tied = self._tied
        if self.rules.trick_mode == "all" and self.rules.all_tie == "lower_out":
            keep = [i for i, (owner, _) in enumerate(self.table) if owner in tied]
            out = [card for owner, card in self.table if owner not in tied]
            self.table = [self.table[i] for i in keep]
            self._table_plays = [self._table_plays[i] for i in keep]
            self._discard(out)
        self.round_order = tied
        self._round_plays = {}
        self._begin_collecting_turn(tied[0])

    def _open_window(self) -> None:
        """Open the slough window once the winner is known (docs/rules.md §4.4), or collect at once.

        The ranks that may be thrown are those lying on the table now; the turns go
        from the winner's left neighbour round to the winner.
        """
        winner = self._winner
        assert winner is not None
        if self.rules.trick_mode != "all" or not self.rules.slough:
            self._collect_and_go_on()
            return
        self._window_ranks = frozenset(rank(card) for _, card in self.table)
        self.window = [(winner + step) % self.players for step in range(1, self.players + 1)]
        self._advance_window()

    def _advance_window(self) -> None:
        """Give the turn to the next window seat holding a card of a trick rank, or close.

        **Model choice** (3): a seat with an empty hand is skipped; nobody refills
        for the window (docs/rules.md §3.10 is for players who must play).
        """
        while self.window:
            seat = self.window[0]
            if any(rank(card) in self._window_ranks for card in self.hands[seat]):
                self.to_move = seat
                return
            self.window.pop(0)  # skipped: he could only pass
        self._collect_and_go_on()

    def _window_move(self, seat: int, kind: str, cards: frozenset[int]) -> None:
        """Apply a slough or a pass in the window.

        With ``draw="after_play"`` a slougher refills at once; if that reveals the
        last card, the winner collects the table and phase 1 ends (docs/rules.md
        §3.8).
        """
        self.window.pop(0)
        if kind == SLOUGH:
            for card in cards:
                self.hands[seat].remove(card)
            self._lay(seat, cards)
            self.log.append(Event("slough", seat, tuple(sorted(cards))))
            if self.rules.draw == "after_play" and self._refill(seat):
                self._collect()
                self._end_collecting()
                return
        self._advance_window()

    def _collect(self) -> int:
        """The recorded winner takes every card on the table into his collection."""
        winner = self._winner
        assert winner is not None
        won = tuple(card for _, card in self._clear_table())
        self.collections[winner].update(won)
        self.log.append(Event("win", winner, won))
        self._winner = None
        self.window = []
        self._window_ranks = frozenset()
        return winner

    def _collect_and_go_on(self) -> None:
        """Collect the decided trick; the winner leads the next one (docs/rules.md §3.5, §4.6)."""
        self._trick_decided(self._collect())

    def _trick_decided(self, next_leader: int) -> None:
        """After a trick is decided: ``draw="after_trick"`` refills, then the next trick.

        docs/rules.md §3.9: every player refills, from the next leader clockwise; a revealed
        last card ends phase 1 at once (the others do not refill).
        """
        if self.rules.draw == "after_trick":
            for step in range(self.players):
                if self._refill((next_leader + step) % self.players):
                    self._end_collecting()
                    return
        self._start_trick(next_leader)

    def _end_collecting(self) -> None:
        """End phase 1: take back the unfinished trick, then start phase 2 (docs/rules.md §3.8)."""
        for seat, card in self._clear_table():
            self.hands[seat].add(card)
            self.log.append(Event("take_back", seat, (card,)))
        self.round_order = []
        self._round_plays = {}
        self._winner = None
        self.window = []
        self._start_shedding()

    # ---------------------------------------------------------- between the phases

    def _start_shedding(self) -> None:
        """Reveal the hidden card, merge, find outs, low cards, the leader (docs/rules.md §5)."""
        if self.hidden_card is not None and self.hidden_holder is not None:
            self.collections[self.hidden_holder].add(self.hidden_card)
            self.log.append(Event("reveal", self.hidden_holder, (self.hidden_card,)))
            self.hidden_card = None
            self.hidden_holder = None
        self.trump_public = True
        for seat in range(self.players):
            self.hands[seat] |= self.collections[seat]
            self.collections[seat] = set()
        self.phase = SHEDDING
        self.to_move = None
        self._mark_outs()
        if self._end_if_decided():
            return
        if self.rules.low_card_threshold is not None:
            self._low_cards(self.rules.low_card_threshold)
            self._mark_outs()
            if self._end_if_decided():
                return
        first = self.last_drawer if self.last_drawer is not None else self._seat_after(self.dealer)
        if not self.hands[first]:
            first = self._next_holder(first)
        self.leader = first
        self.to_move = first

    def _seats_from_dealers_left(self) -> list[int]:
        """Return every seat in order, starting with the dealer's left neighbour."""
        return [(self.dealer + step) % self.players for step in range(1, self.players + 1)]

    def _mark_outs(self) -> None:
        """Seats without cards go out, in seat order from the dealer's left (docs/rules.md §5.3)."""
        for seat in self._seats_from_dealers_left():
            if not self.hands[seat] and seat not in self.finish_order:
                self.finish_order.append(seat)

    def _low_cards(self, threshold: int) -> None:
        """docs/rules.md §5.4: deal the others' cards of rank 2-5 to the short players.

        A holder with fewer than ``threshold`` cards is short.  Every card of rank
        2-5 held by the other holders is taken and dealt one at a time, lowest
        first (rank, then suit), to the short players in seat order from the
        dealer's left, round and round.  Public.
        """
        holders = [seat for seat in self._seats_from_dealers_left() if self.hands[seat]]
        short = [seat for seat in holders if len(self.hands[seat]) < threshold]
        if not short:
            return
        pool = sorted(
            (
                (rank(card), suit(card), card, owner)
                for owner in holders
                if owner not in short
                for card in self.hands[owner]
                if rank(card) in LOW_RANKS
            ),
        )
        for index, (_, _, card, owner) in enumerate(pool):
            receiver = short[index % len(short)]
            self.hands[owner].remove(card)
            self.hands[receiver].add(card)
            self.log.append(Event("give", owner, (card,), receiver=receiver))

    # ---------------------------------------------------------- phase 2

    def _next_holder(self, seat: int) -> int:
        """Return the next seat clockwise after ``seat`` holding cards (phase-2 "next player")."""
        for step in range(1, self.players + 1):
            other = (seat + step) % self.players
            if self.hands[other]:
                return other
        raise RuntimeError("nobody holds cards")

    def _end_if_decided(self) -> bool:
        """End the game if at most one seat holds cards (docs/rules.md §5.3, §6.7); say whether it
        did."""
        holders = self.holders()
        if len(holders) > 1:
            return False
        self._finish(loser=holders[0] if holders else None, truncated=False)
        return True

    def _plays_on_table(self) -> int:
        """Return the number of plays with at least one card left on the table (docs/rules.md
        §6.4)."""
        return len(set(self._table_plays))

    def _pick_up_count(self) -> int:
        """Return how many cards a pick-up takes from the top of the table (docs/rules.md §6.3)."""
        if self.rules.pickup == "pile":
            return len(self.table)
        count = 1
        if self.rules.pickup == "top_run":
            # The top card plus every card directly below continuing an unbroken
            # descending sequence of the same suit, across plays.
            while count < len(self.table):
                above = self.table[-count][1]
                below = self.table[-count - 1][1]
                if below != above - 1 or suit(below) != suit(above):
                    break
                count += 1
        return count

    def _play_shedding(self, seat: int, kind: str, cards: frozenset[int]) -> None:
        """Apply a phase-2 play (a card or a run) or pick-up."""
        if kind == PICK_UP:
            count = self._pick_up_count()
            taken = [card for _, card in self.table[-count:]]
            del self.table[-count:]
            del self._table_plays[-count:]
            self.hands[seat].update(taken)
            self.log.append(Event("pick_up", seat, tuple(taken)))
            self.turns += 1
            nxt = self._next_holder(seat)
            if not self.table:
                # docs/rules.md §6.6: an emptied table ends the trick; the picker's next
                # player leads.
                self.leader = nxt
                self.to_move = nxt
                return
            if self.rules.trick_end == "rotation" and self.turns == self.target:
                # docs/rules.md §6.5 ROTATION: the owner of the top play leads (his next if out).
                owner = self.table[-1][0]
                self._discard(card for _, card in self._clear_table())
                nxt = owner if self.hands[owner] else self._next_holder(owner)
                self.leader = nxt
            self.to_move = nxt
            return

        if not self.table:
            # docs/rules.md §6.5: the target is fixed when the leader leads, counting him.
            self.leader = seat
            self.target = len(self.holders())
            self.turns = 0
        for card in cards:
            self.hands[seat].remove(card)
        self._lay(seat, cards)
        self.log.append(Event("play", seat, tuple(sorted(cards))))
        self.turns += 1
        if not self.hands[seat]:
            self.finish_order.append(seat)  # docs/rules.md §6.7: out and safe at once
        if self._end_if_decided():
            return  # a play that ends the game does not also complete the trick
        if self.rules.trick_end == "count":
            complete = self._plays_on_table() == self.target
        else:
            complete = self.turns == self.target
        if complete:
            self._discard(card for _, card in self._clear_table())
            nxt = seat if self.hands[seat] else self._next_holder(seat)
            self.leader = nxt
            self.to_move = nxt
        else:
            self.to_move = self._next_holder(seat)

    def _finish(self, loser: int | None, truncated: bool) -> None:
        """Mark the game over."""
        self.phase = OVER
        self.to_move = None
        self.loser = loser
        self.truncated = truncated
        self.window = []

    # ---------------------------------------------------------- knowledge

    def knowledge(self, seat: int) -> Knowledge:
        """Return what ``seat`` knows, replayed from the event log only (docs/rules.md §8).

        ``known[t]`` for another seat ``t`` holds the cards every player can
        place with ``t``; ``known[seat]`` is the seat's own hand and collection
        (never the face-down hidden card).  ``unknown`` holds the cards the seat
        cannot place; ``slots`` says how many of them each other seat, the
        stock and the hidden card hold.  The up-card lying at the bottom of the
        stock is placed (public), so it is neither unknown nor a stock slot.
        The true state is never consulted: the replay reads the log only (and
        keeps its place in it, so repeated calls cost only the new events).
        """
        if not 0 <= seat < self.players:
            raise ValueError(f"no seat {seat}")
        view = self._views.get(seat)
        if view is None:
            view = _View(seat, self.players)
            self._views[seat] = view
        for event in self.log[view.consumed :]:
            view.apply(event)
        view.consumed = len(self.log)
        return view.knowledge()

    # ---------------------------------------------------------- convenience

    def all_places(self) -> list[Iterable[int]]:
        """Return every place a card can be in, for conservation checks."""
        places: list[Iterable[int]] = [*self.hands, *self.collections]
        places.append(self.stock)
        places.append([card for _, card in self.table])
        places.append(self.out_of_play)
        places.append([] if self.hidden_card is None else [self.hidden_card])
        return places

    def __repr__(self) -> str:
        """Return a short human-readable summary of the state."""

        def names(cards: Iterable[int]) -> str:
            return " ".join(card_name(c) for c in sorted(cards))

        hands = " | ".join(names(h) for h in self.hands)
        table = " ".join(card_name(c) for _, c in self.table)
        return (
            f"<ModelGame {self.phase} to_move={self.to_move} hands=[{hands}] "
            f"table=[{table}] stock={len(self.stock)} moves={self.moves_played}>"
        )
