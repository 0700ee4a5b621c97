"""Learn to beat greedy play in a few minutes: a network that imitates the search.

Self-play games of three players (classic rules) are searched in C by ISMCTS. A
small network learns to predict the share of the search's visits that each move
got, and the values learn from fresh games. Training uses PyTorch on the CPU
(``pip install "skitgubbe[train]"``): ``skitgubbe.learn.train``, which
``skitgubbe train`` runs at full size. The network then plays in the arena
against two greedy players, on deals it never saw, with every seat rotated.

It takes about 7 minutes on two cores. In that time the network was the skitgubbe
in 26.0 % of 600 games against two greedy players (95 % interval 20.4-32.5 %; an
equal player: 33.3 %).

Run: python examples/learn_from_search.py [--games 1920] [--folder runs/example]
"""

from __future__ import annotations

import argparse
import os

import skitgubbe as sg
from skitgubbe.learn.train import TrainConfig, train


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folder", default=os.path.join("runs", "example"))
    parser.add_argument("--games", type=int, default=1920, help="self-play games (1920)")
    parser.add_argument("--iterations", type=int, default=600, help="search per decision")
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("--deals", type=int, default=200, help="deals of the final match")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes")
    args = parser.parse_args()

    config = TrainConfig(
        generations=1,
        games=args.games,
        iterations=args.iterations,
        epochs=args.epochs,
        rules=("classic:3",),
        eval_deals=max(1, args.deals // 4),
        jobs=args.jobs,
    )
    train(args.folder, config)
    weights = os.path.join(args.folder, "net-0.sgnet")
    entrants = [f"net:weights={weights}", "greedy", "greedy"]
    result = sg.run_match(entrants, deals=args.deals, seed=2026, jobs=args.jobs)
    stats = result.entrant(entrants[0])
    print(
        f"against two greedy players the network was the skitgubbe in {stats.losses} of "
        f"{stats.games} games ({stats.loss_rate:.1%}, 95 % interval {stats.low:.1%} - "
        f"{stats.high:.1%}; an equal player: 33.3 %)"
    )


if __name__ == "__main__":
    main()
