"""The rule variants of a game: :class:`Rules` and its enums (docs/rules.md §9).

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
from typing import Any, Final

import attrs

from .. import _core
from .._text import ascii_lower, ascii_upper, brief
from ..errors import RulesError

__all__ = [
    "AllTie",
    "Draw",
    "DuelTie",
    "LastCard",
    "Pickup",
    "RuleField",
    "Rules",
    "TrickEnd",
    "TrickMode",
    "TrumpRule",
]


class TrickMode(IntEnum):
    """Who plays to a phase-1 trick (docs/rules.md §3, §4).

    >>> TrickMode.DUEL, TrickMode["ALL"]
    (<TrickMode.DUEL: 0>, <TrickMode.ALL: 1>)
    """

    DUEL = 0
    ALL = 1


class DuelTie(IntEnum):
    """What a tie does under ``trick_mode=DUEL`` (docs/rules.md §3.6).

    >>> int(DuelTie.BOUNCE)
    1
    """

    REPLAY = 0
    BOUNCE = 1


class AllTie(IntEnum):
    """Where the non-tied cards go under ``trick_mode=ALL`` (docs/rules.md §4.3).

    >>> int(AllTie.LOWER_OUT)
    1
    """

    POT = 0
    LOWER_OUT = 1


class Draw(IntEnum):
    """When players refill their hands in phase 1 (docs/rules.md §3.4, §3.9).

    >>> int(Draw.AFTER_TRICK)
    1
    """

    AFTER_PLAY = 0
    AFTER_TRICK = 1


class LastCard(IntEnum):
    """What happens to the last stock card (docs/rules.md §3.7, §3.8).

    >>> int(LastCard.REVEAL)
    1
    """

    HIDDEN = 0
    REVEAL = 1


class TrumpRule(IntEnum):
    """How the trump suit is chosen (docs/rules.md §5.1).

    >>> int(TrumpRule.UPCARD)
    2
    """

    LAST_CARD = 0
    NONE = 1
    UPCARD = 2


class Pickup(IntEnum):
    """What a phase-2 pick-up takes from the table (docs/rules.md §6.3).

    >>> int(Pickup.PILE)
    2
    """

    TOP = 0
    TOP_RUN = 1
    PILE = 2


class TrickEnd(IntEnum):
    """When a phase-2 trick is complete (docs/rules.md §6.5).

    >>> int(TrickEnd.ROTATION)
    1
    """

    COUNT = 0
    ROTATION = 1


_ENUMS: Final[dict[str, type[IntEnum]]] = {}  # filled below from the annotations


@attrs.frozen
class RuleField:
    """One field of :class:`Rules`, as the C core's table of rule fields declares it.

    Every layer takes the fields from that one table: the C struct, the binding,
    :class:`Rules` (its fields, defaults and validation), the presets and the
    command line's ``--set``. ``kind`` is ``"int"``, ``"bool"``, ``"enum"`` or
    ``"optional_int"`` (an int, or ``None`` for off); ``minimum``, ``maximum`` and
    ``step`` bound an int; ``values`` names an enum's values; ``default`` is the
    classic rules' value.

    >>> field = Rules.field("pickup")
    >>> field.kind, field.values, field.default
    ('enum', ('top', 'top_run', 'pile'), <Pickup.TOP: 0>)
    >>> field.parse("pile"), Rules.field("runs").parse("yes")
    (<Pickup.PILE: 2>, True)
    """

    name: str
    """The field's name."""
    kind: str
    """``"int"``, ``"bool"``, ``"enum"`` or ``"optional_int"``."""
    doc: str
    """What the field decides, in one line."""
    minimum: int
    """The smallest value (of an enum: 0)."""
    maximum: int
    """The largest value."""
    step: int
    """The step between allowed ints (``hand_size``: 2)."""
    values: tuple[str, ...]
    """An enum's value names, lower case, by number; empty for other kinds."""
    default: int | bool | IntEnum | None
    """The classic rules' value."""

    def allowed(self) -> str:
        """The allowed values, in words.

        >>> Rules.field("hand_size").allowed(), Rules.field("low_card_threshold").allowed()
        ('3, 5', 'None or an int 1..13')
        """
        if self.kind == "bool":
            return "True, False"
        if self.kind == "enum":
            return ", ".join(repr(value) for value in self.values)
        numbers = range(self.minimum, self.maximum + 1, self.step)
        text = (
            ", ".join(map(str, numbers))
            if len(numbers) <= 4
            else f"an int {self.minimum}..{self.maximum}"
        )
        return f"None or {text}" if self.kind == "optional_int" else text

    def parse(self, text: str) -> int | bool | IntEnum | None:
        """The value ``text`` names (for command lines and forms); validated.

        >>> Rules.field("max_moves").parse("500"), Rules.field("low_card_threshold").parse("none")
        (500, None)
        >>> Rules.field("players").parse("five")
        Traceback (most recent call last):
            ...
        skitgubbe.errors.RulesError: invalid Rules.players: 'five'; allowed: 2, 3, 4
        """
        if not isinstance(text, str):
            raise RulesError(f"invalid Rules.{self.name}: {brief(text)}; expected text", self.name)
        word = ascii_lower(text.strip())
        value: object = text
        if self.kind == "bool" and word in _BOOL_WORDS:
            value = _BOOL_WORDS[word]
        elif self.kind in ("int", "optional_int"):
            if word == "none" and self.kind == "optional_int":
                value = None
            elif word.isascii() and word.isdigit():
                value = int(word)
        return self.check(value)

    def check(self, value: object) -> int | bool | IntEnum | None:
        """``value`` as this field holds it (an enum member from its name), or
        :class:`~skitgubbe.errors.RulesError` naming the field and what is allowed.

        >>> Rules.field("trick_mode").check("ALL")
        <TrickMode.ALL: 1>
        """
        if self.kind == "enum":
            enum = _ENUMS[self.name]
            if isinstance(value, enum):
                return value
            if isinstance(value, str):
                key = ascii_upper(value.strip()).replace("-", "_").replace(" ", "_")
                member = enum.__members__.get(key)
                if member is not None:
                    return member
            raise RulesError(
                f"invalid Rules.{self.name}: {brief(value)}; allowed: {self.allowed()} "
                f"(or a {enum.__name__} member)",
                self.name,
            )
        if self.kind == "bool":
            if type(value) is bool:
                return value
        elif value is None:
            if self.kind == "optional_int":
                return None
        elif (
            isinstance(value, int)
            and not isinstance(value, bool)
            and self.minimum <= value <= self.maximum
            and (value - self.minimum) % self.step == 0
        ):
            return int(value)
        raise RulesError(
            f"invalid Rules.{self.name}: {brief(value)}; allowed: {self.allowed()}", self.name
        )

    def to_core(self, value: object) -> int:
        """The number the C core stores for ``value`` (``None`` is 0, booleans 0 or 1)."""
        return 0 if value is None else int(value)  # type: ignore[call-overload]

    def from_core(self, number: int) -> int | bool | IntEnum | None:
        """The value the C core's ``number`` stands for."""
        if self.kind == "enum":
            return _ENUMS[self.name](number)
        if self.kind == "bool":
            return bool(number)
        if self.kind == "optional_int" and number == 0:
            return None
        return number


