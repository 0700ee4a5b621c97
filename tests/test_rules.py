"""Tests for skitgubbe.game.rules: enums, Rules validation, presets, serialisation."""

from __future__ import annotations

import copy
import json
import pickle
import re
from enum import IntEnum
from typing import Any

import attrs
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from nesting import nested

from skitgubbe import _core
from skitgubbe.errors import RulesError
from skitgubbe.game import rules as sg_rules
from skitgubbe.game.rules import (
    AllTie,
    Draw,
    DuelTie,
    LastCard,
    Pickup,
    Rules,
    TrickEnd,
    TrickMode,
    TrumpRule,
)

FIELD_ORDER = [
    "players",
    "hand_size",
    "trick_mode",
    "duel_tie",
    "all_tie",
    "multi_card_plays",
    "slough",
    "try_your_luck",
    "draw",
    "last_card",
    "trump",
    "low_card_threshold",
    "runs",
    "pickup",
    "trick_end",
    "max_moves",
]

ENUM_FIELDS: dict[str, type[IntEnum]] = {
    "trick_mode": TrickMode,
    "duel_tie": DuelTie,
    "all_tie": AllTie,
    "draw": Draw,
    "last_card": LastCard,
    "trump": TrumpRule,
    "pickup": Pickup,
    "trick_end": TrickEnd,
}
BOOL_FIELDS = ["multi_card_plays", "slough", "try_your_luck", "runs"]


def rules_from(kwargs: dict[str, Any]) -> Rules:
    """Rules(**kwargs) for dynamically built (and deliberately bad) arguments."""
    return Rules(**kwargs)


def _values(field: sg_rules.RuleField) -> st.SearchStrategy[Any]:
    """Every value the table allows for ``field``, in each form Rules accepts."""
    if field.kind == "bool":
        return st.booleans()
    if field.kind == "enum":
        members = st.sampled_from(list(type(field.default)))  # type: ignore[arg-type]
        return members.flatmap(
            lambda m: st.sampled_from([m, m.name.lower(), m.name])  # type: ignore[attr-defined]
        )
    low, step = field.minimum, field.step
    numbers = st.integers(0, (field.maximum - low) // step).map(lambda k: low + k * step)
    return st.none() | numbers if field.kind == "optional_int" else numbers


@st.composite
def valid_rules_kwargs(draw: st.DrawFn) -> dict[str, Any]:
    """Any valid combination of fields (drawn from the table of rule fields), each given
    in one of its accepted forms; some left out to exercise the defaults."""
    kwargs = {field.name: draw(_values(field)) for field in Rules.fields()}
    keep = draw(st.sets(st.sampled_from([field.name for field in Rules.fields()])))
    kwargs = {k: v for k, v in kwargs.items() if k in keep}
    try:
        Rules(**kwargs)
    except RulesError:
        assume(False)  # a combination the core refuses
    return kwargs


# ---- enums ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("enum", "expected"),
    [
        (TrickMode, {"DUEL": 0, "ALL": 1}),
        (DuelTie, {"REPLAY": 0, "BOUNCE": 1}),
        (AllTie, {"POT": 0, "LOWER_OUT": 1}),
        (Draw, {"AFTER_PLAY": 0, "AFTER_TRICK": 1}),
        (LastCard, {"HIDDEN": 0, "REVEAL": 1}),
        (TrumpRule, {"LAST_CARD": 0, "NONE": 1, "UPCARD": 2}),
        (Pickup, {"TOP": 0, "TOP_RUN": 1, "PILE": 2}),
        (TrickEnd, {"COUNT": 0, "ROTATION": 1}),
    ],
)
def test_enum_values_match_the_core(enum: type[IntEnum], expected: dict[str, int]) -> None:
    assert {m.name: m.value for m in enum} == expected


# ---- defaults and presets -------------------------------------------------------


def test_fields_in_order() -> None:
    assert [f.name for f in attrs.fields(Rules)] == FIELD_ORDER
    assert list(Rules().to_dict()) == FIELD_ORDER


def test_defaults_are_rules_md_section_9() -> None:
    r = Rules()
    assert r.players == 3
    assert r.hand_size == 3
    assert r.trick_mode is TrickMode.DUEL
    assert r.duel_tie is DuelTie.REPLAY
    assert r.all_tie is AllTie.POT
    assert r.multi_card_plays is False
    assert r.slough is True
    assert r.try_your_luck is True
    assert r.draw is Draw.AFTER_PLAY
    assert r.last_card is LastCard.HIDDEN
    assert r.trump is TrumpRule.LAST_CARD
    assert r.low_card_threshold is None
    assert r.runs is False
    assert r.pickup is Pickup.TOP
    assert r.trick_end is TrickEnd.COUNT
    assert r.max_moves == 10_000


