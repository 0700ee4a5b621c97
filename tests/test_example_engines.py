"""The example engines in examples/engines/ (C and JavaScript) speak the engine protocol.

The C engine is built into a temporary directory with ``cc`` (warning-free with
``-Wall -Wextra``); ``LOWBOT_CFLAGS`` adds flags to that build, such as
``-fsanitize=address,undefined``. Both engines are driven by a small referee written
here from :mod:`skitgubbe.engine.protocol`'s message builders and a real :class:`skitgubbe.Game`:
every move they answer must be one of the legal ones, and every game must finish.
A missing ``cc`` or ``node`` fails these tests rather than skipping them.
"""

from __future__ import annotations

import contextlib
import os
import queue
import shlex
import shutil
import subprocess
import threading
from collections import deque
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

import skitgubbe as sg
from skitgubbe.engine import protocol

ROOT = Path(__file__).resolve().parent.parent
ENGINES = ROOT / "examples" / "engines"
TIMEOUT = 5.0
"""Seconds an engine may take to answer anything, or to exit after ``quit``."""


def _require(tool: str) -> str:
    """The path of ``tool``, or a test failure saying it is missing."""
    path = shutil.which(tool)
    if path is None:
        pytest.fail(f"{tool!r} is not on PATH: the example engines' tests need it", pytrace=False)
    return path


@pytest.fixture(scope="module")
def c_engine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The C engine, compiled warning-free into a temporary directory."""
    cc = _require("cc")
    binary = tmp_path_factory.mktemp("lowbot-c") / "lowbot"
    extra = shlex.split(os.environ.get("LOWBOT_CFLAGS", ""))
    command = [cc, "-std=c99", "-O2", "-Wall", "-Wextra", *extra, "-o", str(binary)]
    result = subprocess.run(
        [*command, str(ENGINES / "c" / "lowbot.c")],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert result.returncode == 0, f"cc failed:\n{result.stderr}"
    assert result.stderr == "", f"cc warned:\n{result.stderr}"
    return binary


@pytest.fixture(params=["c", "js"])
def command(request: pytest.FixtureRequest, c_engine: Path) -> list[str]:
    """The command line that starts one of the two engines."""
    if request.param == "c":
        return [str(c_engine)]
    return [_require("node"), str(ENGINES / "js" / "lowbot.js")]


class Engine:
    """An engine process with its pipes; every read has a timeout, so a broken
    engine fails the test instead of hanging it."""

    def __init__(self, argv: list[str]) -> None:
        self.proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=ROOT,
        )
        self.lines: queue.Queue[bytes | None] = queue.Queue()
        self.stderr: deque[bytes] = deque(maxlen=50)
        self.logs: list[str] = []
        threading.Thread(target=self._pump_stdout, daemon=True).start()
        threading.Thread(target=self._pump_stderr, daemon=True).start()

    def _pump_stdout(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)  # end of output

    def _pump_stderr(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.stderr.append(line)

    def tail(self) -> str:
        """The last lines of the engine's standard error, for failure messages."""
        return b"".join(self.stderr).decode(errors="replace")

    def send(self, message: Mapping[str, Any]) -> None:
        """Write one message as a protocol line."""
        self.send_raw(protocol.encode(message))

    def send_raw(self, line: bytes) -> None:
        """Write bytes as they are (a line of the caller's making)."""
        assert self.proc.stdin is not None
        self.proc.stdin.write(line)
        self.proc.stdin.flush()

    def read(self) -> dict[str, Any]:
        """The engine's next message but ``log`` ones (kept in ``logs``)."""
        while True:
            try:
                line = self.lines.get(timeout=TIMEOUT)
            except queue.Empty:
                pytest.fail(f"the engine did not answer within {TIMEOUT} s\n{self.tail()}")
            if line is None:
                pytest.fail(
                    f"the engine closed its output (exit {self.proc.poll()})\n{self.tail()}"
                )
            message = protocol.decode(line)
            if message["type"] == "log":
                assert isinstance(message.get("text"), str), message
                self.logs.append(message["text"])
                continue
            return message

    def expect(self, kind: str, seq: int) -> dict[str, Any]:
        """The next message, which must be of type ``kind`` with ``seq``."""
        message = self.read()
        assert message["type"] == kind, message
        assert message["seq"] == seq, f"answered seq {message['seq']}, not {seq}"
        return message

    def handshake(self) -> dict[str, Any]:
        """``hello`` and a first ``isready``; the engine's ``id``."""
        self.send(protocol.hello("skitgubbe tests"))
        ident = self.read()
        self.send({"type": "isready", "seq": 1})
        self.expect("readyok", 1)
        return ident

    def quit(self) -> None:
        """Send ``quit``; the engine must exit with code 0 in time, on ``quit`` alone
        (its standard input stays open until it has exited)."""
        self.send({"type": "quit"})
        self.wait_for_exit()

    def wait_for_exit(self) -> None:
        """The engine must exit with code 0 within the timeout."""
        try:
            code = self.proc.wait(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            pytest.fail(f"the engine did not exit within {TIMEOUT} s")
        assert self.lines.get(timeout=TIMEOUT) is None, "output after quit"
        assert code == 0, f"exit code {code}\n{self.tail()}"

    def kill(self) -> None:
        """Kill the process if it still runs, and close its pipes."""
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=TIMEOUT)
        for pipe in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if pipe is not None:
                with contextlib.suppress(OSError):  # a broken pipe to an engine that died
                    pipe.close()


