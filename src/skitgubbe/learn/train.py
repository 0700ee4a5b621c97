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
import io
import json
import math
import os
import sys
import time
import zipfile
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor
from types import MappingProxyType
from typing import Any, Final

import attrs

from .._files import check_regular, load_json_object, open_regular
from .._progress import ProgressBar
from .._text import brief
from ..errors import ArgumentError, ArgumentTypeError, RecordError, SkitgubbeError
from ..game.rules import Rules
from ..game.tensors import import_numpy
from .selfplay import Samples, play_games
from .weights import encode

__all__ = [
    "BOUNDS",
    "MAX_WIDTH",
    "MODEL_OVERHEAD",
    "STATE_MAX_SIZE",
    "TrainConfig",
    "check_setting",
    "import_torch",
    "train",
]

GAMES_PER_PART: Final = 24
"""Self-play games per task (one ``part-*.npz`` file): the unit of work and of resuming."""

DEFAULT_MIX: Final = (
    "classic:3", "classic:4", "classic:3", "modern:3",
    "classic:2", "classic:3", "modern:4", "modern:2",
)  # fmt: skip
"""The rules of the self-play games, in turn (``preset:players``): three players classic,
the rules the bots are judged on most, are three games in eight."""

MAX_WIDTH: Final = 1024
"""The widest layer a run may have (``hidden1``, ``hidden2``, ``action``, ``world1``,
``world2``): the C network's ``SG_NET_MAX_WIDTH`` (``src/_core/skitgubbe.h``), so that every
run's weight file loads. At that width the first layer is 1,359 × 1,024 floats (5.6 MB)."""

BOUNDS: Final[Mapping[str, tuple[float, float]]] = MappingProxyType({
    "generations": (1, 1_000),
    "games": (1, 1_000_000),  # per generation: 41,667 parts (one task each) at most
    "iterations": (1, 1_000_000),  # a search tree grows by about one node per iteration
    "net_iterations": (1, 1_000_000),
    "epochs": (1, 1_000),
    "window": (1, 1_000),
    "batch": (1, 16_384),  # a step's fresh value samples alone: batch × 1,619 floats (106 MB)
    "learning_rate": (0.0, 1.0),  # above 0, at most 1
    "hidden1": (1, MAX_WIDTH),
    "hidden2": (1, MAX_WIDTH),
    "action": (1, MAX_WIDTH),
    "world1": (1, MAX_WIDTH),
    "world2": (1, MAX_WIDTH),
    "rules": (1, 64),  # entries
    "eval_deals": (1, 10_000),
    "seed": (0, 2**32 - 1),  # game seeds are seed × 1,000,000 + game, within the C core's uint64
    "jobs": (1, 256),
})  # fmt: skip
"""The bounds of each :class:`TrainConfig` setting, inclusive (``learning_rate`` must be above
its lower bound; for ``rules`` they count entries). They keep a run's memory sane whatever a
``state.json`` or an option says: ``hidden1=10**7`` would want 54 GB for one layer."""

STATE_MAX_SIZE: Final = 1 << 21
"""The largest ``state.json`` read, in bytes (2 MB): a run's settings and the measures of
its 1,000 generations at most take a few hundred KB. A larger file is refused unread."""

MODEL_OVERHEAD: Final = 1 << 20
"""Bytes a ``model-N.pt`` may hold beyond its tensors' (the zip's and the pickle's), and
its entries unpack to: a larger file is refused before ``torch.load`` reads it."""

_HISTORY_KEYS: Final = (
    "generation", "policy_loss", "value_loss", "world_value_loss", "net_vs_greedy_loss_share",
    "net_vs_greedy_low", "net_vs_greedy_high", "eval_games", "self_play_seconds",
    "training_seconds",
)  # fmt: skip
"""The measures ``state.json`` keeps of each generation done, in order."""


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
    """The rules of a training rules entry, ``PRESET`` or ``PRESET:PLAYERS``."""
    preset, colon, players = name.partition(":")
    if preset in Rules.presets() and (not colon or players in ("2", "3", "4")):
        return Rules.preset(preset, int(players) if colon else 3)
    raise ArgumentError(
        f"a training rules entry is PRESET:PLAYERS ({' or '.join(Rules.presets())}, "
        f"2 to 4 players), not {brief(name)}"
    )


