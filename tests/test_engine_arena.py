"""Engines wherever bots are named: the arena with ``cmd:`` entrants and ``isolate``,
hostile engines in a match, and no engine process left behind when a worker is stopped.

Every engine started here carries a marker in its environment (set for the test with
``monkeypatch``: the arena's engines inherit it), so that ``/proc`` shows whether any
is left once the match is over.
"""

from __future__ import annotations

import json
import shlex
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from arena_bots import Wrecker
from engine_support import GREEDY, MARKER, script, wait_gone

import skitgubbe as sg
from skitgubbe import bots

bots.register("test-wrecker", Wrecker)

GREEDY_SPEC = "cmd:" + shlex.join(GREEDY)
RANDOM_SPEC = "cmd:" + shlex.join([*GREEDY[:-1], "random"])


def cmd(name: str, *args: str, options: str = "") -> str:
    """The engine spec of the test engine ``tests/engines/NAME.py``."""
    head = f"cmd[{options}]" if options else "cmd"
    return f"{head}:{shlex.join(script(name, *args))}"


def plays(result: sg.MatchResult) -> list[tuple[Any, ...]]:
    """What happened in each game, whatever the entrants are called."""
    return [
        (game.deal, game.arrangement, game.loser, game.finish_order, game.moves, game.truncated)
        for game in result.games
    ]