def test_classic() -> None:
    assert Rules.classic() == Rules()
    assert Rules.classic(4) == Rules(players=4)
    assert Rules.classic(players=2, hand_size=5) == Rules(players=2, hand_size=5)


MODERN_3_4 = {
    "trick_mode": TrickMode.ALL,
    "duel_tie": DuelTie.REPLAY,
    "all_tie": AllTie.LOWER_OUT,
    "multi_card_plays": False,
    "slough": True,
    "try_your_luck": False,
    "draw": Draw.AFTER_TRICK,
    "last_card": LastCard.REVEAL,
    "trump": TrumpRule.LAST_CARD,
    "low_card_threshold": None,
    "runs": True,
    "pickup": Pickup.TOP_RUN,
    "trick_end": TrickEnd.ROTATION,
    "max_moves": 10_000,
}


@pytest.mark.parametrize("players", [3, 4])
def test_modern_three_or_four_players(players: int) -> None:
    r = Rules.modern(players)
    assert r.players == players
    assert r.hand_size == 3
    for name, value in MODERN_3_4.items():
        assert getattr(r, name) == value, name


def test_modern_two_players() -> None:
    r = Rules.modern(2)
    expected = dict(MODERN_3_4, trick_mode=TrickMode.DUEL, duel_tie=DuelTie.BOUNCE)
    assert r.players == 2
    for name, value in expected.items():
        assert getattr(r, name) == value, name


def test_modern_default_players_is_three() -> None:
    assert Rules.modern() == Rules.modern(3)
    assert Rules.modern().players == 3


def test_preset_overrides_apply_on_top() -> None:
    r = Rules.modern(4, pickup="pile", try_your_luck=True, hand_size=5)
    assert r.pickup is Pickup.PILE
    assert r.try_your_luck is True
    assert r.hand_size == 5
    assert r.trick_mode is TrickMode.ALL  # untouched preset field
    assert Rules.modern(2, trick_mode="all").trick_mode is TrickMode.ALL


def test_presets_validate() -> None:
    with pytest.raises(RulesError, match="players") as info:
        Rules.modern(5)
    assert info.value.field == "players"
    with pytest.raises(RulesError, match="bogus") as info:
        Rules.classic(bogus=1)
    assert info.value.field == "bogus"


# ---- conversion and validation --------------------------------------------------


@pytest.mark.parametrize("name", sorted(ENUM_FIELDS))
def test_enum_fields_accept_members_and_names(name: str) -> None:
    enum = ENUM_FIELDS[name]
    for member in enum:
        for form in (member, member.name, member.name.lower(), f" {member.name.title()} "):
            value = getattr(rules_from({name: form}), name)
            assert value is member
    last = list(enum)[-1]
    if "_" in last.name:
        spaced = last.name.lower().replace("_", "-")
        assert getattr(rules_from({name: spaced}), name) is last


@pytest.mark.parametrize("name", sorted(ENUM_FIELDS))
@pytest.mark.parametrize("bad", ["nonsense", 1, 0, True, None, 1.0, ""])
def test_enum_fields_reject_bad_values(name: str, bad: object) -> None:
    with pytest.raises(RulesError) as info:
        rules_from({name: bad})
    message = str(info.value)
    assert info.value.field == name
    assert name in message
    assert repr(bad) in message
    for member in ENUM_FIELDS[name]:
        assert repr(member.name.lower()) in message


def test_enum_field_rejects_a_member_of_another_enum() -> None:
    # DuelTie.BOUNCE == 1 == TrickMode.ALL, but it is not a trick mode.
    with pytest.raises(RulesError, match="trick_mode") as info:
        Rules(trick_mode=DuelTie.BOUNCE)  # type: ignore[arg-type]
    assert info.value.field == "trick_mode"


@pytest.mark.parametrize("name", BOOL_FIELDS)
@pytest.mark.parametrize("bad", [1, 0, "true", "False", None, 1.0])
def test_bool_fields_reject_non_bools(name: str, bad: object) -> None:
    with pytest.raises(RulesError) as info:
        rules_from({name: bad})
    assert info.value.field == name
    assert name in str(info.value)
    assert repr(bad) in str(info.value)
    assert "True, False" in str(info.value)


@pytest.mark.parametrize("name", BOOL_FIELDS)
def test_bool_fields_accept_bools(name: str) -> None:
    default = getattr(Rules(), name)
    assert getattr(rules_from({name: not default}), name) is (not default)