_BOOL_WORDS: Final = {
    "true": True,
    "yes": True,
    "on": True,
    "1": True,
    "false": False,
    "no": False,
    "off": False,
    "0": False,
}

_TABLE: Final = _core.rule_fields()


def _from_table(cls: type, fields: list[attrs.Attribute[Any]]) -> list[attrs.Attribute[Any]]:
    """Give each declared field of Rules its default and validation from the C table.

    The declarations in the class body exist for type checkers; the table decides
    which fields there are, so a field missing on either side stops the import.
    """
    names = [f.name for f in fields]
    table = [entry["name"] for entry in _TABLE]
    if names != table:
        raise ImportError(
            f"Rules declares {names}, but the C core's table of rule fields is {table}"
        )
    out = []
    for entry, attribute in zip(_TABLE, fields, strict=True):
        field = _rule_field(entry, attribute.type)
        _FIELDS[field.name] = field
        out.append(attribute.evolve(default=field.default, converter=field.check, validator=None))
    return out


def _rule_field(entry: Mapping[str, Any], annotation: object) -> RuleField:
    kind = entry["kind"]
    if kind == "enum":
        enum = _ENUM_TYPES[str(annotation)]
        names = tuple(member.name.lower() for member in enum)
        if names != tuple(entry["values"]) or [int(m) for m in enum] != list(range(len(names))):
            raise ImportError(
                f"{enum.__name__} is {names}, but the C core names {entry['name']}'s values "
                f"{tuple(entry['values'])}"
            )
        _ENUMS[entry["name"]] = enum
    field = RuleField(
        name=entry["name"],
        kind=kind,
        doc=entry["doc"],
        minimum=entry["min"],
        maximum=entry["max"],
        step=entry["step"],
        values=tuple(entry["values"]),
        default=None,
    )
    return attrs.evolve(field, default=field.from_core(entry["classic"]))


_FIELDS: Final[dict[str, RuleField]] = {}
_ENUM_TYPES: Final[dict[str, type[IntEnum]]] = {
    enum.__name__: enum
    for enum in (TrickMode, DuelTie, AllTie, Draw, LastCard, TrumpRule, Pickup, TrickEnd)
}


