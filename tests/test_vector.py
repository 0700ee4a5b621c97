"""The vector environment in C against the Python API, game by game.

In self-play every step's tensor, mask and seat must be what the Python API
gives for the same game (``Game.new(rules, seed=...)``, the same actions);
with built-in players the outputs obey the contract (learner seats only, legal
masks, zero-sum rewards), and an illegal batch changes nothing.
"""

from __future__ import annotations

import random
import subprocess
import sys
from typing import Any

import numpy
import pytest
from rules_gen import random_rules

import skitgubbe as sg
from skitgubbe import _core
from skitgubbe.game.actions import NUM_ACTIONS
from skitgubbe.learn.vector import VectorEnv


def _random_actions(masks: numpy.ndarray, rng: numpy.random.Generator) -> numpy.ndarray:
    noise = rng.random(masks.shape)
    return numpy.argmax(numpy.where(masks, noise, -1.0), axis=1).astype(numpy.int32)


def _rewards(game: sg.Game) -> list[float]:
    result = game.result
    assert result is not None
    if result.truncated or result.loser is None:
        return [0.0] * game.players
    return [1.0 - game.players if s == result.loser else 1.0 for s in range(game.players)]


@pytest.mark.parametrize("seed", range(6))
def test_self_play_is_the_python_api_game_by_game(seed: int) -> None:
    rules = random_rules(random.Random(seed))
    if seed % 3 == 0:
        rules = sg.Rules(**{**rules.to_dict(), "max_moves": 50})
    env = VectorEnv(5, rules, learners="all", seed=seed)
    obs, info = env.reset()
    games = [sg.Game.new(rules, seed=env.privileged_seed(int(g))) for g in info["game"]]
    rng = numpy.random.default_rng(seed)
    ended = 0
    for _ in range(250):
        for i, game in enumerate(games):
            seat = game.to_move
            assert seat is not None and info["seat"][i] == seat
            view = game.observation(seat)
            assert (obs[i] == view.tensor()).all(), f"game {i}: tensor"
            assert bytes(info["action_mask"][i].view(numpy.uint8)) == view.action_mask
        actions = _random_actions(info["action_mask"], rng)
        for game, action in zip(games, actions, strict=True):
            game.play_action(int(action))
        obs, rewards, terminated, truncated, info = env.step(actions)
        for i, game in enumerate(games):
            if game.result is None:
                assert not terminated[i] and not truncated[i] and not rewards[i].any()
                continue
            ended += 1
            assert truncated[i] == game.result.truncated and terminated[i] != truncated[i]
            assert rewards[i].tolist() == _rewards(game)
            games[i] = sg.Game.new(rules, seed=env.privileged_seed(int(info["game"][i])))
    assert ended > 0


@pytest.mark.parametrize("opponents", ["random", "greedy"])
def test_built_in_players_move_inside_the_step(opponents: str) -> None:
    rules = sg.Rules.modern(4)
    env = VectorEnv(8, rules, opponents=opponents, learners=(1, 2), seed=4)
    _, info = env.reset()
    rng = numpy.random.default_rng(1)
    finished = 0
    for _ in range(300):
        assert set(info["seat"].tolist()) <= {1, 2}
        for i in range(env.n_games):
            raw, pending = env._core.state(i)
            core = _core.from_snapshot(raw)
            assert core.to_move == info["seat"][i]
            if not pending:
                assert bytes(info["action_mask"][i].view(numpy.uint8)) == core.legal_actions()[1]
        _, rewards, terminated, truncated, info = env.step(
            _random_actions(info["action_mask"], rng)
        )
        assert (rewards.sum(axis=1) == 0).all()
        finished += int((terminated | truncated).sum())
        assert ((rewards != 0).any(axis=1) <= (terminated | truncated)).all()
    assert finished > 0


def test_an_illegal_action_refuses_the_batch_and_changes_nothing() -> None:
    env = VectorEnv(3, sg.Rules.classic(3), seed=2)
    obs, info = env.reset()
    before = [env._core.state(i) for i in range(3)]
    saved = obs.copy()
    actions = _random_actions(info["action_mask"], numpy.random.default_rng(0))
    illegal = int(numpy.flatnonzero(~info["action_mask"][1])[0])
    actions[1] = illegal
    with pytest.raises(sg.IllegalActionError, match="game 1") as caught:
        env.step(actions)
    assert caught.value.action == illegal
    assert [env._core.state(i) for i in range(3)] == before and (obs == saved).all()
    for bad in ([0, 0], "x", [[1, 2, 3]], [1.0, 2.0, 3.0], [0, 10_000, 0], [-1, 0, 0]):
        with pytest.raises(sg.ArgumentError):
            env.step(bad)
    assert [env._core.state(i) for i in range(3)] == before


