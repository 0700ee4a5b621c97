"""The sequential test: its statistics on a synthetic model, and on real games."""

from __future__ import annotations

import json
import math
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
import sprt_model
from resume_support import kill_mid_run, on_dask

import skitgubbe as sg
from skitgubbe.apps.cli import main
from skitgubbe.arena.sprt import gsprt_llr, loss_rate, loss_rate_elo, run_sprt, wald_bounds
from skitgubbe.errors import ArgumentError


def _score(elo: float) -> float:
    return 1 / (1 + 10 ** (-elo / 400))


@pytest.mark.parametrize(
    ("pairs", "elo0", "elo1", "expected"),
    [  # fishtest's examples (stat_util's self-test), logistic Elo on the pair scores
        ([10789, 19328, 33806, 19402, 10543], -3, 1, 2.131067811785019),
        ([39, 2226, 31451, 2412, 40], 0.2, 0.9, 2.1625425800483598),
    ],
)
def test_the_llr_reproduces_fishtests_published_examples(
    pairs: list[int], elo0: float, elo1: float, expected: float
) -> None:
    values = [0, 0.25, 0.5, 0.75, 1]
    assert gsprt_llr(values, pairs, _score(elo0), _score(elo1)) == pytest.approx(expected, abs=1e-8)


def test_the_batch_llr_of_the_simulations_is_the_librarys() -> None:
    rng = np.random.default_rng(0)
    values = sprt_model.grid(3, True)
    counts = rng.integers(0, 4, size=(40, len(values))) * (rng.random((40, len(values))) < 0.4)
    counts[:, 6] += 1
    batch = sprt_model.batch_llr(values, counts, 0.34, 0.31)
    for row, llr in zip(counts, batch, strict=True):
        seen = [i for i, c in enumerate(row) if c or i in (0, len(values) - 1)]
        one = gsprt_llr([values[i] for i in seen], [int(row[i]) for i in seen], 0.34, 0.31)
        assert llr == pytest.approx(one, rel=1e-9, abs=1e-9)


def test_elo_and_loss_rate_convert_both_ways_and_bad_input_is_named() -> None:
    assert loss_rate(0, 3) == pytest.approx(1 / 3)
    assert loss_rate(400, 2) == pytest.approx(1 / 11)
    assert loss_rate_elo(loss_rate(-57.0, 4), 4) == pytest.approx(-57.0)
    assert wald_bounds(0.05, 0.05)[1] == pytest.approx(math.log(19))
    with pytest.raises(ArgumentError, match="alpha"):
        wald_bounds(0.7, 0.05)
    with pytest.raises(ArgumentError, match="players"):
        loss_rate(0, 5)
    with pytest.raises(ArgumentError, match="loss rate"):
        loss_rate_elo(1.0, 3)
    with pytest.raises(ArgumentError, match="mu1"):
        gsprt_llr([0, 1], [3, 4], 0.5, 1.5)


def _variance(players: int, luck: str, rate: float) -> float:
    """The variance of NEW's score per deal set when its loss rate is ``rate``."""
    rng = np.random.default_rng(99)
    theta = sprt_model.theta_for(rate, players)
    return float(sprt_model.deal_sets(rng, 200_000, players, theta, luck).var())


def _design(players: int, luck: str, length: float) -> tuple[float, float]:
    """The hypotheses (mu0 = 1/n, mu1 = mu0 - δ) with 8.7 Var / δ² = ``length``, Var taken
    midway between them (where the formula speaks of; a few rounds, as midway moves with δ)."""
    mu0 = 1 / players
    delta = math.sqrt(8.7 * _variance(players, luck, mu0) / length)
    for _ in range(2):
        delta = math.sqrt(8.7 * _variance(players, luck, mu0 - delta / 2) / length)
    return mu0, mu0 - delta


def _error_rates(players: int, luck: str, runs: int) -> None:
    mu0, mu1 = _design(players, luck, 120)
    rng = np.random.default_rng(players * 10 + sprt_model.LUCK.index(luck))
    h1_under_h0, _, _ = sprt_model.simulate(
        rng, runs, players, sprt_model.theta_for(mu0, players), luck, mu0, mu1
    )
    _, h0_under_h1, _ = sprt_model.simulate(
        rng, runs, players, sprt_model.theta_for(mu1, players), luck, mu0, mu1
    )
    se = math.sqrt(0.05 * 0.95 / runs)
    assert h1_under_h0 <= 0.05 + 3 * se, (players, luck, h1_under_h0)
    assert h0_under_h1 <= 0.05 + 3 * se, (players, luck, h0_under_h1)


