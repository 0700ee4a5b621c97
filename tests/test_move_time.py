"""One name and one validator for the move time limit (issue 24).

Every entry point that takes a time per move takes ``move_time=``; the old ``timeout=``
keeps working for one release with a DeprecationWarning, both together are refused, and
every bad value is refused by ``skitgubbe._limits.check_move_time``: the same error type
and the same message shape everywhere (infinity included: ``None`` is "no limit")."""

from __future__ import annotations

import asyncio
import math
import sys
import warnings
from collections.abc import Callable
from typing import Any

import pytest

import skitgubbe as sg
from skitgubbe.apps.cli.common import check_move_time_option
from skitgubbe.engine import EnginePlayer

GREEDY = [sys.executable, "-m", "skitgubbe", "engine", "greedy"]


def _play_game(**limit: Any) -> object:
    return sg.play_game([sg.bots.GreedyBot()] * 3, seed=1, **limit)


def _referee_run(**limit: Any) -> object:
    return sg.Referee([sg.bots.GreedyBot()] * 3, seed=1).run(**limit)


def _play_game_async(**limit: Any) -> object:
    return asyncio.run(sg.play_game_async([sg.bots.GreedyBot()] * 3, seed=1, **limit))


def _session(**limit: Any) -> object:
    session = sg.Session([sg.bots.GreedyBot()] * 3, seed=1, **limit)
    return session.play_game()


def _resume(**limit: Any) -> object:
    record = sg.Session([sg.bots.GreedyBot()] * 3, seed=1).record()
    return sg.Session.resume(record, [sg.bots.GreedyBot()] * 3, **limit).play_game()


ENTRY_POINTS: dict[str, Callable[..., object]] = {
    "play_game": _play_game,
    "Referee.run": _referee_run,
    "play_game_async": _play_game_async,
    "Session": _session,
    "Session.resume": _resume,
}

BAD = [
    (0, sg.ArgumentError),
    (-1, sg.ArgumentError),
    (-0.5, sg.ArgumentError),
    (math.inf, sg.ArgumentError),
    (math.nan, sg.ArgumentError),
    (True, sg.ArgumentTypeError),
    ("1", sg.ArgumentTypeError),
]


def _message(name: str, value: object) -> str:
    return f"{name} must be a positive, finite number of seconds or None, not {value!r}"


@pytest.mark.parametrize("entry", ENTRY_POINTS)
def test_every_entry_point_takes_move_time(entry: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no deprecation on the new name
        limited = ENTRY_POINTS[entry](move_time=60)
        assert limited == ENTRY_POINTS[entry](move_time=None)  # the limit changes no game


@pytest.mark.parametrize("entry", ENTRY_POINTS)
def test_timeout_still_works_with_a_deprecation_warning(entry: str) -> None:
    with pytest.warns(DeprecationWarning, match=r"timeout= is deprecated: use move_time="):
        result = ENTRY_POINTS[entry](timeout=60)
    assert result == ENTRY_POINTS[entry](move_time=60)


@pytest.mark.parametrize("entry", ENTRY_POINTS)
def test_move_time_and_timeout_together_are_refused(entry: str) -> None:
    with pytest.raises(
        sg.ArgumentError, match=r"give move_time= or timeout= \(deprecated\), not both"
    ):
        ENTRY_POINTS[entry](move_time=5, timeout=5)


@pytest.mark.parametrize("entry", ENTRY_POINTS)
@pytest.mark.parametrize(("value", "error"), BAD)
def test_every_entry_point_refuses_a_bad_move_time_alike(
    entry: str, value: object, error: type[Exception]
) -> None:
    with pytest.raises(error) as caught:
        ENTRY_POINTS[entry](move_time=value)
    assert type(caught.value) is error
    assert str(caught.value) == _message("move_time", value)


@pytest.mark.parametrize("entry", ENTRY_POINTS)
def test_a_bad_timeout_is_refused_under_its_own_name(entry: str) -> None:
    with (
        pytest.warns(DeprecationWarning, match="timeout= is deprecated"),
        pytest.raises(sg.ArgumentError) as caught,
    ):
        ENTRY_POINTS[entry](timeout=math.inf)
    assert str(caught.value) == _message("timeout", math.inf)


def test_infinity_is_refused_by_play_game_and_play_game_async_alike() -> None:
    # Before issue 24 play_game(timeout=inf) raised while play_game_async(timeout=inf) played.
    errors = []
    for entry in (_play_game, _play_game_async):
        with pytest.raises(sg.ArgumentError) as caught:
            entry(move_time=math.inf)
        errors.append((type(caught.value), str(caught.value)))
    assert errors[0] == errors[1]


def test_play_game_async_checks_each_seats_move_time_by_seat() -> None:
    with pytest.raises(sg.ArgumentError) as caught:
        _play_game_async(move_time=[1.0, None, math.inf])
    assert str(caught.value) == _message("move_time[2]", math.inf)
    with pytest.raises(sg.ArgumentError, match="move_time lists one limit per seat"):
        _play_game_async(move_time=[1.0, None])


@pytest.mark.parametrize(("value", "error"), BAD)
def test_an_engine_player_refuses_a_bad_move_time_alike(
    value: object, error: type[Exception]
) -> None:
    with pytest.raises(error) as caught:
        EnginePlayer(GREEDY, move_time=value)  # type: ignore[arg-type]
    assert type(caught.value) is error
    assert str(caught.value) == _message("move_time", value)


def test_an_engine_player_keeps_its_move_time_as_seconds() -> None:
    with EnginePlayer(GREEDY, move_time=2) as engine:
        assert engine.move_time == 2.0 and type(engine.move_time) is float


@pytest.mark.parametrize("value", [0.0, -1.0, math.inf, math.nan])
def test_the_command_line_refuses_a_bad_move_time_alike(value: float) -> None:
    with pytest.raises(sg.ArgumentError) as caught:
        check_move_time_option(value)
    assert type(caught.value) is sg.ArgumentError
    assert str(caught.value) == _message("--move-time", value)
    check_move_time_option(0.5)
    check_move_time_option(None)
