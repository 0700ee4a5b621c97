"""The arena: duplicate deals, seat rotation, intervals, crashes, executors, files, the CLI."""

from __future__ import annotations

import csv
import json
import math
import multiprocessing
import os
import sys
from collections import Counter
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from arena_bots import Wrecker
from nesting import nested
from resume_support import run_python

import skitgubbe as sg
from skitgubbe import _core, bots
from skitgubbe.apps.cli import main
from skitgubbe.arena import match, runner, workers


class Picker:
    """Picks up whenever it may, and otherwise plays its highest card: it always loses."""

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed

    def choose(self, view: sg.Observation) -> sg.Move:
        for move in view.legal_moves:
            if move.kind is sg.MoveKind.PICK_UP:
                return move
        plays = [move for move in view.legal_moves if move.cards]
        return max(plays, key=lambda m: max(m.cards)) if plays else view.legal_moves[0]


class UnprintableError(Exception):
    def __str__(self) -> str:
        raise RuntimeError("cannot print")


class Saboteur:
    """Misbehaves as ``when`` says: raise in choose, answer an illegal move, raise in a
    hook, raise what cannot be printed; with ``sometimes``, only in games whose seed is
    odd and after 30 moves."""

    def __init__(self, seed: int | None = None, when: str = "choose", sometimes: bool = False):
        self.when = when
        self.active = not sometimes or (seed or 0) % 2 == 1
        self.after = 30 if sometimes else 0

    def game_started(self, view: sg.Observation) -> None:
        if self.active and self.when == "started":
            raise RuntimeError("cannot start")

    def choose(self, view: sg.Observation) -> sg.Move:
        if self.active and view.moves_played >= self.after:
            if self.when == "choose":
                raise ValueError("boom")
            if self.when == "illegal":
                return sg.Move.pick_up() if view.phase is sg.Phase.COLLECTING else sg.Move.flip()
            if self.when == "unprintable":
                raise UnprintableError
        return view.legal_moves[0]

    def game_ended(self, view: sg.Observation, result: sg.GameResult) -> None:
        if self.active and self.when == "ended":
            raise KeyError("gone")


SEEN: list[tuple[int | None, str]] = []
"""What Recorder bots saw, in order: (the seed each was made with, its hand at the start)."""


class Recorder:
    """Plays its lowest legal move and records its seed and starting hand in SEEN."""

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed

    def game_started(self, view: sg.Observation) -> None:
        SEEN.append((self.seed, str(view.hand)))

    def choose(self, view: sg.Observation) -> sg.Move:
        return view.legal_moves[0]


bots.register("test-picker", Picker)
bots.register("test-saboteur", Saboteur)
bots.register("test-recorder", Recorder)
bots.register("test-wrecker", Wrecker)


# -- the Wilson interval ---------------------------------------------------------------


