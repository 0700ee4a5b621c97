"""The ladder: Plackett-Luce ratings and their clustered intervals, and real ladders."""

from __future__ import annotations

import itertools
import json
import math
import os
import re
import resource
import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from resume_support import kill_mid_run, on_dask

from skitgubbe.arena import MatchGame, arrangements
from skitgubbe.arena.ladder import ELO_PER_THETA, LadderResult, fit_plackett_luce, run_ladder
from skitgubbe.errors import ArgumentError, RecordError

THETA = {"random": 0.0, "a": 0.3, "b": 0.6, "c": 1.0}


def _synthetic_ladder(rng: np.random.Generator, rounds: int, luck: str) -> list[MatchGame]:
    """Round robins of 3-seat tables; orders from a Plackett-Luce model drawn from the
    bottom, with Gumbel luck that is fresh in every game or shared by a bot's games of a
    deal set (half of them: luck that clusters)."""
    games = []
    deal = 0
    for _ in range(rounds):
        for table in itertools.combinations(THETA, 3):
            shared = dict(zip(table, rng.gumbel(size=3), strict=True))
            for index, seats in enumerate(arrangements(table)):
                noise = rng.gumbel(size=3)
                if luck == "cluster":
                    keep = rng.random(3) < 0.5
                    noise = np.where(keep, [shared[s] for s in seats], noise)
                badness = [-THETA[s] + g for s, g in zip(seats, noise, strict=True)]
                worst_first = sorted(range(3), key=lambda s: -badness[s])
                order = tuple(reversed(worst_first))  # first out ... the skitgubbe
                games.append(MatchGame(deal, index, seats, order[-1], order, False, 0))
            deal += 1
    return games


@pytest.mark.slow
@pytest.mark.parametrize("luck", ["independent", "cluster"])
def test_the_95_percent_intervals_cover_the_true_differences(luck: str) -> None:
    rng = np.random.default_rng(11)
    covered = total = 0
    for _ in range(150):
        ratings = fit_plackett_luce(_synthetic_ladder(rng, 12, luck), list(THETA))
        for x, y in itertools.combinations(THETA, 2):
            true = (THETA[x] - THETA[y]) * ELO_PER_THETA
            i, j = ratings.bots.index(x), ratings.bots.index(y)
            est = ratings.elo[i] - ratings.elo[j]
            covered += abs(est - true) <= 1.959964 * ratings.difference_se(x, y)
            total += 1
    assert 0.93 <= covered / total <= 0.97, covered / total


def test_clustering_by_deal_set_widens_the_intervals_under_clustered_luck() -> None:
    """The clustered covariance matters: under clustered luck the model's own (naive)
    information gives intervals that cover too rarely."""
    rng = np.random.default_rng(3)
    games = _synthetic_ladder(rng, 60, "cluster")
    clustered = fit_plackett_luce(games, list(THETA))
    naive = fit_plackett_luce(
        [
            MatchGame(g.deal * 100 + g.arrangement, 0, g.seats, g.loser, g.finish_order, False, 0)
            for g in games
        ],
        list(THETA),
    )
    assert clustered.difference_se("c", "random") > 1.2 * naive.difference_se("c", "random")


def test_a_real_ladder_ranks_greedy_over_random_and_saves_everything(tmp_path: Path) -> None:
    ladder = run_ladder(["random", "greedy", "ismcts:iterations=20"], rounds=6, seed=5)
    assert ladder.anchor == "random" and ladder.ratings[0].bot == "greedy"
    assert ladder.fit.rating("random").elo == 0
    assert ladder.matrix()[0][-1] > 0.9
    ladder.save_json(str(tmp_path / "l.json"))
    ladder.save_csv(str(tmp_path / "l.csv"))
    ladder.plot(str(tmp_path / "l.png"))
    again = LadderResult.from_dict(json.loads((tmp_path / "l.json").read_text()))
    assert again == ladder
    assert (tmp_path / "l.csv").read_text().count("\n") == 4