def check_setting(name: str, value: object, label: str | None = None) -> None:
    """Refuse ``value`` for the :class:`TrainConfig` setting ``name`` unless it is of the
    setting's type and within its :data:`BOUNDS`: an
    :class:`~skitgubbe.errors.ArgumentTypeError` or :class:`~skitgubbe.errors.ArgumentError`
    whose message names ``label`` (``name`` unless given: ``"--games"`` on the command line,
    ``"config.games"`` in a ``state.json``).

    >>> check_setting("games", 100)
    >>> check_setting("games", -5, "--games")
    Traceback (most recent call last):
        ...
    skitgubbe.errors.ArgumentError: --games must be an int from 1 to 1000000, not -5
    >>> check_setting("rules", ("classic:3", "bogus:9"))
    Traceback (most recent call last):
        ...
    skitgubbe.errors.ArgumentError: rules[1]: a training rules entry is PRESET:PLAYERS (classic or modern, 2 to 4 players), not 'bogus:9'
    """  # noqa: E501
    label = label or name
    if name not in BOUNDS:
        raise ArgumentError(f"{brief(label)} is not a training setting")
    low, high = BOUNDS[name]
    if name == "learning_rate":
        allowed = f"a number above {low} and at most {high}"
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ArgumentTypeError(f"{label} must be {allowed}, not {brief(value)}")
        if not low < value <= high:  # NaN is neither
            raise ArgumentError(f"{label} must be {allowed}, not {brief(value)}")
    elif name == "rules":
        allowed = f"a tuple of {low} to {high} PRESET:PLAYERS strings"
        if not isinstance(value, tuple) or not all(isinstance(item, str) for item in value):
            raise ArgumentTypeError(f"{label} must be {allowed}, not {brief(value)}")
        if not low <= len(value) <= high:
            raise ArgumentError(f"{label} must be {allowed}, not {len(value)} of them")
        for index, item in enumerate(value):
            try:
                _rules(item)
            except ArgumentError as exc:
                raise ArgumentError(f"{label}[{index}]: {exc}") from None
    else:
        allowed = f"an int from {low} to {high}"
        if type(value) is not int:
            raise ArgumentTypeError(f"{label} must be {allowed}, not {brief(value)}")
        if not low <= value <= high:
            raise ArgumentError(f"{label} must be {allowed}, not {brief(value)}")


