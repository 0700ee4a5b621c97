"""Floods its output with 8 MB without a newline at its third go."""

import sys

from common import MISBEHAVE_AT, run


def misbehave(message, count):
    if count == MISBEHAVE_AT:
        for _ in range(128):
            sys.stdout.write("x" * 65536)
        sys.stdout.flush()
        return True
    return False


run(misbehave, name="flood")
