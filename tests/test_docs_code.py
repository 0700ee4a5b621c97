"""The Python code of the documentation site runs, and prints what the pages show.

The Python blocks of each page run in order in one namespace, as a reader would type them
into one session, in a fresh working directory. A block fenced as ```` ```text title="Output" ````
right after a Python block is what that block prints, and is compared exactly.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import pkgutil
import re
from pathlib import Path

import pytest

import skitgubbe as sg
from skitgubbe.bots import registry

DOCS = Path(__file__).resolve().parent.parent / "docs"
PAGES = (
    "index.md",
    "getting-started.md",
    "rules.md",
    "tutorial.md",
    "embedding.md",
    "learning.md",
    "openspiel.md",
    "server.md",
)

_FENCE = re.compile(r"^```(?P<info>[^\n]*)\n(?P<body>.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)


def fenced_blocks(page: str) -> list[tuple[str, str, int]]:
    """Every top-level fenced block of a page: its info string, its text and its line."""
    text = (DOCS / page).read_text(encoding="utf-8")
    return [
        (m["info"].strip(), m["body"], text.count("\n", 0, m.start()) + 1)
        for m in _FENCE.finditer(text)
    ]


def python_blocks(page: str) -> list[tuple[str, str | None, int]]:
    """The Python blocks of a page, each with its expected output (or None) and its line."""
    blocks = fenced_blocks(page)
    found: list[tuple[str, str | None, int]] = []
    for i, (info, body, line) in enumerate(blocks):
        if info.split(" ", 1)[0] != "python":
            continue
        expected = None
        if i + 1 < len(blocks) and 'title="Output"' in blocks[i + 1][0]:
            expected = blocks[i + 1][1]
        found.append((body, expected, line))
    return found


@pytest.mark.parametrize("page", PAGES)
def test_page_has_python_code(page: str) -> None:
    assert python_blocks(page), f"docs/{page} has no Python block"


def test_every_output_block_follows_python_code() -> None:
    for page in PAGES:
        blocks = fenced_blocks(page)
        for i, (info, _, line) in enumerate(blocks):
            if 'title="Output"' in info:
                assert i and blocks[i - 1][0].startswith("python"), f"docs/{page}:{line}"


@pytest.mark.slow
@pytest.mark.parametrize("page", PAGES)
def test_python_blocks_run_and_print_what_the_page_shows(
    page: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # files the pages save land here
    # Bots the pages register are forgotten afterwards.
    monkeypatch.setattr(registry, "_FACTORIES", dict(registry._FACTORIES))
    namespace: dict[str, object] = {"__name__": "__docs__"}
    for body, expected, line in python_blocks(page):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(body, f"docs/{page}:{line}", "exec"), namespace)
        if expected is not None:
            assert out.getvalue().rstrip("\n") == expected.rstrip("\n"), f"docs/{page}:{line}"


def test_the_front_page_has_the_two_setup_commands() -> None:
    text = (DOCS / "index.md").read_text(encoding="utf-8")
    assert "pip install . && skitgubbe demo" in text
    assert 'pip install ".[test]" && python -m pytest' in text


def test_the_api_reference_covers_every_public_module() -> None:
    documented = {
        line.removeprefix("::: ").strip()
        for page in (DOCS / "api").glob("*.md")
        for line in page.read_text(encoding="utf-8").splitlines()
        if line.startswith("::: ")
    }
    # The command line is documented by its --help and the guides, not as an API; an old
    # path kept as an alias (skitgubbe.sprt IS skitgubbe.arena.sprt) is documented where
    # the module now lives.
    public = {
        f"skitgubbe.{info.name}"
        for info in pkgutil.iter_modules(sg.__path__)
        if not info.name.startswith("_")
        and info.name != "cli"
        and importlib.import_module(f"skitgubbe.{info.name}").__name__ == f"skitgubbe.{info.name}"
    }
    public |= {
        f"skitgubbe.arena.{info.name}"
        for info in pkgutil.iter_modules(sg.arena.__path__)
        if not info.name.startswith("_")
    }
    missing = sorted(public - documented)
    assert not missing, f"add docs/api/NAME.md with '::: MODULE' and a nav line for {missing}"