@attrs.frozen
class TrainConfig:
    """The settings of a training run (kept in its ``state.json``; a resumed run keeps them).

    ``games`` self-play games per generation, searched with ``iterations`` ISMCTS
    iterations per decision in generation 0 and ``net_iterations`` (guided by the
    network) after; ``window`` generations of samples are trained on for
    ``epochs`` epochs; ``eval_deals`` duplicate deals (six games each with three
    players) measure the network against two greedy bots after each generation.

    Every setting is checked (:func:`check_setting`, :data:`BOUNDS`) as the config is made:

    >>> TrainConfig(games=100).parts, TrainConfig().rules[0]
    (5, 'classic:3')
    >>> TrainConfig(jobs=0)
    Traceback (most recent call last):
        ...
    skitgubbe.errors.ArgumentError: jobs must be an int from 1 to 256, not 0
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

    def __attrs_post_init__(self) -> None:
        for field in attrs.fields(TrainConfig):
            check_setting(field.name, getattr(self, field.name))

    @property
    def parts(self) -> int:
        """Self-play tasks per generation."""
        return max(1, -(-self.games // GAMES_PER_PART))


def _play_part(number: int, config: TrainConfig, weights: bytes | None) -> Samples:
    """Play self-play part ``number`` (a worker's task: a local process or a cluster's
    worker, which needs no file of the run: the weights come as bytes, the samples go
    back to the caller, which writes them)."""
    from ..bots.net import Network

    network = None if weights is None else Network(weights, name=f"the weights of part {number}")
    return play_games(
        [_rules(name) for name in config.rules],
        games=min(GAMES_PER_PART, config.games),
        seed=config.seed * 1_000_000 + number * GAMES_PER_PART,
        iterations=config.iterations if network is None else config.net_iterations,
        network=network,
    )


def _self_play(
    folder: str, generation: int, config: TrainConfig, show: bool, executor: Executor | None
) -> None:
    """Make every missing part of ``generation``'s samples: in this process (``jobs`` 1),
    in ``jobs`` worker processes, or on ``executor``; each part is written as it comes."""
    data_dir = os.path.join(folder, f"gen-{generation}")
    os.makedirs(data_dir, exist_ok=True)
    weights = None
    if generation > 0:  # checked when the run was resumed, or written by it: read as checked
        weights = _read_bytes(os.path.join(folder, f"net-{generation - 1}.sgnet"), "weight file",
                              _weights_size(config))  # fmt: skip
    first = generation * config.parts
    missing = [
        (path, first + i)
        for i in range(config.parts)
        if not os.path.exists(path := os.path.join(data_dir, f"part-{i:04d}.npz"))
    ]
    progress = ProgressBar(f"generation {generation}: self-play", enabled=show)
    samples = 0

    def keep(done: int, path: str, data: Samples) -> None:
        nonlocal samples
        buffer = io.BytesIO()
        data.save(buffer)
        _write_file(path, buffer.getvalue())
        samples += data.size
        progress(done, len(missing), f"{samples} new samples")

    numbers = [number for _, number in missing]
    if executor is None and config.jobs <= 1:
        for done, (path, number) in enumerate(missing, 1):
            keep(done, path, _play_part(number, config, weights))
        return
    pool = executor if executor is not None else ProcessPoolExecutor(config.jobs)
    try:
        results = pool.map(_play_part, numbers, [config] * len(numbers), [weights] * len(numbers))
        for done, ((path, _), data) in enumerate(zip(missing, results, strict=True), 1):
            keep(done, path, data)
    finally:
        if pool is not executor:
            pool.shutdown()


def _part_paths(folder: str, generation: int) -> list[str]:
    """The sample parts of ``generation`` in ``folder`` (none if its folder is not there)."""
    data_dir = os.path.join(folder, f"gen-{generation}")
    if not os.path.isdir(data_dir):
        return []
    return [
        os.path.join(data_dir, name)
        for name in sorted(os.listdir(data_dir))
        if name.startswith("part-") and name.endswith(".npz") and "partial" not in name
    ]


def _load_window(folder: str, generation: int, config: TrainConfig) -> Samples:
    parts: list[Samples] = []
    for g in range(max(0, generation - config.window + 1), generation + 1):
        limit = GAMES_PER_PART * _max_moves(config)
        parts.extend(Samples.load(path, max_size=limit) for path in _part_paths(folder, g))
    data = Samples.join(parts)
    if data.size == 0:
        raise RecordError(f"{os.path.join(folder, f'gen-{generation}')}: no samples to train on")
    return data


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
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png")
    _write_file(os.path.join(folder, "curve.png"), buffer.getvalue())


def _write_log(folder: str, history: Sequence[dict[str, Any]]) -> None:
    if not history:
        return
    text = io.StringIO(newline="")
    writer = csv.DictWriter(text, fieldnames=list(history[0]))
    writer.writeheader()
    writer.writerows(history)
    _write_file(os.path.join(folder, "log.csv"), text.getvalue().encode())


def _check_keys(path: str, where: str, data: Mapping[str, Any], known: Sequence[str]) -> None:
    """Refuse ``data`` (``where`` in the file ``path``) unless its keys are ``known``."""
    for key in known:
        if key not in data:
            raise RecordError(f"{path}: {where} lacks the key {key!r}")
    for key in data:
        if key not in known:
            raise RecordError(f"{path}: {where} holds an unknown key {brief(key)}")


def _check_number(path: str, where: str, value: object, low: float, high: float) -> None:
    """Refuse ``value`` unless it is an int or a float from ``low`` to ``high`` (a NaN
    passes only when both bounds are infinite: a loss that was not measured)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise RecordError(f"{path}: {where} must be a number, not {brief(value)}")
    if math.isnan(value) and math.isinf(low) and math.isinf(high):
        return
    if not low <= value <= high:
        raise RecordError(
            f"{path}: {where} must be a number from {low} to {high}, not {brief(value)}"
        )


