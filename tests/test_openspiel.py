"""Skitgubbe as an OpenSpiel game (skitgubbe.learn.openspiel): OpenSpiel's own checks on it.

``pyspiel.random_sim_test`` for both presets and 2 … 4 players; the test cases of
OpenSpiel's ``integration_tests/api_test.py`` run on states of this game; that a
player's strings and tensors depend only on what he knows; OpenSpiel's Python
ISMCTS against our GreedyBot; serialisation; chance outcomes.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from open_spiel.integration_tests import api_test  # noqa: E402
from open_spiel.python.algorithms import ismcts, mcts  # noqa: E402
from open_spiel.python.algorithms.evaluate_bots import evaluate_bots  # noqa: E402

import skitgubbe as sg  # noqa: E402
from skitgubbe.learn.openspiel import DECK_SIZE, SkitgubbeBot, SkitgubbeState, rules_of  # noqa: E402

PRESETS = ("classic", "modern")
SEATS = (2, 3, 4)
# A low move cap keeps random games (and OpenSpiel's checks of every step) short.
CAP = 120


def load(players: int = 3, rules: str = "classic", max_moves: int = CAP) -> pyspiel.Game:
    return pyspiel.load_game(
        "python_skitgubbe", {"players": players, "rules": rules, "max_moves": max_moves}
    )


def deal(game: pyspiel.Game, rng: random.Random) -> SkitgubbeState:
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()]))
    return state


def random_path(game: pyspiel.Game, rng: random.Random) -> list[SkitgubbeState]:
    """Every state of one random playout, the deal included."""
    state = game.new_initial_state()
    states = [state]
    while not state.is_terminal():
        if state.is_chance_node():
            action = rng.choice([a for a, _ in state.chance_outcomes()])
        else:
            action = rng.choice(state.legal_actions())
        state = state.child(action)
        states.append(state)
    return states


# -- the game's description ------------------------------------------------------


@pytest.mark.parametrize("players", SEATS)
def test_the_game_info(players: int) -> None:
    game = load(players, max_moves=0)
    assert game.num_players() == players
    assert game.num_distinct_actions() == sg.actions.NUM_ACTIONS == 563
    assert game.max_chance_outcomes() == DECK_SIZE
    assert (game.min_utility(), game.max_utility()) == (-(players - 1), 1)
    assert game.utility_sum() == 0
    rules = sg.Rules.classic(players)
    assert game.max_game_length() == rules.max_moves * (1 + rules.hand_size)
    assert game.max_chance_nodes_in_history() == DECK_SIZE
    kind = game.get_type()
    assert kind.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert kind.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert kind.utility == pyspiel.GameType.Utility.ZERO_SUM


def test_parameters_name_the_rules() -> None:
    modern = sg.Rules.modern(players=2)
    assert load(2, "modern", 0).rules == modern
    assert load(2, "modern", 77).rules.max_moves == 77
    import json

    text = json.dumps(modern.to_dict())
    assert pyspiel.load_game("python_skitgubbe", {"players": 2, "rules": text}).rules == modern
    with pytest.raises(sg.ArgumentError, match="give players=2"):
        rules_of({"players": 3, "rules": text})
    with pytest.raises(sg.ArgumentError, match="players must be"):
        rules_of({"players": 5})
    changed = load(2, "modern;slough:false;runs:false", 0)
    assert changed.rules == sg.Rules.modern(2, slough=False, runs=False)
    with pytest.raises(sg.ArgumentError, match="field:value"):
        rules_of({"rules": "modern;slough"})
    with pytest.raises(sg.RulesError):
        rules_of({"rules": "modern;slough:perhaps"})


def test_a_game_string_names_the_same_game() -> None:
    # Game strings cannot hold a JSON object (its commas): a preset with changes can.
    game = load(2, "classic;try_your_luck:false", 50)
    again = pyspiel.load_game(str(game))
    assert again.rules == game.rules and again.rules.max_moves == 50


# -- OpenSpiel's random simulation test ------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("players", SEATS)
@pytest.mark.parametrize("preset", PRESETS)
def test_random_sim_test(preset: str, players: int) -> None:
    pyspiel.random_sim_test(load(players, preset), num_sims=2, serialize=True, verbose=False)


def test_random_sim_test_to_the_end_without_a_low_cap() -> None:
    # The rules' own cap (10 000 moves): random games end with a loser.
    pyspiel.random_sim_test(load(2, "classic", 0), num_sims=1, serialize=False, verbose=False)


# -- the checks of OpenSpiel's api_test.py -----------------------------------------------


def _sampled_states(game: pyspiel.Game, seed: int) -> list[pyspiel.State]:
    """Some states of ``game``: OpenSpiel's sampler (near the root: mostly the deal)
    and every fifth state of a few random playouts (decisions, sloughs, terminals)."""
    rng = random.Random(seed)
    states = list(api_test.sample_some_states.sample_some_states(game, max_states=60))
    for _ in range(4):
        path = random_path(game, rng)
        states += [*path[::5], path[-1]]
    return states


class _Variants:
    """Per test class: which game the api_test cases run on."""

    __test__ = False  # only the subclasses made below, each with its game, are tests
    game_name = "python_skitgubbe"
    params: dict[str, object]

    @classmethod
    def setUpClass(cls) -> None:
        cls.game = pyspiel.load_game("python_skitgubbe", cls.params)
        super().setUpClass()  # type: ignore[misc]


class _PartialTree(_Variants, api_test.EnforceAPIOnPartialTreeBase):
    """Every test of api_test's EnforceAPIOnPartialTreeBase, on sampled states."""

    @classmethod
    def setUpClass(cls) -> None:
        super().setUpClass()
        cls.some_states = _sampled_states(cls.game, seed=1)


