"""ISMCTSBot's ``threads``: independent searches at once, their root statistics summed.

What is checked is structure, not speed (the speed-up is measured in
benchmarks/test_search.py): the merge is the sum of the searches it says it ran,
reproducible from the seed, ``threads=1`` is the search of before, the searches run
on threads of their own, failures come back, and a server counts the threads.
"""

from __future__ import annotations

import copy
import pickle
import random
import threading

import pytest

import skitgubbe as sg
from skitgubbe import _core
from skitgubbe.server.config import TableConfig, bot_cost
from skitgubbe.server.errors import TableError

MERGE = _core.ISMCTS_MERGE  # the default: equivalent moves searched as one


def observation(seed: int = 4, moves: int = 6) -> sg.Observation:
    game = sg.Game.new(seed=seed)
    for _ in range(moves):
        assert game.to_move is not None
        game.play(sg.bots.GreedyBot().choose(game.observation(game.to_move)))
    assert game.to_move is not None and len(game.legal_moves) > 1
    return game.observation(game.to_move)


def test_the_merge_is_the_sum_of_searches_seeded_in_thread_order() -> None:
    view = observation()
    bot = sg.bots.ISMCTSBot(iterations=301, threads=3, seed=11)
    stats = bot.statistics(view)
    # The same searches by hand: seeds drawn from the bot's generator in thread order,
    # 301 iterations split 101, 100, 100.
    rng = random.Random(11)
    seeds = [rng.getrandbits(64) for _ in range(3)]
    found = [
        _core.ismcts_rewards(view.core_view, share, 0.0, 0.7, 2, 200, seed, flags=MERGE)
        for share, seed in zip((101, 100, 100), seeds, strict=True)
    ]
    expected: dict[sg.Move, tuple[int, float]] = {}
    for _best, root, _iterations, _nodes, _seconds in found:
        for code, visits, reward in root:
            move = sg.Move.from_code(code)
            count, total = expected.get(move, (0, 0.0))
            expected[move] = (count + visits, total + reward)
    assert stats == expected
    assert list(stats) == list(view.legal_moves)  # the moves in their order
    assert sum(visits for visits, _ in stats.values()) == 301
    assert bot.last_search[0] == 301
    assert bot.last_search[1] == sum(nodes for _, _, _, nodes, _ in found)


def test_threads_1_is_the_search_of_before() -> None:
    view = observation()
    rng = random.Random(5)
    _best, root, *_ = _core.ismcts_rewards(
        view.core_view, 400, 0.0, 0.7, 2, 200, rng.getrandbits(64), flags=MERGE
    )
    one = sg.bots.ISMCTSBot(iterations=400, threads=1, seed=5)
    assert one.statistics(view) == {sg.Move.from_code(c): (v, r) for c, v, r in root}
    default = sg.bots.ISMCTSBot(iterations=400, seed=5)
    again = sg.bots.ISMCTSBot(iterations=400, threads=1, seed=5)
    game = sg.Game.new(seed=9)
    for _ in range(30):
        if game.to_move is None:
            break
        seen = game.observation(game.to_move)
        move = default.choose(seen)
        assert again.choose(seen) == move
        game.play(move)


def test_a_seeded_threaded_search_is_reproducible() -> None:
    def moves(seed: int) -> list[sg.Move]:
        bot = sg.bots.make("ismcts:iterations=200,threads=2", seed=seed)
        game = sg.Game.new(seed=12)
        played = []
        for _ in range(40):
            if game.to_move is None:
                break
            move = bot.choose(game.observation(game.to_move))
            game.play(move)
            played.append(move)
        return played

    assert moves(3) == moves(3)
    view = observation(seed=6)
    first = sg.bots.ISMCTSBot(iterations=500, threads=4, seed=1)
    second = sg.bots.ISMCTSBot(iterations=500, threads=4, seed=1)
    assert [first.statistics(view) for _ in range(3)] == [second.statistics(view) for _ in range(3)]


@pytest.mark.parametrize(("iterations", "threads"), [(7, 3), (2, 5), (1, 64), (64, 64), (1000, 7)])
def test_the_merged_visits_sum_to_the_iterations(iterations: int, threads: int) -> None:
    bot = sg.bots.ISMCTSBot(iterations=iterations, threads=threads, seed=2)
    stats = bot.statistics(observation())
    assert sum(visits for visits, _ in stats.values()) == iterations == bot.last_search[0]
    assert all(0 <= reward <= visits for visits, reward in stats.values())


