"""Names a package loads on first use (private): one PEP 562 ``__getattr__`` for all.

A package that keeps ``import skitgubbe`` light lists the names it re-exports
from submodules it does not import yet, and the submodules it offers as
attributes; :func:`lazy_attributes` makes its module-level ``__getattr__`` and
``__dir__`` from those tables. A name read once is stored in the package, so
the next read is an ordinary attribute.

>>> import sys, types
>>> package = types.ModuleType("skitgubbe_example")
>>> sys.modules["skitgubbe_example"] = package
>>> getattr_, dir_ = lazy_attributes("skitgubbe_example", {"dumps": "json"}, ())
>>> sys.modules["skitgubbe_example.json"] = sys.modules["json"] = __import__("json")
>>> getattr_("dumps") is __import__("json").dumps, "dumps" in vars(package)
(True, True)
>>> getattr_("nothing")
Traceback (most recent call last):
    ...
AttributeError: module 'skitgubbe_example' has no attribute 'nothing'
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Collection, Mapping
from typing import Any

__all__ = ["lazy_attributes"]


def lazy_attributes(
    package: str,
    names: Mapping[str, str],
    modules: Collection[str],
    unlisted: Collection[str] = (),
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for ``package``: ``names`` maps each name to the
    submodule (relative to ``package``) that defines it; ``modules`` are submodules
    read as attributes (``sg.arena``), imported when first read; ``unlisted`` are
    submodules read the same way that ``dir()`` does not show (old, deprecated paths).

    >>> import skitgubbe.engine
    >>> _, dir_ = lazy_attributes("skitgubbe.engine", {"Limits": "process"}, ("player",))
    >>> {"Limits", "player"} <= set(dir_())
    True
    """

    def getattr_(name: str) -> Any:
        # PEP 562: called only for names not (yet) in the package's namespace.
        if name in modules or name in unlisted:
            return importlib.import_module(f"{package}.{name}")
        module = names.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{module}"), name)
        setattr(sys.modules[package], name, value)
        return value

    def dir_() -> list[str]:
        return sorted({*vars(sys.modules[package]), *names, *modules})

    return getattr_, dir_