def textbook_wilson(k: float, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """Wilson (1927): (p + z²/2n ± z·sqrt(p(1-p)/n + z²/4n²)) / (1 + z²/n)."""
    p = k / n
    centre = p + z * z / (2 * n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return (centre - half) / (1 + z * z / n), (centre + half) / (1 + z * z / n)


@pytest.mark.parametrize(
    ("k", "n", "low", "high"),
    [
        (0, 10, 0.0, 0.2775),  # upper = z²/(n + z²) = 3.8415/13.8415
        (5, 10, 0.2366, 0.7634),
        (10, 10, 0.7225, 1.0),
        (50, 100, 0.4038, 0.5962),
        (1, 20, 0.0089, 0.2361),
    ],
)
def test_wilson_interval_matches_known_values(k: int, n: int, low: float, high: float) -> None:
    got = sg.wilson_interval(k, n)
    assert got == pytest.approx((low, high), abs=5e-5)
    assert got == pytest.approx(textbook_wilson(k, n), abs=1e-12)


def test_wilson_interval_is_symmetric_takes_fractions_and_other_levels() -> None:
    for k in (0, 0.5, 3, 7.25, 10):
        low, high = sg.wilson_interval(k, 10)
        flipped = sg.wilson_interval(10 - k, 10)
        assert (low, high) == pytest.approx((1 - flipped[1], 1 - flipped[0]))
    assert sg.wilson_interval(2.5, 10) == pytest.approx(textbook_wilson(2.5, 10))
    narrow, wide = sg.wilson_interval(5, 10, confidence=0.5), sg.wilson_interval(5, 10)
    assert wide[0] < narrow[0] < 0.5 < narrow[1] < wide[1]


@pytest.mark.parametrize(
    ("k", "n", "confidence", "error"),
    [
        (1, 0, 0.95, sg.ArgumentError),
        (11, 10, 0.95, sg.ArgumentError),
        (-1, 10, 0.95, sg.ArgumentError),
        (1, 10, 1.0, sg.ArgumentError),
        (1, 10.0, 0.95, sg.ArgumentTypeError),
    ],
)
def test_wilson_interval_refuses_bad_input(
    k: int, n: int, confidence: float, error: type[Exception]
) -> None:
    with pytest.raises(error):
        sg.wilson_interval(k, n, confidence=confidence)


# -- duplicate deals and seat rotation ----------------------------------------------------


@pytest.mark.parametrize(
    ("entrants", "count"),
    [
        (["a", "b", "c"], 6),
        (["a", "b", "b"], 3),
        (["b", "a", "b"], 3),
        (["a", "a", "a"], 1),
        (["a", "b"], 2),
        (["a", "b", "c", "d"], 24),
        (["a", "a", "b", "c"], 12),
        (["a", "a", "b", "b"], 6),
    ],
)
def test_arrangements_are_every_distinct_seating_once(entrants: list[str], count: int) -> None:
    seatings = sg.arrangements(entrants)
    assert len(seatings) == len(set(seatings)) == count
    assert seatings[0] == tuple(entrants)
    assert all(sorted(seating) == sorted(entrants) for seating in seatings)


def test_every_arrangement_is_played_once_per_deal_with_each_entrant_in_each_seat_equally() -> None:
    entrants = ["random", "test-picker", "test-recorder"]
    result = sg.run_match(entrants, deals=4, seed=11)
    assert len(result.games) == 4 * 6
    assert [(g.deal, g.arrangement) for g in result.games] == [
        (d, a) for d in range(4) for a in range(6)
    ]
    for game in result.games:
        assert game.seats == result.arrangements[game.arrangement]
    for stats in result.stats:
        assert stats.copies == 1 and stats.deal_sets == 4
        assert stats.seat_games == (8, 8, 8) and stats.games == 24
    # Two copies of one bot: three arrangements, its copies fill two seats of each.
    result = sg.run_match(["test-picker", "random", "random"], deals=3, seed=2)
    random = result.entrant("random")
    assert len(result.games) == 9 and random.copies == 2
    assert random.games == 18 and random.seat_games == (6, 6, 6)
    assert result.entrant("test-picker").seat_games == (3, 3, 3)


def test_each_deal_is_the_same_deck_in_every_arrangement_and_bots_get_derived_seeds() -> None:
    SEEN.clear()
    seed, deals = 21, 3
    result = sg.run_match(["test-recorder", "random"], deals=deals, seed=seed)
    rules = sg.Rules.classic(players=2)
    games = iter(result.games)
    recorded = iter(SEEN)
    for deal in range(deals):
        deck_seed = _core.game_seed(seed, deal)
        dealt = sg.Game.new(rules, seed=deck_seed)  # the deal as run_match documents it
        for arrangement in range(2):
            game = next(games)
            seat = game.seats.index("test-recorder")
            bot_seed, hand = next(recorded)
            assert hand == str(dealt.hands[seat])
            derived = _core.game_seed(_core.game_seed(deck_seed, arrangement), seat)
            assert bot_seed == sg.bots.blinded_seed(derived)  # one-way: not the deal's seed
    assert next(recorded, None) is None
    # Each arrangement of a deal sees the same hands seat by seat; other deals do not.
    hands = [hand for _, hand in SEEN]
    assert hands[0] != hands[1] and len(set(hands)) == 2 * deals


def test_a_bot_that_always_loses_has_the_interval_of_all_losses_over_deal_sets() -> None:
    deals = 20
    result = sg.run_match(["test-picker", "random", "random"], deals=deals, seed=3)
    picker, random = result.entrant("test-picker"), result.entrant("random")
    assert (picker.games, picker.losses, picker.loss_rate, picker.crashes) == (60, 60, 1.0, 0)
    assert picker.mean_place == 3.0 and picker.seat_losses == (20, 20, 20)
    # One trial per deal set: 20 of 20, not 60 of 60.
    assert (picker.low, picker.high) == pytest.approx(textbook_wilson(20, 20))
    assert picker.low == pytest.approx(20 / (20 + 1.959963984540054**2))
    assert (random.losses, random.loss_rate, random.low, random.mean_place) == (0, 0.0, 0.0, 1.5)
    assert random.high == pytest.approx(textbook_wilson(0, 20)[1])
    assert all(g.loser == g.seats.index("test-picker") for g in result.games)


def test_the_interval_counts_deal_sets_as_trials_of_the_loss_fraction() -> None:
    result = sg.run_match(["random", "test-recorder", "test-recorder"], deals=15, seed=8)
    for stats in result.stats:
        losses = Counter(
            g.deal for g in result.games if g.loser is not None and g.seats[g.loser] == stats.name
        )
        per_set = [losses[d] / (3 * stats.copies) for d in range(15)]
        assert stats.loss_rate == pytest.approx(sum(per_set) / 15)
        assert (stats.low, stats.high) == pytest.approx(textbook_wilson(sum(per_set), 15))
        assert stats.high - stats.low > 0.1  # far wider than 45 or 90 independent games


def test_truncated_games_have_no_loser_and_share_the_places_left() -> None:
    rules = sg.Rules.classic(players=3, max_moves=12)
    result = sg.run_match(["random", "test-recorder", "test-recorder"], rules, deals=2, seed=1)
    assert all(g.truncated and g.loser is None for g in result.games)
    for game in result.games:
        out = len(game.finish_order)
        assert sum(game.places) == 6
        assert sorted(game.places)[out:] == [(out + 1 + 3) / 2] * (3 - out)
    for stats in result.stats:
        assert stats.losses == 0 and stats.truncated == stats.games
        assert stats.high == pytest.approx(textbook_wilson(0, 2)[1])


# -- crashes ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("when", "error"),
    [
        ("choose", "ValueError: boom"),
        ("illegal", "PlayerError: seat"),
        ("started", "RuntimeError: cannot start"),
        ("ended", "KeyError: 'gone'"),
        ("unprintable", "UnprintableError: <exception str() failed>"),
    ],
)
def test_a_crashing_bot_loses_the_game_and_the_match_goes_on(when: str, error: str) -> None:
    spec = f"test-saboteur:when={when}"
    result = sg.run_match([spec, "random", "random"], deals=2, seed=4)
    assert len(result.games) == 6 and len(result.crashes) == 6
    stats = result.entrant(spec)
    assert (stats.losses, stats.crashes, stats.loss_rate, stats.mean_place) == (6, 6, 1.0, 3.0)
    assert result.entrant("random").crashes == 0
    for game in result.crashes:
        assert game.crash is not None
        seat = game.seats.index(spec)
        assert game.crashed == game.loser == seat == game.crash.seat
        assert game.finish_order[-1] == seat
        assert game.crash.error.startswith(error)
        assert game.crash.traceback.startswith("Traceback (most recent call last):")
        assert error.split(":")[0] in game.crash.traceback
        assert "test_arena.py" in game.crash.traceback or when == "illegal"
    if when == "ended":  # the game was over: those who went out keep their places
        assert all(len(g.finish_order) == 3 and g.moves > 0 for g in result.games)


def test_a_bot_crashing_in_some_games_loses_only_those() -> None:
    spec = "test-saboteur:sometimes=true"
    result = sg.run_match([spec, "test-recorder", "random"], deals=4, seed=6)
    crashed = result.crashes
    assert 0 < len(crashed) < len(result.games)
    assert result.entrant(spec).crashes == len(crashed)
    assert all(g.moves >= 30 and g.crash and g.crash.error == "ValueError: boom" for g in crashed)
    for game in crashed:  # seats out before the crash keep their places, the rest share
        assert game.places[game.loser or 0] == 3.0
        assert sorted(game.places) in ([1.0, 2.0, 3.0], [1.5, 1.5, 3.0])
    normal = [g for g in result.games if g.crash is None]
    assert all(g.loser is None or sorted(g.places) == [1, 2, 3] for g in normal)


# -- executors -------------------------------------------------------------------------

ENTRANTS = ["test-saboteur:sometimes=true", "random", "test-picker"]


@pytest.fixture(scope="module")
def in_process() -> sg.MatchResult:
    return sg.run_match(ENTRANTS, deals=6, seed=10)


def test_the_result_does_not_depend_on_jobs_or_chunks(in_process: sg.MatchResult) -> None:
    assert in_process.crashes  # the comparison covers crashes and their tracebacks
    assert sg.run_match(ENTRANTS, deals=6, seed=10, jobs=1) == in_process
    assert sg.run_match(ENTRANTS, deals=6, seed=10, jobs=2) == in_process
    assert sg.run_match(ENTRANTS, deals=6, seed=10, jobs=2, chunk_size=4) == in_process
    assert sg.run_match(ENTRANTS, deals=6, seed=11) != in_process


def test_spawned_workers_get_the_bots_registered_here(in_process: sg.MatchResult) -> None:
    # A spawned process starts with only the built-in bots: the test bots reach it as
    # pickled factories; a bot whose factory cannot be pickled is refused plainly.
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        assert sg.run_match(ENTRANTS, deals=6, seed=10, executor=pool) == in_process
        bots.register("test-lambda", lambda seed=None: Picker(seed))
        with pytest.raises(sg.SkitgubbeError, match="not registered in this worker"):
            sg.run_match(["test-lambda", "random"], deals=1, seed=0, executor=pool)
    # Where the registry is shared (this process), such a bot plays.
    assert sg.run_match(["test-lambda", "random"], deals=1, seed=0).entrant("test-lambda").games


# -- progress --------------------------------------------------------------------------


def test_progress_is_off_by_default_and_a_line_on_stderr_when_asked(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    sg.run_match(["random", "random"], deals=3, seed=0)
    assert capsys.readouterr().err == ""
    sg.run_match(["random", "random"], deals=3, seed=0, progress=True)
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("arena: 3/3 deal sets (100%)")
    monkeypatch.setattr(runner, "_PROGRESS_EVERY", 0.0)
    sg.run_match(["random", "random"], deals=3, seed=0, progress=True)
    lines = capsys.readouterr().err.splitlines()
    assert [line.split(" deal sets")[0] for line in lines] == [
        "arena: 1/3",
        "arena: 2/3",
        "arena: 3/3",
    ]
    assert "s left" in lines[0] and "left" not in lines[-1]


def test_a_progress_callable_gets_deal_sets_done_and_in_all() -> None:
    calls: list[tuple[int, int]] = []
    sg.run_match(["random", "random"], deals=4, seed=0, progress=lambda *a: calls.append(a))
    assert calls == [(1, 4), (2, 4), (3, 4), (4, 4)]
    calls.clear()
    sg.run_match(
        ["random", "random"],
        deals=5,
        seed=0,
        jobs=2,
        chunk_size=2,
        progress=lambda *a: calls.append(a),
    )
    assert len(calls) == 3 and calls[-1] == (5, 5)
    assert sorted(done for done, _ in calls) == [done for done, _ in calls]


# -- files -----------------------------------------------------------------------------


def test_json_round_trip(in_process: sg.MatchResult, tmp_path: Path) -> None:
    path = str(tmp_path / "match.json")
    in_process.save_json(path)
    loaded = sg.MatchResult.load_json(path)
    assert loaded == in_process
    assert loaded.crashes[0].crash == in_process.crashes[0].crash
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    assert data["format"] == sg.MATCH_FORMAT and data["entrants"] == ENTRANTS
    assert data["stats"] == [stats.to_dict() for stats in in_process.stats]
    assert sg.MatchResult.from_dict(json.loads(in_process.to_json())) == in_process


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"format": "skitgubbe-record"}, "not a match record"),
        ({"version": 99}, "version 99"),
        ({"games": [{"deal": 0}]}, "bad match record"),
        ({"rules": {"players": 7}}, "bad rules"),
    ],
)
def test_a_bad_match_record_is_refused(
    in_process: sg.MatchResult, change: dict[str, Any], message: str
) -> None:
    data = {**in_process.to_dict(), **change}
    with pytest.raises(sg.RecordError, match=message):
        sg.MatchResult.from_dict(data)