def _midway_length(players: int, luck: str, length: float, runs: int) -> None:
    mu0, mu1 = _design(players, luck, length)
    midway = (mu0 + mu1) / 2
    rng = np.random.default_rng(players * 7 + sprt_model.LUCK.index(luck))
    theta = sprt_model.theta_for(midway, players)
    _, _, mean = sprt_model.simulate(rng, runs, players, theta, luck, mu0, mu1)
    formula = 8.7 * _variance(players, luck, midway) / (mu0 - mu1) ** 2
    assert abs(mean / formula - 1) <= 0.10, (players, luck, mean, formula)


def test_error_rates_on_three_players_with_clustered_luck() -> None:
    _error_rates(3, "cluster", 300)


@pytest.mark.slow
@pytest.mark.parametrize("luck", sprt_model.LUCK)
@pytest.mark.parametrize("players", [2, 3, 4])
def test_error_rates_stay_within_alpha_and_beta(players: int, luck: str) -> None:
    _error_rates(players, luck, 500)


@pytest.mark.slow
@pytest.mark.parametrize("luck", sprt_model.LUCK)
@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_mean_length_midway_is_the_formulas(players: int, luck: str) -> None:
    # The formula leaves out the overshoot of the bounds, which lengthens a test by about
    # (1 + 0.6 δ / (2.94 σ))², 5-9 % at 400 deal sets but 3-5 % at 1000 (docs/sprt.md); the
    # length midway varies about as much as its mean, so 1500 runs measure it to about 2 %.
    _midway_length(players, luck, 1000, 1500)


def test_truncated_games_keep_the_false_acceptance_at_alpha_but_a_plain_loss_rate_does_not() -> (
    None
):
    mu0, mu1 = _design(3, "independent", 120)
    runs = 400
    se = math.sqrt(0.05 * 0.95 / runs)
    shared, _, _ = sprt_model.simulate(
        np.random.default_rng(5), runs, 3, 0.0, "independent", mu0, mu1, truncated=0.03
    )
    plain, _, _ = sprt_model.simulate(
        np.random.default_rng(5), runs, 3, 0.0, "independent", mu0, mu1, truncated=0.03, plain=True
    )
    assert shared <= 0.05 + 3 * se
    assert plain > 0.05 + 3 * se  # the loss of a truncated game counted for nobody


# -- real games ---------------------------------------------------------------------------


@pytest.mark.slow
def test_greedy_is_found_stronger_than_random_quickly() -> None:
    result = run_sprt("greedy", "random", seed=3)
    assert result.decision == "H1"
    assert result.llr >= result.upper
    assert result.deal_sets < 300
    assert len(result.games) == 3 * result.deal_sets
    assert result.loss_rate < 0.1 and result.interval[1] < 1 / 3
    assert all(path < result.upper for path in result.llr_path[:-1])


def test_random_against_greedy_is_found_not_stronger() -> None:
    result = run_sprt("random", "greedy", seed=3, elo0=-20, elo1=0)
    assert result.decision == "H0" and result.llr <= result.lower


_FAST_ARGS = "'greedy', 'ismcts:iterations=20', seed=8, elo0=0, elo1=80"
"""A test that decides after a few dozen quick deal sets (as code, for fresh interpreters)."""


def _fast_test(**kwargs: object) -> sg.SprtResult:
    return run_sprt("greedy", "ismcts:iterations=20", seed=8, elo0=0, elo1=80, **kwargs)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def reference() -> sg.SprtResult:
    return _fast_test()


@pytest.mark.slow
def test_workers_and_chunks_give_the_same_result(reference: sg.SprtResult) -> None:
    assert reference.decision is not None
    result = _fast_test(jobs=2, chunk_size=3)
    assert result.scores == reference.scores and result.games == reference.games
    assert result.decision == reference.decision


