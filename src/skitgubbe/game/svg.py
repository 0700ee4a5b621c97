"""Cards and tables drawn as SVG: in Jupyter, in the docs and in the browser table.

:func:`card` draws one card (or its back), :func:`observation` the table as one
seat sees it (its own hand face up, the others' as backs, the table, the trump,
the stock), and :func:`game` the referee's view, every hand face up.
:class:`~skitgubbe.Observation` and :class:`~skitgubbe.Game` show themselves
through these in Jupyter (``_repr_svg_``, as python-chess does for boards), and
the browser table of :mod:`skitgubbe.server` draws its cards with :func:`card`,
so there is one drawing of a card. Each function returns a complete SVG
document as a ``str``; nothing reaches a drawing that its viewer may not see.

>>> import skitgubbe as sg
>>> from skitgubbe.game import svg
>>> picture = svg.card(sg.Card.parse("QH"))
>>> picture.startswith("<svg") and "Q" in picture and "♥" in picture
True
>>> view = sg.Game.new(seed=2).observation(1)
>>> "10♣" in svg.observation(view)  # seat 1's own card, face up
True
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from html import escape
from typing import TYPE_CHECKING, Final

from .cards import Card, Suit

if TYPE_CHECKING:
    from .observation import Observation
    from .state import Game

__all__ = ["CARD_HEIGHT", "CARD_WIDTH", "card", "game", "observation"]

CARD_WIDTH: Final = 60
"""A card's width in SVG user units (its height is :data:`CARD_HEIGHT`)."""
CARD_HEIGHT: Final = 84
"""A card's height in SVG user units."""

_RED: Final = "#c0392b"
_BLACK: Final = "#1d2430"
_FELT: Final = "#2f6f4f"
_FONT: Final = "font-family='DejaVu Sans, Segoe UI Symbol, Arial, sans-serif'"


def _colour(suit: Suit) -> str:
    return _RED if suit in (Suit.HEARTS, Suit.DIAMONDS) else _BLACK


def _card_group(item: Card | None, x: float, y: float, *, highlight: bool = False) -> str:
    """A card (``None``: its back) with its top left corner at (x, y)."""
    w, h = CARD_WIDTH, CARD_HEIGHT
    edge = "#f1c40f" if highlight else "#7f8c8d"
    stroke = 3 if highlight else 1
    outline = (
        f"<rect x='{x:g}' y='{y:g}' width='{w}' height='{h}' rx='6' "
        f"stroke='{edge}' stroke-width='{stroke}' "
    )
    if item is None:
        return (
            "<g class='card back'>"
            f"{outline}fill='#34495e'/>"
            f"<rect x='{x + 5:g}' y='{y + 5:g}' width='{w - 10}' height='{h - 10}' rx='4' "
            "fill='none' stroke='#95a5a6' stroke-dasharray='3 3'/></g>"
        )
    colour = _colour(item.suit)
    label, symbol = escape(item.rank.label), item.suit.symbol
    return (
        f"<g class='card' data-card='{item.rank.label}{item.suit.letter}'>"
        f"<title>{label}{symbol}</title>"
        f"{outline}fill='white'/>"
        f"<text x='{x + 6:g}' y='{y + 18:g}' font-size='16' font-weight='bold' "
        f"fill='{colour}' {_FONT}>{label}</text>"
        f"<text x='{x + 6:g}' y='{y + 34:g}' font-size='15' fill='{colour}' {_FONT}>{symbol}</text>"
        f"<text x='{x + w / 2:g}' y='{y + h / 2 + 16:g}' font-size='34' text-anchor='middle' "
        f"fill='{colour}' {_FONT}>{symbol}</text></g>"
    )


def _document(width: float, height: float, body: str, *, background: str | None = None) -> str:
    fill = f"<rect width='100%' height='100%' fill='{background}'/>" if background else ""
    return (
        f"<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 {width:g} {height:g}' "
        f"width='{width:g}' height='{height:g}'>{fill}{body}</svg>"
    )


def card(item: Card | None) -> str:
    """One card as an SVG document, or the back of a card for ``None``.

    >>> from skitgubbe import Card
    >>> from skitgubbe.game.svg import card
    >>> "data-card='10S'" in card(Card.parse("10S")), "back" in card(None)
    (True, True)
    """
    return _document(CARD_WIDTH, CARD_HEIGHT, _card_group(item, 0, 0))


