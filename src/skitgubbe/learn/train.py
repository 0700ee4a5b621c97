"""Training the network by self-play: ``skitgubbe train`` (expert iteration).

Each generation plays self-play games in which every decision is searched by
ISMCTS — plain ISMCTS with rollouts in generation 0, ISMCTS guided by the
previous generation's network (PUCT prior and leaf value) after that — and
trains the network, in PyTorch on the CPU, to predict the search's visit shares
(the policy) and the games' outcomes (the value), on the samples of the last
few generations. The search makes the network's moves better than its own; the
network makes the next search better than the last.

Everything a run makes goes to one folder: the samples of each generation
(``gen-N/part-*.npz``), each generation's PyTorch state (``model-N.pt``) and
weight file (``net-N.sgnet``), ``state.json`` (what is done, and each
generation's measures), ``log.csv`` and ``curve.png`` (the learning curve: the
network's loss share against two ``greedy`` bots, measured with the arena on
duplicate deals after each generation). Run the same command again and it goes
on where it stopped: a part, a model or a generation already written is not
made again.

PyTorch is an optional dependency: ``pip install 'skitgubbe[train]'``.

>>> config = TrainConfig(generations=1, games=4, iterations=30, epochs=1, eval_deals=2)
>>> config.parts
1
"""

from __future__ import annotations

import csv
import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any, Final

import attrs

from .._progress import ProgressBar
from ..errors import ArgumentError, SkitgubbeError
from ..game.rules import Rules
from ..game.tensors import import_numpy
from .selfplay import Samples, play_games
from .weights import encode

__all__ = ["TrainConfig", "import_torch", "train"]

GAMES_PER_PART: Final = 24
"""Self-play games per task (one ``part-*.npz`` file): the unit of work and of resuming."""

DEFAULT_MIX: Final = (
    "classic:3", "classic:4", "classic:3", "modern:3",
    "classic:2", "classic:3", "modern:4", "modern:2",
)  # fmt: skip
"""The rules of the self-play games, in turn (``preset:players``): three players classic,
the rules the bots are judged on most, are three games in eight."""


def import_torch() -> Any:
    """PyTorch, or a clear error naming the extra that installs it.

    >>> import_torch().__name__  # doctest: +SKIP
    'torch'
    """
    try:
        import torch
    except ImportError as exc:
        raise SkitgubbeError(
            "training needs PyTorch: pip install 'skitgubbe[train]' (the CPU build is enough)"
        ) from exc
    return torch


def _rules(name: str) -> Rules:
    preset, _, players = name.partition(":")
    try:
        return Rules.preset(preset, int(players or 3))
    except ValueError:
        raise ArgumentError(f"a training rules entry is PRESET:PLAYERS, not {name!r}") from None


