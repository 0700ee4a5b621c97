"""``python -m skitgubbe.apps.cli``: the command line, as ``python -m skitgubbe``."""

import sys

from . import main

if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
