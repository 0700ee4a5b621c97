"""`skitgubbe train` checks its settings and every file of a run before it makes or writes
anything: a run folder tampered with in any of the ways below is refused in one line that names
the file and the field, and is left byte for byte as it was (PyTorch from the train extra).

The run tampered with is made here, file by file, with the functions `train` writes with (a
real run takes seconds; the slow test at the end tampers a real one too)."""

from __future__ import annotations

import json
import math
import os
import re
import resource
import shutil
import signal
import stat
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import attrs
import pytest

import skitgubbe as sg
from skitgubbe.apps.cli import main
from skitgubbe.errors import ArgumentError, ArgumentTypeError, RecordError
from skitgubbe.learn.selfplay import Samples, play_games

torch = pytest.importorskip("torch", reason="the training extra: pip install 'skitgubbe[train]'")
numpy = pytest.importorskip("numpy")

from skitgubbe.learn import train as train_module  # noqa: E402
from skitgubbe.learn.train import BOUNDS, MAX_WIDTH, TrainConfig, train  # noqa: E402
from skitgubbe.learn.weights import encode  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent

TINY = TrainConfig(
    generations=2, games=1, iterations=1, net_iterations=1, epochs=1, batch=8,
    hidden1=2, hidden2=2, action=2, world1=2, world2=2,
    rules=("classic:2",), eval_deals=1, jobs=1,
)  # fmt: skip


def _entry(generation: int) -> dict[str, Any]:
    """A generation's measures as `train` writes them (a NaN loss: the model was resumed)."""
    return {
        "generation": generation, "policy_loss": 1.5, "value_loss": 0.69,
        "world_value_loss": float("nan"), "net_vs_greedy_loss_share": 0.5,
        "net_vs_greedy_low": 0.1, "net_vs_greedy_high": 0.9, "eval_games": 3,
        "self_play_seconds": 0.1, "training_seconds": 0.2,
    }  # fmt: skip


def _write_run(folder: Path, config: TrainConfig = TINY) -> None:
    """A finished run of ``config`` in ``folder``, as `train` leaves one."""
    folder.mkdir()
    torch.manual_seed(1)
    for generation in range(config.generations):
        model = train_module._model(config)
        (folder / f"net-{generation}.sgnet").write_bytes(encode(train_module._arrays(model)))
        torch.save(model.state_dict(), folder / f"model-{generation}.pt")
        (folder / f"gen-{generation}").mkdir()
        data = play_games([sg.Rules.classic(2)], games=1, seed=generation, iterations=1)
        data.save(str(folder / f"gen-{generation}" / "part-0000.npz"))
    state = {
        "config": attrs.asdict(config),
        "history": [_entry(g) for g in range(config.generations)],
    }
    (folder / "state.json").write_text(json.dumps(state, indent=2))


@pytest.fixture(scope="module")
def made_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("made") / "run"
    _write_run(folder)
    return folder


