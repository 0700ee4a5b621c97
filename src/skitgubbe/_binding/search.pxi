# search.pxi: the searches (PIMC, ISMCTS) and their hooks: sampled worlds, the greedy move,
# and rollout policies and evaluations of the caller's own (C or Python).
# Included by skitgubbe/_core.pyx (one module, skitgubbe._core), in its order;
# not compiled on its own.


def view_check(bytes view):
    """0 when `view` is a view the search can work on, else the failed check's number."""
    cdef sg_state st
    if len(view) != sizeof(sg_state):
        return -1
    memcpy(&st, <const char *>view, sizeof(sg_state))
    return sg_view_check(&st)


def sample_world(bytes view, uint64_t seed):
    """A Core dealt from a view (Core.view) with the generator seeded by `seed`."""
    cdef sg_state st
    cdef sg_rng rng
    cdef Core world = Core.__new__(Core)
    load_view(&st, view)
    sg_rng_seed(&rng, seed)
    sg_sample_world(&st, &rng, world.st)
    return world


ISMCTS_MERGE = SG_ISMCTS_MERGE
"""The flag of ismcts_rewards that merges equivalent moves (sg_merge_moves)."""
BELIEF_LIMITS = (SG_BELIEF_SLOTS, SG_BELIEF_NEEDS, SG_BELIEF_CASES)
"""The most slots, needs of a case and cases of a seat a belief holds."""
SAMPLE_TRIES = SG_SAMPLE_TRIES
"""The proposals sample_belief draws before it falls back."""
SAMPLE_EXACT = SG_SAMPLE_EXACT
SAMPLE_FALLBACK = SG_SAMPLE_FALLBACK
SAMPLE_UNIFORM = SG_SAMPLE_UNIFORM


cdef class Belief:
    """A belief of sg_sample_belief (skitgubbe.h), made from each seat's cases: per seat
    a sequence of (weight, forbid, needs), forbid one rank mask per slot, needs a sequence
    of (ranks, slots) pairs (skitgubbe.game.worlds builds them)."""

    cdef sg_belief *b

    def __cinit__(self):
        self.b = <sg_belief *>PyMem_Malloc(sizeof(sg_belief))
        if self.b == NULL:
            raise MemoryError()
        memset(self.b, 0, sizeof(sg_belief))

    def __init__(self, cases):
        cdef int p, c, j
        memset(self.b, 0, sizeof(sg_belief))
        seats = tuple(cases)
        if len(seats) > 4:
            raise ValueError(f"a belief has at most 4 seats, not {len(seats)}")
        for p, seat_cases in enumerate(seats):
            seat_cases = tuple(seat_cases)
            if len(seat_cases) > SG_BELIEF_CASES:
                raise ValueError(f"seat {p} has {len(seat_cases)} cases, more than "
                                 f"{SG_BELIEF_CASES}")
            self.b.n_cases[p] = <uint16_t>len(seat_cases)
            for c, (weight, forbid, needs) in enumerate(seat_cases):
                forbid, needs = tuple(forbid), tuple(needs)
                if len(forbid) > SG_BELIEF_SLOTS or len(needs) > SG_BELIEF_NEEDS:
                    raise ValueError(f"seat {p}, case {c}: at most {SG_BELIEF_SLOTS} slots "
                                     f"and {SG_BELIEF_NEEDS} needs")
                self.b.cases[p][c].weight = weight
                self.b.cases[p][c].n_slots = <uint8_t>len(forbid)
                self.b.cases[p][c].n_needs = <uint8_t>len(needs)
                for j, ranks in enumerate(forbid):
                    self.b.cases[p][c].forbid[j] = ranks
                for j, (ranks, slots) in enumerate(needs):
                    self.b.cases[p][c].need_ranks[j] = ranks
                    self.b.cases[p][c].need_slots[j] = slots

    def __dealloc__(self):
        PyMem_Free(self.b)

    def check(self, bytes view):
        """0 when this belief fits `view`, else the failed check of sg_belief_check."""
        cdef sg_state st
        load_view(&st, view)
        return sg_belief_check(&st, self.b)


def sample_belief(bytes view, Belief belief, uint64_t seed):
    """(a Core dealt from a view and a belief by sg_sample_belief with the generator seeded
    by `seed`, its outcome: SAMPLE_EXACT, _FALLBACK or _UNIFORM)."""
    cdef sg_state st
    cdef sg_rng rng
    cdef Core world = Core.__new__(Core)
    cdef int outcome
    load_view(&st, view)
    sg_rng_seed(&rng, seed)
    outcome = sg_sample_belief(&st, belief.b, &rng, world.st)
    return world, outcome