@pytest.fixture
def engine(command: list[str]) -> Iterator[Engine]:
    """One engine process, always killed at the end of the test."""
    process = Engine(command)
    try:
        yield process
    finally:
        process.kill()


class Table:
    """The referee side of these tests: engines at some seats, GreedyBot at the others."""

    def __init__(self, engines: Mapping[int, Engine], *, noise: bool = False) -> None:
        self.engines = engines
        self.noise = noise  # unknown messages and keys mixed in
        self.seq = 100
        self.moves_by_engines = 0

    def play(self, game_id: str, rules: sg.Rules, seed: int) -> sg.GameResult:
        """Play one game to its end; every engine move must be legal."""
        game = sg.Game.new(rules, seed=seed)
        bot = sg.bots.GreedyBot()
        sent = dict.fromkeys(self.engines, 0)
        for seat, engine in self.engines.items():
            engine.send(protocol.new_game(game_id, seat, rules, move_time=TIMEOUT))
        while game.result is None:
            mover = game.to_move
            assert mover is not None
            player = self.engines.get(mover)
            if player is None:
                game.play(bot.choose(game.observation(mover)))
                continue
            view = game.observation(mover)
            self._send_events(player, view, sent, mover)
            self.seq += 1
            go = protocol.go(self.seq, view, protocol.Clock(move_time=TIMEOUT, remaining=None))
            if self.noise and self.seq % 3 == 0:
                player.send({"type": "whatever", "x": 1})
                go["future"] = {"nested": [1, {"a": '\u2665 "quoted" \\'}], "b": None}
                go["observation"]["future"] = [[], {}, [{"x": [True, False, -1.5e3]}]]
            player.send(go)
            answer = player.expect("move", self.seq)
            text = answer["move"]
            assert text in go["legal_moves"], f"{text!r} is not one of {go['legal_moves']}"
            move = sg.Move.parse(text)
            assert game.is_legal(move), f"{text!r} is illegal in {game_id}"
            game.play(move)
            self.moves_by_engines += 1
        for seat, engine in self.engines.items():
            self._send_events(engine, game.observation(seat), sent, seat)
            engine.send(protocol.game_over(game.result))
        return game.result

    @staticmethod
    def _send_events(engine: Engine, view: sg.Observation, sent: dict[int, int], seat: int) -> None:
        new = view.history.since(sent[seat])
        if new:
            engine.send(protocol.events(new))
            sent[seat] += len(new)


