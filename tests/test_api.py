"""The public API around the engine: what `import skitgubbe` loads, records, play_game and its
hooks, simulate, the CLI."""

from __future__ import annotations

import argparse
import inspect
import io
import json
import random
import subprocess
import sys

import pytest

import skitgubbe as sg
from skitgubbe.apps.cli import main
from skitgubbe.apps.cli.match import run_arena
from skitgubbe.apps.cli.session import run_session
from skitgubbe.errors import ArgumentError

LAZY_MODULES = [
    "skitgubbe.play.aio",
    "skitgubbe.arena",
    "skitgubbe.engine",
    "skitgubbe.play.session",
]
NOT_CORE = [
    "asyncio",
    "concurrent.futures",
    "csv",
    "multiprocessing",
    "rich",
    "selectors",
    "subprocess",
    *LAZY_MODULES,
]


def fresh_interpreter(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_import_skitgubbe_loads_the_core_api_only() -> None:
    # What skitgubbe itself loads: attrs loads platform, and so subprocess, on Python 3.10.
    loaded = fresh_interpreter(
        "import sys, attrs; before = set(sys.modules); import skitgubbe; "
        f"print(sorted(set({NOT_CORE!r}) & (set(sys.modules) - before)))"
    )
    assert loaded == "[]"
    core = fresh_interpreter(
        "import sys, skitgubbe; print('skitgubbe.play.referee' in sys.modules)"
    )
    assert core == "True"


@pytest.mark.parametrize(
    ("name", "module"),
    [
        ("run_match", "skitgubbe.arena"),
        ("Session", "skitgubbe.play.session"),
        ("play_game_async", "skitgubbe.play.aio"),
        ("EnginePlayer", "skitgubbe.engine"),
        ("arena", "skitgubbe.arena"),
    ],
)
def test_a_lazy_name_loads_its_module_on_first_use(name: str, module: str) -> None:
    code = (
        "import sys, skitgubbe as sg\n"
        f"print({module!r} in sys.modules)\n"
        f"value = sg.{name}\n"
        f"print({module!r} in sys.modules, value is sg.{name})"
    )
    assert fresh_interpreter(code).split("\n") == ["False", "True True"]


def test_every_public_name_is_listed_and_resolves() -> None:
    assert set(sg.__all__) <= set(dir(sg))
    assert {"arena", "engine", "learn", "play"} <= set(dir(sg))
    for name in sg.__all__:
        assert getattr(sg, name) is not None
    assert sg.run_match is sg.arena.run_match and sg.Session is sg.play.session.Session
    with pytest.raises(AttributeError, match="has no attribute 'nothing'"):
        sg.nothing  # type: ignore[attr-defined]  # noqa: B018


def random_game(seed: int, players: int = 3) -> sg.Game:
    rng = random.Random(seed)
    game = sg.Game.new(sg.Rules.classic(players=players), seed=seed, dealer=seed % players)
    while game.result is None:
        game.play(rng.choice(game.legal_moves))
    return game


@pytest.mark.parametrize("players", [2, 3, 4])
def test_records_round_trip_through_json(players: int) -> None:
    for seed in range(15):
        game = random_game(seed, players)
        text = json.dumps(game.record())
        replay = sg.Game.from_record(json.loads(text))
        assert replay.moves == game.moves
        assert replay.result == game.result
        assert replay._core.snapshot() == game._core.snapshot()
        assert replay.seed == seed and replay.record() == game.record()


def test_a_record_of_an_unfinished_game_resumes_where_it_stopped() -> None:
    game = sg.Game.new(seed=3)
    for _ in range(25):
        game.play(game.legal_moves[-1])
    record = game.record()
    assert record["result"] is None and len(record["moves"]) == 25
    resumed = sg.Game.from_record(record)
    assert resumed.observation(0) == game.observation(0)
    assert resumed.legal_moves == game.legal_moves


def test_a_phase_two_position_records_and_replays() -> None:
    game = sg.Game.from_shedding(None, ["9D QD", "JD AD", "4C 5C"], trump="spades", leader=0)
    game.play("9D")
    game.play("JD")
    record = game.record()
    assert record["start"] == {"hands": ["9♦ Q♦", "J♦ A♦", "4♣ 5♣"], "trump": "spades", "leader": 0}
    assert sg.Game.from_record(record).table == game.table


def test_records_name_the_deck_and_rules() -> None:
    record = sg.Game.new(sg.Rules.classic(players=4, hand_size=5), seed=8).record()
    assert record["format"] == sg.RECORD_FORMAT and record["version"] == sg.RECORD_VERSION
    assert record["rules"]["players"] == 4 and record["rules"]["hand_size"] == 5
    assert len(record["start"]["deck"]) == 52 and record["start"]["dealer"] == 3


def test_a_record_whose_deck_does_not_match_its_seed_is_refused() -> None:
    record = sg.Game.new(seed=8).record()
    record["seed"] = 9
    with pytest.raises(sg.RecordError, match="not the one seed 9 deals"):
        sg.Game.from_record(record)


class Recorder:
    """A player that keeps what it was told, to check the hooks."""

    def __init__(self) -> None:
        self.started: list[sg.Observation] = []
        self.ended: list[tuple[sg.Observation, sg.GameResult]] = []
        self.seen_seats: set[int] = set()

    def game_started(self, observation: sg.Observation) -> None:
        self.started.append(observation)

    def choose(self, observation: sg.Observation) -> sg.Move:
        self.seen_seats.add(observation.seat)
        assert observation.my_turn and observation.legal_moves
        return observation.legal_moves[0]

    def game_ended(self, observation: sg.Observation, result: sg.GameResult) -> None:
        self.ended.append((observation, result))


def test_play_game_calls_the_optional_hooks_with_each_seats_view() -> None:
    lineup = [Recorder() for _ in range(3)]
    result = sg.play_game(lineup, seed=4)
    for seat, player in enumerate(lineup):
        assert [view.seat for view in player.started] == [seat]
        assert player.seen_seats == {seat}
        ((view, told),) = player.ended
        assert view.seat == seat and view.phase is sg.Phase.OVER and told == result


@pytest.mark.parametrize(
    "function", [sg.play_game, sg.play_game_async, sg.Referee, sg.Session, sg.Session.resume]
)
def test_the_players_of_a_table_are_its_lineup(function: object) -> None:
    # `players` is a count (Rules.players, Game.players); the players themselves are a lineup.
    parameters = inspect.signature(function).parameters  # type: ignore[arg-type]
    assert "lineup" in parameters and "players" not in parameters


def test_play_game_takes_its_lineup_by_keyword() -> None:
    result = sg.play_game(lineup=[sg.bots.GreedyBot(), sg.bots.GreedyBot()], seed=1)
    assert result == sg.play_game([sg.bots.GreedyBot()] * 2, seed=1)


def test_play_game_is_reproducible_and_continues_a_given_game() -> None:
    def bots() -> list[sg.Player]:
        return [sg.bots.RandomBot(seed=s) for s in range(3)]

    assert sg.play_game(bots(), seed=12) == sg.play_game(bots(), seed=12)
    game = sg.Game.new(seed=12)
    for _ in range(10):
        game.play(game.legal_moves[0])
    result = sg.play_game(bots(), game=game)
    assert game.result == result and result.moves_played > 10
    with pytest.raises(sg.ArgumentError, match="not both"):
        sg.play_game(bots(), seed=1, game=game)


def test_players_are_recognised_by_the_protocol() -> None:
    assert isinstance(sg.bots.RandomBot(), sg.Player)
    assert isinstance(Recorder(), sg.Player)
    assert not isinstance(object(), sg.Player)


def test_simulate_checks_its_arguments() -> None:
    with pytest.raises(sg.RulesError, match="players"):
        sg.simulate(sg.Rules.modern(players=7), 10)
    with pytest.raises(sg.ArgumentError, match="games must be a non-negative int, not -1"):
        sg.simulate(None, -1)
    with pytest.raises(sg.ArgumentTypeError, match=r"games must be a non-negative int, not 1\.0"):
        sg.simulate(None, 1.0)  # type: ignore[arg-type]
    with pytest.raises(sg.ArgumentError, match="seed"):
        sg.simulate(None, 1, seed=-5)
    with pytest.raises(sg.ArgumentTypeError, match="seed"):
        sg.simulate(None, 1, seed=True)
    result = sg.simulate(sg.Rules.classic(players=2, max_moves=20), 50, seed=1)
    assert result.truncated == 50 and sum(result.losses) == 0
    assert result.moves_per_game == 20


@pytest.mark.parametrize("threads", [2, 3, 7])
def test_simulate_gives_the_same_totals_on_any_number_of_threads(threads: int) -> None:
    rules = sg.Rules.modern(players=4)
    assert sg.simulate(rules, 101, seed=4, threads=threads) == sg.simulate(rules, 101, seed=4)
    with pytest.raises(sg.ArgumentError, match="threads"):
        sg.simulate(rules, 10, threads=0)


def test_every_event_kind_reads_as_a_sentence() -> None:
    kinds: set[sg.EventKind] = set()
    for seed in range(30):
        for event in random_game(seed).history:
            kinds.add(event.kind)
            text = str(event)
            assert text and "EventKind" not in text
    capped = sg.Game.new(sg.Rules.classic(max_moves=1), seed=1)
    (*_, last) = capped.play(capped.legal_moves[0])
    assert str(last) == "the move cap is reached: the game ends with no loser"
    kinds.add(last.kind)
    # the other kinds belong to rule variants (tests/test_variants.py)
    assert {sg.EventKind(k) for k in range(17)} - {sg.EventKind.BOUNCE} <= kinds


def test_observation_prints_for_people() -> None:
    game = sg.Game.new(seed=1)
    text = str(game.observation(0))
    assert text.startswith("seat 0 of 3 · collecting · to move: seat 0 · trump: unknown")
    assert "hand: " in text and "legal: " in text
    assert repr(game.observation(1)).startswith("<Observation seat=1 phase=COLLECTING")


def test_demo_command_tells_the_whole_game(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--players", "4", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    game = sg.Game.new(sg.Rules.classic(players=4), seed=3)
    assert out.startswith("Skitgubbe, classic, 4 players, seed 3.")
    assert "Phase 1: collecting" in out and "Phase 2: getting rid of the cards" in out
    assert "draws 1 card" in out  # draws are shown as counts
    assert str(game.hands[0]) not in out  # nobody's hand is shown
    assert "is the skitgubbe after" in out or "no loser" in out


def test_demo_full_shows_the_hands(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--seed", "3", "--full"]) == 0
    out = capsys.readouterr().out
    assert f"seat 0 holds {sg.Game.new(seed=3).hands[0]}" in out


def test_simulate_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--players", "4", "--games", "200", "--seed", "2"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("200 random games, classic, 4 players, seed 2")
    assert out.count("skitgubbe") == 4


def test_no_command_prints_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    assert "demo" in capsys.readouterr().out


def test_python_dash_m_runs_the_cli() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "skitgubbe", "demo", "--players", "2", "--seed", "5"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "classic, 2 players, seed 5" in done.stdout


def test_bad_cli_arguments_exit_with_a_message(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["demo", "--players", "5"])
    assert exc.value.code == 2
    assert "--players" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["simulate", "--seed", "-3"])
    assert "seed" in capsys.readouterr().err


def test_demo_and_simulate_take_a_preset_and_overrides(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--rules", "modern", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Skitgubbe, modern, 3 players, seed 3.")
    assert "tricks everyone plays to" in out and "others may throw cards of its ranks" in out
    args = ["simulate", "--players", "4", "--games", "50", "--set", "runs=true"]
    assert main([*args, "--set", "pickup=pile", "--set", "low_card_threshold=5"]) == 0
    out = capsys.readouterr().out
    assert "classic, 4 players, low_card_threshold=5, runs=True, pickup=pile" in out
    assert main(["demo", "--set", "trump=upcard", "--seed", "2"]) == 0
    assert "is turned up and put under the stock: trump is" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("setting", "named"),
    [("colour=red", "colour"), ("runs", "FIELD=VALUE"), ("hand_size=4", "hand_size")],
)
def test_bad_rule_overrides_exit_with_a_message(
    setting: str, named: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["demo", "--set", setting])
    assert exc.value.code == 2
    assert named in capsys.readouterr().err


def test_the_commands_raise_argument_errors_for_bad_values() -> None:
    out = io.StringIO()
    with pytest.raises(ArgumentError, match="--every must be at least 1"):
        run_session(None, 1, None, None, None, None, 0, out)
    with pytest.raises(ArgumentError, match="--players 2 does not match the rules' 3"):
        run_session(2, 1, None, None, None, None, 1, out, sg.Rules.classic(players=3))
    args = argparse.Namespace(entrants=["random"], players=None)
    with pytest.raises(ArgumentError, match="a match needs 2 to 4 entrants"):
        run_arena(args, out)
