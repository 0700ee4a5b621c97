"""Integer actions: one fixed numbering of every move, for learners.

Every move of every rule variant, for 2, 3 and 4 players, has a number in
``range(NUM_ACTIONS)``; the C core computes them. A card's index is
``suit * 13 + rank`` (``Card.index``: clubs two is 0, spades ace 51).

| ids | the action |
|---|---|
| 0 … 51 | play one card, by card index |
| 52 … 194 | play two or more equal cards: ``52 + rank * 11 + i`` (below) |
| 195 … 506 | play a run: ``195 + suit * 78 + j`` (below) |
| 507 | flip (try your luck) |
| 508 | pick up |
| 509 | pass (in the slough window) |
| 510 … 561 | add one card, by card index, to the slough being chosen |
| 562 | throw the slough chosen |

For equal cards, ``rank`` is 0 for a two, and ``i`` numbers the sets of suits
{♣♦}, {♣♥}, {♦♥}, {♣♦♥}, {♣♠}, {♦♠}, {♣♦♠}, {♥♠}, {♣♥♠}, {♦♥♠}, {♣♦♥♠}. For runs,
``j`` numbers the runs of that suit by lowest rank, then length: a run from
rank ``r`` (0 for a two) has lengths 2 … 13 - ``r``.

A slough (one or more cards, of any ranks lying in the trick) takes several
actions: its cards are added one at a time in ascending card index, then
:data:`SLOUGH_DONE` throws them. So every move has exactly one path of
actions (:attr:`Move.actions <skitgubbe.Move.actions>`), and the number of
complete paths from a position is the number of its legal moves. While a
slough is being chosen (:attr:`Game.slough_chosen
<skitgubbe.Game.slough_chosen>`) only its steps are legal.

>>> import skitgubbe as sg
>>> game = sg.Game.new(seed=2)
>>> game.legal_actions
(28, 30, 35, 507)
>>> [str(sg.Move.from_action(a)) for a in game.legal_actions]
['4♥', '6♥', 'J♥', 'flip']
>>> describe(562)
'throw the slough chosen'
"""

from __future__ import annotations

from typing import Final

from .. import _core
from .cards import Card
from .moves import Move, check_action

__all__ = [
    "FLIP",
    "NUM_ACTIONS",
    "PASS",
    "PICK_UP",
    "SLOUGH_CARD",
    "SLOUGH_DONE",
    "describe",
]

NUM_ACTIONS: Final[int] = _core.NUM_ACTIONS
"""How many action ids there are (563): ``range(NUM_ACTIONS)``."""
FLIP: Final = 507
"""The action that tries your luck (turns the top stock card and plays it)."""
PICK_UP: Final = 508
"""The action that picks up (phase 2)."""
PASS: Final = 509
"""The action that passes in the slough window."""
SLOUGH_CARD: Final[int] = _core.SLOUGH_CARD_ACTION
"""``SLOUGH_CARD + card.index`` adds that card to the slough being chosen."""
SLOUGH_DONE: Final[int] = _core.SLOUGH_DONE_ACTION
"""The action that throws the slough chosen."""


def check(action: object) -> int:
    """``action`` if it is an action id, else an error naming it.

    The same check as :func:`skitgubbe.game.moves.check_action`.

    >>> check(507)
    507
    >>> check(600)
    Traceback (most recent call last):
        ...
    skitgubbe.errors.ArgumentError: an action id is 0 <= action < 563, not 600
    """
    return check_action(action)


def describe(action: int) -> str:
    """What action ``action`` does, in words.

    >>> [describe(a) for a in (0, 52, 195, 508, 510)]
    ['play 2♣', 'play 2♣ 2♦', 'play 2♣ 3♣', 'pick up', 'add 2♣ to the slough']
    """
    check(action)
    if action == SLOUGH_DONE:
        return "throw the slough chosen"
    if action >= SLOUGH_CARD:
        return f"add {Card.from_index(action - SLOUGH_CARD)} to the slough"
    words = {FLIP: "flip", PICK_UP: "pick up", PASS: "pass"}
    return words.get(action) or f"play {Move.from_action(action)}"
