"""Where was the game lost? The endgame solver, over a finished game.

Plays a seeded three-player game between greedy bots (rule-based, so the game
depends on the seed alone), then walks through it again with every card open:
once two players hold cards in phase 2, the solver (skitgubbe.analysis.solve)
says at each move who ends as the skitgubbe with best play from there. A move
after which the mover's outcome got worse is a mistake, proved, not estimated.

Run: python examples/solve_endgame.py [seed]
"""

from __future__ import annotations

import sys

import skitgubbe as sg
from skitgubbe.analysis import Outcome, solve

ORDER = {Outcome.LOSS: 0, Outcome.DRAW: 1, Outcome.WIN: 2}


def main(seed: int) -> None:
    game = sg.Game.new(sg.Rules.classic(players=3), seed=seed)
    bots = [sg.bots.GreedyBot() for _ in range(3)]
    while (seat := game.to_move) is not None:
        game.play(bots[seat].choose(game.observation(seat)))
    assert game.result is not None
    print(
        f"game {seed}: seat {game.result.loser} was the skitgubbe after {game.moves_played} moves"
    )

    replay = sg.Game.new(game.rules, seed=seed)  # from the deal again, move by move
    for index, move in enumerate(game.moves):
        holding = sum(1 for hand in replay.hands if hand)
        if replay.phase is sg.Phase.SHEDDING and holding == 2:
            before = solve(replay, budget=300_000)
            if before.exact:
                after = before.move(move)
                cards = sum(len(hand) for hand in replay.hands)
                verdict = ""
                if after.outcome in ORDER and ORDER[after.outcome] < ORDER[before.outcome]:
                    verdict = f"  <- a mistake: {before.best} kept a {before.outcome.value}"
                print(
                    f"move {index + 1:3}: {cards:2} cards held, seat {replay.to_move} plays "
                    f"{move}: {after.outcome.value}{verdict}"
                )
            else:
                print(f"move {index + 1:3}: not solved within the budget")
        replay.play(move)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 6)
