"""Sampling hidden worlds, and the built-in bots under every rule variant."""

from __future__ import annotations

import random
from collections import Counter

import pytest

import skitgubbe as sg
from skitgubbe import _core
from tests.rules_gen import random_rules

# Chi-square critical values at p = 0.001 by degrees of freedom.
CHI2_0_001 = {1: 10.83, 2: 13.82, 3: 16.27, 4: 18.47, 5: 20.52}


def mid_game(seed: int, moves: int, rules: sg.Rules | None = None) -> sg.Game:
    rng = random.Random(seed)
    game = sg.Game.new(rules or sg.Rules.classic(), seed=seed)
    for _ in range(moves):
        if game.result is not None:
            break
        game.play(rng.choice(game.legal_moves))
    return game


def assert_world_agrees(view: sg.Observation, world: sg.Game) -> None:
    seat = view.seat
    assert world.hands[seat] == view.hand
    assert world.collections[seat] == view.collection
    assert world.table == view.table
    assert world.out_of_play == view.out_of_play
    assert world.to_move == view.to_move and world.phase is view.phase
    assert world.legal_moves == (view.legal_moves if view.my_turn else world.legal_moves)
    assert world.trump == view.trump
    for other in range(view.players):
        held = world.hands[other] | world.collections[other]
        assert view.known[other] <= held, f"seat {other} lost a known card"
        assert len(world.hands[other]) == view.hand_sizes[other]
        assert len(world.collections[other]) == view.collection_sizes[other]
    assert len(world.stock) == view.stock_size
    if view.upcard is not None:
        assert world.stock[-1] == view.upcard
    assert (world.hidden_card is not None) == (view.hidden_slots == 1)
    placed = set(world.out_of_play) | {c for p in world.table for c in p.cards}
    for other in range(view.players):
        placed |= set(world.hands[other]) | set(world.collections[other])
    placed |= set(world.stock) | ({world.hidden_card} if world.hidden_card else set())
    assert len(placed) == 52


@pytest.mark.parametrize("index", range(40))
def test_sampled_worlds_agree_with_the_observation(index: int) -> None:
    rules = random_rules(random.Random(index)) if index % 2 else sg.Rules.classic()
    game = mid_game(index, random.Random(index).randrange(0, 120), rules)
    if game.result is not None:
        return
    for seat in range(game.players):
        view = game.observation(seat)
        for sample in range(3):
            world = view.sample_world(sample)
            assert_world_agrees(view, world)
            # the world plays on: it is a real game
            while world.result is None and world.moves_played < view.moves_played + 50:
                world.play(world.legal_moves[0])


def test_the_same_observation_and_seed_give_the_same_world() -> None:
    view = mid_game(3, 20).observation(1)
    first, second = view.sample_world(99), view.sample_world(99)
    assert first._core.snapshot() == second._core.snapshot()
    assert view.sample_world(100)._core.snapshot() != first._core.snapshot()
    assert view.sample_world(random.Random(5)).hands == view.sample_world(random.Random(5)).hands


def test_swapping_cards_the_seat_cannot_know_gives_the_same_samples() -> None:
    deck = list(_core.deck_from_seed(21))
    game = sg.Game.new(deck=[sg.Card.from_code(c) for c in deck])
    rng = random.Random(21)
    moves = []
    for _ in range(25):
        moves.append(rng.choice(game.legal_moves))
        game.play(moves[-1])
    seat = 2
    unknown = sorted(card.code for card in game.observation(seat).unknown)
    a, b = unknown[0], unknown[-1]
    i, j = deck.index(a), deck.index(b)
    deck[i], deck[j] = deck[j], deck[i]
    twin = sg.Game.new(deck=[sg.Card.from_code(c) for c in deck])
    for move in moves:
        twin.play(move)
    assert game._core.snapshot() != twin._core.snapshot()  # the games do differ
    for seed in range(5):
        ours = game.observation(seat).sample_world(seed)
        theirs = twin.observation(seat).sample_world(seed)
        assert ours._core.snapshot() == theirs._core.snapshot()


def test_unknown_cards_land_in_each_slot_as_often_as_its_size_says() -> None:
    game = mid_game(8, 30)
    view = game.observation(0)
    slots = {f"seat {s}": n for s, n in enumerate(view.unknown_slots) if n}
    slots["stock top"] = 1
    slots["stock rest"] = view.stock_slots - 1
    if view.hidden_slots:
        slots["hidden"] = 1
    assert sum(slots.values()) == len(view.unknown)
    samples = 3000
    rng = random.Random(12345)
    for card in sorted(view.unknown)[:4]:
        counts: Counter[str] = Counter()
        for _ in range(samples):
            world = view.sample_world(rng)
            if world.hidden_card == card:
                counts["hidden"] += 1
            elif world.stock and world.stock[0] == card:
                counts["stock top"] += 1
            elif card in world.stock:
                counts["stock rest"] += 1
            else:
                owner = next(s for s, h in enumerate(world.hands) if card in h)
                counts[f"seat {owner}"] += 1
        total = sum(slots.values())
        chi2 = sum(
            (counts[name] - samples * size / total) ** 2 / (samples * size / total)
            for name, size in slots.items()
        )
        assert set(counts) <= set(slots)
        assert chi2 < CHI2_0_001[len(slots) - 1], f"{card}: {dict(counts)} vs {slots}"