@pytest.mark.slow
def test_a_state_file_resumes_after_a_kill_with_the_same_result(
    reference: sg.SprtResult, tmp_path: Path
) -> None:
    state = tmp_path / "state.jsonl"
    code = f"import skitgubbe.arena.sprt as s\ns.run_sprt({_FAST_ARGS}, state={str(state)!r})"
    kill_mid_run(code, state, 4)
    lines = state.read_text().splitlines()
    resumed = _fast_test(state=str(state))
    assert resumed.scores == reference.scores and resumed.decision == reference.decision
    assert json.loads(lines[0])["format"] == "skitgubbe-sprt-state"
    again = _fast_test(state=str(state))  # everything is on file now: nothing is played
    assert again.games == reference.games


def test_a_state_file_of_another_run_is_refused(tmp_path: Path) -> None:
    state = str(tmp_path / "state.jsonl")
    run_sprt("greedy", "random", seed=1, max_deals=2, state=state)
    with pytest.raises(ArgumentError, match="seed: file has 1, this run 2"):
        run_sprt("greedy", "random", seed=2, max_deals=2, state=state)


@pytest.mark.slow
def test_a_decided_test_on_an_executor_cancels_and_reports_the_rest(
    reference: sg.SprtResult,
) -> None:
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(2) as pool:
        result = _fast_test(executor=pool)
    assert result.scores == reference.scores
    assert result.discarded >= 1


@pytest.mark.slow
def test_on_a_dask_cluster_the_result_is_the_same(reference: sg.SprtResult, tmp_path: Path) -> None:
    data = on_dask(f"sprt.run_sprt({_FAST_ARGS}, executor=executor)", tmp_path / "dask.json")
    assert data["scores"] == [str(score) for score in reference.scores]
    assert data["decision"] == reference.decision


def test_bad_arguments_are_named() -> None:
    with pytest.raises(ArgumentError, match="different bot specs"):
        run_sprt("greedy", "greedy", seed=1)
    with pytest.raises(ArgumentError, match="elo0 must be below elo1"):
        run_sprt("greedy", "random", seed=1, elo0=5, elo1=0)
    with pytest.raises(ArgumentError, match="delta"):
        run_sprt("greedy", "random", seed=1, delta=(0.1, 0.0))
    with pytest.raises(ArgumentError, match="max_deals"):
        run_sprt("greedy", "random", seed=1, max_deals=0)


@pytest.mark.parametrize(
    "spec",
    ["greedy", "ismcts:iterations=30", "pimc:worlds=2,rollout=mixed", "cmd:./b", "cmd[a=1]:b"],
)
def test_a_bot_against_itself_is_refused_with_a_spelling_that_tests_it(spec: str) -> None:
    from skitgubbe.arena.sprt import _twin

    with pytest.raises(ArgumentError) as caught:
        run_sprt(spec, spec, seed=1)
    message = str(caught.value)
    assert f"not both {spec!r}: NEW's seat is found by its spec's text" in message
    assert f"e.g. {spec!r} and {_twin(spec)!r}, the same bot" in message
    assert _twin(spec) != spec and sg.bots.parse_spec(_twin(spec)) == sg.bots.parse_spec(spec)
    docs = Path(__file__).resolve().parent.parent / "docs" / "sprt.md"
    assert "\n### Testing a bot against itself\n" in docs.read_text(encoding="utf-8")


def test_a_bot_against_its_twin_scores_its_fair_share() -> None:
    result = run_sprt("greedy", "greedy:", seed=1)
    assert result.decision == "H0"
    assert set(result.scores) == {Fraction(1, 3)}  # one game seen from each seat


@pytest.mark.slow
def test_cli_sprt_prints_the_report_and_saves_json_and_plot(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out, plot = tmp_path / "t.json", tmp_path / "t.png"
    argv = ["sprt", "greedy", "random", "--seed", "3", "--out", str(out), "--plot", str(plot)]
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "greedy is stronger (H1 accepted)" in text and "LLR" in text
    assert json.loads(out.read_text())["decision"] == "H1"
    assert plot.read_bytes()[:4] == b"\x89PNG"
    with pytest.raises(SystemExit):
        main(["sprt", "greedy", "random", "--elo", "0", "5", "--delta", "0", "0.01"])
