"""Engine specs (``cmd:COMMAND``) outside the arena: parsing, the registry, the pool,
options between games, a game taken back, sessions and play, and an engine that dies
with a referee killed before it could clean up."""

from __future__ import annotations

import grp
import io
import json
import os
import pwd
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from engine_support import GREEDY, Marked, marked_engines, marked_processes, script, wait_gone

import skitgubbe as sg
from skitgubbe import bots
from skitgubbe.bots import BotPool, EngineSpec, is_engine_spec
from skitgubbe.engine import EnginePlayer, Limits, protocol

GREEDY_SPEC = "cmd:" + shlex.join(GREEDY)


@pytest.fixture
def engines() -> Iterator[Marked]:
    yield from marked_engines()


def received(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


# -- parsing ------------------------------------------------------------------------------


def test_an_engine_spec_splits_its_command_like_a_shell_and_shares_out_its_options() -> None:
    spec = EngineSpec.parse(
        "cmd[move_time=0.5,game_time=30,increment=0.1,grace=0,memory=1.5G,cpu_time=20,"
        "open_files=64,name=mine,style=high,depth=3,fast=true]:./my\\ bot --level 'two words'"
    )
    assert spec.command == ("./my bot", "--level", "two words")
    assert spec.options == {"style": "high", "depth": 3, "fast": True}
    assert spec.settings == {
        "move_time": 0.5,
        "game_time": 30,
        "increment": 0.1,
        "grace": 0,
        "name": "mine",
        "limits": Limits(memory=3 * 2**29, cpu_time=20, open_files=64),
    }
    assert EngineSpec.parse("  CMD:node bot.js") == EngineSpec(("node", "bot.js"))
    assert EngineSpec.parse("cmd[]:./b") == EngineSpec(("./b",))
    assert EngineSpec.parse("cmd[memory=512k]:./b").settings["limits"].memory == 512 * 1024


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("cmd:", "has no command"),
        ("cmd:   ", "has no command"),
        ("cmd[move_time=1]:", "has no command"),
        ("cmd[move_time=1:./b", "options go in brackets before the colon"),
        ("cmd:'./b", "bad command: No closing quotation"),
        ("cmd[seed=1]:./b", "the seed is not part of a spec"),
        ("cmd[depth]:./b", "bot option 'depth' in 'cmd[depth]:./b' is not key=value"),
        ("cmd[memory=lots]:./b", "memory in 'cmd[memory=lots]:./b' is a number of bytes"),
        ("cmd[memory=-1]:./b", "Limits.memory must be a positive number"),
        ("greedy", "an engine spec begins with 'cmd:'"),
    ],
)
def test_a_bad_engine_spec_names_what_is_wrong(spec: str, message: str) -> None:
    with pytest.raises(sg.ArgumentError, match=message.replace("[", r"\[").replace("]", r"\]")):
        EngineSpec.parse(spec)


def test_engine_specs_are_told_apart_from_bot_specs() -> None:
    assert is_engine_spec("cmd:./b") and is_engine_spec(" Cmd[x=1]:./b")
    assert not any(is_engine_spec(s) for s in ("greedy", "cmdbot", "cmd", 3, None))
    assert bots.parse_spec("cmd[move_time=1,style=high]:node a,b.js") == (
        "cmd",
        {"move_time": 1, "style": "high", "command": "node a,b.js"},
    )


# -- the registry and the pool ---------------------------------------------------------


@pytest.mark.parametrize(
    "spec",
    [f"{name}:seed=1" for name in bots.available() if name != "cmd"]  # cmd:COMMAND
    + [
        "greedy: seed = 7",
        "random:Seed=2",
        "pimc:worlds=2,seed=1",
        "cmd[seed=1]:./b",
        "cmd[move_time=1,seed=2]:b",
    ],
)
def test_a_seed_in_any_bot_spec_is_refused_saying_where_seeds_come_from(spec: str) -> None:
    for refuse in (bots.parse_spec, bots.make):
        with pytest.raises(sg.ArgumentError) as caught:
            refuse(spec)
        assert str(caught.value) == (
            f"bot spec {spec!r}: seeds are never part of a spec: the tool that makes the bot "
            "gives it its seed (the commands, arena, sprt, ladder, session and play, derive one "
            "per game and seat from their --seed; in Python, bots.make(spec, seed=...))"
        )


