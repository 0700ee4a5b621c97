"""Forks two children that sleep 60 s (same process group, the pipes inherited), then
plays; never answers its third go. ``forker.py polite``: answers every go."""

import os
import sys
import time

from common import MISBEHAVE_AT, run

for _ in range(2):
    if os.fork() == 0:
        time.sleep(60)
        os._exit(0)

polite = sys.argv[1:] == ["polite"]
run(lambda message, count: not polite and count >= MISBEHAVE_AT, name="forker")
