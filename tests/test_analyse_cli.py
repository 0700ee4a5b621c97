"""The analysis in the terminal: ``skitgubbe analyse``, ``skitgubbe replay --analyse`` and
the ``hint`` command of ``skitgubbe play``.

Every run here uses a small budget on a short two-player game, so the file stays fast; the
figures are checked against :mod:`skitgubbe.analysis` itself, which the commands only show.
"""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

import skitgubbe as sg
import skitgubbe.analysis
from skitgubbe._progress import ProgressBar
from skitgubbe.analysis import DEFAULT_ENGINE, analyse, analyse_position
from skitgubbe.apps import play as play_module
from skitgubbe.apps.cli import main
from skitgubbe.apps.play import HINT_ENGINE, PlaySession
from skitgubbe.apps.replay import Replay
from skitgubbe.errors import ArgumentError

ENGINE = "ismcts:iterations=200"
RULES = sg.Rules.classic(players=2)


def played(seed: int = 4) -> sg.Game:
    """A finished two-player game between greedy bots (about 100 moves)."""
    game = sg.Game.new(RULES, seed=seed)
    bots = [sg.bots.make("greedy", seed=seat) for seat in range(2)]
    while (seat := game.to_move) is not None:
        game.play(bots[seat].choose(game.observation(seat)))
    return game


@pytest.fixture(scope="module")
def game() -> sg.Game:
    return played()


@pytest.fixture
def path(game: sg.Game, tmp_path: Path) -> Path:
    file = tmp_path / "game.json"
    file.write_text(json.dumps(game.record(), ensure_ascii=False), encoding="utf-8")
    return file


@pytest.fixture(scope="module")
def library(game: sg.Game) -> sg.analysis.GameAnalysis:
    """Seat 0's review straight from the library, as the commands are expected to show it."""
    return analyse(game.record(), 0, engine=ENGINE, seed=0)


def untimed(data: Any) -> Any:
    """JSON data without its timing fields (``seconds``), which differ from run to run."""
    if isinstance(data, dict):
        return {key: untimed(value) for key, value in data.items() if key != "seconds"}
    if isinstance(data, list):
        return [untimed(value) for value in data]
    return data


def untimed_text(text: str) -> str:
    return re.sub(r" in \d+\.\d s;", " in … s;", text)


# -- skitgubbe analyse -----------------------------------------------------------------------


def test_the_command_prints_the_annotated_game(
    path: Path, library: sg.analysis.GameAnalysis, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["analyse", str(path), "--seat", "0", "--engine", ENGINE]) == 0
    out, err = capsys.readouterr()
    first, *rest = out.splitlines()
    assert first == (
        f"Analysis of {path}: classic, 2 players, seed 4, {library.reviews[-1].index + 1} "
        f"moves; seat 0, by {ENGINE}, analysis seed 0"
    )
    assert untimed_text("\n".join(rest)) == untimed_text(library.text())
    assert len(library.choices) > 20 and "seat 0, analysed by" in out
    assert err == ""  # stderr is no terminal here: no progress bar


def test_the_json_is_the_librarys_analysis(
    path: Path, library: sg.analysis.GameAnalysis, tmp_path: Path
) -> None:
    out = tmp_path / "analysis.json"
    assert main(["analyse", str(path), "--seat", "0", "--engine", ENGINE, "--json", str(out)]) == 0
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["format"] == "skitgubbe-analysis" and data["seat"] == 0
    assert data["engine"] == ENGINE
    assert untimed(data) == untimed(json.loads(library.to_json()))
    assert [review["label"] for review in data["reviews"]] == [r.label for r in library.reviews]


