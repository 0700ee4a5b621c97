"""Replay a saved game from one seat's view: only what that seat saw.

Plays a seeded game between bots, saves its record as JSON, and prints the
whole game again as seat 1 saw it (its own cards, the others' draws as counts).
The same file steps interactively with ``skitgubbe replay FILE --seat 1``.

Run: python examples/replay_game.py [record.json]
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

from rich.console import Console

import skitgubbe as sg
from skitgubbe.apps.replay import Replay


def play_and_save(path: Path) -> sg.Game:
    game = sg.Game.new(sg.Rules.classic(players=3), seed=2026)
    bots = [
        sg.bots.GreedyBot(seed=0),
        sg.bots.RandomBot(seed=1),
        sg.bots.ISMCTSBot(iterations=300, seed=2),
    ]
    while (seat := game.to_move) is not None:
        game.play(bots[seat].choose(game.observation(seat)))
    path.write_text(json.dumps(game.record(), ensure_ascii=False), encoding="utf-8")
    return game


def main(path: Path) -> None:
    game = play_and_save(path)
    print(f"played {game.moves_played} moves and saved the record to {path}")

    replay = Replay.load(path, seat=1)
    replay.print_all(Console(highlight=False))

    assert replay.moves == game.moves and replay.game.result == game.result
    print(f"the replay reproduces the game: {replay.game.result}")


if __name__ == "__main__":
    if len(sys.argv) > 1:
        main(Path(sys.argv[1]))
    else:
        with tempfile.TemporaryDirectory() as folder:
            main(Path(folder) / "game.json")