@pytest.mark.parametrize(
    ("name", "bad", "allowed"),
    [
        ("players", 1, "2, 3, 4"),
        ("players", 5, "2, 3, 4"),
        ("players", True, "2, 3, 4"),
        ("players", "3", "2, 3, 4"),
        ("players", 3.0, "2, 3, 4"),
        ("hand_size", 4, "3, 5"),
        ("hand_size", 0, "3, 5"),
        ("hand_size", "5", "3, 5"),
        ("low_card_threshold", 0, "1..13"),
        ("low_card_threshold", 14, "1..13"),
        ("low_card_threshold", True, "1..13"),
        ("low_card_threshold", 5.0, "1..13"),
        ("max_moves", 0, "1..4294967295"),
        ("max_moves", -5, "1..4294967295"),
        ("max_moves", 2**32, "1..4294967295"),
        ("max_moves", True, "1..4294967295"),
        ("max_moves", "100", "1..4294967295"),
    ],
)
def test_int_fields_reject_bad_values(name: str, bad: object, allowed: str) -> None:
    with pytest.raises(RulesError) as info:
        rules_from({name: bad})
    message = str(info.value)
    assert info.value.field == name
    assert name in message
    assert repr(bad) in message
    assert allowed in message


@pytest.mark.parametrize(
    ("name", "good"),
    [
        ("players", 2),
        ("players", 4),
        ("hand_size", 5),
        ("low_card_threshold", 1),
        ("low_card_threshold", 13),
        ("max_moves", 1),
        ("max_moves", 2**32 - 1),
    ],
)
def test_int_fields_accept_edge_values(name: str, good: int) -> None:
    assert getattr(rules_from({name: good}), name) == good


def test_unknown_keyword_is_a_rules_error_naming_it() -> None:
    with pytest.raises(RulesError, match="'colour'") as info:
        Rules(colour="red")  # type: ignore[call-arg]
    assert info.value.field == "colour"
    assert "players" in str(info.value)  # lists the known fields


def test_positional_arguments_are_a_rules_error() -> None:
    with pytest.raises(RulesError, match="keyword") as info:
        Rules(3)  # type: ignore[call-arg]
    assert info.value.field is None


def test_upcard_with_multi_card_plays_is_refused() -> None:
    with pytest.raises(RulesError) as info:
        Rules(trump="upcard", multi_card_plays=True)
    assert info.value.field == "trump"
    assert "multi_card_plays" in str(info.value)
    assert "upcard" in str(info.value)
    # Each alone is fine.
    assert Rules(trump="upcard").trump is TrumpRule.UPCARD
    assert Rules(multi_card_plays=True).multi_card_plays is True


def test_rules_errors_are_value_errors() -> None:
    bad: list[dict[str, Any]] = [{"players": "x"}, {"bogus": 1}, {"slough": 1}, {"draw": 3}]
    for kwargs in bad:
        with pytest.raises(ValueError, match="Rules") as info:
            rules_from(kwargs)
        assert isinstance(info.value, RulesError)


# ---- immutability, equality, pickling -------------------------------------------


def test_rules_are_frozen_hashable_and_compare_by_value() -> None:
    r = Rules(players=4)
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        r.players = 2  # type: ignore[misc]
    assert r.players == 4
    assert r == Rules(players=4)
    assert r != Rules()
    assert hash(r) == hash(Rules(players=4))
    assert len({r, Rules(players=4), Rules()}) == 2


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_rules_pickle(protocol: int) -> None:
    r = Rules.modern(4, hand_size=5, low_card_threshold=5)
    assert pickle.loads(pickle.dumps(r, protocol)) == r


def test_rules_copy() -> None:
    r = Rules.modern(2)
    assert copy.copy(r) == r
    assert copy.deepcopy(r) == r


# ---- replace --------------------------------------------------------------------


def test_replace() -> None:
    r = Rules().replace(players=2, runs=True, pickup="pile")
    assert (r.players, r.runs, r.pickup) == (2, True, Pickup.PILE)
    assert r.hand_size == 3


def test_replace_validates() -> None:
    with pytest.raises(RulesError) as info:
        Rules().replace(hand_size=4)
    assert info.value.field == "hand_size"
    with pytest.raises(RulesError, match="'nope'") as info:
        Rules().replace(nope=1)
    assert info.value.field == "nope"
    with pytest.raises(RulesError) as info:
        Rules(trump="upcard").replace(multi_card_plays=True)
    assert info.value.field == "trump"


# ---- to_dict / from_dict --------------------------------------------------------