def test_csv_has_one_row_per_game_and_one_per_entrant(
    in_process: sg.MatchResult, tmp_path: Path
) -> None:
    games_path, summary_path = tmp_path / "games.csv", tmp_path / "summary.csv"
    in_process.save_csv(str(games_path))
    in_process.save_summary_csv(str(summary_path))
    rows = list(csv.DictReader(games_path.read_text(encoding="utf-8").splitlines()))
    assert len(rows) == len(in_process.games) == 36
    for row, game in zip(rows, in_process.games, strict=True):
        assert (int(row["deal"]), int(row["arrangement"])) == (game.deal, game.arrangement)
        assert [row[f"seat_{s}"] for s in range(3)] == list(game.seats)
        assert row["loser"] == ("" if game.loser is None else str(game.loser))
        assert row["loser_entrant"] == ("" if game.loser is None else game.seats[game.loser])
        assert row["finish_order"] == " ".join(map(str, game.finish_order))
        assert [float(row[f"place_{s}"]) for s in range(3)] == list(game.places)
        assert row["truncated"] == str(int(game.truncated)) and int(row["moves"]) == game.moves
        assert row["crashed_seat"] == ("" if game.crash is None else str(game.crash.seat))
        assert row["error"] == ("" if game.crash is None else game.crash.error)
    summary = list(csv.DictReader(summary_path.read_text(encoding="utf-8").splitlines()))
    assert [row["entrant"] for row in summary] == ENTRANTS
    for row, stats in zip(summary, in_process.stats, strict=True):
        assert int(row["games"]) == stats.games and int(row["losses"]) == stats.losses
        assert float(row["low"]) == stats.low and float(row["high"]) == stats.high
        assert int(row["crashes"]) == stats.crashes
        assert [int(row[f"seat_losses_{s}"]) for s in range(3)] == list(stats.seat_losses)


