"""The subpackage skitgubbe.engine: both sides of the engine protocol, its public names, and
the old paths and names kept as aliases for one release (issue 24)."""

from __future__ import annotations

import importlib
import io
import subprocess
import sys
import time
import warnings

import pytest

import skitgubbe as sg
import skitgubbe.engine
from skitgubbe.engine import protocol

GREEDY = [sys.executable, "-m", "skitgubbe", "engine", "greedy"]


def test_every_name_of_the_package_resolves_to_its_submodule() -> None:
    for name in skitgubbe.engine.__all__:
        value = getattr(skitgubbe.engine, name)
        assert value is not None
        assert name in dir(skitgubbe.engine)
    assert sg.EnginePlayer is skitgubbe.engine.player.EnginePlayer
    assert sg.AsyncEnginePlayer is skitgubbe.engine.async_player.AsyncEnginePlayer
    assert sg.Limits is skitgubbe.engine.process.Limits
    with pytest.raises(AttributeError, match="has no attribute 'nothing'"):
        skitgubbe.engine.nothing  # type: ignore[attr-defined]  # noqa: B018


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("skitgubbe.protocol", "skitgubbe.engine.protocol"),
        ("skitgubbe.serve", "skitgubbe.bots.hosting"),
    ],
)
def test_an_old_path_is_the_moved_module_itself(old: str, new: str) -> None:
    assert importlib.import_module(old) is importlib.import_module(new)


def test_the_engine_side_does_not_load_the_referees_process_machinery() -> None:
    code = (
        # What the engine side itself loads (attrs loads subprocess on Python 3.10).
        "import sys, skitgubbe\n"
        "before = set(sys.modules)\n"
        "from skitgubbe.bots import run_engine_spec\n"
        "print(sorted(m for m in ('skitgubbe.engine.player', 'skitgubbe.engine.process', "
        "'skitgubbe.engine.async_player', 'subprocess', 'asyncio') "
        "if m in set(sys.modules) - before))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


@pytest.mark.parametrize(
    ("old", "new"), [("serve", "engine.run_engine"), ("serve_spec", "bots.run_engine_spec")]
)
def test_the_old_entry_points_warn_and_run_the_engine(old: str, new: str) -> None:
    host = importlib.import_module("skitgubbe.bots.hosting")
    package, _, name = new.partition(".")
    function = getattr(importlib.import_module(f"skitgubbe.{package}"), name)
    hello = protocol.encode(protocol.hello("test"))
    argument = sg.bots.GreedyBot if old == "serve" else "greedy"
    options = {"name": "greedy"} if old == "serve" else {}
    new_out, old_out = io.BytesIO(), io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the new name does not warn
        assert function(argument, stdin=io.BytesIO(hello), stdout=new_out, **options) == 0
    with pytest.warns(DeprecationWarning, match=f"deprecated: use skitgubbe.{new}$"):
        assert getattr(host, old)(argument, stdin=io.BytesIO(hello), stdout=old_out, **options) == 0
    assert new_out.getvalue() == old_out.getvalue()
    assert protocol.decode(new_out.getvalue())["type"] == "id"


def test_the_referees_child_and_its_kill_have_public_names() -> None:
    from skitgubbe.engine import EnginePlayer, kill_child

    with EnginePlayer(GREEDY) as engine:
        child = engine.child_pid
        assert child is not None
        if skitgubbe.engine.KEEPER:
            assert child != engine.pid  # the keeper, the engine's parent
        kill_child(child)  # the keeper is told to end the engine: soon, not at once
        deadline = time.monotonic() + 10
        while True:
            try:
                engine.ping()
            except sg.EngineError:
                break  # the player saw its engine end
            if engine.child_pid != child:
                break  # it saw the end and started a fresh engine
            assert time.monotonic() < deadline, "the engine outlived kill_child by 10 s"
            time.sleep(0.05)
    assert engine.child_pid is None


def test_parse_move_is_public_and_shared() -> None:
    assert protocol.parse_move("6H 6S") is protocol.parse_move("6H 6S")
    assert protocol.parse_move("flip") == sg.Move.parse("flip")
