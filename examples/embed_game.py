"""Embed a game: drive it move by move, react to events, save and replay the record.

Run: python examples/embed_game.py [record.json]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import skitgubbe as sg


def main(path: Path | None) -> None:
    game = sg.Game.new(sg.Rules.classic(players=3), seed=2026)
    bots = [sg.bots.RandomBot(seed=seat) for seat in range(3)]
    tricks_won = [0, 0, 0]
    while game.result is None:
        seat = game.to_move
        assert seat is not None
        move = bots[seat].choose(game.observation(seat))
        for event in game.play(move):
            if event.kind is sg.EventKind.TRICK_WON and event.seat is not None:
                tricks_won[event.seat] += 1
            elif event.kind is sg.EventKind.TRUMP:
                print(f"after {game.moves_played} moves: {event}")
            elif event.kind in (sg.EventKind.OUT, sg.EventKind.GAME_OVER):
                print(f"move {game.moves_played}: {event}")
    print("phase-1 tricks won per seat:", tricks_won)

    record = game.record()
    text = json.dumps(record, ensure_ascii=False)
    if path is not None:
        path.write_text(text, encoding="utf-8")
        print(f"record saved to {path}")
    replayed = sg.Game.from_record(json.loads(text))
    assert replayed.result == game.result
    print(f"the record replays to the same result: {replayed.result}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else None)