def test_plot_writes_a_png(in_process: sg.MatchResult, tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    path = tmp_path / "match.png"
    in_process.plot(str(path))
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_plot_without_matplotlib_says_what_to_install(
    in_process: sg.MatchResult, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    with pytest.raises(sg.SkitgubbeError, match=r"pip install 'skitgubbe\[plot\]'"):
        in_process.plot(str(tmp_path / "match.png"))


def test_saving_to_a_bad_path_is_a_clear_error(in_process: sg.MatchResult) -> None:
    with pytest.raises(sg.SkitgubbeError, match="cannot write /nonexistent/"):
        in_process.save_json("/nonexistent/match.json")
    with pytest.raises(sg.SkitgubbeError, match="cannot write /nonexistent/"):
        in_process.save_csv("/nonexistent/games.csv")


# -- the command line --------------------------------------------------------------------


def test_cli_arena_prints_the_table_and_saves_every_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out, games, summary, png = (tmp_path / name for name in ("r.json", "g.csv", "s.csv", "r.png"))
    argv = ["arena", "test-picker", "random", "random", "--deals", "5", "--seed", "9"]
    argv += ["--jobs", "2", "--out", str(out), "--csv", str(games)]
    argv += ["--summary-csv", str(summary), "--plot", str(png)]
    assert main(argv) == 0
    captured = capsys.readouterr()
    assert captured.err == ""  # progress is for terminals unless asked
    lines = captured.out.splitlines()
    assert lines[0].startswith("test-picker, random, random: classic, 3 players, seed 9; 5 deal")
    assert lines[1].split() == [
        "entrant",
        "seats",
        "loss",
        "rate",
        "95",
        "%",
        "interval",
        "mean",
        "place",
        "games",
        "truncated",
        "crashes",
    ]
    picker = ["test-picker", "1", "100.0%", "56.6%", "-", "100.0%", "3.00", "15", "0", "0"]
    assert lines[2].split() == picker
    assert lines[3].split()[:3] == ["random", "2", "0.0%"]
    for path in (out, games, summary, png):
        assert f"Saved {path}." in captured.out
    saved = sg.MatchResult.load_json(str(out))
    assert saved == sg.run_match(["test-picker", "random", "random"], deals=5, seed=9)
    assert png.read_bytes()[:4] == b"\x89PNG"
    assert len(games.read_text(encoding="utf-8").splitlines()) == 1 + 15


def test_cli_arena_players_follow_the_entrants_and_take_rules_and_progress(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out = tmp_path / "r.json"
    argv = ["arena", "random", "test-recorder", "--deals", "2", "--set", "hand_size=5"]
    assert main([*argv, "--out", str(out), "--progress"]) == 0
    captured = capsys.readouterr()
    assert "2 players" in captured.out and "hand_size=5" in captured.out
    assert captured.err.startswith("arena: 2/2 deal sets (100%)")
    assert sg.MatchResult.load_json(str(out)).rules == sg.Rules.classic(players=2, hand_size=5)
    argv = ["arena", "random", "test-recorder", "random", "random", "--deals", "2"]
    assert main([*argv, "--rules", "modern", "--out", str(out)]) == 0
    assert sg.MatchResult.load_json(str(out)).rules == sg.Rules.modern(players=4)
    assert "crash:" not in capsys.readouterr().out


def test_cli_arena_lists_crashes(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["arena", "test-saboteur", "random", "--deals", "4"]) == 0
    out = capsys.readouterr().out
    assert out.count("\ncrash: deal ") == 5 and "ValueError: boom" in out
    assert "... and 3 more crashes" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["nobody", "random"], "no bot named 'nobody'"),
        (["random", "random", "--players", "3"], "--players 3 needs 3 entrants"),
        (["random"], "2 to 4 entrants"),
        (["random"] * 5, "2 to 4 entrants"),
        (["random", "random", "--deals", "0"], "deals must be an int 1 <= deals"),
        (["random", "random", "--jobs", "0"], "jobs must be an int 1 <= jobs"),
        (["random", "random", "--set", "hand_size=1"], "bad rules"),
    ],
)
def test_cli_arena_bad_input(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["arena", *argv])
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


