"""Moved to :mod:`skitgubbe.engine.host` (the engine side of the engine protocol);
this path is an alias for one release.

``import skitgubbe.serve`` gives the module :mod:`skitgubbe.engine.host` itself
(the same object); its ``serve`` and ``serve_spec`` are the deprecated names of
:func:`~skitgubbe.engine.run_engine` and :func:`~skitgubbe.engine.run_engine_spec`.
"""

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # what a type checker sees here: the new module's public names
    from .engine.host import *  # noqa: F403
else:
    from .engine import host

    sys.modules[__name__] = host