def test_workers_and_a_resumed_state_file_give_the_same_ladder(tmp_path: Path) -> None:
    bots = ["random", "greedy", "ismcts:iterations=20"]
    one = run_ladder(bots, rounds=4, seed=2)
    assert run_ladder(bots, rounds=4, seed=2, jobs=2, chunk_size=2) == one
    state = tmp_path / "ladder.jsonl"
    run_ladder(bots, rounds=2, seed=2, state=str(state))
    lines = state.read_text().splitlines()
    with pytest.raises(ArgumentError, match="seed"):
        run_ladder(bots, rounds=4, seed=3, state=str(state))
    # More rounds on the same file: the two on file are kept, only the new ones played.
    reports: list[tuple[int, int]] = []
    grown = run_ladder(
        bots, rounds=4, seed=2, state=str(state), progress=lambda d, t: reports.append((d, t))
    )
    assert grown == one and reports[0] == (2, 4) and reports[-1] == (4, 4)
    assert state.read_text().splitlines()[:3] == lines  # the first header and sets kept
    two = run_ladder(bots, rounds=2, seed=2)  # fewer rounds: the first ones, from the file
    assert run_ladder(bots, rounds=2, seed=2, state=str(state)) == two != one
    state.write_text("\n".join(lines[:2]) + "\n" + lines[2][:20])  # one set, then a torn line
    partial = tmp_path / "partial.jsonl"
    run_ladder(bots, rounds=4, seed=2, state=str(partial), progress=lambda d, t: None)
    text = partial.read_text().splitlines()
    partial.write_text("\n".join(text[:3]) + "\n" + text[3][:30])
    assert run_ladder(bots, rounds=4, seed=2, state=str(partial)) == one


_BOTS = ["random", "greedy", "ismcts:iterations=20"]
_ARGS = f"{_BOTS!r}, rounds=12, seed=2"
"""A quick ladder of twelve deal sets (as code, for fresh interpreters)."""


@pytest.fixture(scope="module")
def reference() -> LadderResult:
    return run_ladder(_BOTS, rounds=12, seed=2)


@pytest.mark.slow
def test_a_state_file_resumes_a_killed_ladder_with_the_same_result(
    reference: LadderResult, tmp_path: Path
) -> None:
    state = tmp_path / "ladder.jsonl"
    kill_mid_run(
        f"import skitgubbe.arena.ladder as l\nl.run_ladder({_ARGS}, state={str(state)!r})", state, 4
    )
    kept = state.read_text().count("\n") - 1
    assert kept < 12  # the kill left deal sets to play
    seen: list[tuple[int, int]] = []
    resumed = run_ladder(
        _BOTS, rounds=12, seed=2, state=str(state), progress=lambda d, t: seen.append((d, t))
    )
    assert resumed == reference
    assert seen[0] == (kept, 12)  # resumed from the deal sets on file
    assert run_ladder(_BOTS, rounds=12, seed=2, state=str(state)) == reference  # all on file


@pytest.mark.slow
def test_on_a_dask_cluster_the_ladder_is_the_same(reference: LadderResult, tmp_path: Path) -> None:
    data = on_dask(f"ladder.run_ladder({_ARGS}, executor=executor)", tmp_path / "dask.json")
    assert LadderResult.from_dict(data) == reference


def test_a_gauntlet_adds_one_bot_to_a_ladder() -> None:
    base = run_ladder(["random", "greedy"], rounds=4, seed=1, rules=None)
    more = run_ladder(["ismcts:iterations=20"], rounds=3, seed=1, base=base)
    assert more.bots[-1] == "ismcts:iterations=20"
    new = more.games[len(base.games) :]
    assert all("ismcts:iterations=20" in game.seats for game in new)
    assert min(game.deal for game in new) > max(game.deal for game in base.games)
    with pytest.raises(ArgumentError, match="gauntlet"):
        run_ladder(["greedy"], rounds=1, seed=1, base=base)


def test_bad_input_is_named() -> None:
    with pytest.raises(ArgumentError, match="at least two bots"):
        run_ladder(["greedy"], rounds=1, seed=1)
    with pytest.raises(ArgumentError, match="distinct"):
        run_ladder(["greedy", "greedy"], rounds=1, seed=1)
    with pytest.raises(ArgumentError, match="rounds"):
        run_ladder(["greedy", "random"], rounds=0, seed=1)
    with pytest.raises(ArgumentError, match="two deal sets"):
        fit_plackett_luce([], ["a", "b"])
    assert math.isfinite(ELO_PER_THETA)


