"""A well-behaved engine: plays legal_moves[0]. ``first.py RECORD`` appends what it receives."""

import sys

from common import run

run(
    name="first",
    record=sys.argv[1] if len(sys.argv) > 1 else None,
    options=[
        {"name": "depth", "type": "int", "default": 2, "min": 1, "max": 8},
        {"name": "style", "type": "choice", "default": "safe", "choices": ["safe", "bold"]},
        {"name": "fast", "type": "bool", "default": False},
    ],
)