def test_the_arena_refuses_a_seed_in_a_spec_in_a_line() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "skitgubbe", "arena", "greedy:seed=1", "random", "--deals", "1"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert done.stderr.startswith("skitgubbe: error: bot spec 'greedy:seed=1': seeds are never")
    assert done.stderr.count("\n") == 1


def test_make_starts_an_engine_from_its_spec(
    engines: Marked, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SKITGUBBE_TEST_ENGINE", engines.marker)
    player = bots.make(f"cmd[move_time=2,name=mine]:{shlex.join(GREEDY)}", seed=3)
    assert isinstance(player, EnginePlayer)
    try:
        assert player.name == "mine" and player.move_time == 2.0 and player.id is not None
        assert sg.play_game([player, sg.bots.GreedyBot()], seed=1) == sg.play_game(
            [sg.bots.GreedyBot()] * 2, seed=1
        )
    finally:
        player.close()
    with pytest.raises(sg.ArgumentError, match="engine 'greedy' has no option 'depth'"):
        bots.make(f"cmd[depth=2]:{shlex.join(GREEDY)}")
    with pytest.raises(sg.EngineError, match=r"\(start\): cannot run ./no-such-engine"):
        bots.make("cmd:./no-such-engine")
    with pytest.raises(sg.ArgumentError, match="an engine bot needs a command"):
        bots.make("cmd")


def test_a_pool_keeps_one_engine_per_spec_and_slot_and_seeds_it_for_each_game(
    monkeypatch: pytest.MonkeyPatch, engines: Marked
) -> None:
    monkeypatch.setenv("SKITGUBBE_TEST_ENGINE", engines.marker)
    spec = "cmd:" + shlex.join([*GREEDY[:-1], "random"])
    with BotPool() as pool:
        first = pool.make(spec, seed=1, slot=0)
        assert pool.make(spec, seed=2, slot=0) is first
        other = pool.make(spec, seed=2, slot=1)
        assert other is not first and len(pool.engines) == 2
        assert pool.make("random", seed=2) is not pool.make("random", seed=2)  # in process
        results = []
        for game in range(3):
            lineup = [pool.make(spec, seed=10 + game, slot=0), sg.bots.GreedyBot()]
            results.append(sg.play_game(lineup, seed=game))
        assert isinstance(first, EnginePlayer)
        pid, child = first.pid, first.child_pid  # the child: the engine's keeper on Linux
        assert child is not None
        first.kill()  # an engine that ended between games: the next game starts another
        os.waitid(os.P_PID, child, os.WEXITED | os.WNOWAIT)  # dead (not reaped: the player does)
        assert pool.make(spec, seed=12, slot=0) is first and first.running and first.pid != pid
        engines_made = pool.engines
    assert results == [
        sg.play_game(
            [sg.bots.RandomBot(seed=bots.blinded_seed(10 + game)), sg.bots.GreedyBot()], seed=game
        )
        for game in range(3)
    ]
    assert not any(engine.running for engine in engines_made)
    assert wait_gone(engines.marker) == []


# -- options between games and a game taken back -----------------------------------------


def test_set_option_is_checked_sent_between_games_and_after_a_fault(
    engines: Marked, tmp_path: Path
) -> None:
    log = tmp_path / "received.jsonl"
    engine = engines(script("first", str(log)))
    engine.set_option("depth", 5)
    with pytest.raises(sg.ArgumentError, match="option 'depth' must be at most 8, not 9"):
        engine.set_option("depth", 9)
    with pytest.raises(sg.ArgumentError, match="option 'fast' takes a bool, not 1"):
        engine.set_option("fast", 1)
    with pytest.raises(sg.ArgumentError, match="has no option 'width'"):
        engine.set_option("width", 1)
    with pytest.raises(sg.ArgumentTypeError, match="option names are str"):
        engine.set_option(3, 1)  # type: ignore[arg-type]
    assert engine.ping() < 5  # the engine has read what came before
    sets = [m for m in received(log) if m["type"] == "set_option"]
    assert sets == [{"type": "set_option", "name": "depth", "value": 5}]
    pid, child = engine.pid, engine.child_pid  # the child: the engine's keeper on Linux
    assert pid is not None and child is not None
    engine.kill()
    os.waitid(os.P_PID, child, os.WEXITED | os.WNOWAIT)  # dead, not yet reaped
    engine.start()  # a fresh process hears the option in its handshake
    assert engine.pid != pid
    engine.ping()
    messages = received(log)
    last_hello = max(i for i, m in enumerate(messages) if m["type"] == "hello")
    assert {"type": "set_option", "name": "depth", "value": 5} in messages[last_hello:]
    engine.close()
    with pytest.raises(sg.ArgumentError, match="is closed"):
        engine.set_option("depth", 2)
    with pytest.raises(sg.ArgumentError, match="is closed"):
        engine.start()


def test_a_game_taken_back_is_told_to_the_engine_as_a_new_game(
    engines: Marked, tmp_path: Path
) -> None:
    log = tmp_path / "received.jsonl"
    engine = engines(script("first", str(log)))
    game = sg.Game.new(sg.Rules.classic(players=2), seed=4)
    for _ in range(12):  # the engine at seat 0, the first legal move at seat 1
        seat = game.to_move
        view = game.observation(seat)  # type: ignore[arg-type]
        game.play(engine.choose(view) if seat == 0 else view.legal_moves[0])
    assert [m["type"] for m in received(log)].count("new_game") == 1
    while game.moves_played > 5:
        game.undo()
    while game.to_move != 0:
        game.play(game.legal_moves[-1])  # another line of play than before
    engine.choose(game.observation(0))
    messages = received(log)
    starts = [i for i, m in enumerate(messages) if m["type"] == "new_game"]
    assert len(starts) == 2
    told = [e for m in messages[starts[1] :] if m["type"] == "events" for e in m["events"]]
    history = game.observation(0).history
    assert told == [protocol.event_json(event) for event in history]


def test_a_whole_game_is_one_new_game_for_the_engine(engines: Marked, tmp_path: Path) -> None:
    log = tmp_path / "received.jsonl"
    engine = engines(script("first", str(log)))
    sg.play_game([engine, sg.bots.GreedyBot(), sg.bots.RandomBot(seed=1)], seed=2)
    engine.ping()  # game_over has no answer: wait until it is read
    kinds = [m["type"] for m in received(log)]
    assert kinds.count("new_game") == 1 and kinds.count("game_over") == 1
    assert kinds.count("go") > 10


# -- sessions and play --------------------------------------------------------------------


def test_a_session_of_engines_plays_saves_and_resumes_as_the_bots_in_process(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from skitgubbe.apps.cli import main

    marker = os.urandom(8).hex()
    monkeypatch.setenv("SKITGUBBE_TEST_ENGINE", marker)
    random_spec = "cmd:" + shlex.join([*GREEDY[:-1], "random"])

    def games(*args: str) -> list[str]:
        assert main(["session", "--seed", "3", *args]) == 0
        lines = capsys.readouterr().out.splitlines()
        return [line for line in lines if line.startswith("game")]

    here = games("--games", "6", "--bots", "greedy", "random", "greedy")
    part = tmp_path / "part.json"
    first = games("--games", "2", "--bots", GREEDY_SPEC, random_spec, "greedy", "--save", str(part))
    assert json.loads(part.read_text())["bots"] == [GREEDY_SPEC, random_spec, "greedy"]
    rest = games("--games", "4", "--resume", str(part))
    assert first + rest == here
    with pytest.raises(SystemExit):
        main(["session", "--resume", str(part), "--bots", "greedy"])
    assert "does not match the saved session's bots" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["session", "--bots", "greedy", "random"])
    assert "--bots takes one spec for all 3 seats or one per seat, not 2" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["session", "--bots", "nobody"])
    assert "no bot named 'nobody'" in capsys.readouterr().err
    assert wait_gone(marker) == []


