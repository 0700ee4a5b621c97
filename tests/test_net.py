"""The learned network in C (src/_core/net.c): its weight files, its forward pass
against a numpy reference, what it reads, and the bots and searches that use it."""

from __future__ import annotations

import random
import struct

import pytest
from positions import swapped_twin

import skitgubbe as sg
from skitgubbe import _core
from skitgubbe.bots.net import NetBot, Network, covers, default_network
from skitgubbe.errors import ArgumentError, RecordError
from skitgubbe.learn.weights import encode, random_weights

numpy = pytest.importorskip("numpy")

SMALL = {"hidden1": 24, "hidden2": 16, "action": 8, "world1": 12, "world2": 6}


def small_weights(seed: int = 1) -> tuple[dict[str, object], bytes]:
    arrays = random_weights(seed=seed, **SMALL)
    return arrays, encode(arrays)


def reference(
    arrays: dict[str, object], observation: sg.Observation
) -> tuple[list[float], list[float]]:
    """What net.c computes, in numpy: the legal moves' logits and each seat's value."""
    a = {k: numpy.asarray(v, dtype=numpy.float64) for k, v in arrays.items()}
    x = numpy.zeros(_core.TENSOR_SIZE, dtype=numpy.float32)
    _core.observation_tensor(observation.core_view, observation.seat, 0, (), x)
    h1 = numpy.maximum(x @ a["w1"] + a["b1"], 0)
    h2 = numpy.maximum(h1 @ a["w2"] + a["b2"], 0)
    z = h2 @ a["wv"] + a["bv"]
    players = len(observation.hand_sizes)
    values = [0.0] * players
    for r in range(players):
        values[(observation.seat + r) % players] = 1 / (1 + numpy.exp(-z[r]))
    for seat in observation.finished:
        values[seat] = 1.0
    base = h2 @ a["wp"] + a["bp"]
    logits = []
    for move in observation.legal_moves:
        code = move.code
        cards = [i for i in range(64) if code >> i & 1 and i < 61]
        count = len(cards) / 13
        act = base + a["wk"][min(code >> 61, 4)] + count * a["wn"]
        for bit in cards:
            act = act + a["wc"][(bit >> 4) * 13 + (bit & 15)]
        logits.append(float(numpy.maximum(act, 0) @ a["vp"]))
    return logits, values


def positions(count: int, seed: int) -> list[sg.Observation]:
    """Views of the player to move from random games of every preset and player count."""
    rng = random.Random(seed)
    out = []
    for index in range(count):
        rules = sg.Rules.preset(rng.choice(["classic", "modern"]), rng.choice([2, 3, 4]))
        game = sg.Game.new(rules, seed=seed * 1000 + index)
        for _ in range(rng.randrange(0, 120)):
            if game.result is not None:
                break
            game.play(rng.choice(game.legal_moves))
        if game.result is None:
            out.append(game.observation(game.to_move))
    return out


def test_the_c_forward_pass_is_the_reference_one() -> None:
    arrays, data = small_weights()
    network = Network(data)
    checked = 0
    for view in positions(40, seed=3):
        logits, values = network.core.run(view.core_view)
        want_logits, want_values = reference(arrays, view)
        assert [code for code, _ in logits] == [m.code for m in view.legal_moves]
        assert numpy.allclose([v for _, v in logits], want_logits, rtol=1e-4, atol=1e-4)
        assert numpy.allclose(values, want_values, rtol=1e-5, atol=1e-5)
        checked += 1
    assert checked > 25


def test_evaluate_gives_probabilities_and_values() -> None:
    view = positions(1, seed=5)[0]
    probs, values = default_network().evaluate(view)
    assert set(probs) == set(view.legal_moves)
    assert abs(sum(probs.values()) - 1) < 1e-9
    assert all(0 <= v <= 1 for v in values) and len(values) == len(view.hand_sizes)


