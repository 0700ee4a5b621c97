"""At its first go, leaves a daemon behind: fork, setsid, fork, and the grandchild sleeps
600 s, holding the pipes it inherited. The daemon's process id is written to a file
named by it in the directory ``sys.argv[1]`` before the engine answers; then the
engine plays well."""

import os
import sys
import time

from common import run

FOLDER = sys.argv[1]


def daemonize(message, count):
    if count == 1:
        child = os.fork()
        if child == 0:
            os.setsid()
            daemon = os.fork()
            if daemon == 0:
                time.sleep(600)
                os._exit(0)
            with open(os.path.join(FOLDER, str(daemon)), "x"):
                pass
            os._exit(0)
        os.waitpid(child, 0)  # the daemon's file is written
    return False


run(daemonize, name="daemon")
