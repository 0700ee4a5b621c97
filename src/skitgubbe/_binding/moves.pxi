# moves.pxi: raw events as tuples, and the typed layer's shared Move objects by code.
# Included by skitgubbe/_core.pyx (one module, skitgubbe._core), in its order;
# not compiled on its own.


cdef inline int popcount(uint64_t x) noexcept nogil:
    cdef int n = 0
    while x:
        x &= x - 1
        n += 1
    return n


cdef list events_list(const sg_event *buf, int n):
    cdef int i
    return [(buf[i].kind, buf[i].seat, buf[i].arg, buf[i].cards) for i in range(n)]


def events_from_bytes(bytes raw):
    """The raw events (kind, seat, arg, cards) packed in `raw` by Core.play."""
    if len(raw) % sizeof(sg_event):
        raise CoreError(SG_ERROR_POSITION, "not a packed event list")
    return events_list(<const sg_event *><const char *>raw, len(raw) // sizeof(sg_event))


# The typed layer's shared Move objects, by code, and the factory that makes a
# missing one (skitgubbe.game.moves registers both): legal_move_objects hands out
# these objects without a Python call per move.
cdef dict MOVE_CACHE = {}
cdef object MOVE_FACTORY = None


# The most common moves, found without making an int: a play of the one card
# with bit i at SINGLE_PLAYS[i], and the moves without cards by kind.
cdef list SINGLE_PLAYS = [None] * 64
cdef list CARDLESS = [None] * 8


def share_moves(dict cache, factory):
    """Register the Move cache (code -> Move) and the factory for codes not in it."""
    global MOVE_CACHE, MOVE_FACTORY, SINGLE_PLAYS, CARDLESS
    MOVE_CACHE = cache
    MOVE_FACTORY = factory
    SINGLE_PLAYS = [
        factory(SG_CARD_BIT(i)) if (i & 15) < 13 else None for i in range(64)
    ]
    CARDLESS = [
        factory(<uint64_t>k << 61) if k in (SG_MOVE_KIND_FLIP, SG_MOVE_KIND_PICK_UP,
                                            SG_MOVE_KIND_PASS) else None
        for k in range(8)
    ]


cdef inline object move_object(sg_move code):
    cdef uint64_t cards = code & SG_ALL_CARDS
    if cards == 0:
        move = CARDLESS[code >> 61]
        if move is not None:
            return move
    elif code >> 61 == SG_MOVE_KIND_PLAY and cards & (cards - 1) == 0:
        return SINGLE_PLAYS[ctz64(cards)]
    move = MOVE_CACHE.get(code)
    if move is None:
        move = MOVE_FACTORY(code)
    return move


cdef inline int ctz64(uint64_t x) noexcept nogil:
    cdef int n = 0
    while not (x & 1):
        x >>= 1
        n += 1
    return n