def test_play_closes_the_engines_it_started(monkeypatch: pytest.MonkeyPatch) -> None:
    from rich.console import Console

    from skitgubbe.apps.play import PlaySession

    marker = os.urandom(8).hex()
    monkeypatch.setenv("SKITGUBBE_TEST_ENGINE", marker)
    screen = Console(file=io.StringIO(), force_terminal=False, width=100)
    session = PlaySession.new(
        bots=[GREEDY_SPEC, "random"], seed=5, console=screen, input=lambda p: "1", autosave=False
    )
    assert session.run() == 0 and session.game.result is not None
    assert wait_gone(marker) == []


# -- a referee killed outright ------------------------------------------------------------


@pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="the parent-death signal is Linux's"
)
def test_an_engine_dies_with_a_referee_killed_before_it_could_clean_up(tmp_path: Path) -> None:
    # The deaf engine outlives the end of its input: only the parent-death signal (set
    # between fork and exec) ends it when its referee is killed outright.
    marker = os.urandom(8).hex()
    program = textwrap.dedent(
        f"""
        import sys
        from skitgubbe.engine import EnginePlayer
        engine = EnginePlayer({script("deaf")!r})
        print(engine.pid, flush=True)
        sys.stdin.read()
        """
    )
    env = {**os.environ, "SKITGUBBE_TEST_ENGINE": marker}
    referee = subprocess.Popen(
        [sys.executable, "-c", program], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env
    )
    try:
        assert referee.stdout is not None
        pid = int(referee.stdout.readline())
        assert pid in marked_processes(marker)
        referee.send_signal(signal.SIGKILL)  # no finalizer, no atexit: only the kernel
        referee.wait()
        assert wait_gone(marker, grace=5.0) == []
    finally:
        referee.kill()
        referee.wait()
    # The engine was the referee's child, not ours: once dead it is gone, or a zombie
    # until whoever adopted it reaps it (its environment goes unreadable while it exits).
    stat = Path(f"/proc/{pid}/stat")
    deadline = time.monotonic() + 5
    while True:
        try:
            state = stat.read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            state = "gone"
        if state in ("gone", "Z", "X") or time.monotonic() > deadline:
            break
        time.sleep(0.01)
    assert state in ("gone", "Z", "X"), f"engine {pid} outlived its referee (state {state})"