@pytest.fixture
def run(made_run: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "run"
    shutil.copytree(made_run, copy)
    return copy


def _snapshot(folder: Path) -> dict[str, bytes | None]:
    """Every file and folder under ``folder``: a file's bytes, None for a folder."""
    return {
        str(path.relative_to(folder)): path.read_bytes() if path.is_file() else None
        for path in sorted(folder.rglob("*"))
    }


# Tampering: each changes the run folder in one way.


def _state(change: Callable[[dict[str, Any]], object]) -> Callable[[Path], None]:
    def tamper(folder: Path) -> None:
        state = json.loads((folder / "state.json").read_text())
        change(state)
        (folder / "state.json").write_text(json.dumps(state))

    return tamper


def _write(name: str, data: bytes | Callable[[bytes], bytes]) -> Callable[[Path], None]:
    def tamper(folder: Path) -> None:
        path = folder / name
        path.write_bytes(data(path.read_bytes()) if callable(data) else data)

    return tamper


def _remove(name: str) -> Callable[[Path], None]:
    return lambda folder: (folder / name).unlink()


def _model_file(name: str, change: Callable[[dict[str, Any]], object]) -> Callable[[Path], None]:
    """Change the state dict in the model file ``name`` in place."""

    def tamper(folder: Path) -> None:
        state = dict(torch.load(folder / name, weights_only=True))
        change(state)
        torch.save(state, folder / name)

    return tamper


def _model_saved(name: str, make: Callable[[], object]) -> Callable[[Path], None]:
    """Save what ``make`` makes as the model file ``name``."""
    return lambda folder: torch.save(make(), folder / name)


def _part(name: str, change: Callable[[dict[str, Any]], None]) -> Callable[[Path], None]:
    def tamper(folder: Path) -> None:
        with numpy.load(folder / name) as data:
            arrays = dict(data)
        change(arrays)
        with open(folder / name, "wb") as file:
            numpy.savez(file, **arrays)

    return tamper


class _Planted:
    """A pickled call: what a model file could make `torch.load` run without weights_only."""

    def __init__(self, marker: str) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[Any, ...]:
        return (open, (self.marker, "w"))


def _planted(folder: Path) -> None:
    torch.save({"l1.weight": _Planted(str(folder.parent / "planted"))}, folder / "model-0.pt")


def _pending_without_its_window(folder: Path) -> None:
    """Generation 1 not yet trained (no model-1.pt, state.json records generation 0 only) and
    a part of generation 0, which its training reads, deleted."""
    _state(lambda state: state["history"].pop())(folder)
    (folder / "model-1.pt").unlink()
    (folder / "gen-0" / "part-0000.npz").unlink()


def _unlink_move_start(arrays: dict[str, Any]) -> None:
    arrays["move_start"] = arrays["move_start"] + 1


PART0 = "gen-0/part-0000.npz"
PART1 = "gen-1/part-0000.npz"

# name: (tamper, the file the refusal names, what else it must say: the field)
TAMPERED: dict[str, tuple[Callable[[Path], None], str, str]] = {
    "state.json truncated": (_write("state.json", lambda b: b[: len(b) // 2]), "state.json",
                             "is not a JSON"),
    "state.json empty": (_write("state.json", b""), "state.json", "is not a JSON"),
    "state.json a list": (_write("state.json", b"[]"), "state.json", "holds list"),
    "state.json not UTF-8": (_write("state.json", b"\xff\xfe{}"), "state.json", "is not a JSON"),
    "state.json deep": (_write("state.json", b"[" * 100_000), "state.json", "nested too deeply"),
    "no config": (_state(lambda s: s.pop("config")), "state.json", "lacks the key 'config'"),
    "no history": (_state(lambda s: s.pop("history")), "state.json", "lacks the key 'history'"),
    "an unknown key": (_state(lambda s: s.update(notes=1)), "state.json",
                       "unknown key 'notes'"),
    "config a list": (_state(lambda s: s.update(config=[1])), "state.json",
                      "config must be an object"),
    "a config key missing": (_state(lambda s: s["config"].pop("games")), "state.json",
                             "config lacks the key 'games'"),
    "an unknown config key": (_state(lambda s: s["config"].update(speed=9)), "state.json",
                              "config holds an unknown key 'speed'"),
    "hidden1 = 10**7": (_state(lambda s: s["config"].update(hidden1=10**7)), "state.json",
                        "config.hidden1 must be an int from 1 to 1024"),
    "games = -5": (_state(lambda s: s["config"].update(games=-5)), "state.json",
                   "config.games must be an int from 1 to"),
    "jobs = 0": (_state(lambda s: s["config"].update(jobs=0)), "state.json",
                 "config.jobs must be an int from 1 to"),
    "games a string": (_state(lambda s: s["config"].update(games="3")), "state.json",
                       "config.games must be an int"),
    "seed a float": (_state(lambda s: s["config"].update(seed=1.5)), "state.json",
                     "config.seed must be an int"),
    "learning rate NaN": (_state(lambda s: s["config"].update(learning_rate=float("nan"))),
                          "state.json", "config.learning_rate must be a number above 0"),
    "rules bogus:9": (_state(lambda s: s["config"].update(rules=["bogus:9"])), "state.json",
                      "config.rules[0]: a training rules entry is PRESET:PLAYERS"),
    "rules classic:9": (_state(lambda s: s["config"].update(rules=["classic:2", "classic:9"])),
                        "state.json", "config.rules[1]"),
    "rules a string": (_state(lambda s: s["config"].update(rules="classic:2")), "state.json",
                       "config.rules must be a tuple"),
    "rules empty": (_state(lambda s: s["config"].update(rules=[])), "state.json",
                    "config.rules must be a tuple of 1 to 64"),
    "history a dict": (_state(lambda s: s.update(history={})), "state.json",
                       "history must be a list"),
    "history too long": (_state(lambda s: s["history"].append(_entry(2))), "state.json",
                         "history holds 3 generations"),
    "a generation out of order": (_state(lambda s: s["history"][1].update(generation=0)),
                                  "state.json", "history[1].generation must be 1"),
    "a measure missing": (_state(lambda s: s["history"][0].pop("eval_games")), "state.json",
                          "history[0] lacks the key 'eval_games'"),
    "a measure not a number": (
        _state(lambda s: s["history"][0].update(net_vs_greedy_low="x" * 1000)),
        "state.json", "history[0].net_vs_greedy_low must be a number, not 'xxx",
    ),
    "model-1.pt truncated": (_write("model-1.pt", lambda b: b[: len(b) // 2]), "model-1.pt",
                             "is not a PyTorch model file"),
    "model-0.pt empty": (_write("model-0.pt", b""), "model-0.pt", "is not a PyTorch model file"),
    "model-1.pt missing": (_remove("model-1.pt"), "model-1.pt",
                           "is missing, but"),
    "model-0.pt a list": (_model_saved("model-0.pt", lambda: [1, 2]), "model-0.pt",
                          "holds list, not a model's state dict"),
    "model-0.pt of other sizes": (
        _model_saved("model-0.pt", lambda: train_module._model(
            attrs.evolve(TINY, hidden1=3)).state_dict()),
        "model-0.pt", "the tensor 'l1.weight' is torch.float32 of shape (3, ",
    ),
    "model-1.pt lacks a tensor": (_model_file("model-1.pt", lambda s: s.pop("out")),
                                  "model-1.pt", "lacks the tensor 'out'"),
    "model-1.pt has a tensor more": (
        _model_file("model-1.pt", lambda s: s.update(extra=torch.zeros(1))),
        "model-1.pt", "holds an unknown tensor 'extra'",
    ),
    "model-0.pt in float64": (
        _model_file("model-0.pt", lambda s: s.update({"l1.bias": s["l1.bias"].double()})),
        "model-0.pt", "the tensor 'l1.bias' is torch.float64",
    ),
    "model-0.pt runs code": (_planted, "model-0.pt", "is not a PyTorch model file"),
    "net-1.sgnet truncated": (_write("net-1.sgnet", lambda b: b[:100]), "net-1.sgnet",
                              "holds 100 bytes, not the"),
    "net-0.sgnet missing": (_remove("net-0.sgnet"), "net-0.sgnet", "is missing, but"),
    "net-0.sgnet damaged": (_write("net-0.sgnet", lambda b: b[:-4] + b"\x00\x00\xc0\x7f"),
                            "net-0.sgnet", "checksum"),
    "a part lacks an array": (_part(PART0, lambda a: a.pop("policy")), PART0,
                              "lacks the array 'policy'"),
    "a part in float32": (
        _part(PART1, lambda a: a.update(features=a["features"].astype(numpy.float32))),
        PART1, "the array 'features' is float32, not float16",
    ),
    "a part of the wrong shape": (
        _part(PART0, lambda a: a.update(values=a["values"][:, :3])), PART0,
        "the array 'values' has shape (",
    ),
    "a part of too few samples": (
        _part(PART0, lambda a: a.update(players=a["players"][1:])), PART0,
        "the array 'players' has shape (",
    ),
    "a part of Python objects": (
        _part(PART0, lambda a: a.update(players=a["players"].astype(object))), PART0,
        "the array 'players' is object, not int8",
    ),
    "a part whose moves do not add up": (_part(PART1, _unlink_move_start), PART1,
                                         "the array 'move_start' does not run from 0"),
    "a part truncated": (_write(PART0, lambda b: b[: len(b) // 2]), PART0,
                         "is not a samples file"),
    "a part of text": (_write(PART1, b"samples\n"), PART1, "is not a samples file"),
    "gen-0 a file": (lambda f: (shutil.rmtree(f / "gen-0"), (f / "gen-0").write_text("x")),
                     "gen-0", "is not a folder"),
    "a part of the window missing": (_pending_without_its_window, PART0,
                                     "is missing, but"),
}  # fmt: skip


def test_the_run_made_here_resumes_as_it_is(run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The control: untampered, the run is one `train` accepts (finished: nothing to do)."""
    before = _snapshot(run)
    assert main(["train", str(run), "--quiet"]) == 0
    assert "trained 2 generations" in capsys.readouterr().out
    assert [h["generation"] for h in train(run, progress=False)] == [0, 1]
    assert _snapshot(run) == before


@pytest.mark.parametrize("name", sorted(TAMPERED))
def test_a_tampered_run_is_refused_in_one_line_and_left_as_it_was(
    run: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    tamper, file, says = TAMPERED[name]
    tamper(run)
    before = _snapshot(run)
    with pytest.raises(SystemExit) as exit_:
        main(["train", str(run), "--quiet"])
    assert exit_.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1, captured.err
    line = captured.err.rstrip("\n")
    assert line.startswith(f"skitgubbe: error: {run / file}"), line
    assert says in line, line
    assert len(line) < 300, line  # long values are cut
    assert _snapshot(run) == before
    assert not (run.parent / "planted").exists()  # the model file's code never ran
    # The Python API refuses it the same way.
    with pytest.raises(RecordError) as caught:
        train(run, progress=False)
    assert f"skitgubbe: error: {caught.value}" == line
    assert _snapshot(run) == before


@pytest.mark.parametrize(
    "option",
    [
        ["--games", "-5"], ["--jobs", "0"], ["--hidden1", str(10**7)], ["--world2", "0"],
        ["--rules", "classic:2", "bogus:9"], ["--rules", "modern:1"], ["--learning-rate", "nan"],
        ["--learning-rate", "0"], ["--seed", "-1"], ["--batch", "1000000"],
        ["--generations", "0"], ["--eval-deals", "0"], ["--window", "0"],
    ],
)  # fmt: skip
def test_an_option_out_of_bounds_is_refused_before_anything_is_made(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], option: list[str]
) -> None:
    folder = tmp_path / "new"
    with pytest.raises(SystemExit) as exit_:
        main(["train", str(folder), *option, "--quiet"])
    assert exit_.value.code == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1
    assert error.startswith(f"skitgubbe: error: {option[0]}"), error
    assert not folder.exists()


@pytest.mark.parametrize(
    ("setting", "value"),
    [
        ("games", -5), ("games", 0), ("jobs", 0), ("jobs", 10**6), ("hidden1", 10**7),
        ("action", 0), ("world1", MAX_WIDTH + 1), ("rules", ("bogus:9",)), ("rules", ()),
        ("rules", ("classic:3",) * 65), ("rules", ("classic: 3",)), ("rules", ("classic:３",)),
        ("learning_rate", math.nan), ("learning_rate", -1e-3), ("learning_rate", math.inf),
        ("seed", -1), ("seed", 2**64), ("batch", 10**9), ("iterations", 0),
        ("net_iterations", 10**9), ("epochs", 0), ("generations", 10**6), ("eval_deals", 0),
    ],
)  # fmt: skip
def test_a_setting_out_of_bounds_is_an_argument_error(setting: str, value: object) -> None:
    with pytest.raises(ArgumentError, match=f"^{setting}"):
        TrainConfig(**{setting: value})


@pytest.mark.parametrize(
    ("setting", "value"),
    [("games", 3.0), ("games", True), ("games", "3"), ("rules", ["classic:3"]),
     ("rules", "classic:3"), ("learning_rate", "0.1"), ("learning_rate", True)],
)  # fmt: skip
def test_a_setting_of_the_wrong_type_is_an_argument_type_error(setting: str, value: object) -> None:
    with pytest.raises(ArgumentTypeError, match=f"^{setting}"):
        TrainConfig(**{setting: value})


def test_the_bounds_hold_every_setting_and_its_default() -> None:
    defaults = TrainConfig()
    assert list(BOUNDS) == [field.name for field in attrs.fields(TrainConfig)]
    for name, (low, high) in BOUNDS.items():
        value = getattr(defaults, name)
        assert low <= (len(value) if name == "rules" else value) <= high, name
    edges = {name: high for name, (low, high) in BOUNDS.items() if name not in ("rules", "seed")}
    assert TrainConfig(**edges).hidden1 == MAX_WIDTH
    assert TrainConfig(seed=0).seed == 0 and TrainConfig(rules=("modern",)).rules == ("modern",)


def test_the_widest_layer_is_the_c_networks() -> None:
    header = (ROOT / "src" / "_core" / "skitgubbe.h").read_text()
    widest = re.search(r"#define SG_NET_MAX_WIDTH (\d+)", header)
    assert widest is not None and int(widest.group(1)) == MAX_WIDTH


def test_the_state_of_the_shipped_run_is_read() -> None:
    config, history = train_module._read_state(str(ROOT / "docs" / "training" / "state.json"))
    assert config == TrainConfig(generations=1, epochs=10)
    assert [h["generation"] for h in history] == [0]


def test_other_settings_are_named_when_refused(run: Path) -> None:
    before = _snapshot(run)
    with pytest.raises(ArgumentError, match="other settings \\(games 1 there, 5 given\\)"):
        train(run, attrs.evolve(TINY, games=5), progress=False)
    assert _snapshot(run) == before


def test_the_arguments_are_checked(tmp_path: Path) -> None:
    with pytest.raises(ArgumentTypeError, match="config must be a TrainConfig"):
        train(tmp_path, {"games": 5}, progress=False)  # type: ignore[arg-type]
    with pytest.raises(ArgumentTypeError, match="progress must be True or False"):
        train(tmp_path, TINY, progress="no")  # type: ignore[arg-type]
    (tmp_path / "file").write_text("x")
    with pytest.raises(ArgumentError, match="is not a folder"):
        train(tmp_path / "file", TINY, progress=False)
    assert (tmp_path / "file").read_text() == "x"


def test_a_new_run_keeps_its_settings_from_the_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run stopped in its first generation resumes with its own settings, not the defaults."""
    seen: list[TrainConfig] = []

    def stop(folder: str, generation: int, config: TrainConfig, *rest: object) -> None:
        seen.append(config)
        raise KeyboardInterrupt

    monkeypatch.setattr(train_module, "_self_play", stop)
    folder = tmp_path / "run"
    with pytest.raises(KeyboardInterrupt):
        train(folder, TINY, progress=False)
    state = json.loads((folder / "state.json").read_text())
    assert state == {"config": json.loads(json.dumps(attrs.asdict(TINY))), "history": []}
    with pytest.raises(KeyboardInterrupt):
        train(folder, progress=False)
    assert seen == [TINY, TINY]


def test_samples_check_the_arrays_they_load(tmp_path: Path) -> None:
    data = play_games([sg.Rules.classic(2)], games=1, seed=1, iterations=1)
    path = tmp_path / "part.npz"
    data.save(str(path))
    assert Samples.check_file(path) == Samples.load(path).size == data.size
    with pytest.raises(RecordError, match=f"{path} holds {data.size} samples, more than 3"):
        Samples.check_file(path, max_size=3)
    arrays = {f.name: getattr(data, f.name) for f in attrs.fields(Samples)}
    numpy.savez(path, **{**arrays, "move_codes": arrays["move_codes"][:-1]})
    with pytest.raises(RecordError, match="the array 'policy' has shape"):
        Samples.load(path)


@pytest.mark.slow  # a real run (seconds of training and evaluation) tampered the same ways
def test_a_real_run_tampered_is_refused_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    made = tmp_path / "made"
    train(made, TINY, progress=False, log=lambda text: None)
    for name, (tamper, file, says) in TAMPERED.items():
        copy = tmp_path / "copy"
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(made, copy)
        tamper(copy)
        before = _snapshot(copy)
        with pytest.raises(SystemExit) as exit_:
            main(["train", str(copy), "--quiet"])
        error = capsys.readouterr().err
        assert exit_.value.code == 2, name
        assert error.count("\n") == 1 and str(copy / file) in error and says in error, name
        assert _snapshot(copy) == before, name


# Files that are not regular files, or too large: refused before they are read (issue 40).


class _Hung(BaseException):  # not an Exception: no `except Exception` takes it for a bad file
    """The call under test did not return in time: it waited on a FIFO or read endlessly."""


@pytest.fixture
def deadline() -> Iterator[None]:
    """Stop the test with `_Hung` if it runs longer than 10 s, and bound its address space
    to 1 GB more than it holds now (a read of /dev/zero then ends in a MemoryError at once,
    not with the machine's memory)."""

    def hung(signum: int, frame: object) -> None:
        raise _Hung("train did not return: it waited on a FIFO or read a device endlessly")

    previous = signal.signal(signal.SIGALRM, hung)
    limits = resource.getrlimit(resource.RLIMIT_AS)
    with open("/proc/self/status") as status:
        held = next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmSize"))
    resource.setrlimit(resource.RLIMIT_AS, (held + 2**30, limits[1]))
    signal.alarm(10)
    try:
        yield
    finally:
        signal.alarm(0)
        resource.setrlimit(resource.RLIMIT_AS, limits)
        signal.signal(signal.SIGALRM, previous)


def _fifo(path: Path) -> None:
    path.unlink()
    os.mkfifo(path)


def _dev_zero_link(path: Path) -> None:
    path.unlink()
    path.symlink_to("/dev/zero")


def _dev_zero_node(path: Path) -> None:
    """A character device node of /dev/zero's numbers, named as the file (needs root)."""
    path.unlink()
    try:
        os.mknod(path, 0o600 | stat.S_IFCHR, os.makedev(1, 5))
    except PermissionError:
        pytest.skip("making a device node needs root")


_NOT_REGULAR = {"a FIFO": (_fifo, "is a FIFO (named pipe)"),
                "/dev/zero symlinked": (_dev_zero_link, "is a device"),
                "/dev/zero named": (_dev_zero_node, "is a device")}  # fmt: skip


@pytest.mark.parametrize("kind", sorted(_NOT_REGULAR))
@pytest.mark.parametrize(
    "file", ["state.json", "model-0.pt", "model-1.pt", "net-0.sgnet", PART0, PART1]
)
def test_a_file_that_is_not_a_regular_file_is_refused_without_waiting_or_reading(
    run: Path, capsys: pytest.CaptureFixture[str], deadline: None, file: str, kind: str
) -> None:
    """A FIFO is never waited on, a device never read: one line naming the file, at once."""
    make, says = _NOT_REGULAR[kind]
    make(run / file)
    with pytest.raises(SystemExit) as exit_:
        main(["train", str(run), "--quiet"])
    assert exit_.value.code == 2
    line = capsys.readouterr().err.rstrip("\n")
    assert line.startswith(f"skitgubbe: error: {run / file}"), line
    assert says in line, line
    with pytest.raises(RecordError, match=re.escape(str(run / file))):
        train(run, progress=False)


def _spy_on_torch_load(monkeypatch: pytest.MonkeyPatch, size: int) -> list[object]:
    """The files of ``size`` bytes that torch.load is given from now on (it loads them all)."""
    loads: list[object] = []
    load = torch.load

    def spy(file: Any, *args: Any, **kwargs: Any) -> Any:
        found = (
            os.fstat(file.fileno()).st_size if hasattr(file, "fileno") else os.stat(file).st_size
        )
        if found == size:
            loads.append(file)
        return load(file, *args, **kwargs)

    monkeypatch.setattr(torch, "load", spy)
    return loads


def _sparse(path: Path, size: int) -> None:
    """Make ``path`` a file of ``size`` bytes that holds no disk and no memory."""
    path.unlink()
    with open(path, "wb") as out:
        out.truncate(size)


@pytest.mark.parametrize(
    ("file", "size"),
    [
        ("state.json", 64 * 2**20),
        ("model-0.pt", 300 * 2**20),
        ("model-1.pt", 2**40),
        (PART0, 2**40),
    ],
)
def test_a_file_too_large_is_refused_by_its_size_before_it_is_read(
    run: Path, monkeypatch: pytest.MonkeyPatch, deadline: None, file: str, size: int
) -> None:
    """A sparse file: its size is refused before a byte is read or torch.load is called."""
    _sparse(run / file, size)
    loads = _spy_on_torch_load(monkeypatch, size)
    with pytest.raises(RecordError) as caught:
        train(run, progress=False)
    message = str(caught.value)
    assert message.startswith(str(run / file)), message
    assert f"is {size:,} bytes, larger than" in message, message
    assert loads == []


def test_a_model_file_whose_tensors_unpack_too_large_is_refused_before_it_is_loaded(
    run: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A small file can hold a large tensor (a zip entry deflated: 300 MB of zeros in a few
    hundred KB); the sizes its entries unpack to are checked before torch.load reads any."""
    model = run / "model-0.pt"
    torch.save({"l1.weight": torch.zeros(10_000_000)}, model)  # 40 MB unpacked
    with zipfile.ZipFile(model) as source:
        entries = [(info.filename, source.read(info)) for info in source.infolist()]
    with zipfile.ZipFile(model, "w", zipfile.ZIP_DEFLATED) as packed:
        for name, data in entries:
            packed.writestr(name, data)
    assert model.stat().st_size < 1_000_000
    loads = _spy_on_torch_load(monkeypatch, model.stat().st_size)
    with pytest.raises(RecordError, match=f"^{re.escape(str(model))}: its entries unpack to"):
        train(run, progress=False)
    assert loads == []


def test_a_fifo_where_a_file_is_written_is_replaced_not_waited_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, deadline: None
) -> None:
    """Every file is written to a fresh `.partial` file, then renamed: a FIFO (or a link)
    left at either name is neither waited on nor followed."""

    def stop(*args: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(train_module, "_self_play", stop)
    folder = tmp_path / "run"
    folder.mkdir()
    os.mkfifo(folder / "state.json.partial")
    (tmp_path / "elsewhere").write_text("kept")
    (folder / "log.csv.partial").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(KeyboardInterrupt):
        train(folder, TINY, progress=False)
    assert json.loads((folder / "state.json").read_text())["history"] == []
    train_module._write_log(str(folder), [_entry(0)])
    assert (folder / "log.csv").read_text().startswith("generation,policy_loss")
    assert (tmp_path / "elsewhere").read_text() == "kept"
    assert sorted(path.name for path in folder.iterdir()) == ["log.csv", "state.json"]
