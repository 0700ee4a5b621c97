"""Tests for skitgubbe.errors: hierarchy, attributes, messages and pickling."""

from __future__ import annotations

import copy
import pickle

import pytest

from skitgubbe.errors import (
    IllegalMoveError,
    ParseError,
    PlayerError,
    RecordError,
    RulesError,
    SkitgubbeError,
)
from skitgubbe.moves import Move


@pytest.mark.parametrize(
    "cls", [IllegalMoveError, RulesError, ParseError, PlayerError, RecordError]
)
def test_every_error_is_a_skitgubbe_error(cls: type[Exception]) -> None:
    assert issubclass(cls, SkitgubbeError)
    assert issubclass(cls, Exception)


def test_skitgubbe_error_is_not_a_value_or_type_error() -> None:
    # The library's errors are caught by SkitgubbeError, not by accident as
    # ValueError/TypeError.
    for cls in (IllegalMoveError, RulesError, ParseError, PlayerError, RecordError):
        assert not issubclass(cls, (ValueError, TypeError))


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