def sample_hands(bytes view, Belief belief, uint64_t seed, int count):
    """`count` worlds dealt from a view (as sample_belief, one generator seeded by `seed`;
    belief None: sg_sample_world): ([(hands, stock, hidden card)], outcomes), each world's
    hands a tuple of 4 masks, its stock the bytes of its stock's cards, and outcomes how
    many draws were SAMPLE_EXACT, _FALLBACK and _UNIFORM."""
    cdef sg_state st
    cdef sg_state world
    cdef sg_rng rng
    cdef int outcome
    cdef int i
    cdef list out = []
    cdef list outcomes = [0, 0, 0]
    load_view(&st, view)
    sg_rng_seed(&rng, seed)
    for i in range(count):
        if belief is None:
            sg_sample_world(&st, &rng, &world)
            outcome = SG_SAMPLE_EXACT
        else:
            outcome = sg_sample_belief(&st, belief.b, &rng, &world)
        outcomes[outcome] += 1
        out.append(((world.hand[0], world.hand[1], world.hand[2], world.hand[3]),
                    PyBytes_FromStringAndSize(<const char *>world.stock + world.stock_top,
                                              world.stock_len - world.stock_top),
                    world.hidden_card))
    return out, tuple(outcomes)


def merged_moves(bytes view):
    """The legal moves of the player to move in a view, one of each class of equivalent
    moves (sg_merge_moves)."""
    cdef sg_state st
    cdef sg_move moves[SG_MAX_MOVES]
    cdef int n
    load_view(&st, view)
    n = sg_legal_moves(&st, moves)
    n = sg_merge_moves(&st, moves, n)
    return [moves[i] for i in range(n)]


def greedy_move(bytes view):
    """The greedy policy's move for the player to move in a view."""
    cdef sg_state st
    load_view(&st, view)
    return sg_greedy_move(&st)


# -- rollout policies and evaluations of the caller's own (skitgubbe.bots.policy) ---------------

POLICY_ABI = SG_POLICY_ABI
"""The version of skitgubbe_policy.h's table of accessors this core calls policies with."""


class SearchPolicyError(Exception):
    """A search stopped by its policy or evaluation: (error, detail) as the core wrote them
    (enum sg_policy_error); skitgubbe.bots.policy turns it into a PolicyError naming them."""

    def __init__(self, int error, detail):
        super().__init__(error, detail)
        self.error = error
        self.detail = detail


cdef class Position:
    """A position of a sampled world, as a Python rollout policy or evaluation reads it
    (skitgubbe_policy.h's accessors); valid only during the call it is given to."""

    cdef const sg_position *pos

    cdef inline const sg_position *get(self) except NULL:
        if self.pos == NULL:
            raise ValueError("a Position can be read only during the call it was given to")
        return self.pos

    @property
    def players(self):
        cdef const sg_position *p = self.get()
        return p.api.players(p)

    @property
    def to_move(self):
        cdef const sg_position *p = self.get()
        return p.api.to_move(p)

    @property
    def phase(self):
        cdef const sg_position *p = self.get()
        return p.api.phase(p)

    @property
    def trump(self):
        cdef const sg_position *p = self.get()
        return p.api.trump(p)

    @property
    def stock_size(self):
        cdef const sg_position *p = self.get()
        return p.api.stock_size(p)

    @property
    def table(self):
        cdef const sg_position *p = self.get()
        return p.api.table(p)

    @property
    def top_play(self):
        cdef const sg_position *p = self.get()
        return p.api.top_play(p)

    @property
    def top_seat(self):
        cdef const sg_position *p = self.get()
        return p.api.top_seat(p)

    @property
    def out_of_play(self):
        cdef const sg_position *p = self.get()
        return p.api.out_of_play(p)

    @property
    def n_moves(self):
        cdef const sg_position *p = self.get()
        return p.api.n_moves(p)

    @property
    def greedy(self):
        cdef const sg_position *p = self.get()
        return p.api.greedy(p)

    def hand(self, int32_t seat):
        cdef const sg_position *p = self.get()
        return p.api.hand(p, seat)

    def collection(self, int32_t seat):
        cdef const sg_position *p = self.get()
        return p.api.collection(p, seat)

    def is_out(self, int32_t seat):
        cdef const sg_position *p = self.get()
        return bool(p.api.out(p, seat))

    def move_kind(self, int32_t i):
        cdef const sg_position *p = self.get()
        return p.api.move_kind(p, i)

    def move_cards(self, int32_t i):
        cdef const sg_position *p = self.get()
        return p.api.move_cards(p, i)

    def moves(self):
        cdef const sg_position *p = self.get()
        cdef int32_t i
        return [(p.api.move_kind(p, i), p.api.move_cards(p, i)) for i in range(p.api.n_moves(p))]


