"""From its third go on, answers only with an old sequence number."""

from common import MISBEHAVE_AT, run, send


def misbehave(message, count):
    if count >= MISBEHAVE_AT:
        send({"type": "move", "seq": message["seq"] - 1, "move": message["legal_moves"][0]})
        return True
    return False


run(misbehave, name="stale")
