"""Moved to :mod:`skitgubbe.arena.ladder`; this path is an alias for one release.

``import skitgubbe.ladder`` gives the module ``skitgubbe.arena.ladder`` itself, so every
name, public or not, is the same object under both paths.

>>> import skitgubbe.ladder, skitgubbe.arena.ladder
>>> skitgubbe.ladder is skitgubbe.arena.ladder
True
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from .arena import ladder as _moved

if TYPE_CHECKING:  # type checkers see the names where they are now
    from .arena.ladder import *  # noqa: F403

sys.modules[__name__] = _moved
