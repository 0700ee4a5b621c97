"""Built-in players.

>>> import skitgubbe as sg
>>> sg.bots.RandomBot(seed=1)
RandomBot(seed=1)
"""

from __future__ import annotations

from .random import RandomBot
from .registry import BotFactory, available, make, parse_spec, register

__all__ = ["BotFactory", "RandomBot", "available", "make", "parse_spec", "register"]

register("random", RandomBot)
