"""`skitgubbe train` end to end at a smoke size (PyTorch from the train extra): self-play,
training, the weight file, the arena evaluation, the log, and resuming."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import skitgubbe as sg
from skitgubbe.bots.net import Network
from skitgubbe.errors import ArgumentError
from skitgubbe.learn.selfplay import Samples, play_games

pytest.importorskip("torch", reason="the training extra: pip install 'skitgubbe[train]'")

from skitgubbe.learn.train import TrainConfig, train

SMOKE = TrainConfig(
    generations=2, games=3, iterations=40, net_iterations=40, epochs=2, batch=32,
    hidden1=32, hidden2=16, action=8, world1=16, world2=8,
    rules=("classic:2", "classic:3"), eval_deals=3, jobs=1,
)  # fmt: skip


def test_samples_hold_what_the_mover_knew_and_how_it_ended() -> None:
    data = play_games([sg.Rules.classic(3)], games=2, seed=5, iterations=30)
    assert data.size == len(data.move_start) - 1 == len(data.values)
    shares = [
        data.policy[a:b].sum()
        for a, b in zip(data.move_start[:-1], data.move_start[1:], strict=True)
    ]
    assert max(abs(s - 1) for s in shares) < 1e-5
    # Each game has one skitgubbe: in every sample exactly one of the three seats is 0.
    assert ((data.values[:, :3] == 0).sum(1) == 1).all()
    assert (data.value_mask[:, 3] == 0).all()
    again = play_games([sg.Rules.classic(3)], games=2, seed=5, iterations=30)
    assert (again.features == data.features).all() and (again.policy == data.policy).all()


def test_samples_round_trip_through_a_file(tmp_path: Path) -> None:
    data = play_games([sg.Rules.modern(4)], games=1, seed=2, iterations=20)
    data.save(str(tmp_path / "s.npz"))
    back = Samples.load(str(tmp_path / "s.npz"))
    joined = Samples.join([back, back])
    assert joined.size == 2 * data.size
    assert (joined.move_start[-1]) == 2 * data.move_start[-1]


@pytest.mark.slow  # a minute's worth of training at most; the fast tier stays under 3 minutes
def test_a_smoke_run_trains_evaluates_and_resumes(tmp_path: Path) -> None:
    folder = tmp_path / "run"
    history = train(str(folder), SMOKE, progress=False, log=lambda text: None)
    assert [h["generation"] for h in history] == [0, 1]
    for h in history:
        assert h["policy_loss"] > 0 and h["value_loss"] > 0
        assert 0 <= h["net_vs_greedy_loss_share"] <= 1 and h["eval_games"] == 9
    for name in ("net-0.sgnet", "net-1.sgnet", "model-1.pt", "log.csv", "state.json"):
        assert (folder / name).exists(), name
    network = Network.from_file(folder / "net-1.sgnet")
    assert network.shape[1:] == (32, 16, 8, 16, 8)
    # A smoke match with the trained weights.
    result = sg.run_match([f"net:weights={folder / 'net-1.sgnet'}", "greedy"], deals=2, seed=3)
    assert len(result.games) == 4 and not result.crashes
    # Resuming does nothing more: the models are not made again.
    stamp = os.stat(folder / "model-1.pt").st_mtime_ns
    assert train(str(folder), progress=False, log=lambda text: None) == history
    assert os.stat(folder / "model-1.pt").st_mtime_ns == stamp
    state = json.loads((folder / "state.json").read_text())
    assert state["config"]["games"] == 3
    with pytest.raises(ArgumentError, match="holds a run with other settings"):
        train(str(folder), TrainConfig(games=5), progress=False)


@pytest.mark.slow
def test_the_command_line_runs_and_resumes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from skitgubbe.apps.cli import main

    folder = str(tmp_path / "cli")
    args = ["train", folder, "--generations", "1", "--games", "2", "--iterations", "20",
            "--epochs", "1", "--hidden1", "16", "--hidden2", "8", "--action", "4",
            "--world1", "8", "--world2", "4",
            "--rules", "classic:2", "--eval-deals", "2", "--jobs", "1", "--quiet"]  # fmt: skip
    assert main(args) == 0
    assert "trained 1 generations" in capsys.readouterr().out
    assert main(["train", folder, "--quiet"]) == 0


def _parts(folder: Path) -> list[dict[str, object]]:
    found = []
    for path in sorted(folder.glob("gen-*/part-*.npz")):
        data = Samples.load(str(path))
        found.append({name: getattr(data, name).tolist() for name in ("features", "policy")})
    return found


def test_self_play_on_an_executor_writes_the_same_parts(tmp_path: Path) -> None:
    """Self-play spread over any executor gives the parts one process gives (each task
    carries the weights, the caller writes the samples)."""
    from concurrent.futures import ThreadPoolExecutor

    from skitgubbe.learn.train import _self_play

    config = TrainConfig(games=25, iterations=2, rules=("classic:2",), jobs=1)
    assert config.parts == 2
    _self_play(str(tmp_path / "here"), 0, config, False, None)
    with ThreadPoolExecutor(2) as pool:
        _self_play(str(tmp_path / "there"), 0, config, False, pool)
    assert _parts(tmp_path / "here") == _parts(tmp_path / "there") != []


@pytest.mark.slow
def test_the_command_line_plays_on_a_dask_cluster(tmp_path: Path) -> None:
    """``skitgubbe train --scheduler ADDRESS``: the self-play on a Dask cluster's workers
    (processes of their own) writes the parts a run without it writes."""
    import subprocess
    import sys

    distributed = pytest.importorskip("distributed")
    args = ["--generations", "1", "--games", "30", "--iterations", "10", "--epochs", "1",
            "--hidden1", "16", "--hidden2", "8", "--action", "4", "--world1", "8",
            "--world2", "4", "--rules", "classic:2", "--eval-deals", "2", "--jobs", "1",
            "--quiet"]  # fmt: skip
    command = [sys.executable, "-m", "skitgubbe", "train"]
    subprocess.run([*command, str(tmp_path / "here"), *args], check=True, timeout=300)
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, host="127.0.0.1", dashboard_address=None
    ) as cluster:
        there = [*command, str(tmp_path / "there"), *args, "--scheduler", cluster.scheduler_address]
        subprocess.run(there, check=True, timeout=300)
    assert _parts(tmp_path / "here") == _parts(tmp_path / "there") != []
    refused = subprocess.run(
        [*command, str(tmp_path / "none"), *args, "--scheduler", "tcp://127.0.0.1:1"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert refused.returncode == 2
    assert refused.stderr.count("\n") == 1 and "--scheduler" in refused.stderr, refused.stderr
    assert not (tmp_path / "none" / "gen-0").exists()