def test_cli_arena_plot_without_matplotlib_fails_before_the_match(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(SystemExit):
        main(["arena", "random", "random", "--plot", str(tmp_path / "r.png")])
    captured = capsys.readouterr()
    assert "--plot needs matplotlib: pip install 'skitgubbe[plot]'" in captured.err
    assert captured.out == ""


# -- bad input ----------------------------------------------------------------------------


VALUE, TYPE = sg.ArgumentError, sg.ArgumentTypeError


@pytest.mark.parametrize(
    ("entrants", "options", "error", "message"),
    [
        (["random", "nobody"], {}, VALUE, "no bot named 'nobody'"),
        (["random", "random:speed=3"], {}, VALUE, "bad options"),
        (["random", 3], {}, TYPE, "a bot spec is a name"),
        (["random", " "], {}, VALUE, "a bot spec is a name"),
        (["random", "random"], {"rules": sg.Rules.classic(players=3)}, VALUE, "need 3 entrants"),
        (["random"] * 3, {"rules": "classic"}, TYPE, "rules must be a Rules"),
        ("random", {}, TYPE, "sequence of bot specs"),
        (["random", "random"], {"deals": 0}, VALUE, "deals must be"),
        (["random", "random"], {"deals": -3}, VALUE, "deals must be"),
        (["random", "random"], {"deals": 2.0}, TYPE, "deals must be"),
        (["random", "random"], {"seed": -1}, VALUE, "seed must be"),
        (["random", "random"], {"seed": 2**64}, VALUE, "seed must be"),
        (["random", "random"], {"jobs": 0}, VALUE, "jobs must be"),
        (["random", "random"], {"chunk_size": 0}, VALUE, "chunk_size must be"),
        (["random", "random"], {"progress": "yes"}, TYPE, "progress must be"),
        (
            ["random", "random"],
            {"move_time": 0},
            VALUE,
            "move_time must be a positive, finite number",
        ),
        (["random", "random"], {"move_time": -0.5}, VALUE, "move_time must be"),
        (["random", "random"], {"move_time": math.nan}, VALUE, "move_time must be"),
        (["random", "random"], {"move_time": math.inf}, VALUE, "move_time must be"),
        (["random", "random"], {"move_time": "1"}, TYPE, "move_time must be"),
        (["random", "random"], {"move_time": True}, TYPE, "move_time must be"),
    ],
)
def test_run_match_refuses_bad_input(
    entrants: Any, options: dict[str, Any], error: type[Exception], message: str
) -> None:
    arguments = {"deals": 1, "seed": 0, **options}
    rules = arguments.pop("rules", None)
    with pytest.raises(error, match=message):
        sg.run_match(entrants, rules, **arguments)


def test_jobs_and_an_executor_together_are_refused() -> None:
    with (
        ProcessPoolExecutor(1) as pool,
        pytest.raises(sg.ArgumentError, match="jobs or an executor"),
    ):
        sg.run_match(["random", "random"], deals=1, seed=0, jobs=2, executor=pool)


def test_an_unknown_entrant_name_in_a_result_is_an_error(in_process: sg.MatchResult) -> None:
    with pytest.raises(sg.ArgumentError, match="no entrant 'greedy'"):
        in_process.entrant("greedy")
    assert Counter(in_process.entrants) == Counter(s.name for s in in_process.stats)


# -- Dask ---------------------------------------------------------------------------------


@pytest.mark.slow
def test_a_match_on_a_local_dask_cluster_gives_the_same_result(
    in_process: sg.MatchResult, tmp_path: Path
) -> None:
    """In a fresh interpreter: a Dask client leaves threads behind, and a process with
    threads that forks (as the arena's workers do) may deadlock its children."""
    pytest.importorskip("distributed")
    out = tmp_path / "dask.json"
    code = (
        "import sys\n"
        f"sys.path.insert(0, {str(Path(__file__).resolve().parent)!r})\n"
        "import distributed\n"
        "import skitgubbe as sg\n"
        "import test_arena  # registers this file's bots\n"
        "with (\n"
        "    distributed.LocalCluster(\n"
        "        n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None\n"
        "    ) as cluster,\n"
        "    distributed.Client(cluster) as client,\n"
        "):\n"
        "    result = sg.run_match(test_arena.ENTRANTS, deals=6, seed=10,\n"
        "                          executor=client.get_executor(), chunk_size=2)\n"
        "result.save_json(sys.argv[1])\n"
    )
    run_python(code, str(out))
    assert sg.MatchResult.load_json(str(out)) == in_process


# Issue 9, point 9: every field of a match record is checked by type and range.
@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("loser", -1),
        ("loser", 3),
        ("loser", 99),
        ("loser", True),
        ("loser", 1.0),
        ("deal", -1),
        ("deal", 10**6),
        ("arrangement", -1),
        ("arrangement", 10**6),
        ("moves", -5),
        ("moves", 3.5),
        ("finish_order", [0, 0]),
        ("finish_order", [5]),
        ("finish_order", [-1]),
        ("truncated", 0),
        ("seats", ["a"]),
        ("seats", ["random", "random", 3]),
        ("crash", {"seat": 7, "error": "E", "traceback": ""}),
        ("crash", {"seat": -1, "error": "E", "traceback": ""}),
        ("crash", {"seat": 0, "error": 1, "traceback": ""}),
        ("crash", "boom"),
        ("crash", {"seat": 0, "kind": "late", "error": "E", "traceback": ""}),
        ("crash", {"seat": 0, "kind": None, "error": "E", "traceback": ""}),
        ("crash", {"seat": 0, "error": "E", "traceback": ""}),  # version 2 has a kind
        ("crash", nested(100_000)),
        ("seats", nested(100_000)),
    ],
)
def test_a_bad_match_game_field_is_refused(
    in_process: sg.MatchResult, field: str, value: object
) -> None:
    data = in_process.to_dict()
    data["games"][0][field] = value
    with pytest.raises(sg.RecordError):
        sg.MatchResult.from_dict(data)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("deals", -1),
        ("deals", 0),
        ("deals", 2.0),
        ("seed", -1),
        ("seed", 2**64),
        ("seed", float("nan")),
        ("version", True),
        ("version", 0),
        ("timeout", 0),
        ("timeout", -1.0),
        ("timeout", "1"),
        ("timeout", True),
        ("timeout", [1]),
        ("timeout", math.inf),
        ("timeout", nested(100_000)),
        ("entrants", ["random"]),
        ("entrants", nested(100_000)),
        ("rules", nested(100_000)),
        ("games", {"a": 1}),
        ("games", [nested(100_000)]),
    ],
)
def test_a_bad_match_field_is_refused(
    in_process: sg.MatchResult, field: str, value: object
) -> None:
    data = in_process.to_dict()
    data[field] = value
    with pytest.raises(sg.RecordError):
        sg.MatchResult.from_dict(data)


