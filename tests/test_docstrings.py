"""Every example in the package's docstrings runs and shows what it says."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import skitgubbe

MODULES = sorted(
    name
    for _, name, _ in pkgutil.walk_packages(skitgubbe.__path__, "skitgubbe.")
    if name not in ("skitgubbe.__main__", "skitgubbe._core")
)


def test_every_module_is_found() -> None:
    assert {"skitgubbe.game.state", "skitgubbe.game.cards", "skitgubbe.bots.random"} <= set(MODULES)


@pytest.mark.parametrize("name", ["skitgubbe", *MODULES])
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS, verbose=False)
    assert result.failed == 0, f"{result.failed} docstring examples failed in {name}"


@pytest.mark.parametrize("name", ["skitgubbe", *MODULES])
def test_every_public_name_is_documented_with_an_example(name: str) -> None:
    module = importlib.import_module(name)
    for attr in getattr(module, "__all__", ()):
        obj = getattr(module, attr)
        if not callable(obj) or getattr(obj, "__module__", name) != name:
            continue
        doc = getattr(obj, "__doc__", None) or ""
        assert ">>>" in doc, f"{name}.{attr} has no docstring example"


@pytest.mark.parametrize("member", ["to_move", "legal_actions", "play_action"])
def test_game_members_in_the_engine_run_their_examples(member: str) -> None:
    """Game's hot members live in the compiled engine (GameCore), which testmod does
    not search: their examples run here."""
    from skitgubbe import _core

    obj = _core.GameCore.__dict__[member]
    assert ">>>" in (obj.__doc__ or "")
    assert getattr(skitgubbe.Game, member) is obj  # Game does not hide them
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    tests = finder.find(obj, f"Game.{member}", module=False, globs={})
    assert tests
    for test in tests:
        runner.run(test)
    results = runner.summarize(verbose=False)
    assert results.attempted > 0
    assert results.failed == 0
