"""Built-in players.

>>> import skitgubbe as sg
>>> sg.bots.RandomBot(seed=1)
RandomBot(seed=1)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from .._lazy import lazy_attributes
from .command import BotPool, EngineSpec, blinded_seed, engine_bot, is_engine_spec
from .greedy import GreedyBot
from .levels import LEVELS, LevelBot, easy, expert, hard, medium
from .net import NetBot
from .plain import PLAIN_OPTIONS, check_plain_spec, is_plain_spec
from .random import RandomBot
from .registry import BotFactory, available, factory, make, parse_spec, register
from .search import ISMCTSBot, PIMCBot

__all__ = [
    "BUILTIN_BOTS",
    "LEVELS",
    "PLAIN_OPTIONS",
    "BotFactory",
    "BotPool",
    "EngineSpec",
    "GreedyBot",
    "ISMCTSBot",
    "LevelBot",
    "NetBot",
    "PIMCBot",
    "RandomBot",
    "available",
    "blinded_seed",
    "check_plain_spec",
    "factory",
    "is_engine_spec",
    "is_plain_spec",
    "make",
    "parse_spec",
    "register",
    "run_engine_spec",
]

if TYPE_CHECKING:
    from . import hosting as hosting
    from . import policy as policy
    from .hosting import run_engine_spec

BUILTIN_BOTS: Final[dict[str, BotFactory]] = {
    "random": RandomBot,
    "greedy": GreedyBot,
    "pimc": PIMCBot,
    "ismcts": ISMCTSBot,
    "net": NetBot,
    "easy": easy,
    "medium": medium,
    "hard": hard,
    "expert": expert,
}
"""The bots skitgubbe registers, by name: any process knows them by these names.

>>> sorted(BUILTIN_BOTS)
['easy', 'expert', 'greedy', 'hard', 'ismcts', 'medium', 'net', 'pimc', 'random']
"""

for _name, _factory in BUILTIN_BOTS.items():
    register(_name, _factory)
register("cmd", engine_bot)  # cmd:COMMAND, an engine in a process of its own


if not TYPE_CHECKING:  # the modules that load numpy, cffi or the engine protocol's host
    __getattr__, __dir__ = lazy_attributes(
        __name__, {"run_engine_spec": "hosting"}, ("hosting", "policy")
    )
