"""EnginePlayer in normal operation: the handshake, options, whole games against
in-process bots (the same results as in process), the clocks sent, close, the guards
that kill a forgotten engine, a fresh engine after a fault, and the asyncio player."""

from __future__ import annotations

import asyncio
import gc
import itertools
import json
import os
import random
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from engine_support import (
    GREEDY,
    MARKER,
    Marked,
    marked_engines,
    processes,
    script,
    wait_gone,
)
from test_hidden_information import swappable, swapped

import skitgubbe as sg
from skitgubbe import _core
from skitgubbe.engine import KEEPER, AsyncEnginePlayer, EnginePlayer, Limits


@pytest.fixture
def engines() -> Iterator[Marked]:
    yield from marked_engines()


class First:
    """In process, what the test engines play: the first legal move."""

    def choose(self, observation: sg.Observation) -> sg.Move:
        return observation.legal_moves[0]


def received(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


# -- the handshake and options -------------------------------------------------------------


def test_the_handshake_reads_the_engines_id(engines: Marked) -> None:
    engine = engines(GREEDY)
    assert engine.id is not None
    assert (engine.id.name, engine.id.author, engine.id.version) == (
        "greedy",
        "skitgubbe",
        sg.__version__,
    )
    assert [option["name"] for option in engine.id.options] == ["seed"]
    assert engine.running and engine.pid is not None and engine.name == "greedy"


def test_options_are_set_and_checked_against_what_the_engine_declared(
    engines: Marked, tmp_path: Path
) -> None:
    record = tmp_path / "received.jsonl"
    engine = engines(
        script("first", str(record)), options={"depth": 5, "style": "bold", "fast": True}
    )
    assert engine.id is not None and engine.id.option("depth") is not None
    sent = received(record)
    assert [m["type"] for m in sent] == [
        "hello",
        "set_option",
        "set_option",
        "set_option",
        "isready",
    ]
    assert [(m["name"], m["value"]) for m in sent[1:4]] == [
        ("depth", 5),
        ("style", "bold"),
        ("fast", True),
    ]
    bad: list[tuple[dict[str, object], str]] = [
        ({"width": 3}, "has no option 'width'"),
        ({"depth": "deep"}, "option 'depth' takes an int"),
        ({"depth": True}, "option 'depth' takes an int"),
        ({"fast": 1}, "option 'fast' takes a bool"),
        ({"depth": 9}, "option 'depth' must be at most 8"),
        ({"style": "wild"}, "option 'style' is one of ['safe', 'bold']"),
    ]
    for options, message in bad:
        with pytest.raises(sg.ArgumentError, match=message.replace("[", r"\[")):
            engines(script("first"), options=options)
    assert wait_gone(engines.marker, 0) == processes(engine)  # the refused ones are gone


def test_a_built_in_bots_options_reach_it(engines: Marked) -> None:
    engine = engines([sys.executable, "-m", "skitgubbe", "engine", "pimc"], options={"worlds": 4})
    result = sg.play_game([engine, sg.bots.GreedyBot()], seed=3)
    assert result.loser is not None or result.truncated


# -- whole games ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("players", "seats", "seed"), [(2, [1], 5), (3, [0, 2], 11), (4, [0, 1, 3], 7)]
)
def test_a_game_with_engines_is_the_same_game_as_in_process(
    engines: Marked, players: int, seats: list[int], seed: int
) -> None:
    lineup: list[sg.Player] = [
        engines(GREEDY, move_time=10) if seat in seats else sg.bots.GreedyBot()
        for seat in range(players)
    ]
    for round_ in range(2):  # the same engines play a second game
        game = sg.Game.new(sg.Rules.classic(players), seed=seed + round_)
        result = sg.play_game(lineup, game=game)
        twin = sg.Game.new(sg.Rules.classic(players), seed=seed + round_)
        assert result == sg.play_game([sg.bots.GreedyBot()] * players, game=twin)
        assert game.moves == twin.moves
    assert all(player.running for player in lineup if isinstance(player, EnginePlayer))


def test_a_talkative_engine_is_understood(engines: Marked) -> None:
    """Logs kept, unknown messages and keys ignored, blank lines skipped, stale answers
    dropped."""
    engine = engines(script("chatty"))
    first = sg.play_game([engine, sg.bots.GreedyBot()], seed=2)
    assert first.loser is not None or first.truncated
    assert engine.logs and engine.logs[-1].startswith("thinking about go ")
    assert len(engine.logs) <= engine.logs.maxlen  # type: ignore[operator]


