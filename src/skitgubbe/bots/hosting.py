"""A bot named by its spec, run as an engine: what ``skitgubbe engine SPEC`` does.

:func:`run_engine_spec` finds the bot a spec names — a built-in bot spec of the
registry (``greedy``, ``"pimc:worlds=32"``) or a class or factory of your own
(``module:Name``, ``path/to/file.py:Name``) — and runs it as an engine with
:func:`skitgubbe.engine.host.run_engine`, on the engine protocol
(``docs/protocol.md``). It lives with the bots because it reads their
registry; the protocol's engine side below it knows only a factory.

It is also what the old path ``skitgubbe.serve`` imports, for one release: the
names that module had (``Option``, ``options_of``, ``PlayerFactory`` and the
deprecated ``serve`` and ``serve_spec``, now :func:`skitgubbe.engine.run_engine`
and :func:`run_engine_spec`) are here.

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
import warnings
from pathlib import Path
from typing import Any, BinaryIO

import attrs

from .._version import __version__
from ..engine.host import Option as Option  # the old skitgubbe.serve's names, one release
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


def serve(factory: PlayerFactory, **options: Any) -> int:
    """:func:`run_engine`'s old name, deprecated: it warns, then runs the engine. It
    goes in the release after 0.1.0.

    >>> import io, warnings
    >>> import skitgubbe as sg
    >>> from skitgubbe.bots.hosting import serve
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     serve(sg.bots.RandomBot, name="random", stdin=io.BytesIO(b""), stdout=io.BytesIO())
    0
    >>> print(caught[0].message)
    skitgubbe.serve.serve is deprecated: use skitgubbe.engine.run_engine
    """
    warnings.warn(
        "skitgubbe.serve.serve is deprecated: use skitgubbe.engine.run_engine",
        DeprecationWarning,
        stacklevel=2,
    )
    return run_engine(factory, **options)


def serve_spec(spec: str, **streams: Any) -> int:
    """:func:`skitgubbe.bots.run_engine_spec`'s old name, deprecated: it warns, then
    runs the engine. It goes in the release after 0.1.0.

    >>> import io, warnings
    >>> from skitgubbe.bots.hosting import serve_spec
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     serve_spec("greedy", stdin=io.BytesIO(b""), stdout=io.BytesIO())
    0
    >>> print(caught[0].message)
    skitgubbe.serve.serve_spec is deprecated: use skitgubbe.bots.run_engine_spec
    """
    warnings.warn(
        "skitgubbe.serve.serve_spec is deprecated: use skitgubbe.bots.run_engine_spec",
        DeprecationWarning,
        stacklevel=2,
    )
    return run_engine_spec(spec, **streams)


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