@attrs.frozen(kw_only=True, repr=False, field_transformer=_from_table)
class Rules:
    """The rule variants of one game; every field of docs/rules.md §9.

    Keyword-only and validated. Enum fields take the member or its name as a
    string, case-insensitive (``trick_mode="all"``); booleans must be real
    ``bool`` and integers real ``int``. Anything else raises
    :class:`~skitgubbe.errors.RulesError` with ``.field`` set. The defaults are
    the classic (German) rules. Fields without effect in a configuration (such
    as ``duel_tie`` under ``trick_mode=ALL``) are allowed and ignored.

    The fields, their defaults and what each allows come from the C core's one
    table of rule fields (:meth:`fields` lists them, with a line on each); the
    declarations below are there for type checkers.

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

    players: int
    hand_size: int
    trick_mode: TrickMode
    duel_tie: DuelTie
    all_tie: AllTie
    multi_card_plays: bool
    slough: bool
    try_your_luck: bool
    draw: Draw
    last_card: LastCard
    trump: TrumpRule
    low_card_threshold: int | None
    runs: bool
    pickup: Pickup
    trick_end: TrickEnd
    max_moves: int

    def __new__(cls, *args: object, **kwargs: object) -> Rules:
        # Catches what Python would report as a TypeError before attrs' __init__
        # runs, so that every bad construction is a RulesError.
        if args:
            raise RulesError(
                f"Rules takes keyword arguments only; got positional {brief(args)}", None
            )
        for name in kwargs:
            if name not in _FIELDS:
                raise RulesError(
                    f"unknown Rules field {brief(name, 24)}; fields: {', '.join(_FIELDS)}",
                    name,
                )
        return super().__new__(cls)

    def __attrs_post_init__(self) -> None:
        # Combinations are the C core's to refuse: its check is the one validator.
        code, field = _core.rules_check(self._core_values())
        if code != 0:
            raise RulesError(f"invalid Rules: {_REFUSED.get(field, field)}", field)

    @staticmethod
    def fields() -> tuple[RuleField, ...]:
        """Every rule field, in the C core's table order.

        >>> [field.name for field in Rules.fields()][:3]
        ['players', 'hand_size', 'trick_mode']
        """
        return tuple(_FIELDS.values())

    @staticmethod
    def field(name: str) -> RuleField:
        """The rule field called ``name``.

        >>> Rules.field("players").allowed()
        '2, 3, 4'
        """
        field = _FIELDS.get(name) if isinstance(name, str) else None
        if field is None:
            raise RulesError(
                f"unknown Rules field {brief(name, 24)}; fields: {', '.join(_FIELDS)}", name
            )
        return field

    @staticmethod
    def presets() -> tuple[str, ...]:
        """The names of the presets (:meth:`preset`).

        >>> Rules.presets()
        ('classic', 'modern')
        """
        return _PRESETS

    @classmethod
    def preset(cls, name: str, players: int = 3, **overrides: Any) -> Rules:
        """The preset ``name`` (``"classic"`` or ``"modern"``) for ``players``, then ``overrides``.

        The presets are defined once, in the C core.

        >>> Rules.preset("modern", 2) == Rules.modern(2)
        True
        """
        if name not in _PRESETS:
            raise RulesError(
                f"unknown rules preset {brief(name)}; presets: {', '.join(_PRESETS)}", None
            )
        Rules.field("players").check(players)
        numbers = _core.rules_preset(name, players)
        fields = {
            field.name: field.from_core(number)
            for field, number in zip(_FIELDS.values(), numbers, strict=True)
        }
        return cls(**{**fields, **overrides})

    @classmethod
    def classic(cls, players: int = 3, **overrides: Any) -> Rules:
        """The classic (German) rules: every default, then ``overrides``.

        >>> Rules.classic() == Rules()
        True
        >>> Rules.classic(2, hand_size=5)
        Rules.classic(players=2, hand_size=5)
        """
        return cls.preset("classic", players, **overrides)

    @classmethod
    def modern(cls, players: int = 3, **overrides: Any) -> Rules:
        """The French/Dutch rules (docs/rules.md §9), then ``overrides``.

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
        return cls.preset("modern", players, **overrides)

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
            raise RulesError(
                f"Rules.from_dict needs a mapping of field names; got {brief(data)}", None
            )
        for key in data:
            if key not in _FIELDS:
                raise RulesError(
                    f"unknown Rules field {brief(key, 24)}; fields: {', '.join(_FIELDS)}",
                    key if isinstance(key, str) else brief(key),
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
        return {name: _plain(getattr(self, name)) for name in _FIELDS}

    def replace(self, **changes: Any) -> Rules:
        """A copy with some fields changed; validated like the constructor.

        >>> Rules().replace(players=2, runs=True)
        Rules.classic(players=2, runs=True)
        """
        return attrs.evolve(self, **changes)

    def _core_values(self) -> tuple[int, ...]:
        """The C core's numbers for every field, in the table's order."""
        return tuple([field.to_core(getattr(self, name)) for name, field in _FIELDS.items()])

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
        for preset in _PRESETS:
            base = Rules.preset(preset, self.players)
            changes = [
                (name, getattr(self, name))
                for name in _FIELDS
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


_PRESETS: Final = tuple(_core.RULES_PRESETS)

# What the C core's check means when it names a field of a refused combination.
_REFUSED: Final[dict[str | None, str]] = {
    "trump": "trump='upcard' cannot be combined with multi_card_plays=True "
    "(the up-card variant knows single cards only)",
}


def _plain(value: object) -> str | int | bool | None:
    if isinstance(value, IntEnum):
        return value.name.lower()
    assert value is None or isinstance(value, int)
    return value
