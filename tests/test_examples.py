"""The README's code and the scripts in examples/ run as shown."""

from __future__ import annotations

import http.client
import importlib.util
import json
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

import skitgubbe as sg

ROOT = Path(__file__).resolve().parent.parent


def readme_blocks() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return re.findall(r"```python\n(.*?)```", text, flags=re.DOTALL)


def test_readme_has_the_two_setup_commands() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "pip install . && skitgubbe demo" in text
    assert 'pip install ".[test]" && python -m pytest' in text


@pytest.mark.parametrize("index", range(3))
def test_readme_python_blocks_run(index: int, capsys: pytest.CaptureFixture[str]) -> None:
    blocks = readme_blocks()
    assert len(blocks) == 3
    exec(compile(blocks[index], f"README block {index}", "exec"), {"__name__": "readme"})
    out = capsys.readouterr().out
    assert out.strip()  # each block prints what it promises


def run_example(*args: str) -> str:
    result = subprocess.run(
        [sys.executable, *args], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_custom_bot_example() -> None:
    out = run_example("examples/custom_bot.py", "30")
    assert re.search(r"LowCardBot was the skitgubbe in \d+ of 30 games", out)


def test_solve_endgame_example_finds_the_mistakes() -> None:
    out = run_example("examples/solve_endgame.py", "6")  # a game with a proved mistake
    assert re.match(r"game 6: seat \d was the skitgubbe after \d+ moves\n", out)
    assert re.search(r"seat \d plays \S+: loss  <- a mistake: \S+ kept a win\n", out)


def test_embed_game_example_saves_a_record_that_replays(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    out = run_example("examples/embed_game.py", str(path))
    assert "the record replays to the same result" in out
    game = sg.Game.from_record(json.loads(path.read_text(encoding="utf-8")))
    assert game.result is not None and game.result.moves_played == game.moves_played


@pytest.mark.slow
def test_tournament_example() -> None:
    out = run_example("examples/tournament.py", "10")
    assert out.startswith("10 deal sets, 60 games")
    assert {"lowcard", "highcard", "greedy"} <= set(re.findall(r"^  (\w+) ", out, flags=re.M))


def test_async_server_example_serves_a_game_over_local_http() -> None:
    server = subprocess.Popen(
        [sys.executable, "examples/async_server.py", "--port", "0", "--seed", "5", "--quiet"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        first = server.stdout.readline()
        found = re.search(r"http://127\.0\.0\.1:(\d+)/", first)
        assert found, first
        port = int(found[1])

        def call(method: str, path: str, body: str | None = None) -> tuple[int, Any]:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            try:
                connection.request(method, path, body=None if body is None else body.encode())
                response = connection.getresponse()
                return response.status, json.loads(response.read())
            finally:
                connection.close()

        deadline = time.monotonic() + 15
        status, state = call("GET", "/state")
        while not state["over"]:
            assert status == 200 and time.monotonic() < deadline, state
            if state["your_turn"]:
                status, state = call("POST", "/move", state["legal_moves"][0])
            else:
                time.sleep(0.01)
                status, state = call("GET", "/state")
        out, err = server.communicate(timeout=10)
        assert server.returncode == 0, err
        assert re.search(r"^game over: .* the skitgubbe$", out, flags=re.M), out
        assert state["result"]["moves"] == state["moves_played"]
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()


@pytest.mark.parametrize(
    ("sees", "name"), [("all", "sees every card"), ("hands1", "sees every hand in phase 1")]
)
def test_inference_ceiling_example_plays_the_cheater_against_plain_searches(
    tmp_path: Path, sees: str, name: str
) -> None:
    path = tmp_path / "ceiling.json"
    out = run_example(
        "examples/inference_ceiling.py", "--sees", sees,
        "--deals", "1", "--players", "2", "--spec", "ismcts:iterations=30", "--out", str(path),
    )  # fmt: skip
    assert "1 deal set x 2 seat arrangements = 2 games" in out
    result = sg.arena.MatchResult.load_json(str(path))
    assert result.entrants == (f"ismcts:iterations=30 ({name})", "ismcts:iterations=30")
    assert [stats.games for stats in result.stats] == [2, 2]


def test_the_hands_view_names_every_hand_and_hides_the_stock() -> None:
    spec = importlib.util.spec_from_file_location(
        "inference_ceiling", ROOT / "examples" / "inference_ceiling.py"
    )
    assert spec is not None and spec.loader is not None
    ceiling = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ceiling)
    game = sg.Game.new(sg.Rules.classic(players=3), seed=5)
    for _ in range(12):
        game.play(game.legal_moves[0])
    whole = game._core.snapshot()
    view = ceiling.hands_view(game.observation(0).core_view, whole)
    assert sg._core.view_check(view) == 0
    world = sg._core.sample_world(view, 1)
    assert world.hands == game._core.hands
    stocks = {sg._core.sample_world(view, seed).stock() for seed in range(8)}
    assert len(stocks) > 1  # the stock's order is still dealt at random


def test_replay_game_example_replays_from_seat_1(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    out = run_example("examples/replay_game.py", str(path))
    assert "as seat 1 saw it" in out and "the replay reproduces the game" in out
    game = sg.Game.from_record(json.loads(path.read_text(encoding="utf-8")))
    assert f"{game.moves_played} moves" in out


@pytest.mark.slow
def test_learning_example_trains_plots_and_plays_in_the_arena(tmp_path: Path) -> None:
    png = tmp_path / "curve.png"
    out = run_example(
        "examples/learn_vector.py",
        "--minutes",
        "0.05",
        "--games",
        "16",
        "--deals",
        "3",
        "--png",
        str(png),
    )
    assert re.search(r"trained \d+ updates", out)
    assert png.read_bytes().startswith(b"\x89PNG")
    assert re.search(r"vs random: skitgubbe in \d+ of 9 games", out)
    assert re.search(r"vs greedy: skitgubbe in \d+ of 9 games", out)


@pytest.mark.slow
def test_the_search_imitation_example_trains_and_plays_greedy(tmp_path: Path) -> None:
    pytest.importorskip("torch", reason="the training extra: pip install 'skitgubbe[train]'")
    out = run_example(
        "examples/learn_from_search.py",
        *("--folder", str(tmp_path / "run"), "--games", "2", "--iterations", "20"),
        *("--epochs", "1", "--deals", "2", "--jobs", "1"),
    )
    assert re.search(r"the network was the skitgubbe in \d+ of 6 games", out)
    assert (tmp_path / "run" / "net-0.sgnet").exists()


@pytest.mark.slow
def test_calibration_example_prints_its_tables(tmp_path: Path) -> None:
    out_file = tmp_path / "calibration.json"
    out = run_example(
        "examples/calibrate_analysis.py", "--games", "4", "--engine", "ismcts:iterations=200",
        "--players", "greedy", "--out", str(out_file),
    )  # fmt: skip
    assert "every move played (drawn at random)" in out and "Brier score" in out
    data = json.loads(out_file.read_text(encoding="utf-8"))
    samples = data["samples"]
    assert samples and all(0.0 <= p <= 1.0 for p, _, _ in samples)
    assert sum(row["count"] for row in data["all"]) == len(samples)