def test_handshake(engine: Engine) -> None:
    """``hello`` gets ``id`` (protocol 1, name, author, options); ``isready`` its seq."""
    ident = engine.handshake()
    assert ident["type"] == "id"
    assert ident["protocol"] == 1
    assert isinstance(ident["name"], str) and ident["name"]
    assert isinstance(ident["author"], str) and ident["author"]
    options = ident["options"]
    assert isinstance(options, list)
    style = next(option for option in options if option["name"] == "style")
    assert style["type"] == "choice" and style["default"] in style["choices"]
    engine.send({"type": "isready", "seq": 987654321})
    engine.expect("readyok", 987654321)
    engine.quit()


@pytest.mark.parametrize(
    ("rules", "games"),
    [
        (sg.Rules.classic(3), 10),
        (sg.Rules.modern(3), 5),
        (sg.Rules.classic(2), 2),
        (sg.Rules.modern(2), 2),
        (sg.Rules.classic(4), 2),
        (sg.Rules.modern(4), 2),
    ],
    ids=["classic3", "modern3", "classic2", "modern2", "classic4", "modern4"],
)
def test_plays_complete_games(engine: Engine, rules: sg.Rules, games: int) -> None:
    """Whole games, the engine at every seat in turn, GreedyBot at the others."""
    engine.handshake()
    table_games = 0
    for number in range(games):
        seat = number % rules.players
        table = Table({seat: engine})
        result = table.play(f"g{number}", rules, seed=1000 + number)
        assert result is not None
        assert table.moves_by_engines > 0
        table_games += 1
        engine.send({"type": "isready", "seq": number + 2})
        engine.expect("readyok", number + 2)
    assert table_games == games
    engine.quit()


def test_high_style_plays_complete_games(engine: Engine) -> None:
    """``set_option style high`` is honoured: games still finish with legal moves."""
    engine.send(protocol.hello("skitgubbe tests"))
    engine.read()
    engine.send({"type": "set_option", "name": "style", "value": "high"})
    engine.send({"type": "isready", "seq": 1})
    engine.expect("readyok", 1)
    for number, rules in enumerate([sg.Rules.classic(3), sg.Rules.modern(3)]):
        result = Table({1: engine}).play(f"high{number}", rules, seed=77 + number)
        assert result is not None
    engine.quit()


def test_style_option_changes_the_choice(engine: Engine) -> None:
    """Style ``low`` plays the lowest card, ``high`` the highest; a bad value is kept out."""
    engine.handshake()
    game = sg.Game.new(seed=2)
    view = game.observation(0)
    go = protocol.go(5, view, protocol.Clock())
    assert go["legal_moves"] == ["4H", "6H", "JH", "flip"]
    engine.send(go)
    assert engine.expect("move", 5)["move"] == "4H"
    engine.send({"type": "set_option", "name": "style", "value": "high"})
    engine.send({**go, "seq": 6})
    assert engine.expect("move", 6)["move"] == "JH"
    engine.send({"type": "set_option", "name": "style", "value": "sideways"})
    engine.send({"type": "set_option", "name": "no-such-option", "value": 3})
    engine.send({**go, "seq": 7})
    assert engine.expect("move", 7)["move"] == "JH"  # the old value stays
    engine.send({"type": "set_option", "name": "style", "value": "low"})
    engine.send({**go, "seq": 8})
    assert engine.expect("move", 8)["move"] == "4H"
    engine.quit()


def test_unknown_messages_and_keys_are_ignored(engine: Engine) -> None:
    """Unknown types, unknown keys (nested, escaped) and non-messages change nothing."""
    engine.send({"type": "hello", "protocol": 1, "referee": "x", "future": {"a": [1, 2]}})
    assert engine.read()["type"] == "id"
    engine.send({"type": "whatever", "x": 1})
    engine.send_raw(b'{"x": "no type"}\n[1, 2, 3]\nnot json at all\n\n{"type": 5}\n')
    engine.send_raw(
        '{"type":"whatever","s":"\\u2665 \\"}\\" \u2665","n":[{"type":"go"}]}\n'.encode()
    )
    engine.send({"seq": 2, "extra": [{"seq": 99}], "type": "isready"})
    engine.expect("readyok", 2)
    table = Table({0: engine}, noise=True)
    for number, rules in enumerate([sg.Rules.classic(3), sg.Rules.modern(3), sg.Rules.modern(2)]):
        assert table.play(f"noise{number}", rules, seed=5 + number) is not None
    engine.send({"type": "whatever", "x": 1})
    engine.send({"type": "isready", "seq": 3})
    engine.expect("readyok", 3)
    engine.quit()