def test_the_clocks_are_sent(engines: Marked, tmp_path: Path) -> None:
    record = tmp_path / "received.jsonl"
    engine = engines(script("first", str(record)), move_time=2.0, game_time=30.0, increment=0.5)
    game = sg.Game.new(seed=4)
    sg.play_game([engine, sg.bots.GreedyBot(), sg.bots.GreedyBot()], game=game)
    engine.close()  # game_over is not answered: closing waits until the engine has read it
    *sent, farewell = received(record)
    assert farewell["type"] == "quit"
    kinds = [m["type"] for m in sent]
    assert kinds[:3] == ["hello", "isready", "new_game"]
    assert kinds[-1] == "game_over" and kinds.count("new_game") == 1
    new_game = sent[2]
    assert new_game["clock"] == {"move_time": 2.0, "game_time": 30.0, "increment": 0.5}
    assert new_game["seat"] == 0 and new_game["rules"] == sg.Rules.classic(3).to_dict()
    assert sent[3]["type"] == "events" and sent[3]["events"][0]["kind"] == "deal"
    goes = [m for m in sent if m["type"] == "go"]
    assert len(goes) > 5
    assert goes[0]["clock"] == {"move_time": 2.0, "remaining": 30.0, "increment": 0.5}
    seqs = [m["seq"] for m in goes]
    assert seqs == sorted(set(seqs))
    for before, after in itertools.pairwise(goes):
        # each move costs a little time and earns the increment
        assert after["clock"]["remaining"] < before["clock"]["remaining"] + 0.5
        assert after["clock"]["remaining"] > before["clock"]["remaining"] + 0.5 - 1.0
    assert all(m["clock"]["move_time"] == 2.0 for m in goes)
    # every event of the game reached the engine exactly once, in order
    events = [e for m in sent if m["type"] == "events" for e in m["events"]]
    history = game.observation(0).history
    assert [e["kind"] for e in events] == [e.kind.name.lower() for e in history]
    assert sent[-1]["result"]["moves"] > 0


def test_no_game_time_means_no_remaining(engines: Marked, tmp_path: Path) -> None:
    record = tmp_path / "received.jsonl"
    engine = engines(script("first", str(record)))
    game = sg.Game.new(seed=1)
    engine.choose(game.observation(0))
    go = next(m for m in received(record) if m["type"] == "go")
    assert go["clock"] == {"move_time": None, "remaining": None, "increment": 0.0}


# -- the end of an engine ------------------------------------------------------------------------


def test_close_ends_the_process_and_is_idempotent(engines: Marked) -> None:
    engine = engines(script("forker", "polite"))
    sg.play_game([engine, sg.bots.GreedyBot()], seed=1)
    assert len(engines.alive()) == 3 + KEEPER  # the engine, its two children (and keeper)
    engine.close()
    engine.close()
    assert not engine.running and engine.pid is None
    assert wait_gone(engines.marker) == []
    with pytest.raises(sg.ArgumentError, match="is closed"):
        engine.game_started(sg.Game.new(seed=1).observation(0))


def test_a_forgotten_player_does_not_leave_its_engine_behind(engines: Marked) -> None:
    engine = EnginePlayer(GREEDY, env=engines.env)
    assert engines.alive() == processes(engine)
    del engine
    gc.collect()
    assert wait_gone(engines.marker) == []


def test_the_interpreters_exit_does_not_leave_an_engine_behind(engines: Marked) -> None:
    code = (
        "import sys\n"
        "from skitgubbe.engine import EnginePlayer\n"
        f"keep = [EnginePlayer({script('forker', 'polite')!r}) for _ in range(2)]\n"
        "print(keep[0].pid, flush=True)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        env=engines.env,  # the engines inherit the marker through the child's environment
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) > 0
    # The interpreter carries the marker too, but it has exited.
    assert wait_gone(engines.marker) == []


def test_an_engine_that_cannot_start_is_a_start_error(engines: Marked, tmp_path: Path) -> None:
    with pytest.raises(sg.EngineError, match=r"\(start\): cannot run") as caught:
        engines([str(tmp_path / "no-such-engine")])
    assert caught.value.kind == "start" and caught.value.returncode is None
    with pytest.raises(
        sg.EngineError, match="closed its output while the referee awaited id"
    ) as caught:
        engines([sys.executable, "-c", "import sys; sys.exit(4)"])
    assert caught.value.kind == "exit" and caught.value.returncode == 4


def test_a_wrong_protocol_version_is_refused(engines: Marked) -> None:
    code = (
        "import json, sys\n"
        "sys.stdin.readline()\n"
        "print(json.dumps({'type': 'id', 'protocol': 2, 'name': 'future'}), flush=True)\n"
        "sys.stdin.readline()\n"
    )
    with pytest.raises(sg.EngineError, match="speaks protocol 2") as caught:
        engines([sys.executable, "-c", code])
    assert caught.value.kind == "handshake"