def corrupt(data: bytes, offset: int, value: bytes) -> bytes:
    return data[:offset] + value + data[offset + len(value) :]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d[:-4], "its size is not what its header says"),
        (lambda d: d + b"\0\0\0\0", "its size is not what its header says"),
        (lambda d: d[:20], "its size is not what its header says"),
        (lambda d: corrupt(d, 0, b"XGNET"), "not a skitgubbe weight file"),
        (lambda d: corrupt(d, 7, b"\x09"), "another format"),
        (lambda d: corrupt(d, 8, struct.pack("<I", 1000)), "another version of the core"),
        (lambda d: corrupt(d, 12, struct.pack("<I", 5000)), "layer sizes are out of range"),
        (lambda d: corrupt(d, 60, b"\x01"), "checksum does not match"),
    ],
)
def test_a_bad_weight_file_names_what_is_wrong(change: object, message: str) -> None:
    _, data = small_weights()
    with pytest.raises(RecordError, match=message):
        Network(change(data), name="bad.sgnet")  # type: ignore[operator]


def test_a_weight_that_is_not_finite_is_refused_even_with_a_good_checksum() -> None:
    arrays, _ = small_weights()
    arrays["b2"] = numpy.array(arrays["b2"])
    arrays["b2"][3] = numpy.nan
    with pytest.raises(RecordError, match="not a finite number"):
        Network(encode(arrays))


def test_the_shipped_weights_load_and_are_versioned() -> None:
    network = default_network()
    assert network.shape[0] == _core.TENSOR_SIZE
    assert network.name.startswith("skitgubbe-net-") and network.name.endswith(".sgnet")
    assert len(network.sha256) == 64


def test_the_net_reads_only_what_the_seat_knows() -> None:
    """Two deals the mover cannot tell apart give the same logits, values and moves."""
    checked = 0
    for index in range(30):
        rng = random.Random(index)
        rules = sg.Rules.classic(3)
        deck = list(_core.deck_from_seed(700 + index))
        game = sg.Game.new(rules, deck=[sg.Card.from_code(c) for c in deck])
        moves = []
        for _ in range(rng.randrange(1, 40)):
            if game.result is not None:
                break
            moves.append(rng.choice(game.legal_moves))
            game.play(moves[-1])
        if game.result is not None:
            continue
        view = game.observation(game.to_move)
        unknown = sorted(card.code for card in view.unknown)
        if len(unknown) < 2:
            continue
        twin = swapped_twin(rules, deck, unknown, rng)
        for move in moves:
            twin.play(move)
        if twin.observation(game.to_move) != view:
            continue  # the swap showed (a slough window): not a pair the seat cannot tell apart
        other = twin.observation(game.to_move)
        assert default_network().core.run(other.core_view) == default_network().core.run(
            view.core_view
        )
        assert NetBot().choose(other) == NetBot().choose(view)
        search = sg.bots.ISMCTSBot(iterations=60, net=True, seed=4)
        again = sg.bots.ISMCTSBot(iterations=60, net=True, seed=4)
        assert search.visits(other) == again.visits(view)
        checked += 1
    assert checked > 10


def test_net_searches_are_reproducible_and_legal() -> None:
    view = positions(3, seed=9)[-1]
    for make in (
        lambda: sg.bots.ISMCTSBot(iterations=150, net=True, seed=2),
        lambda: sg.bots.ISMCTSBot(iterations=150, net=True, leaf="rollout", seed=2),
        lambda: sg.bots.ISMCTSBot(iterations=150, rollout="net", seed=2),
        lambda: sg.bots.PIMCBot(worlds=6, rollouts=1, net=True, seed=2),
        lambda: sg.bots.PIMCBot(worlds=6, rollouts=1, rollout="net", seed=2),
    ):
        first, second = make(), make()
        move = first.choose(view)
        assert move in view.legal_moves
        assert second.choose(view) == move


