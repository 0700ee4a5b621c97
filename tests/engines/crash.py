"""Exits with status 3 at its third go, after a word on stderr. ``crash.py ONCE``: only
the first time (it creates the file ONCE), then it plays well."""

import os
import sys

from common import MISBEHAVE_AT, run


def misbehave(message, count):
    if count == MISBEHAVE_AT:
        once = sys.argv[1] if len(sys.argv) > 1 else None
        if once is not None and os.path.exists(once):
            return False
        if once is not None:
            open(once, "w").close()
        sys.stderr.write(f"crash.py: out of ideas at go {message['seq']}\n")
        sys.stderr.flush()
        os._exit(3)
    return False


run(misbehave, name="crash")
