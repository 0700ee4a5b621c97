"""At its third go, closes its standard output and keeps running (600 s) without
answering: only its end of file tells the referee."""

import os
import time

from common import MISBEHAVE_AT, run


def misbehave(message, count):
    if count == MISBEHAVE_AT:
        os.close(1)
        time.sleep(600)
    return False


run(misbehave, name="mute")
