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


cdef int _solvable_state(bytes state, sg_state *st) except -1:
    """Reads `state` (a snapshot or a view that allows one world) into *st, or raises
    CoreError as solve says."""
    cdef sg_state world
    cdef sg_rng rng
    cdef int p
    cdef int hiding = 0
    cdef int code
    if len(state) != sizeof(sg_state):
        raise CoreError(SG_ERROR_POSITION, "not a state of this engine version")
    memcpy(st, <const char *>state, sizeof(sg_state))
    if sg_view_check(st) != 0:
        raise CoreError(SG_ERROR_POSITION, "not a state or view of a game")
    for p in range(SG_MAX_PLAYERS):
        hiding += st.unseen[p] != 0
    if hiding > 1:
        raise CoreError(SG_ERROR_POSITION, "its hidden cards may lie with more than one seat")
    if hiding == 1 and st.stock_top == st.stock_len and st.hidden_card == SG_NO_CARD:
        # Every unplaced card lies with that seat: the one world the view allows.
        sg_rng_seed(&rng, 0)
        sg_sample_world(st, &rng, &world)
        st[0] = world
    code = sg_solvable(st)
    if code == SG_ERROR_OVER:
        raise CoreError(code, "the game is over")
    if code != SG_ERROR_NONE:
        raise CoreError(code, "not phase 2 with exactly two seats holding cards, every card "
                              "known, and a table laid by the rules")
    return 0


cdef tuple _solve_with(sg_solver *solver, sg_state *st, uint64_t budget, bint per_move):
    cdef sg_solve_result res
    cdef sg_move moves[SG_MAX_MOVES]
    cdef int8_t values[SG_MAX_MOVES]
    cdef uint32_t lengths[SG_MAX_MOVES]
    cdef int n = 0
    with nogil:
        if per_move:
            sg_solve_moves(solver, st, budget, &res, moves, values, lengths, &n)
        else:
            sg_solve(solver, st, budget, &res)
    return (res.value, res.loser, res.best, res.length, res.nodes, res.stop, res.to_move,
            [(moves[i], values[i], lengths[i]) for i in range(n)])


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
    cdef size_t size
    cdef void *buffer
    _solvable_state(state, &st)
    size = sg_solver_size(entries)
    buffer = PyMem_Malloc(size)
    if buffer == NULL:
        raise MemoryError()
    try:
        return _solve_with(sg_solver_init(buffer, size), &st, budget, per_move)
    finally:
        PyMem_Free(buffer)


cdef class Solver:
    """A solver whose transposition table lives on between calls: what it proved for one
    position answers the next (sg_solver over one buffer of sg_solver_size(entries) bytes).

    solve(state, budget, per_move) answers as the module's solve; clear() empties the table.
    One call at a time: a call while another runs (another thread) raises RuntimeError.
    """

    cdef void *_buffer
    cdef sg_solver *_solver
    cdef bint _busy

    def __cinit__(self, uint32_t entries):
        cdef size_t size = sg_solver_size(entries)
        self._buffer = PyMem_Malloc(size)
        if self._buffer == NULL:
            raise MemoryError()
        self._solver = sg_solver_init(self._buffer, size)
        self._busy = False

    def __dealloc__(self):
        PyMem_Free(self._buffer)

    @property
    def entries(self):
        """The table's entries (a power of two)."""
        return sg_solver_entries(self._solver)

    def clear(self):
        """Empties the table."""
        if self._busy:
            raise RuntimeError("the solver is searching")
        sg_solver_clear(self._solver)

    def solve(self, bytes state, uint64_t budget, bint per_move):
        """The module's solve, with this solver's table as it stands."""
        cdef sg_state st
        _solvable_state(state, &st)
        if self._busy:
            raise RuntimeError("the solver is searching")
        self._busy = True
        try:
            return _solve_with(self._solver, &st, budget, per_move)
        finally:
            self._busy = False
