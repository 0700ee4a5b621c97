# views.pxi: a seat's view: sg_view_check's names and loading a view into a state.
# Included by skitgubbe/_core.pyx (one module, skitgubbe._core), in its order;
# not compiled on its own.


# What each check of sg_view_check is about (skitgubbe.h lists them in full).
cdef tuple VIEW_CHECKS = (
    "the rules",
    "the phase and the player to move",
    "the stock and table lengths",
    "the seat fields",
    "the finish order, trump and seat sets",
    "the up-card and hidden card",
    "the hands and collections",
    "the table",
    "the stock and hidden card",
    "the unknown slots against the unplaced cards",
    "the one-bit flags and the move cap",
    "the loser and truncation against the phase",
    "the finish order against the seats holding cards",
    "a player to move holding no card, or no leader",
    "the known cards and hand sizes",
    "the up-card against the rules, trump and stock",
    "the stock, hidden card, round and window in phase 2",
    "the trick counters in phase 2",
    "the stock, last drawer and hidden card in phase 1",
    "the trick, round and slough window in phase 1",
)


cdef str view_check_name(int failed):
    if 1 <= failed <= len(VIEW_CHECKS):
        return VIEW_CHECKS[failed - 1]
    return "unknown"


cdef int load_view(sg_state *st, bytes view) except -1:
    if len(view) != sizeof(sg_state):
        raise CoreError(SG_ERROR_POSITION, "not a view of this engine version")
    memcpy(st, <const char *>view, sizeof(sg_state))
    failed = sg_view_check(st)
    if not failed and st.to_move >= st.rules.players:
        raise ViewError(SG_ERROR_POSITION, "not a view of a position with a player to move")
    if failed:
        raise ViewError(
            SG_ERROR_POSITION,
            f"not a view of a position with a player to move (check {failed} of "
            f"sg_view_check: {view_check_name(failed)})",
        )
    return 0
