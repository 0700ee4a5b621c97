# vector.pxi: VecCore: the C vector environment (sg_vec), n games a call without the GIL.
# Included by skitgubbe/_core.pyx (one module, skitgubbe._core), in its order;
# not compiled on its own.


VEC_LEARNER = SG_VEC_LEARNER

VEC_IN_USE = ("VectorEnv is in use by another thread (or by a policy inside its own step): "
              "one call at a time; nothing changed")


cdef class VecCore:
    """The C vector environment (sg_vec): n games stepped by one call without the GIL.

    The caller owns the output arrays (C-contiguous numpy arrays or any
    writable buffers of the right types and sizes); step() writes into them.
    One call at a time: a call made while another is inside (on another thread,
    whose call released the GIL, or from a policy called by the step) raises
    ConcurrentUseError and changes nothing.
    """

    cdef sg_vec *env
    cdef readonly int n_games
    cdef readonly int players
    cdef sg_search_policy custom[4]
    cdef list custom_hooks
    cdef float[:, ::1] obs
    cdef uint8_t[:, ::1] masks
    cdef float[:, ::1] rewards
    cdef uint8_t[::1] terminated
    cdef uint8_t[::1] truncated
    cdef int32_t[::1] seat
    cdef uint64_t[::1] games
    cdef sg_vec_out out
    cdef bint busy  # a call is inside; read and set with the GIL held, so no two enter

    def __cinit__(self, tuple rules, int n_games, uint64_t seed, tuple policies,
                  float[:, ::1] obs, uint8_t[:, ::1] masks, float[:, ::1] rewards,
                  uint8_t[::1] terminated, uint8_t[::1] truncated, int32_t[::1] seat,
                  uint64_t[::1] games):
        cdef sg_rules r
        cdef int32_t p[4]
        cdef int i
        fill_rules(&r, rules)
        if len(policies) != r.players:
            raise CoreError(SG_ERROR_SEAT, "one policy per seat")
        for i in range(4):
            p[i] = policies[i] if i < r.players else SG_VEC_LEARNER
        if (obs.shape[0] != n_games or obs.shape[1] != TENSOR_SIZE
                or masks.shape[0] != n_games or masks.shape[1] != SG_NUM_ACTIONS
                or rewards.shape[0] != n_games or rewards.shape[1] != SG_MAX_PLAYERS
                or terminated.shape[0] != n_games or truncated.shape[0] != n_games
                or seat.shape[0] != n_games or games.shape[0] != n_games):
            raise CoreError(SG_ERROR_POSITION, "output arrays of the wrong shape")
        self.env = sg_vec_new(&r, n_games, seed, p)
        if self.env == NULL:
            raise CoreError(SG_ERROR_RULES, "cannot make this vector environment")
        self.n_games = n_games
        self.players = r.players
        self.obs, self.masks, self.rewards = obs, masks, rewards
        self.terminated, self.truncated, self.seat, self.games = terminated, truncated, seat, games
        self.out.obs = &obs[0, 0]
        self.out.masks = &masks[0, 0]
        self.out.rewards = &rewards[0, 0]
        self.out.terminated = &terminated[0]
        self.out.truncated = &truncated[0]
        self.out.seat = &seat[0]
        self.out.seeds = NULL  # the seeds deal every hand: not an output (see games)
        self.out.games = &games[0]

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
