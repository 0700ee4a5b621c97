"""The engine protocol's messages: JSON lines, as ``docs/protocol.md`` specifies them.

Both sides use this module: the referee (:class:`skitgubbe.engine.EnginePlayer`)
to write what one seat may know, the Python engine side
(:func:`skitgubbe.engine.run_engine`) to read it back into an :class:`Observation`.
Cards are ASCII text (``"10D"``), card sets ascending lists of cards, moves
their ASCII text (``"6H 6S"``, ``"flip"``, ``"pick"``, ``"pass"``,
``"slough 3S 8S"``).

>>> import skitgubbe as sg
>>> from skitgubbe.engine import protocol
>>> game = sg.Game.new(seed=2)
>>> view = game.observation(0)
>>> message = protocol.go(7, view, protocol.Clock(move_time=1.0))
>>> message["legal_moves"], message["observation"]["hand"]
(['4H', '6H', 'JH', 'flip'], ['4H', '6H', 'JH'])
>>> protocol.decode(protocol.encode(message)) == message
True
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

import attrs

from .. import _core
from ..errors import FieldError
from ..game.cards import ALL_CARDS, Card, CardSet, Suit, unchecked_set
from ..game.events import Event, EventKind
from ..game.moves import Move, MoveKind
from ..game.observation import History, Observation, Phase, TablePlay, history_of
from ..game.rules import Rules
from ..game.state import GameResult
from . import wire
from .wire import card_text, cards_json

__all__ = [
    "MAX_LINE",
    "PROTOCOL_VERSION",
    "Clock",
    "ProtocolError",
    "card_text",
    "cards_json",
    "decode",
    "encode",
    "encode_events",
    "encode_go",
    "event_from_json",
    "event_json",
    "events",
    "game_over",
    "go",
    "hello",
    "move_text",
    "new_game",
    "observation_from_json",
    "observation_json",
    "parse_move",
    "result_from_json",
]

PROTOCOL_VERSION: Final = 1
"""The version of the protocol this module speaks."""

MAX_LINE: Final = 1 << 20
"""The longest line (bytes, newline included) a referee reads from an engine by default."""

_PHASE_OF: Final = {phase.name.lower(): phase for phase in Phase}  # as wire.OBSERVATION writes
_KIND_OF: Final = {kind.name.lower(): kind for kind in EventKind}
_WORDS: Final = {MoveKind.FLIP: "flip", MoveKind.PICK_UP: "pick", MoveKind.PASS: "pass"}
# Every card by its protocol text (wire.card_text writes them): the hot path of reading
# a go message (a few hundred cards a decision) is a lookup per card.
_CARD_OF_TEXT: Final = {card.rank.label + card.suit.letter: card for card in ALL_CARDS}
_SUIT_OF_TEXT: Final = {suit.letter: suit for suit in Suit}
# Moves by the text an engine reads or writes. Bounded in entries (any card list is move
# text) and in the length of a text kept (a hostile engine's padded move must not stay).
_MOVE_OF_TEXT: Final[dict[str, Move]] = {}
_MOVE_CACHE_LIMIT: Final = 1 << 14
_MOVE_TEXT_LIMIT: Final = 256
_MISSING: Final[Any] = object()
# The mask of a list of card texts as this module writes them, in C (the bulk of a go);
# None for anything else.
_card_mask: Final = _core.protocol_card_mask


class ProtocolError(FieldError):
    """A message that breaks the protocol: not one JSON object on a line, or a known
    message with a missing or bad field. ``field`` names the field when one is at fault.

    >>> from skitgubbe.engine import protocol
    >>> protocol.decode(b"[1, 2]\\n")
    Traceback (most recent call last):
        ...
    skitgubbe.engine.protocol.ProtocolError: not a JSON object: b'[1, 2]'
    """


@attrs.frozen
class Clock:
    """A seat's time, as a ``go`` message tells it (seconds; ``None``: no limit).

    ``move_time`` is the most this move may take, ``remaining`` the seat's time
    left for the game and ``increment`` what each move adds to it.

    >>> from skitgubbe.engine.protocol import Clock
    >>> Clock(move_time=0.5).to_json()
    {'move_time': 0.5, 'remaining': None, 'increment': 0.0}
    """

    move_time: float | None = None
    remaining: float | None = None
    increment: float = 0.0

    def to_json(self) -> dict[str, float | None]:
        """The clock as the ``clock`` of a ``go`` message (:data:`skitgubbe.engine.wire.CLOCK`).

        >>> from skitgubbe.engine.protocol import Clock
        >>> Clock(remaining=59.5, increment=0.1).to_json()["remaining"]
        59.5
        """
        return wire.record_json(wire.CLOCK, self)


# -- cards, moves, events ----------------------------------------------------------------


def move_text(move: Move) -> str:
    """A move as the protocol writes it.

    >>> from skitgubbe import Move
    >>> from skitgubbe.engine import protocol
    >>> protocol.move_text(Move.parse("6♥ 6♠")), protocol.move_text(Move.pick_up())
    ('6H 6S', 'pick')
    >>> protocol.move_text(Move.parse("slough 3S 8S"))
    'slough 3S 8S'
    """
    kind = move.kind
    if kind == MoveKind.PLAY:
        return " ".join(cards_json(move.cards))
    if kind == MoveKind.SLOUGH:
        return "slough " + " ".join(cards_json(move.cards))
    return _WORDS[kind]


def event_json(event: Event) -> dict[str, Any]:
    """An event as an ``events`` message lists it.

    >>> from skitgubbe import CardSet, Event, EventKind
    >>> from skitgubbe.engine import protocol
    >>> play = Event(EventKind.PLAY, seat=0, cards=CardSet.parse("9D"), count=1)
    >>> data = protocol.event_json(play)
    >>> data["kind"], data["seat"], data["cards"], data["count"], data["suit"]
    ('play', 0, ['9D'], 1, None)
    """
    return wire.record_json(wire.EVENT, event)


def event_from_json(data: object) -> Event:
    """The event :func:`event_json` wrote; :class:`ProtocolError` names a bad field.

    >>> from skitgubbe.engine import protocol
    >>> event = protocol.event_from_json({"kind": "draw", "seat": 2, "cards": [], "count": 1})
    >>> print(event)
    seat 2 draws 1 card
    """
    if type(data) is dict:  # the common case, checked in one go; any doubt: field by field
        kind = data.get("kind")
        seat = data.get("seat")
        count = data.get("count", 0)
        other = data.get("other")
        seats = data.get("seats", _MISSING)
        seats = () if seats is _MISSING else _int_tuple(seats, None)
        suit = data.get("suit")
        cards = data.get("cards", _MISSING)
        if (
            type(kind) is str
            and kind in _KIND_OF
            and (seat is None or type(seat) is int)
            and type(count) is int
            and (other is None or type(other) is int)
            and seats is not None
            and (suit is None or (type(suit) is str and suit in _SUIT_OF_TEXT))
        ):
            mask = 0 if cards is _MISSING else _card_mask(cards)
            if mask is not None:
                return Event(
                    _KIND_OF[kind],
                    seat,
                    unchecked_set(mask),
                    count,
                    other,
                    seats,
                    None if suit is None else _SUIT_OF_TEXT[suit],
                )
    return _event_checked(data)


def _event_checked(data: object) -> Event:
    data = _object(data, "event")
    kind = _KIND_OF.get(_field(data, "kind", str, "event"))
    if kind is None:
        raise ProtocolError(f"event kind {data['kind']!r} is not one of {sorted(_KIND_OF)}", "kind")
    seats = data.get("seats", [])
    if not isinstance(seats, list):
        raise ProtocolError(f"event seats must be a list, not {seats!r}", "seats")
    return Event(
        kind,
        seat=_seat_or_null(data.get("seat")),
        cards=_cards(data.get("cards", []), "cards"),
        count=_int(data.get("count", 0), "count"),
        other=_seat_or_null(data.get("other"), "other"),
        seats=tuple(_int(seat, "seats") for seat in seats),
        suit=_suit_or_null(data.get("suit"), "suit"),
    )


# -- observations ------------------------------------------------------------------------


def observation_json(view: Observation) -> dict[str, Any]:
    """The ``observation`` of a ``go`` message: everything ``view`` holds but its rules
    (sent with ``new_game``), history (sent as ``events``) and legal moves (sent
    beside it).

    >>> import skitgubbe as sg
    >>> from skitgubbe.engine import protocol
    >>> data = protocol.observation_json(sg.Game.new(seed=2).observation(1))
    >>> data["seat"], data["hand"], data["hand_sizes"], data["phase"]
    (1, ['10C', 'QC', '9S'], [3, 3, 3], 'collecting')
    """
    return wire.record_json(wire.OBSERVATION, view)


def observation_from_json(
    data: object,
    rules: Rules,
    history: Sequence[Event],
    legal_moves: Sequence[object],
) -> Observation:
    """The :class:`Observation` a ``go`` message describes, with the game's ``rules``,
    the ``history`` the ``events`` messages told and the ``go``'s ``legal_moves``.

    Raises :class:`ProtocolError` naming the first bad field.

    >>> import skitgubbe as sg
    >>> from skitgubbe.engine import protocol
    >>> game = sg.Game.new(seed=2)
    >>> view = game.observation(0)
    >>> message = protocol.go(1, view, protocol.Clock())
    >>> again = protocol.observation_from_json(
    ...     message["observation"], game.rules, view.history, message["legal_moves"]
    ... )
    >>> again == view
    True
    """
    if not isinstance(history, History):
        history = history_of(tuple(history))
    fast = _observation_fast(data, rules, history, legal_moves)
    return fast if fast is not None else _observation_checked(data, rules, history, legal_moves)


def _observation_fast(
    o: object, rules: Rules, history: History, legal_moves: Sequence[object]
) -> Observation | None:
    """The observation of a ``go`` as this module writes it, checked in one go; None at
    the first doubt (another spelling, a wrong type), for :func:`_observation_checked`
    to read field by field and name what is wrong."""
    if type(o) is not dict:
        return None
    get = o.get
    players = rules.players
    seat, phase, to_move, dealer = get("seat"), get("phase"), get("to_move"), get("dealer")
    trump, upcard, core = get("trump"), get("upcard"), get("core_view")
    stock_size, stock_slots = get("stock_size"), get("stock_slots")
    hidden_slots, moves_played = get("hidden_slots"), get("moves_played")
    hidden_holder, slough_winner = get("hidden_holder"), get("slough_winner")
    if not (
        type(seat) is int
        and type(dealer) is int
        and type(stock_size) is int
        and type(stock_slots) is int
        and type(hidden_slots) is int
        and type(moves_played) is int
        and (to_move is None or type(to_move) is int)
        and (hidden_holder is None or type(hidden_holder) is int)
        and (slough_winner is None or type(slough_winner) is int)
        and type(phase) is str
        and phase in _PHASE_OF
        and (trump is None or (type(trump) is str and trump in _SUIT_OF_TEXT))
        and (upcard is None or (type(upcard) is str and upcard in _CARD_OF_TEXT))
        and type(core) is str
    ):
        return None
    hand, collection = _card_mask(get("hand")), _card_mask(get("collection"))
    out_of_play, unknown = _card_mask(get("out_of_play")), _card_mask(get("unknown"))
    chosen = get("slough_chosen", _MISSING)
    chosen = 0 if chosen is _MISSING else _card_mask(chosen)
    hand_sizes = _int_tuple(get("hand_sizes"), players)
    collection_sizes = _int_tuple(get("collection_sizes"), players)
    unknown_slots = _int_tuple(get("unknown_slots"), players)
    finished = _int_tuple(get("finished"), None)
    known_texts, table_data = get("known"), get("table")
    if (
        hand is None
        or collection is None
        or out_of_play is None
        or unknown is None
        or chosen is None
        or hand_sizes is None
        or collection_sizes is None
        or unknown_slots is None
        or finished is None
        or type(known_texts) is not list
        or len(known_texts) != players
        or type(table_data) is not list
    ):
        return None
    known = []
    for texts in known_texts:
        mask = _card_mask(texts)
        if mask is None:
            return None
        known.append(unchecked_set(mask))
    table = []
    for play in table_data:
        if type(play) is not dict:
            return None
        by, mask = play.get("seat"), _card_mask(play.get("cards"))
        if type(by) is not int or mask is None:
            return None
        table.append(TablePlay(by, unchecked_set(mask)))
    try:
        view = base64.b64decode(core, validate=True)
    except (binascii.Error, ValueError):
        return None
    moves = tuple(map(_move, legal_moves))  # its errors are the checked path's own
    try:
        return Observation(
            seat=seat,
            rules=rules,
            phase=_PHASE_OF[phase],
            to_move=to_move,
            dealer=dealer,
            trump=None if trump is None else _SUIT_OF_TEXT[trump],
            hand=unchecked_set(hand),
            collection=unchecked_set(collection),
            table=tuple(table),
            hand_sizes=hand_sizes,
            collection_sizes=collection_sizes,
            stock_size=stock_size,
            out_of_play=unchecked_set(out_of_play),
            hidden_holder=hidden_holder,
            known=tuple(known),
            unknown=unchecked_set(unknown),
            unknown_slots=unknown_slots,
            stock_slots=stock_slots,
            hidden_slots=hidden_slots,
            finished=finished,
            moves_played=moves_played,
            legal_moves=moves,
            upcard=None if upcard is None else _CARD_OF_TEXT[upcard],
            slough_winner=slough_winner,
            history=history,
            core_view=view,
            slough_chosen=unchecked_set(chosen),
        )
    except (ValueError, TypeError) as error:  # the attrs validators: core_view
        raise ProtocolError(f"bad observation: {error}", "observation") from None


def _observation_checked(
    data: object, rules: Rules, history: History, legal_moves: Sequence[object]
) -> Observation:
    o = _object(data, "observation")
    players = rules.players
    try:
        view = base64.b64decode(_field(o, "core_view", str, "observation"), validate=True)
    except (binascii.Error, ValueError) as error:
        raise ProtocolError(f"core_view is not base64: {error}", "core_view") from None
    try:
        return Observation(
            seat=_int(o.get("seat"), "seat"),
            rules=rules,
            phase=_choice(_PHASE_OF, o.get("phase"), "phase"),
            to_move=_seat_or_null(o.get("to_move"), "to_move"),
            dealer=_int(o.get("dealer"), "dealer"),
            trump=_suit_or_null(o.get("trump"), "trump"),
            hand=_cards(o.get("hand"), "hand"),
            collection=_cards(o.get("collection"), "collection"),
            table=tuple(_table_play(play) for play in _list(o.get("table"), "table")),
            hand_sizes=_ints(o.get("hand_sizes"), "hand_sizes", players),
            collection_sizes=_ints(o.get("collection_sizes"), "collection_sizes", players),
            stock_size=_int(o.get("stock_size"), "stock_size"),
            out_of_play=_cards(o.get("out_of_play"), "out_of_play"),
            hidden_holder=_seat_or_null(o.get("hidden_holder"), "hidden_holder"),
            known=tuple(_cards(c, "known") for c in _list(o.get("known"), "known", players)),
            unknown=_cards(o.get("unknown"), "unknown"),
            unknown_slots=_ints(o.get("unknown_slots"), "unknown_slots", players),
            stock_slots=_int(o.get("stock_slots"), "stock_slots"),
            hidden_slots=_int(o.get("hidden_slots"), "hidden_slots"),
            finished=_ints(o.get("finished"), "finished"),
            moves_played=_int(o.get("moves_played"), "moves_played"),
            legal_moves=tuple(_move(move) for move in legal_moves),
            upcard=None if o.get("upcard") is None else _card(o["upcard"], "upcard"),
            slough_winner=_seat_or_null(o.get("slough_winner"), "slough_winner"),
            history=history,
            core_view=view,
            slough_chosen=_cards(o.get("slough_chosen", []), "slough_chosen"),
        )
    except ProtocolError:  # a field's own error, naming it
        raise
    except (ValueError, TypeError) as error:  # the attrs validators: core_view
        raise ProtocolError(f"bad observation: {error}", "observation") from None


# -- messages ----------------------------------------------------------------------------


def hello(referee: str) -> dict[str, Any]:
    """The referee's first message.

    >>> from skitgubbe.engine import protocol
    >>> protocol.hello("skitgubbe 0.1.0")
    {'type': 'hello', 'protocol': 1, 'referee': 'skitgubbe 0.1.0'}
    """
    return {"type": "hello", "protocol": PROTOCOL_VERSION, "referee": referee}


def new_game(
    game_id: str,
    seat: int,
    rules: Rules,
    *,
    move_time: float | None = None,
    game_time: float | None = None,
    increment: float = 0.0,
) -> dict[str, Any]:
    """A ``new_game`` message: seat ``seat`` of a game with ``rules`` and the clock.

    >>> import skitgubbe as sg
    >>> from skitgubbe.engine import protocol
    >>> message = protocol.new_game("g1", 2, sg.Rules.classic(3), move_time=1.0)
    >>> message["seat"], message["players"], message["clock"]
    (2, 3, {'move_time': 1.0, 'game_time': None, 'increment': 0.0})
    """
    return {
        "type": "new_game",
        "game": game_id,
        "seat": seat,
        "players": rules.players,
        "rules": rules.to_dict(),
        "clock": {"move_time": move_time, "game_time": game_time, "increment": increment},
    }


def events(seen: Iterable[Event]) -> dict[str, Any]:
    """An ``events`` message: ``seen``, events as the receiving seat saw them.

    >>> import skitgubbe as sg
    >>> from skitgubbe.engine import protocol
    >>> message = protocol.events(sg.Game.new(seed=2).observation(1).history)
    >>> [event["kind"] for event in message["events"]]
    ['deal', 'deal', 'deal']
    """
    return wire.message_json(_EVENTS, (seen,))


def go(seq: int, view: Observation, clock: Clock) -> dict[str, Any]:
    """A ``go`` message: seat ``view.seat`` to move, request number ``seq``.

    >>> import skitgubbe as sg
    >>> from skitgubbe.engine import protocol
    >>> message = protocol.go(3, sg.Game.new(seed=2).observation(0), protocol.Clock())
    >>> message["seq"], message["legal_moves"][-1], message["clock"]["move_time"]
    (3, 'flip', None)
    """
    return wire.message_json(_GO, (seq, view, [move_text(m) for m in view.legal_moves], clock))


def game_over(
    result: GameResult | None, reason: str | None = None, view: Observation | None = None
) -> dict[str, Any]:
    """A ``game_over`` message: the ``result``, or ``None`` and the ``reason`` the
    referee stopped the game; with ``view``, the seat's last observation (so that an
    engine's player can be told the end as ``game_ended(observation, result)``).

    >>> from skitgubbe import GameResult
    >>> from skitgubbe.engine import protocol
    >>> protocol.game_over(GameResult(1, (0, 2, 1), False, 9))["result"]
    {'loser': 1, 'finish_order': [0, 2, 1], 'truncated': False, 'moves': 9}
    """
    message: dict[str, Any] = {
        "type": "game_over",
        "result": None if result is None else result.to_dict(),
    }
    if reason is not None:
        message["reason"] = reason
    if view is not None:
        message["observation"] = observation_json(view)
    return message


def result_from_json(data: object) -> GameResult:
    """The :class:`GameResult` of a ``game_over`` message; :class:`ProtocolError` names
    a bad field.

    >>> from skitgubbe import GameResult
    >>> from skitgubbe.engine import protocol
    >>> result = GameResult(1, (0, 2, 1), False, 9)
    >>> protocol.result_from_json(protocol.game_over(result)["result"]) == result
    True
    """
    o = _object(data, "result")
    truncated = o.get("truncated")
    if not isinstance(truncated, bool):
        raise ProtocolError(f"truncated must be true or false, not {_clip(truncated)}", "truncated")
    return GameResult(
        loser=_seat_or_null(o.get("loser"), "loser"),
        finish_order=_ints(o.get("finish_order"), "finish_order"),
        truncated=truncated,
        moves_played=_int(o.get("moves"), "moves"),
    )


def encode(message: Mapping[str, Any]) -> bytes:
    """One message as one line of the protocol: compact JSON, UTF-8, a newline.

    >>> from skitgubbe.engine import protocol
    >>> protocol.encode({"type": "isready", "seq": 1})
    b'{"type":"isready","seq":1}\\n'
    """
    return _ENCODER.encode(message).encode() + b"\n"


# -- lines straight from the objects (the referee's share of every decision) -------------


def encode_go(seq: int, view: Observation, clock: Clock) -> bytes:
    """The line ``encode(go(seq, view, clock))``, byte for byte, written straight from
    ``view`` by the C binding rather than through a dict and :mod:`json`: what
    :class:`~skitgubbe.engine.EnginePlayer` sends at every decision.

    >>> import skitgubbe as sg
    >>> from skitgubbe.engine import protocol
    >>> view = sg.Game.new(seed=2).observation(0)
    >>> line = protocol.encode_go(7, view, protocol.Clock(move_time=1.0))
    >>> line == protocol.encode(protocol.go(7, view, protocol.Clock(move_time=1.0)))
    True
    >>> line[line.index(b'"legal_moves"') :].split(b',"clock"')[0]
    b'"legal_moves":["4H","6H","JH","flip"]'
    """
    return _core.protocol_line(_GO_LINE, (seq, view, _moves_text(view.legal_moves), clock))


def encode_events(seen: Iterable[Event]) -> bytes:
    """The line ``encode(events(seen))``, byte for byte, written straight from the
    events (see :func:`encode_go`).

    >>> import skitgubbe as sg
    >>> from skitgubbe.engine import protocol
    >>> history = sg.Game.new(seed=2).observation(1).history
    >>> protocol.encode_events(history) == protocol.encode(protocol.events(history))
    True
    """
    return _core.protocol_line(_EVENTS_LINE, (seen,))


# The go and events messages of the table, and the C writer's plans of their lines.
_GO: Final = next(message for message in wire.MESSAGES if message.type == "go")
_EVENTS: Final = next(message for message in wire.MESSAGES if message.type == "events")
_GO_LINE: Final = wire.line_plan(_GO)
_EVENTS_LINE: Final = wire.line_plan(_EVENTS)
_ENCODER: Final = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))
_DECODER: Final = json.JSONDecoder()


# The moves' texts as JSON strings by move code, as they come (bounded like the moves).
_MOVE_TEXT: Final[dict[int, str]] = {}


def _moves_text(moves: Iterable[Move]) -> str:
    texts = []
    for move in moves:
        text = _MOVE_TEXT.get(move.code)
        if text is None:
            text = f'"{move_text(move)}"'
            if len(_MOVE_TEXT) < _MOVE_CACHE_LIMIT:
                _MOVE_TEXT[move.code] = text
        texts.append(text)
    return ",".join(texts)


def decode(line: bytes | str) -> dict[str, Any]:
    """The message on one line: a JSON object with a string ``type``, else
    :class:`ProtocolError`.

    >>> from skitgubbe.engine import protocol
    >>> protocol.decode(b'{"type": "move", "seq": 4, "move": "6H"}\\n')
    {'type': 'move', 'seq': 4, 'move': '6H'}
    >>> protocol.decode(b"bestmove e2e4")
    Traceback (most recent call last):
        ...
    skitgubbe.engine.protocol.ProtocolError: not JSON: b'bestmove e2e4'
    """
    try:
        if type(line) is bytes and line[:2] == b'{"':  # UTF-8, as json.loads would see it
            message = _DECODER.decode(line.decode("utf-8", "surrogatepass"))
        else:
            message = json.loads(line)
    except (ValueError, RecursionError):  # UnicodeDecodeError is a ValueError
        raise ProtocolError(f"not JSON: {_clip(line)}") from None
    if not isinstance(message, dict):
        raise ProtocolError(f"not a JSON object: {_clip(line)}")
    if not isinstance(message.get("type"), str):
        raise ProtocolError(f"a message without a string type: {_clip(line)}", "type")
    return message


# -- reading fields ----------------------------------------------------------------------


def _clip(value: object, limit: int = 80) -> str:
    text = repr(value.strip() if isinstance(value, bytes | str) else value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _object(data: object, what: str) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise ProtocolError(f"{what} must be a JSON object, not {_clip(data)}", what)
    return data


def _field(data: Mapping[str, Any], key: str, kind: type, what: str) -> Any:
    value = data.get(key)
    if not isinstance(value, kind):
        raise ProtocolError(f"{what} needs {key!r} as a {kind.__name__}, not {_clip(value)}", key)
    return value


def _int(value: object, field: str) -> int:
    if type(value) is not int:
        raise ProtocolError(f"{field} must be an int, not {_clip(value)}", field)
    return value


def _ints(value: object, field: str, length: int | None = None) -> tuple[int, ...]:
    items = _list(value, field, length)
    return tuple(_int(item, field) for item in items)


def _list(value: object, field: str, length: int | None = None) -> list[Any]:
    if not isinstance(value, list) or (length is not None and len(value) != length):
        size = "" if length is None else f" of {length}"
        raise ProtocolError(f"{field} must be a list{size}, not {_clip(value)}", field)
    return value


def _seat_or_null(value: object, field: str = "seat") -> int | None:
    return None if value is None else _int(value, field)


def _suit_or_null(value: object, field: str) -> Suit | None:
    if value is None:
        return None
    if not isinstance(value, str) or value not in ("C", "D", "H", "S"):
        raise ProtocolError(
            f"{field} must be a suit letter C, D, H or S, not {_clip(value)}", field
        )
    return Suit("CDHS".index(value))


def _card(value: object, field: str) -> Card:
    card = _CARD_OF_TEXT.get(value) if isinstance(value, str) else None
    if card is not None:
        return card
    if not isinstance(value, str):
        raise ProtocolError(f"{field} holds {_clip(value)}, not card text", field)
    try:
        return Card.parse(value)
    except ValueError as error:
        raise ProtocolError(f"{field}: {error}", field) from None


def _int_tuple(value: object, length: int | None) -> tuple[int, ...] | None:
    """A list of ints (of ``length`` items) as a tuple, else None."""
    if type(value) is not list or (length is not None and len(value) != length):
        return None
    for item in value:
        if type(item) is not int:
            return None
    return tuple(value)


def _cards(value: object, field: str) -> CardSet:
    mask = _card_mask(value)
    if mask is not None:
        return unchecked_set(mask)
    mask = 0
    for text in _list(value, field):
        mask |= _card(text, field).mask
    return CardSet(mask)


def _choice(choices: Mapping[str, Any], value: object, field: str) -> Any:
    if not isinstance(value, str) or value not in choices:
        raise ProtocolError(f"{field} must be one of {sorted(choices)}, not {_clip(value)}", field)
    return choices[value]


def _table_play(value: object) -> TablePlay:
    play = _object(value, "table")
    return TablePlay(_int(play.get("seat"), "table"), _cards(play.get("cards"), "table"))


def _move(value: object) -> Move:
    move = _MOVE_OF_TEXT.get(value) if type(value) is str else None
    if move is not None:
        return move
    if not isinstance(value, str):
        raise ProtocolError(f"legal_moves holds {_clip(value)}, not move text", "legal_moves")
    try:
        return parse_move(value)
    except ValueError as error:
        raise ProtocolError(f"legal_moves: {error}", "legal_moves") from None


def parse_move(text: str) -> Move:
    """``Move.parse(text)``, by way of a bounded cache of the texts read so far: the
    move an engine answered (``"6H 6S"``, ``"flip"``), one shared object per text.
    Text that is not a move is a :class:`ValueError`.

    >>> from skitgubbe.engine.protocol import parse_move
    >>> parse_move("6H 6S"), parse_move("6H 6S") is parse_move("6H 6S")
    (Move.parse('6♥ 6♠'), True)
    """
    move = _MOVE_OF_TEXT.get(text) if type(text) is str else None
    if move is None:
        move = Move.parse(text)
        if (
            type(text) is str
            and len(text) <= _MOVE_TEXT_LIMIT
            and len(_MOVE_OF_TEXT) < _MOVE_CACHE_LIMIT
        ):
            _MOVE_OF_TEXT[text] = move
    return move
