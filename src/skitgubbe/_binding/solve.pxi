# solve.pxi: the endgame solver (solve.c): two seats holding cards in phase 2, every card
# known, solved exactly.
# Included by skitgubbe/_core.pyx (one module, skitgubbe._core), in its order;
# not compiled on its own.

SOLVE_MAX_DEPTH = SG_SOLVE_MAX_DEPTH
SOLVE_VALUES = {
    SG_SOLVE_VALUE_WIN: "win",
    SG_SOLVE_VALUE_DRAW: "draw",
    SG_SOLVE_VALUE_LOSS: "loss",
    SG_SOLVE_VALUE_UNKNOWN: "unknown",
}
"""The names of enum sg_solve_value: the value for the player to move."""
SOLVE_STOPS = {
    SG_SOLVE_STOP_NONE: None,
    SG_SOLVE_STOP_BUDGET: "budget",
    SG_SOLVE_STOP_DEPTH: "depth",
    SG_SOLVE_STOP_MEMORY: "memory",
}
"""The names of enum sg_solve_stop: why a value is unknown."""


def solver_size(uint32_t entries):
    """The bytes a solver with a table of `entries` entries takes (sg_solver_size)."""
    return sg_solver_size(entries)


def solve(bytes state, uint64_t budget, uint32_t entries, bint per_move):
    """(value, loser, best, length, nodes, stop, to_move, moves): sg_solve, or sg_solve_moves
    when `per_move` ([(move, value, length)] for each legal move, else []), with a table of
    `entries` entries (rounded down to a power of two), without the GIL.

    `state` is a whole state's bytes (Core.snapshot) or a seat's view (Core.view) whose
    hidden cards all lie with one seat: the view then allows one world only, which is
    solved.  Values and stops are the numbers of SOLVE_VALUES and SOLVE_STOPS.  Raises
    CoreError(SG_ERROR_OVER or SG_ERROR_POSITION, why) for a state the solver does not take.
    """
    cdef sg_state st
    cdef sg_state world
    cdef sg_rng rng
    cdef sg_solve_result res
    cdef sg_move moves[SG_MAX_MOVES]
    cdef int8_t values[SG_MAX_MOVES]
    cdef uint32_t lengths[SG_MAX_MOVES]
    cdef int n = 0
    cdef int code
    cdef int p
    cdef int hiding = 0
    cdef size_t size
    cdef void *buffer
    cdef sg_solver *solver
    if len(state) != sizeof(sg_state):
        raise CoreError(SG_ERROR_POSITION, "not a state of this engine version")
    memcpy(&st, <const char *>state, sizeof(sg_state))
    if sg_view_check(&st) != 0:
        raise CoreError(SG_ERROR_POSITION, "not a state or view of a game")
    for p in range(SG_MAX_PLAYERS):
        hiding += st.unseen[p] != 0
    if hiding > 1:
        raise CoreError(SG_ERROR_POSITION, "its hidden cards may lie with more than one seat")
    if hiding == 1 and st.stock_top == st.stock_len and st.hidden_card == SG_NO_CARD:
        # Every unplaced card lies with that seat: the one world the view allows.
        sg_rng_seed(&rng, 0)
        sg_sample_world(&st, &rng, &world)
        st = world
    code = sg_solvable(&st)
    if code == SG_ERROR_OVER:
        raise CoreError(code, "the game is over")
    if code != SG_ERROR_NONE:
        raise CoreError(code, "not phase 2 with exactly two seats holding cards, every card "
                              "known, and a table laid by the rules")
    size = sg_solver_size(entries)
    buffer = PyMem_Malloc(size)
    if buffer == NULL:
        raise MemoryError()
    try:
        solver = sg_solver_init(buffer, size)
        with nogil:
            if per_move:
                sg_solve_moves(solver, &st, budget, &res, moves, values, lengths, &n)
            else:
                sg_solve(solver, &st, budget, &res)
    finally:
        PyMem_Free(buffer)
    return (res.value, res.loser, res.best, res.length, res.nodes, res.stop, res.to_move,
            [(moves[i], values[i], lengths[i]) for i in range(n)])