def _read_state(path: str) -> tuple[TrainConfig, list[dict[str, Any]]]:
    """The settings and the generations done of the run whose ``state.json`` is ``path``,
    every key and value checked: a :class:`~skitgubbe.errors.RecordError` naming the file
    and the field otherwise."""
    state = load_json_object(path, "training run's state", max_size=STATE_MAX_SIZE)
    _check_keys(path, "the state", state, ("config", "history"))
    saved, history = state["config"], state["history"]
    if not isinstance(saved, dict):
        raise RecordError(f"{path}: config must be an object, not {type(saved).__name__}")
    _check_keys(path, "config", saved, [field.name for field in attrs.fields(TrainConfig)])
    settings: dict[str, Any] = {}
    for name, value in saved.items():
        value = tuple(value) if name == "rules" and isinstance(value, list) else value
        try:
            check_setting(name, value, f"config.{name}")
        except (ArgumentError, ArgumentTypeError) as exc:
            raise RecordError(f"{path}: {exc}") from None
        settings[name] = value
    config = TrainConfig(**settings)
    if not isinstance(history, list):
        raise RecordError(f"{path}: history must be a list, not {type(history).__name__}")
    if len(history) > config.generations:
        raise RecordError(
            f"{path}: history holds {len(history)} generations; the run has {config.generations}"
        )
    anything, share, count = (-math.inf, math.inf), (0.0, 1.0), (0, math.inf)
    bounds = {"generation": count, "eval_games": count, "self_play_seconds": count,
              "training_seconds": count, "policy_loss": anything, "value_loss": anything,
              "world_value_loss": anything, "net_vs_greedy_loss_share": share,
              "net_vs_greedy_low": share, "net_vs_greedy_high": share}  # fmt: skip
    for index, entry in enumerate(history):
        where = f"history[{index}]"
        if not isinstance(entry, dict):
            raise RecordError(f"{path}: {where} must be an object, not {type(entry).__name__}")
        _check_keys(path, where, entry, _HISTORY_KEYS)
        for key in _HISTORY_KEYS:
            _check_number(path, f"{where}.{key}", entry[key], *bounds[key])
        for key in ("generation", "eval_games"):
            if type(entry[key]) is not int:
                raise RecordError(f"{path}: {where}.{key} must be an int, not {brief(entry[key])}")
        if entry["generation"] != index:
            raise RecordError(
                f"{path}: {where}.generation must be {index} (the generations done, in "
                f"order), not {entry['generation']}"
            )
    return config, history