class _FullTreeChecks(_Variants, api_test.EnforceAPIOnFullTreeBase):
    """The tests of api_test's EnforceAPIOnFullTreeBase, on sampled states instead of
    the whole tree (far too big). Two of them compare counts of the whole tree with
    fixed numbers per game; here they check what they can of them."""

    @classmethod
    def setUpClass(cls) -> None:
        # The base's setUpClass would walk the whole tree: skip it, not its parents'.
        super(api_test.EnforceAPIOnFullTreeBase, cls).setUpClass()
        cls.game = pyspiel.load_game("python_skitgubbe", cls.params)
        cls.all_states = _sampled_states(cls.game, seed=2)

    def test_number_of_nodes(self) -> None:
        # Chance, decision and terminal nodes are all there.
        kinds = {
            "terminal" if s.is_terminal() else "chance" if s.is_chance_node() else "decision"
            for s in self.all_states
        }
        assert kinds == {"terminal", "chance", "decision"}

    def test_game_is_perfect_recall(self) -> None:
        # api_test's own recursive check, on the whole subtree below positions four
        # moves before the move cap (the subtrees are small), with the real history that led there.
        rng = random.Random(3)
        checked = infosets = 0
        while checked < 3:
            path = random_path(self.game, rng)
            for i, state in enumerate(path):
                game = state.game
                if game is None or state.is_terminal() or game.moves_played != CAP - 4:
                    continue
                history = list(zip(path[:i], state.history(), strict=True))
                seen: dict[tuple[str, int], list[object]] = {}
                api_test._assert_is_perfect_recall_recursive(state, history, seen)
                infosets += len(seen)
                checked += 1
                break
        assert infosets > 3 * 3


def _api_classes() -> None:
    for base, kind in ((_PartialTree, "Partial"), (_FullTreeChecks, "Full")):
        for preset in PRESETS:
            for players in SEATS:
                name = f"TestApi{kind}{preset.title()}{players}"
                params = {"players": players, "rules": preset, "max_moves": CAP}
                globals()[name] = type(name, (base,), {"params": params, "__test__": True})


_api_classes()


# -- hidden information -------------------------------------------------------------------


def _replay(game: pyspiel.Game, deck: list[int], actions: list[int]) -> list[SkitgubbeState]:
    state = game.new_initial_state()
    for card in deck:
        state.apply_action(card)
    states = [state]
    for action in actions:
        state = state.child(action)
        states.append(state)
    return states