@attrs.frozen
class TrainConfig:
    """The settings of a training run (kept in its ``state.json``; a resumed run keeps them).

    ``games`` self-play games per generation, searched with ``iterations`` ISMCTS
    iterations per decision in generation 0 and ``net_iterations`` (guided by the
    network) after; ``window`` generations of samples are trained on for
    ``epochs`` epochs; ``eval_deals`` duplicate deals (six games each with three
    players) measure the network against two greedy bots after each generation.

    >>> TrainConfig(games=100).parts, TrainConfig().rules[0]
    (5, 'classic:3')
    """

    generations: int = 4
    games: int = 2880
    iterations: int = 1000
    net_iterations: int = 600
    epochs: int = 6
    window: int = 3
    batch: int = 512
    learning_rate: float = 1e-3
    hidden1: int = 256
    hidden2: int = 128
    action: int = 64
    world1: int = 256
    world2: int = 64
    rules: tuple[str, ...] = DEFAULT_MIX
    eval_deals: int = 100
    seed: int = 1
    jobs: int = 2

    @property
    def parts(self) -> int:
        """Self-play tasks per generation."""
        return max(1, -(-self.games // GAMES_PER_PART))


def _play_part(task: tuple[str, int, TrainConfig, str | None]) -> int:
    """Play one part of a generation (a worker's task); returns its sample count."""
    path, number, config, weights = task
    if os.path.exists(path):
        return -1
    from ..bots.net import Network

    network = None if weights is None else Network.from_file(weights)
    data = play_games(
        [_rules(name) for name in config.rules],
        games=min(GAMES_PER_PART, config.games),
        seed=config.seed * 1_000_000 + number * GAMES_PER_PART,
        iterations=config.iterations if network is None else config.net_iterations,
        network=network,
    )
    data.save(path + ".partial.npz")
    os.replace(path + ".partial.npz", path)
    return data.size


def _self_play(folder: str, generation: int, config: TrainConfig, show: bool) -> None:
    """Make every missing part of ``generation``'s samples."""
    data_dir = os.path.join(folder, f"gen-{generation}")
    os.makedirs(data_dir, exist_ok=True)
    weights = None if generation == 0 else os.path.join(folder, f"net-{generation - 1}.sgnet")
    first = generation * config.parts
    tasks = [
        (os.path.join(data_dir, f"part-{i:04d}.npz"), first + i, config, weights)
        for i in range(config.parts)
    ]
    progress = ProgressBar(f"generation {generation}: self-play", enabled=show)
    samples = 0
    if config.jobs <= 1:
        results: Any = map(_play_part, tasks)
        for done, size in enumerate(results, 1):
            samples += max(size, 0)
            progress(done, len(tasks), f"{samples} new samples")
        return
    with ProcessPoolExecutor(config.jobs) as pool:
        for done, size in enumerate(pool.map(_play_part, tasks), 1):
            samples += max(size, 0)
            progress(done, len(tasks), f"{samples} new samples")


def _load_window(folder: str, generation: int, config: TrainConfig) -> Samples:
    parts = []
    for g in range(max(0, generation - config.window + 1), generation + 1):
        data_dir = os.path.join(folder, f"gen-{g}")
        for name in sorted(os.listdir(data_dir)):
            if name.startswith("part-") and name.endswith(".npz") and "partial" not in name:
                parts.append(Samples.load(os.path.join(data_dir, name)))
    return Samples.join(parts)


def _model(config: TrainConfig) -> Any:
    """The PyTorch module that computes what ``src/_core/net.c`` computes."""
    torch = import_torch()
    nn = torch.nn
    from ..game.tensors import TENSOR_SIZE
    from .weights import WORLD_SIZE

    class PolicyValueNet(nn.Module):  # type: ignore[misc,name-defined]
        def __init__(self) -> None:
            super().__init__()
            self.l1 = nn.Linear(TENSOR_SIZE, config.hidden1)
            self.l2 = nn.Linear(config.hidden1, config.hidden2)
            self.value = nn.Linear(config.hidden2, 4)
            self.policy = nn.Linear(config.hidden2, config.action)
            self.cards = nn.Parameter(torch.randn(52, config.action) * 0.1)
            self.kinds = nn.Parameter(torch.zeros(5, config.action))
            self.count = nn.Parameter(torch.zeros(config.action))
            self.out = nn.Parameter(torch.randn(config.action) * config.action**-0.5)
            self.world = nn.Sequential(
                nn.Linear(WORLD_SIZE, config.world1), nn.ReLU(),
                nn.Linear(config.world1, config.world2), nn.ReLU(),
                nn.Linear(config.world2, 4),
            )  # fmt: skip

        def trunk(self, x: Any) -> Any:
            return torch.relu(self.l2(torch.relu(self.l1(x))))

        def value_of(self, x: Any) -> Any:
            return self.value(self.trunk(x))

        def forward(self, x: Any, cards: Any, kinds: Any) -> tuple[Any, Any]:
            h = self.trunk(x)
            base = self.policy(h)[:, None, :]
            z = base + cards @ self.cards + self.kinds[kinds]
            z = z + cards.sum(-1, keepdim=True) / 13.0 * self.count
            return torch.relu(z) @ self.out, self.value(h)

    return PolicyValueNet()


def _arrays(model: Any) -> dict[str, Any]:
    """The weight arrays of ``model`` in the layout of :mod:`skitgubbe.learn.weights`."""

    def numpy_of(tensor: Any) -> Any:
        return tensor.detach().cpu().numpy()

    return {
        "w1": numpy_of(model.l1.weight.T), "b1": numpy_of(model.l1.bias),
        "w2": numpy_of(model.l2.weight.T), "b2": numpy_of(model.l2.bias),
        "wv": numpy_of(model.value.weight.T), "bv": numpy_of(model.value.bias),
        "wp": numpy_of(model.policy.weight.T), "bp": numpy_of(model.policy.bias),
        "wc": numpy_of(model.cards), "wk": numpy_of(model.kinds),
        "wn": numpy_of(model.count), "vp": numpy_of(model.out),
        "u1": numpy_of(model.world[0].weight.T), "c1": numpy_of(model.world[0].bias),
        "u2": numpy_of(model.world[2].weight.T), "c2": numpy_of(model.world[2].bias),
        "uv": numpy_of(model.world[4].weight.T), "cv": numpy_of(model.world[4].bias),
    }  # fmt: skip


def _move_inputs(codes: Any) -> tuple[Any, Any]:
    """(card one-hots, float32 [n, 52] by suit * 13 + rank index; kinds, int64) of move codes."""
    numpy = import_numpy()
    bits = numpy.array([16 * suit + rank for suit in range(4) for rank in range(13)], numpy.uint64)
    cards = ((codes[:, None] >> bits[None, :]) & numpy.uint64(1)).astype(numpy.float32)
    kinds = (codes >> numpy.uint64(61)).astype(numpy.int64)
    return cards, numpy.minimum(kinds, 4)


class _Outcomes:
    """Fresh value samples for every training step: games played in C by the built-in
    mixed policy (greedy, a random move one time in four: the rollouts' policy), a few
    positions of each (``sg_outcome_samples``). Never the same game twice, so the value
    cannot learn games by heart."""

    PER_GAME: Final = 4

    def __init__(self, config: TrainConfig, seed: int) -> None:
        numpy = import_numpy()
        from .weights import WORLD_SIZE

        self.rules = [_rules(name)._core_values() for name in config.rules]
        self.games = max(1, config.batch // self.PER_GAME)
        rows = self.games * self.PER_GAME
        self.features = numpy.zeros(rows * WORLD_SIZE, dtype=numpy.float32)
        self.values = numpy.zeros(rows * 4, dtype=numpy.float32)
        self.masks = numpy.zeros(rows * 4, dtype=numpy.float32)
        self.seed = seed
        self.batches = 0

    def batch(self) -> tuple[Any, Any, Any]:
        """(world value inputs, values, masks) of the next batch, as numpy arrays."""
        from .. import _core
        from .weights import WORLD_SIZE

        rules = self.rules[self.batches % len(self.rules)]
        written = _core.outcome_samples(
            rules, self.seed, self.batches * self.games, self.games, self.PER_GAME,
            _MIXED_POLICY, self.features, self.values, self.masks,
        )  # fmt: skip
        self.batches += 1
        return (
            self.features[: written * WORLD_SIZE].reshape(written, WORLD_SIZE),
            self.values[: written * 4].reshape(written, 4),
            self.masks[: written * 4].reshape(written, 4),
        )


_MIXED_POLICY: Final = 2  # SG_POLICY_MIXED


def _fit(model: Any, data: Samples, config: TrainConfig, seed: int, show: bool) -> dict[str, float]:
    """Train ``model`` for ``config.epochs`` epochs of ``data``: the policy on the search's
    visit shares; the seat's value and the world value, at every step, on a batch of fresh
    outcomes (:class:`_Outcomes`); returns the last epoch's mean losses."""
    from ..game.tensors import TENSOR_SIZE

    torch = import_torch()
    numpy = import_numpy()
    generator = numpy.random.default_rng(seed)
    torch.manual_seed(seed)
    outcomes = _Outcomes(config, seed)
    cards, kinds = _move_inputs(data.move_codes)
    counts = numpy.diff(data.move_start)
    optimizer = torch.optim.AdamW(model.parameters(), lr=config.learning_rate, weight_decay=1e-4)
    steps_per_epoch = max(1, data.size // config.batch)
    schedule = torch.optim.lr_scheduler.OneCycleLR(
        optimizer, max_lr=config.learning_rate, total_steps=config.epochs * steps_per_epoch
    )
    progress = ProgressBar("training", enabled=show)
    losses = {"policy_loss": 0.0, "value_loss": 0.0, "world_value_loss": 0.0}
    bce = torch.nn.functional.binary_cross_entropy_with_logits

    def masked(logits: Any, values: Any, masks: Any) -> Any:
        return (bce(logits, values, reduction="none") * masks).sum() / masks.sum().clamp(min=1.0)

    for epoch in range(config.epochs):
        order = generator.permutation(data.size)
        sums = [0.0, 0.0, 0.0]
        for step in range(steps_per_epoch):
            rows = order[step * config.batch : (step + 1) * config.batch]
            width = int(counts[rows].max())
            slots = numpy.arange(width)[None, :]
            valid = slots < counts[rows][:, None]
            index = numpy.where(valid, data.move_start[rows][:, None] + slots, 0)
            x = torch.from_numpy(data.features[rows].astype(numpy.float32))
            logits, _ = model(x, torch.from_numpy(cards[index]), torch.from_numpy(kinds[index]))
            mask = torch.from_numpy(valid)
            logits = logits.masked_fill(~mask, -1e9)
            target = torch.from_numpy(numpy.where(valid, data.policy[index], 0.0))
            policy_loss = -(target * torch.log_softmax(logits, dim=1)).sum(1).mean()
            features, values, masks = (torch.from_numpy(a) for a in outcomes.batch())
            value_loss = masked(model.value_of(features[:, :TENSOR_SIZE]), values, masks)
            world_loss = masked(model.world(features), values, masks)
            loss = policy_loss + value_loss + world_loss
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            schedule.step()
            sums[0] += policy_loss.item()
            sums[1] += value_loss.item()
            sums[2] += world_loss.item()
            progress(
                epoch * steps_per_epoch + step + 1,
                config.epochs * steps_per_epoch,
                f"epoch {epoch + 1}",
            )
        losses = {
            "policy_loss": sums[0] / steps_per_epoch,
            "value_loss": sums[1] / steps_per_epoch,
            "world_value_loss": sums[2] / steps_per_epoch,
        }
    return losses


def _evaluate(weights: str, config: TrainConfig, show: bool) -> dict[str, float]:
    """The network's loss share against two greedy bots, three players classic."""
    from ..arena.match import run_match

    spec = f"net:weights={weights}"
    result = run_match(
        [spec, "greedy", "greedy"],
        Rules.classic(3),
        deals=config.eval_deals,
        seed=config.seed + 7_777,
        jobs=config.jobs,
        progress=show,
    )
    stats = result.entrant(spec)
    return {
        "net_vs_greedy_loss_share": round(stats.loss_rate, 4),
        "net_vs_greedy_low": round(stats.low, 4),
        "net_vs_greedy_high": round(stats.high, 4),
        "eval_games": stats.games,
    }


def _plot(folder: str, history: Sequence[dict[str, Any]]) -> None:
    """``curve.png``: the loss share against greedy by generation (needs matplotlib)."""
    try:
        from ..arena.results import plot_figure

        figure, axes = plot_figure((6.0, 3.5))
    except SkitgubbeError:
        return
    generations = [h["generation"] for h in history]
    axes.plot(generations, [h["net_vs_greedy_loss_share"] for h in history], marker="o",
              label="net vs two greedy")  # fmt: skip
    axes.axhline(1 / 3, color="grey", linestyle="--", label="fair share")
    axes.set_xlabel("generation")
    axes.set_ylabel("loss share")
    axes.legend()
    figure.savefig(os.path.join(folder, "curve.png"), format="png")


def _write_log(folder: str, history: Sequence[dict[str, Any]]) -> None:
    if not history:
        return
    with open(os.path.join(folder, "log.csv"), "w", newline="") as file:
        writer = csv.DictWriter(file, fieldnames=list(history[0]))
        writer.writeheader()
        writer.writerows(history)


def train(
    folder: str,
    config: TrainConfig | None = None,
    *,
    progress: bool = True,
    log: Callable[[str], None] | None = None,
) -> list[dict[str, Any]]:
    """Run (or resume) the training run in ``folder``; returns each generation's measures.

    A folder that holds a run keeps the settings it started with (a different
    ``config`` raises :class:`~skitgubbe.errors.ArgumentError`, so that resuming
    never mixes two runs).

    >>> history = train("runs/example", TrainConfig(generations=1))  # doctest: +SKIP
    >>> history[-1]["net_vs_greedy_loss_share"]  # doctest: +SKIP
    0.2633
    """
    torch = import_torch()
    say = log or (lambda text: print(text, file=sys.stderr, flush=True))
    os.makedirs(folder, exist_ok=True)
    state_path = os.path.join(folder, "state.json")
    if os.path.exists(state_path):
        with open(state_path) as file:
            state = json.load(file)
        saved = TrainConfig(**{**state["config"], "rules": tuple(state["config"]["rules"])})
        if config is not None and config != saved:
            raise ArgumentError(
                f"{folder} holds a run with other settings ({saved}); resume it without "
                "settings, or start a new run in another folder"
            )
        config = saved
    else:
        config = config or TrainConfig()
        state = {"config": attrs.asdict(config), "history": []}
    history: list[dict[str, Any]] = state["history"]
    model = _model(config)
    for generation in range(config.generations):
        model_path = os.path.join(folder, f"model-{generation}.pt")
        weights = os.path.join(folder, f"net-{generation}.sgnet")
        if any(h["generation"] == generation for h in history):
            model.load_state_dict(torch.load(model_path))
            continue
        started = time.monotonic()
        _self_play(folder, generation, config, progress)
        played = time.monotonic() - started
        if not os.path.exists(model_path):
            data = _load_window(folder, generation, config)
            say(f"generation {generation}: training on {data.size} samples")
            losses = _fit(model, data, config, config.seed + generation, progress)
            with open(weights + ".partial", "wb") as file:
                file.write(encode(_arrays(model)))
            os.replace(weights + ".partial", weights)
            torch.save(model.state_dict(), model_path + ".partial")
            os.replace(model_path + ".partial", model_path)
        else:
            model.load_state_dict(torch.load(model_path))
            losses = {
                "policy_loss": float("nan"),
                "value_loss": float("nan"),
                "world_value_loss": float("nan"),
            }
        trained = time.monotonic() - started - played
        measures = _evaluate(weights, config, progress)
        entry = {
            "generation": generation,
            **losses,
            **measures,
            "self_play_seconds": round(played, 1),
            "training_seconds": round(trained, 1),
        }
        history.append(entry)
        say(f"generation {generation}: {entry}")
        with open(state_path + ".partial", "w") as file:
            json.dump(state, file, indent=2)
        os.replace(state_path + ".partial", state_path)
        _write_log(folder, history)
        _plot(folder, history)
    return history
