"""Shared fixtures of the benchmark suite and its summary of figures and ratios.

Run with ``PYTHONPATH=src python -m pytest benchmarks`` (see README.md). The
plain ``pytest`` run collects only ``tests/``.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import pytest
from support import CORE_DIR, Figures, TightLoop, find_c_compiler, mid_game

import skitgubbe as sg

_FIGURES = pytest.StashKey[Figures]()


def pytest_configure(config: pytest.Config) -> None:
    config.stash[_FIGURES] = Figures()


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_sessionfinish(session: pytest.Session) -> Generator[None, None, None]:
    # Before pytest-benchmark saves --benchmark-json, so the ratios are in it.
    figures = session.config.stash.get(_FIGURES, None)
    if figures is not None:
        figures.compute_ratios()
    return (yield)


@pytest.hookimpl(trylast=True)  # after pytest-benchmark's tables
def pytest_terminal_summary(
    terminalreporter: pytest.TerminalReporter, config: pytest.Config
) -> None:
    figures = config.stash.get(_FIGURES, None)
    lines = figures.table() if figures is not None else []
    if not lines:  # nothing was timed (e.g. --benchmark-disable)
        return
    terminalreporter.write_sep("-", "skitgubbe figures (fastest round; targets are not asserted)")
    for line in lines:
        terminalreporter.write_line(line)


@pytest.fixture(scope="session")
def figures(request: pytest.FixtureRequest) -> Figures:
    """The figures of this run: benchmarks add theirs, the summary prints them."""
    return request.config.stash[_FIGURES]


@pytest.fixture
def game() -> sg.Game:
    """A classic 3-player game in the middle of phase 1, the same every time."""
    position = mid_game(3)
    assert position.result is None
    return position


@pytest.fixture(scope="session")
def tight_loop(tmp_path_factory: pytest.TempPathFactory) -> TightLoop:
    """benchmarks/c/tight_loop.c compiled with the system C compiler."""
    compiler = find_c_compiler()
    if compiler is None:
        pytest.skip("no C compiler found ($CC, cc, gcc or clang): no tight C loop to compare with")
    if not any(CORE_DIR.glob("*.c")):
        pytest.skip(f"the C core's sources are not in {CORE_DIR}: no tight C loop to compare with")
    return TightLoop.build(compiler, tmp_path_factory.mktemp("tight_loop"))


@pytest.fixture(scope="session")
def openspiel() -> Any:
    """The pyspiel module (OpenSpiel's Python API)."""
    return pytest.importorskip(
        "pyspiel", reason="OpenSpiel is not installed (pip install open_spiel): no comparison"
    )