# -- another user -------------------------------------------------------------------------


def test_an_engine_runs_as_another_user_with_no_groups(tmp_path: Path) -> None:
    # A process of the referee's own user could read the referee's memory; one of another
    # user cannot. Switching users needs root: elsewhere the start fails, clearly.
    node = shutil.which("node")
    assert node is not None, "node runs the JavaScript example engine"
    with pytest.raises(sg.ArgumentTypeError, match="user is a name or a number"):
        EnginePlayer([node, "-e", ""], user=1.5)  # type: ignore[arg-type]
    if os.geteuid() != 0:
        with pytest.raises(sg.EngineError, match=r"\(start\): cannot run"):
            EnginePlayer([node, "-e", ""], user="nobody")
        return
    home = Path(tempfile.mkdtemp())  # a folder the other user can read
    try:
        home.chmod(0o755)
        engine_file = home / "lowbot.js"
        shutil.copy(Path(__file__).parent.parent / "examples/engines/js/lowbot.js", engine_file)
        engine_file.chmod(0o644)
        nobody = pwd.getpwnam("nobody")
        group = grp.getgrgid(nobody.pw_gid).gr_name
        spec = f"cmd[user=nobody,group={group},move_time=5]:{node} {engine_file}"
        with BotPool() as pool:
            engine = pool.start(spec)
            status = Path(f"/proc/{engine.pid}/status").read_text().splitlines()
            fields = dict(line.split(":", 1) for line in status)
            assert fields["Uid"].split() == [str(nobody.pw_uid)] * 4
            assert fields["Gid"].split() == [str(nobody.pw_gid)] * 4
            assert fields["Groups"].split() == []
            result = sg.play_game([engine, sg.bots.GreedyBot()], seed=3)
            assert result.moves_played > 0
    finally:
        shutil.rmtree(home)
