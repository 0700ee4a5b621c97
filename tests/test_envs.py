"""The learning environments: PettingZoo's and Gymnasium's own checks, rewards,
seeds, illegal actions, sloughs chosen card by card, and opponents that see only
their observations."""

from __future__ import annotations

import functools
import gc
import random
import subprocess
import sys
import warnings
from typing import Any

import gymnasium
import numpy
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, render_test, seed_test

import skitgubbe as sg
from skitgubbe.game.actions import NUM_ACTIONS, SLOUGH_CARD, SLOUGH_DONE
from skitgubbe.game.tensors import TENSOR_SIZE
from skitgubbe.learn import envs

VARIANTS = [(preset, players) for preset in ("classic", "modern") for players in (2, 3, 4)]
IDS = [f"{preset}-{players}p" for preset, players in VARIANTS]


def _random_action(mask: Any, rng: random.Random) -> int:
    legal = numpy.flatnonzero(mask)
    assert len(legal) > 0
    return int(legal[rng.randrange(len(legal))])


def test_import_skitgubbe_loads_no_environment_library() -> None:
    code = (
        "import sys, skitgubbe; "
        "assert not {'pettingzoo', 'gymnasium', 'skitgubbe.learn.envs'} & set(sys.modules)"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


# -- PettingZoo's own tests -------------------------------------------------------------------


# What api_test says of a dict observation (PettingZoo's classic games' form, which it
# allows only to the games it lists by name); envs.SkitgubbeAEC's docstring says so.
DICT_WARNINGS = {
    "Observation is not a NumPy array",
    "Observation space for each agent probably should be gymnasium.spaces.box or "
    "gymnasium.spaces.discrete",
}


def _warnings_of(run: Any, *args: Any, **kwargs: Any) -> set[str]:
    """The texts of the warnings ``run(*args, **kwargs)`` gave (each time, not once)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        run(*args, **kwargs)
    return {str(warning.message) for warning in caught}


@pytest.mark.parametrize(("preset", "players"), VARIANTS, ids=IDS)
def test_pettingzoo_api_test_with_the_mask_in_info_warns_nothing(preset: str, players: int) -> None:
    aec = envs.env(rules=preset, players=players, action_mask="info")
    assert _warnings_of(api_test, aec, num_cycles=1000, verbose_progress=False) == set()


@pytest.mark.parametrize(("preset", "players"), VARIANTS, ids=IDS)
def test_pettingzoo_api_test_of_dict_observations_warns_only_of_their_form(
    preset: str, players: int
) -> None:
    aec = envs.env(rules=preset, players=players)
    assert _warnings_of(api_test, aec, num_cycles=1000, verbose_progress=False) == DICT_WARNINGS


@pytest.mark.parametrize("players", [2, 3, 4])
def test_pettingzoo_api_test_through_truncated_games(players: int) -> None:
    for mask, expected in (("info", set()), ("observation", DICT_WARNINGS)):
        aec = envs.env(rules="modern", players=players, max_moves=25, action_mask=mask)
        assert _warnings_of(api_test, aec, num_cycles=200, verbose_progress=False) == expected


def test_the_mask_in_info_is_the_dict_observations_mask() -> None:
    dicts = envs.raw_env(rules="classic", players=3)
    infos = envs.raw_env(rules="classic", players=3, action_mask="info")
    assert infos.observation_space("player_0") == gymnasium.spaces.Box(
        0, 1, (TENSOR_SIZE,), numpy.float32
    )
    rng = random.Random(5)
    for aec in (dicts, infos):
        aec.reset(seed=5)
    steps = 0
    while dicts.agents and steps < 400:
        for agent in dicts.agents:
            seen = dicts.observe(agent)
            assert (infos.observe(agent) == seen["observation"]).all()
            assert (infos.infos[agent]["action_mask"] == seen["action_mask"]).all()
            assert infos.infos[agent]["action_mask"].dtype == numpy.int8
        assert infos.last()[4] is infos.infos[infos.agent_selection]
        agent = dicts.agent_selection
        action = None
        if not (dicts.terminations[agent] or dicts.truncations[agent]):
            action = _random_action(dicts.observe(agent)["action_mask"], rng)
        dicts.step(action)
        infos.step(action)
        steps += 1
    assert steps > 20
    with pytest.raises(sg.ArgumentError, match="action_mask"):
        envs.raw_env(action_mask="both")  # type: ignore[arg-type]


def test_an_illegal_action_ends_the_game_with_the_mask_in_info() -> None:
    aec = envs.env(rules="classic", players=2, action_mask="info")
    aec.reset(seed=0)
    mask = aec.last()[4]["action_mask"]
    illegal = int(numpy.flatnonzero(mask == 0)[0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PettingZoo logs the illegal move
        aec.step(illegal)
    assert aec.rewards["player_0"] == -1.0 and aec.terminations["player_0"]


@pytest.mark.parametrize(("preset", "players"), VARIANTS, ids=IDS)
def test_pettingzoo_seed_test(preset: str, players: int) -> None:
    seed_test(functools.partial(envs.env, rules=preset, players=players), num_cycles=200)


@pytest.mark.parametrize(("preset", "players"), VARIANTS, ids=IDS)
def test_pettingzoo_render_test(
    preset: str, players: int, capsys: pytest.CaptureFixture[str]
) -> None:
    render_test(functools.partial(envs.env, rules=preset, players=players))
    assert "Phase 1, collecting cards" in capsys.readouterr().out  # the human mode printed


def test_pettingzoo_metadata_and_spaces() -> None:
    aec = envs.raw_env(rules="modern", players=4)
    assert aec.metadata["name"] == "skitgubbe_v0"
    assert aec.metadata["is_parallelizable"] is False
    assert aec.possible_agents == ["player_0", "player_1", "player_2", "player_3"]
    space = aec.observation_space("player_2")
    assert space["observation"].shape == (TENSOR_SIZE,)
    assert space["observation"].dtype == numpy.float32
    assert space["action_mask"].shape == (NUM_ACTIONS,)
    assert space["action_mask"].dtype == numpy.int8
    assert aec.action_space("player_1") == gymnasium.spaces.Discrete(NUM_ACTIONS)
    aec.reset(seed=1)
    assert aec.state().shape == aec.state_space.shape
    waiting = [agent for agent in aec.agents if agent != aec.agent_selection]
    assert not aec.observe(waiting[0])["action_mask"].any()
    assert aec.observe(aec.agent_selection)["action_mask"].any()
    aec.close()
    aec.close()


def test_the_rules_arguments() -> None:
    assert envs.raw_env(rules=sg.Rules.modern(2)).rules == sg.Rules.modern(2)
    assert envs.raw_env(rules="classic", players=4, max_moves=50).rules.max_moves == 50
    with pytest.raises(sg.ArgumentError):
        envs.raw_env(rules=sg.Rules.modern(2), players=3)
    with pytest.raises(sg.RulesError):
        envs.raw_env(rules="nonsense")
    with pytest.raises(sg.ArgumentError):
        envs.SkitgubbeEnv(players=3, opponents=["random"])
    with pytest.raises(sg.ArgumentError):
        envs.SkitgubbeEnv(players=3, seat=3)
    with pytest.raises(sg.ArgumentError):
        envs.SkitgubbeEnv(opponents="nobody")


# -- Gymnasium's own checker ------------------------------------------------------------------


@pytest.mark.parametrize(("preset", "players"), VARIANTS, ids=IDS)
def test_gymnasium_check_env(preset: str, players: int, capsys: pytest.CaptureFixture[str]) -> None:
    # check_env steps with actions sampled from the whole space, mostly illegal:
    # the environment that ends the episode on an illegal action passes it without
    # a warning, made by gymnasium.make or directly (it has the same spec) ...
    made = gymnasium.make(envs.ENV_ID, rules=preset, players=players, illegal_action="lose")
    assert _warnings_of(check_env, made.unwrapped) == set()
    direct = envs.SkitgubbeEnv(rules=preset, players=players, illegal_action="lose")
    assert _warnings_of(check_env, direct) == set()
    assert direct.spec is not None and direct.spec.id == envs.ENV_ID
    assert "Phase 1" in capsys.readouterr().out  # it made it again in "human" render mode
    # ... and the default one refuses them.
    with pytest.raises(sg.IllegalActionError):
        check_env(envs.SkitgubbeEnv(rules=preset, players=players))


def test_gymnasium_spaces_and_registration() -> None:
    made = gymnasium.make(envs.ENV_ID, players=4, opponents="greedy")
    assert isinstance(made.unwrapped, envs.SkitgubbeEnv)
    assert made.observation_space == gymnasium.spaces.Box(0, 1, (TENSOR_SIZE,), numpy.float32)
    assert made.action_space == gymnasium.spaces.Discrete(NUM_ACTIONS)
    observation, info = made.reset(seed=3)
    assert observation.dtype == numpy.float32
    mask = made.unwrapped.action_masks()
    assert mask.dtype == numpy.bool_
    assert (mask == info["action_mask"]).all()
    assert mask.any()
    made.close()


# -- whole games: rewards sum to zero ---------------------------------------------------------


@pytest.mark.parametrize(("preset", "players"), VARIANTS, ids=IDS)
def test_a_random_game_through_the_aec_env(preset: str, players: int) -> None:
    aec = envs.env(rules=preset, players=players)
    rng = random.Random(players)
    aec.reset(seed=11)
    totals = dict.fromkeys(aec.possible_agents, 0.0)
    ends = 0
    for agent in aec.agent_iter(100_000):
        observation, reward, terminated, truncated, _ = aec.last()
        totals[agent] += reward
        if terminated or truncated:
            ends += 1
            aec.step(None)
        else:
            aec.step(_random_action(observation["action_mask"], rng))
    assert ends == players and not aec.agents  # every agent was told, then removed
    result = aec.unwrapped.game.result
    assert result is not None
    assert sum(totals.values()) == 0
    assert list(totals.values()) == list(envs.payoffs(result, players))
    if result.loser is not None and not result.truncated:
        assert totals[f"player_{result.loser}"] == -(players - 1)


def test_a_truncated_game_pays_nothing() -> None:
    aec = envs.raw_env(rules="classic", players=3, max_moves=10)
    aec.reset(seed=2)
    rng = random.Random(0)
    while not any(aec.truncations.values()):
        aec.step(_random_action(aec.observe(aec.agent_selection)["action_mask"], rng))
    assert all(aec.truncations.values()) and not any(aec.terminations.values())
    assert set(aec._cumulative_rewards.values()) == {0.0}
    gym_env = envs.SkitgubbeEnv(rules="classic", players=3, max_moves=10)
    gym_env.reset(seed=2)
    truncated = terminated = False
    while not (truncated or terminated):
        _, reward, terminated, truncated, _ = gym_env.step(
            _random_action(gym_env.action_masks(), rng)
        )
    assert truncated and not terminated and reward == 0.0


@pytest.mark.parametrize(("preset", "players"), VARIANTS, ids=IDS)
def test_a_random_game_through_the_gymnasium_env(preset: str, players: int) -> None:
    rng = random.Random(players)
    for seat in range(players):
        gym_env = envs.SkitgubbeEnv(rules=preset, players=players, seat=seat)
        _, info = gym_env.reset(seed=20 + seat)
        rewards = []
        for _ in range(10_000):
            _, reward, terminated, truncated, info = gym_env.step(
                _random_action(info["action_mask"], rng)
            )
            rewards.append(reward)
            if terminated or truncated:
                break
        else:
            pytest.fail("the episode did not end")
        result = gym_env.game.result
        assert result is not None
        assert not info["action_mask"].any()
        assert set(rewards[:-1]) <= {0.0}
        assert rewards[-1] == envs.payoffs(result, players)[seat]
        assert sum(envs.payoffs(result, players)) == 0
        with pytest.raises(sg.ArgumentError):
            gym_env.step(0)


# -- opponents see only their observations ----------------------------------------------------


class Spy:
    """A random player that records what it is given."""

    def __init__(self, seed: int) -> None:
        self.bot = sg.bots.RandomBot(seed=seed)
        self.seen: list[type] = []
        self.started = 0
        self.ended = 0

    def game_started(self, observation: object) -> None:
        self.seen.append(type(observation))
        self.started += 1

    def game_ended(self, observation: object, result: sg.GameResult) -> None:
        self.seen.append(type(observation))
        self.ended += 1

    def choose(self, observation: sg.Observation) -> sg.Move:
        self.seen.append(type(observation))
        assert not _reaches_a_game(observation)
        return self.bot.choose(observation)


def _reaches_a_game(start: object, depth: int = 3) -> bool:
    """Whether a Game is among the objects ``start`` refers to, ``depth`` levels down."""
    frontier = [start]
    for _ in range(depth):
        frontier = [r for obj in frontier for r in gc.get_referents(obj)]
        if any(isinstance(obj, (sg.Game, envs.SkitgubbeEnv)) for obj in frontier):
            return True
    return False


def test_opponents_receive_only_observations() -> None:
    spies = [Spy(1), Spy(2)]
    gym_env = envs.SkitgubbeEnv(rules="modern", players=3, seat=1, opponents=spies)
    rng = random.Random(5)
    _, info = gym_env.reset(seed=4)
    terminated = truncated = False
    while not (terminated or truncated):
        _, _, terminated, truncated, info = gym_env.step(_random_action(info["action_mask"], rng))
    for spy in spies:
        assert len(spy.seen) > 2
        assert set(spy.seen) == {sg.Observation}
        assert spy.started == spy.ended == 1
    game = sg.Game.new(seed=1)
    assert _reaches_a_game(game.observation(0)) is False  # the check itself ...
    assert _reaches_a_game([game]) is True  # ... finds a game where there is one


def test_random_seats_and_bot_specs() -> None:
    gym_env = envs.SkitgubbeEnv(players=4, seat="random", opponents="greedy")
    seats = {gym_env.reset(seed=s)[1]["seat"] for s in range(30)}
    assert seats == {0, 1, 2, 3}
    assert all(type(p) is sg.bots.GreedyBot for p in gym_env._players.values())


# -- illegal actions --------------------------------------------------------------------------


def test_an_illegal_action_raises_in_the_raw_env_and_changes_nothing() -> None:
    aec = envs.raw_env(rules="classic", players=3)
    aec.reset(seed=2)
    agent = aec.agent_selection
    before = (aec.game.record(), aec.observe(agent)["observation"].copy(), dict(aec.rewards))
    mask = aec.observe(agent)["action_mask"]
    illegal = int(numpy.flatnonzero(mask == 0)[0])
    with pytest.raises(sg.IllegalActionError) as caught:
        aec.step(illegal)
    assert caught.value.action == illegal
    assert aec.agent_selection == agent
    assert aec.game.record() == before[0]
    assert (aec.observe(agent)["observation"] == before[1]).all()
    assert aec.rewards == before[2] and not any(aec.terminations.values())
    with pytest.raises(sg.ArgumentError):
        aec.step(NUM_ACTIONS)


def test_an_illegal_action_through_the_wrapper_ends_the_game() -> None:
    aec = envs.env(rules="classic", players=3)
    aec.reset(seed=2)
    agent = aec.agent_selection
    observation, *_ = aec.last()
    aec.step(int(numpy.flatnonzero(observation["action_mask"] == 0)[0]))
    assert all(aec.terminations.values())
    assert aec.rewards[agent] == -1
    assert aec._cumulative_rewards[agent] == -1
    assert sum(aec.rewards.values()) == -1
    for dead in aec.agent_iter():
        assert aec.last()[2]
        aec.step(None)
        del dead
    assert not aec.agents


def test_an_illegal_action_in_the_gymnasium_env() -> None:
    gym_env = envs.SkitgubbeEnv(rules="classic", players=2)
    _, info = gym_env.reset(seed=3)
    illegal = int(numpy.flatnonzero(~info["action_mask"])[0])
    record = gym_env.game.record()
    with pytest.raises(sg.IllegalActionError):
        gym_env.step(illegal)
    assert gym_env.game.record() == record
    losing = envs.SkitgubbeEnv(rules="classic", players=2, illegal_action="lose")
    losing.reset(seed=3)
    _, reward, terminated, truncated, _ = losing.step(illegal)
    assert (reward, terminated, truncated) == (-1.0, True, False)


# -- seeds ------------------------------------------------------------------------------------


def _aec_moves(aec: Any, seed: int | None, steps: int) -> list[int]:
    aec.reset(seed=seed)
    rng = random.Random(0)
    taken = []
    for _ in range(steps):
        if not aec.agents or any(aec.terminations.values()) or any(aec.truncations.values()):
            break
        action = _random_action(aec.observe(aec.agent_selection)["action_mask"], rng)
        aec.step(action)
        taken.append(action)
    return taken


def test_seeds_give_the_same_games() -> None:
    one, two = envs.raw_env(rules="modern"), envs.raw_env(rules="modern")
    assert _aec_moves(one, 9, 60) == _aec_moves(two, 9, 60)
    assert one.game.record() == two.game.record()
    # Resets without a seed draw theirs from the last seed given.
    assert _aec_moves(one, None, 60) == _aec_moves(two, None, 60)
    assert one.game.record() == two.game.record()
    assert one.game.seed != 9
    assert _aec_moves(one, 10, 5) != _aec_moves(two, 9, 5) or one.game.seed != two.game.seed

    def episode(seed: int) -> list[Any]:
        gym_env = envs.SkitgubbeEnv(rules="classic", players=3, seat="random")
        rng = random.Random(0)
        observation, info = gym_env.reset(seed=seed)
        seen = [observation.tobytes(), info["seat"]]
        for _ in range(30):
            observation, reward, terminated, truncated, info = gym_env.step(
                _random_action(info["action_mask"], rng)
            )
            seen += [observation.tobytes(), reward]
            if terminated or truncated:
                break
        return seen

    assert episode(5) == episode(5)
    assert episode(5) != episode(6)


# -- a slough chosen card by card -------------------------------------------------------------


def _slough_position() -> tuple[int, list[sg.Move], sg.Move]:
    """A deal, the moves to a slough window, and a slough of two or more cards there."""
    rules = sg.Rules.modern(3)
    for seed in range(200):
        game = sg.Game.new(rules, seed=seed)
        rng = random.Random(seed)
        while game.result is None:
            sloughs = [
                m for m in game.legal_moves if m.kind is sg.MoveKind.SLOUGH and len(m.cards) >= 2
            ]
            if sloughs:
                return seed, list(game.moves), sloughs[0]
            game.play(rng.choice(game.legal_moves))
    raise AssertionError("no slough of two cards in 200 games")


def test_a_slough_card_by_card_through_the_aec_env() -> None:
    seed, moves, slough = _slough_position()
    aec = envs.env(rules="modern", players=3)
    aec.reset(seed=seed)
    for move in moves:
        for action in move.actions:
            aec.step(action)
    game = aec.unwrapped.game
    agent = aec.agent_selection
    path = slough.actions
    assert len(path) == len(slough.cards) + 1 and path[-1] == SLOUGH_DONE
    for i, action in enumerate(path[:-1]):
        observation, *_ = aec.last()
        assert observation["action_mask"][action] == 1
        aec.step(action)
        assert aec.agent_selection == agent  # the same agent goes on choosing
        assert game.moves_played == len(moves)
        chosen = [sg.Card.from_index(a - SLOUGH_CARD) for a in path[: i + 1]]
        assert set(game.slough_chosen) == set(chosen)
        mask = aec.observe(agent)["action_mask"]
        assert mask[SLOUGH_DONE] == 1
        assert all(a >= SLOUGH_CARD for a in numpy.flatnonzero(mask))
    aec.step(SLOUGH_DONE)
    assert game.moves[-1] == slough
    assert not game.slough_chosen


class Script:
    """Plays the moves of a recorded game, by the observation's move number."""

    def __init__(self, moves: list[sg.Move]) -> None:
        self.moves = moves

    def choose(self, observation: sg.Observation) -> sg.Move:
        if observation.moves_played >= len(self.moves):
            return observation.legal_moves[0]
        move = self.moves[observation.moves_played]
        assert move in observation.legal_moves
        return move


def test_a_slough_card_by_card_through_the_gymnasium_env() -> None:
    seed, moves, slough = _slough_position()
    script = Script([*moves, slough])
    probe = sg.Game.new(sg.Rules.modern(3), seed=seed)
    for move in moves:
        probe.play(move)
    seat = probe.to_move
    assert seat is not None
    gym_env = envs.SkitgubbeEnv(rules="modern", players=3, seat=seat, opponents=script)
    _, info = gym_env.reset(seed=seed)
    game = gym_env.game
    while game.moves_played < len(moves):
        for action in moves[game.moves_played].actions:
            _, _, terminated, _, info = gym_env.step(action)
            assert not terminated
    assert game.to_move == seat
    for action in slough.actions[:-1]:
        assert info["action_mask"][action]
        _, _, _, _, info = gym_env.step(action)
        assert game.moves_played == len(moves) and game.to_move == seat
        assert info["action_mask"][SLOUGH_DONE]
    gym_env.step(SLOUGH_DONE)
    assert game.moves[len(moves)] == slough


# -- the environments' observations are the seats' observations -------------------------------


@pytest.mark.parametrize(("preset", "players"), VARIANTS, ids=IDS)
def test_env_observations_are_the_observations_tensors_and_masks(preset: str, players: int) -> None:
    aec = envs.raw_env(rules=preset, players=players)
    aec.reset(seed=players)
    rng = random.Random(1)
    game = aec.game
    while game.result is None:
        for seat, agent in enumerate(aec.possible_agents):
            seen = aec.observe(agent)
            view = game.observation(seat)
            assert (seen["observation"] == view.tensor()).all()
            assert seen["action_mask"].tobytes() == view.action_mask
        aec.step(_random_action(aec.observe(aec.agent_selection)["action_mask"], rng))
