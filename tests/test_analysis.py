"""skitgubbe.analysis: a position's move estimates and a whole game's review.

The analysis must read nothing but the seat's observation (the same non-interference
test as the bots: two deals the seat cannot tell apart give the same analysis for a
seed), be reproducible, label moves by their cost as documented, and refuse bad
input with errors that say what was wrong.
"""

from __future__ import annotations

import json
import math
import random
import re

import pytest
from positions import swapped_twin

import skitgubbe as sg
from skitgubbe import _core
from skitgubbe.analysis import (
    COLOURS,
    DEFAULT_ENGINE,
    LABELS,
    NOT_REPRODUCIBLE,
    THRESHOLDS,
    GameAnalysis,
    MoveEstimate,
    PositionAnalysis,
    analyse,
    analyse_position,
    explain_choice,
    label,
    position_seed,
)
from skitgubbe.errors import ArgumentError, RecordError

ENGINE = "ismcts:iterations=400"


def played_game(seed: int, players: int = 2, moves: int | None = None) -> sg.Game:
    """A game played by greedy bots (to its end, or for ``moves`` moves)."""
    game = sg.Game.new(sg.Rules.classic(players), seed=seed)
    bot = sg.bots.GreedyBot()
    while game.result is None and (moves is None or len(game.moves) < moves):
        game.play(bot.choose(game.observation(game.to_move)))
    return game


def test_a_position_weighs_exactly_its_legal_moves() -> None:
    game = played_game(3, players=3, moves=7)
    view = game.observation(game.to_move)
    result = analyse_position(view, ENGINE, seed=2)
    assert sorted(map(str, (e.move for e in result.estimates))) == sorted(
        map(str, game.legal_moves)
    )
    losses = [e.loss for e in result.estimates]
    assert losses == sorted(losses)
    assert all(0.0 < e.loss < 1.0 and 0.0 < e.error < 0.5 for e in result.estimates)
    # ISMCTS: every simulation goes through one root move; the best is the most simulated.
    assert sum(e.visits for e in result.estimates) == result.iterations == 400
    assert result.best.visits == max(e.visits for e in result.estimates)
    assert result.seat == game.to_move and result.engine == ENGINE


def test_estimates_are_the_searchs_counts_with_laplaces_rule() -> None:
    game = played_game(3, players=3, moves=7)
    view = game.observation(game.to_move)
    # An analysis searches every legal move (merge=False: see the test below).
    stats = sg.bots.ISMCTSBot(iterations=400, merge=False, seed=5).statistics(view)
    result = analyse_position(view, sg.bots.ISMCTSBot(iterations=400, seed=99), seed=5)
    for estimate in result.estimates:
        visits, not_lost = stats[estimate.move]
        assert estimate.visits == visits
        assert estimate.loss == pytest.approx((visits - not_lost + 1) / (visits + 2))
        assert estimate.error == pytest.approx(
            math.sqrt(estimate.loss * (1 - estimate.loss) / (visits + 2))
        )


def test_pimc_gives_every_move_the_same_samples() -> None:
    game = played_game(3, players=3, moves=7)
    result = analyse_position(game.observation(game.to_move), "pimc:worlds=6,rollouts=2")
    assert {e.visits for e in result.estimates} == {12}
    assert result.iterations == 12 * len(game.legal_moves)
    assert result.best.loss == min(e.loss for e in result.estimates)


def test_a_position_analysis_is_reproducible_for_a_seed() -> None:
    game = played_game(8, players=3, moves=10)
    view = game.observation(game.to_move)
    first = analyse_position(view, ENGINE, seed=11)
    assert analyse_position(view, ENGINE, seed=11) == first
    assert first.to_dict() == analyse_position(view, ENGINE, seed=11).to_dict() | {
        "seconds": first.seconds
    }


@pytest.mark.parametrize(
    "engine",
    ["expert", "ismcts:iterations=600,time=0.000001", "ISMCTSBot(iterations=600, time=1e-6)"],
)
def test_an_engine_with_iterations_and_time_is_analysed_by_its_iterations(engine: str) -> None:
    """The same position and seed give the same analysis, though the engine also has a time
    budget (a microsecond: were it kept, the search would stop after a few simulations)."""
    game = played_game(8, players=3, moves=10)
    view = game.observation(game.to_move)
    runs = []
    for _ in range(2):
        bot = sg.bots.ISMCTSBot(iterations=600, time=1e-6, seed=1)
        runs.append(analyse_position(view, bot if engine.startswith("ISMCTSBot") else engine, 7))
    first, second = runs
    assert first == second and first.reproducible and first.to_dict()["reproducible"]
    assert first.to_dict() == second.to_dict() | {"seconds": first.seconds}
    expert = sg.bots.make("expert").bot  # type: ignore[attr-defined]
    assert first.iterations == (expert.iterations if engine == "expert" else 600)
    assert sum(e.visits for e in first.estimates) == first.iterations


