"""Well-behaved but talkative: logs, unknown messages, blank lines, a stale answer first."""

from common import run, send


def misbehave(message, count):
    send({"type": "log", "text": f"thinking about go {message['seq']}"})
    send({"type": "telemetry", "nodes": 12})
    print(flush=True)
    send({"type": "move", "seq": message["seq"] - 1, "move": "flip"})  # stale: dropped
    send(
        {
            "type": "move",
            "seq": message["seq"],
            "move": message["legal_moves"][0],
            "ponder": "extra keys are ignored",
        }
    )
    return True


run(misbehave, name="chatty")