@pytest.fixture
def marker(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A marker in the environment of every engine the test starts; none may be left."""
    value = uuid.uuid4().hex
    monkeypatch.setenv(MARKER, value)
    yield value
    left = wait_gone(value)
    assert not left, f"engine processes left behind: {left}"


# -- engines play as the bots they serve ------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize(
    "how", [{}, {"jobs": 2}, {"move_time": 5.0}], ids=["in-process", "jobs", "move_time"]
)
def test_an_engine_entrant_plays_exactly_as_its_bot_in_process(
    marker: str, how: dict[str, Any]
) -> None:
    # The engine is sent each game's bot seed (RandomBot draws from it), so the games
    # are the same move for move.
    here = sg.run_match(["greedy", "random", "pimc:worlds=2"], deals=2, seed=5)
    there = sg.run_match([GREEDY_SPEC, RANDOM_SPEC, "pimc:worlds=2"], deals=2, seed=5, **how)
    assert plays(there) == plays(here)
    assert there.crashes == ()
    assert there.entrants == (GREEDY_SPEC, RANDOM_SPEC, "pimc:worlds=2")


@pytest.mark.slow
@pytest.mark.parametrize("how", [{}, {"jobs": 2, "move_time": 5.0}], ids=["in-process", "jobs"])
def test_an_isolated_match_is_the_match_in_process(marker: str, how: dict[str, Any]) -> None:
    entrants = ["greedy", "random", "pimc:worlds=2,rollouts=1"]
    assert sg.run_match(entrants, deals=2, seed=9, isolate=True, **how) == sg.run_match(
        entrants, deals=2, seed=9, **how
    )


def test_an_isolated_match_serves_a_registered_bot_from_its_module(marker: str) -> None:
    # test-wrecker is registered here, not in skitgubbe: the engine imports arena_bots.
    entrants = ["test-wrecker:how=raise,sometimes=true", "greedy"]
    isolated = sg.run_match(entrants, deals=3, seed=4, isolate=True)
    assert plays(isolated) == plays(sg.run_match(entrants, deals=3, seed=4))
    assert isolated.crashes, "the wrecker raised in some games"
    assert all("ValueError: wrecked" in game.crash.traceback for game in isolated.crashes)  # type: ignore[union-attr]


def test_an_engine_is_started_once_per_worker_not_once_per_game(
    marker: str, tmp_path: Path
) -> None:
    log = tmp_path / "received.jsonl"
    sg.run_match([cmd("first", str(log)), "greedy"], deals=4, seed=2)
    kinds = [json.loads(line)["type"] for line in log.read_text().splitlines() if line.strip()]
    # One process: the referee's check before the match says hello once, the games once.
    assert kinds.count("hello") == 2
    assert kinds.count("new_game") == 8  # 4 deals x 2 arrangements
    assert kinds.count("game_over") == 8


def test_a_bad_engine_spec_fails_the_match_at_once(marker: str) -> None:
    with pytest.raises(sg.EngineError, match=r"\(start\): cannot run"):
        sg.run_match(["cmd:./no-such-engine", "greedy"], deals=1, seed=0)
    with pytest.raises(sg.ArgumentError, match="has no option 'depth'"):
        sg.run_match([f"cmd[depth=3]:{shlex.join(GREEDY)}", "greedy"], deals=1, seed=0)
    with pytest.raises(sg.ArgumentError, match="has no command"):
        sg.run_match(["cmd:", "greedy"], deals=1, seed=0)
    with pytest.raises(sg.ArgumentTypeError, match="isolate must be True or False"):
        sg.run_match(["greedy", "greedy"], deals=1, seed=0, isolate=1)  # type: ignore[arg-type]


def test_an_unservable_bot_cannot_be_isolated() -> None:
    def local(seed: int | None = None) -> sg.bots.GreedyBot:
        return sg.bots.GreedyBot()

    bots.register("test-local", local)
    with pytest.raises(sg.ArgumentError, match="cannot run in a process of its own"):
        sg.run_match(["test-local", "greedy"], deals=1, seed=0, isolate=True)


# -- hostile engines in a match ---------------------------------------------------------

HOSTILE = [
    ("silent", (), "", "timeout", "no move for go"),
    ("late", (), "", "timeout", "no move for go"),
    ("stale", (), "", "timeout", "no move for go"),
    ("flood", (), "", "error", "(oversized)"),
    ("garbage", (), "", "error", "(garbage)"),
    ("illegal", (), "", "illegal", "illegal move (seat"),
    ("crash", (), "", "died", "exit code 3"),
    ("forker", (), "", "timeout", "no move for go"),
    ("hog", (), "memory=200M", "died", "MemoryError"),
]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "args", "options", "kind", "detail"), HOSTILE, ids=[case[0] for case in HOSTILE]
)
def test_a_hostile_engine_loses_each_game_it_spoils_and_the_match_goes_on(
    marker: str, name: str, args: tuple[str, ...], options: str, kind: str, detail: str
) -> None:
    # Each engine process spoils its third go: every game it plays (each long enough),
    # in a process started again after each fault that ended the last one.
    spec = cmd(name, *args, options=options)
    started = time.monotonic()
    # The hog fills 200 MB before it fails: time enough for that even on a loaded machine.
    limit = 5.0 if name == "hog" else 0.25
    result = sg.run_match([spec, "greedy", "random"], deals=1, seed=3, move_time=limit)
    elapsed = time.monotonic() - started
    assert len(result.games) == 6
    # An illegal move is the referee's finding, not a fault of the process: the engine
    # plays on, and (its third go behind it) plays well from then on.
    spoiled = result.games[:1] if kind == "illegal" else result.games
    assert result.crashes == spoiled
    for game in spoiled:
        assert game.crash is not None, game
        assert game.seats[game.crash.seat] == spec
        assert game.crash.kind == kind, game.crash
        assert detail in game.crash.traceback, game.crash
        assert game.loser == game.crash.seat
    # Bounded: each fault is caught within the move time and a little more.
    assert elapsed < 6 * 2.5, f"{elapsed:.1f} s for 6 games"


def test_an_engine_that_fails_once_costs_one_game_and_no_other(marker: str, tmp_path: Path) -> None:
    once = tmp_path / "once"
    entrants = [cmd("crash", str(once)), "greedy", "random"]
    broken = sg.run_match(entrants, deals=2, seed=8, move_time=5.0, jobs=2)
    sound = sg.run_match([cmd("first"), "greedy", "random"], deals=2, seed=8)
    assert [game.crash.kind for game in broken.crashes] == ["died"]  # type: ignore[union-attr]
    lost = broken.crashes[0]
    assert "crash.py: out of ideas" in lost.crash.traceback  # type: ignore[union-attr]
    others = [
        play for play, game in zip(plays(broken), broken.games, strict=True) if game.crash is None
    ]
    assert others == [
        play for play in plays(sound) if (play[0], play[1]) != (lost.deal, lost.arrangement)
    ]


@pytest.mark.slow
def test_a_stopped_worker_leaves_no_engine_behind(marker: str) -> None:
    # The wrecker loops forever in some games: the match stops its worker, whose engine
    # (with the two children it forked) must go too, killed by the match.
    entrants = [cmd("forker", "polite"), "test-wrecker:how=loop,sometimes=true", "random"]
    result = sg.run_match(entrants, deals=1, seed=6, move_time=0.3)
    kinds = {game.crash.kind for game in result.crashes}  # type: ignore[union-attr]
    assert kinds == {"timeout"}
    assert all(game.seats[game.crash.seat].startswith("test-wrecker") for game in result.crashes)  # type: ignore[union-attr]
    assert len(result.games) == 6


@pytest.mark.slow
def test_the_arena_command_line_plays_engines_and_isolates(
    marker: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from skitgubbe.apps.cli import main

    assert main(["arena", GREEDY_SPEC, "random", "--deals", "2", "--seed", "1"]) == 0
    engines = capsys.readouterr().out.splitlines()
    assert main(["arena", "greedy", "random", "--deals", "2", "--seed", "1", "--isolate"]) == 0
    isolated = capsys.readouterr().out.splitlines()
    assert main(["arena", "greedy", "random", "--deals", "2", "--seed", "1"]) == 0
    here = capsys.readouterr().out.splitlines()
    assert isolated == here
    # The same figures, whatever the entrant is called (the last nine columns).
    rows = slice(2, 4)
    assert sorted(row.split()[-9:] for row in engines[rows]) == sorted(
        row.split()[-9:] for row in here[rows]
    )
    assert any(row.startswith("cmd:") for row in engines[rows])


def test_an_engine_hears_when_another_seat_ends_the_game(marker: str, tmp_path: Path) -> None:
    log = tmp_path / "received.jsonl"
    entrants = [cmd("first", str(log)), "test-wrecker:how=raise,sometimes=true"]
    result = sg.run_match(entrants, deals=4, seed=4)
    lost = len(result.crashes)
    assert 0 < lost < len(result.games)
    messages = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
    over = [m for m in messages if m["type"] == "game_over"]
    stopped = [m for m in over if m["result"] is None]
    assert len(over) == len(result.games) and len(stopped) == lost
    assert all("lost the game: ValueError: wrecked" in m["reason"] for m in stopped)


def test_an_engine_is_sent_one_way_seeds_that_do_not_lead_back_to_the_deal(
    marker: str, tmp_path: Path
) -> None:
    from skitgubbe import _core

    log = tmp_path / "received.jsonl"
    seed, deals = 12, 2
    result = sg.run_match([cmd("seeded", str(log)), "greedy"], deals=deals, seed=seed)
    messages = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
    sent = [m["value"] for m in messages if m["type"] == "set_option" and m["name"] == "seed"]
    derived = [
        _core.game_seed(_core.game_seed(_core.game_seed(seed, g.deal), g.arrangement), s)
        for g in result.games
        for s, spec in enumerate(g.seats)
        if spec != "greedy"
    ]
    assert sent == [sg.bots.blinded_seed(value) for value in derived]
    deck_seeds = {_core.game_seed(seed, deal) for deal in range(deals)}
    assert not (set(sent) & (set(derived) | deck_seeds | {seed}))


@pytest.mark.slow
def test_the_command_line_draws_a_secret_seed_for_a_match_with_engines(
    marker: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from skitgubbe.apps.cli import main

    seeds = []
    for argv in ([GREEDY_SPEC, "random"], ["greedy", "random", "--isolate"]):
        assert main(["arena", *argv, "--deals", "1"]) == 0
        seeds.append(capsys.readouterr().out.split("seed ")[1].split(";")[0])
    assert main(["arena", "greedy", "random", "--deals", "1"]) == 0
    assert capsys.readouterr().out.split("seed ")[1].split(";")[0] == "0"
    assert "0" not in seeds and seeds[0] != seeds[1]  # drawn afresh: 2**-63 to fail by chance
