"""A well-behaved engine with a ``seed`` option: plays legal_moves[0].
``seeded.py RECORD`` appends what it receives."""

import sys

from common import run

run(
    name="seeded",
    record=sys.argv[1] if len(sys.argv) > 1 else None,
    options=[{"name": "seed", "type": "int", "default": None}],
)