def test_a_timed_threaded_search_reports_every_search() -> None:
    bot = sg.bots.ISMCTSBot(time=0.02, threads=2, seed=1)
    stats = bot.statistics(observation())
    iterations, nodes, seconds = bot.last_search
    assert sum(visits for visits, _ in stats.values()) == iterations > 0
    assert nodes >= iterations and seconds >= 0.02


def test_the_searches_run_on_threads_of_their_own_that_end_with_the_decision() -> None:
    seen: set[int] = set()
    gate = threading.Barrier(3, timeout=30)

    def first_move(position: object) -> int:
        if threading.get_ident() not in seen:
            seen.add(threading.get_ident())
            gate.wait()  # the three searches are running at once, or this times out
        return 0

    rollout: object = first_move  # a Python policy (the option's type names the words)
    bot = sg.bots.ISMCTSBot(iterations=30, threads=3, rollout=rollout, seed=1)  # type: ignore[arg-type]
    view = observation()
    before = threading.active_count()
    for _ in range(2):
        seen.clear()
        gate.reset()
        assert sum(visits for visits, _ in bot.statistics(view).values()) == 30
        assert threading.get_ident() in seen and len(seen) == 3  # this thread and two more
        assert threading.active_count() == before  # no thread is kept between decisions


def test_a_policy_failing_on_another_thread_is_raised() -> None:
    main = threading.get_ident()

    def fails_off_the_main_thread(position: object) -> int:
        if threading.get_ident() != main:
            raise RuntimeError("not on this thread")
        return 0

    rollout: object = fails_off_the_main_thread
    bot = sg.bots.ISMCTSBot(iterations=20, threads=2, rollout=rollout, seed=1)  # type: ignore[arg-type]
    with pytest.raises(sg.PolicyError) as caught:
        bot.statistics(observation())
    assert isinstance(caught.value.__cause__, RuntimeError)


def test_a_threaded_bot_copies_and_pickles() -> None:
    view = observation()
    bot = sg.bots.ISMCTSBot(iterations=100, threads=2, seed=4)
    bot.statistics(view)
    for twin in (copy.deepcopy(bot), pickle.loads(pickle.dumps(bot))):
        assert twin.statistics(view) == copy.deepcopy(bot).statistics(view)


def test_analysis_reads_the_merged_statistics() -> None:
    from skitgubbe.analysis import analyse_position

    view = observation()
    bot = sg.bots.ISMCTSBot(iterations=300, threads=2, seed=3)
    analysis = analyse_position(view, bot)
    assert analysis.iterations == 300
    assert sum(estimate.visits for estimate in analysis.estimates) == 300


# -- a server counts the threads --------------------------------------------------------


def test_threads_is_a_plain_option() -> None:
    assert sg.bots.check_plain_spec("ismcts:threads=2,time=0.01") == (
        "ismcts",
        {"threads": 2, "time": 0.01},
    )


def test_a_server_counts_threads_as_compute() -> None:
    # An iteration budget is the total over the threads: more threads, no more work.
    assert bot_cost(sg.bots.make("ismcts:iterations=400,threads=8")) == (400, None)
    # A time budget is each thread's: threads multiply it.
    assert bot_cost(sg.bots.make("ismcts:time=0.5,threads=4")) == (None, 2.0)
    assert bot_cost(sg.bots.make("ismcts:iterations=400,time=0.5,threads=4")) == (400, 2.0)
    # The server prices a decision's work (decision_seconds): threads add to a time budget.
    TableConfig.from_json({"seats": [None, "ismcts:iterations=10000,threads=8"]})
    TableConfig.from_json({"seats": [None, "ismcts:time=0.1,threads=4"]})  # 0.4 s of work
    with pytest.raises(TableError, match="costs about"):
        TableConfig.from_json({"seats": [None, "ismcts:time=0.1,threads=6"]})  # 0.6 s
    with pytest.raises(TableError, match="costs about"):
        TableConfig.from_json({"seats": [None, "ismcts:time=2,threads=5"]})  # 10 s
    with pytest.raises(TableError, match="searches too much"):  # the operator's bound
        TableConfig.from_json(
            {"seats": [None, "ismcts:iterations=2001,threads=2"]}, max_bot_iterations=2000
        )
