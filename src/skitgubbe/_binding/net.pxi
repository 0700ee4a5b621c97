# net.pxi: the learned policy and value (src/_core/net.c): a weight file loaded into C, and
# its forward pass for one view. The searches take a Net through search.pxi.
# Included by skitgubbe/_core.pyx (one module, skitgubbe._core), in its order;
# not compiled on its own.


NET_FORMAT = SG_NET_FORMAT
NET_MAX_SIZE = sg_net_max_size()
"""Bytes of the largest valid weight file (every layer SG_NET_MAX_WIDTH wide): a reader
never needs to read more."""
WORLD_SIZE = sg_tensor_size() + SG_NET_WORLD_PLANES * 52
"""Floats of the world value's inputs (sg_net_world_features)."""

NET_ERRORS = {
    1: "its size is not what its header says (a truncated or padded file)",
    2: "it is not a skitgubbe weight file (no SGNET magic)",
    3: "it is a weight file of another format",
    4: "it was made for another observation tensor (another version of the core)",
    5: "its layer sizes are out of range or do not match its number of weights",
    6: "its checksum does not match its weights (a damaged file)",
    7: "it holds a weight that is not a finite number",
    8: "there is not enough memory to load it",
    9: "its header's reserved bytes are not zero",
    10: "its weights are so large that an evaluation could overflow a float32",
}

# Uses of a network in a search (the `net_use` bits of pimc and ismcts).
NET_PRIOR = 1    # ISMCTS: PUCT with the network's move probabilities
NET_LEAF = 2     # score leaves with the network's values instead of rollouts
NET_ROLLOUT = 4  # roll out with the network's best move


class NetLoadError(ValueError):
    """A weight file the core refuses: `code` (enum sg_net_error) and what it means."""

    def __init__(self, int code):
        super().__init__(NET_ERRORS.get(code, f"error {code}"))
        self.code = code


cdef class Net:
    """A network loaded from a weight file's bytes; read only, shared by any number of
    searches on any threads."""

    cdef sg_net *net

    def __cinit__(self):
        self.net = NULL

    def __dealloc__(self):
        sg_net_free(self.net)

    def __init__(self, bytes data):
        cdef sg_net *loaded = NULL
        cdef int code = sg_net_load(<const uint8_t *><const char *>data, len(data), &loaded)
        if code != SG_NET_ERROR_NONE:
            raise NetLoadError(code)
        self.net = loaded

    @property
    def shape(self):
        """(inputs, hidden1, hidden2, action, world1, world2)."""
        cdef uint32_t shape[6]
        sg_net_shape(self.net, shape)
        return (shape[0], shape[1], shape[2], shape[3], shape[4], shape[5])

    def world_value(self, Core world):
        """Each seat's world value in a whole game state (a sampled world, or a test's)."""
        cdef double value[SG_MAX_PLAYERS]
        cdef const sg_state *st = core_state(world)
        if sg_net_world_value(self.net, st, value) != SG_ERROR_NONE:
            raise CoreError(SG_ERROR_SEAT, "nobody is to move")
        return tuple(value[i] for i in range(st.rules.players))

    def run(self, bytes view):
        """([(move, logit)] for the legal moves, (value of each seat)) for the player to
        move in a checked view (Core.view)."""
        cdef sg_state st
        cdef sg_move moves[SG_MAX_MOVES]
        cdef float logits[SG_MAX_MOVES]
        cdef double value[SG_MAX_PLAYERS]
        cdef int n, i
        load_view(&st, view)
        n = sg_legal_moves(&st, moves)
        with nogil:
            sg_net_run(self.net, &st, moves, n, logits, value)
        return ([(moves[i], logits[i]) for i in range(n)],
                tuple(value[i] for i in range(st.rules.players)))


def net_checksum(bytes data):
    """FNV-1a (32 bits) of `data`, as a weight file's header holds it for its weights."""
    return sg_net_checksum(<const uint8_t *><const char *>data, len(data))


cdef int set_net(sg_search_policy *sp, Net net, int use) except -1:
    """Adds `net` to `sp` for the uses `use` (NET_* bits); checks they fit what is set."""
    if net is None:
        if use:
            raise ValueError("a search told to use a network was given none")
        return 0
    if use & NET_ROLLOUT:
        if sp.choose != NULL:
            raise ValueError("a search rolls out with one policy: the network or its own")
        sp.choose = sg_net_choose
        sp.choose_ctx = <void *>net.net
    if use & NET_PRIOR:
        sp.net = net.net
    if use & NET_LEAF:
        if sp.evaluate != NULL:
            raise ValueError("a search scores leaves with one evaluation: the network or its own")
        if use & NET_PRIOR and sp.choose == NULL:
            sp.net_leaf = 1  # the values of the evaluation that gave the priors
        else:
            sp.evaluate = sg_net_evaluate
            sp.evaluate_ctx = <void *>net.net
    return 0


def outcome_samples(tuple rules, uint64_t seed, uint64_t first, int games, int per_game,
                    int policy, float[::1] features, float[::1] values, float[::1] masks,
                    int rollouts=0):
    """Rows of (world value inputs, each seat's outcome, mask) from games played in C by
    a built-in policy (sg_outcome_samples); returns how many rows were written."""
    cdef sg_rules r
    cdef int32_t written
    fill_rules(&r, rules)
    if games < 0 or not 1 <= per_game <= 64 or not 0 <= rollouts <= 1024:
        raise ValueError("games must be >= 0, per_game 1 .. 64 and rollouts 0 .. 1024")
    rows = <Py_ssize_t>games * per_game
    if (features.shape[0] < rows * WORLD_SIZE or values.shape[0] < rows * 4
            or masks.shape[0] < rows * 4):
        raise ValueError(f"the arrays hold fewer than {rows} rows")
    with nogil:
        written = sg_outcome_samples(&r, seed, first, games, per_game, policy, rollouts,
                                     &features[0], &values[0], &masks[0])
    if written < 0:
        raise ValueError("bad rules or arguments")
    return written
