# tensors.pxi: the observation tensor (sg_observation_tensor) and its sizes.
# Included by skitgubbe/_core.pyx (one module, skitgubbe._core), in its order;
# not compiled on its own.


TENSOR_SIZE = sg_tensor_size()
STATE_TENSOR_SIZE = sg_state_tensor_size()
TENSOR_PLANES = SG_TENSOR_PLANES
TENSOR_RECENT = SG_TENSOR_RECENT
TENSOR_RECENT_FLOATS = SG_TENSOR_RECENT_FLOATS
STATE_TENSOR_PLANES = SG_STATE_TENSOR_PLANES


cdef int fill_recent(sg_public_move *recent, tuple moves) except -1:
    """recent[i] from moves[i] = (kind, seat, cards), at most SG_TENSOR_RECENT; returns how many."""
    cdef int n = min(len(moves), SG_TENSOR_RECENT)
    cdef int i
    memset(recent, 0, SG_TENSOR_RECENT * sizeof(sg_public_move))
    for i in range(n):
        kind, seat, cards = moves[i]
        recent[i].kind = kind
        recent[i].seat = seat
        recent[i].cards = cards
    return n


def observation_tensor(bytes view, int seat, uint64_t pending, tuple recent, float[::1] out):
    """Writes `seat`'s tensor from its checked view (Core.view) into `out`
    (TENSOR_SIZE floats); `recent` the last public moves (kind, seat, cards),
    most recent first."""
    cdef sg_state st
    cdef sg_public_move moves[SG_TENSOR_RECENT]
    cdef int n = fill_recent(moves, recent)
    if out.shape[0] != TENSOR_SIZE:
        raise CoreError(SG_ERROR_POSITION, f"a tensor has {TENSOR_SIZE} floats")
    if len(view) != sizeof(sg_state):
        raise CoreError(SG_ERROR_POSITION, "not a view of this engine version")
    memcpy(&st, <const char *>view, sizeof(sg_state))
    failed = sg_view_check(&st)
    if failed:
        raise ViewError(SG_ERROR_POSITION, f"not a view this engine made (check {failed} fails)")
    if sg_observation_tensor(&st, <uint8_t>seat, pending, moves, n, &out[0]) != SG_ERROR_NONE:
        raise CoreError(SG_ERROR_SEAT, "seat out of range")
