"""Moved to :mod:`skitgubbe.engine.protocol`; this path is an alias for one release.

``import skitgubbe.protocol`` gives the module :mod:`skitgubbe.engine.protocol`
itself (the same object), so every name, private ones included, is where it was.
"""

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # what a type checker sees here: the new module's public names
    from .engine.protocol import *  # noqa: F403
else:
    from .engine import protocol

    sys.modules[__name__] = protocol