def test_answers_the_seq_of_each_go(engine: Engine) -> None:
    """A stale case: a go the referee gave up on, then the same position again with a
    new seq; each answer carries the seq of its own go, in order. Seqs need not be
    consecutive or increasing."""
    engine.handshake()
    game = sg.Game.new(sg.Rules.classic(3), seed=11)
    seat = game.to_move
    assert seat is not None
    engine.send(protocol.new_game("stale", seat, game.rules))
    view = game.observation(seat)
    engine.send(protocol.events(view.history))
    first = protocol.go(40, view, protocol.Clock(move_time=0.001))
    engine.send(first)
    engine.send({**first, "seq": 41})  # sent before reading the answer to 40
    assert engine.expect("move", 40)["move"] in first["legal_moves"]
    assert engine.expect("move", 41)["move"] in first["legal_moves"]
    engine.send({**first, "seq": 7})
    engine.expect("move", 7)
    engine.send({"type": "isready", "seq": 3})
    engine.send({**first, "seq": 2**40})
    engine.expect("readyok", 3)
    engine.expect("move", 2**40)
    engine.send(protocol.game_over(None, reason="stopped"))
    engine.quit()


def test_two_engines_at_one_table(c_engine: Path) -> None:
    """The C and the JavaScript engine play against each other and GreedyBot."""
    c = Engine([str(c_engine)])
    js = Engine([_require("node"), str(ENGINES / "js" / "lowbot.js")])
    try:
        for each in (c, js):
            each.handshake()
        for number in range(3):
            table = Table({number % 3: c, (number + 1) % 3: js})
            assert table.play(f"duo{number}", sg.Rules.modern(3), seed=300 + number) is not None
        c.quit()
        js.quit()
    finally:
        c.kill()
        js.kill()


def test_end_of_input_exits_cleanly(engine: Engine) -> None:
    """Closing the engine's standard input without ``quit`` ends it with code 0."""
    engine.handshake()
    assert engine.proc.stdin is not None
    engine.proc.stdin.close()
    engine.wait_for_exit()


def test_long_lines(engine: Engine) -> None:
    """A line far longer than any buffer a reader might start with is read whole."""
    engine.handshake()
    padding = "x" * 300_000
    engine.send({"type": "isready", "seq": 9, "padding": padding, "deep": [[[[[[]]]]]]})
    engine.expect("readyok", 9)
    engine.quit()


@pytest.mark.slow
@pytest.mark.parametrize("how", [{}, {"jobs": 2, "timeout": 2.0}], ids=["in-process", "workers"])
def test_an_arena_match_between_the_example_engines_and_a_built_in_bot(
    c_engine: Path, how: dict[str, Any]
) -> None:
    """``cmd:`` entrants: each engine is started once (per worker) and plays every game
    of the match; none crashes, and the C and the JavaScript lowbot play alike."""
    c_spec = f"cmd:{shlex.quote(str(c_engine))}"
    js_spec = "cmd:" + shlex.join([_require("node"), str(ENGINES / "js" / "lowbot.js")])
    result = sg.run_match([c_spec, js_spec, "greedy"], deals=10, seed=2, **how)
    assert len(result.games) == 60 and result.crashes == ()
    c_stats, js_stats = result.entrant(c_spec), result.entrant(js_spec)
    assert c_stats.games == js_stats.games == 60
    # The same rules in two languages: by symmetry of the arrangements, equal figures.
    assert c_stats.loss_rate == js_stats.loss_rate
    assert c_stats.mean_place == js_stats.mean_place
    high = f"cmd[style=high]:{shlex.quote(str(c_engine))}"
    styled = sg.run_match([high, "greedy"], deals=5, seed=2, **how)
    plain = sg.run_match([c_spec, "greedy"], deals=5, seed=2, **how)
    assert styled.crashes == () and plain.crashes == ()
    # The option reached the engine: it plays other games.
    assert [g.moves for g in styled.games] != [g.moves for g in plain.games]
