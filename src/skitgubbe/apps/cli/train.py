"""``skitgubbe train``: train the network by self-play (:mod:`skitgubbe.learn.train`).

>>> import argparse
>>> parser = argparse.ArgumentParser(prog="skitgubbe")
>>> add_train_command(parser.add_subparsers(dest="command"))
>>> args = parser.parse_args(["train", "runs/net", "--generations", "2"])
>>> args.folder, args.generations
('runs/net', 2)
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

import attrs

from ..._text import brief
from ...errors import ArgumentError

if TYPE_CHECKING:
    from .common import Commands

__all__ = ["add_train_command"]


def add_train_command(commands: Commands) -> None:
    """Add ``skitgubbe train`` to the command line's ``commands``.

    Every setting defaults to :class:`~skitgubbe.learn.train.TrainConfig`'s and is
    checked against its :data:`~skitgubbe.learn.train.BOUNDS` before anything starts; a
    folder that holds a run resumes it (give no settings then, or the same), once its
    files are checked.

    >>> parser = argparse.ArgumentParser(prog="skitgubbe")
    >>> add_train_command(parser.add_subparsers(dest="command"))
    >>> parser.parse_args(["train", "runs/x", "--rules", "classic:3", "modern:4"]).rules
    ['classic:3', 'modern:4']
    """
    from ...learn.train import BOUNDS, TrainConfig

    defaults = TrainConfig()
    command = commands.add_parser(
        "train",
        help="train the network by self-play (resumable; needs PyTorch)",
        description="Train the network by self-play and search (expert iteration) into "
        "FOLDER: samples, models, weights (net-N.sgnet), log.csv and curve.png. Run it "
        "again to resume. Needs PyTorch: pip install 'skitgubbe[train]'.",
    )
    command.add_argument("folder", help="where the run's files go (and are resumed from)")
    for field in attrs.fields(TrainConfig):
        if field.name == "rules":
            command.add_argument(
                "--rules", nargs="+", metavar="PRESET:PLAYERS",
                help=f"the self-play games' rules, in turn, {BOUNDS['rules'][0]} to "
                f"{BOUNDS['rules'][1]} of them (default {' '.join(defaults.rules)})",
            )  # fmt: skip
            continue
        kind = type(getattr(defaults, field.name))
        low, high = BOUNDS[field.name]
        bounds = f"above {low}, at most {high}" if kind is float else f"{low} to {high}"
        command.add_argument(
            f"--{field.name.replace('_', '-')}", type=kind, metavar=kind.__name__.upper(),
            help=f"{bounds}; default {getattr(defaults, field.name)}",
        )  # fmt: skip
    command.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="play the self-play on a Dask cluster: its scheduler's address, such as "
        "tcp://10.0.0.5:8786 (its workers need skitgubbe, no file of the run; --jobs is then "
        "unused for self-play). Needs the 'dask' extra",
    )
    command.add_argument("--quiet", action="store_true", help="no progress bars")
    command.set_defaults(handler=_run_train)


def _run_train(args: argparse.Namespace) -> int:
    """Check the options (each within :data:`~skitgubbe.learn.train.BOUNDS`, named as an
    option), then run or resume the training."""
    from ...learn.train import TrainConfig, check_setting, train

    given = {
        field.name: getattr(args, field.name)
        for field in attrs.fields(TrainConfig)
        if getattr(args, field.name) is not None
    }
    if "rules" in given:
        given["rules"] = tuple(given["rules"])
    for name, value in given.items():
        check_setting(name, value, f"--{name.replace('_', '-')}")
    config = TrainConfig(**given) if given else None
    if args.scheduler is None:
        history = train(args.folder, config, progress=not args.quiet)
    else:
        with _cluster(args.scheduler) as client:
            executor = client.get_executor()
            history = train(args.folder, config, progress=not args.quiet, executor=executor)
    last = history[-1] if history else {}
    print(
        f"trained {len(history)} generations into {args.folder}; last loss share against "
        f"two greedy: {last.get('net_vs_greedy_loss_share', 'n/a')}",
        file=sys.stdout,
    )
    return 0


def _cluster(address: str) -> Any:
    """A Dask client of the scheduler at ``address`` (a one-line error if Dask is missing
    or the scheduler does not answer)."""
    try:
        from distributed import Client
    except ModuleNotFoundError:
        raise ArgumentError("--scheduler needs Dask: pip install 'skitgubbe[dask]'") from None
    try:
        return Client(address, timeout=30)  # type: ignore[no-untyped-call]
    except (OSError, ValueError, TypeError) as error:
        raise ArgumentError(
            f"--scheduler {brief(address)}: no Dask scheduler answers there ({error})"
        ) from None