def _label(x: float, y: float, text: str, *, size: int = 13, anchor: str = "start") -> str:
    return (
        f"<text x='{x:g}' y='{y:g}' font-size='{size}' fill='white' text-anchor='{anchor}' "
        f"{_FONT}>{escape(text)}</text>"
    )


def _row(cards: Iterable[Card | None], x: float, y: float, step: float) -> tuple[str, float]:
    """Cards overlapping left to right; the drawing and the x after the last card."""
    parts = []
    for item in cards:
        parts.append(_card_group(item, x, y))
        x += step
    return "".join(parts), x - step + CARD_WIDTH if parts else x


def _table(
    players: int,
    seats: Sequence[str],
    hands: Sequence[Sequence[Card | None]],
    table: Sequence[tuple[int, Sequence[Card]]],
    trump: Suit | None,
    stock_size: int,
    to_move: int | None,
    caption: str,
) -> str:
    """The common drawing: one row per seat, then the table's plays, the stock and trump."""
    width = 640.0
    parts = [_label(12, 22, caption, size=15)]
    y = 36.0
    for seat in range(players):
        marker = "▶ " if seat == to_move else ""
        parts.append(_label(12, y + 14, f"{marker}{seats[seat]}"))
        row, end = _row(hands[seat], 12, y + 20, 24 if len(hands[seat]) > 12 else 40)
        parts.append(row)
        width = max(width, end + 12)
        y += CARD_HEIGHT + 32
    parts.append(_label(12, y + 14, "table"))
    x = 12.0
    for seat, cards in table[-8:]:
        parts.append(_label(x, y + 30 + CARD_HEIGHT + 14, f"seat {seat}", size=11))
        row, x = _row(cards, x, y + 22, 22)
        parts.append(row)
        x += 16
    if not table:
        parts.append(_label(12, y + 50, "(empty)", size=12))
    info = f"stock {stock_size}" + ("" if trump is None else f" · trump {trump.symbol}")
    parts.append(_label(width - 12, 22, info, size=15, anchor="end"))
    width = max(width, x + 12)
    height = y + 22 + CARD_HEIGHT + 30
    return _document(width, height, "".join(parts), background=_FELT)


def observation(view: Observation) -> str:
    """The table as seat ``view.seat`` sees it: its hand face up, the others' as backs.

    >>> import skitgubbe as sg
    >>> from skitgubbe.game import svg
    >>> game = sg.Game.new(seed=2)
    >>> picture = svg.observation(game.observation(0))
    >>> all(f"data-card='{c.rank.label}{c.suit.letter}'" not in picture
    ...     for c in game.hands[1])  # seat 1's cards are not drawn for seat 0
    True
    """
    players = len(view.hand_sizes)
    hands: list[Sequence[Card | None]] = []
    for seat in range(players):
        if seat == view.seat:
            hands.append(sorted(view.hand))
        else:
            hands.append([None] * view.hand_sizes[seat])
    names = [("you" if seat == view.seat else f"seat {seat}") for seat in range(players)]
    names = [f"{name} · {view.hand_sizes[s]} cards" for s, name in enumerate(names)]
    table = [(play.seat, sorted(play.cards)) for play in view.table]
    caption = f"seat {view.seat}'s view · move {view.moves_played} · {view.phase.name.lower()}"
    return _table(players, names, hands, table, view.trump, view.stock_size, view.to_move, caption)


def game(state: Game) -> str:
    """The referee's view: every hand face up. For a person's screen, draw an
    :func:`observation` instead.

    >>> import skitgubbe as sg
    >>> from skitgubbe.game import svg
    >>> game = sg.Game.new(seed=2)
    >>> picture = svg.game(game)
    >>> all(str(c) in picture for hand in game.hands for c in hand)
    True
    """
    players = state.players
    hands: list[Sequence[Card | None]] = [sorted(hand) for hand in state.hands]
    names = [f"seat {seat} · {len(state.hands[seat])} cards" for seat in range(players)]
    table = [(play.seat, sorted(play.cards)) for play in state.table]
    caption = f"the referee's view · move {state.moves_played} · {state.phase.name.lower()}"
    return _table(
        players, names, hands, table, state.trump, len(state.stock), state.to_move, caption
    )