cdef class PyHook:
    """A Python policy or evaluation called by the C search, and the exception it raised."""

    cdef object func
    cdef object error
    cdef Position position

    def __init__(self, func):
        self.func = func
        self.error = None
        self.position = Position.__new__(Position)


cdef int32_t py_choose(const sg_position *pos, void *ctx) noexcept with gil:
    cdef PyHook hook = <PyHook>ctx
    cdef Position view = hook.position
    cdef int32_t n = pos.api.n_moves(pos)
    view.pos = pos
    try:
        answer = hook.func(view)
        if type(answer) is not int:
            raise TypeError(f"a rollout policy returns a move index (an int), not {answer!r}")
        if not 0 <= answer < n:
            raise ValueError(f"returned move index {answer}, but the position has {n} "
                             f"legal moves (0 to {n - 1})")
        return answer
    except BaseException as exc:
        hook.error = exc
        return -1
    finally:
        view.pos = NULL


cdef int32_t py_evaluate(const sg_position *pos, void *ctx, double *value) noexcept with gil:
    cdef PyHook hook = <PyHook>ctx
    cdef Position view = hook.position
    cdef int32_t players = pos.api.players(pos)
    cdef int i
    view.pos = pos
    try:
        answer = hook.func(view)
        if answer is None:
            return 0
        values = [float(v) for v in answer]
        if len(values) != players:
            raise ValueError(f"an evaluation returns None or one value per seat ({players}), "
                             f"not {answer!r}")
        for i in range(players):
            if not 0.0 <= values[i] <= 1.0:
                raise ValueError(f"an evaluation's values are chances in [0, 1], not {answer!r}")
            value[i] = values[i]
        return 1
    except BaseException as exc:
        hook.error = exc
        return -1
    finally:
        view.pos = NULL


cdef tuple set_policy(sg_search_policy *sp, int builtin, object choose, object evaluate):
    """Fill `sp`: `choose`/`evaluate` None, a C function's address (an int) or a Python
    callable; returns the hooks to keep alive during the search."""
    sp.builtin = builtin
    sp.error = 0
    sp.detail = 0
    sp.choose = NULL
    sp.choose_ctx = NULL
    sp.evaluate = NULL
    sp.evaluate_ctx = NULL
    sp.net = NULL
    sp.net_leaf = 0
    sp.reserved = 0
    hooks = []
    if type(choose) is int:
        if choose == 0:
            raise ValueError("a C policy's address cannot be 0")
        sp.choose = <sg_policy_fn><uintptr_t>choose
    elif choose is not None:
        hook = PyHook(choose)
        hooks.append(hook)
        sp.choose = py_choose
        sp.choose_ctx = <void *>hook
    if type(evaluate) is int:
        if evaluate == 0:
            raise ValueError("a C evaluation's address cannot be 0")
        sp.evaluate = <sg_evaluate_fn><uintptr_t>evaluate
    elif evaluate is not None:
        hook = PyHook(evaluate)
        hooks.append(hook)
        sp.evaluate = py_evaluate
        sp.evaluate_ctx = <void *>hook
    return tuple(hooks)


cdef int raise_policy(sg_search_policy *sp, tuple hooks) except -1:
    cause = None
    for hook in hooks:
        if (<PyHook>hook).error is not None:
            cause = (<PyHook>hook).error
    raise SearchPolicyError(sp.error, sp.detail) from cause