def test_bad_arguments_are_refused() -> None:
    for kwargs, error in (
        ({"n_games": 0}, sg.ArgumentError),
        ({"n_games": 2.0}, sg.ArgumentTypeError),
        ({"n_games": 2, "learners": (5,)}, sg.ArgumentError),
        ({"n_games": 2, "learners": (0, 0)}, sg.ArgumentError),
        ({"n_games": 2, "opponents": "clever"}, sg.ArgumentError),
        ({"n_games": 2, "opponents": ["random"]}, sg.ArgumentError),
        ({"n_games": 2, "seed": -1}, sg.ArgumentError),
        ({"n_games": 2, "rules": 3}, sg.ArgumentTypeError),
    ):
        with pytest.raises(error):
            VectorEnv(**kwargs)  # type: ignore[arg-type]


def test_stepping_or_sampling_before_a_reset_is_refused() -> None:
    env = VectorEnv(2, seed=1)
    with pytest.raises(sg.ArgumentError, match=r"call reset\(\) before step\(\)"):
        env.step([0, 0])
    with pytest.raises(sg.ArgumentError, match=r"call reset\(\) before sample_actions\(\)"):
        env.sample_actions()
    _, info = env.reset()
    assert info["action_mask"][[0, 1], env.sample_actions()].all()


def test_the_same_seed_gives_the_same_games() -> None:
    runs = []
    for _ in range(2):
        env = VectorEnv(4, "modern", opponents="random", seed=9)
        obs, info = env.reset()
        rng = numpy.random.default_rng(3)
        total = numpy.zeros((4, 3))
        for _ in range(100):
            obs, rewards, *_, info = env.step(_random_actions(info["action_mask"], rng))
            total += rewards
        runs.append((obs.copy(), total))
    assert (runs[0][0] == runs[1][0]).all() and (runs[0][1] == runs[1][1]).all()


def _dealt_from(rules: sg.Rules, value: int) -> sg.Game | None:
    """The game ``Game.new`` deals from ``value`` taken as a seed, if it is one."""
    if not 0 <= value < 2**64:
        return None
    return sg.Game.new(rules, seed=value)


@pytest.mark.parametrize(("players", "learners"), [(2, (0,)), (3, (1,)), (4, "all")])
def test_nothing_in_info_deals_an_opponents_hand(players: int, learners: Any) -> None:
    rules = sg.Rules.classic(players)
    env = VectorEnv(6, rules, opponents="random", learners=learners, seed=11)
    _, info = env.reset()
    for _ in range(40):
        real = {int(g): sg.Game.new(rules, seed=env.privileged_seed(int(g))) for g in info["game"]}
        seeds = {env.privileged_seed(g) for g in real}
        hands = {str(game.hands) for game in real.values()}
        for key, value in info.items():
            flat = numpy.asarray(value).ravel()
            assert not seeds & {int(v) for v in flat}, f"info[{key!r}] holds a game's seed"
            for v in set(flat.tolist()):
                dealt = _dealt_from(rules, int(v))
                assert dealt is None or str(dealt.hands) not in hands, f"info[{key!r}]"
        _, _, _, _, info = env.step(env.sample_actions())


def test_game_numbers_count_the_deals_and_name_their_seeds() -> None:
    rules = sg.Rules.classic(3)
    env = VectorEnv(3, rules, opponents="greedy", seed=4)
    _, info = env.reset()
    assert info["game"].tolist() == [0, 1, 2]
    assert env.privileged_seed(1) == _core.game_seed(4, 1)
    assert env.privileged_seed(info["game"][2]) == _core.game_seed(4, 2)  # numpy's uint64
    seen = set(info["game"].tolist())
    for _ in range(300):
        numbers = info["game"].copy()
        _, _, terminated, truncated, info = env.step(env.sample_actions())
        ended = terminated | truncated
        assert (info["game"][~ended] == numbers[~ended]).all()
        assert (info["game"][ended] > numbers[ended]).all()
        assert (info["game"] % 3 == numpy.arange(3)).all()  # slot i's are i, i + n, ...
        seen.update(info["game"].tolist())
    assert len(seen) > 3
    for bad in (-1, 2**64, 1.5, "3", True):
        with pytest.raises(sg.ArgumentError, match="game must be a game number"):
            env.privileged_seed(bad)  # type: ignore[arg-type]


