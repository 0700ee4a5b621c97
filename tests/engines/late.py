"""Answers its third go late (1 s). ``late.py ONCE``: only the first process given ONCE."""

import time

from common import MISBEHAVE_AT, first_time, run

LATE = first_time()


def misbehave(message, count):
    if LATE and count == MISBEHAVE_AT:
        time.sleep(1.0)
    return False


run(misbehave, name="late")