def pimc(bytes view, int worlds, int rollouts, int policy, uint32_t cap, uint64_t seed,
         choose=None, evaluate=None, Net net=None, int net_use=0, Belief belief=None):
    """[(move, mean reward)] for every legal move of the player to move in a view; `choose`
    and `evaluate` as in set_policy (SearchPolicyError when one of them fails), `net` used
    as `net_use` says (NET_LEAF, NET_ROLLOUT; see set_net), worlds sampled from `belief`
    (None: uniformly)."""
    cdef sg_state st
    cdef sg_move moves[SG_MAX_MOVES]
    cdef double scores[SG_MAX_MOVES]
    cdef int n
    cdef sg_search_policy sp
    cdef const sg_belief *b = NULL if belief is None else belief.b
    load_view(&st, view)
    hooks = set_policy(&sp, policy, choose, evaluate)
    set_net(&sp, net, net_use & ~NET_PRIOR)
    with nogil:
        n = sg_pimc_search(&st, b, worlds, rollouts, &sp, cap, seed, moves, scores)
    if sp.error:
        raise_policy(&sp, hooks)
    return [(moves[i], scores[i]) for i in range(n)]


def ismcts(bytes view, uint32_t iterations, double seconds, double exploration, int policy,
           uint32_t cap, uint64_t seed, choose=None, evaluate=None, Net net=None,
           int net_use=0, uint32_t solver=0, Belief belief=None, uint32_t flags=0):
    """(best move, [(move, visits)], iterations, nodes, seconds) of a search without the GIL;
    `choose` and `evaluate` as in set_policy (SearchPolicyError when one of them fails),
    `net` used as `net_use` says (NET_* bits; see set_net), leaves of at most `solver`
    cards in two hands in phase 2 solved (sg_ismcts_params.solver; 0: never), worlds
    sampled from `belief` (None: uniformly), `flags` the ISMCTS_* bits."""
    best, root, done, nodes, took = ismcts_rewards(
        view, iterations, seconds, exploration, policy, cap, seed, choose, evaluate, net, net_use,
        solver, belief=belief, flags=flags)
    return (best, [(move, visits) for move, visits, _ in root], done, nodes, took)


PLAYOUT_PLAIN = SG_PLAYOUT_KIND_PLAIN
PLAYOUT_MAST = SG_PLAYOUT_KIND_MAST
PLAYOUT_NAST = SG_PLAYOUT_KIND_NAST
PLAYOUT_TEMPERATURE = SG_PLAYOUT_TEMPERATURE
"""The default Gibbs temperature of MAST and NAST playouts."""
NAST_MIN_VISITS = SG_NAST_MIN_VISITS
"""The visits from which NAST uses a pair of moves' mean rather than the move's."""


def ismcts_rewards(bytes view, uint32_t iterations, double seconds, double exploration,
                   int policy, uint32_t cap, uint64_t seed, choose=None, evaluate=None,
                   Net net=None, int net_use=0, uint32_t solver=0,
                   int playout=SG_PLAYOUT_KIND_PLAIN, double random_fraction=0.25,
                   double temperature=SG_PLAYOUT_TEMPERATURE, double blend=1.0,
                   Belief belief=None, uint32_t flags=0):
    """ismcts, with each root move's total reward for the player to move:
    (best move, [(move, visits, reward)], iterations, nodes, seconds); `playout`
    (PLAYOUT_*), `random_fraction`, `temperature` and `blend` as sg_playout says."""
    cdef sg_state st
    cdef sg_ismcts_params params
    cdef sg_ismcts_stats stats
    cdef sg_playout settings
    cdef sg_move moves[SG_MAX_MOVES]
    cdef uint32_t visits[SG_MAX_MOVES]
    cdef double rewards[SG_MAX_MOVES]
    cdef int n = 0
    cdef sg_move best
    cdef sg_search_policy sp
    cdef const sg_belief *b = NULL if belief is None else belief.b
    load_view(&st, view)
    sg_playout_defaults(&settings)
    settings.kind = playout
    settings.random_fraction = random_fraction
    settings.temperature = temperature
    settings.blend = blend
    params.iterations = iterations
    params.seconds = seconds
    params.exploration = exploration
    params.policy = policy
    params.rollout_cap = cap
    params.seed = seed
    params.solver = solver
    params.flags = flags
    params.reserved = 0
    hooks = set_policy(&sp, policy, choose, evaluate)
    set_net(&sp, net, net_use)
    with nogil:
        best = sg_ismcts_search(&st, b, &params, &sp, &settings, &stats, moves, visits, rewards,
                                &n)
    if sp.error:
        raise_policy(&sp, hooks)
    return (best, [(moves[i], visits[i], rewards[i]) for i in range(n)], stats.iterations,
            stats.nodes, stats.seconds)