def test_a_time_only_engine_is_marked_not_reproducible() -> None:
    game = played_game(27, moves=16)
    view = game.observation(game.to_move)
    for engine in ("ismcts:time=0.001", sg.bots.ISMCTSBot(time=0.001)):
        result = analyse_position(view, engine, seed=1)
        assert not result.reproducible and result.to_dict()["reproducible"] is False
        assert NOT_REPRODUCIBLE in result._repr_html_()
    review = analyse(game, game.to_move, "ismcts:time=0.001", seed=1)
    assert review.choices and not review.reproducible
    assert all(r.analysis is None or not r.analysis.reproducible for r in review.reviews)
    assert NOT_REPRODUCIBLE in review.summary().splitlines()[0]
    assert NOT_REPRODUCIBLE in review.text()
    assert json.loads(review.to_json())["reproducible"] is False
    searched = analyse(game, game.to_move, "ismcts:iterations=50", seed=1)
    assert searched.reproducible and json.loads(searched.to_json())["reproducible"] is True
    assert NOT_REPRODUCIBLE not in searched.text()


def test_a_bot_given_as_engine_keeps_its_own_random_state() -> None:
    bot = sg.bots.ISMCTSBot(iterations=100, seed=3)
    state = bot._rng.getstate()
    game = played_game(3, players=3, moves=5)
    analyse_position(game.observation(game.to_move), bot, seed=1)
    assert bot._rng.getstate() == state


def test_every_legal_move_is_weighed_though_the_engine_merges_equivalent_moves() -> None:
    """The engines merge equivalent moves when they play (``merge=True``), which leaves all
    but one move of a class unvisited; an analysis searches every move, so a player's
    higher card of a class gets an estimate of its own, not the prior of no visits."""
    game = sg.Game.new(seed=21)
    greedy = sg.bots.GreedyBot()
    while game.to_move is not None:
        view = game.observation(game.to_move)
        played = sg.bots.ISMCTSBot(iterations=400, seed=1).visits(view)
        if view.phase is sg.Phase.SHEDDING and 0 in played.values():
            break  # a position where the playing search merged some moves away
        game.play(greedy.choose(view))
    else:
        pytest.fail("no position with merged moves")
    for engine in ("ismcts:iterations=400", sg.bots.ISMCTSBot(iterations=400), "hard"):
        result = analyse_position(view, engine, seed=1)
        assert {e.move for e in result.estimates} == set(view.legal_moves)
        assert all(e.visits > 0 for e in result.estimates), engine


def test_a_level_name_is_an_engine() -> None:
    game = played_game(3, players=3, moves=5)
    result = analyse_position(game.observation(game.to_move), "hard", seed=1)
    assert result.iterations == 3000 and result.best.move in game.legal_moves  # ismcts


@pytest.mark.parametrize(
    ("engine", "message"),
    [
        ("greedy", "an analysis needs a search bot (ismcts, pimc, or the levels hard and expert)"),
        ("cmd:/bin/false", "not 'cmd:/bin/false'"),
        ("medium", "not 'medium'"),
        ("ismcts:iterations=0", "iterations"),
        ("nonsense", "nonsense"),
        (3, "an analysis engine is a bot spec or a search bot, not int"),
    ],
)
def test_a_bad_engine_is_refused(engine: object, message: str) -> None:
    game = played_game(3, players=3, moves=5)
    with pytest.raises(ArgumentError, match=message.replace("(", r"\(").replace(")", r"\)")):
        analyse_position(game.observation(game.to_move), engine)  # type: ignore[arg-type]


def test_a_view_without_the_turn_is_refused() -> None:
    game = played_game(3, players=3, moves=5)
    other = (game.to_move + 1) % 3
    with pytest.raises(ArgumentError, match=f"seat {other} cannot move"):
        analyse_position(game.observation(other), ENGINE)


def test_an_unknown_move_is_refused_by_name() -> None:
    game = played_game(3, players=3, moves=5)
    result = analyse_position(game.observation(game.to_move), ENGINE)
    illegal = next(m for m in map(sg.Move.parse, ("2C", "3C", "4C")) if m not in game.legal_moves)
    with pytest.raises(ArgumentError, match="is not a legal move here; legal:"):
        result.estimate(illegal)


