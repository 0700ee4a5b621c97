"""Answers its third go with a line that is not JSON."""

import sys

from common import MISBEHAVE_AT, run


def misbehave(message, count):
    if count == MISBEHAVE_AT:
        sys.stdout.write("bestmove e2e4\n")
        sys.stdout.flush()
        return True
    return False


run(misbehave, name="garbage")
