# vector.pxi: VecCore: the C vector environment (sg_vec), n games a call without the GIL.
# Included by skitgubbe/_core.pyx (one module, skitgubbe._core), in its order;
# not compiled on its own.

from cython.view cimport array as vec_array
from libc.stdlib cimport calloc


VEC_LEARNER = SG_VEC_LEARNER

VEC_IN_USE = ("VectorEnv is in use by another thread (or by a policy inside its own step): "
              "one call at a time; nothing changed")


cdef vec_array vec_buffer(tuple shape, Py_ssize_t itemsize, str format):
    """A zeroed C-contiguous buffer of `shape` (items of `format`, struct-style) for VecCore to
    write into. Its memory is allocated here and freed with the buffer's last reference, and it
    is never moved or resized: numpy.asarray(buffer) is a view (it does not own its data, so
    numpy refuses to resize it, with refcheck=False too) that keeps the buffer alive."""
    cdef Py_ssize_t count = 1
    cdef Py_ssize_t extent
    for extent in shape:
        count *= extent
    cdef vec_array buffer = vec_array(shape=shape, itemsize=itemsize, format=format, mode="c",
                                      allocate_buffer=False)
    buffer.data = <char *>calloc(<size_t>count, <size_t>itemsize)
    if buffer.data == NULL:
        raise MemoryError("no memory for the vector environment's arrays")
    buffer.callback_free_data = free
    return buffer