def test_a_silent_handshake_times_out(engines: Marked) -> None:
    started = time.monotonic()
    with pytest.raises(
        sg.EngineError, match=r"no id \(the answer to hello\) within 0\.3 s"
    ) as caught:
        engines([sys.executable, "-c", "import time; time.sleep(30)"], handshake_time=0.3)
    assert caught.value.kind == "handshake"
    assert time.monotonic() - started < 3


def test_after_a_fault_the_next_game_starts_a_fresh_engine(engines: Marked, tmp_path: Path) -> None:
    engine = engines(script("crash", str(tmp_path / "crashed-once")))
    first_pid = engine.pid
    lineup: list[sg.Player] = [engine, sg.bots.GreedyBot()]
    with pytest.raises(sg.PlayerError) as caught:
        sg.play_game(lineup, seed=3)
    assert isinstance(caught.value.cause, sg.EngineError)
    assert caught.value.cause.kind == "exit" and caught.value.cause.returncode == 3
    assert not engine.running
    result = sg.play_game(lineup, seed=3)  # one fault costs one game
    assert engine.running and engine.pid != first_pid
    assert result == sg.play_game([First(), sg.bots.GreedyBot()], seed=3)


def test_limits_are_validated() -> None:
    with pytest.raises(sg.ArgumentError, match=r"Limits\.cpu_time"):
        Limits(cpu_time=0)
    with pytest.raises(sg.ArgumentTypeError, match=r"Limits\.open_files"):
        Limits(open_files=2.5)  # type: ignore[arg-type]
    with pytest.raises(sg.ArgumentError, match=r"Limits\.memory"):
        Limits(memory=-5)


def test_limits_apply_to_the_engine(engines: Marked) -> None:
    code = (
        "import json, resource, sys\n"
        "sys.stdin.readline()\n"
        "limits = [resource.getrlimit(r) for r in "
        "(resource.RLIMIT_AS, resource.RLIMIT_CPU, resource.RLIMIT_NOFILE)]\n"
        "print(json.dumps({'type': 'id', 'protocol': 1, 'name': json.dumps(limits)}), flush=True)\n"
        "ready = json.loads(sys.stdin.readline())\n"
        "print(json.dumps({'type': 'readyok', 'seq': ready['seq']}), flush=True)\n"
        "sys.stdin.readline()\n"
    )
    limits = Limits(memory=300 << 20, cpu_time=20.5, open_files=64)
    engine = engines([sys.executable, "-c", code], limits=limits)
    assert engine.id is not None
    assert json.loads(engine.id.name) == [[300 << 20, 300 << 20], [21, 22], [64, 64]]


# -- the asyncio player ------------------------------------------------------------------------


def test_the_async_engine_plays_with_play_game_async(engines: Marked) -> None:
    async def main() -> sg.GameResult:
        async with AsyncEnginePlayer(GREEDY, env=engines.env, move_time=10) as engine:
            return await sg.play_game_async(
                [engine, sg.bots.GreedyBot(), sg.AsyncBot(sg.bots.GreedyBot())], seed=9
            )

    assert asyncio.run(main()) == sg.play_game([sg.bots.GreedyBot()] * 3, seed=9)


def test_a_stand_in_takes_over_after_an_engine_timeout(engines: Marked, tmp_path: Path) -> None:
    updates: list[sg.TableUpdate] = []
    late = script("late", str(tmp_path / "late-once"))

    async def main() -> sg.GameResult:
        async with AsyncEnginePlayer(late, env=engines.env, move_time=0.2) as engine:
            return await sg.play_game_async(
                [engine, sg.bots.GreedyBot()],
                seed=6,
                on_timeout="bot",
                on_event=updates.append,
            )

    result = asyncio.run(main())
    assert result.loser is not None or result.truncated
    stood_in = [u for u in updates if u.viewer is None and u.stand_in == "timeout"]
    assert len(stood_in) == 1 and stood_in[0].seat == 0
    # The engine was killed at its timeout and a fresh one played the rest of the game.
    moved = [u for u in updates if u.viewer is None and u.seat == 0 and u.stand_in is None]
    assert len(moved) > 3


def test_an_engine_timeout_raises_the_seats_timeout_in_play_game_async(engines: Marked) -> None:
    async def main() -> sg.GameResult:
        async with AsyncEnginePlayer(script("silent"), env=engines.env, move_time=0.2) as engine:
            return await sg.play_game_async([sg.bots.GreedyBot(), engine], seed=6)

    with pytest.raises(sg.PlayerTimeoutError) as caught:
        asyncio.run(main())
    assert caught.value.seat == 1 and caught.value.timeout == 0.2
    assert isinstance(caught.value.cause, sg.EngineTimeoutError)


