"""Write the engine protocol's JSON Schema, docs/protocol.schema.json, from its one
source, the table of fields in skitgubbe.engine.wire (``--check``: only say whether the
committed file is the table's).

    python tools/protocol_schema.py            # rewrite docs/protocol.schema.json
    python tools/protocol_schema.py --check    # exit 1 if it differs from the table
"""

from __future__ import annotations

import sys
from pathlib import Path

from skitgubbe.engine import wire

SCHEMA = Path(__file__).resolve().parent.parent / "docs" / "protocol.schema.json"


def main(argv: list[str]) -> int:
    text = wire.schema_text()
    if "--check" in argv:
        same = SCHEMA.read_text(encoding="utf-8") == text
        print(f"{SCHEMA.name}: {'the table' if same else 'NOT the table; run without --check'}")
        return 0 if same else 1
    SCHEMA.write_text(text, encoding="utf-8")
    print(f"wrote {SCHEMA}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
