"""Plays well, but at the end of its input (or quit) sleeps 60 s instead of exiting:
only a kill ends it before then."""

import time

from common import run

run(name="deaf")
time.sleep(60)