def _seen(state: SkitgubbeState, player: int) -> tuple[object, ...]:
    return (
        state.information_state_string(player),
        state.observation_string(player),
        tuple(state.information_state_tensor(player)),
        tuple(state.observation_tensor(player)),
    )


@pytest.mark.slow
@pytest.mark.parametrize("players", SEATS)
@pytest.mark.parametrize("preset", PRESETS)
def test_strings_and_tensors_depend_only_on_what_the_player_knows(
    preset: str, players: int
) -> None:
    """Two deals that differ only in cards a player has not seen by some step give
    that player the same strings and tensors up to that step (and the full states differ)."""
    game = load(players, preset)
    rng = random.Random(players * 10 + len(preset))
    compared = 0
    for _ in range(40):
        path = random_path(game, rng)
        deck = [a for a in path[-1].history()[:DECK_SIZE]]
        actions = path[-1].history()[DECK_SIZE:]
        steps = rng.randrange(1, len(actions) + 1)
        actions = actions[:steps]
        end = path[DECK_SIZE + steps]
        player = rng.randrange(players)
        view = end.observation(player)
        assert view is not None
        unknown = [card.index for card in view.unknown]
        if len(unknown) < 2:
            continue
        a, b = rng.sample(unknown, 2)
        other = [b if c == a else a if c == b else c for c in deck]
        try:
            twins = _replay(game, other, actions)
        except sg.IllegalActionError:
            continue  # the swap made some other player's action illegal
        originals = path[DECK_SIZE:]
        if str(twins[-1]) == str(originals[len(twins) - 1]):
            continue  # both cards in one hand, say: the same state
        for mine, twin in zip(originals, twins, strict=False):
            assert _seen(mine, player) == _seen(twin, player)
        compared += 1
    assert compared >= 5


def test_a_player_sees_nothing_of_the_deal_until_it_is_done() -> None:
    game = load(2)
    one, two = game.new_initial_state(), game.new_initial_state()
    for card in range(DECK_SIZE - 1):
        one.apply_action(card)
        two.apply_action(DECK_SIZE - 1 - card)
        for player in range(2):
            assert one.observation_string(player) == two.observation_string(player)
            assert one.information_state_tensor(player) == two.information_state_tensor(player)


# -- chance ---------------------------------------------------------------------------------


def test_chance_outcomes_are_the_cards_left_and_sum_to_one() -> None:
    state = load(2).new_initial_state()
    rng = random.Random(4)
    for dealt in range(DECK_SIZE):
        outcomes = state.chance_outcomes()
        assert len(outcomes) == DECK_SIZE - dealt
        assert sum(p for _, p in outcomes) == pytest.approx(1.0, abs=1e-12)
        assert len({p for _, p in outcomes}) == 1
        state.apply_action(rng.choice([a for a, _ in outcomes]))
    assert not state.is_chance_node()
    assert sorted(state.history()) == list(range(DECK_SIZE))


def test_the_deal_is_the_deck_chance_chose() -> None:
    state = deal(load(3), random.Random(5))
    deck = [sg.Card.from_index(card) for card in state.history()]
    assert state.game is not None
    assert state.game.record()["start"]["deck"] == [str(card) for card in deck]


# -- play, returns, serialisation ---------------------------------------------------------


def test_returns_pay_the_skitgubbe_s_debt() -> None:
    game = load(3, "classic", 0)
    rng = random.Random(6)
    state = random_path(game, rng)[-1]
    result = state.game.result
    assert result is not None and result.loser is not None
    expected = [1.0, 1.0, 1.0]
    expected[result.loser] = -2.0
    assert state.returns() == expected


def test_a_truncated_game_is_worth_nothing() -> None:
    state = random_path(load(2, "classic", 20), random.Random(7))[-1]
    assert state.game.result.truncated
    assert state.returns() == [0.0, 0.0]


def test_a_slough_takes_several_steps_by_the_same_player() -> None:
    game = load(3, "modern", 0)
    rng = random.Random(8)
    for _ in range(20):
        for state in random_path(game, rng):
            if state.game is not None and state.game.slough_chosen:
                assert sg.actions.SLOUGH_DONE in state.legal_actions()
                return
    pytest.fail("no slough was chosen in 20 random games")


