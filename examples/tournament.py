"""A tournament between two custom bots (and the built-in greedy player) over duplicate deals.

Run: python examples/tournament.py [deal sets]
"""

from __future__ import annotations

import sys

import skitgubbe as sg


class LowCardBot:
    """Plays its lowest legal card; picks up or tries its luck only when it must."""

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed

    def choose(self, view: sg.Observation) -> sg.Move:
        plays = [m for m in view.legal_moves if m.kind is sg.MoveKind.PLAY]
        if not plays:
            return view.legal_moves[0]
        return min(plays, key=lambda m: min(m.cards).rank)


class HighCardBot:
    """Plays its highest legal card: the opposite temperament."""

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed

    def choose(self, view: sg.Observation) -> sg.Move:
        plays = [m for m in view.legal_moves if m.kind is sg.MoveKind.PLAY]
        if not plays:
            return view.legal_moves[0]
        return max(plays, key=lambda m: max(m.cards).rank)


def main(deals: int) -> None:
    sg.bots.register("lowcard", LowCardBot)
    sg.bots.register("highcard", HighCardBot)
    # Every deal is played under all six seatings of the three entrants.
    result = sg.run_match(["lowcard", "highcard", "greedy"], deals=deals, seed=1)
    print(f"{deals} deal sets, {len(result.games)} games")
    for stats in sorted(result.stats, key=lambda s: s.loss_rate):
        print(
            f"  {stats.name:9} skitgubbe {stats.loss_rate:6.1%} "
            f"(95 % interval {stats.low:.1%} - {stats.high:.1%}), mean place {stats.mean_place:.2f}"
        )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 200)
