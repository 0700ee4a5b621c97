"""Observation tensors for learners: what one seat knows, as a fixed-size float vector.

The C core computes them from the seat's own view (so a tensor changes with
nothing the seat cannot know), its slough being chosen and the last public
moves. The size is the same for 2, 3 and 4 players and every rule variant:
:data:`TENSOR_SIZE` floats, each in ``[0, 1]``. Seats are relative to the
observer: ``r = (seat - observer) % players``, 0 the observer itself; cards are
by :attr:`Card.index <skitgubbe.Card.index>`. :data:`LAYOUT` names every slice:

| slice | what |
|---|---|
| ``hand``, ``collection`` | the observer's cards (52 each) |
| ``known_1`` … ``known_3`` | the cards it can place with seats r = 1, 2, 3 |
| ``unknown`` | the cards it cannot place |
| ``out_of_play``, ``table``, ``top_play`` | public cards |
| ``table_by_0`` … ``table_by_3`` | table cards laid by seat r |
| ``slough_chosen``, ``upcard`` | its slough being chosen; the up-card in the stock |
| ``recent`` | the last 8 moves, newest first, 61 each: cards, mover's r (4), kind (5) |
| ``phase`` … ``choosing_slough`` | scalars; counts divided by 52 |
| ``rules`` | the rule fields: one-hot per enum value, booleans, numbers / their maximum |

The **state tensor** (:meth:`Game.state_tensor <skitgubbe.Game.state_tensor>`)
is for centralised critics only: seat 0's tensor followed by every hidden card
where it lies (:data:`STATE_LAYOUT`). Never give it to a player.

numpy is needed (``pip install "skitgubbe[learn]"``).

>>> import skitgubbe as sg
>>> game = sg.Game.new(seed=2)
>>> tensor = game.observation(0).tensor()
>>> tensor.shape, str(tensor.dtype)
((1359,), 'float32')
>>> hand = tensor[LAYOUT["hand"]]
>>> [str(sg.Card.from_index(i)) for i in hand.nonzero()[0]]
['4♥', '6♥', 'J♥']
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Final

from .. import _core
from ..errors import ArgumentError, ArgumentTypeError, SkitgubbeError
from .events import EventKind

if TYPE_CHECKING:
    from .observation import History, Observation
    from .state import Game

__all__ = [
    "LAYOUT",
    "STATE_LAYOUT",
    "STATE_TENSOR_SIZE",
    "TENSOR_SIZE",
    "observation_tensor",
    "recent_moves",
    "state_tensor",
]

TENSOR_SIZE: Final[int] = _core.TENSOR_SIZE
"""Floats in a seat's tensor."""
STATE_TENSOR_SIZE: Final[int] = _core.STATE_TENSOR_SIZE
"""Floats in the state tensor (centralised critics only)."""

_CARDS: Final = 52
_SCALARS: Final = (
    ("phase", 3),
    ("to_move", 4),
    ("dealer", 4),
    ("trump", 4),
    ("trump_known", 1),
    ("seated", 4),
    ("hand_sizes", 4),
    ("collection_sizes", 4),
    ("unknown_slots", 4),
    ("out", 4),
    ("out_place", 4),
    ("hidden_holder", 4),
    ("slough_winner", 4),
    ("window_open", 1),
    ("stock_size", 1),
    ("stock_slots", 1),
    ("hidden_slots", 1),
    ("moves_played", 1),
    ("players", 1),
    ("top_play_size", 1),
    ("table_plays", 1),
    ("choosing_slough", 1),
    ("reserved", 7),
)
_PLANES: Final = (
    "hand",
    "collection",
    "known_1",
    "known_2",
    "known_3",
    "unknown",
    "out_of_play",
    "table",
    "top_play",
    "table_by_0",
    "table_by_1",
    "table_by_2",
    "table_by_3",
    "slough_chosen",
    "upcard",
)
_STATE_PLANES: Final = (
    "hand_0",
    "hand_1",
    "hand_2",
    "hand_3",
    "collection_0",
    "collection_1",
    "collection_2",
    "collection_3",
    "stock",
    "hidden_card",
)


def _slices(parts: Iterator[tuple[str, int]], start: int = 0) -> dict[str, slice]:
    layout = {}
    for name, size in parts:
        layout[name] = slice(start, start + size)
        start += size
    return layout