@pytest.mark.parametrize("preset", PRESETS)
def test_serialisation_round_trips(preset: str) -> None:
    game = load(3, preset)
    path = random_path(game, random.Random(9))
    for state in [*path[:: max(1, len(path) // 12)], path[-1]]:
        text = pyspiel.serialize_game_and_state(game, state)
        game2, state2 = pyspiel.deserialize_game_and_state(text)
        assert str(game2) == str(game)
        assert state2.history() == state.history()
        assert str(state2) == str(state)
        for player in range(3):
            if not state.is_chance_node():
                assert _seen(state2, player) == _seen(state, player)
        assert state2.legal_actions() == state.legal_actions()
        assert state2.returns() == state.returns()


def test_clones_are_independent() -> None:
    state = deal(load(2), random.Random(10))
    twin = state.clone()
    twin.apply_action(twin.legal_actions()[0])
    assert state.game.moves_played == 0
    assert twin.game.moves_played == 1


# -- resampling and bots --------------------------------------------------------------------


def test_resampled_worlds_keep_what_the_player_knows() -> None:
    game = load(3, "modern")
    rng = random.Random(11)
    sampler = pyspiel.UniformProbabilitySampler(11, 0.0, 1.0)
    differed = 0
    for state in random_path(game, rng)[DECK_SIZE::7]:
        if state.is_terminal():
            continue
        player = state.current_player()
        world = state.resample_from_infostate(player, sampler)
        assert world.current_player() == player
        assert world.information_state_string(player) == state.information_state_string(player)
        assert world.observation_string(player) == state.observation_string(player)
        assert world.legal_actions() == state.legal_actions()
        differed += str(world) != str(state)
    assert differed > 0


class _OpenSpielISMCTS(ismcts.ISMCTSBot):
    """OpenSpiel's Python ISMCTS; evaluate_bots calls restart_at, which it lacks."""

    def restart_at(self, state: pyspiel.State) -> None:
        self.reset()


def test_openspiel_ismcts_plays_our_greedy_bot_through_evaluate_bots() -> None:
    game = load(2, "classic", 200)
    rng = np.random.RandomState(12)
    theirs = _OpenSpielISMCTS(game, mcts.RandomRolloutEvaluator(1, rng), 2.0, 8, random_state=rng)
    ours = SkitgubbeBot(sg.bots.GreedyBot(), 1)
    returns = evaluate_bots(game.new_initial_state(), [theirs, ours], rng)
    assert sorted(returns) in ([-1.0, 1.0], [0.0, 0.0])


@pytest.mark.parametrize("players", SEATS)
def test_our_bots_as_pyspiel_bots_finish_games(players: int) -> None:
    game = load(players, "modern", 0)
    lineup = [sg.bots.GreedyBot(), sg.bots.RandomBot(seed=1), sg.bots.GreedyBot()]
    bots = [SkitgubbeBot(lineup[seat % 3], seat) for seat in range(players)]
    returns = evaluate_bots(game.new_initial_state(), bots, np.random.RandomState(players))
    assert sum(returns) == 0 and sorted(returns)[0] == -(players - 1)


def test_a_bot_finishes_its_slough_path() -> None:
    game = load(3, "modern", 0)
    rng = random.Random(13)

    class Slougher:
        """Sloughs every card it may; else the lowest move."""

        def choose(self, view: sg.Observation) -> sg.Move:
            return max(view.legal_moves, key=lambda m: len(m.actions))

    for _ in range(20):
        state = deal(game, rng)
        bots = [SkitgubbeBot(Slougher(), seat) for seat in range(3)]
        long_paths = 0
        while not state.is_terminal():
            player = state.current_player()
            action = bots[player].step(state)
            assert action in state.legal_actions()
            long_paths += bool(bots[player]._path)
            state.apply_action(action)
        if long_paths:
            return
    pytest.fail("no slough of two or more cards in 20 games")


def test_the_bot_refuses_another_seat_s_turn() -> None:
    state = deal(load(2), random.Random(14))
    with pytest.raises(pyspiel.SpielError, match="not seat 1's turn"):
        SkitgubbeBot(sg.bots.GreedyBot(), 1).step(state)