def twin_games(count: int) -> list[tuple[sg.Game, sg.Game, int]]:
    """Pairs of games with two cards swapped that one seat never saw: the seat's
    every observation is the same in both (checked), the deals are not."""
    pairs = []
    for index in range(count * 4):
        rng = random.Random(index)
        rules = sg.Rules.classic(3)
        deck = list(_core.deck_from_seed(900 + index))
        game = sg.Game.new(rules, deck=[sg.Card.from_code(c) for c in deck])
        bot = sg.bots.GreedyBot()
        for _ in range(rng.randrange(8, 30)):
            if game.result is not None:
                break
            game.play(bot.choose(game.observation(game.to_move)))
        if game.result is not None:
            continue
        seat = rng.randrange(3)
        unknown = sorted(card.code for card in game.observation(seat).unknown)
        if len(unknown) < 2:
            continue
        twin = swapped_twin(rules, deck, unknown, rng)
        same = True
        for move in game.moves:
            if twin.to_move == seat and twin.observation(seat) != replayed(game, twin, seat):
                same = False
            twin.play(move)
        if same and twin.observation(seat) == game.observation(seat):
            pairs.append((game, twin, seat))
        if len(pairs) == count:
            break
    return pairs


def replayed(game: sg.Game, twin: sg.Game, seat: int) -> sg.Observation:
    """``game``'s observation for ``seat`` after as many moves as ``twin`` has played."""
    copy = sg.Game.from_record({**game.record(), "moves": [], "result": None})
    for move in game.moves[: len(twin.moves)]:
        copy.play(move)
    return copy.observation(seat)


def test_the_analysis_reads_only_what_the_seat_knows() -> None:
    """Two deals the seat cannot tell apart give the same review, move by move."""
    pairs = twin_games(6)
    assert len(pairs) >= 4
    for game, twin, seat in pairs:
        assert game.hands != twin.hands or game.stock != twin.stock
        first = analyse(game, seat, "ismcts:iterations=150", seed=4)
        second = analyse(twin, seat, "ismcts:iterations=150", seed=4)
        assert first == second
        assert [r.analysis for r in first.reviews] == [r.analysis for r in second.reviews]


def test_a_whole_game_is_reviewed_move_by_move() -> None:
    game = played_game(21)
    seat = 1
    result = analyse(game, seat, ENGINE, seed=3)
    replay = sg.Game.from_record({**game.record(), "moves": [], "result": None})
    expected = []
    for index, move in enumerate(game.moves):
        if replay.to_move == seat:
            expected.append((index, move, len(replay.legal_moves) == 1))
        replay.play(move)
    assert [(r.index, r.move, r.label == "forced") for r in result.reviews] == expected
    assert result.loser == game.result.loser and result.rules == game.rules
    for review in result.reviews:
        assert review.label in LABELS
        if review.label == "forced":
            assert review.played is None and review.analysis is None and review.cost == 0
            continue
        assert review.analysis is not None and review.played is not None
        assert review.best == review.analysis.best
        assert review.played == review.analysis.estimate(review.move)
        assert review.cost == pytest.approx(max(0.0, review.played.loss - review.best.loss))
        assert review.label == label(review.cost, review.move == review.best.move)
    choices = [r for r in result.reviews if r.label != "forced"]
    good = sum(r.label in ("best", "good") for r in choices)
    assert result.accuracy == pytest.approx(100 * good / len(choices))
    costs = [r.cost for r in result.costliest(len(choices))]
    assert costs == sorted(costs, reverse=True) and all(cost > 0 for cost in costs)


def test_labels_follow_the_thresholds() -> None:
    assert label(0.0, True) == "best"
    assert label(THRESHOLDS["inaccuracy"] - 1e-9, False) == "good"
    assert label(THRESHOLDS["inaccuracy"], False) == "inaccuracy"
    assert label(THRESHOLDS["mistake"], False) == "mistake"
    assert label(THRESHOLDS["blunder"], False) == "blunder"
    assert label(1.0, True) == "best"


