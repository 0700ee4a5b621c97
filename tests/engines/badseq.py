"""At its third go, answers with a bad ``seq``, as ``badseq.py HOW`` says:

- ``string``: the right number, as a string;
- ``missing``: no seq at all;
- ``early``: the right answer, then (in the same write) an answer to the next go,
  which the referee has not sent yet;
- ``readyok``: a readyok with the go's seq.
"""

import json
import sys

from common import MISBEHAVE_AT, run

HOW = sys.argv[1]


def misbehave(message, count):
    if count != MISBEHAVE_AT:
        return False
    seq, move = message["seq"], message["legal_moves"][0]
    answers = {
        "string": [{"type": "move", "seq": str(seq), "move": move}],
        "missing": [{"type": "move", "move": move}],
        "early": [
            {"type": "move", "seq": seq, "move": move},
            {"type": "move", "seq": seq + 1, "move": "flip"},
        ],
        "readyok": [{"type": "readyok", "seq": seq}],
    }[HOW]
    sys.stdout.write("".join(json.dumps(answer) + "\n" for answer in answers))
    sys.stdout.flush()  # one write: the early answer is there before the next go
    return True


run(misbehave, name="badseq")
