"""Drawing a game for people: the renderer the terminal apps share.

Cards, events, a seat's board and the referee's board as :mod:`rich` markup
(hearts and diamonds in red), for :mod:`skitgubbe.apps.play` and
:mod:`skitgubbe.apps.replay`. Events are told by :meth:`Event.describe
<skitgubbe.Event.describe>`; this module only styles the sentence.

>>> import io
>>> import skitgubbe as sg
>>> from rich.console import Console
>>> game = sg.Game.new(sg.Rules.classic(players=2), seed=5)
>>> events = game.play(game.legal_moves[0])
>>> narration(events, viewer=1)
['Seat 0 plays [default]2♣[/]', 'Seat 0 draws 1 card']
>>> screen = Console(file=io.StringIO(), width=80)
>>> for part in board(game.observation(1), ["seat 0", "you"]):
...     screen.print(part)
>>> print(screen.file.getvalue().splitlines()[0])
Phase 1, collecting cards · stock: 45 cards
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Final

from rich.console import Console, RenderableType
from rich.markup import escape
from rich.table import Table

from ..errors import ArgumentError
from .cards import Card, CardSet, Suit
from .events import Event, EventKind
from .observation import Observation, Phase
from .rules import TrumpRule
from .state import Game

__all__ = [
    "board",
    "capital",
    "card",
    "cards",
    "count",
    "full_board",
    "narration",
    "result_line",
    "say",
    "seat_name",
    "suit_name",
]

_RED: Final = (Suit.HEARTS, Suit.DIAMONDS)
# A card's text in a sentence: "7♥", "10♦" (Card.__str__).
_CARD_TEXT: Final = re.compile(r"(?:10|[2-9JQKA])[♣♦♥♠]")


def card(card: Card, *, top: bool = False) -> str:
    """A card as markup: hearts and diamonds in red; ``top`` (the card to beat) reversed.

    >>> from skitgubbe import Card
    >>> card(Card.parse("7H")), card(Card.parse("KS"), top=True)
    ('[red]7♥[/]', '[default bold reverse]K♠[/]')
    """
    style = "red" if card.suit in _RED else "default"
    if top:
        style += " bold reverse"
    return f"[{style}]{card}[/]"


def cards(held: Iterable[Card]) -> str:
    """Cards as markup, in the order given; ``-`` for none.

    >>> from skitgubbe import CardSet
    >>> cards(CardSet.parse("7H KS")), cards(CardSet())
    ('[red]7♥[/] [default]K♠[/]', '-')
    """
    return " ".join(card(one) for one in held) or "-"


def count(n: int) -> str:
    """``n`` cards, in words.

    >>> count(1), count(43)
    ('1 card', '43 cards')
    """
    return f"{n} card" if n == 1 else f"{n} cards"


def seat_name(seat: int | None, viewer: int | None) -> str:
    """How the screen of ``viewer`` (``None``: a spectator) names ``seat``.

    >>> seat_name(1, 0), seat_name(0, 0), seat_name(None, 0)
    ('seat 1', 'you', 'nobody')
    """
    if seat is None:
        return "nobody"
    return "you" if seat == viewer else f"seat {seat}"


def capital(line: str) -> str:
    """``line`` with a capital first letter (a line that starts with a card is left as it is).

    >>> capital("you play 7♥"), capital("7♥ is turned up")
    ('You play 7♥', '7♥ is turned up')
    """
    return line[:1].upper() + line[1:] if line[:1].isalpha() else line


def suit_name(suit: Suit) -> str:
    """A suit's name and its symbol, as markup.

    >>> from skitgubbe import Suit
    >>> suit_name(Suit.HEARTS)
    'hearts [red]♥[/]'
    """
    return f"{suit.name.lower()} {_suit_symbol(suit)}"


def _suit_symbol(suit: Suit) -> str:
    return f"[{'red' if suit in _RED else 'default'}]{suit.symbol}[/]"


def narration(events: Iterable[Event], viewer: int | None) -> list[str]:
    """The events as lines of markup for ``viewer``'s screen (``None``: a spectator's).

    Each line is the event's sentence (:meth:`Event.describe
    <skitgubbe.Event.describe>`) with its cards in colour. Deals are left out:
    the hands are on the screen.

    >>> from skitgubbe import CardSet, Event, EventKind
    >>> draw = Event(EventKind.DRAW, seat=0, cards=CardSet.parse("7H"), count=1)
    >>> narration([draw], 0), narration([draw], 1)
    (['You draw [red]7♥[/]'], ['Seat 0 draws 1 card'])
    """
    return [
        _styled(capital(event.describe(viewer)))
        for event in events
        if event.kind is not EventKind.DEAL
    ]


def _styled(sentence: str) -> str:
    """A plain sentence as markup, its cards coloured as :func:`card` colours them."""
    return _CARD_TEXT.sub(lambda found: card(Card.parse(found[0])), escape(sentence))


def _by_suit(held: CardSet, trump: Suit | None) -> list[str]:
    """One line of markup per suit held: the suit, then its cards, low to high."""
    lines = []
    for suit in Suit:
        of_suit = held.suit(suit)
        if of_suit:
            mark = "  [italic](trump)[/]" if suit is trump else ""
            lines.append(f"  {_suit_symbol(suit)}  {cards(of_suit)}{mark}")
    return lines or ["  -"]


def _table_line(observation: Observation) -> str:
    if not observation.table:
        return "Table: empty"
    top = observation.top
    plays = []
    for play in observation.table:
        shown = " ".join(card(one, top=one == top) for one in play.cards)
        plays.append(f"{shown} ({seat_name(play.seat, None)})")
    beat = "  <- top card" if observation.phase is Phase.SHEDDING else ""
    return f"Table: {', '.join(plays)}{beat}"


def _trump_text(observation: Observation) -> str:
    if observation.trump is not None:
        return suit_name(observation.trump)
    if observation.rules.trump is TrumpRule.NONE:
        return "none"
    if observation.phase is Phase.COLLECTING:
        return "unknown until phase 2 (the suit of the last stock card)"
    return "none"


def _players_table(observation: Observation, names: Sequence[str]) -> Table:
    """Every seat's cards, counted as this observation sees them."""
    collecting = observation.phase is Phase.COLLECTING
    table = Table(box=None, padding=(0, 2), show_edge=False, pad_edge=False)
    table.add_column("seat")
    table.add_column("player")
    if collecting:
        table.add_column("hand", justify="right")
        table.add_column("collection", justify="right")
    else:
        table.add_column("held", justify="right")
    table.add_column("")
    for seat in range(observation.players):
        notes = []
        if seat == observation.to_move:
            notes.append("[bold]to move[/]")
        if seat in observation.finished:
            notes.append("out (safe)")
        if seat == observation.hidden_holder:
            notes.append("+ the face-down last stock card")
        if seat == observation.dealer:
            notes.append("dealer")
        counts = (
            [str(observation.hand_sizes[seat]), str(observation.collection_sizes[seat])]
            if collecting
            else [str(observation.hand_sizes[seat])]
        )
        name = escape(names[seat])
        if seat == observation.seat:
            name = f"[bold]{name}[/]"
        table.add_row(str(seat), name, *counts, ", ".join(notes))
    return table


def board(observation: Observation, names: Sequence[str]) -> list[RenderableType]:
    """The table as ``observation``'s seat sees it: counts, table, trump, its own cards.

    ``names`` label the seats (``"you"`` at the seat's own makes it "Your hand").

    >>> import skitgubbe as sg
    >>> parts = board(sg.Game.new(seed=2).observation(1), ["Anna", "you", "Carla"])
    >>> parts[1], "Your hand:" in parts, "Anna's hand:" in parts
    ('Trump: unknown until phase 2 (the suit of the last stock card)', True, False)
    """
    phase = (
        "phase 1, collecting cards"
        if observation.phase is Phase.COLLECTING
        else "phase 2, getting rid of the cards"
        if observation.phase is Phase.SHEDDING
        else "game over"
    )
    out = f" · out of play: {len(observation.out_of_play)}" if observation.out_of_play else ""
    parts: list[RenderableType] = [
        f"[bold]{phase.capitalize()}[/] · stock: {count(observation.stock_size)}{out}",
        f"Trump: {_trump_text(observation)}",
    ]
    if observation.upcard is not None:
        parts.append(f"Turned-up card under the stock: {card(observation.upcard)}")
    parts.append(_players_table(observation, names))
    parts.append(_table_line(observation))
    me = names[observation.seat]
    holder = "Your" if me == "you" else f"{escape(capital(me))}'s"
    kind = "cards" if observation.phase is not Phase.COLLECTING else "hand"
    parts.append(f"{holder} {kind}:")
    parts.extend(_by_suit(observation.hand, observation.trump))
    if observation.phase is Phase.COLLECTING and observation.collection:
        parts.append(
            f"{holder} collection (face down until phase 2): {cards(observation.collection)}"
        )
    return parts


def full_board(game: Game) -> list[RenderableType]:
    """The referee's view: every hand and collection, the stock, the face-down card.

    >>> import skitgubbe as sg
    >>> parts = full_board(sg.Game.new(sg.Rules.classic(players=2), seed=5))
    >>> parts[0]
    '[bold]Phase 1, collecting cards[/] · stock: 46 cards'
    >>> parts[1].startswith("Stock, top first: ")
    True
    """
    phase = game.phase
    collecting = phase is Phase.COLLECTING
    title = {
        Phase.COLLECTING: "Phase 1, collecting cards",
        Phase.SHEDDING: "Phase 2, getting rid of the cards",
        Phase.OVER: "Game over",
    }[phase]
    stock = game.stock
    trump = game.trump
    out = game.out_of_play
    parts: list[RenderableType] = [
        f"[bold]{title}[/] · stock: {count(len(stock))}"
        + (f" · out of play: {len(out)}" if out else "")
        + (f" · trump: {trump.name.lower()}" if trump is not None else ""),
    ]
    if stock:
        parts.append(f"Stock, top first: {cards(stock)}")
    hidden = game.hidden_card
    table = Table(box=None, padding=(0, 2), show_edge=False, pad_edge=False)
    table.add_column("seat")
    table.add_column("hand" if collecting else "held")
    if collecting:
        table.add_column("collection")
    finished = game.result.finish_order if game.result is not None else _finished(game)
    for seat, hand in enumerate(game.hands):
        note = ""
        if seat == game.to_move:
            note = "  [bold]to move[/]"
        elif seat in finished and not hand:
            note = "  out (safe)"
        cells = [cards(hand) + note]
        if collecting:
            collection = cards(game.collections[seat])
            # The holder is public: any seat's observation names it.
            if hidden is not None and seat == game.observation(0).hidden_holder:
                collection += f" + face down: {card(hidden)}"
            cells.append(collection)
        table.add_row(str(seat), *cells)
    parts.append(table)
    plays = game.table
    if plays:
        top = max(plays[-1].cards)
        shown = ", ".join(
            " ".join(card(one, top=one == top) for one in play.cards) + f" (seat {play.seat})"
            for play in plays
        )
        parts.append(f"Table: {shown}")
    else:
        parts.append("Table: empty")
    return parts


def _finished(game: Game) -> tuple[int, ...]:
    return tuple(
        event.seat
        for event in game.history
        if event.kind is EventKind.OUT and event.seat is not None
    )


def result_line(game: Game, viewer: int | None) -> str:
    """How a finished game ended, for ``viewer``'s screen (``None``: a spectator's).

    >>> import skitgubbe as sg
    >>> game = sg.Game.new(sg.Rules.classic(players=2), seed=5)
    >>> while game.result is None:
    ...     _ = game.play(game.legal_moves[0])
    >>> result_line(game, game.result.loser)  # doctest: +ELLIPSIS
    'You are the skitgubbe after ... moves.'
    >>> result_line(sg.Game.new(seed=1), 0)
    Traceback (most recent call last):
        ...
    skitgubbe.errors.ArgumentError: the game is not over
    """
    result = game.result
    if result is None:
        raise ArgumentError("the game is not over")
    if result.truncated:
        return f"The move cap ended the game after {result.moves_played} moves: nobody lost."
    if result.loser is None:
        return f"Nobody is left holding cards after {result.moves_played} moves: nobody lost."
    if result.loser == viewer:
        return f"You are the skitgubbe after {result.moves_played} moves."
    finish = ", ".join(seat_name(seat, viewer) for seat in result.finish_order[:-1])
    verdict = " You won!" if viewer is not None else ""
    return (
        f"{capital(seat_name(result.loser, viewer))} is the skitgubbe after {result.moves_played} "
        f"moves (out before: {finish}).{verdict}"
    )


def say(console: Console, text: str, style: str = "yellow") -> None:
    """Print plain text, never markup (it may quote what a person typed).

    >>> import io
    >>> from rich.console import Console
    >>> screen = Console(file=io.StringIO())
    >>> say(screen, "Not understood: '[bold]'")
    >>> screen.file.getvalue()
    "Not understood: '[bold]'\\n"
    """
    console.print(text, style=style, markup=False, highlight=False)
