"""Loading weight files safely (``Network.from_file`` and the core's ``sg_net_load``): only
regular files, never more than the largest valid weight file read, every refusal a
``RecordError`` naming the file, reserved header bytes zero, and only weights whose
every evaluation is finite; and the command line's one-line error for a bad ``net=``."""

from __future__ import annotations

import contextlib
import errno
import json
import math
import os
import stat
import struct
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import skitgubbe as sg
from skitgubbe import _core
from skitgubbe._files import not_regular
from skitgubbe.apps.cli import main
from skitgubbe.bots.net import DEFAULT_WEIGHTS, MAX_FILE_SIZE, NetBot, Network, default_network
from skitgubbe.errors import RecordError

numpy = pytest.importorskip("numpy")

HANG_GUARD = 30.0  # seconds before a call that should return at once is called hung
HEADER = 48


def shipped_bytes() -> bytes:
    import importlib.resources

    return (importlib.resources.files("skitgubbe") / "weights" / DEFAULT_WEIGHTS).read_bytes()


def with_weights(data: bytes, weights: Any) -> bytes:
    """``data``'s header (its checksum redone) with ``weights`` as its floats."""
    body: bytes = numpy.asarray(weights, dtype="<f4").tobytes()
    header = bytearray(data[:HEADER])
    header[28:32] = struct.pack("<I", _core.net_checksum(body))
    return bytes(header) + body


def shipped_weights() -> Any:
    return numpy.frombuffer(shipped_bytes()[HEADER:], dtype="<f4").astype(numpy.float64)


