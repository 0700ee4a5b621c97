"""Readable positions for scenario tests: decks that deal given hands, and short helpers.

:func:`dealt` builds the deck that deals given hands (docs/rules.md §2: ``deck[k]``
goes to seat ``dealer + 1 + k``), :func:`burn_deck` and :func:`flip_pairs` run
the stock down to its last cards, and the rest make assertions short.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from random import Random

from skitgubbe import Card, CardSet, Event, EventKind, Game, Move, Phase, Rules, Suit, TablePlay
from skitgubbe.game.cards import ALL_CARDS

EvTuple = tuple[EventKind, int | None, CardSet]


def cards(text: str) -> list[str]:
    """The cards of ``text`` as canonical strings, in the order given."""
    return [str(Card.parse(token)) for token in text.split()]


def deck(top: str) -> list[str]:
    """A 52-card deck, top first: the cards of ``top`` in that order, then every
    other card in a fixed order (clubs 2 … A, diamonds, hearts, spades)."""
    first = cards(top)
    assert len(set(first)) == len(first), f"repeated card in {top!r}"
    return first + [str(card) for card in ALL_CARDS if str(card) not in first]


def dealt(hands: Sequence[str], stock: str = "", dealer: int | None = None) -> list[str]:
    """The deck that deals ``hands[seat]`` to each seat and puts ``stock`` on top
    of the stock (docs/rules.md §2: ``deck[k]`` goes to seat ``dealer + 1 + k``)."""
    n = len(hands)
    dealer = n - 1 if dealer is None else dealer
    per_seat = [cards(hand) for hand in hands]
    size = len(per_seat[0])
    assert all(len(hand) == size for hand in per_seat)
    order: list[str] = []
    for round_ in range(size):
        for k in range(1, n + 1):
            order.append(per_seat[(dealer + k) % n][round_])
    return deck(" ".join(order) + " " + stock)


def leader_wins_pairs(pool: Iterable[str], trump: Suit | None = None) -> list[str]:
    """``pool`` ordered as pairs (leader's card, follower's card) that the leader
    wins when both are turned from the stock.

    Without ``trump`` the higher rank wins (docs/rules.md §3.5). With ``trump``
    (the up-card variant, §5.1) the leader's card is a trump or at least as high
    as the follower's, which is never a trump: off-suit it loses, in suit it is
    lower."""
    ordered = sorted(
        (Card.parse(c) for c in pool), key=lambda c: (c.suit is trump, c.rank), reverse=True
    )
    assert len(ordered) % 2 == 0
    half = len(ordered) // 2
    high, low = ordered[:half], ordered[half:]
    for h, lo in zip(high, low, strict=True):
        if trump is None:
            assert h.rank > lo.rank
        else:
            assert lo.suit is not trump
            assert h.suit is trump or h.suit is not lo.suit or h.rank > lo.rank
    return [str(card) for pair in zip(high, low, strict=True) for card in pair]


def burn_deck(hands: Sequence[str], last: str, dealer: int | None = None) -> list[str]:
    """A deck dealing ``hands`` whose stock is every other card in leader-wins
    pairs followed by the cards of ``last`` (the final one is the last stock card)."""
    used = set(cards(" ".join(hands) + " " + last))
    rest = [str(card) for card in ALL_CARDS if str(card) not in used]
    return dealt(hands, " ".join([*leader_wins_pairs(rest), *cards(last)]), dealer)


def flip_pairs(game: Game, pairs: int) -> None:
    """Both duellists try their luck ``pairs`` times; with a burn deck the leader
    wins every pair, and nobody's hand changes (docs/rules.md §3.3)."""
    for _ in range(pairs):
        leader = game.to_move
        hands = game.hands
        game.play(Move.flip())
        events = game.play(Move.flip())
        assert [e.kind for e in events] == [EventKind.FLIP, EventKind.TRICK_WON]
        assert events[-1].seat == leader
        assert game.hands == hands
        assert game.to_move == leader


def phase(game: Game) -> Phase:
    """The game's phase (a call, so that type checkers do not narrow it between moves)."""
    return game.phase


def table(game: Game) -> tuple[TablePlay, ...]:
    """The game's table (a call, for the same reason)."""
    return game.table


def cs(text: str = "") -> CardSet:
    return CardSet.parse(text)


def ev(kind: EventKind, seat: int | None, text: str = "") -> EvTuple:
    return (kind, seat, cs(text))


def brief(events: Iterable[Event]) -> list[EvTuple]:
    return [(e.kind, e.seat, e.cards) for e in events]


def play(game: Game, text: str) -> list[EvTuple]:
    """Play the move ``text`` for the player to move and return its events, briefly."""
    return brief(game.play(text))


def swapped_twin(rules: Rules, deck: list[int], unknown: Sequence[int], rng: Random) -> Game:
    """A new game on ``deck`` with two of the ``unknown`` cards (codes) swapped in place
    (``deck`` is changed): a deal that a seat not knowing those cards cannot tell apart."""
    a, b = rng.sample(list(unknown), 2)
    i, j = deck.index(a), deck.index(b)
    deck[i], deck[j] = deck[j], deck[i]
    return Game.new(rules, deck=[Card.from_code(code) for code in deck])