def test_sample_actions_draws_legal_actions_uniformly_and_reproducibly() -> None:
    env = VectorEnv(4, sg.Rules.modern(3), opponents="random", seed=6)
    with pytest.raises(sg.ArgumentError, match="reset"):
        env.sample_actions()
    with pytest.raises(sg.ArgumentError, match="reset"):
        env.step([0, 0, 0, 0])
    _, info = env.reset()
    draws = numpy.array([env.sample_actions().copy() for _ in range(4000)])
    assert draws.dtype == numpy.int32
    for i in range(4):
        legal = numpy.flatnonzero(info["action_mask"][i])
        counts = numpy.bincount(draws[:, i], minlength=NUM_ACTIONS)
        assert set(numpy.flatnonzero(counts)) == set(legal.tolist())  # each legal one, no other
        expected = 4000 / len(legal)
        assert (abs(counts[legal] - expected) < 6 * expected**0.5).all()  # six sigmas: uniform
    first = env.sample_actions().copy()
    env.reset()
    again = numpy.array([env.sample_actions().copy() for _ in range(4000)])
    assert (again == draws).all()  # a reset seeds every slot's draws again
    other = VectorEnv(4, sg.Rules.modern(3), opponents="random", seed=7)
    other.reset()
    assert not (numpy.array([other.sample_actions().copy() for _ in range(50)]) == draws[:50]).all()
    assert first.shape == (4,)


def test_a_random_play_loop_of_sample_actions_is_the_python_api_game_by_game() -> None:
    rules = sg.Rules.classic(3)
    env = VectorEnv(4, rules, opponents="random", learners="all", seed=8)
    obs, info = env.reset()
    games = [sg.Game.new(rules, seed=env.privileged_seed(int(g))) for g in info["game"]]
    for _ in range(300):
        actions = env.sample_actions()
        for i, game in enumerate(games):
            assert info["action_mask"][i][actions[i]]
            game.play_action(int(actions[i]))
        obs, _, terminated, truncated, info = env.step(actions)
        for i, game in enumerate(games):
            if terminated[i] or truncated[i]:
                assert game.result is not None
                games[i] = sg.Game.new(rules, seed=env.privileged_seed(int(info["game"][i])))
            seat = games[i].to_move
            assert seat is not None and (obs[i] == games[i].observation(seat).tensor()).all()


_RESIZE_SCRIPT = """
import numpy
from skitgubbe.learn.vector import VectorEnv

def returned(env, actions):
    obs, rewards, terminated, truncated, info = env.step(actions)
    return {"obs": obs, "rewards": rewards, "terminated": terminated,
            "truncated": truncated, "sampled": env.sample_actions(), **info}

touched, untouched = (VectorEnv(6, "classic", opponents="random", seed=3) for _ in range(2))
first, info = touched.reset()
untouched.reset()
arrays = {"reset obs": first, **{f"reset {k}": v for k, v in info.items()},
          **returned(touched, touched.sample_actions())}
returned(untouched, untouched.sample_actions())
for name, array in arrays.items():
    chain = array
    while isinstance(chain, numpy.ndarray):  # the array, and every array it is a view of
        assert not chain.flags.owndata, name
        for shape in ((1, 1), (10**6,)):
            for refcheck in (False, True):
                try:
                    chain.resize(shape, refcheck=refcheck)
                except ValueError:
                    pass
                else:
                    raise SystemExit(f"{name} was resized to {shape}")
        chain = chain.base
    assert chain is not None and not hasattr(chain, "resize"), name
for _ in range(200):
    actions = touched.sample_actions().copy()
    assert (untouched.sample_actions() == actions).all()
    got, want = returned(touched, actions), returned(untouched, actions)
    for name in want:
        assert got[name].shape == want[name].shape, name
        assert (got[name] == want[name]).all(), name
print("ok")
"""


def test_the_returned_arrays_cannot_be_resized_under_the_c_writer() -> None:
    """Every array the environment hands out is a view of a buffer the C core owns: numpy's
    resize refuses (refcheck=False too), and the next steps are those of an untouched
    environment. In a subprocess, so that a write into freed memory fails the test and does
    not kill pytest."""
    done = subprocess.run(
        [sys.executable, "-c", _RESIZE_SCRIPT], capture_output=True, text=True, timeout=120
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "ok\n", "")