def test_a_match_file_nested_too_deeply_is_a_record_error(tmp_path: Path) -> None:
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000, encoding="utf-8")
    with pytest.raises(sg.RecordError, match="nested too deeply"):
        sg.MatchResult.load_json(str(path))


# -- time limits and worker processes (issue 9, point 3) ----------------------------------


def same_play(game: sg.MatchGame, reference: sg.MatchGame) -> bool:
    """The two games went the same way (seats and crash reasons aside)."""
    fields = ("deal", "arrangement", "loser", "finish_order", "truncated", "moves", "crashed")
    return all(getattr(game, name) == getattr(reference, name) for name in fields)


def wrecked_match(how: str, **options: Any) -> tuple[str, sg.MatchResult, sg.MatchResult]:
    """A match where a Wrecker does ``how`` in some games, and the same match played in this
    process with a Wrecker that raises there instead: the games it lost are the same."""
    spec = f"test-wrecker:how={how},sometimes=true"
    entrants = [spec, "random", "test-picker"]
    reference = sg.run_match(
        ["test-wrecker:how=raise,sometimes=true", "random", "test-picker"], deals=2, seed=3
    )
    assert 0 < len(reference.crashes) < len(reference.games)
    return spec, sg.run_match(entrants, deals=2, seed=3, **options), reference


