"""Built-in players.

>>> import skitgubbe as sg
>>> sg.bots.RandomBot(seed=1)
RandomBot(seed=1)
"""

from __future__ import annotations

from .random import RandomBot

__all__ = ["RandomBot"]
