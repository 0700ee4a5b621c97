"""Write a bot against the Player protocol and measure it against random play.

Run: python examples/custom_bot.py [games]
"""

from __future__ import annotations

import sys

import skitgubbe as sg


class LowCardBot:
    """Plays its lowest legal card; picks up or tries its luck only when it must."""

    def choose(self, view: sg.Observation) -> sg.Move:
        plays = [m for m in view.legal_moves if m.kind is sg.MoveKind.PLAY]
        if not plays:
            return view.legal_moves[0]
        return min(plays, key=lambda m: min(m.cards).rank)


def main(games: int) -> None:
    losses = 0
    for game_no in range(games):
        seat = game_no % 3  # rotate the seat so the deal's luck evens out
        lineup: list[sg.Player] = [sg.bots.RandomBot(seed=game_no * 3 + s) for s in range(3)]
        lineup[seat] = LowCardBot()
        result = sg.play_game(lineup, seed=game_no)
        losses += result.loser == seat
    print(f"LowCardBot was the skitgubbe in {losses} of {games} games ({losses / games:.0%});")
    print("a random player loses about one game in three.")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 300)
