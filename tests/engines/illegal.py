"""Plays a card it does not hold at its third go."""

from common import MISBEHAVE_AT, run, send

DECK = [
    rank + suit
    for suit in "CDHS"
    for rank in ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
]


def misbehave(message, count):
    if count == MISBEHAVE_AT:
        held = set(message["observation"]["hand"])
        send(
            {
                "type": "move",
                "seq": message["seq"],
                "move": next(card for card in DECK if card not in held),
            }
        )
        return True
    return False


run(misbehave, name="illegal")