def refusal(call: Callable[[], object], unblock: Callable[[], None] | None = None) -> str:
    """The message of the RecordError ``call`` raises, run in a thread so that a call that
    blocks fails the test instead of hanging it (``unblock`` then frees the thread)."""
    outcome: dict[str, BaseException | object] = {}

    def run() -> None:
        try:
            outcome["value"] = call()
        except BaseException as exc:
            outcome["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(HANG_GUARD)
    if thread.is_alive():
        if unblock is not None:
            unblock()
        pytest.fail(f"the call did not return within {HANG_GUARD} s: it blocked")
    if "error" not in outcome:
        pytest.fail(f"nothing was refused: {outcome.get('value')!r}")
    error = outcome["error"]
    assert isinstance(error, RecordError), repr(error)
    return str(error)


def test_the_largest_valid_size_is_the_widest_network() -> None:
    width = 1024  # SG_NET_MAX_WIDTH
    inputs = _core.TENSOR_SIZE
    world = _core.WORLD_SIZE
    floats = (
        inputs * width + width  # w1, b1
        + width * width + width  # w2, b2
        + width * 4 + 4  # wv, bv
        + width * width + width  # wp, bp
        + 52 * width + 5 * width + width + width  # wc, wk, wn, vp
        + world * width + width  # u1, c1
        + width * width + width  # u2, c2
        + width * 4 + 4  # uv, cv
    )  # fmt: skip
    assert MAX_FILE_SIZE == _core.NET_MAX_SIZE == HEADER + 4 * floats
    assert len(shipped_bytes()) < MAX_FILE_SIZE


def test_the_shipped_weights_still_load_from_bytes_and_from_a_file(tmp_path: Path) -> None:
    path = tmp_path / "net.sgnet"
    path.write_bytes(shipped_bytes())
    network = Network.from_file(path)
    assert network.shape == default_network().shape
    assert network.sha256 == default_network().sha256
    assert network.name == str(path)
    game = sg.Game.new(seed=3)
    assert game.to_move is not None
    probs, values = network.evaluate(game.observation(game.to_move))
    assert all(math.isfinite(p) for p in probs.values()) and all(map(math.isfinite, values))


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero")
def test_dev_zero_is_refused_without_reading_it() -> None:
    message = refusal(lambda: Network.from_file("/dev/zero"))
    assert message == "/dev/zero: it is a device, not a weight file"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "weights.sgnet"
    os.mkfifo(fifo)
    message = refusal(lambda: Network.from_file(fifo), unblock=lambda: _unblock(fifo))
    assert message == f"{fifo}: it is a FIFO (named pipe), not a weight file"


def _unblock(fifo: Path) -> None:
    """Opens ``fifo`` for writing, which frees a reader blocked opening it."""
    with contextlib.suppress(OSError):
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_swapped_in_after_the_check_neither_blocks_nor_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The check by name is not enough: what was opened is checked, and opened without
    waiting for a writer."""
    fifo = tmp_path / "weights.sgnet"
    os.mkfifo(fifo)
    regular = os.stat(__file__)  # what the path named when it was checked
    real_stat = os.stat
    monkeypatch.setattr(os, "stat", lambda p, *a, **k: regular if p == str(fifo) else real_stat(p))
    message = refusal(lambda: Network.from_file(fifo), unblock=lambda: _unblock(fifo))
    assert message == f"{fifo}: it is a FIFO (named pipe), not a weight file"


def test_a_folder_is_refused(tmp_path: Path) -> None:
    message = refusal(lambda: Network.from_file(tmp_path))
    assert message == f"{tmp_path}: it is a folder, not a weight file"


def test_a_missing_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "no-such.sgnet"
    message = refusal(lambda: Network.from_file(path))
    assert message == f"{path}: cannot read the weight file: {os.strerror(errno.ENOENT)}"


def test_an_unreadable_file_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "locked.sgnet"
    path.write_bytes(shipped_bytes())
    path.chmod(0)
    if hasattr(os, "geteuid") and os.geteuid() == 0:  # root reads it all the same: the
        real_open = os.open  # system's answer to anyone else is simulated

        def denied(name: object, *args: object, **kwargs: object) -> int:
            if os.fspath(name) == str(path):  # type: ignore[arg-type]
                raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(path))
            return real_open(name, *args, **kwargs)  # type: ignore[arg-type]

        monkeypatch.setattr(os, "open", denied)
    message = refusal(lambda: Network.from_file(path))
    assert message == f"{path}: cannot read the weight file: {os.strerror(errno.EACCES)}"


def test_a_bad_path_is_refused_naming_it_in_one_short_line(tmp_path: Path) -> None:
    message = refusal(lambda: Network.from_file("bad\0path"))
    assert message.startswith("'bad\\x00path': cannot read the weight file")
    long = tmp_path / ("x" * 200 + "\n.sgnet")
    message = refusal(lambda: Network.from_file(long))
    assert "\n" not in message and len(message) < 160, message
    message = refusal(lambda: Network(b"junk", name="y" * 10_000))
    assert len(message) < 160 and message.endswith("(a truncated or padded file)"), message


def test_a_file_larger_than_any_weight_file_is_refused_without_reading_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    big = tmp_path / "big.sgnet"
    with open(big, "wb") as file:
        file.write(shipped_bytes()[:HEADER])
    size = 4 * MAX_FILE_SIZE  # sparse: 100 MB that take no room (and a regression reads)
    os.truncate(big, size)

    def no_read(*args: object) -> bytes:
        raise AssertionError("the file was read")

    monkeypatch.setattr(os, "read", no_read)
    message = refusal(lambda: Network.from_file(big))
    assert message == (
        f"{big}: it is {size:,} bytes, larger than any weight file "
        f"(at most {MAX_FILE_SIZE:,} bytes)"
    )
    # One byte too many is refused too; the largest size passes to the format's checks.
    os.truncate(big, MAX_FILE_SIZE + 1)
    assert "larger than any weight file" in refusal(lambda: Network.from_file(big))
    monkeypatch.undo()
    os.truncate(big, MAX_FILE_SIZE)
    assert "its size is not what its header says" in refusal(lambda: Network.from_file(big))


def test_a_file_that_grows_is_read_no_further_than_the_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file whose size said small, but whose reads go on (it grows, or a file system
    lies about it), is read to the limit and one byte more, then refused."""
    path = tmp_path / "growing.sgnet"
    path.write_bytes(b"")
    read = []

    def endless(descriptor: int, count: int) -> bytes:
        read.append(count)
        return b"\0" * count

    monkeypatch.setattr(os, "read", endless)
    message = refusal(lambda: Network.from_file(path))
    assert message == (
        f"{path}: it grew as it was read, larger than any weight file "
        f"(at most {MAX_FILE_SIZE:,} bytes)"
    )
    assert sum(read) == MAX_FILE_SIZE + 1


@pytest.mark.parametrize("offset", range(40, 48))
def test_reserved_header_bytes_must_be_zero(offset: int, tmp_path: Path) -> None:
    data = bytearray(shipped_bytes())
    data[offset] = 0x80
    with pytest.raises(
        RecordError, match=r"^mine\.sgnet: its header's reserved bytes are not zero$"
    ):
        Network(bytes(data), name="mine.sgnet")
    path = tmp_path / "reserved.sgnet"
    path.write_bytes(bytes(data))
    assert refusal(lambda: Network.from_file(path)) == (
        f"{path}: its header's reserved bytes are not zero"
    )


OVERFLOW = "its weights are so large that an evaluation could overflow a float32"


@pytest.mark.parametrize("scale", [1e10, 1e20, 1e30])
def test_scaled_up_shipped_weights_are_refused(scale: float, tmp_path: Path) -> None:
    data = with_weights(shipped_bytes(), shipped_weights() * scale)
    with pytest.raises(RecordError, match=f"^huge: {OVERFLOW}$"):
        Network(data, name="huge")
    path = tmp_path / "huge.sgnet"
    path.write_bytes(data)
    assert refusal(lambda: Network.from_file(path)) == f"{path}: {OVERFLOW}"


def test_every_weight_at_the_float32_maximum_is_refused() -> None:
    """The attacker's file: every weight 3.4e38, finite, so only the bound refuses it (it
    used to load, and evaluate to NaN for every move)."""
    weights = numpy.full(len(shipped_weights()), 3.4e38)
    with pytest.raises(RecordError, match=OVERFLOW):
        Network(with_weights(shipped_bytes(), weights))


@pytest.mark.parametrize(
    "part",
    ["first layer", "world value", "logits"],
)
def test_one_huge_part_is_enough_to_refuse(part: str) -> None:
    """Each part of the network is bounded: one bias, or the logits' weights alone."""
    weights = shipped_weights()
    shape = default_network().shape
    inputs, hidden1, _, action, world1, world2 = shape
    world_floats = _core.WORLD_SIZE * world1 + world1 + world1 * world2 + world2 + world2 * 4 + 4
    if part == "first layer":
        weights[inputs * hidden1] = 3e38  # b1[0]: relu(b1[0]) feeds every later layer
    elif part == "world value":
        weights[len(weights) - 4] = 3e38  # cv[0], the world value's last bias
    else:
        vp = len(weights) - world_floats - action
        weights[vp : vp + action] = 3.4e38 / 8  # every unit finite, their sum not
    with pytest.raises(RecordError, match=OVERFLOW):
        Network(with_weights(shipped_bytes(), weights))


def test_the_bound_refuses_only_weights_that_could_overflow() -> None:
    """Weights scaled up but still safe load, and every evaluation of them is finite."""
    views = []
    for seed in range(6):
        game = sg.Game.new(sg.Rules.classic(2 + seed % 3), seed=seed)
        for _ in range(seed * 7):
            game.play(game.legal_moves[-1])
        assert game.to_move is not None
        views.append(game.observation(game.to_move))
    for scale in (1e2, 1e5, 1e8):
        network = Network(with_weights(shipped_bytes(), shipped_weights() * scale))
        for view in views:
            logits, values = network.core.run(view.core_view)
            assert all(math.isfinite(logit) for _, logit in logits), scale
            assert all(0 <= value <= 1 for value in values), scale
            probs, _ = network.evaluate(view)
            assert all(math.isfinite(p) for p in probs.values()), scale


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
def test_weights_that_are_not_finite_are_refused(value: float) -> None:
    weights = shipped_weights()
    weights[12345] = value
    with pytest.raises(RecordError, match=r"^w: it holds a weight that is not a finite number$"):
        Network(with_weights(shipped_bytes(), weights), name="w")


def test_the_bots_raise_the_library_error_for_a_bad_weight_path(tmp_path: Path) -> None:
    missing = tmp_path / "missing.sgnet"
    for make in (
        lambda: NetBot(weights=str(missing)),
        lambda: sg.bots.make(f"ismcts:net={missing},iterations=10"),
        lambda: sg.bots.make(f"pimc:net={missing}"),
        lambda: sg.bots.make(f"net:weights={tmp_path}"),
    ):
        message = refusal(make)
        assert str(tmp_path) in message


@pytest.fixture
def game_file(tmp_path: Path) -> Path:
    game = sg.Game.new(sg.Rules.classic(players=2), seed=4)
    for _ in range(6):
        game.play(game.legal_moves[0])
    path = tmp_path / "game.json"
    path.write_text(json.dumps(game.record()), encoding="utf-8")
    return path


def _bad_weights(tmp_path: Path) -> list[tuple[str, str]]:
    huge = tmp_path / "huge.sgnet"
    huge.write_bytes(with_weights(shipped_bytes(), shipped_weights() * 1e20))
    cases = [
        (
            str(tmp_path / "nonexistent.sgnet"),
            f"cannot read the weight file: {os.strerror(errno.ENOENT)}",
        ),
        (str(tmp_path), "it is a folder, not a weight file"),
        (str(huge), OVERFLOW),
    ]
    if os.path.exists("/dev/zero"):
        cases.append(("/dev/zero", "it is a device, not a weight file"))
    return cases


@pytest.mark.parametrize("engine", ["ismcts", "pimc"])
def test_analyse_with_a_bad_net_is_a_one_line_error_with_exit_2(
    engine: str, game_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for weights, what in _bad_weights(tmp_path):
        spec = f"{engine}:net={weights}"
        code = _exit_code(["analyse", str(game_file), "--seat", "0", "--engine", spec])
        assert code == 2, (spec, code)
        out, err = capsys.readouterr()
        assert out == "", spec
        assert err == f"skitgubbe: error: {weights}: {what}\n", (spec, err)


def _exit_code(argv: list[str]) -> object:
    """The code ``main(argv)`` exits with, run in a thread so that a command that blocks
    fails the test instead of hanging it."""
    outcome: dict[str, object] = {}

    def run() -> None:
        try:
            outcome["code"] = main(argv)
        except SystemExit as done:
            outcome["code"] = done.code
        except BaseException as exc:
            outcome["code"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(HANG_GUARD)
    assert not thread.is_alive(), f"{argv} blocked"
    return outcome.get("code")


def test_the_weight_file_modes_refused_are_the_non_regular_ones() -> None:
    """The names a refusal gives: one for each kind of file that is not regular."""
    names = {
        not_regular(mode)
        for mode in (stat.S_IFDIR, stat.S_IFIFO, stat.S_IFCHR, stat.S_IFBLK, stat.S_IFSOCK)
    }
    assert names == {"a folder", "a FIFO (named pipe)", "a device", "a socket"}