def test_cancelling_choose_kills_the_engine(engines: Marked) -> None:
    """The runner's own timeout cancels the engine's choose, which kills the engine."""
    engine = AsyncEnginePlayer(script("silent"), env=engines.env)

    async def main() -> sg.GameResult:
        try:
            return await sg.play_game_async([engine, sg.bots.GreedyBot()], seed=8, move_time=0.3)
        finally:
            player = engine.player
            assert player is not None and not player.running  # killed by the cancel
            await engine.aclose()

    started = time.monotonic()
    with pytest.raises(sg.PlayerTimeoutError, match=r"did not answer within 0\.3 s"):
        asyncio.run(main())
    assert time.monotonic() - started < 5
    assert wait_gone(engines.marker) == []


def test_the_marker_scan_sees_engines() -> None:
    """The no-orphan checks can fail: a marked process is found while it lives."""
    marked = Marked()
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"], env=marked.env)
    try:
        deadline = time.monotonic() + 5
        while child.pid not in marked.alive() and time.monotonic() < deadline:
            time.sleep(0.01)
        assert marked.alive() == [child.pid]
        assert os.environ.get(MARKER) is None
    finally:
        child.kill()
        child.wait()
    assert wait_gone(marked.marker) == []


# -- hidden information ----------------------------------------------------------------------


def drive(engine: EnginePlayer, game: sg.Game, moves: list[sg.Move], seat: int) -> None:
    """Tell ``engine`` (at ``seat``) the game as ``moves`` play it: the referee's calls."""
    engine.game_started(game.observation(seat))
    for move in moves:
        if game.to_move == seat:
            engine.choose(game.observation(seat))  # its answer is not played: ``moves`` are
        game.play(move)
    if game.result is not None:
        engine.game_ended(game.observation(seat), game.result)


def test_an_engine_is_sent_nothing_its_seat_cannot_know(engines: Marked, tmp_path: Path) -> None:
    """Two deals that differ only in cards seat 0 cannot place give it byte-identical
    messages for the same moves; a difference it can see does not."""
    checked = 0
    for index in range(12):
        rng = random.Random(index)
        deck = _core.deck_from_seed(9000 + index)
        rules = sg.Rules.classic(3)
        game = sg.Game.new(rules, deck=[sg.Card.from_code(c) for c in deck])
        stop = rng.randrange(5, 60)
        moves: list[sg.Move] = []
        while game.result is None and len(moves) < stop:
            moves.append(rng.choice(game.legal_moves))
            game.play(moves[-1])
        pairs = swappable(rules, sorted(card.code for card in game.observation(0).unknown))
        if not pairs:
            continue
        a, b = rng.choice(pairs)
        records = []
        for name, cards in (
            ("a", [sg.Card.from_code(c) for c in deck]),
            ("b", swapped(deck, a, b)),
        ):
            record = tmp_path / f"{index}-{name}.jsonl"
            with EnginePlayer(script("first", str(record)), env=engines.env) as engine:
                drive(engine, sg.Game.new(rules, deck=cards), moves, 0)
            records.append(record.read_bytes())
        assert b'"type":"go"' in records[0]
        assert records[0] == records[1], f"deal {index}: swapping two unknown cards shows"
        checked += 1
    assert checked >= 6
    # The check can fail: a swap that seat 0 sees (a card of its hand) changes its messages.
    deck = _core.deck_from_seed(9000)
    game = sg.Game.new(sg.Rules.classic(3), deck=[sg.Card.from_code(c) for c in deck])
    mine = next(iter(game.observation(0).hand)).code
    other = next(iter(game.observation(0).unknown)).code
    seen = []
    for cards in ([sg.Card.from_code(c) for c in deck], swapped(deck, mine, other)):
        record = tmp_path / f"visible-{len(seen)}.jsonl"
        with EnginePlayer(script("first", str(record)), env=engines.env) as engine:
            drive(engine, sg.Game.new(sg.Rules.classic(3), deck=cards), [], 0)
        seen.append(record.read_bytes())
    assert seen[0] != seen[1]


def test_an_engine_killed_between_games_is_replaced_by_the_next_call(engines: Marked) -> None:
    # kill() does not wait for the engine (and, on Linux, its keeper) to be gone: the next
    # call must not take the dying process for a running one.
    engine = engines(script("first"))
    for _ in range(3):
        pid = engine.pid
        engine.kill()
        assert engine.ping() < 10
        assert engine.running and engine.pid != pid