@pytest.mark.slow
@pytest.mark.parametrize("jobs", [None, 2])
def test_a_bot_that_never_returns_loses_its_games_and_the_match_completes(
    jobs: int | None,
) -> None:
    spec, result, reference = wrecked_match("loop", move_time=0.3, jobs=jobs)
    assert result.timeout == 0.3 and len(result.games) == len(reference.games) == 12
    for game, expected in zip(result.games, reference.games, strict=True):
        assert same_play(game, expected)
        if game.crash is not None:
            seat = game.seats.index(spec)
            assert game.crash.kind == "timeout" and game.loser == game.crash.seat == seat
            assert game.crash.error == (
                f"PlayerTimeoutError: seat {seat} ({spec}) did not answer within 0.3 s"
            )
            assert "the worker was stopped after" in game.crash.traceback
    assert result.entrant(spec).crashes == len(reference.crashes)


@pytest.mark.slow
def test_a_slow_bot_loses_with_the_timeout_reason_and_the_record_keeps_it(
    tmp_path: Path,
) -> None:
    spec, result, reference = wrecked_match("sleep", move_time=0.2)  # it sleeps 2 s
    assert [g.crashed for g in result.games] == [g.crashed for g in reference.games]
    for game in result.crashes:
        assert game.crash is not None and game.crash.kind == "timeout"
        assert game.crash.error.endswith(f"({spec}) did not answer within 0.2 s")
    data = json.loads(result.to_json())
    assert data["version"] == 2 and data["timeout"] == 0.2
    assert {game["crash"]["kind"] for game in data["games"] if game["crash"]} == {"timeout"}
    assert sg.MatchResult.from_dict(data) == result
    path = tmp_path / "games.csv"
    result.save_csv(str(path))
    rows = list(csv.DictReader(path.read_text(encoding="utf-8").splitlines()))
    assert [row["crash_kind"] for row in rows] == [
        "" if game.crash is None else "timeout" for game in result.games
    ]


@pytest.mark.slow
def test_on_an_executor_a_late_answer_still_loses() -> None:
    # An executor's workers cannot be stopped: the limit is checked when the call returns.
    with ThreadPoolExecutor(1) as pool:
        spec, result, reference = wrecked_match("sleep,seconds=0.4", move_time=0.1, executor=pool)
    assert [g.crashed for g in result.games] == [g.crashed for g in reference.games]
    for game in result.crashes:
        assert game.crash is not None and game.crash.kind == "timeout"
        assert game.crash.traceback == game.crash.error + "\n"  # nobody was stopped
        assert game.crash.error.endswith(f"({spec}) did not answer within 0.1 s")


@pytest.mark.parametrize(
    ("how", "ending"), [("exit", "exit code 3"), ("segv", "killed by signal SIGSEGV")]
)
@pytest.mark.parametrize("options", [{"jobs": 2}, {"move_time": 30}])
def test_a_worker_that_dies_loses_the_game_for_its_bot_and_the_others_survive(
    how: str, ending: str, options: dict[str, Any]
) -> None:
    spec, result, reference = wrecked_match(how, **options)
    assert len(result.games) == 12
    for game, expected in zip(result.games, reference.games, strict=True):
        assert same_play(game, expected)
        if game.crash is not None:
            seat = game.seats.index(spec)
            assert game.crash.kind == "died" and game.loser == seat
            assert game.crash.error == (
                f"seat {seat} ({spec}) was in choose when its worker process died ({ending})"
            )
    assert sg.MatchResult.from_dict(json.loads(result.to_json())) == result


