"""Tests for skitgubbe.errors: hierarchy, attributes, messages and pickling."""

from __future__ import annotations

import copy
import pickle

import pytest

import skitgubbe as sg
from skitgubbe.errors import (
    ArgumentError,
    ArgumentTypeError,
    ConcurrentUseError,
    DisconnectedError,
    IllegalMoveError,
    ParseError,
    ParseTypeError,
    PlayerDisconnectedError,
    PlayerError,
    PlayerTimeoutError,
    RecordError,
    RulesError,
    SkitgubbeError,
)
from skitgubbe.game.moves import Move
from skitgubbe.play import aio

LIBRARY_ERRORS = [
    ArgumentError,
    ArgumentTypeError,
    ConcurrentUseError,
    IllegalMoveError,
    ParseError,
    ParseTypeError,
    PlayerDisconnectedError,
    PlayerError,
    PlayerTimeoutError,
    RecordError,
    RulesError,
]


@pytest.mark.parametrize("cls", LIBRARY_ERRORS)
def test_every_error_is_a_skitgubbe_error(cls: type[Exception]) -> None:
    assert issubclass(cls, SkitgubbeError)
    assert issubclass(cls, Exception)


@pytest.mark.parametrize(
    ("error", "base"),
    [
        (ArgumentError("seat must be 0..2, not 5"), ValueError),
        (ParseError("not a card: '1H'", "1H"), ValueError),
        (RulesError("Rules.players must be 2, 3 or 4; got 7", "players"), ValueError),
        (IllegalMoveError("illegal move 7♥", Move.parse("7H"), "not in hand", []), ValueError),
        (RecordError("bad record", 3), ValueError),
        (ArgumentTypeError("a seat is an int, not 'two'"), TypeError),
        (ParseTypeError("not card text: 7; expected a str", "7"), TypeError),
        (ConcurrentUseError("VectorEnv is in use by another thread"), RuntimeError),
    ],
)
def test_errors_about_values_and_types_are_caught_by_the_standard_bases(
    error: SkitgubbeError, base: type[Exception]
) -> None:
    with pytest.raises(base) as caught:
        raise error
    assert caught.value is error


def test_a_wrong_type_to_parse_is_both_a_parse_error_and_a_type_error() -> None:
    assert issubclass(ParseTypeError, ParseError) and issubclass(ParseTypeError, TypeError)
    assert not issubclass(ArgumentTypeError, ValueError)
    assert not issubclass(ArgumentError, TypeError)


def test_player_errors_are_neither_value_nor_type_errors() -> None:
    # A player that fails is not a bad argument of the caller's.
    for cls in (PlayerError, PlayerTimeoutError, PlayerDisconnectedError):
        assert not issubclass(cls, (ValueError, TypeError))


def test_a_disconnect_is_the_players_connection_error_not_the_librarys() -> None:
    assert issubclass(DisconnectedError, ConnectionError)
    assert not issubclass(DisconnectedError, SkitgubbeError)


@pytest.mark.parametrize(
    "name", ["DisconnectedError", "PlayerDisconnectedError", "PlayerTimeoutError"]
)
def test_the_async_errors_live_in_errors_and_are_importable_where_they_were(name: str) -> None:
    cls = getattr(sg.errors, name)
    assert cls.__module__ == "skitgubbe.errors"
    assert getattr(sg, name) is cls
    assert getattr(aio, name) is cls


def test_rules_error_keeps_field_and_message() -> None:
    error = RulesError("invalid Rules.players: 7", "players")
    assert error.field == "players"
    assert str(error) == "invalid Rules.players: 7"
    assert RulesError("no single field").field is None


def test_parse_error_keeps_text() -> None:
    error = ParseError("not a card: 'XY'", "XY")
    assert error.text == "XY"
    assert str(error) == "not a card: 'XY'"


def test_illegal_move_error_keeps_move_reason_and_legal_moves() -> None:
    move = Move.parse("7H")
    legal = [Move.parse("8H"), Move.flip()]
    error = IllegalMoveError("illegal move 7♥", move, "not in hand", legal)
    assert error.move == move
    assert error.reason == "not in hand"
    assert error.legal_moves == (Move.parse("8H"), Move.flip())
    assert isinstance(error.legal_moves, tuple)
    assert str(error) == "illegal move 7♥"


def test_player_error_keeps_seat_cause_and_answer() -> None:
    cause = ValueError("boom")
    error = PlayerError("seat 2 raised", 2, cause, answer="junk")
    assert (error.seat, error.cause, error.answer) == (2, cause, "junk")
    bare = PlayerError("seat 0 timed out", 0)
    assert (bare.seat, bare.cause, bare.answer) == (0, None, None)