def test_the_plot_is_the_evaluation_graph_as_svg(
    path: Path,
    library: sg.analysis.GameAnalysis,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    picture = tmp_path / "graph.svg"
    assert (
        main(["analyse", str(path), "--seat", "0", "--engine", ENGINE, "--plot", str(picture)]) == 0
    )
    assert f"Saved {picture}." in capsys.readouterr().out
    root = ET.fromstring(picture.read_text(encoding="utf-8"))
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    dots = root.findall("{http://www.w3.org/2000/svg}circle")
    assert len(dots) == len(library.choices)  # one dot per move that had an alternative
    assert picture.read_text(encoding="utf-8").strip() == library.svg()


def test_two_jobs_give_the_same_analysis_as_one(path: Path, tmp_path: Path) -> None:
    results = []
    for jobs in ("1", "2"):
        out = tmp_path / f"jobs-{jobs}.json"
        command = ["analyse", str(path), "--seat", "1", "--engine", ENGINE, "--jobs", jobs]
        assert main([*command, "--json", str(out)]) == 0
        results.append(json.loads(out.read_text(encoding="utf-8")))
    assert results[0]["reviews"] and untimed(results[0]) == untimed(results[1])


def test_the_progress_bar_goes_to_stderr_when_asked(
    path: Path, library: sg.analysis.GameAnalysis, capsys: pytest.CaptureFixture[str]
) -> None:
    command = ["analyse", str(path), "--seat", "0", "--engine", ENGINE]
    assert main([*command, "--progress"]) == 0
    err = capsys.readouterr().err
    total = len(library.choices)
    assert err.startswith("\ranalysing seat 0 [") and err.endswith("\n")
    assert err.split("\r")[-1].startswith(
        f"analysing seat 0 [{'#' * 30}] {total}/{total} decisions"
    )
    assert err.count("\n") == 1
    for quiet in ("--quiet", "--no-progress"):
        assert main([*command, quiet]) == 0
        assert capsys.readouterr().err == ""


def test_the_progress_bar_redraws_at_most_twice_a_second() -> None:
    out = io.StringIO()
    bar = ProgressBar("analysing seat 1", out, width=4, unit="decisions")
    for done in range(0, 11):
        bar(done, 10)
    drawn = out.getvalue().split("\r")[1:]
    assert len(drawn) == 2  # the first call, and the last, which ends the line
    assert drawn[-1].startswith("analysing seat 1 [####] 10/10 decisions")
    assert out.getvalue().endswith("\n")


def test_a_game_of_a_session_record(tmp_path: Path) -> None:
    session = sg.Session([sg.bots.GreedyBot(), sg.bots.GreedyBot()], seed=3)
    session.play(2)
    record = session.record()
    file = tmp_path / "session.json"
    file.write_text(json.dumps(record), encoding="utf-8")
    out = tmp_path / "second.json"
    command = ["analyse", str(file), "--seat", "1", "--engine", ENGINE, "--game", "2"]
    assert main([*command, "--json", str(out)]) == 0
    expected = analyse(record["games"][1], 1, engine=ENGINE)
    assert untimed(json.loads(out.read_text(encoding="utf-8"))) == untimed(expected.to_dict())


def _bad_files(game: sg.Game, folder: Path) -> dict[str, tuple[Path, str]]:
    tampered = game.record()
    tampered["moves"][3] = "pick"
    session = sg.Session([sg.bots.RandomBot(seed=1), sg.bots.RandomBot(seed=2)], seed=1)
    session.play(2)
    contents = {
        "garbage": ("{ not json", "is not a JSON game record"),
        "list": ("[1, 2]", "holds list, not a game record"),
        "tampered": (json.dumps(tampered), "move 3"),
        "other-format": (json.dumps({"format": "skitgubbe-match"}), "not a game record"),
        "session": (json.dumps(session.record()), "choose one with --game 1..2"),
    }
    files = {"missing": (folder / "missing.json", "cannot read")}
    for name, (content, message) in contents.items():
        file = folder / f"{name}.json"
        file.write_text(content, encoding="utf-8")
        files[name] = (file, message)
    return files


def _long_move(record: dict[str, Any]) -> None:
    record["moves"][3] = "7H" * 500


def _long_deck(record: dict[str, Any]) -> None:
    record["start"]["deck"] = record["start"]["deck"] * 10_000  # 520,000 cards


def _long_deck_with_a_long_card(record: dict[str, Any]) -> None:
    record["start"]["deck"] = record["start"]["deck"] * 10_000 + ["X" * 1000]


def _long_unknown_rules_field(record: dict[str, Any]) -> None:
    record["rules"]["K" * 1000] = 1


@pytest.mark.parametrize(
    ("damage", "field", "length"),
    [
        (_long_move, "move 3", "(1000 characters)"),
        (_long_deck, "('deck')", "got 520000 cards"),
        (_long_deck_with_a_long_card, "('deck')", "(1000 characters)"),
        (_long_unknown_rules_field, "unknown Rules field", "(1000 characters)"),
    ],
)
def test_long_values_in_a_record_are_cut_in_its_one_line_error(
    game: sg.Game,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    damage: Callable[[dict[str, Any]], None],
    field: str,
    length: str,
) -> None:
    record = game.record()
    damage(record)
    file = tmp_path / "long.json"
    file.write_text(json.dumps(record), encoding="utf-8")
    with pytest.raises(SystemExit) as done:
        main(["analyse", str(file), "--seat", "0", "--engine", ENGINE])
    assert done.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("skitgubbe: error: ") and err.count("\n") == 1, err
    assert len(err) < 300, err
    assert field in err and length in err, err


SEARCH_BOT = "needs a search bot (ismcts, pimc, or the levels hard and expert)"
BAD_OPTIONS = [
    (["--seat", "2"], "--seat must be 0..1, not 2"),
    (["--seat", "-1"], "--seat must be 0..1, not -1"),
    (
        ["--seat", "0", "--engine", "greedy"],
        "needs a search bot (ismcts, pimc, or the levels hard and expert), not 'greedy'",
    ),
    (
        ["--seat", "0", "--engine", "nonsense"],
        "needs a search bot (ismcts, pimc, or the levels hard and expert), not 'nonsense'",
    ),
    (["--seat", "0", "--engine", "cmd:./mybot"], f"{SEARCH_BOT}, not 'cmd:./mybot'"),
    (["--seat", "0", "--engine", "ismcts:iterations=x"], "iterations must be an int"),
    (["--seat", "0", "--jobs", "0"], "--jobs must be at least 1, not 0"),
    (["--seat", "0", "--game", "1"], "--game picks a game of a session record"),
    (["--seat", "0", "--json", "no/such/folder/a.json"], "cannot write no/such/folder/a.json"),
]


def test_bad_files_are_one_line_errors(
    game: sg.Game, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for name, (file, message) in _bad_files(game, tmp_path).items():
        with pytest.raises(SystemExit) as done:
            main(["analyse", str(file), "--seat", "0", "--engine", ENGINE])
        assert done.value.code == 2, name
        out, err = capsys.readouterr()
        assert out == "", name
        assert err.startswith("skitgubbe: error: ") and err.count("\n") == 1, (name, err)
        assert message in err, (name, err)


@pytest.mark.parametrize(("options", "message"), BAD_OPTIONS)
def test_bad_options_are_one_line_errors_before_any_work(
    options: list[str],
    message: str,
    path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def no_work(*args: object, **kwargs: object) -> None:
        raise AssertionError("the analysis started before the options were checked")

    monkeypatch.setattr(skitgubbe.analysis, "analyse", no_work)
    with pytest.raises(SystemExit) as done:
        main(["analyse", str(path), *options])
    assert done.value.code == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("skitgubbe: error: ") and err.count("\n") == 1, err
    assert message in err, err


def test_the_help_names_the_librarys_default_engine_without_loading_the_analysis(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as done:
        main(["analyse", "--help"])
    assert done.value.code == 0
    assert f"(default '{DEFAULT_ENGINE}';" in " ".join(capsys.readouterr().out.split())
    # Every command builds the parser (`skitgubbe engine` once per engine process): building
    # it leaves the analysis and its process pools unloaded.
    loaded = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from skitgubbe.apps.cli import build_parser; build_parser(); "
            "print('skitgubbe.analysis' in sys.modules)",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert loaded.stdout.strip() == "False"


def test_the_seat_is_required(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["analyse", str(path)])
    assert done.value.code == 2
    assert "the following arguments are required: --seat" in capsys.readouterr().err


# -- skitgubbe replay --analyse ---------------------------------------------------------------


def _chunks(out: str) -> dict[int, str]:
    """The ``--all`` output by move number (the lines from one numbered line to the next)."""
    chunks: dict[int, str] = {}
    number = 0
    for line in out.splitlines():
        found = re.match(r"\s*(\d+)\. ", line)
        if found:
            number = int(found.group(1))
        chunks[number] = chunks.get(number, "") + line + "\n"
    return chunks


@pytest.mark.parametrize(("seat", "options"), [(1, ["--seat", "1"]), (0, [])])
def test_replay_shows_each_analysed_move_under_it(
    seat: int,
    options: list[str],
    game: sg.Game,
    path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["replay", str(path), *options, "--analyse", "--engine", ENGINE, "--all"]) == 0
    out = capsys.readouterr().out
    expected = analyse(game.record(), seat, engine=ENGINE)
    assert f"Seat {seat}'s moves are analysed by {ENGINE}" in out
    chunks = _chunks(out)
    reviewed = {review.index + 1: review for review in expected.reviews}
    for number in range(1, game.moves_played + 1):
        review = reviewed.get(number)
        chunk = chunks[number]
        if review is None:
            assert "Analysis:" not in chunk, number
        elif review.label == "forced":
            assert "Analysis: forced" in chunk, number
        else:
            assert review.played is not None
            assert f"Analysis: {review.label}" in chunk, (number, chunk)
            assert f"loss {100 * review.played.loss:.1f} %" in chunk, (number, chunk)
            assert "Candidates:" in chunk and "(played)" in chunk, (number, chunk)
    assert f"accuracy {expected.accuracy:.0f} % over {len(expected.choices)} choices" in out
    worst = expected.costliest(1)
    if worst:
        assert f"costly: move {worst[0].index + 1}, " in out  # numbered as the replay numbers


def test_stepping_shows_the_analysis_of_the_move_just_made(game: sg.Game) -> None:
    replay = Replay(game.record(), seat=0)
    analysis = analyse(game, 0, engine=ENGINE)
    replay.annotate(analysis)
    assert replay.analysis is analysis
    first = next(r for r in analysis.reviews if r.label != "forced")
    keys = iter([str(first.index + 1), str(first.index), "q"])
    console = Console(file=io.StringIO(), force_terminal=False, width=200, highlight=False)
    assert replay.step(console, lambda prompt: next(keys)) == 0
    out = console.file.getvalue()  # type: ignore[attr-defined]
    frames = re.split(r"^─+ (?:Move \d+ of \d+ · \w+|The deal[^─]*) ─+$", out, flags=re.M)
    assert f"Analysis: {first.label}" in frames[2]  # the frame after the seat's move
    assert "Analysis:" not in frames[3]  # the frame before it
    replay.annotate(None)
    assert replay.analysis is None


def test_replay_refuses_an_analysis_of_another_game(game: sg.Game) -> None:
    other = played(seed=5)
    with pytest.raises(ArgumentError, match="the analysis is of another game"):
        Replay(game.record()).annotate(analyse(other, 0, engine="pimc:worlds=2"))


def test_replay_analysis_options_need_analyse(
    path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as done:
        main(["replay", str(path), "--engine", ENGINE, "--all"])
    assert done.value.code == 2
    assert capsys.readouterr().err == (
        "skitgubbe: error: --engine, --seed, --jobs and --progress go with --analyse\n"
    )
    with pytest.raises(SystemExit):
        main(["replay", str(path), "--analyse", "--seat", "0", "--engine", "greedy", "--all"])
    assert "needs a search bot" in capsys.readouterr().err


# -- the hint command of skitgubbe play ------------------------------------------------------


HINT_ROW = re.compile(
    r"^\s+(\d+)\) (.+?)\s+(\d+\.\d) % ± (\d+\.\d)\s+(\d+) simulations(\s+best)?\s*$", re.M
)


def _hint_session(answers: list[str], **options: Any) -> tuple[PlaySession, Console, list[bytes]]:
    console = Console(file=io.StringIO(), force_terminal=False, width=120, highlight=False)
    snapshots: list[bytes] = []
    given = iter(answers)

    def answer(prompt: str) -> str:
        snapshots.append(session.game._core.snapshot())
        try:
            return next(given)
        except StopIteration:
            raise EOFError from None

    session = PlaySession.new(
        players=2, seed=9, console=console, input=answer, autosave=False, **options
    )
    return session, console, snapshots


def test_hint_lists_every_move_with_its_loss_probability() -> None:
    session, console, snapshots = _hint_session(["hint", "quit"])
    assert session.run() == 0
    out = console.file.getvalue()  # type: ignore[attr-defined]
    legal = session.game.legal_moves
    rows = HINT_ROW.findall(out)
    assert sorted(int(row[0]) for row in rows) == list(range(1, len(legal) + 1))
    for number, text, loss, error, visits, _ in rows:
        assert text.split(" (")[0] == str(legal[int(number) - 1])
        assert 0 < float(loss) < 100 and 0 < float(error) < 50 and int(visits) >= 0
    losses = [float(row[2]) for row in rows]
    assert losses == sorted(losses)  # lowest loss first
    best = [row for row in rows if row[5]]
    assert len(best) == 1
    assert f"Hint: ismcts would play {best[0][0]}) " in out
    budget = HINT_ENGINE.split("iterations=")[1]
    assert HINT_ENGINE == DEFAULT_ENGINE  # one engine for the hint and the analysis
    assert f"({budget} simulations, " in out  # the default budget, HINT_ENGINE
    assert snapshots[0] == snapshots[1]  # a hint changes nothing


def test_hint_asks_the_analysis_about_the_persons_observation_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen: list[tuple[object, object]] = []

    def spy(observation: object, engine: object = None, seed: int = 0) -> Any:
        seen.append((observation, engine))
        return analyse_position(observation, "ismcts:iterations=50", seed)  # type: ignore[arg-type]

    monkeypatch.setattr(play_module, "analyse_position", spy)
    session, _, _ = _hint_session(["hint", "quit"], seat=1)
    session.run()
    assert len(seen) == 1
    observation, engine = seen[0]
    assert isinstance(observation, sg.Observation) and observation.seat == 1
    assert engine == HINT_ENGINE


def test_the_help_lists_hint_and_another_player_still_names_its_move() -> None:
    session, console, _ = _hint_session(["help", "quit"])
    session.run()
    out = console.file.getvalue()  # type: ignore[attr-defined]
    assert re.search(
        r"^  hint\s+your moves with each one's chance of ending as the skitgubbe", out, re.M
    )
    game = sg.Game.new(RULES, seed=9)
    screen = Console(file=io.StringIO(), force_terminal=False, width=100)
    answers = iter(["hint", "quit"])
    plain = PlaySession(
        game,
        [None, sg.bots.GreedyBot()],
        seat=0,
        console=screen,
        input=lambda prompt: next(answers),
        hint=sg.bots.GreedyBot(),
        autosave=False,
    )
    plain.run()
    text = screen.file.getvalue()  # type: ignore[attr-defined]
    assert "Hint: greedy would play" in text and "simulations" not in text
    with pytest.raises(ArgumentError, match="needs a search bot"):
        PlaySession(game, [None, sg.bots.GreedyBot()], seat=0, hint="greedy", autosave=False)