def test_to_dict_of_the_defaults() -> None:
    assert Rules().to_dict() == {
        "players": 3,
        "hand_size": 3,
        "trick_mode": "duel",
        "duel_tie": "replay",
        "all_tie": "pot",
        "multi_card_plays": False,
        "slough": True,
        "try_your_luck": True,
        "draw": "after_play",
        "last_card": "hidden",
        "trump": "last_card",
        "low_card_threshold": None,
        "runs": False,
        "pickup": "top",
        "trick_end": "count",
        "max_moves": 10_000,
    }


def test_to_dict_is_json_and_plain() -> None:
    d = Rules.modern(4, low_card_threshold=5).to_dict()
    for value in d.values():
        assert value is None or type(value) in (str, int, bool)
    assert json.loads(json.dumps(d)) == d
    assert d["pickup"] == "top_run"
    assert d["low_card_threshold"] == 5


@given(valid_rules_kwargs())
def test_to_dict_from_dict_round_trip(kwargs: dict[str, Any]) -> None:
    rules = Rules(**kwargs)
    data = rules.to_dict()
    assert Rules.from_dict(data) == rules
    assert Rules.from_dict(json.loads(json.dumps(data))) == rules


@given(valid_rules_kwargs())
def test_valid_combinations_keep_their_values(kwargs: dict[str, Any]) -> None:
    rules = Rules(**kwargs)
    for name, value in kwargs.items():
        got = getattr(rules, name)
        if name in ENUM_FIELDS:
            assert got.name == (value.name if isinstance(value, IntEnum) else value.upper())
        else:
            assert got == value
            assert type(got) is type(value)


def test_from_dict_missing_keys_take_defaults() -> None:
    assert Rules.from_dict({}) == Rules()
    assert Rules.from_dict({"players": 2}) == Rules(players=2)


def test_from_dict_rejects_unknown_keys() -> None:
    with pytest.raises(RulesError, match="'speed'") as info:
        Rules.from_dict({"players": 3, "speed": "fast"})
    assert info.value.field == "speed"


def test_from_dict_rejects_non_string_keys() -> None:
    with pytest.raises(RulesError, match="7") as info:
        Rules.from_dict({7: 3})  # type: ignore[dict-item]
    assert info.value.field == "7"


def test_from_dict_rejects_non_mappings() -> None:
    with pytest.raises(RulesError, match="mapping"):
        Rules.from_dict([("players", 3)])  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("key", "bad"),
    [
        ("players", "3"),
        ("hand_size", None),
        ("trick_mode", "triple"),
        ("slough", "yes"),
        ("runs", 1),
        ("low_card_threshold", "5"),
        ("max_moves", 1.5),
    ],
)
def test_from_dict_rejects_wrong_types_naming_the_key(key: str, bad: object) -> None:
    with pytest.raises(RulesError) as info:
        Rules.from_dict({key: bad})
    assert info.value.field == key
    assert key in str(info.value)
    assert repr(bad) in str(info.value)


# ---- the one table of rule fields ------------------------------------------------


def test_rules_has_exactly_the_fields_of_the_c_table_in_its_order() -> None:
    table = [entry["name"] for entry in _core.rule_fields()]
    assert table == FIELD_ORDER  # docs/rules.md §9
    assert [f.name for f in attrs.fields(Rules)] == table
    assert [f.name for f in Rules.fields()] == table
    assert list(Rules().to_dict()) == table


def test_every_field_takes_its_kind_default_and_values_from_the_table() -> None:
    for entry, field in zip(_core.rule_fields(), Rules.fields(), strict=True):
        assert field.kind == entry["kind"]
        assert field.to_core(field.default) == entry["classic"]
        assert field.to_core(getattr(Rules(), field.name)) == entry["classic"]
        if field.kind == "enum":
            enum = type(getattr(Rules(), field.name))
            assert [m.name.lower() for m in enum] == list(entry["values"])
            assert field.values == entry["values"]
        if field.kind in ("int", "optional_int"):
            assert field.check(entry["min"]) == entry["min"]
            assert field.check(entry["max"]) == entry["max"]
            with pytest.raises(RulesError) as info:
                field.check(entry["max"] + 1)
            assert info.value.field == field.name


@given(valid_rules_kwargs())
def test_rules_cross_into_the_core_by_the_table_and_come_back(kwargs: dict[str, Any]) -> None:
    rules = Rules(**kwargs)
    values = _core.Core.deal(rules._core_values(), _core.deck_from_seed(1), 0).rules
    back = {f.name: f.from_core(v) for f, v in zip(Rules.fields(), values, strict=True)}
    assert Rules(**back) == rules


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("preset", ["classic", "modern"])
def test_the_presets_come_from_the_core(preset: str, players: int) -> None:
    numbers = _core.rules_preset(preset, players)
    rules = Rules.preset(preset, players)
    assert rules._core_values() == numbers
    assert rules == getattr(Rules, preset)(players)
    with pytest.raises(RulesError, match="preset"):
        Rules.preset("fast", players)