def test_cli_ladder_prints_the_table_and_saves_json_csv_and_plot(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from skitgubbe.apps.cli import main

    out, table, plot = tmp_path / "l.json", tmp_path / "l.csv", tmp_path / "l.png"
    argv = ["ladder", "random", "greedy", "--rounds", "3", "--seed", "4", "--out", str(out)]
    assert main([*argv, "--csv", str(table), "--plot", str(plot)]) == 0
    text = capsys.readouterr().out
    assert "Elo anchored at random = 0" in text and f"Saved {plot}." in text
    assert LadderResult.from_dict(json.loads(out.read_text())) == run_ladder(
        ["random", "greedy"], rounds=3, seed=4
    )
    assert table.read_text().count("\n") == 3 and plot.read_bytes()[:4] == b"\x89PNG"
    assert main([*argv, "--by", "loser"]) == 0  # the same games, rated by who lost
    assert "rated by who lost" in capsys.readouterr().out
    assert json.loads(out.read_text())["by"] == "loser"


def test_rated_by_the_loser_only_the_skitgubbe_counts() -> None:
    """By the loser, the order in which the others went out changes nothing; by the
    order it does. The fit still finds the model's strengths from who lost."""
    rng = np.random.default_rng(5)
    games = _synthetic_ladder(rng, 40, "independent")
    shuffled = [  # the same losers, the others' order reversed
        MatchGame(
            g.deal,
            g.arrangement,
            g.seats,
            g.loser,
            (*g.finish_order[:-1][::-1], g.finish_order[-1]),
            False,
            0,
        )
        for g in games
    ]
    by_loser = fit_plackett_luce(games, list(THETA), by="loser")
    assert by_loser.elo == pytest.approx(fit_plackett_luce(shuffled, list(THETA), by="loser").elo)
    by_order = fit_plackett_luce(games, list(THETA))
    assert by_order.elo != pytest.approx(fit_plackett_luce(shuffled, list(THETA)).elo)
    c = by_loser.bots.index("c")  # the strongest, by the model and by who lost
    assert by_loser.elo[c] == max(by_loser.elo)
    assert by_loser.difference_se("c", "random") > by_order.difference_se("c", "random")
    truncated = MatchGame(999, 0, ("a", "b", "c"), None, (), True, 0)  # no loser: no draw
    assert fit_plackett_luce([*games, truncated], list(THETA), by="loser").elo == pytest.approx(
        by_loser.elo
    )
    with pytest.raises(ArgumentError, match="by must be one of order, loser, not 'winner'"):
        fit_plackett_luce(games, list(THETA), by="winner")


def test_a_ladder_rated_by_the_loser_saves_and_reads_back_how() -> None:
    ladder = run_ladder(["random", "greedy"], rounds=3, seed=4, by="loser")
    data = ladder.to_dict()
    assert data["by"] == "loser" and "rated by who lost" in ladder.describe()
    assert LadderResult.from_dict(data) == ladder
    del data["by"]  # a ladder saved before "by" was kept: rated by the order
    assert LadderResult.from_dict(data).by == "order"


# A state file is checked line by line against the ladder's own schedule (issue 40).

_TABLE = ["random", "greedy", "ismcts:iterations=5", "ismcts:iterations=6"]
"""Four bots at three seats: four tables a round, each deal under six seatings."""


@pytest.fixture(scope="module")
def journal(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[str], LadderResult]:
    """The lines of a finished two-round ladder's state file, and the ladder."""
    state = tmp_path_factory.mktemp("journal") / "ladder.jsonl"
    ladder = run_ladder(_TABLE, rounds=2, seed=3, state=str(state))
    return state.read_text().splitlines(), ladder


def _set_games(line: dict[str, Any], change: Callable[[list[dict[str, Any]]], object]) -> None:
    change(line["games"])


def _every_game(change: Callable[[dict[str, Any]], object]) -> Callable[[dict[str, Any]], None]:
    return lambda line: [change(game) for game in line["games"]]  # type: ignore[func-returns-value]


def _swap_two_seats(game: dict[str, Any]) -> None:
    game["seats"][0], game["seats"][1] = game["seats"][1], game["seats"][0]


def _next_loser(game: dict[str, Any]) -> None:
    game["loser"] = (game["loser"] + 1) % len(game["seats"])


# name: (the line changed (1 is the header), how, what the refusal says after "line N: ")
_TAMPERED: dict[str, tuple[int, Callable[[dict[str, Any]], object], str]] = {
    "a set's games repeated 50 times": (
        3, lambda line: line.update(games=line["games"] * 50),
        "deal set 1: expected 6 games (one for each seating of its table",
    ),
    "a set with one game": (
        4, lambda line: line.update(games=line["games"][:1]),
        "deal set 2: expected 6 games (one for each seating of its table",
    ),
    "seats reordered": (
        2, lambda line: _swap_two_seats(line["games"][2]),
        "deal set 0, game 2: expected the seats",
    ),
    "seatings reordered": (
        5, lambda line: line["games"].reverse(), "deal set 3, game 0: expected arrangement 0",
    ),
    "a bot twice at one table": (
        6, lambda line: line["games"][0]["seats"].__setitem__(1, line["games"][0]["seats"][0]),
        "deal set 4, game 0: a bot twice at one table",
    ),
    "every loser rewritten": (
        7, _every_game(_next_loser), "deal set 5, game 0: the loser is seat",
    ),
    "a deal of another set": (
        8, _every_game(lambda game: game.update(deal=0)),
        "deal set 6, game 0: expected deal 6 (its deal set's), found 0",
    ),
    "a set at another table": (
        9, lambda line: line.update(set=8),
        "deal set 8, game 0: expected the seats",
    ),
    "a set far beyond the schedule": (
        9, lambda line: line.update(set=10**6),
        "deal set 1000000, game 0: expected the seats",
    ),
    "a finish order short": (
        2, lambda line: line["games"][1].update(finish_order=line["games"][1]["finish_order"][1:]),
        "deal set 0, game 1: the finish order",
    ),
    "a game truncated early": (
        3, lambda line: line["games"][0].update(truncated=True, loser=None),
        "deal set 1, game 0: truncated after",
    ),
    "more moves than the cap": (
        3, lambda line: line["games"][5].update(moves=10**6),
        "deal set 1, game 5: 1000000 moves, more than the rules' cap",
    ),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(_TAMPERED))
def test_a_tampered_state_file_is_refused_naming_the_line(
    journal: tuple[list[str], LadderResult], tmp_path: Path, name: str
) -> None:
    lines, _ = journal
    number, change, says = _TAMPERED[name]
    line = json.loads(lines[number - 1])
    change(line)
    changed = [*lines[: number - 1], json.dumps(line), *lines[number:]]
    state = tmp_path / "ladder.jsonl"
    state.write_text("\n".join(changed) + "\n")
    with pytest.raises(RecordError) as caught:
        run_ladder(_TABLE, rounds=2, seed=3, state=str(state))
    assert str(caught.value).startswith(f"{state}, line {number}: {says}"), str(caught.value)
    assert state.read_text() == "\n".join(changed) + "\n"  # left as it was


def test_a_set_twice_in_a_state_file_is_refused_naming_both_lines(
    journal: tuple[list[str], LadderResult], tmp_path: Path
) -> None:
    lines, _ = journal
    state = tmp_path / "ladder.jsonl"
    state.write_text("\n".join([*lines, lines[3]]) + "\n")
    with pytest.raises(RecordError, match=f"line {len(lines) + 1}: deal set 2 again .*line 4"):
        run_ladder(_TABLE, rounds=2, seed=3, state=str(state))


def test_an_untouched_state_file_resumes_grows_and_shrinks(
    journal: tuple[list[str], LadderResult], tmp_path: Path
) -> None:
    lines, ladder = journal
    state = tmp_path / "ladder.jsonl"
    state.write_text("\n".join(lines[:6]) + "\n")  # the header and five deal sets
    assert run_ladder(_TABLE, rounds=2, seed=3, state=str(state)) == ladder
    assert state.read_text().splitlines()[:6] == lines[:6]
    grown = run_ladder(_TABLE, rounds=3, seed=3, state=str(state))
    assert grown == run_ladder(_TABLE, rounds=3, seed=3)
    assert run_ladder(_TABLE, rounds=2, seed=3, state=str(state)) == ladder  # sets beyond kept
    gauntlet = tmp_path / "gauntlet.jsonl"
    base = run_ladder(["random", "greedy"], rounds=2, seed=1)
    more = run_ladder(["ismcts:iterations=5"], rounds=2, seed=1, base=base, state=str(gauntlet))
    assert run_ladder(["ismcts:iterations=5"], rounds=2, seed=1, base=base,
                      state=str(gauntlet)) == more  # fmt: skip


@pytest.mark.parametrize("kind", ["a FIFO", "a device"])
def test_a_state_file_that_is_not_a_regular_file_is_refused_without_waiting(
    tmp_path: Path, kind: str
) -> None:
    state = tmp_path / "ladder.jsonl"
    if kind == "a FIFO":
        os.mkfifo(state)
    else:
        state.symlink_to("/dev/zero")

    def hung(signum: int, frame: object) -> None:
        raise TimeoutError("the ladder waited on its state file, or read it endlessly")

    previous = signal.signal(signal.SIGALRM, hung)
    limits = resource.getrlimit(resource.RLIMIT_AS)  # a read of /dev/zero ends at 1 GB more
    with open("/proc/self/status") as status:
        held = next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmSize"))
    resource.setrlimit(resource.RLIMIT_AS, (held + 2**30, limits[1]))
    signal.alarm(10)
    try:
        with pytest.raises(RecordError, match=f"^{re.escape(str(state))} is {kind}"):
            run_ladder(["random", "greedy"], rounds=1, seed=1, state=str(state))
    finally:
        signal.alarm(0)
        resource.setrlimit(resource.RLIMIT_AS, limits)
        signal.signal(signal.SIGALRM, previous)