cdef class VecCore:
    """The C vector environment (sg_vec): n games stepped by one call without the GIL.

    The core owns its output buffers (obs, masks, rewards, terminated, truncated, seat,
    games) and two int32 buffers of n actions for its caller (actions, sampled): Cython
    arrays whose memory never moves, so that no caller can resize or free it under the C
    writer; numpy.asarray(core.obs) is a view of one. reset() and step() write into them.
    One call at a time: a call made while another is inside (on another thread, whose
    call released the GIL, or from a policy called by the step) raises ConcurrentUseError
    and changes nothing.
    """

    cdef sg_vec *env
    cdef readonly int n_games
    cdef readonly int players
    cdef sg_search_policy custom[4]
    cdef list custom_hooks
    cdef readonly vec_array obs
    cdef readonly vec_array masks
    cdef readonly vec_array rewards
    cdef readonly vec_array terminated
    cdef readonly vec_array truncated
    cdef readonly vec_array seat
    cdef readonly vec_array games
    cdef readonly vec_array actions
    cdef readonly vec_array sampled
    cdef sg_vec_out out
    cdef bint busy  # a call is inside; read and set with the GIL held, so no two enter

    def __cinit__(self, tuple rules, int n_games, uint64_t seed, tuple policies):
        cdef sg_rules r
        cdef int32_t p[4]
        cdef int i
        fill_rules(&r, rules)
        if len(policies) != r.players:
            raise CoreError(SG_ERROR_SEAT, "one policy per seat")
        for i in range(4):
            p[i] = policies[i] if i < r.players else SG_VEC_LEARNER
        if n_games < 1:
            raise CoreError(SG_ERROR_RULES, "cannot make this vector environment")
        self.obs = vec_buffer((n_games, TENSOR_SIZE), sizeof(float), "f")
        self.masks = vec_buffer((n_games, SG_NUM_ACTIONS), sizeof(uint8_t), "B")
        self.rewards = vec_buffer((n_games, SG_MAX_PLAYERS), sizeof(float), "f")
        self.terminated = vec_buffer((n_games,), sizeof(uint8_t), "B")
        self.truncated = vec_buffer((n_games,), sizeof(uint8_t), "B")
        self.seat = vec_buffer((n_games,), sizeof(int32_t), "i")
        self.games = vec_buffer((n_games,), sizeof(uint64_t), "Q")
        self.actions = vec_buffer((n_games,), sizeof(int32_t), "i")
        self.sampled = vec_buffer((n_games,), sizeof(int32_t), "i")
        self.env = sg_vec_new(&r, n_games, seed, p)
        if self.env == NULL:
            raise CoreError(SG_ERROR_RULES, "cannot make this vector environment")
        self.n_games = n_games
        self.players = r.players
        self.out.obs = <float *>self.obs.data
        self.out.masks = <uint8_t *>self.masks.data
        self.out.rewards = <float *>self.rewards.data
        self.out.terminated = <uint8_t *>self.terminated.data
        self.out.truncated = <uint8_t *>self.truncated.data
        self.out.seat = <int32_t *>self.seat.data
        self.out.seeds = NULL  # the seeds deal every hand: not an output (see games)
        self.out.games = <uint64_t *>self.games.data

    def __dealloc__(self):
        sg_vec_free(self.env)

    cdef int enter(self) except -1:
        """Marks a call inside, or raises ConcurrentUseError if one already is. The GIL is
        held from the test to the mark, so two threads cannot both pass."""
        if self.busy:
            from skitgubbe.errors import ConcurrentUseError
            raise ConcurrentUseError(VEC_IN_USE)
        self.busy = True
        return 0

    def set_policy(self, int seat, choose):
        """Seat `seat`'s built-in player plays with `choose` (a C policy's address or a
        Python callable, as in set_policy; None: its built-in policy again)."""
        self.enter()
        try:
            self._set_policy(seat, choose)
        finally:
            self.busy = False

    cdef _set_policy(self, int seat, choose):
        if self.custom_hooks is None:
            self.custom_hooks = [(), (), (), ()]
        if not 0 <= seat < self.players:
            raise CoreError(SG_ERROR_SEAT, f"no seat {seat}")
        if choose is None:
            result = sg_vec_set_policy(self.env, seat, NULL)
            hooks = ()
        else:
            hooks = set_policy(&self.custom[seat], 1, choose, None)  # builtin: unused
            result = sg_vec_set_policy(self.env, seat, &self.custom[seat])
        if result != SG_ERROR_NONE:
            raise CoreError(result, f"seat {seat} is a learner's, or no memory")
        self.custom_hooks[seat] = hooks

    cdef int policy_failed(self) except -1:
        cdef int seat
        for seat in range(self.players):
            if self.custom[seat].error:
                try:
                    raise_policy(&self.custom[seat], self.custom_hooks[seat])
                except SearchPolicyError as failure:
                    failure.seat = seat
                    raise
        raise CoreError(SG_ERROR_POLICY, "a policy failed")

    cdef void clear_errors(self):
        cdef int seat
        for seat in range(4):
            self.custom[seat].error = 0
            self.custom[seat].detail = 0

    def reset(self):
        cdef int result
        self.enter()
        try:
            self.clear_errors()
            with nogil:
                result = sg_vec_reset(self.env, &self.out)
            if result == SG_ERROR_POLICY:
                self.policy_failed()
        finally:
            self.busy = False

    def step(self, int32_t[::1] actions):
        """Steps every game; returns -1, or the index of the first game whose
        action is illegal (then nothing changed). SearchPolicyError when a seat's policy
        of the caller's own failed (nothing changed either)."""
        cdef int32_t bad = -1
        cdef int result
        if actions.shape[0] != self.n_games:
            raise CoreError(SG_ERROR_POSITION, f"{self.n_games} actions expected")
        self.enter()
        try:
            self.clear_errors()
            with nogil:
                result = sg_vec_step(self.env, &actions[0], &self.out, &bad)
            if result == SG_ERROR_POLICY:
                self.policy_failed()
        finally:
            self.busy = False
        return -1 if result == SG_ERROR_NONE else bad

    def sample(self, int32_t[::1] actions):
        """Writes a uniformly random legal action of every game's learner to move into
        `actions` (in C, without the GIL); returns -1, or 0 before a reset that went through
        (then nothing was written)."""
        cdef int32_t bad = -1
        cdef int result
        if actions.shape[0] != self.n_games:
            raise CoreError(SG_ERROR_POSITION, f"{self.n_games} actions expected")
        self.enter()
        try:
            with nogil:
                result = sg_vec_sample(self.env, &actions[0], &bad)
        finally:
            self.busy = False
        return -1 if result == SG_ERROR_NONE else bad

    def state(self, int i):
        """(the raw state bytes of game i, its slough being chosen)."""
        cdef uint64_t pending = 0
        cdef const sg_state *st
        self.enter()
        try:
            st = sg_vec_state(self.env, i, &pending)
            if st == NULL:
                raise CoreError(SG_ERROR_POSITION, "no such game")
            return (<const char *>st)[:sizeof(sg_state)], pending
        finally:
            self.busy = False