def test_the_prior_changes_the_search() -> None:
    changed = 0
    for view in positions(3, seed=9):
        plain = sg.bots.ISMCTSBot(iterations=300, seed=2).visits(view)
        guided = sg.bots.ISMCTSBot(iterations=300, net=True, seed=2).visits(view)
        assert set(plain) == set(guided) and sum(guided.values()) <= 300
        changed += plain != guided
    # In a position of two moves the visits may come out the same (they did, with
    # equivalent moves merged, in one): the prior must change them somewhere.
    assert changed >= 1


def test_a_user_evaluation_and_the_network_prior_combine() -> None:
    view = positions(3, seed=9)[-1]
    calls = []

    def evaluation(position: object) -> list[float]:
        calls.append(1)
        return [0.5] * len(view.hand_sizes)

    bot = sg.bots.ISMCTSBot(iterations=40, net=True, evaluation=evaluation, seed=1)
    assert bot.choose(view) in view.legal_moves
    assert calls  # the leaves were scored by the user's evaluation, not the network


def test_bad_network_options_are_refused_at_once() -> None:
    with pytest.raises(ArgumentError, match="leaf must be one of net, rollout"):
        sg.bots.ISMCTSBot(net=True, leaf="value")
    with pytest.raises(sg.errors.ArgumentTypeError, match="net must be true, false"):
        sg.bots.ISMCTSBot(net=3)  # type: ignore[arg-type]
    with pytest.raises(RecordError, match=r"^no-such-file\.sgnet: cannot read the weight file"):
        sg.bots.ISMCTSBot(net="no-such-file.sgnet")
    with pytest.raises(ArgumentError, match="temperature must be"):
        NetBot(temperature=float("nan"))


def test_net_bot_by_spec_and_temperature() -> None:
    view = positions(2, seed=11)[-1]
    bot = sg.bots.make("net", seed=1)
    assert (
        bot.choose(view)
        == max(default_network().evaluate(view)[0].items(), key=lambda pair: pair[1])[0]
    )
    drawn = {sg.bots.make("net:temperature=5", seed=s).choose(view) for s in range(40)}
    assert len(drawn) > 1 or len(view.legal_moves) == 1


def test_the_shipped_network_covers_the_presets() -> None:
    for players in (2, 3, 4):
        assert covers(sg.Rules.classic(players)) and covers(sg.Rules.modern(players))
    assert not covers(sg.Rules.classic(3, max_moves=500))


def test_outcome_samples_are_the_movers_tensors_and_how_the_game_ended() -> None:
    rules = sg.Rules.classic(3)
    games, per_game = 30, 4
    features = numpy.zeros(games * per_game * _core.WORLD_SIZE, numpy.float32)
    values = numpy.zeros(games * per_game * 4, numpy.float32)
    masks = numpy.zeros(games * per_game * 4, numpy.float32)
    args = (rules._core_values(), 9, 0, games, per_game, 2)
    written = _core.outcome_samples(*args, features, values, masks)
    assert games * 2 < written <= games * per_game
    values, masks = values.reshape(-1, 4)[:written], masks.reshape(-1, 4)[:written]
    # Three seats, one skitgubbe (or a game the cap ended: all masked).
    assert (masks[:, 3] == 0).all()
    played = masks[:, 0] == 1
    assert played.sum() > written * 0.9
    assert ((values[played, :3] == 0).sum(1) == 1).all()
    # The same seed gives the same rows; the tensors are views of a seat to move.
    again = numpy.zeros_like(features)
    _core.outcome_samples(*args, again, numpy.zeros(games * per_game * 4, numpy.float32),
                          numpy.zeros(games * per_game * 4, numpy.float32))  # fmt: skip
    assert (again == features).all()
    rows = features.reshape(-1, _core.WORLD_SIZE)[:written]
    assert (rows[:, :52].sum(1) >= 1).all()  # the mover holds cards
    # Every card is somewhere: what the mover sees, or a hidden plane.
    hidden = rows[:, _core.TENSOR_SIZE :].reshape(written, 5, 52)
    assert (hidden.sum(1) <= 1).all() and hidden.sum() > 0
    with pytest.raises(ValueError, match="per_game"):
        _core.outcome_samples(*args[:4], 0, 2, features, values.ravel(), masks.ravel())


