"""Old import paths of the modules that moved into layer packages (private).

In 0.1.0 the flat modules moved into subpackages that show the layers
(``skitgubbe.cards`` is now :mod:`skitgubbe.game.cards`, ``skitgubbe.referee``
:mod:`skitgubbe.play.referee`, …; docs/changelog.md lists them). For one release
the old paths still import, as the same module objects, with a
:class:`DeprecationWarning` naming the new path. One table says what moved
where; an import hook (appended to :data:`sys.meta_path`, so a real module
always wins) serves the old names.

>>> import importlib, sys, warnings
>>> _ = sys.modules.pop("skitgubbe.referee", None)  # as in a fresh interpreter
>>> with warnings.catch_warnings(record=True) as caught:
...     warnings.simplefilter("always")
...     old = importlib.import_module("skitgubbe.referee")
>>> import skitgubbe.play.referee as new
>>> old is new, caught[0].category.__name__
(True, 'DeprecationWarning')
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import types
import warnings
from collections.abc import Sequence
from typing import Final

__all__ = ["MOVED_MODULES", "install"]

MOVED_MODULES: Final[dict[str, str]] = {
    f"skitgubbe.{old}": f"skitgubbe.{new}"
    for old, new in {
        "cards": "game.cards",
        "rules": "game.rules",
        "moves": "game.moves",
        "actions": "game.actions",
        "events": "game.events",
        "observation": "game.observation",
        "tensors": "game.tensors",
        "svg": "game.svg",
        "apps.render": "game.render",
        "referee": "play.referee",
        "players": "play.players",
        "aio": "play.aio",
        "session": "play.session",
        "vector": "learn.vector",
        "envs": "learn.envs",
        "openspiel": "learn.openspiel",
        "policy": "bots.policy",
        "protocol": "engine.protocol",
        "serve": "bots.hosting",
        "sprt": "arena.sprt",
        "ladder": "arena.ladder",
    }.items()
}
"""Each old module path and the module it now is."""


class _AliasLoader(importlib.abc.Loader):
    """Loads an old path as the module at its new path."""

    def __init__(self, new: str) -> None:
        self.new = new
        self.spec: importlib.machinery.ModuleSpec | None = None

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        warnings.warn(
            f"{spec.name} moved to {self.new}; the old path is an alias until the next release",
            DeprecationWarning,
            stacklevel=2,
        )
        module = importlib.import_module(self.new)
        self.spec = module.__spec__
        return module

    def exec_module(self, module: types.ModuleType) -> None:
        # The import system has set the alias's spec on the module: give it its own back.
        module.__spec__ = self.spec


class _MovedModuleFinder(importlib.abc.MetaPathFinder):
    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None,
        target: types.ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        new = MOVED_MODULES.get(fullname)
        if new is None:
            return None
        return importlib.machinery.ModuleSpec(fullname, _AliasLoader(new))


def install() -> None:
    """Serve the old module paths (once per interpreter; the package calls it on import).

    >>> install()
    >>> sum(isinstance(f, _MovedModuleFinder) for f in sys.meta_path)
    1
    """
    if not any(isinstance(finder, _MovedModuleFinder) for finder in sys.meta_path):
        sys.meta_path.append(_MovedModuleFinder())