def test_a_review_is_json_and_svg() -> None:
    game = played_game(22)
    result = analyse(game, 0, "pimc:worlds=3", seed=1)
    data = json.loads(result.to_json())
    assert data["format"] == "skitgubbe-analysis" and data["seat"] == 0
    assert [r["move"] for r in data["reviews"]] == [str(r.move) for r in result.reviews]
    assert data["counts"] == result.counts() and data["accuracy"] == result.accuracy
    picture = result.svg()
    assert picture.startswith("<svg") and picture.endswith("</svg>")
    dots = picture.count("<circle class='move ")
    assert dots == sum(r.label != "forced" for r in result.reviews)
    assert "fair share" in picture and result._repr_svg_() == picture
    text = result.text()
    assert text.count("\n") >= len(result.reviews) and "accuracy" in text


def test_the_record_or_the_game_give_the_same_review() -> None:
    game = played_game(23, moves=40)
    by_game = analyse(game, 0, ENGINE, seed=2)
    by_record = analyse(json.loads(json.dumps(game.record())), 0, ENGINE, seed=2)
    assert by_game == by_record and by_game.loser is None


def test_jobs_do_not_change_the_result_and_progress_is_told() -> None:
    game = played_game(24, moves=30)
    told: list[tuple[int, int]] = []
    alone = analyse(
        game, 1, ENGINE, seed=6, progress=lambda done, total: told.append((done, total))
    )
    total = sum(r.label != "forced" for r in alone.reviews)
    assert told == [(done, total) for done in range(total + 1)]
    assert analyse(game, 1, ENGINE, seed=6, jobs=2) == alone


@pytest.mark.parametrize(
    ("options", "error", "message"),
    [
        ({"seat": 2}, ArgumentError, "seat must be 0 … 1 in this game, not 2"),
        ({"seat": 0, "jobs": 0}, ArgumentError, "jobs must be an int >= 1, not 0"),
        (
            {"seat": 0, "jobs": 2, "engine": sg.bots.ISMCTSBot(iterations=10)},
            ArgumentError,
            "needs its engine as a bot spec string",
        ),
    ],
)
def test_bad_review_options_are_refused(
    options: dict[str, object], error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=message):
        analyse(played_game(25, moves=10), **options)  # type: ignore[arg-type]


def test_a_damaged_record_is_a_record_error() -> None:
    record = played_game(26, moves=10).record()
    record["moves"][3] = "2C"
    with pytest.raises(RecordError, match="move 3"):
        analyse(record, 0, ENGINE)


def test_a_move_estimate_checks_its_counts() -> None:
    with pytest.raises(ArgumentError, match="no count"):
        MoveEstimate.from_counts(sg.Move.parse("6H"), 3, 4.0)


@pytest.mark.slow
def test_random_play_is_less_accurate_than_search() -> None:
    """The review tells a random player from a searching one (10 two-player games)."""
    random_accuracy, search_accuracy = [], []
    for seed in range(10):
        game = sg.Game.new(sg.Rules.classic(2), seed=300 + seed)
        players = [sg.bots.RandomBot(seed=seed), sg.bots.ISMCTSBot(iterations=3000, seed=seed)]
        while game.result is None:
            game.play(players[game.to_move].choose(game.observation(game.to_move)))
        result: GameAnalysis = analyse(game, 0, "ismcts:iterations=3000", seed=seed, jobs=2)
        random_accuracy.append(result.accuracy)
        search_accuracy.append(analyse(game, 1, "ismcts:iterations=3000", seed=seed).accuracy)
    # About 8-10 points a game apart (the search's own moves are not all the analysis's
    # best: equivalent moves are weighed apart, with the noise of their own estimates).
    better = sum(s > r for s, r in zip(search_accuracy, random_accuracy, strict=True))
    assert better >= 8 and sum(search_accuracy) > sum(random_accuracy) + 50, (
        search_accuracy,
        random_accuracy,
    )


# -- one verdict for one position: the review's seeds, the reasons, the graph ----------------


def test_each_decision_of_a_review_is_the_analysis_a_hint_at_it_gets() -> None:
    game = played_game(8, players=3)
    review = analyse(game, 0, ENGINE)
    checked = [r for r in review.reviews if r.analysis is not None]
    assert len(checked) >= 5
    for decision in checked:
        assert decision.analysis is not None
        view = decision.analysis.observation
        assert view.seat == 0 and view.moves_played == decision.index
        hint = analyse_position(view, ENGINE, position_seed(view))
        assert hint == decision.analysis
        assert hint.best == decision.best
    # Another analysis seed is another search: some decision comes out otherwise.
    other = analyse(game, 0, ENGINE, seed=1)
    assert [r.analysis for r in other.reviews] != [r.analysis for r in review.reviews]
    assert analyse(game, 0, ENGINE, seed=1) == other