@pytest.mark.parametrize(
    ("name", "text", "value"),
    [
        ("players", "4", 4),
        ("runs", "on", True),
        ("slough", "False", False),
        ("pickup", "top-run", Pickup.TOP_RUN),
        ("low_card_threshold", "None", None),
        ("max_moves", "12", 12),
    ],
)
def test_a_field_parses_its_text(name: str, text: str, value: object) -> None:
    assert Rules.field(name).parse(text) == value


def _other_value(field: sg_rules.RuleField) -> str:
    """Text for a value of ``field`` that is not its default."""
    if field.kind == "bool":
        return str(not field.default)
    if field.kind == "enum":
        return field.values[-1]
    return str(field.maximum if field.default != field.maximum else field.minimum)


def test_the_command_line_sets_every_field_of_the_table() -> None:
    from skitgubbe.apps.cli import build_parser
    from skitgubbe.apps.cli.common import rules_from_args

    parser = build_parser()
    for field in Rules.fields():
        text = _other_value(field)
        args = parser.parse_args(["demo", "--set", f"{field.name}={text}"])
        rules = rules_from_args(args)
        assert getattr(rules, field.name) == field.parse(text) != field.default, field.name


def test_a_field_refuses_text_naming_what_is_allowed() -> None:
    with pytest.raises(RulesError, match=r"'duel', 'all'") as info:
        Rules.field("trick_mode").parse("triple")
    assert info.value.field == "trick_mode"
    with pytest.raises(RulesError, match="unknown Rules field 'colour'"):
        Rules.field("colour")


# ---- describe, str, repr --------------------------------------------------------


def test_describe() -> None:
    assert Rules().describe() == "classic, 3 players"
    assert str(Rules()) == "classic, 3 players"
    assert str(Rules(hand_size=5)) == "classic, 3 players, hand_size=5"
    assert str(Rules.classic(2)) == "classic, 2 players"
    assert str(Rules.modern(4)) == "modern, 4 players"
    assert str(Rules.modern(2)) == "modern, 2 players"
    assert (
        str(Rules.modern(3, pickup="pile", low_card_threshold=5))
        == "modern, 3 players, low_card_threshold=5, pickup=pile"
    )
    assert str(Rules(slough=False)) == "classic, 3 players, slough=False"


def test_repr() -> None:
    assert repr(Rules()) == "Rules.classic(players=3)"
    assert repr(Rules(players=4, trick_mode="all")) == (
        "Rules.classic(players=4, trick_mode='all')"
    )
    assert repr(Rules.modern(2, hand_size=5)) == "Rules.modern(players=2, hand_size=5)"


@given(valid_rules_kwargs())
def test_repr_evaluates_to_equal_rules(kwargs: dict[str, Any]) -> None:
    rules = Rules(**kwargs)
    assert eval(repr(rules), {"Rules": Rules}) == rules
    text = str(rules)
    assert re.match(r"^(classic|modern), [234] players", text)


# Issue 9, point 9: Rules.from_dict answers any JSON-like value with a RulesError.
@pytest.mark.parametrize(
    "data",
    [
        pytest.param({"players": nested(100_000)}, id="deep-value"),
        pytest.param(nested(100_000), id="deep-data"),
        pytest.param({"trump": {"a": nested(100_000)}}, id="deep-enum"),
        pytest.param({"players": 10**5000}, id="huge-int"),
        pytest.param({"players": 3.0}, id="float"),
        pytest.param({"players": float("nan")}, id="nan"),
        pytest.param({1: 2}, id="int-key"),
        pytest.param({"trump": "la\u017ft_card"}, id="long-s"),
        pytest.param({"trick_mode": "\u0430ll"}, id="cyrillic-a"),
        pytest.param({"pickup": "top_\u0280un"}, id="small-capital-r"),
    ],
)
def test_bad_rules_data_is_a_rules_error(data: object) -> None:
    with pytest.raises(RulesError):
        Rules.from_dict(data)  # type: ignore[arg-type]


@pytest.mark.parametrize("text", ["\u00b2", "\u0663", "fal\u017fe", "la\u017ft_card"])
def test_rule_field_text_is_ascii(text: str) -> None:
    for field in Rules.fields():
        with pytest.raises(RulesError):
            field.parse(text)
