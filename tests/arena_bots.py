"""Bots that misbehave in the arena's worker processes: slow, stuck, dying.

They live in a module of their own so that worker processes can import them (a
spawned worker gets the factories pickled by reference to this module). A
bot that would hang or kill the process it runs in refuses to do so in the test
process itself (it raises instead), so a match that played it in-process by
mistake fails its test instead of the test run.
"""

from __future__ import annotations

import faulthandler
import os
import signal
import time

import skitgubbe as sg

TEST_PROCESS = int(os.environ.setdefault("SKITGUBBE_TEST_PROCESS", str(os.getpid())))
"""The process that imported this module first: the test run. Forked workers inherit the
value, spawned ones the environment variable that keeps it."""


class Wrecker:
    """Plays its first legal move, except at its first turn from move ``after`` on, where
    it does ``how``: ``raise`` (ValueError), ``sleep`` (``seconds``, then answers),
    ``loop`` (forever), ``exit`` (``os._exit(3)``) or ``segv`` (SIGSEGV to itself).
    With ``sometimes``, only in games whose bot seed is odd."""

    def __init__(
        self,
        seed: int | None = None,
        how: str = "raise",
        seconds: float = 2.0,
        after: int = 0,
        sometimes: bool = False,
    ) -> None:
        self.how, self.seconds, self.after = how, seconds, after
        self.armed = not sometimes or (seed or 0) % 2 == 1

    def choose(self, view: sg.Observation) -> sg.Move:
        if self.armed and view.moves_played >= self.after:
            self.armed = False
            self.wreck()
        return view.legal_moves[0]

    def wreck(self) -> None:
        if self.how == "raise":
            raise ValueError("wrecked")
        if self.how == "sleep":
            time.sleep(self.seconds)
            return
        if os.getpid() == TEST_PROCESS:
            raise RuntimeError(f"Wrecker refuses to {self.how} in the test process")
        if self.how == "loop":
            while True:
                pass
        if self.how == "exit":
            os._exit(3)
        if self.how == "segv":
            faulthandler.disable()  # pytest's handler would print a traceback for a planned crash
            os.kill(os.getpid(), signal.SIGSEGV)
            time.sleep(10)  # the signal is delivered first
        raise ValueError(f"no such wreck: {self.how}")
