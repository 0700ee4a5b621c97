# constants.pxi: the core's constants (seats, suits, versions) and the errors the binding raises.
# Included by skitgubbe/_core.pyx (one module, skitgubbe._core), in its order;
# not compiled on its own.


MAX_PLAYERS = SG_MAX_PLAYERS
NO_SEAT = SG_NO_SEAT
NO_SUIT = SG_NO_SUIT
NO_CARD = SG_NO_CARD
RNG_VERSION = SG_RNG_VERSION
API_VERSION = SG_API_VERSION

RULES_BAD_VALUE = SG_RULES_ERROR_BAD_VALUE
RULES_CONFLICT = SG_RULES_ERROR_CONFLICT


class CoreError(Exception):
    """The core refused a call; args = (code, message)."""


class ViewError(CoreError, ValueError):
    """Bytes given as a seat's view that are not one (tampered or of another version)."""
