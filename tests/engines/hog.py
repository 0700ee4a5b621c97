"""Allocates memory without end at its third go."""

from common import MISBEHAVE_AT, run


def misbehave(message, count):
    if count == MISBEHAVE_AT:
        blocks = []
        while True:
            blocks.append(bytearray(8 << 20))
    return False


run(misbehave, name="hog")
