"""The rule variants of a game: :class:`Rules` and its enums (RULES.md §9).

Every enum's values are the C core's numbers. :class:`Rules` is frozen and
validated: every bad value raises :class:`~skitgubbe.errors.RulesError` naming
the field, the value and what is allowed.

>>> rules = Rules.modern(players=4, hand_size=5)
>>> rules.trick_mode, rules.hand_size
(<TrickMode.ALL: 1>, 5)
>>> str(rules)
'modern, 4 players, hand_size=5'
>>> Rules.from_dict(rules.to_dict()) == rules
True
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import IntEnum
from typing import Any, Final, TypeVar

import attrs

from .errors import RulesError

__all__ = [
    "AllTie",
    "Draw",
    "DuelTie",
    "LastCard",
    "Pickup",
    "Rules",
    "TrickEnd",
    "TrickMode",
    "TrumpRule",
]


class TrickMode(IntEnum):
    """Who plays to a phase-1 trick (RULES.md §3, §4).

    >>> TrickMode.DUEL, TrickMode["ALL"]
    (<TrickMode.DUEL: 0>, <TrickMode.ALL: 1>)
    """

    DUEL = 0
    ALL = 1


class DuelTie(IntEnum):
    """What a tie does under ``trick_mode=DUEL`` (RULES.md §3.6).

    >>> int(DuelTie.BOUNCE)
    1
    """

    REPLAY = 0
    BOUNCE = 1


class AllTie(IntEnum):
    """Where the non-tied cards go under ``trick_mode=ALL`` (RULES.md §4.3).

    >>> int(AllTie.LOWER_OUT)
    1
    """

    POT = 0
    LOWER_OUT = 1


class Draw(IntEnum):
    """When players refill their hands in phase 1 (RULES.md §3.4, §3.9).

    >>> int(Draw.AFTER_TRICK)
    1
    """

    AFTER_PLAY = 0
    AFTER_TRICK = 1


class LastCard(IntEnum):
    """What happens to the last stock card (RULES.md §3.7, §3.8).

    >>> int(LastCard.REVEAL)
    1
    """

    HIDDEN = 0
    REVEAL = 1


class TrumpRule(IntEnum):
    """How the trump suit is chosen (RULES.md §5.1).

    >>> int(TrumpRule.UPCARD)
    2
    """

    LAST_CARD = 0
    NONE = 1
    UPCARD = 2


class Pickup(IntEnum):
    """What a phase-2 pick-up takes from the table (RULES.md §6.3).

    >>> int(Pickup.PILE)
    2
    """

    TOP = 0
    TOP_RUN = 1
    PILE = 2


class TrickEnd(IntEnum):
    """When a phase-2 trick is complete (RULES.md §6.5).

    >>> int(TrickEnd.ROTATION)
    1
    """

    COUNT = 0
    ROTATION = 1


_E = TypeVar("_E", bound=IntEnum)

#: The C core keeps max_moves in a uint32_t.
_MAX_MOVES_LIMIT: Final = 2**32 - 1


def _enum_names(enum: type[IntEnum]) -> str:
    return ", ".join(repr(member.name.lower()) for member in enum)


def _to_enum(enum: type[_E], value: object, field: str) -> _E:
    if isinstance(value, enum):
        return value
    if isinstance(value, str):
        key = value.strip().upper().replace("-", "_").replace(" ", "_")
        member = enum.__members__.get(key)
        if member is not None:
            return member
    raise RulesError(
        f"invalid Rules.{field}: {value!r}; allowed: {_enum_names(enum)} "
        f"(or a {enum.__name__} member)",
        field,
    )


def _trick_mode(value: TrickMode | str) -> TrickMode:
    return _to_enum(TrickMode, value, "trick_mode")


def _duel_tie(value: DuelTie | str) -> DuelTie:
    return _to_enum(DuelTie, value, "duel_tie")


def _all_tie(value: AllTie | str) -> AllTie:
    return _to_enum(AllTie, value, "all_tie")


def _draw(value: Draw | str) -> Draw:
    return _to_enum(Draw, value, "draw")


def _last_card(value: LastCard | str) -> LastCard:
    return _to_enum(LastCard, value, "last_card")


def _trump(value: TrumpRule | str) -> TrumpRule:
    return _to_enum(TrumpRule, value, "trump")


def _pickup(value: Pickup | str) -> Pickup:
    return _to_enum(Pickup, value, "pickup")


def _trick_end(value: TrickEnd | str) -> TrickEnd:
    return _to_enum(TrickEnd, value, "trick_end")


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_players(_: object, attribute: attrs.Attribute[int], value: int) -> None:
    if not (_is_int(value) and value in (2, 3, 4)):
        raise RulesError(f"invalid Rules.players: {value!r}; allowed: 2, 3, 4", attribute.name)


def _check_hand_size(_: object, attribute: attrs.Attribute[int], value: int) -> None:
    if not (_is_int(value) and value in (3, 5)):
        raise RulesError(f"invalid Rules.hand_size: {value!r}; allowed: 3, 5", attribute.name)


def _check_bool(_: object, attribute: attrs.Attribute[bool], value: bool) -> None:
    if type(value) is not bool:
        raise RulesError(
            f"invalid Rules.{attribute.name}: {value!r}; allowed: True, False",
            attribute.name,
        )


def _check_threshold(_: object, attribute: attrs.Attribute[int | None], value: int | None) -> None:
    if value is not None and not (_is_int(value) and 1 <= value <= 13):
        raise RulesError(
            f"invalid Rules.low_card_threshold: {value!r}; allowed: None or an int 1..13",
            attribute.name,
        )


def _check_max_moves(_: object, attribute: attrs.Attribute[int], value: int) -> None:
    if not (_is_int(value) and 1 <= value <= _MAX_MOVES_LIMIT):
        raise RulesError(
            f"invalid Rules.max_moves: {value!r}; allowed: an int 1..{_MAX_MOVES_LIMIT}",
            attribute.name,
        )


@attrs.frozen(kw_only=True, repr=False)
class Rules:
    """The rule variants of one game; every field of RULES.md §9.

    Keyword-only and validated. Enum fields take the member or its name as a
    string, case-insensitive (``trick_mode="all"``); booleans must be real
    ``bool`` and integers real ``int``. Anything else raises
    :class:`~skitgubbe.errors.RulesError` with ``.field`` set. The defaults are
    the classic (German) rules. Fields without effect in a configuration (such
    as ``duel_tie`` under ``trick_mode=ALL``) are allowed and ignored.

    >>> Rules()
    Rules.classic(players=3)
    >>> Rules(trick_mode="all", players=4).trick_mode
    <TrickMode.ALL: 1>
    >>> Rules(players=5)
    Traceback (most recent call last):
        ...
    skitgubbe.errors.RulesError: invalid Rules.players: 5; allowed: 2, 3, 4
    >>> Rules(slough=1)
    Traceback (most recent call last):
        ...
    skitgubbe.errors.RulesError: invalid Rules.slough: 1; allowed: True, False
    >>> Rules(colour="red")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    skitgubbe.errors.RulesError: unknown Rules field 'colour'; fields: players, ...
    """

    players: int = attrs.field(default=3, validator=_check_players)
    """Number of players: 2, 3 or 4."""
    hand_size: int = attrs.field(default=3, validator=_check_hand_size)
    """Cards in a phase-1 hand: 3 or 5."""
    trick_mode: TrickMode = attrs.field(default=TrickMode.DUEL, converter=_trick_mode)
    """Phase-1 tricks between two players (``DUEL``) or everyone (``ALL``)."""
    duel_tie: DuelTie = attrs.field(default=DuelTie.REPLAY, converter=_duel_tie)
    """Ties under ``DUEL``: replay (``REPLAY``) or out of play (``BOUNCE``)."""
    all_tie: AllTie = attrs.field(default=AllTie.POT, converter=_all_tie)
    """Ties under ``ALL``: all cards stay (``POT``) or the others' go out."""
    multi_card_plays: bool = attrs.field(default=False, validator=_check_bool)
    """Under ``ALL``, several hand cards of one rank may be played as one."""
    slough: bool = attrs.field(default=True, validator=_check_bool)
    """Under ``ALL``, cards of ranks in the trick may be thrown after it."""
    try_your_luck: bool = attrs.field(default=True, validator=_check_bool)
    """A player may turn and play the top stock card instead of a hand card."""
    draw: Draw = attrs.field(default=Draw.AFTER_PLAY, converter=_draw)
    """Refill after each play (``AFTER_PLAY``) or after each trick."""
    last_card: LastCard = attrs.field(default=LastCard.HIDDEN, converter=_last_card)
    """The last stock card lies hidden (``HIDDEN``) or is shown (``REVEAL``)."""
    trump: TrumpRule = attrs.field(default=TrumpRule.LAST_CARD, converter=_trump)
    """How trump is chosen: last stock card, none, or an up-card at the deal."""
    low_card_threshold: int | None = attrs.field(default=None, validator=_check_threshold)
    """``None`` (off), or k: a player with fewer than k cards in phase 2 gets low cards."""
    runs: bool = attrs.field(default=False, validator=_check_bool)
    """Phase 2: a run of consecutive cards of one suit may be played as one."""
    pickup: Pickup = attrs.field(default=Pickup.TOP, converter=_pickup)
    """Phase 2: what a pick-up takes from the table."""
    trick_end: TrickEnd = attrs.field(default=TrickEnd.COUNT, converter=_trick_end)
    """Phase 2: when a trick is complete."""
    max_moves: int = attrs.field(default=10_000, validator=_check_max_moves)
    """Move cap after which a game ends truncated, with no loser."""

    def __new__(cls, *args: object, **kwargs: object) -> Rules:
        # Catches what Python would report as a TypeError before attrs' __init__
        # runs, so that every bad construction is a RulesError.
        if args:
            raise RulesError(f"Rules takes keyword arguments only; got positional {args!r}", None)
        for name in kwargs:
            if name not in _FIELD_NAMES:
                raise RulesError(
                    f"unknown Rules field {name!r}; fields: {', '.join(_FIELD_NAMES)}",
                    name,
                )
        return super().__new__(cls)

    def __attrs_post_init__(self) -> None:
        if self.trump == TrumpRule.UPCARD and self.multi_card_plays:
            raise RulesError(
                "invalid Rules: trump='upcard' cannot be combined with "
                "multi_card_plays=True (the up-card variant knows single cards only)",
                "trump",
            )

    @classmethod
    def classic(cls, players: int = 3, **overrides: Any) -> Rules:
        """The classic (German) rules: every default, then ``overrides``.

        >>> Rules.classic() == Rules()
        True
        >>> Rules.classic(2, hand_size=5)
        Rules.classic(players=2, hand_size=5)
        """
        return cls(players=players, **overrides)

    @classmethod
    def modern(cls, players: int = 3, **overrides: Any) -> Rules:
        """The French/Dutch rules (RULES.md §9), then ``overrides``.

        With 3 or 4 players everyone plays to each phase-1 trick; with 2 the
        trick is a duel whose ties bounce.

        >>> rules = Rules.modern()
        >>> rules.trick_mode, rules.draw, rules.pickup
        (<TrickMode.ALL: 1>, <Draw.AFTER_TRICK: 1>, <Pickup.TOP_RUN: 1>)
        >>> rules = Rules.modern(2)
        >>> rules.trick_mode, rules.duel_tie
        (<TrickMode.DUEL: 0>, <DuelTie.BOUNCE: 1>)
        >>> Rules.modern(pickup="pile").pickup
        <Pickup.PILE: 2>
        """
        fields: dict[str, Any] = {**_modern_preset(players), **overrides}
        return cls(players=players, **fields)

    @classmethod
    def from_dict(cls, data: Mapping[str, object]) -> Rules:
        """Rules from a mapping such as :meth:`to_dict` makes; validated.

        Missing keys take their defaults; unknown keys and bad values raise
        :class:`~skitgubbe.errors.RulesError` naming the key.

        >>> Rules.from_dict({"players": 4, "trick_mode": "all"})
        Rules.classic(players=4, trick_mode='all')
        >>> Rules.from_dict({"players": "4"})
        Traceback (most recent call last):
            ...
        skitgubbe.errors.RulesError: invalid Rules.players: '4'; allowed: 2, 3, 4
        """
        if not isinstance(data, Mapping):
            raise RulesError(f"Rules.from_dict needs a mapping of field names; got {data!r}", None)
        for key in data:
            if key not in _FIELD_NAMES:
                raise RulesError(
                    f"unknown Rules field {key!r}; fields: {', '.join(_FIELD_NAMES)}",
                    key if isinstance(key, str) else repr(key),
                )
        fields: dict[str, Any] = dict(data)
        return cls(**fields)

    def to_dict(self) -> dict[str, str | int | bool | None]:
        """Every field, JSON-ready: enums as lower-case names.

        >>> Rules().to_dict()["trick_mode"], Rules().to_dict()["low_card_threshold"]
        ('duel', None)
        >>> list(Rules().to_dict())[:3]
        ['players', 'hand_size', 'trick_mode']
        """
        return {name: _plain(getattr(self, name)) for name in _FIELD_NAMES}

    def replace(self, **changes: Any) -> Rules:
        """A copy with some fields changed; validated like the constructor.

        >>> Rules().replace(players=2, runs=True)
        Rules.classic(players=2, runs=True)
        """
        return attrs.evolve(self, **changes)

    def core_tuple(self) -> tuple[int, ...]:
        """The 16 numbers of the C core's ``sg_rules`` struct, in its order.

        ``low_card_threshold=None`` is 0; booleans are 0 or 1.

        >>> Rules().core_tuple()
        (3, 3, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 10000)
        """
        return (
            self.players,
            self.hand_size,
            int(self.trick_mode),
            int(self.duel_tie),
            int(self.all_tie),
            int(self.multi_card_plays),
            int(self.slough),
            int(self.try_your_luck),
            int(self.draw),
            int(self.last_card),
            int(self.trump),
            self.low_card_threshold or 0,
            int(self.runs),
            int(self.pickup),
            int(self.trick_end),
            self.max_moves,
        )

    def describe(self) -> str:
        """A short description: the nearer preset, the players, other changes.

        >>> Rules().describe()
        'classic, 3 players'
        >>> Rules(hand_size=5, pickup="pile").describe()
        'classic, 3 players, hand_size=5, pickup=pile'
        >>> Rules.modern(2, runs=False).describe()
        'modern, 2 players, runs=False'
        """
        preset, changes = self._preset_changes()
        parts = [preset, f"{self.players} players"]
        parts += [f"{name}={_plain(value)}" for name, value in changes]
        return ", ".join(parts)

    def _preset_changes(self) -> tuple[str, list[tuple[str, object]]]:
        best: tuple[str, list[tuple[str, object]]] | None = None
        for preset in ("classic", "modern"):
            fields = _modern_preset(self.players) if preset == "modern" else {}
            base = Rules(players=self.players, **fields)
            changes = [
                (name, getattr(self, name))
                for name in _FIELD_NAMES
                if getattr(self, name) != getattr(base, name)
            ]
            if best is None or len(changes) < len(best[1]):
                best = (preset, changes)
        assert best is not None
        return best

    def __str__(self) -> str:
        return self.describe()

    def __repr__(self) -> str:
        preset, changes = self._preset_changes()
        args = [f"players={self.players}"]
        args += [f"{name}={_plain(value)!r}" for name, value in changes]
        return f"Rules.{preset}({', '.join(args)})"


_FIELD_NAMES: Final[tuple[str, ...]] = tuple(field.name for field in attrs.fields(Rules))


def _plain(value: object) -> str | int | bool | None:
    if isinstance(value, IntEnum):
        return value.name.lower()
    assert value is None or isinstance(value, int)
    return value


def _modern_preset(players: object) -> dict[str, Any]:
    preset: dict[str, Any] = {
        "trick_mode": TrickMode.ALL,
        "all_tie": AllTie.LOWER_OUT,
        "slough": True,
        "try_your_luck": False,
        "draw": Draw.AFTER_TRICK,
        "last_card": LastCard.REVEAL,
        "runs": True,
        "pickup": Pickup.TOP_RUN,
        "trick_end": TrickEnd.ROTATION,
    }
    if players == 2:
        preset["trick_mode"] = TrickMode.DUEL
        preset["duel_tie"] = DuelTie.BOUNCE
    return preset
