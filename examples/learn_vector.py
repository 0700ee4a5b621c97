"""Learn to play skitgubbe on the vector environment, with numpy alone, on one core.

A linear softmax policy over the legal actions (one weight per chosen tensor
float and action: the hand, the table, the top play, the unknown cards, the cards
out of play, the slough being chosen and the scalars) is trained by REINFORCE
with a baseline, as seat 0 of three against two
random players, on many games stepped together in C (skitgubbe.learn.vector). The
learning curve goes to a PNG; the trained policy is then wrapped as a Player and
measured in the arena against RandomBots and against GreedyBots.

Run: python examples/learn_vector.py [--minutes 3] [--games 256] [--png curve.png]
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import attrs
import numpy

import skitgubbe as sg
from skitgubbe.game.actions import NUM_ACTIONS, SLOUGH_CARD, SLOUGH_DONE
from skitgubbe.game.tensors import LAYOUT
from skitgubbe.learn.vector import VectorEnv

# The tensor floats the policy reads.
FEATURES = numpy.concatenate(
    [
        numpy.arange(LAYOUT[name].start, LAYOUT[name].stop)
        for name in ("hand", "table", "top_play", "unknown", "out_of_play", "slough_chosen")
    ]
    + [numpy.arange(LAYOUT["phase"].start, LAYOUT["rules"].start)]
)


class LinearPolicy:
    """Logits ``features @ weights + bias``; illegal actions masked out."""

    def __init__(self, rng: numpy.random.Generator) -> None:
        self.weights = rng.normal(0.0, 0.01, (len(FEATURES), NUM_ACTIONS)).astype(numpy.float32)
        self.bias = numpy.zeros(NUM_ACTIONS, numpy.float32)

    def probabilities(self, features: Any, masks: Any) -> Any:
        logits = features @ self.weights + self.bias
        logits = numpy.where(masks, logits, -numpy.inf)
        logits -= logits.max(axis=1, keepdims=True)
        exp = numpy.exp(logits)
        return exp / exp.sum(axis=1, keepdims=True)


class PolicyPlayer:
    """The trained policy as a Player: it sees only its Observation, and picks the
    most likely legal action (a slough card by card, as in training)."""

    def __init__(self, policy: LinearPolicy) -> None:
        self.policy = policy

    def choose(self, view: sg.Observation) -> sg.Move:
        while True:
            mask = numpy.frombuffer(view.action_mask, numpy.uint8).astype(bool)
            features = view.tensor()[FEATURES]
            probs = self.policy.probabilities(features[None, :], mask[None, :])[0]
            action = int(numpy.argmax(probs))
            if action < SLOUGH_CARD:
                return sg.Move.from_action(action)
            if action == SLOUGH_DONE:
                return sg.Move(sg.MoveKind.SLOUGH, view.slough_chosen)
            card = sg.Card.from_index(action - SLOUGH_CARD)
            view = attrs.evolve(view, slough_chosen=view.slough_chosen | sg.CardSet(card.mask))


def train(minutes: float, games: int, seed: int, rate: float) -> tuple[LinearPolicy, list[float]]:
    """REINFORCE on `games` games at once for `minutes`; returns the policy and the
    mean reward of each update's finished games."""
    rng = numpy.random.default_rng(seed)
    policy = LinearPolicy(rng)
    env = VectorEnv(games, sg.Rules.classic(3), opponents="random", learners=(0,), seed=seed)
    obs, info = env.reset()
    masks = info["action_mask"]
    steps: list[list[tuple[Any, Any, int]]] = [[] for _ in range(games)]
    finished: list[tuple[list[tuple[Any, Any, int]], float]] = []
    curve: list[float] = []
    baseline = 0.0
    deadline = time.monotonic() + minutes * 60
    while time.monotonic() < deadline:
        features = obs[:, FEATURES]
        probs = policy.probabilities(features, masks)
        # One draw per game from its masked distribution.
        cumulative = probs.cumsum(axis=1)
        draws = rng.random((games, 1))
        actions = (cumulative < draws).sum(axis=1).clip(0, NUM_ACTIONS - 1).astype(numpy.int32)
        actions = numpy.where(masks[numpy.arange(games), actions], actions, probs.argmax(axis=1))
        for i in range(games):
            steps[i].append((features[i], probs[i], int(actions[i])))
        obs, rewards, terminated, truncated, info = env.step(actions)
        masks = info["action_mask"]
        for i in numpy.flatnonzero(terminated | truncated):
            finished.append((steps[i], float(rewards[i, 0])))
            steps[i] = []
        if len(finished) >= games:
            returns = numpy.array([r for _, r in finished], numpy.float32)
            curve.append(float(returns.mean()))
            baseline = 0.9 * baseline + 0.1 * float(returns.mean())
            xs, grads = [], []
            for trajectory, ret in finished:
                for x, p, a in trajectory:
                    g = -p
                    g[a] += 1.0
                    xs.append(x)
                    grads.append(g * (ret - baseline))
            x_all, g_all = numpy.array(xs), numpy.array(grads)
            policy.weights += rate * (x_all.T @ g_all) / len(finished)
            policy.bias += rate * g_all.sum(axis=0) / len(finished)
            finished = []
    return policy, curve


def plot(curve: list[float], path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(7, 4))
    axes.plot(range(1, len(curve) + 1), curve, label="mean reward per update")
    if len(curve) >= 10:
        smooth = numpy.convolve(curve, numpy.ones(10) / 10, mode="valid")
        axes.plot(range(10, len(curve) + 1), smooth, label="10-update mean")
    axes.axhline(0.0, color="grey", linewidth=0.5)
    axes.set_xlabel("update")
    axes.set_ylabel("reward (seat 0 vs 2 random players)")
    axes.set_title("REINFORCE, linear policy, skitgubbe classic 3p")
    axes.legend()
    figure.tight_layout()
    figure.savefig(path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=3.0, help="training time")
    parser.add_argument("--games", type=int, default=256, help="games stepped together")
    parser.add_argument("--rate", type=float, default=0.01, help="learning rate")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--png", default="learning_curve.png", help="where the curve goes")
    parser.add_argument("--deals", type=int, default=200, help="arena deal sets per opponent")
    args = parser.parse_args()

    started = time.monotonic()
    policy, curve = train(args.minutes, args.games, args.seed, args.rate)
    print(f"trained {len(curve)} updates in {time.monotonic() - started:.0f} s")
    if curve:
        first, last = curve[: max(1, len(curve) // 10)], curve[-max(1, len(curve) // 10) :]
        print(
            f"mean reward: first tenth {numpy.mean(first):+.3f}, last tenth {numpy.mean(last):+.3f}"
        )
    plot(curve, args.png)
    print(f"learning curve: {args.png}")

    sg.bots.register("learned", lambda seed=None: PolicyPlayer(policy))
    for opponent in ("random", "greedy"):
        result = sg.run_match(["learned", opponent, opponent], deals=args.deals, seed=args.seed)
        stats = result.entrant("learned")
        print(
            f"vs {opponent}: skitgubbe in {stats.losses} of {stats.games} games "
            f"({stats.losses / stats.games:.1%}; an equal player: {1 / 3:.1%})"
        )


if __name__ == "__main__":
    main()