def test_record_error_keeps_move_index() -> None:
    assert RecordError("bad move", 12).move_index == 12
    assert RecordError("bad header").move_index is None


def _roundtrip(error: BaseException) -> BaseException:
    copy_ = pickle.loads(pickle.dumps(error))
    assert isinstance(copy_, BaseException)
    return copy_


def test_concurrent_use_error_pickles() -> None:
    copy_ = _roundtrip(ConcurrentUseError("VectorEnv is in use by another thread"))
    assert isinstance(copy_, ConcurrentUseError) and isinstance(copy_, RuntimeError)
    assert str(copy_) == "VectorEnv is in use by another thread"


def test_rules_error_pickles() -> None:
    copy_ = _roundtrip(RulesError("bad", "hand_size"))
    assert isinstance(copy_, RulesError)
    assert (str(copy_), copy_.field) == ("bad", "hand_size")


def test_parse_error_pickles() -> None:
    copy_ = _roundtrip(ParseError("bad card", "1H"))
    assert isinstance(copy_, ParseError)
    assert (str(copy_), copy_.text) == ("bad card", "1H")


def test_illegal_move_error_pickles() -> None:
    error = IllegalMoveError("illegal", Move.parse("7H"), "why", [Move.pick_up()])
    copy_ = _roundtrip(error)
    assert isinstance(copy_, IllegalMoveError)
    assert str(copy_) == "illegal"
    assert copy_.move == Move.parse("7H")
    assert copy_.reason == "why"
    assert copy_.legal_moves == (Move.pick_up(),)


def test_player_error_pickles_with_cause_and_answer() -> None:
    error = PlayerError("seat 1", 1, KeyError("k"), answer=[1, 2])
    copy_ = _roundtrip(error)
    assert isinstance(copy_, PlayerError)
    assert str(copy_) == "seat 1"
    assert copy_.seat == 1
    assert isinstance(copy_.cause, KeyError)
    assert copy_.cause.args == ("k",)
    assert copy_.answer == [1, 2]


def test_player_timeout_error_pickles() -> None:
    copy_ = _roundtrip(PlayerTimeoutError("late", 2, 1.5))
    assert type(copy_) is PlayerTimeoutError
    assert (str(copy_), copy_.seat, copy_.timeout, copy_.cause) == ("late", 2, 1.5, None)


def test_player_disconnected_error_pickles_with_its_cause() -> None:
    copy_ = _roundtrip(PlayerDisconnectedError("gone", 1, DisconnectedError("closed")))
    assert type(copy_) is PlayerDisconnectedError
    assert (str(copy_), copy_.seat) == ("gone", 1)
    assert type(copy_.cause) is DisconnectedError and copy_.cause.args == ("closed",)


@pytest.mark.parametrize(
    "error",
    [
        ArgumentError("bad value"),
        ArgumentTypeError("bad type"),
        ParseTypeError("not card text: 7", "7"),
        DisconnectedError("closed"),
    ],
)
def test_the_other_errors_pickle(error: Exception) -> None:
    copy_ = _roundtrip(error)
    assert type(copy_) is type(error)
    assert copy_.args == error.args
    assert getattr(copy_, "text", None) == getattr(error, "text", None)


def test_record_error_pickles() -> None:
    copy_ = _roundtrip(RecordError("bad record", 3))
    assert isinstance(copy_, RecordError)
    assert (str(copy_), copy_.move_index) == ("bad record", 3)


def test_base_error_pickles() -> None:
    copy_ = _roundtrip(SkitgubbeError("plain"))
    assert type(copy_) is SkitgubbeError
    assert str(copy_) == "plain"


def test_pickling_keeps_extra_attributes() -> None:
    # Attributes added after construction (e.g. 3.11 exception notes) survive.
    error = RulesError("bad", "players")
    setattr(error, "context", "while loading rules.json")  # noqa: B010
    copy_ = _roundtrip(error)
    assert getattr(copy_, "context", None) == "while loading rules.json"


def test_errors_copy() -> None:
    error = ParseError("bad", "zz")
    clone = copy.copy(error)
    assert isinstance(clone, ParseError)
    assert clone.text == "zz"


def test_raise_and_catch_by_base() -> None:
    with pytest.raises(SkitgubbeError, match="field x") as info:
        raise RulesError("field x is wrong", "x")
    assert isinstance(info.value, RulesError)
