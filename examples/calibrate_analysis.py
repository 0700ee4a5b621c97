"""How well calibrated are the analysis's probabilities? Measure it.

An analysis (skitgubbe.analysis) says, for each legal move of a seat, the chance
that the seat ends as the skitgubbe after it. This script checks that claim the
only honest way: on positions from games played by the bots, it analyses the
position from the mover's observation, plays one of its legal moves (drawn at
random, so bad moves are tested too, not only the engine's choice), plays the game
out with the same bots, and records whether the mover lost. Moves given a loss
probability near p should then lose about p of the time.

    python examples/calibrate_analysis.py --games 200 --jobs 2 --out calibration.json

It prints a table by predicted probability (count, mean prediction, observed loss
rate with its 95 % Wilson interval) and the Brier score, for all moves and for the
engine's own choice alone. docs/analysis.md gives a measured table.
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor

import skitgubbe as sg
from skitgubbe.analysis import analyse_position
from skitgubbe.arena import wilson_interval

BINS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)


def samples_of_game(task: tuple[int, str, str, int, int]) -> list[tuple[float, bool, bool]]:
    """(predicted loss, lost, was the engine's choice) for a few positions of one game."""
    index, engine, players_spec, per_game, seed = task
    rng = random.Random(seed * 100_003 + index)
    game = sg.Game.new(sg.Rules.classic(3), seed=seed * 100_003 + index)
    bots = [sg.bots.make(players_spec, seed=rng.randrange(2**32)) for _ in range(3)]
    # The plies to branch at: spread over the game's usual length (about 150 moves).
    branch_at = set(rng.sample(range(150), per_game))
    samples = []
    while game.result is None:
        seat = game.to_move
        if len(game.moves) in branch_at and len(game.legal_moves) > 1:
            view = game.observation(seat)
            analysis = analyse_position(view, engine, seed=rng.randrange(2**32))
            move = rng.choice(game.legal_moves)
            branch = game.copy()
            branch.play(move)
            while branch.result is None:
                mover = branch.to_move
                branch.play(bots[mover].choose(branch.observation(mover)))
            predicted = analysis.estimate(move).loss
            samples.append((predicted, branch.result.loser == seat, move == analysis.best.move))
        game.play(bots[seat].choose(game.observation(seat)))
    return samples


def table(samples: list[tuple[float, bool, bool]]) -> list[dict[str, float]]:
    """The samples binned by predicted loss probability."""
    rows = []
    for low, high in itertools.pairwise(BINS):
        inside = [s for s in samples if low <= s[0] < high or (high == 1.0 and s[0] == 1.0)]
        if not inside:
            continue
        lost = sum(s[1] for s in inside)
        interval = wilson_interval(lost, len(inside))
        rows.append(
            {
                "from": low,
                "to": high,
                "count": len(inside),
                "predicted": sum(s[0] for s in inside) / len(inside),
                "observed": lost / len(inside),
                "low": interval[0],
                "high": interval[1],
            }
        )
    return rows


def brier(samples: list[tuple[float, bool, bool]]) -> float:
    return sum((p - lost) ** 2 for p, lost, _ in samples) / max(1, len(samples))


def show(title: str, samples: list[tuple[float, bool, bool]]) -> None:
    print(f"\n{title}: {len(samples)} moves, Brier score {brier(samples):.3f}")
    print("predicted     moves  mean predicted  observed loss  (95 % interval)")
    for row in table(samples):
        print(
            f"{row['from']:.1f}-{row['to']:.1f}  {row['count']:>10}  {row['predicted']:>14.3f}"
            f"  {row['observed']:>13.3f}  ({row['low']:.3f}-{row['high']:.3f})"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=200, help="games to branch from")
    parser.add_argument("--per-game", type=int, default=3, help="positions per game")
    parser.add_argument("--engine", default="ismcts:iterations=3000", help="the analysis engine")
    parser.add_argument("--players", default="ismcts", help="the bots that play the games out")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", help="write the samples and tables as JSON here")
    args = parser.parse_args()
    tasks = [(i, args.engine, args.players, args.per_game, args.seed) for i in range(args.games)]
    start = time.perf_counter()
    samples: list[tuple[float, bool, bool]] = []
    with ProcessPoolExecutor(args.jobs) as pool:
        for done, result in enumerate(pool.map(samples_of_game, tasks), 1):
            samples.extend(result)
            print(f"\r{done}/{args.games} games, {len(samples)} moves", end="", file=sys.stderr)
    print(f" in {time.perf_counter() - start:.0f} s", file=sys.stderr)
    print(f"engine {args.engine}; games played out by {args.players} (3 players, classic)")
    show("every move played (drawn at random)", samples)
    show("the engine's own choice", [s for s in samples if s[2]])
    show("the other moves", [s for s in samples if not s[2]])
    if args.out:
        with open(args.out, "w", encoding="utf-8") as out:
            json.dump(
                {
                    "engine": args.engine,
                    "players": args.players,
                    "games": args.games,
                    "seed": args.seed,
                    "brier": brier(samples),
                    "all": table(samples),
                    "best": table([s for s in samples if s[2]]),
                    "other": table([s for s in samples if not s[2]]),
                    "samples": samples,
                },
                out,
            )


if __name__ == "__main__":
    main()