def test_a_positions_seed_is_drawn_from_what_the_seat_sees() -> None:
    game, twin, seat = twin_games(1)[0]
    view = game.observation(seat)
    assert view == twin.observation(seat)
    assert position_seed(view) == position_seed(twin.observation(seat))
    assert position_seed(view) != position_seed(game.observation((seat + 1) % game.players))
    assert len({position_seed(view, s) for s in range(5)}) == 5


def _analysis(*estimates: MoveEstimate, best: int) -> PositionAnalysis:
    ordered = tuple(sorted(estimates, key=lambda e: (e.loss, str(e.move))))
    total = sum(e.visits for e in estimates)
    view = sg.Game.new(seed=4).observation(0)
    return PositionAnalysis(0, ordered, estimates[best], total, 0.0, ENGINE, view)


def test_the_engines_choice_is_explained_when_another_move_has_a_lower_estimate() -> None:
    six, seven, eight = (sg.Move.parse(text) for text in ("6H", "7H", "8H"))
    close = _analysis(
        MoveEstimate(six, 0.563, 0.004, 14000),
        MoveEstimate(seven, 0.553, 0.012, 1500),
        MoveEstimate(eight, 0.9, 0.05, 40),
        best=0,
    )
    text = explain_choice(close)
    assert text is not None
    assert "6♥ (56.3 % ± 0.4)" in text and "7♥ has a lower estimate (55.3 % ± 1.2)" in text
    assert "simulated most (14000 of 15540 simulations)" in text
    assert "difference, 1.0 points, is within the estimates' errors (2 × 1.3 points)" in text
    assert explain_choice(close, eight) is None  # 8♥'s estimate is higher
    apart = _analysis(
        MoveEstimate(six, 0.60, 0.004, 14000), MoveEstimate(seven, 0.50, 0.012, 1500), best=0
    )
    text = explain_choice(apart)
    assert text is not None and "10.0 points, is more than the estimates' errors" in text
    assert "a larger budget may prefer 7♥" in text
    lowest = _analysis(
        MoveEstimate(six, 0.40, 0.004, 14000), MoveEstimate(seven, 0.50, 0.012, 1500), best=0
    )
    assert explain_choice(lowest) is None and explain_choice(lowest, seven) is None


def test_every_search_result_is_explained_exactly_when_its_choice_is_not_the_lowest() -> None:
    explained = 0
    for seed in range(2):
        review = analyse(played_game(seed, players=3), 0, "ismcts:iterations=1000")
        for decision in review.reviews:
            result = decision.analysis
            if result is None:
                continue
            lowest = result.estimates[0]
            text = explain_choice(result)
            assert (text is None) == (result.best.loss <= lowest.loss)
            if text is not None:
                explained += 1
                assert f"chose {result.best.move} " in text and f"; {lowest.move} has" in text
    # The most simulated move is not always the lowest estimate (6 of 63 decisions here).
    assert explained >= 1


def test_the_graph_numbers_its_moves_and_has_a_legend_of_its_colours() -> None:
    game = played_game(5, players=3)
    graph = analyse(game, 0, "pimc:worlds=2").svg()
    ticks = [int(n) for n in re.findall(r"<g class='tick'>.*?>(\d+)</text></g>", graph)]
    assert ticks[0] == 1 and ticks == sorted(ticks) and len(ticks) >= 4
    assert ticks[-1] <= len(game.moves)
    legend = re.search(r"<g class='legend'>(.*?)</g>", graph)
    assert legend is not None
    for name, colour in COLOURS.items():  # each dot colour, named
        assert re.search(f"fill='{colour}'/><text [^>]*>{name}</text>", legend[1]), name
    assert "engine's choice" in legend[1]


def test_one_default_engine_for_hints_reviews_and_analyses() -> None:
    from skitgubbe.apps import play

    pytest.importorskip("aiohttp")
    from skitgubbe.server import advice

    assert advice.HINT_ENGINE == advice.REVIEW_ENGINE == play.HINT_ENGINE == DEFAULT_ENGINE
    # and the command line's defaults: skitgubbe analyse, and skitgubbe serve's hint and review
    import argparse

    from skitgubbe.apps.cli import analyse, serve

    assert analyse.DEFAULT_ENGINE == DEFAULT_ENGINE
    parser = argparse.ArgumentParser(prog="skitgubbe")
    serve.add_serve_command(parser.add_subparsers(dest="command"))
    served = parser.parse_args(["serve"])
    assert served.hint_engine == served.review_engine == DEFAULT_ENGINE