def _load_model(path: str, model: Any) -> Any:
    """The state dict in the ``model-N.pt`` file at ``path``, once it is checked to be one
    of ``model`` (the same tensors, of the same shapes): a
    :class:`~skitgubbe.errors.RecordError` naming the file (and the tensor) otherwise.

    Before ``torch.load`` reads it, the file is checked to be a regular file (a FIFO
    never waited on, a device never read) of at most the bytes of ``model``'s tensors
    and :data:`MODEL_OVERHEAD`, and so are the sizes its zip entries unpack to (a small
    file can hold a large tensor, deflated); it is loaded with ``weights_only=True``
    from the file that was checked."""
    torch = import_torch()
    expected = model.state_dict()
    limit = MODEL_OVERHEAD + sum(t.numel() * t.element_size() for t in expected.values())
    what = "PyTorch model file"
    try:
        file = open_regular(path, what, limit)
    except RecordError:
        raise
    except SkitgubbeError as exc:
        cause = exc.__cause__
        if isinstance(cause, FileNotFoundError):
            raise RecordError(f"{path} is missing") from None
        reason = cause.strerror if isinstance(cause, OSError) and cause.strerror else str(exc)
        raise RecordError(f"{path} cannot be read: {reason}") from None
    try:
        with file:
            try:
                with zipfile.ZipFile(file) as archive:
                    unpacked = sum(info.file_size for info in archive.infolist())
            except Exception:  # not a zip: torch.load says what it is (a legacy file, …)
                unpacked = 0
            if unpacked > limit:
                raise RecordError(
                    f"{path}: its entries unpack to {unpacked:,} bytes, more than any model "
                    f"of this run's settings (at most {limit:,})"
                )
            file.seek(0)
            loaded = torch.load(file, map_location="cpu", weights_only=True)
    except RecordError:
        raise
    except Exception as exc:  # whatever a damaged file makes torch.load raise
        lines = str(exc).strip().splitlines()
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else (
            lines[0] if lines else type(exc).__name__
        )  # fmt: skip
        reason = reason if len(reason) <= 80 else reason[:77] + "..."
        raise RecordError(f"{path} is not a PyTorch model file: {reason}") from None
    if not isinstance(loaded, Mapping):
        raise RecordError(f"{path} holds {type(loaded).__name__}, not a model's state dict")
    for key, tensor in expected.items():
        if key not in loaded:
            raise RecordError(f"{path} lacks the tensor {key!r}")
        found = loaded[key]
        shape = tuple(tensor.shape)
        if not (
            isinstance(found, torch.Tensor)
            and found.layout == torch.strided
            and found.dtype == tensor.dtype
            and tuple(found.shape) == shape
        ):
            what = (
                f"{found.dtype} of shape {tuple(found.shape)}"
                if isinstance(found, torch.Tensor)
                else type(found).__name__
            )
            raise RecordError(
                f"{path}: the tensor {key!r} is {what}, not {tensor.dtype} of shape {shape} "
                "(this run's settings)"
            )
    for key in loaded:
        if key not in expected:
            raise RecordError(f"{path} holds an unknown tensor {brief(key)}")
    return loaded


def _weights_size(config: TrainConfig) -> int:
    """The size in bytes of the weight file of a run of ``config``'s layer sizes."""
    from .weights import shapes

    layers = (config.hidden1, config.hidden2, config.action, config.world1, config.world2)
    return 48 + 4 * sum(math.prod(shape) for shape in shapes(*layers).values())


def _check_weights(path: str, config: TrainConfig) -> None:
    """Refuse the ``net-N.sgnet`` file at ``path`` unless it is a regular file that loads,
    with this run's layer sizes (its kind and size checked before it is read)."""
    from ..bots.net import Network

    layers = (config.hidden1, config.hidden2, config.action, config.world1, config.world2)
    size = _weights_size(config)
    try:
        info = os.stat(path)
    except OSError as exc:
        raise RecordError(f"{path} is missing" if isinstance(exc, FileNotFoundError) else
                          f"{path} cannot be read: {exc.strerror or exc}") from None  # fmt: skip
    check_regular(path, info, "weight file", None)
    found = info.st_size
    if found != size:  # checked before reading it: the file may be anything
        raise RecordError(f"{path} holds {found} bytes, not the {size} of this run's weights")
    try:
        network = Network.from_file(path)
    except OSError as exc:
        raise RecordError(f"{path} cannot be read: {exc.strerror or exc}") from None
    if network.shape[1:] != layers:
        raise RecordError(f"{path} has the layers {network.shape[1:]}, not this run's {layers}")


