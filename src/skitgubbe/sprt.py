"""Moved to :mod:`skitgubbe.arena.sprt`; this path is an alias for one release.

``import skitgubbe.sprt`` gives the module ``skitgubbe.arena.sprt`` itself, so every
name, public or not, is the same object under both paths.

>>> import skitgubbe.sprt, skitgubbe.arena.sprt
>>> skitgubbe.sprt is skitgubbe.arena.sprt
True
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from .arena import sprt as _moved

if TYPE_CHECKING:  # type checkers see the names where they are now
    from .arena.sprt import *  # noqa: F403

sys.modules[__name__] = _moved