def test_the_value_alone_guides_a_plain_search() -> None:
    view = positions(3, seed=9)[-1]
    bot = sg.bots.ISMCTSBot(iterations=200, net=True, prior=False, seed=2)
    assert bot._net_use == _core.NET_LEAF
    assert bot.choose(view) in view.legal_moves
    with pytest.raises(sg.errors.ArgumentTypeError, match="prior must be true or false"):
        sg.bots.ISMCTSBot(net=True, prior="yes")  # type: ignore[arg-type]


def world_reference(arrays: dict[str, object], game: sg.Game) -> list[float]:
    """The world value in numpy, from the game's whole state."""
    a = {k: numpy.asarray(v, dtype=numpy.float64) for k, v in arrays.items()}
    seat, players = game.to_move, game.players
    x = numpy.zeros(_core.WORLD_SIZE, dtype=numpy.float32)
    _core.observation_tensor(game.observation(seat).core_view, seat, 0, (), x[: _core.TENSOR_SIZE])
    view = game.observation(seat)
    hidden = x[_core.TENSOR_SIZE :].reshape(5, 52)

    def put(row: int, card: sg.Card) -> None:
        hidden[row, card.code // 16 * 13 + card.code % 16] = 1

    for r in range(1, players):
        other = (seat + r) % players
        for card in game.hands[other]:
            if card not in view.known[other]:
                put(r - 1, card)
    for card in game.stock:
        if card != view.upcard:
            put(3, card)
    if game.hidden_card is not None:
        put(4, game.hidden_card)
    g = numpy.maximum(x @ a["u1"] + a["c1"], 0)
    g = numpy.maximum(g @ a["u2"] + a["c2"], 0)
    z = g @ a["uv"] + a["cv"]
    values = [1.0] * players
    for r in range(players):
        values[(seat + r) % players] = 1 / (1 + numpy.exp(-z[r]))
    return values


def test_the_world_value_is_the_reference_one() -> None:
    arrays, data = small_weights(4)
    network = Network(data)
    rng = random.Random(2)
    checked = 0
    for index in range(30):
        rules = sg.Rules.preset(rng.choice(["classic", "modern"]), rng.choice([2, 3, 4]))
        game = sg.Game.new(rules, seed=50 + index)
        for _ in range(rng.randrange(0, 80)):
            if game.result is not None:
                break
            game.play(rng.choice(game.legal_moves))
        if game.result is not None or game.observation(game.to_move).finished:
            continue
        got = network.core.world_value(game._core)
        assert numpy.allclose(got, world_reference(arrays, game), atol=1e-5), index
        checked += 1
    assert checked > 15


def test_outcome_samples_can_average_rollouts_instead() -> None:
    rules = sg.Rules.classic(3)._core_values()
    rows = 10 * 2
    features = numpy.zeros(rows * _core.WORLD_SIZE, numpy.float32)
    values = numpy.zeros(rows * 4, numpy.float32)
    masks = numpy.zeros(rows * 4, numpy.float32)
    written = _core.outcome_samples(rules, 3, 0, 10, 2, 2, features, values, masks, rollouts=16)
    values = values.reshape(-1, 4)[:written]
    # Means of 16 rollouts: multiples of 1/16, and in three seats two escape on average.
    assert ((values * 16) % 1 == 0).all()
    assert (masks.reshape(-1, 4)[:written, :3] == 1).all()
    assert 1.5 < values[:, :3].sum(1).mean() < 2.5
    assert len({tuple(row) for row in values}) > 5  # not all 0/1: averages
    with pytest.raises(ValueError, match=r"rollouts 0 \.\. 1024"):
        _core.outcome_samples(rules, 3, 0, 10, 2, 2, features, values.ravel(), masks, rollouts=-1)