BOT_SPECS = [
    "random",
    "greedy",
    "pimc:worlds=3,rollouts=1,rollout_cap=60",
    "ismcts:iterations=60,rollout_cap=60",
]


@pytest.mark.parametrize("spec", BOT_SPECS)
@pytest.mark.parametrize("index", range(6))
def test_every_bot_plays_whole_games_under_random_rules(spec: str, index: int) -> None:
    rules = random_rules(random.Random(f"bots/{index}")).replace(max_moves=3000)
    players = [sg.bots.make(spec, seed=index * 10 + seat) for seat in range(rules.players)]
    result = sg.play_game(players, rules, seed=index)
    again = [sg.bots.make(spec, seed=index * 10 + seat) for seat in range(rules.players)]
    assert sg.play_game(again, rules, seed=index) == result  # same seeds, same game
    assert result.truncated or len(result.finish_order) == rules.players


def test_greedy_beats_random_play() -> None:
    losses = 0
    games = 150
    for index in range(games):
        seat = index % 3
        players: list[sg.Player] = [sg.bots.RandomBot(seed=index * 3 + s) for s in range(3)]
        players[seat] = sg.bots.GreedyBot()
        losses += sg.play_game(players, seed=index).loser == seat
    assert losses < games * 0.15  # random players lose about a third each


def test_search_bots_report_their_search() -> None:
    game = next(g for g in (mid_game(s, 60) for s in range(50)) if len(g.legal_moves) > 2)
    assert game.to_move is not None
    view = game.observation(game.to_move)
    bot = sg.bots.ISMCTSBot(iterations=500, seed=3)
    visits = bot.visits(view)
    assert set(visits) == set(view.legal_moves)
    assert sum(visits.values()) == bot.last_search[0] == 500
    scores = sg.bots.PIMCBot(worlds=8, rollouts=1, seed=3).scores(view)
    assert set(scores) == set(view.legal_moves)
    assert all(0.0 <= score <= 1.0 for score in scores.values())


def test_the_registry_makes_configured_bots() -> None:
    bot = sg.bots.make("pimc:worlds=7,rollout=random", seed=2)
    assert isinstance(bot, sg.bots.PIMCBot) and bot.worlds == 7 and bot.rollout == "random"
    assert isinstance(sg.bots.make("ismcts:time=0.01"), sg.bots.ISMCTSBot)
    with pytest.raises(sg.ArgumentError, match="bad options for bot 'greedy'"):
        sg.bots.make("greedy:depth=3")
    with pytest.raises(
        sg.ArgumentError, match=r"rollout must be one of random, greedy, mixed, .* not 'smart'"
    ):
        sg.bots.make("pimc:rollout=smart")
    with pytest.raises(sg.ArgumentError, match="worlds must be an int from 1 to 2147483647, not 0"):
        sg.bots.make("pimc:worlds=0")
    with pytest.raises(
        sg.ArgumentTypeError, match=r"^worlds must be an int from 1 to 2147483647, not 'many'"
    ):
        sg.bots.make("pimc:worlds=many")  # the bot's own message, not "bad options"
    with pytest.raises(sg.ArgumentTypeError, match="time must be None or a finite number"):
        sg.bots.ISMCTSBot(time="1")  # type: ignore[arg-type]
    with pytest.raises(sg.ArgumentError, match="time must be None or a finite number"):
        sg.bots.ISMCTSBot(time=0)
    assert {"random", "greedy", "pimc", "ismcts"} <= set(sg.bots.available())


@pytest.mark.parametrize(
    ("spec", "error"),
    [("", sg.ArgumentError), ("pimc:worlds", sg.ArgumentError), (None, sg.ArgumentTypeError)],
)
def test_bad_specs_are_refused(spec: object, error: type[Exception]) -> None:
    with pytest.raises(error, match="bot"):
        sg.bots.make(spec)  # type: ignore[arg-type]


def test_bad_bot_names_are_refused() -> None:
    with pytest.raises(ValueError, match="a bot name is letters"):
        sg.bots.register("my bot", sg.bots.GreedyBot)
    with pytest.raises(TypeError, match="a bot name is letters"):
        sg.bots.register(7, sg.bots.GreedyBot)  # type: ignore[arg-type]
    assert "my bot" not in sg.bots.available()


@pytest.mark.parametrize("spec", ["greedy", "pimc:worlds=2", "ismcts:iterations=10"])
def test_a_bot_asked_out_of_turn_says_so(spec: str) -> None:
    game = sg.Game.new(seed=1)
    waiting = game.observation((game.to_move or 0) + 1)
    with pytest.raises(sg.ArgumentError, match="seat 1 is asked to move, but seat 0 is to move"):
        sg.bots.make(spec).choose(waiting)


def test_a_finished_game_has_no_world_to_sample() -> None:
    game = sg.Game.new(seed=2)
    while game.result is None:
        game.play(game.legal_moves[0])
    with pytest.raises(sg.SkitgubbeError, match="game is over"):
        game.observation(0).sample_world(1)
    with pytest.raises(sg.SkitgubbeError, match="rng must be"):
        sg.Game.new(seed=2).observation(0).sample_world("seven")  # type: ignore[arg-type]
