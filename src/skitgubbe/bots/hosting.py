"""A bot named by its spec, run as an engine: what ``skitgubbe engine SPEC`` does.

:func:`run_engine_spec` finds the bot a spec names — a built-in bot spec of the
registry (``greedy``, ``"pimc:worlds=32"``) or a class or factory of your own
(``module:Name``, ``path/to/file.py:Name``) — and runs it as an engine with
:func:`skitgubbe.engine.host.run_engine`, on the engine protocol
(``docs/protocol.md``). It lives with the bots because it reads their
registry; the protocol's engine side below it knows only a factory.

>>> import io
>>> from skitgubbe.engine import protocol
>>> out = io.BytesIO()
>>> run_engine_spec("greedy", stdin=io.BytesIO(protocol.encode(protocol.hello("doc"))), stdout=out)
0
>>> protocol.decode(out.getvalue())["name"]
'greedy'
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path
from typing import Any, BinaryIO

import attrs

from .._version import __version__
from ..engine.host import PlayerFactory, options_of, run_engine
from ..errors import ArgumentError
from . import registry

__all__ = ["run_engine_spec"]


def run_engine_spec(
    spec: str, *, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None
) -> int:
    """Run the bot ``spec`` names as an engine (:func:`run_engine`): a built-in bot
    spec (``greedy``, ``"pimc:worlds=32"``; its options become the engine's defaults)
    or a class or factory of your own, ``module:Name`` or ``path/to/file.py:Name``.

    >>> import io
    >>> from skitgubbe.engine import protocol
    >>> from skitgubbe.bots import run_engine_spec
    >>> out = io.BytesIO()
    >>> hello = protocol.encode(protocol.hello("doctest"))
    >>> run_engine_spec("pimc:worlds=8", stdin=io.BytesIO(hello), stdout=out)
    0
    >>> identity = protocol.decode(out.getvalue())
    >>> identity["name"], identity["options"][0]
    ('pimc', {'name': 'worlds', 'type': 'int', 'default': 8})
    """
    factory, name, defaults = _factory(spec)
    head, sep, _ = spec.partition(":")
    options = tuple(
        attrs.evolve(option, default=defaults[option.name]) if option.name in defaults else option
        for option in options_of(factory)
    )
    builtin = not sep or head.strip().lower() in registry.available()
    return run_engine(
        lambda **values: factory(**{**defaults, **values}),
        name=name,
        author="skitgubbe" if builtin else "",
        version=__version__ if builtin else "",
        options=options,
        stdin=stdin,
        stdout=stdout,
    )


def _factory(spec: str) -> tuple[PlayerFactory, str, dict[str, Any]]:
    """(the factory, the engine's name, the options given in the spec)."""
    head, sep, tail = spec.partition(":")
    if not sep or head.strip().lower() in registry.available():
        name, options = registry.parse_spec(spec)
        registry.make(spec)  # refuses a bad spec now, with the registry's message
        return registry.factory(name), name, options
    module = _load(head.strip())
    found = getattr(module, tail.strip(), None)
    if not callable(found):
        raise ArgumentError(f"{head.strip()} has no class or function {tail.strip()!r}")
    return found, tail.strip(), {}


def _load(where: str) -> Any:
    """The module ``where`` names: a dotted module name or a ``.py`` file."""
    if where.endswith(".py"):
        path = Path(where)
        spec = importlib.util.spec_from_file_location(path.stem, path)
        if spec is None or spec.loader is None or not path.is_file():
            raise ArgumentError(f"no Python file {where!r}")
        module = importlib.util.module_from_spec(spec)
        sys.modules[path.stem] = module
        spec.loader.exec_module(module)
        return module
    try:
        return importlib.import_module(where)
    except ImportError as error:
        raise ArgumentError(f"cannot import {where!r}: {error}") from None
