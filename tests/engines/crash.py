"""Exits with status 3 at its third go, after a word on stderr. ``crash.py ONCE``: only
the first time (it creates the file ONCE), then it plays well."""

import os
import sys

from common import MISBEHAVE_AT, first_time, run


def misbehave(message, count):
    if count == MISBEHAVE_AT:
        if not first_time():  # created exclusively: one process of many crashes
            return False
        sys.stderr.write(f"crash.py: out of ideas at go {message['seq']}\n")
        sys.stderr.flush()
        os._exit(3)
    return False


run(misbehave, name="crash")