def test_a_bot_that_cannot_go_to_a_worker_is_timed_after_the_fact_here(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Where workers are not forked, a bot whose factory cannot be pickled plays in this
    # process: a late answer still loses, but nothing could stop a call that never returns.
    pids: list[int] = []

    def slow(seed: int | None = None) -> Wrecker:
        pids.append(os.getpid())
        return Wrecker(seed, how="sleep", seconds=0.3, sometimes=True)

    bots.register("test-unpicklable", slow)
    monkeypatch.setattr(match, "_forks", lambda: False)
    result = sg.run_match(["test-unpicklable", "random"], deals=4, seed=5, move_time=0.1)
    assert set(pids) == {os.getpid()}
    assert result.crashes and all(g.crash and g.crash.kind == "timeout" for g in result.crashes)


def test_a_version_1_match_file_is_still_read(in_process: sg.MatchResult) -> None:
    data = in_process.to_dict()
    data["version"] = 1
    del data["timeout"]
    for game in data["games"]:
        if game["crash"] is not None:
            del game["crash"]["kind"]
    assert sg.MatchResult.from_dict(data) == in_process
    illegal = sg.run_match(["test-saboteur:when=illegal", "random"], deals=1, seed=0)
    old = illegal.to_dict()
    old["version"] = 1
    del old["timeout"]
    for game in old["games"]:
        del game["crash"]["kind"]
    assert {g.crash.kind for g in sg.MatchResult.from_dict(old).crashes if g.crash} == {"illegal"}
    assert sg.MatchResult.from_dict(old) == illegal


def test_cli_arena_takes_a_move_time(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    argv = ["arena", "test-wrecker:how=sleep,sometimes=true", "random", "--deals", "2"]
    assert main([*argv, "--move-time", "0.2", "--seed", "3", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert printed.splitlines()[0].endswith("= 4 games; at most 0.2 s per move")
    assert "did not answer within 0.2 s" in printed
    assert sg.MatchResult.load_json(str(out)).timeout == 0.2
    for bad in ("0", "-1", "nan", "inf"):
        with pytest.raises(SystemExit) as exit_info:
            main(["arena", "random", "random", "--move-time", bad])
        assert exit_info.value.code == 2
        err = capsys.readouterr().err
        assert "--move-time must be a positive, finite number of seconds" in err
        assert f"not {float(bad)}" in err
    assert main(["arena", "random", "random", "--deals", "1", "--timeout", "5"]) == 0
    assert "at most 5 s per move" in capsys.readouterr().out


def test_a_worker_that_ends_outside_any_bots_call_costs_nobody_the_game(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # Workers are forked with this module patched: the first one to start a game dies
    # before any call into a bot (as if killed while idle); its games are played again.
    flag, here, play = tmp_path / "died", os.getpid(), workers.play_match_game

    def dies_once(*args: Any) -> sg.MatchGame:
        if os.getpid() != here and not flag.exists():
            flag.touch()
            os._exit(5)
        return play(*args)

    monkeypatch.setattr(workers, "play_match_game", dies_once)
    assert sg.run_match(ENTRANTS, deals=3, seed=10, jobs=2) == sg.run_match(
        ENTRANTS, deals=3, seed=10
    )
    assert flag.exists()


def test_workers_that_keep_ending_outside_any_bots_call_fail_the_match(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    here = os.getpid()

    def always_dies(*args: Any) -> sg.MatchGame:
        if os.getpid() != here:
            os._exit(5)
        raise AssertionError("the games should be played in workers")

    monkeypatch.setattr(workers, "play_match_game", always_dies)
    with pytest.raises(sg.SkitgubbeError, match=r"keep ending \(exit code 5\) outside any bot"):
        sg.run_match(["random", "random"], deals=2, seed=0, move_time=5)


def test_timeout_is_the_old_name_of_move_time_for_one_release() -> None:
    from skitgubbe.arena.ladder import run_ladder
    from skitgubbe.arena.sprt import run_sprt

    new = sg.run_match(["greedy", "random"], deals=1, seed=7, move_time=10)
    with pytest.warns(DeprecationWarning, match=r"run_match\(timeout=\.\.\.\) is deprecated"):
        old = sg.run_match(["greedy", "random"], deals=1, seed=7, timeout=10)
    assert old == new and new.timeout == 10
    with pytest.raises(sg.ArgumentError, match=r"give move_time .* not both"):
        sg.run_match(["greedy", "random"], deals=1, seed=7, move_time=1, timeout=1)
    for bad in (0, float("inf"), float("nan")):
        with pytest.raises(sg.ArgumentError, match="move_time must be a positive, finite"):
            sg.run_match(["greedy", "random"], deals=1, seed=7, move_time=bad)
    sprt: dict[str, Any] = {"seed": 1, "max_deals": 2}
    with pytest.warns(DeprecationWarning, match=r"run_sprt\(timeout="):
        assert run_sprt("greedy", "random", timeout=10, **sprt) == run_sprt(
            "greedy", "random", move_time=10, **sprt
        )
    with pytest.raises(sg.ArgumentError, match="not both"):
        run_sprt("greedy", "random", move_time=1, timeout=1, **sprt)
    ladder: dict[str, Any] = {"rounds": 2, "seed": 1}
    with pytest.warns(DeprecationWarning, match=r"run_ladder\(timeout="):
        assert run_ladder(["greedy", "random"], timeout=10, **ladder) == run_ladder(
            ["greedy", "random"], move_time=10, **ladder
        )
    with pytest.raises(sg.ArgumentTypeError, match="move_time must be"):
        run_ladder(["greedy", "random"], move_time="1", **ladder)