def _parts() -> Iterator[tuple[str, int]]:
    for name in _PLANES:
        yield name, _CARDS
    yield "recent", _core.TENSOR_RECENT * _core.TENSOR_RECENT_FLOATS
    yield from _SCALARS
    yield (
        "rules",
        TENSOR_SIZE
        - _core.TENSOR_PLANES * _CARDS
        - (_core.TENSOR_RECENT * _core.TENSOR_RECENT_FLOATS)
        - sum(size for _, size in _SCALARS),
    )


LAYOUT: Final[dict[str, slice]] = _slices(_parts())
"""Every named slice of a seat's tensor, in order (see the module's table)."""
STATE_LAYOUT: Final[dict[str, slice]] = {
    "observation": slice(0, TENSOR_SIZE),
    **_slices(((name, _CARDS) for name in _STATE_PLANES), TENSOR_SIZE),
}
"""The state tensor's slices: seat 0's tensor, then each hidden card where it lies."""

_MOVE_EVENTS: Final = {
    EventKind.PLAY: 0,
    EventKind.FLIP: 1,
    EventKind.PICK_UP: 2,
    EventKind.SLOUGH: 3,
    EventKind.PASS: 4,
}


def recent_moves(history: History) -> tuple[tuple[int, int, int], ...]:
    """The last public moves in ``history`` as (move kind, mover, card mask), most recent first.

    >>> import skitgubbe as sg
    >>> game = sg.Game.new(seed=2)
    >>> _ = game.play("6H")
    >>> recent_moves(game.observation(1).history) == ((0, 0, sg.Card.parse("6H").mask),)
    True
    """
    found: list[tuple[int, int, int]] = []
    # Every move's events hold one move event (its first); deals hold none.
    for event in reversed(history):
        kind = _MOVE_EVENTS.get(event.kind)
        if kind is not None and event.seat is not None:
            found.append((kind, event.seat, event.cards.mask))
            if len(found) == _core.TENSOR_RECENT:
                break
    return tuple(found)


def import_numpy() -> Any:
    """The numpy module, or a :class:`~skitgubbe.SkitgubbeError` saying how to install it.

    >>> import_numpy().__name__
    'numpy'
    """
    try:
        import numpy
    except ImportError:  # pragma: no cover - the learn extra installs it
        raise SkitgubbeError(
            'tensors need numpy: pip install "skitgubbe[learn]" (or numpy)'
        ) from None
    return numpy


def _buffer(out: Any, size: int) -> Any:
    numpy = import_numpy()
    if out is None:
        return numpy.zeros(size, dtype=numpy.float32)
    if not isinstance(out, numpy.ndarray):
        raise ArgumentTypeError(f"out must be a numpy array, not {type(out).__name__}")
    if out.dtype != numpy.float32 or out.shape != (size,) or not out.flags.c_contiguous:
        raise ArgumentError(
            f"out must be a contiguous float32 array of shape ({size},), "
            f"not {out.dtype} {out.shape}"
        )
    return out


def observation_tensor(observation: Observation, out: Any = None) -> Any:
    """The tensor of what ``observation``'s seat knows (:meth:`Observation.tensor`).

    ``out``, a contiguous float32 array of :data:`TENSOR_SIZE`, is filled and
    returned instead of a new array.

    >>> import numpy, skitgubbe as sg
    >>> view = sg.Game.new(seed=2).observation(0)
    >>> buffer = numpy.empty(TENSOR_SIZE, numpy.float32)
    >>> observation_tensor(view, buffer) is buffer, bool((buffer == view.tensor()).all())
    (True, True)
    """
    array = _buffer(out, TENSOR_SIZE)
    pending = observation.slough_chosen.mask if observation.my_turn else 0
    _core.observation_tensor(
        observation.core_view,
        observation.seat,
        pending,
        recent_moves(observation.history),
        array,
    )
    return array


def state_tensor(game: Game, out: Any = None) -> Any:
    """The whole state's tensor (:meth:`Game.state_tensor`): for centralised critics only.

    >>> import skitgubbe as sg
    >>> game = sg.Game.new(seed=2)
    >>> critic = state_tensor(game)
    >>> bool((critic[STATE_LAYOUT["observation"]] == game.observation(0).tensor()).all())
    True
    >>> hand = critic[STATE_LAYOUT["hand_1"]].nonzero()[0]
    >>> {sg.Card.from_index(i) for i in hand} == set(game.hands[1])
    True
    """
    array = _buffer(out, STATE_TENSOR_SIZE)
    game._core.state_tensor(recent_moves(game.observation(0).history), array)
    return array
