"""A plain-Python reference model of classic Skitgubbe.

"Classic" means every default of RULES.md section 9: two-card duels in
phase 1 (``trick_mode=DUEL``), ties replayed (``duel_tie=REPLAY``), try your
luck allowed, drawing after each play, the last stock card hidden and giving
trump, no low-card rule, single cards only in phase 2, picking up the top card
only and tricks that end by counting plays (``trick_end=COUNT``).

The model is written for clarity, straight from the rules text, and is used as
the test oracle for the C engine.  It never looks at the engine.

Card codes are ``suit * 16 + rank``: suit 0 clubs, 1 diamonds, 2 hearts,
3 spades; rank 0 is the two and rank 12 the ace.  A move is a tuple
``(kind, cards)`` where ``kind`` is ``"play"``, ``"flip"`` or ``"pick_up"`` and
``cards`` is a ``frozenset`` of card codes (one card for a play, empty for the
other two kinds).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TypedDict

Move = tuple[str, frozenset[int]]
"""A move: ``(kind, cards)``."""

Result = tuple[int | None, tuple[int, ...], bool]
"""A finished game: ``(loser, finish_order, truncated)``."""

PLAY = "play"
FLIP = "flip"
PICK_UP = "pick_up"

COLLECTING = "collecting"
SHEDDING = "shedding"
OVER = "over"

SUIT_LETTERS = "CDHS"
RANK_NAMES = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")

ALL_CARDS: frozenset[int] = frozenset(s * 16 + r for s in range(4) for r in range(13))
"""The 52 valid card codes."""

FLIP_MOVE: Move = (FLIP, frozenset())
PICK_UP_MOVE: Move = (PICK_UP, frozenset())


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


@dataclass(frozen=True)
class Event:
    """One entry of the game's event log, the source of :meth:`ModelGame.knowledge`.

    ``visibility`` says who learns the identity of ``cards``: ``"public"``
    (everybody), ``"private"`` (only ``seat``) or ``"secret"`` (nobody; the
    hidden last card).  The kind, the seat and the number of cards of every
    event are public in all cases.
    """

    kind: str
    seat: int | None = None
    cards: tuple[int, ...] = ()
    visibility: str = "public"
    count: int = 0

    def visible_to(self, observer: int) -> bool:
        """Return whether ``observer`` sees which cards this event moved."""
        if self.visibility == "public":
            return True
        if self.visibility == "private":
            return self.seat == observer
        return False


class Knowledge(TypedDict):
    """What one seat can deduce from everything it has seen (RULES.md section 8)."""

    known: list[set[int]]
    unknown: set[int]
    slots: dict[int | str, int]


class ModelGame:
    """One game of classic Skitgubbe, from the deal to the end.

    Public state (read it, do not write it):

    - ``phase``: ``"collecting"`` (phase 1), ``"shedding"`` (phase 2) or ``"over"``.
    - ``to_move``: the seat to move, ``None`` when the game is over.
    - ``hands``: per seat, the phase-1 hand; in phase 2 every card the seat holds.
    - ``collections``: per seat, the cards won in phase 1 (empty in phase 2).
    - ``stock``: the stock, top (next card drawn) first.
    - ``table``: ``(seat, card)`` pairs, bottom first; ``seat`` is who put the card there.
    - ``out_of_play``: cards removed from the game.
    - ``hidden_card`` / ``hidden_holder``: the face-down last stock card and its
      holder while it is face down, else ``None``.
    - ``trump``: the trump suit once the game has determined it (the last stock
      card has been drawn), else ``None``.
    - ``trump_public``: whether every player knows the trump (from the start of phase 2).
    - ``last_drawer``: the seat that drew the last stock card, else ``None``.
    - ``leader`` / ``follower``: the current duel in phase 1; ``leader`` is also
      the leader of the current trick in phase 2.
    - ``target``: the number of plays that completes the current phase-2 trick.
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
    ) -> None:
        """Deal ``deck`` (``deck[0]`` = top) and get ready for the first phase-1 move."""
        self._init_fields(players, dealer, hand_size, max_moves)
        if len(deck) != 52 or set(deck) != ALL_CARDS:
            raise ValueError("deck must hold each of the 52 card codes exactly once")
        self._deal(list(deck))
        self.leader = self._seat_after(dealer)
        self.follower = self._seat_after(self.leader)
        self._begin_collecting_turn(self.leader)

    @classmethod
    def from_shedding(
        cls,
        players: int,
        hands: list[set[int]],
        trump: int | None,
        leader: int,
        max_moves: int = 10_000,
    ) -> ModelGame:
        """Start a game directly in phase 2 (a test helper).

        Each seat holds ``hands[seat]``; every other card is out of play; the
        trump is public.  Seats without cards are out at once, in seat order
        starting with ``leader``.  ``leader`` leads the first trick (his next
        player holding cards if he holds none).  There is no hidden card and no
        last drawer; the dealer is recorded as the seat before ``leader``.
        """
        if players not in (2, 3, 4) or not 0 <= leader < players:
            raise ValueError(f"leader must be a seat of a 2-4 player game, got {leader}")
        game = cls.__new__(cls)
        game._init_fields(players, (leader - 1) % players, 3, max_moves)
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

    def _init_fields(self, players: int, dealer: int, hand_size: int, max_moves: int) -> None:
        """Check the configuration and set every field to its empty value."""
        if players not in (2, 3, 4):
            raise ValueError(f"players must be 2, 3 or 4, got {players}")
        if not 0 <= dealer < players:
            raise ValueError(f"dealer must be a seat 0..{players - 1}, got {dealer}")
        if hand_size not in (3, 5):
            raise ValueError(f"hand_size must be 3 or 5, got {hand_size}")
        if max_moves < 1:
            raise ValueError(f"max_moves must be positive, got {max_moves}")
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
        self.out_of_play: set[int] = set()
        self.hidden_card: int | None = None
        self.hidden_holder: int | None = None
        self.trump: int | None = None
        self.trump_public = False
        self.last_drawer: int | None = None
        self.leader = 0
        self.follower = 0
        self.target = 0
        self.finish_order: list[int] = []
        self.loser: int | None = None
        self.truncated = False
        self.moves_played = 0
        self.log: list[Event] = []

    def _deal(self, deck: list[int]) -> None:
        """Deal ``hand_size`` rounds clockwise from the dealer's left; the rest is the stock."""
        self.log.append(Event("start", count=52))
        position = 0
        for _ in range(self.hand_size):
            for step in range(1, self.players + 1):
                seat = (self.dealer + step) % self.players
                card = deck[position]
                position += 1
                self.hands[seat].add(card)
                self.log.append(Event("deal", seat, (card,), "private"))
        self.stock = deck[position:]

    # ------------------------------------------------------------ public API

    @property
    def result(self) -> Result | None:
        """``None`` while the game runs, else ``(loser, finish_order, truncated)``."""
        if self.phase != OVER:
            return None
        return (self.loser, tuple(self.finish_order), self.truncated)

    def legal_moves(self) -> list[Move]:
        """Return the legal moves in canonical order.

        Plays by ascending card code, then the flip (phase 1, if allowed), then
        the pick-up (phase 2 on a non-empty table).  Empty when the game is over.
        """
        if self.phase == OVER or self.to_move is None:
            return []
        hand = self.hands[self.to_move]
        if self.phase == COLLECTING:
            moves = [play_move(card) for card in sorted(hand)]
            # RULES 3.3: try your luck only while the stock holds at least 2 cards.
            if len(self.stock) >= 2:
                moves.append(FLIP_MOVE)
            return moves
        if not self.table:
            return [play_move(card) for card in sorted(hand)]
        top = self.table[-1][1]
        moves = [play_move(card) for card in sorted(hand) if self.beats(card, top)]
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
            self._play_collecting(seat, kind, cards)
        else:
            self._play_shedding(seat, kind, cards)
        # RULES 6.8: the move cap ends a game that is not otherwise over.
        if self.phase != OVER and self.moves_played >= self.max_moves:
            self._finish(loser=None, truncated=True)

    def beats(self, card: int, top: int) -> bool:
        """Return whether ``card`` beats ``top`` in phase 2 (RULES 6.2)."""
        if suit(card) == suit(top):
            return rank(card) > rank(top)
        return self.trump is not None and suit(card) == self.trump

    def holders(self) -> list[int]:
        """Return the seats holding cards (phase 2), in seat order."""
        return [seat for seat in range(self.players) if self.hands[seat]]

    # ---------------------------------------------------------- phase 1

    def _seat_after(self, seat: int) -> int:
        """Return the left neighbour of ``seat`` (phase-1 "next player")."""
        return (seat + 1) % self.players

    def _refill(self, seat: int) -> None:
        """Refill ``seat`` from the stock top to ``hand_size`` cards, as far as the stock lasts.

        The last stock card is not taken into the hand: it becomes the hidden
        card, held face down by its drawer, and its suit is trump (RULES 3.7).
        """
        while len(self.hands[seat]) < self.hand_size and self.stock:
            card = self.stock.pop(0)
            if self.stock:
                self.hands[seat].add(card)
                self.log.append(Event("draw", seat, (card,), "private"))
            else:
                self.hidden_card = card
                self.hidden_holder = seat
                self.last_drawer = seat
                self.trump = suit(card)
                self.log.append(Event("hide", seat, (card,), "secret"))

    def _begin_collecting_turn(self, seat: int) -> None:
        """Make ``seat`` the player who must lead or follow now.

        RULES 3.10: with no hand card and a non-empty stock he refills first.
        RULES 3.8: if his hand is still empty, phase 1 ends.
        """
        if not self.hands[seat] and self.stock:
            self._refill(seat)
        if not self.hands[seat]:
            self._end_collecting()
            return
        self.to_move = seat

    def _play_collecting(self, seat: int, kind: str, cards: frozenset[int]) -> None:
        """Apply a phase-1 play or flip and decide the duel when both have played."""
        if kind == PLAY:
            (card,) = cards
            self.hands[seat].remove(card)
            self.table.append((seat, card))
            self.log.append(Event("play", seat, (card,)))
            self._refill(seat)  # RULES 3.4
        else:  # FLIP, RULES 3.3: the top stock card is played, nothing is drawn
            card = self.stock.pop(0)
            self.table.append((seat, card))
            self.log.append(Event("flip", seat, (card,)))

        # The table holds complete (leader, follower) pairs of replayed ties,
        # plus the leader's card while the follower has still to answer.
        if len(self.table) % 2 == 1:
            self._begin_collecting_turn(self.follower)
            return
        lead_card = self.table[-2][1]
        follow_card = self.table[-1][1]
        if rank(lead_card) == rank(follow_card):
            # RULES 3.6, REPLAY: the cards stay, the same leader plays again.
            self._begin_collecting_turn(self.leader)
            return
        winner = self.leader if rank(lead_card) > rank(follow_card) else self.follower
        won = tuple(card for _, card in self.table)
        self.collections[winner].update(won)
        self.table.clear()
        self.log.append(Event("win", winner, won))
        # RULES 3.5: the winner leads the next trick against his next player.
        self.leader = winner
        self.follower = self._seat_after(winner)
        self._begin_collecting_turn(self.leader)

    def _end_collecting(self) -> None:
        """End phase 1: take back the unfinished trick, then start phase 2 (RULES 3.8)."""
        for seat, card in self.table:
            self.hands[seat].add(card)
            self.log.append(Event("take_back", seat, (card,)))
        self.table.clear()
        self._start_shedding()

    # ---------------------------------------------------------- between the phases

    def _start_shedding(self) -> None:
        """Reveal the hidden card, merge collections into hands, find outs and leader (RULES 5)."""
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
        for step in range(1, self.players + 1):
            seat = (self.dealer + step) % self.players
            if not self.hands[seat]:
                self.finish_order.append(seat)
        if self._end_if_decided():
            return
        first = self.last_drawer if self.last_drawer is not None else self._seat_after(self.dealer)
        if not self.hands[first]:
            first = self._next_holder(first)
        self.leader = first
        self.to_move = first

    # ---------------------------------------------------------- phase 2

    def _next_holder(self, seat: int) -> int:
        """Return the next seat clockwise after ``seat`` holding cards (phase-2 "next player")."""
        for step in range(1, self.players + 1):
            other = (seat + step) % self.players
            if self.hands[other]:
                return other
        raise RuntimeError("nobody holds cards")

    def _end_if_decided(self) -> bool:
        """End the game if at most one seat holds cards (RULES 5.3, 6.7); say whether it did."""
        holders = self.holders()
        if len(holders) > 1:
            return False
        self._finish(loser=holders[0] if holders else None, truncated=False)
        return True

    def _play_shedding(self, seat: int, kind: str, cards: frozenset[int]) -> None:
        """Apply a phase-2 play or pick-up."""
        if kind == PICK_UP:
            # RULES 6.3 TOP: take the top card only.
            _, card = self.table.pop()
            self.hands[seat].add(card)
            self.log.append(Event("pick_up", seat, (card,)))
            # RULES 6.6: an emptied table means the picker's next player leads;
            # otherwise the picker's next player must beat the new top card.
            nxt = self._next_holder(seat)
            if not self.table:
                self.leader = nxt
            self.to_move = nxt
            return

        (card,) = cards
        if not self.table:
            # RULES 6.5: the target is fixed when the leader leads, counting him.
            self.leader = seat
            self.target = len(self.holders())
        self.hands[seat].remove(card)
        self.table.append((seat, card))
        self.log.append(Event("play", seat, (card,)))
        if not self.hands[seat]:
            self.finish_order.append(seat)  # RULES 6.7: out and safe at once
        if self._end_if_decided():
            return
        if len(self.table) == self.target:
            discarded = tuple(c for _, c in self.table)
            self.out_of_play.update(discarded)
            self.table.clear()
            self.log.append(Event("discard", None, discarded))
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

    # ---------------------------------------------------------- knowledge

    def knowledge(self, seat: int) -> Knowledge:
        """Return what ``seat`` knows, replayed from the event log only (RULES 8).

        ``known[t]`` for another seat ``t`` holds the cards every player can
        place with ``t``; ``known[seat]`` is the seat's own hand and collection
        (never the face-down hidden card).  ``unknown`` holds the cards the seat
        cannot place; ``slots`` says how many of them each other seat, the
        stock and the hidden card hold.  The true state is never consulted.
        """
        if not 0 <= seat < self.players:
            raise ValueError(f"no seat {seat}")
        known: list[set[int]] = [set() for _ in range(self.players)]
        counts = [0] * self.players  # public: cards in hand + collection
        stock_count = 0
        hidden_count = 0
        table: set[int] = set()
        gone: set[int] = set()
        for event in self.log:
            sees = event.visible_to(seat)
            who = event.seat
            if event.kind == "start":
                stock_count = event.count
            elif event.kind in ("deal", "draw"):
                assert who is not None
                stock_count -= 1
                counts[who] += 1
                if sees:
                    known[who].update(event.cards)
            elif event.kind == "hide":
                stock_count -= 1
                hidden_count = 1
            elif event.kind == "reveal":
                assert who is not None
                hidden_count = 0
                counts[who] += 1
                known[who].update(event.cards)
            elif event.kind == "play":
                assert who is not None
                counts[who] -= 1
                known[who].difference_update(event.cards)
                table.update(event.cards)
            elif event.kind == "flip":
                stock_count -= 1
                table.update(event.cards)
            elif event.kind in ("win", "take_back", "pick_up"):
                assert who is not None
                counts[who] += len(event.cards)
                known[who].update(event.cards)
                table.difference_update(event.cards)
            elif event.kind == "discard":
                table.difference_update(event.cards)
                gone.update(event.cards)
            else:
                raise AssertionError(f"unknown event {event.kind}")
        placed = table | gone
        for cards in known:
            placed |= cards
        unknown = set(ALL_CARDS - placed)
        slots: dict[int | str, int] = {
            other: counts[other] - len(known[other])
            for other in range(self.players)
            if other != seat
        }
        slots["stock"] = stock_count
        slots["hidden"] = hidden_count
        return {"known": known, "unknown": unknown, "slots": slots}

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