def _check_run(folder: str, config: TrainConfig, done: int, model: Any) -> Any:
    """Check every file of the run in ``folder`` that resuming it will read, before anything
    is made or written: the models and weights of the ``done`` generations (and those of a
    generation trained but not yet measured), and every sample part. Returns the state dict
    to go on from (``None`` for a new run)."""
    state_path = os.path.join(folder, "state.json")
    resume = None
    for generation in range(config.generations):
        model_path = os.path.join(folder, f"model-{generation}.pt")
        weights = os.path.join(folder, f"net-{generation}.sgnet")
        if generation < done:
            for path in (model_path, weights):
                if not os.path.lexists(path):
                    raise RecordError(
                        f"{path} is missing, but {state_path} records generation "
                        f"{generation} as done"
                    )
        if generation < done or os.path.lexists(model_path):
            loaded = _load_model(model_path, model)
            if generation < done:  # the last of them is where the run goes on from
                resume = loaded
            _check_weights(weights, config)
        data_dir = os.path.join(folder, f"gen-{generation}")
        if os.path.lexists(data_dir) and not os.path.isdir(data_dir):
            raise RecordError(f"{data_dir} is not a folder")
        for path in _part_paths(folder, generation):
            Samples.check_file(path, max_size=GAMES_PER_PART * _max_moves(config))
    if done < config.generations and not os.path.exists(
        os.path.join(folder, f"model-{done}.pt")
    ):  # the next generation trains on the window: the parts of the generations done
        for generation in range(max(0, done - config.window + 1), done):
            for number in range(config.parts):
                path = os.path.join(folder, f"gen-{generation}", f"part-{number:04d}.npz")
                if not os.path.exists(path):
                    raise RecordError(
                        f"{path} is missing, but {state_path} records generation "
                        f"{generation} as done"
                    )
    return resume


def _max_moves(config: TrainConfig) -> int:
    """The move cap of the longest self-play game under ``config``'s rules."""
    return max(_rules(name).max_moves for name in config.rules)


def _read_bytes(path: str, what: str, limit: int) -> bytes:
    """The bytes of the regular file ``path`` (a ``what``), at most ``limit`` of them,
    checked before it is read (:func:`~skitgubbe._files.open_regular`)."""
    try:
        with open_regular(path, what, limit) as file:
            data = file.read(limit + 1)
    except RecordError:
        raise
    except SkitgubbeError as exc:
        raise RecordError(str(exc)) from None
    if len(data) > limit:
        raise RecordError(f"{path} grew as it was read, larger than any {what}")
    return data


def _write_file(path: str, data: bytes) -> None:
    """Write ``data`` as the file ``path``: to ``path.partial``, made afresh (whatever was
    there is removed first, so that no FIFO is waited on and no link followed), then
    renamed over ``path`` (which is replaced, whatever it was, without being opened)."""
    partial = path + ".partial"
    if os.path.lexists(partial):
        os.unlink(partial)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    with os.fdopen(os.open(partial, flags | getattr(os, "O_BINARY", 0), 0o644), "wb") as file:
        file.write(data)
    os.replace(partial, path)


def _write_state(path: str, state: Mapping[str, Any]) -> None:
    _write_file(path, json.dumps(state, indent=2).encode())


