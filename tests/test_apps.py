"""The apps package: its layering, its entry points and the renderer the apps share."""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from importlib import import_module
from pathlib import Path
from typing import Any

import pytest

import skitgubbe as sg
from skitgubbe.game import render

ROOT = Path(__file__).resolve().parent.parent
# The package imported (the installed wheel's, when the release pipeline runs the suite).
PACKAGE = Path(sg.__file__).resolve().parent
APPS = PACKAGE / "apps"


def run_python(code: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_import_skitgubbe_loads_no_app() -> None:
    loaded = run_python(
        "import sys, skitgubbe; print(sorted(m for m in sys.modules if 'apps' in m or m == 'rich'))"
    )
    assert loaded.strip() == "[]"


def test_the_command_line_loads_no_heavy_module_before_a_command_needs_it() -> None:
    """What ``skitgubbe --help`` loads beyond ``import skitgubbe``: no rich, arena, session."""
    out = run_python(
        "import json, sys, skitgubbe; before = set(sys.modules); import skitgubbe.apps.cli; "
        "print(json.dumps(sorted(set(sys.modules) - before)))"
    )
    added = json.loads(out)
    heavy = ("rich", "skitgubbe.arena", "skitgubbe.play.session", "skitgubbe.play.aio", "asyncio")
    assert not [name for name in added if name.split(".")[0] in heavy or name in heavy]
    assert "skitgubbe.apps.cli" in added


def _imported_names(path: Path) -> list[tuple[str, str]]:
    """Every ``from X import name`` of a module, as (X with its dots, name)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            source = "." * node.level + (node.module or "")
            found += [(source, alias.name) for alias in node.names]
    return found


@pytest.mark.parametrize(
    "module", sorted(path.relative_to(APPS).as_posix() for path in APPS.rglob("*.py"))
)
def test_an_app_imports_no_private_name(module: str) -> None:
    private = [
        f"{source}.{name}"
        for source, name in _imported_names(APPS / module)
        # The seed derivation (game_seed) exists only in the binding so far.
        # Dunder names (__version__) are public.
        if name.startswith("_")
        and not name.startswith("__")
        and (source.strip("."), name) != ("", "_core")
    ]
    assert not private


def test_the_command_line_is_a_package_of_one_module_per_command_family() -> None:
    """Each command lives in a module of its own and joins the parser from there; the
    help lists the commands in the order they always had."""
    from skitgubbe.apps import cli

    families = {"demo", "session", "match", "terminal", "analyse", "engine", "serve", "train"}
    modules = {path.stem for path in (APPS / "cli").glob("*.py")}
    assert modules == {"__init__", "__main__", "common", *families}
    parser = cli.build_parser()
    listed = re.findall(r"^    (\w+) ", parser.format_help(), flags=re.M)
    assert listed == [
        *("demo", "simulate", "session", "arena", "sprt", "ladder"),
        *("play", "engine", "replay", "analyse", "serve", "train"),
    ]
    operands = {
        "arena": ["a"],
        "sprt": ["a", "b"],
        "ladder": ["a"],
        "engine": ["a"],
        "replay": ["a"],
        "analyse": ["a", "--seat", "0"],
        "train": ["a"],
    }
    for name in listed:
        handler = parser.parse_args([name, *operands.get(name, [])]).handler
        assert handler.__module__.rpartition(".")[2] in families, name


def test_the_wheel_lists_every_package_of_the_source() -> None:
    """setuptools is given the packages by name: a new one (apps/cli) must be listed."""
    if not (ROOT / "src" / "skitgubbe").is_dir():
        pytest.skip("the wheel tests (.ci/wheels) run without the source tree")
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    listed = re.search(r"^packages = \[(.*)\]$", pyproject, flags=re.M)
    assert listed
    source = ROOT / "src"
    packages = {
        ".".join(path.parent.relative_to(source).parts)
        for path in (source / "skitgubbe").rglob("__init__.py")
    }
    assert set(re.findall(r'"([\w.]+)"', listed[1])) == packages


@pytest.mark.parametrize("command", ["arena", "sprt", "ladder"])
@pytest.mark.parametrize("bad", ["0", "-1", "nan", "inf"])
def test_every_timed_command_refuses_a_bad_move_time_alike(
    command: str, bad: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from skitgubbe.apps.cli import main

    with pytest.raises(SystemExit) as done:
        main([command, "random", "greedy", "--move-time", bad])
    assert done.value.code == 2
    err = capsys.readouterr().err
    assert (
        err
        == "skitgubbe: error: --move-time must be a positive, finite number of seconds or None, "
        f"not {float(bad)}\n"
    )


def test_the_console_script_and_python_dash_m_reach_main() -> None:
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    script = re.search(r'^skitgubbe = "([^"]+)"$', pyproject, flags=re.M)
    assert script
    module, _, name = script[1].partition(":")
    assert getattr(import_module(module), name) is import_module("skitgubbe.apps.cli").main
    main_py = (PACKAGE / "__main__.py").read_text(encoding="utf-8")
    assert "from .apps.cli import main" in main_py
    done = subprocess.run(
        [sys.executable, "-m", "skitgubbe", "--help"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0 and "replay" in done.stdout


# -- the renderer ---------------------------------------------------------------------


def test_narration_tells_each_event_once_with_its_cards_in_colour() -> None:
    draw = sg.Event(sg.EventKind.DRAW, seat=0, cards=sg.CardSet.parse("10H"), count=1)
    play = sg.Event(sg.EventKind.PLAY, seat=1, cards=sg.CardSet.parse("7D 7S"), count=2)
    deal = sg.Event(sg.EventKind.DEAL, seat=0, cards=sg.CardSet.parse("2C"), count=1)
    assert render.narration([deal, draw, play], 0) == [
        "You draw [red]10♥[/]",
        "Seat 1 plays [red]7♦[/] [default]7♠[/]",
    ]
    assert render.narration([deal, draw, play], 1) == [
        "Seat 0 draws 1 card",
        "You play [red]7♦[/] [default]7♠[/]",
    ]
    assert render.narration([draw], None) == ["Seat 0 draws [red]10♥[/]"]


def test_every_kind_narrates_as_its_sentence() -> None:
    """The apps show Event.describe's sentence for every kind: no text of their own."""
    from tests.test_events import SENTENCES

    for kind, (event, _, mine, theirs) in SENTENCES.items():
        lines = render.narration([event], 1) + render.narration([event], 0)
        if kind is sg.EventKind.DEAL:
            assert lines == []
            continue
        plain = [
            line.replace("[red]", "").replace("[default]", "").replace("[/]", "") for line in lines
        ]
        assert plain == [render.capital(mine), render.capital(theirs)]


def test_the_version_is_defined_once_and_shown_by_the_command_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    import importlib.metadata

    import skitgubbe
    from skitgubbe.apps.cli import main

    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out.strip() == f"skitgubbe {skitgubbe.__version__}"
    assert importlib.metadata.version("skitgubbe") == skitgubbe.__version__
    pyproject = (Path(__file__).resolve().parent.parent / "pyproject.toml").read_text("utf-8")
    project = pyproject.split("\n[project]\n")[1].split("\n[")[0]
    assert 'dynamic = ["version"]' in project and "\nversion = " not in project


def test_the_changelog_keeps_its_entries_per_version_and_has_this_one() -> None:
    import skitgubbe

    changelog = (ROOT / "docs" / "changelog.md").read_text(encoding="utf-8")
    headings = re.findall(r"^## (.+)$", changelog, flags=re.M)
    assert headings, "no version heading"
    versions = []
    for heading in headings:
        # "1.2.3 — 2027-01-31", or "— unreleased" for the version in the making.
        match = re.fullmatch(r"(\d+\.\d+\.\d+) — (\d{4}-\d{2}-\d{2}|unreleased)", heading)
        assert match, f"changelog heading {heading!r} is not 'X.Y.Z — date'"
        versions.append(tuple(int(part) for part in match[1].split(".")))
    assert versions == sorted(versions, reverse=True), "newest version first"
    assert len(set(versions)) == len(versions)
    assert headings[0].split(" ")[0] == skitgubbe.__version__
    # Only the newest can be unreleased.
    assert not [heading for heading in headings[1:] if heading.endswith("unreleased")]


def _quiet_console() -> Any:
    import io

    from rich.console import Console

    return Console(file=io.StringIO(), force_terminal=False, width=200, highlight=False)


def test_play_never_saves_over_another_games_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Playing a seed again saves beside the first game's record (skitgubbe-N-2.json), and
    says so at the start; a file written after the start is not overwritten either."""
    from skitgubbe.apps.play import PlaySession

    monkeypatch.chdir(tmp_path)
    first = tmp_path / "skitgubbe-9.json"
    first.write_text('{"the first game": true}\n', encoding="utf-8")
    console = _quiet_console()
    answers = iter(["1", "quit"])
    session = PlaySession.new(
        players=2, seed=9, console=console, input=lambda prompt: next(answers)
    )
    assert session.save_path == Path("skitgubbe-9-2.json")
    assert session.run() == 0
    assert first.read_text(encoding="utf-8") == '{"the first game": true}\n'
    again = json.loads((tmp_path / "skitgubbe-9-2.json").read_text(encoding="utf-8"))
    assert sg.Game.from_record(again).moves == session.game.moves
    text = console.file.getvalue()
    assert "skitgubbe-9.json holds another game already: this one is saved to " in text
    assert "Saved the game to skitgubbe-9-2.json" in text

    # A third game: the file it would have used is written while it is played.
    answers = iter(["1", "quit"])
    console = _quiet_console()
    third = PlaySession.new(players=2, seed=9, console=console, input=lambda p: next(answers))
    assert third.save_path == Path("skitgubbe-9-3.json")
    (tmp_path / "skitgubbe-9-3.json").write_text("{}\n", encoding="utf-8")
    third.run()
    assert (tmp_path / "skitgubbe-9-3.json").read_text(encoding="utf-8") == "{}\n"
    assert (
        sg.Game.from_record(
            json.loads((tmp_path / "skitgubbe-9-4.json").read_text(encoding="utf-8"))
        ).moves
        == third.game.moves
    )
    assert "skitgubbe-9-3.json holds another game: saving to skitgubbe-9-4.json" in (
        console.file.getvalue()
    )


def test_a_save_path_given_is_written_as_asked(tmp_path: Path) -> None:
    from skitgubbe.apps.play import PlaySession

    path = tmp_path / "mine.json"
    path.write_text("{}\n", encoding="utf-8")
    answers = iter(["1", "quit"])
    session = PlaySession.new(
        players=2,
        seed=9,
        console=_quiet_console(),
        input=lambda p: next(answers),
        save_path=path,
    )
    session.run()
    saved = json.loads(path.read_text(encoding="utf-8"))
    assert saved["names"] == ["person", "greedy"]
    assert sg.Game.from_record(saved).moves == session.game.moves


def test_the_event_sentences_use_no_his_or_he() -> None:
    """Every event kind's sentence, about another seat, in neutral words ("tries their
    luck", not "tries his luck")."""
    from skitgubbe.game.events import _TEXTS

    cards = sg.CardSet.parse("KS")
    for kind in sg.EventKind:
        event = sg.Event(kind, seat=1, cards=cards, count=1, seats=(1, 2), other=2)
        text = event.describe(viewer=0)
        assert _TEXTS[kind] and not re.search(r"\b(his|he|him|himself)\b", text), text
    flip = sg.Event(sg.EventKind.FLIP, seat=1, cards=cards, count=1)
    assert flip.describe(viewer=0) == "seat 1 tries their luck and turns up K♠"
