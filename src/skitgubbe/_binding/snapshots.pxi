# snapshots.pxi: whole states: sg_state_check's names, the state's layout, Cores from snapshots.
# Included by skitgubbe/_core.pyx (one module, skitgubbe._core), in its order;
# not compiled on its own.


# What sg_state_check's checks past sg_view_check's are about (skitgubbe.h).
cdef tuple STATE_CHECKS = (
    "the spare bytes",
    "the known cards and the move count",
    "the trump and hidden card in phase 1",
    "the trick and the counters in phase 1",
    "the seats holding cards in a game over",
    "truncation before the move cap",
)


cdef str state_check_name(int failed):
    if len(VIEW_CHECKS) < failed <= len(VIEW_CHECKS) + len(STATE_CHECKS):
        return STATE_CHECKS[failed - len(VIEW_CHECKS) - 1]
    return view_check_name(failed)


cdef int check_state(const sg_state *st) except -1:
    """Raises StateError naming the first field of `st` at fault (sg_state_check)."""
    cdef const char *field = NULL
    cdef const char *rule = NULL
    failed = sg_state_check(st, &field)
    if not failed:
        return 0
    name = field.decode() if field != NULL else "state"
    detail = f"check {failed} of sg_state_check: {state_check_name(failed)}"
    if failed == 1 and sg_rules_check(&st.rules, &rule) != SG_RULES_ERROR_NONE and rule != NULL:
        detail += f"; rule field {rule.decode()}"
    raise StateError(f"not a state of a game: its {name!r} is wrong ({detail})", name)


def state_check(bytes snapshot):
    """(0, None) when `snapshot` is a whole state of a game, else (the failed
    check's number, the field at fault); (-1, None) for bytes of the wrong size."""
    cdef sg_state st
    cdef const char *field = NULL
    if len(snapshot) != sizeof(sg_state):
        return -1, None
    memcpy(&st, <const char *>snapshot, sizeof(sg_state))
    failed = sg_state_check(&st, &field)
    return failed, (field.decode() if field != NULL else None)


def state_layout():
    """The members of sg_state as (name, offset, size of one element, elements),
    in memory order, with the state's size: for tests that tamper with states."""
    cdef sg_state st
    cdef const char *base = <const char *>&st
    members = (
        ("rules", <const char *>&st.rules - base, 1, sizeof(sg_rules)),
        ("hand", <const char *>&st.hand[0] - base, 8, SG_MAX_PLAYERS),
        ("coll", <const char *>&st.coll[0] - base, 8, SG_MAX_PLAYERS),
        ("known", <const char *>&st.known[0] - base, 8, SG_MAX_PLAYERS),
        ("out", <const char *>&st.out - base, 8, 1),
        ("stock", <const char *>&st.stock[0] - base, 1, SG_NCARDS),
        ("table", <const char *>&st.table[0] - base, 1, SG_NCARDS),
        ("table_seat", <const char *>&st.table_seat[0] - base, 1, SG_NCARDS),
        ("table_play", <const char *>&st.table_play[0] - base, 1, SG_NCARDS),
        ("stock_top", <const char *>&st.stock_top - base, 1, 1),
        ("stock_len", <const char *>&st.stock_len - base, 1, 1),
        ("table_len", <const char *>&st.table_len - base, 1, 1),
        ("phase", <const char *>&st.phase - base, 1, 1),
        ("dealer", <const char *>&st.dealer - base, 1, 1),
        ("to_move", <const char *>&st.to_move - base, 1, 1),
        ("leader", <const char *>&st.leader - base, 1, 1),
        ("follower", <const char *>&st.follower - base, 1, 1),
        ("trump", <const char *>&st.trump - base, 1, 1),
        ("trump_public", <const char *>&st.trump_public - base, 1, 1),
        ("upcard", <const char *>&st.upcard - base, 1, 1),
        ("hidden_card", <const char *>&st.hidden_card - base, 1, 1),
        ("hidden_holder", <const char *>&st.hidden_holder - base, 1, 1),
        ("last_drawer", <const char *>&st.last_drawer - base, 1, 1),
        ("end_pending", <const char *>&st.end_pending - base, 1, 1),
        ("round_first", <const char *>&st.round_first - base, 1, 1),
        ("round_start", <const char *>&st.round_start - base, 1, 1),
        ("round_pending", <const char *>&st.round_pending - base, 1, 1),
        ("winner", <const char *>&st.winner - base, 1, 1),
        ("window", <const char *>&st.window - base, 1, 1),
        ("trick_target", <const char *>&st.trick_target - base, 1, 1),
        ("trick_turns", <const char *>&st.trick_turns - base, 1, 1),
        ("n_finished", <const char *>&st.n_finished - base, 1, 1),
        ("finished", <const char *>&st.finished[0] - base, 1, SG_MAX_PLAYERS),
        ("loser", <const char *>&st.loser - base, 1, 1),
        ("truncated", <const char *>&st.truncated - base, 1, 1),
        ("unseen", <const char *>&st.unseen[0] - base, 1, SG_MAX_PLAYERS),
        ("reserved", <const char *>&st.reserved[0] - base, 1, 3),
        ("moves", <const char *>&st.moves - base, 4, 1),
    )
    return members, sizeof(sg_state)


cdef Core core_from_snapshot(bytes snapshot):
    cdef Core core = Core.__new__(Core)
    if len(snapshot) != sizeof(sg_state):
        raise StateError(
            f"not a state of this engine version: {len(snapshot)} bytes, not {sizeof(sg_state)}",
            None,
        )
    memcpy(core.st, <const char *>snapshot, sizeof(sg_state))
    check_state(core.st)
    return core


def from_snapshot(snapshot):
    """A Core from Core.snapshot() bytes (pickling), checked whole by sg_state_check;
    raises StateError (a ValueError) naming the first field at fault."""
    if type(snapshot) is not bytes:
        raise StateError(f"a state is bytes, not {type(snapshot).__name__}", None)
    return core_from_snapshot(snapshot)
