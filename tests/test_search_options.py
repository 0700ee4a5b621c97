"""Search options: every value is either refused up front or safe in C.

The C search is public, so it must stay in bounds for any parameter value (an
exploration below every score once made it read ``nodes[UINT32_MAX]`` and kill
the process). Runs that used to crash the interpreter run in a subprocess so
that a regression fails a test instead of ending the test run.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import attrs
import pytest

import skitgubbe as sg
from skitgubbe import _core

SRC = str(Path(sg.__file__).resolve().parent.parent)


def run_isolated(code: str, timeout: float = 120) -> str:
    """Run ``code`` in a fresh interpreter; a crash or a hang fails the test, not the run."""
    env = dict(os.environ, PYTHONPATH=SRC)
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=False,
        env=env,
        timeout=timeout,
    )
    assert done.returncode == 0, f"exit status {done.returncode}\n{done.stderr}"
    return done.stdout


def position(seed: int = 4, moves: int = 6) -> sg.Game:
    game = sg.Game.new(seed=seed)
    for _ in range(moves):
        game.play(sg.bots.GreedyBot().choose(game.observation(game.to_move)))
    assert len(game.legal_moves) > 1
    return game


SETUP = (
    "import math, skitgubbe as sg\n"
    "from skitgubbe import _core\n"
    "game = sg.Game.new(seed=4)\n"
    "for _ in range(6):\n"
    "    game.play(sg.bots.GreedyBot().choose(game.observation(game.to_move)))\n"
    "view = game.observation(game.to_move).core_view\n"
    "legal = [move.code for move in game.legal_moves]\n"
)

# ---------------------------------------------------------------------------
# The C search itself, for any parameter value


@pytest.mark.parametrize("exploration", ["-1.0", "-math.inf", "math.nan", "math.inf", "-1e300"])
def test_the_c_search_stays_in_bounds_for_any_exploration(exploration: str) -> None:
    out = run_isolated(
        SETUP + f"best, root, iterations, nodes, seconds = _core.ismcts("
        f"view, 300, 0.0, {exploration}, 2, 200, 1)\n"
        "assert best in legal and iterations == 300, (best, iterations)\n"
        "assert sum(count for _, count in root) == 300\n"
        "print('ok')\n"
    )
    assert out.strip() == "ok"


@pytest.mark.parametrize("seconds", [math.inf, math.nan, -1.0, 0.0])
def test_the_c_search_without_a_usable_budget_returns_at_once(seconds: float) -> None:
    """A time that is not positive and finite is no limit; with no iteration limit, no search."""
    out = run_isolated(
        SETUP + f"best, root, iterations, nodes, seconds = _core.ismcts("
        f"view, 0, float({str(seconds)!r}), 0.7, 2, 200, 1)\n"
        "assert best == legal[0] and iterations == 0, (best, iterations)\n"
        "print('ok')\n",
        timeout=30,
    )
    assert out.strip() == "ok"


def test_the_c_search_with_an_infinite_time_and_an_iteration_limit_stops_at_the_limit() -> None:
    view = position().observation(position().to_move).core_view
    _best, _root, iterations, _nodes, _seconds = _core.ismcts(view, 50, math.inf, 0.7, 2, 200, 1)
    assert iterations == 50


def test_the_c_pimc_with_no_samples_scores_every_move_zero() -> None:
    game = position()
    view = game.observation(game.to_move).core_view
    for worlds, rollouts in [(0, 2), (-5, 2), (4, 0), (4, -1)]:
        pairs = _core.pimc(view, worlds, rollouts, 1, 100, 1)
        assert [code for code, _ in pairs] == [move.code for move in game.legal_moves]
        assert all(score == 0.0 for _, score in pairs)
    # A policy outside the enum plays random rollouts.
    pairs = _core.pimc(view, 2, 1, 99, 100, 1)
    assert all(0.0 <= score <= 1.0 for _, score in pairs)


# ---------------------------------------------------------------------------
# The bots refuse a bad option where they are made, naming it and what it may be

INT = "an int from 1 to 2147483647"
UINT32 = "an int from 1 to 4294967295"
TIME = "None or a finite number of seconds > 0"
EXPLORATION = "a finite number >= 0"
THREADS = "an int from 1 to 64"
POLICIES = (
    "one of random, greedy, mixed, a C policy, file.c[:function], module:function or a callable"
)

SAMPLINGS = "one of exact, uniform"

BAD_ISMCTS = [
    ({"exploration": -1}, sg.ArgumentError, f"exploration must be {EXPLORATION}, not -1"),
    ({"exploration": -0.5}, sg.ArgumentError, f"exploration must be {EXPLORATION}, not -0.5"),
    ({"exploration": math.nan}, sg.ArgumentError, f"exploration must be {EXPLORATION}, not nan"),
    ({"exploration": -math.inf}, sg.ArgumentError, f"exploration must be {EXPLORATION}, not -inf"),
    ({"exploration": math.inf}, sg.ArgumentError, f"exploration must be {EXPLORATION}, not inf"),
    ({"exploration": 10**400}, sg.ArgumentError, f"exploration must be {EXPLORATION}, not 1000"),
    ({"exploration": "0.7"}, sg.ArgumentTypeError, f"exploration must be {EXPLORATION}, not '0.7'"),
    ({"exploration": True}, sg.ArgumentTypeError, f"exploration must be {EXPLORATION}, not True"),
    ({"time": math.inf}, sg.ArgumentError, f"time must be {TIME}, not inf"),
    ({"time": math.nan}, sg.ArgumentError, f"time must be {TIME}, not nan"),
    ({"time": 0}, sg.ArgumentError, f"time must be {TIME}, not 0"),
    ({"time": -1.0}, sg.ArgumentError, f"time must be {TIME}, not -1.0"),
    ({"time": True}, sg.ArgumentTypeError, f"time must be {TIME}, not True"),
    ({"time": "1"}, sg.ArgumentTypeError, f"time must be {TIME}, not '1'"),
    ({"iterations": 2**32}, sg.ArgumentError, f"iterations must be {UINT32}, not 4294967296"),
    ({"iterations": 0}, sg.ArgumentError, f"iterations must be {UINT32}, not 0"),
    ({"iterations": -3}, sg.ArgumentError, f"iterations must be {UINT32}, not -3"),
    ({"iterations": 1.5}, sg.ArgumentTypeError, f"iterations must be {UINT32}, not 1.5"),
    ({"iterations": 3, "time": math.inf}, sg.ArgumentError, f"time must be {TIME}, not inf"),
    ({"rollout_cap": 2**32}, sg.ArgumentError, f"rollout_cap must be {UINT32}, not 4294967296"),
    ({"rollout": "smart"}, sg.ArgumentError, f"rollout must be {POLICIES}, not 'smart'"),
    ({"rollout": 2}, sg.ArgumentTypeError, f"rollout must be {POLICIES}, not 2"),
    ({"rollout": ["mixed"]}, sg.ArgumentTypeError, f"rollout must be {POLICIES}, not"),
    ({"seed": "one"}, sg.ArgumentTypeError, "seed must be an int or None, not 'one'"),
    ({"seed": 1.5}, sg.ArgumentTypeError, "seed must be an int or None, not 1.5"),
    ({"threads": 0}, sg.ArgumentError, f"threads must be {THREADS}, not 0"),
    ({"threads": 65}, sg.ArgumentError, f"threads must be {THREADS}, not 65"),
    ({"threads": -2}, sg.ArgumentError, f"threads must be {THREADS}, not -2"),
    ({"threads": 2.0}, sg.ArgumentTypeError, f"threads must be {THREADS}, not 2.0"),
    ({"threads": True}, sg.ArgumentTypeError, f"threads must be {THREADS}, not True"),
    ({"threads": "2"}, sg.ArgumentTypeError, f"threads must be {THREADS}, not '2'"),
    ({"threads": None}, sg.ArgumentTypeError, f"threads must be {THREADS}, not None"),
    ({"sampling": "smart"}, sg.ArgumentError, f"sampling must be {SAMPLINGS}, not 'smart'"),
    ({"sampling": None}, sg.ArgumentError, f"sampling must be {SAMPLINGS}, not None"),
    ({"merge": 1}, sg.ArgumentTypeError, "merge must be true or false, not 1"),
    ({"merge": "true"}, sg.ArgumentTypeError, "merge must be true or false, not 'true'"),
]

PLAYOUTS = "one of plain, mast, nast"
FRACTION = "a number from 0 to 1"
BLEND = "None or a number from 0 to 1"
BLEND_NEEDS = "blend mixes the network's leaf values with a rollout's: it needs net=true"
BAD_PLAYOUTS = [
    ({"playout": "fast"}, sg.ArgumentError, f"playout must be {PLAYOUTS}, not 'fast'"),
    ({"playout": None}, sg.ArgumentError, f"playout must be {PLAYOUTS}, not None"),
    ({"random_fraction": -0.1}, sg.ArgumentError, f"random_fraction must be {FRACTION}, not -0.1"),
    ({"random_fraction": 1.5}, sg.ArgumentError, f"random_fraction must be {FRACTION}, not 1.5"),
    ({"random_fraction": 2}, sg.ArgumentError, f"random_fraction must be {FRACTION}, not 2"),
    ({"random_fraction": math.nan}, sg.ArgumentError, f"random_fraction must be {FRACTION}"),
    ({"random_fraction": "0.3"}, sg.ArgumentTypeError, f"random_fraction must be {FRACTION}"),
    ({"random_fraction": True}, sg.ArgumentTypeError, f"random_fraction must be {FRACTION}"),
    (
        {"random_fraction": 0.3, "rollout": "greedy"},
        sg.ArgumentError,
        "random_fraction is the mixed rollout's share of random moves: it needs rollout=mixed, "
        "not 'greedy'",
    ),
    (
        {"playout": "mast", "rollout": "greedy"},
        sg.ArgumentError,
        "playout=mast draws the rollouts' random moves: it needs rollout=mixed or "
        "rollout=random, not 'greedy'",
    ),
    (
        {"playout": "nast", "rollout": "net"},
        sg.ArgumentError,
        "playout=nast draws the rollouts' random moves",
    ),
    (
        {"playout_temperature": 0},
        sg.ArgumentError,
        "playout_temperature must be a finite number > 0, not 0",
    ),
    (
        {"playout": "mast", "playout_temperature": math.inf},
        sg.ArgumentError,
        "playout_temperature must be a finite number > 0, not inf",
    ),
    (
        {"playout_temperature": 0.5},
        sg.ArgumentError,
        "playout_temperature is MAST's and NAST's: it needs playout=mast or playout=nast",
    ),
    ({"blend": 0.5}, sg.ArgumentError, BLEND_NEEDS),
    ({"blend": 1.5, "net": True}, sg.ArgumentError, f"blend must be {BLEND}, not 1.5"),
    ({"blend": -0.5, "net": True}, sg.ArgumentError, f"blend must be {BLEND}, not -0.5"),
    ({"blend": True, "net": True}, sg.ArgumentTypeError, f"blend must be {BLEND}, not True"),
    ({"blend": 0.5, "net": True, "leaf": "rollout"}, sg.ArgumentError, BLEND_NEEDS),
    ({"blend": 0.5, "net": True, "prior": False}, sg.ArgumentError, BLEND_NEEDS),
    ({"blend": 0.5, "net": True, "rollout": "net"}, sg.ArgumentError, BLEND_NEEDS),
]

BAD_PIMC = [
    ({"worlds": 2**31}, sg.ArgumentError, f"worlds must be {INT}, not 2147483648"),
    ({"worlds": 0}, sg.ArgumentError, f"worlds must be {INT}, not 0"),
    ({"worlds": 4.0}, sg.ArgumentTypeError, f"worlds must be {INT}, not 4.0"),
    ({"rollouts": 2**31}, sg.ArgumentError, f"rollouts must be {INT}, not 2147483648"),
    ({"rollouts": -1}, sg.ArgumentError, f"rollouts must be {INT}, not -1"),
    ({"rollout_cap": 2**32}, sg.ArgumentError, f"rollout_cap must be {UINT32}, not 4294967296"),
    ({"rollout_cap": 0}, sg.ArgumentError, f"rollout_cap must be {UINT32}, not 0"),
    ({"rollout": None}, sg.ArgumentTypeError, f"rollout must be {POLICIES}, not None"),
    ({"seed": b"x"}, sg.ArgumentTypeError, "seed must be an int or None, not b'x'"),
    ({"sampling": "EXACT"}, sg.ArgumentError, f"sampling must be {SAMPLINGS}, not 'EXACT'"),
]


@pytest.mark.parametrize(("options", "error", "message"), BAD_ISMCTS)
def test_ismcts_refuses_a_bad_option_when_made(
    options: dict[str, object], error: type[Exception], message: str
) -> None:
    with pytest.raises(error) as caught:
        sg.bots.ISMCTSBot(**options)  # type: ignore[arg-type]
    assert str(caught.value).startswith(message)
    assert type(caught.value) is error


@pytest.mark.parametrize(("options", "error", "message"), BAD_PLAYOUTS)
def test_ismcts_refuses_a_bad_playout_option_when_made(
    options: dict[str, object], error: type[Exception], message: str
) -> None:
    with pytest.raises(error) as caught:
        sg.bots.ISMCTSBot(iterations=10, **options)  # type: ignore[arg-type]
    assert str(caught.value).startswith(message)
    assert type(caught.value) is error


@pytest.mark.parametrize(("options", "error", "message"), BAD_PIMC)
def test_pimc_refuses_a_bad_option_when_made(
    options: dict[str, object], error: type[Exception], message: str
) -> None:
    with pytest.raises(error) as caught:
        sg.bots.PIMCBot(**options)  # type: ignore[arg-type]
    assert str(caught.value).startswith(message)
    assert type(caught.value) is error


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("ismcts:exploration=-1", f"exploration must be {EXPLORATION}, not -1"),
        ("ismcts:exploration=nan", f"exploration must be {EXPLORATION}, not nan"),
        ("ismcts:exploration=-inf", f"exploration must be {EXPLORATION}, not -inf"),
        ("ismcts:time=inf", f"time must be {TIME}, not inf"),
        ("ismcts:iterations=4294967296", f"iterations must be {UINT32}, not 4294967296"),
        ("ismcts:threads=0", f"threads must be {THREADS}, not 0"),
        ("ismcts:threads=100,time=0.01", f"threads must be {THREADS}, not 100"),
        ("pimc:worlds=2147483648", f"worlds must be {INT}, not 2147483648"),
        ("pimc:rollouts=0", f"rollouts must be {INT}, not 0"),
    ],
)
def test_a_bot_spec_with_a_bad_option_is_refused_by_the_registry(spec: str, message: str) -> None:
    with pytest.raises(sg.ArgumentError, match=f"^{message}$"):
        sg.bots.make(spec, seed=1)


def test_the_widest_allowed_options_are_accepted() -> None:
    game = position()
    view = game.observation(game.to_move)
    sg.bots.ISMCTSBot(iterations=2**32 - 1, rollout_cap=2**32 - 1, seed=2**80)
    sg.bots.PIMCBot(worlds=2**31 - 1, rollouts=2**31 - 1, rollout_cap=2**32 - 1)
    bot = sg.bots.ISMCTSBot(iterations=40, exploration=0, seed=1)
    assert bot.choose(view) in game.legal_moves and bot.last_search[0] == 40
    bot = sg.bots.ISMCTSBot(iterations=40, exploration=10**6, seed=1)
    assert bot.choose(view) in game.legal_moves
    bot = sg.bots.ISMCTSBot(time=1e-9, seed=1)  # a tiny budget still answers
    assert bot.choose(view) in game.legal_moves
    bot = sg.bots.ISMCTSBot(iterations=3, threads=64, seed=1)  # fewer iterations than threads
    assert bot.choose(view) in game.legal_moves and bot.last_search[0] == 3


def test_an_arena_refuses_a_bad_bot_option_before_the_match() -> None:
    """Once the first move killed the worker (BrokenProcessPool) or the whole process."""
    out = run_isolated(
        "import skitgubbe as sg\n"
        "for spec in ['ismcts:exploration=-1', 'ismcts:iterations=4294967296',\n"
        "             'pimc:worlds=2147483648', 'ismcts:exploration=nan']:\n"
        "    try:\n"
        "        sg.run_match([spec, 'greedy', 'greedy'], deals=2, seed=1, jobs=2)\n"
        "    except sg.ArgumentError as error:\n"
        "        print(error)\n"
    )
    assert out.splitlines() == [
        f"exploration must be {EXPLORATION}, not -1",
        f"iterations must be {UINT32}, not 4294967296",
        f"worlds must be {INT}, not 2147483648",
        f"exploration must be {EXPLORATION}, not nan",
    ]


def test_the_command_line_refuses_a_bad_bot_option() -> None:
    env = dict(os.environ, PYTHONPATH=SRC)
    done = subprocess.run(
        [sys.executable, "-m", "skitgubbe", "arena", "ismcts:exploration=-1", "greedy", "greedy"],
        capture_output=True,
        text=True,
        check=False,
        env=env,
        timeout=120,
    )
    assert done.returncode == 2, done.stderr
    assert f"exploration must be {EXPLORATION}, not -1" in done.stderr


# ---------------------------------------------------------------------------
# The time budget is each search's own wall time


def test_concurrent_timed_searches_each_take_their_budget_and_report_it() -> None:
    """With clock() (the whole process's processor time) two searches shared one budget.

    Each stopped after about half its budget in wall time and still reported the
    whole budget. Generous bounds: this checks behaviour, not speed.
    """
    budget = 0.3
    game = position()
    view = game.observation(game.to_move)
    bots = [sg.bots.ISMCTSBot(time=budget, seed=seed) for seed in range(2)]
    walls = [0.0, 0.0]
    ready = threading.Barrier(2)

    def search(i: int) -> None:
        ready.wait()
        start = time.perf_counter()
        bots[i].visits(view)
        walls[i] = time.perf_counter() - start

    threads = [threading.Thread(target=search, args=(i,)) for i in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for bot, wall in zip(bots, walls, strict=True):
        iterations, _nodes, seconds = bot.last_search
        assert iterations > 0
        assert budget <= seconds <= wall, (seconds, wall)  # the time it actually took
        assert wall < budget + 1.5


def test_a_timed_search_reports_the_time_it_took() -> None:
    game = position()
    bot = sg.bots.ISMCTSBot(time=0.05, seed=1)
    start = time.perf_counter()
    bot.choose(game.observation(game.to_move))
    wall = time.perf_counter() - start
    iterations, nodes, seconds = bot.last_search
    assert iterations > 0 and nodes > 1
    assert 0.05 <= seconds <= wall


@pytest.mark.parametrize("make", [sg.bots.ISMCTSBot, sg.bots.PIMCBot])
def test_a_search_bot_asked_to_choose_in_a_view_with_no_legal_move_says_so(make: Any) -> None:
    game = sg.Game.new(seed=4)
    view = game.observation(game.to_move)
    assert len(view.legal_moves) > 1
    bot = make(seed=1, **({"iterations": 20} if make is sg.bots.ISMCTSBot else {"worlds": 2}))
    with pytest.raises(sg.ArgumentError, match=r"no legal move .*nothing to choose"):
        bot.choose(attrs.evolve(view, legal_moves=()))


@pytest.mark.parametrize(("make", "search"), [("ISMCTSBot", "ismcts_rewards"), ("PIMCBot", "pimc")])
def test_a_search_that_finds_no_move_in_the_core_view_raises_a_package_error(
    make: str, search: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A core_view whose state has no legal move (the core's search then returns an
    # empty root), with legal_moves that has some: the bot once failed in max().
    empty = {"ismcts_rewards": (0, [], 0, 0, 0.0), "pimc": []}[search]
    monkeypatch.setattr(_core, search, lambda *args, **kwargs: empty)
    game = sg.Game.new(seed=4)
    bot = getattr(sg.bots, make)(seed=1)
    with pytest.raises(sg.ArgumentError, match="found no legal move"):
        bot.choose(game.observation(game.to_move))


# ---------------------------------------------------------------------------
# Playouts: the mixed fraction, MAST, NAST and the blend of the network with rollouts


def search_positions() -> list[sg.Observation]:
    """A few positions of different rules, players and phases (the greedy bot plays)."""
    views = []
    for rules, seed, plies in [
        (sg.Rules.classic(3), 11, 5),
        (sg.Rules.classic(3), 12, 60),
        (sg.Rules.modern(4), 13, 30),
        (sg.Rules.classic(2), 14, 40),
    ]:
        game = sg.Game.new(rules, seed=seed)
        for _ in range(plies):
            assert game.to_move is not None
            game.play(sg.bots.GreedyBot().choose(game.observation(game.to_move)))
        assert game.to_move is not None and len(game.legal_moves) > 1
        views.append(game.observation(game.to_move))
    return views


def digest(specs: list[str]) -> str:
    """A hash of what each spec's search (seed 5) says in each of search_positions()."""
    import hashlib

    said = []
    for view in search_positions():
        for spec in specs:
            bot = sg.bots.make(spec, seed=5)
            found = bot.statistics(view) if hasattr(bot, "statistics") else bot.scores(view)
            said.append(repr(sorted((move.code, value) for move, value in found.items())))
    return hashlib.sha256("\n".join(said).encode()).hexdigest()


def test_the_default_searches_play_as_before_the_playout_options() -> None:
    """Pinned on the searches as they were before issue 33's playouts: the default rollout
    (mixed, one random move in four) draws what sg_rollout drew, so every search with
    default playouts (plain ISMCTS, greedy rollouts, PUCT with rollouts or the network's
    values, PIMC) gives the same visits and rewards for a seed. A change of the search
    itself that alters them on purpose updates the digest (and says so in its commit).
    The exact worlds and equivalent moves came later and are off here (they change what
    the searches sample and search, on purpose)."""
    before = "merge=false,sampling=uniform"
    specs = [
        f"ismcts:iterations=400,{before}",
        f"ismcts:iterations=300,rollout=greedy,{before}",
        f"ismcts:iterations=200,net=true,leaf=rollout,{before}",
        f"ismcts:iterations=200,net=true,{before}",
        "pimc:worlds=8,sampling=uniform",
    ]
    assert digest(specs) == "55bbf29765a7f829382402d6042b53abc8d8bbff6f87047e9b789f70b9b7bdfe"


@pytest.mark.parametrize(
    ("spec", "same"),
    [
        ("ismcts:iterations=300", "ismcts:iterations=300,random_fraction=0.25,playout=plain"),
        (
            "ismcts:iterations=300,rollout=random",
            "ismcts:iterations=300,rollout=random,playout=plain",
        ),
        ("ismcts:iterations=100,net=true", "ismcts:iterations=100,net=true,blend=1"),
    ],
)
def test_the_default_playout_options_given_change_nothing(spec: str, same: str) -> None:
    for view in search_positions():
        first, second = sg.bots.make(spec, seed=3), sg.bots.make(same, seed=3)
        assert first.statistics(view) == second.statistics(view)  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "spec",
    [
        "ismcts:iterations=300,playout=mast",
        "ismcts:iterations=300,playout=nast",
        "ismcts:iterations=300,playout=mast,playout_temperature=0.02,rollout=random",
        "ismcts:iterations=300,random_fraction=0.5",
        "ismcts:iterations=300,random_fraction=0",
        "ismcts:iterations=300,random_fraction=1",
        "ismcts:iterations=100,net=true,blend=0.5",
        "ismcts:iterations=100,net=true,blend=0,playout=mast",
    ],
)
def test_each_playout_is_reproducible_for_a_seed_and_changes_the_search(spec: str) -> None:
    budget = spec.split(",")[0]
    plain = budget + (",net=true" if "net=true" in spec else "")
    changed = False
    for view in search_positions():
        first = sg.bots.make(spec, seed=3).statistics(view)  # type: ignore[attr-defined]
        again = sg.bots.make(spec, seed=3).statistics(view)  # type: ignore[attr-defined]
        assert first == again
        assert sum(visits for visits, _ in first.values()) == int(budget.split("=")[1])
        assert all(0 <= reward <= visits for visits, reward in first.values())
        changed |= first != sg.bots.make(plain, seed=3).statistics(view)  # type: ignore[attr-defined]
    assert changed


def test_the_playout_options_are_plain_options() -> None:
    spec = "ismcts:playout=mast,random_fraction=0.5,playout_temperature=0.2,iterations=20"
    assert sg.bots.check_plain_spec(spec)[1]["playout"] == "mast"
    assert sg.bots.check_plain_spec("ismcts:net=true,blend=0.5")[1] == {"net": True, "blend": 0.5}
    for bad in ["ismcts:playout=fast", "ismcts:random_fraction=high", "ismcts:blend=true"]:
        with pytest.raises(sg.ArgumentError, match="must be"):
            sg.bots.check_plain_spec(bad)
    bot = sg.bots.make(spec, seed=1)
    assert repr(bot) == (
        "ISMCTSBot(iterations=20, rollout='mixed', playout='mast', random_fraction=0.5, "
        "playout_temperature=0.2, seed=1)"
    )