def train(
    folder: str | os.PathLike[str],
    config: TrainConfig | None = None,
    *,
    progress: bool = True,
    log: Callable[[str], None] | None = None,
    executor: Executor | None = None,
) -> list[dict[str, Any]]:
    """Run (or resume) the training run in ``folder``; returns each generation's measures.

    The self-play runs in ``jobs`` worker processes of the run's own, or on ``executor``
    (any :class:`concurrent.futures.Executor`: a Dask cluster's,
    ``distributed.Client(address).get_executor()``, as :func:`~skitgubbe.run_match`
    takes one): its workers need skitgubbe but no file of the run (each task carries the
    weights; the samples come back and are written here), and the result is the same
    however the parts are spread. The training and the evaluation run here.

    A folder that holds a run keeps the settings it started with (a different
    ``config`` raises :class:`~skitgubbe.errors.ArgumentError`, so that resuming
    never mixes two runs). Before anything is made or written, every file of the
    run that resuming reads is checked — ``state.json`` (every key and value:
    :data:`BOUNDS`), the ``model-N.pt`` and ``net-N.sgnet`` files, the sample
    parts' arrays — and a file that is not what the run wrote raises
    :class:`~skitgubbe.errors.RecordError` naming the file and the field, with
    the folder left as it was. Every file is read as the weight loader reads
    one: a regular file (a FIFO is never waited on, a device never read), its
    size checked against a bound before a byte is read (:data:`STATE_MAX_SIZE`;
    a model's tensors and :data:`MODEL_OVERHEAD`, for the file and for what its
    zip entries unpack to; :func:`~skitgubbe.learn.selfplay.max_file_size`), a
    model loaded with ``torch.load(weights_only=True)``. Every file is written
    to a fresh ``.partial`` file, then renamed over its name: nothing found at
    either name is opened.

    >>> history = train("runs/example", TrainConfig(generations=1))  # doctest: +SKIP
    >>> history[-1]["net_vs_greedy_loss_share"]  # doctest: +SKIP
    0.2633
    >>> import json, os, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> with open(os.path.join(folder, "state.json"), "w") as file:
    ...     json.dump({"config": {"games": -5}, "history": []}, file)
    >>> train(folder)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    skitgubbe.errors.RecordError: .../state.json: config lacks the key 'generations'
    """
    if not isinstance(folder, str | os.PathLike):
        raise ArgumentTypeError(f"folder must be a path, not {brief(folder)}")
    folder = os.fspath(folder)
    if config is not None and not isinstance(config, TrainConfig):
        raise ArgumentTypeError(f"config must be a TrainConfig or None, not {brief(config)}")
    if type(progress) is not bool:
        raise ArgumentTypeError(f"progress must be True or False, not {brief(progress)}")
    if log is not None and not callable(log):
        raise ArgumentTypeError(f"log must be a callable or None, not {brief(log)}")
    if executor is not None and not isinstance(executor, Executor):
        raise ArgumentTypeError(f"executor must be an Executor or None, not {brief(executor)}")
    say = log or (lambda text: print(text, file=sys.stderr, flush=True))
    if os.path.lexists(folder) and not os.path.isdir(folder):
        raise ArgumentError(f"{folder} is not a folder")
    state_path = os.path.join(folder, "state.json")
    fresh = not os.path.lexists(state_path)
    if not fresh:
        saved, history = _read_state(state_path)
        if config is not None and config != saved:
            differ = [
                f"{field.name} {brief(getattr(saved, field.name))} there, "
                f"{brief(getattr(config, field.name))} given"
                for field in attrs.fields(TrainConfig)
                if getattr(saved, field.name) != getattr(config, field.name)
            ]
            raise ArgumentError(
                f"{folder} holds a run with other settings ({'; '.join(differ)}); resume it "
                "without settings, or start a new run in another folder"
            )
        config = saved
    else:
        config = config or TrainConfig()
        history = []
    torch = import_torch()  # after the state's checks, which need no PyTorch
    model = _model(config)
    resume = _check_run(folder, config, len(history), model)
    if resume is not None:
        model.load_state_dict(resume)
    state = {"config": attrs.asdict(config), "history": history}
    os.makedirs(folder, exist_ok=True)
    if fresh:  # the settings are kept from the start: a run stopped early resumes with them
        _write_state(state_path, state)
    for generation in range(len(history), config.generations):
        model_path = os.path.join(folder, f"model-{generation}.pt")
        weights = os.path.join(folder, f"net-{generation}.sgnet")
        started = time.monotonic()
        _self_play(folder, generation, config, progress, executor)
        played = time.monotonic() - started
        if not os.path.exists(model_path):
            data = _load_window(folder, generation, config)
            say(f"generation {generation}: training on {data.size} samples")
            losses = _fit(model, data, config, config.seed + generation, progress)
            _write_file(weights, encode(_arrays(model)))
            buffer = io.BytesIO()
            torch.save(model.state_dict(), buffer)
            _write_file(model_path, buffer.getvalue())
        else:  # trained before the run stopped (and checked by _check_run)
            model.load_state_dict(_load_model(model_path, model))
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
        _write_state(state_path, state)
        _write_log(folder, history)
        _plot(folder, history)
    return history
