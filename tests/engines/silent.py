"""Never answers its third go."""

from common import MISBEHAVE_AT, run

run(lambda message, count: count >= MISBEHAVE_AT, name="silent")
