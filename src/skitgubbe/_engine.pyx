# cython: language_level=3
"""Thin binding of the C core (src/_core/skitgubbe.h) for CPython.

Everything here speaks the core's own numbers: cards are bit indices
(suit * 16 + rank), card sets are 64-bit masks, moves are the core's 64-bit
codes, events are (kind, seat, arg, cards) tuples.  The typed API in
skitgubbe.game turns them into Card, CardSet, Move and Event objects.
"""
cimport cython
from libc.stdint cimport int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t, uintptr_t
from cpython.bytes cimport PyBytes_FromStringAndSize
from cpython.mem cimport PyMem_Free, PyMem_Malloc
from cpython.ref cimport Py_INCREF, Py_REFCNT
from cpython.tuple cimport PyTuple_New, PyTuple_SET_ITEM
from cpython.unicode cimport PyUnicode_AsUTF8AndSize
from libc.stdlib cimport free, realloc
from libc.string cimport memcmp, memcpy, memmove, memset, strlen

from skitgubbe._engine cimport *
from skitgubbe.errors import StateError

MAX_PLAYERS = SG_MAX_PLAYERS
NO_SEAT = SG_NO_SEAT
NO_SUIT = SG_NO_SUIT
NO_CARD = SG_NO_CARD
RNG_VERSION = SG_RNG_VERSION
API_VERSION = SG_API_VERSION

RULES_BAD_VALUE = SG_RULES_ERROR_BAD_VALUE
RULES_CONFLICT = SG_RULES_ERROR_CONFLICT


class CoreError(Exception):
    """The core refused a call; args = (code, message)."""


class ViewError(CoreError, ValueError):
    """Bytes given as a seat's view that are not one (tampered or of another version)."""


_RULE_KINDS = ("int", "bool", "enum", "optional_int")
RULES_PRESETS = ("classic", "modern")


def rule_fields():
    """The C core's table of rule fields, in table order: one dict per field
    (name, kind, min, max, step, classic, values, doc), converted by name."""
    cdef int count = 0
    cdef const sg_rule_field *fields = sg_rule_fields(&count)
    cdef int i
    cdef uint32_t v
    out = []
    for i in range(count):
        entry = fields[i]
        out.append({
            "name": entry.name.decode(),
            "kind": _RULE_KINDS[entry.kind],
            "min": entry.min,
            "max": entry.max,
            "step": entry.step,
            "classic": entry.classic,
            "values": tuple([entry.values[v].decode() for v in range(entry.n_values)]),
            "doc": entry.doc.decode(),
        })
    return tuple(out)


cdef int fill_rules(sg_rules *r, tuple values) except -1:
    """Set every field of r from `values`, the core's numbers in table order."""
    cdef int count = 0
    cdef int i
    sg_rule_fields(&count)
    if len(values) != count:
        raise CoreError(SG_ERROR_RULES, f"the core has {count} rule fields, not {len(values)}")
    memset(r, 0, sizeof(sg_rules))
    for i in range(count):
        if sg_rules_set(r, i, values[i]) != SG_RULES_ERROR_NONE:
            raise CoreError(SG_ERROR_RULES, f"rule field {i} cannot be {values[i]!r}")
    return 0


cdef tuple rules_values(const sg_rules *r):
    cdef int count = 0
    sg_rule_fields(&count)
    return tuple([sg_rules_get(r, i) for i in range(count)])


def rules_preset(str name, int players):
    """The core's numbers of preset `name` ("classic" or "modern") for `players`, in table order."""
    cdef sg_rules r
    if not 2 <= players <= SG_MAX_PLAYERS:
        raise CoreError(SG_ERROR_RULES, f"no preset for {players} players")
    memset(&r, 0, sizeof(sg_rules))
    if name == "classic":
        sg_rules_classic(&r, <uint8_t>players)
    elif name == "modern":
        sg_rules_modern(&r, <uint8_t>players)
    else:
        raise CoreError(SG_ERROR_RULES, f"no preset called {name!r}")
    return rules_values(&r)


def rules_check(tuple rules):
    """(code, field) for the core's numbers of a set of rules: code 0 = fine,
    else RULES_CONFLICT or RULES_BAD_VALUE and the field the core names."""
    cdef sg_rules r
    cdef const char *field = NULL
    fill_rules(&r, rules)
    code = sg_rules_check(&r, &field)
    return code, (field.decode() if field != NULL else None)


def illegal_reasons():
    """The names of every reason sg_why_illegal can give, in the core's order."""
    cdef int i = 0
    names = []
    while sg_illegal_name(i) != NULL:
        names.append(sg_illegal_name(i).decode())
        i += 1
    return tuple(names)


def rng_outputs(uint64_t seed, int count):
    """The first `count` outputs of the generator seeded with `seed`."""
    cdef sg_rng rng
    sg_rng_seed(&rng, seed)
    return [sg_rng_next(&rng) for _ in range(count)]


def rng_below(uint64_t seed, uint32_t bound, int count):
    """`count` unbiased draws in [0, bound) from the generator seeded with `seed`."""
    cdef sg_rng rng
    if bound == 0:
        raise ValueError("bound must be positive")
    sg_rng_seed(&rng, seed)
    return [sg_rng_below(&rng, bound) for _ in range(count)]


def deck_from_seed(uint64_t seed):
    """The deck (52 card indices, top first) of a game made from `seed`."""
    cdef uint8_t deck[52]
    sg_deck_from_seed(seed, deck)
    return bytes(deck[:52])


def game_seed(uint64_t seed, uint64_t index):
    """Seed of game `index` in a batch started from `seed`."""
    return sg_game_seed(seed, index)


def simulate(tuple rules, uint64_t seed, uint64_t first, uint64_t count):
    """Random games first..first+count-1 of batch `seed`, played in C without the GIL.

    Returns (games, moves, losses per seat (4), no_loser, truncated).
    """
    cdef sg_rules r
    cdef sg_sim_result res
    fill_rules(&r, rules)
    if sg_rules_check(&r, NULL) != SG_RULES_ERROR_NONE:
        raise CoreError(SG_ERROR_RULES, "bad rules")
    res.games = res.moves = res.no_loser = res.truncated = 0
    res.losses[0] = res.losses[1] = res.losses[2] = res.losses[3] = 0
    with nogil:
        sg_simulate(&r, seed, first, count, &res)
    return (res.games, res.moves, (res.losses[0], res.losses[1], res.losses[2], res.losses[3]),
            res.no_loser, res.truncated)


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


NUM_ACTIONS = SG_NUM_ACTIONS
SLOUGH_CARD_ACTION = SG_ACTION_SLOUGH_CARD
SLOUGH_DONE_ACTION = SG_ACTION_SLOUGH_DONE


def action_move(int action):
    """The move code action `action` plays alone, or None (a slough step, or out of range)."""
    cdef sg_move code = sg_action_move(action)
    return None if code == SG_NO_MOVE else code


def move_actions(uint64_t code):
    """The actions that play the move `code`, in order (empty: no action plays it)."""
    cdef uint16_t path[SG_MAX_ACTION_PATH]
    cdef int n = sg_move_actions(code, path)
    return tuple([path[i] for i in range(n)])


# The action ids as Python ints, made once: a tuple of legal actions shares them.
cdef tuple ACTION_INTS = tuple(range(SG_NUM_ACTIONS))


cdef tuple action_ids(const sg_state *st, uint64_t pending):
    """The legal actions, ascending, as a tuple of shared ints."""
    cdef uint16_t actions[SG_NUM_ACTIONS]
    cdef int n = sg_legal_actions(st, pending, actions)
    cdef int i
    cdef tuple out = PyTuple_New(n)
    for i in range(n):
        item = ACTION_INTS[actions[i]]
        Py_INCREF(item)
        PyTuple_SET_ITEM(out, i, item)
    return out


cdef tuple legal_actions_of(const sg_state *st, uint64_t pending):
    """(the legal actions ascending, their mask: bytes of SG_NUM_ACTIONS 0s and 1s)."""
    cdef uint16_t actions[SG_NUM_ACTIONS]
    cdef char mask[SG_NUM_ACTIONS]
    cdef int n = sg_legal_actions(st, pending, actions)
    cdef int i
    memset(mask, 0, SG_NUM_ACTIONS)
    for i in range(n):
        mask[actions[i]] = 1
    return tuple([actions[i] for i in range(n)]), mask[:SG_NUM_ACTIONS]


def view_actions(bytes view, uint64_t pending):
    """(legal actions ascending, mask bytes) of the player to move in a checked view."""
    cdef sg_state st
    load_view(&st, view)
    return legal_actions_of(&st, pending)


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


def greedy_move(bytes view):
    """The greedy policy's move for the player to move in a view."""
    cdef sg_state st
    load_view(&st, view)
    return sg_greedy_move(&st)


# -- rollout policies and evaluations of the caller's own (skitgubbe.policy) ---------------

POLICY_ABI = SG_POLICY_ABI
"""The version of skitgubbe_policy.h's table of accessors this core calls policies with."""


class SearchPolicyError(Exception):
    """A search stopped by its policy or evaluation: (error, detail) as the core wrote them
    (enum sg_policy_error); skitgubbe.policy turns it into a PolicyError naming them."""

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
         choose=None, evaluate=None):
    """[(move, mean reward)] for every legal move of the player to move in a view; `choose`
    and `evaluate` as in set_policy (SearchPolicyError when one of them fails)."""
    cdef sg_state st
    cdef sg_move moves[SG_MAX_MOVES]
    cdef double scores[SG_MAX_MOVES]
    cdef int n
    cdef sg_search_policy sp
    load_view(&st, view)
    hooks = set_policy(&sp, policy, choose, evaluate)
    with nogil:
        n = sg_pimc_with(&st, worlds, rollouts, &sp, cap, seed, moves, scores)
    if sp.error:
        raise_policy(&sp, hooks)
    return [(moves[i], scores[i]) for i in range(n)]


def ismcts(bytes view, uint32_t iterations, double seconds, double exploration, int policy,
           uint32_t cap, uint64_t seed, choose=None, evaluate=None):
    """(best move, [(move, visits)], iterations, nodes, seconds) of a search without the GIL;
    `choose` and `evaluate` as in set_policy (SearchPolicyError when one of them fails)."""
    cdef sg_state st
    cdef sg_ismcts_params params
    cdef sg_ismcts_stats stats
    cdef sg_move moves[SG_MAX_MOVES]
    cdef uint32_t visits[SG_MAX_MOVES]
    cdef int n = 0
    cdef sg_move best
    cdef sg_search_policy sp
    load_view(&st, view)
    params.iterations = iterations
    params.seconds = seconds
    params.exploration = exploration
    params.policy = policy
    params.rollout_cap = cap
    params.seed = seed
    params.reserved = 0
    hooks = set_policy(&sp, policy, choose, evaluate)
    with nogil:
        best = sg_ismcts_with(&st, &params, &sp, &stats, moves, visits, &n)
    if sp.error:
        raise_policy(&sp, hooks)
    return (best, [(moves[i], visits[i]) for i in range(n)], stats.iterations, stats.nodes,
            stats.seconds)


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
# missing one (skitgubbe.moves registers both): legal_move_objects hands out
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


cdef object EVENT_DECODER = None


def share_event_decoder(decoder):
    """Register the callable that turns packed raw events (bytes) into a tuple of Events."""
    global EVENT_DECODER
    EVENT_DECODER = decoder


@cython.no_gc
@cython.freelist(64)
cdef class Events:
    """The events one move caused, in order: an immutable sequence of Event objects.

    Game.play returns one.  The engine hands a move's events over packed; they
    become Event objects only when first read, so a loop that ignores them does
    not pay for them.  Equal to a tuple (or another Events) of the same events.
    """

    @staticmethod
    def of(tuple items):
        """Events holding `items` (already decoded)."""
        cdef Events events = Events.__new__(Events)
        events.items = items
        return events

    cdef tuple all(self):
        if self.items is None:
            if self.n_inline:
                self.items = EVENT_DECODER(
                    (<const char *>self.inline)[:self.n_inline * sizeof(sg_event)])
                self.n_inline = 0
            else:
                self.items = EVENT_DECODER(self.raw)
                self.raw = None
        return self.items

    def __len__(self):
        return len(self.all())

    def __getitem__(self, index):
        return self.all()[index]

    def __iter__(self):
        return iter(self.all())

    def __contains__(self, item):
        return item in self.all()

    def __eq__(self, other):
        if isinstance(other, Events):
            return self.all() == (<Events>other).all()
        if isinstance(other, tuple):
            return self.all() == other
        return NotImplemented

    def __hash__(self):
        return hash(self.all())

    def __repr__(self):
        return f"Events({list(self.all())!r})"

    def __reduce__(self):
        return (Events.of, (self.all(),))


cdef Events packed_events(const sg_event *buf, int n):
    cdef Events events = Events.__new__(Events)
    if 0 < n <= EVENTS_INLINE:  # most moves: one allocation, not two
        memcpy(events.inline, buf, n * sizeof(sg_event))
        events.n_inline = n
    else:
        events.raw = (<const char *>buf)[:n * sizeof(sg_event)]
    return events


cdef EMPTY_EVENTS = Events.of(())

# Every CHECKPOINT-th position of a history keeps its state (see Core).
cdef enum:
    CHECKPOINT = 32
HISTORY_CHECKPOINT = CHECKPOINT


# Positions reference only older positions, moves and events, never a newer
# position: they cannot form a cycle, so the garbage collector need not track
# them (games keep thousands alive; tracking them costs every collection).
@cython.no_gc
@cython.freelist(64)
cdef class Core:
    """One game state of the C core.  Value semantics: copy() is a memcpy.

    A Core made by play() is also a step of a game's history: it keeps the
    position before (parent), the move that led here and that move's events.
    Positions never change as seen from outside, so games share them.

    A history keeps its memory proportionate to its moves: play() drops the
    state (and the unread events) of a step that only the step after it
    refers to, except every CHECKPOINT-th move and the start; such a step's
    state is played again from the nearest older one when it is read (undo,
    say), and its events from its parent's state.
    """

    @staticmethod
    def deal(tuple rules, bytes deck, int dealer):
        """The Core of a new game, its events those of the deal; raises CoreError on bad input."""
        cdef sg_rules r
        cdef sg_event buf[SG_MAX_EVENTS]
        cdef sg_events ev
        cdef Core core = Core.__new__(Core)
        fill_rules(&r, rules)
        if len(deck) != 52:
            raise CoreError(SG_ERROR_DECK, "a deck has 52 cards")
        if not 0 <= dealer < r.players:
            raise CoreError(SG_ERROR_SEAT, "dealer out of range")
        ev.buf = buf
        ev.cap = SG_MAX_EVENTS
        ev.len = 0
        code = sg_new(core.st, &r, deck, <uint8_t>dealer, &ev)
        if code != SG_ERROR_NONE:
            raise CoreError(code, "cannot deal")
        core._events = packed_events(buf, ev.len)
        return core

    @staticmethod
    def shedding(tuple rules, tuple hands, int trump, int leader):
        """The Core of a phase-2 position, with its events; raises CoreError on bad input."""
        cdef sg_rules r
        cdef uint64_t h[4]
        cdef sg_event buf[SG_MAX_EVENTS]
        cdef sg_events ev
        cdef Core core = Core.__new__(Core)
        fill_rules(&r, rules)
        if len(hands) != 4:
            raise CoreError(SG_ERROR_POSITION, "four hand masks expected")
        if not 0 <= leader < r.players or not 0 <= trump <= SG_NO_SUIT:
            raise CoreError(SG_ERROR_SEAT, "leader or trump out of range")
        for i in range(4):
            h[i] = hands[i]
        ev.buf = buf
        ev.cap = SG_MAX_EVENTS
        ev.len = 0
        code = sg_new_shedding(core.st, &r, h, <uint8_t>trump, <uint8_t>leader, &ev)
        if code != SG_ERROR_NONE:
            raise CoreError(code, "cannot set up this position")
        core._events = packed_events(buf, ev.len)
        return core

    def __cinit__(self):
        self.st = <sg_state *>PyMem_Malloc(sizeof(sg_state))
        if self.st == NULL:
            raise MemoryError()
        self._events = EMPTY_EVENTS

    def __dealloc__(self):
        PyMem_Free(self.st)
        self.st = NULL
        # Free the history one position after another: letting each position
        # free its parent would recurse as deep as the game is long.
        cdef Core node = self.parent
        cdef Core older
        self.parent = None
        while node is not None and Py_REFCNT(node) == 1:
            older = node.parent
            node.parent = None
            node = older  # frees the position node was: its parent is gone
            older = None  # so that node is again the only reference

    @property
    def move(self):
        """The move that led here (a shared Move object), or None at a game's start."""
        return None if self.parent is None else move_object(self.code)

    @property
    def events(self):
        """The events of the move that led here (of the deal, at a game's start)."""
        cdef sg_state st
        cdef sg_event buf[SG_MAX_EVENTS]
        cdef sg_events ev
        if self._events is None:
            core_state_into(self.parent, &st)
            ev.buf = buf
            ev.cap = SG_MAX_EVENTS
            ev.len = 0
            if sg_apply(&st, self.code, &ev) != SG_ERROR_NONE:
                raise CoreError(0, "a history step does not replay")  # a core bug
            self._events = packed_events(buf, ev.len)
        return self._events

    @property
    def kept(self):
        """Whether this position holds its state now (False: dropped, played again on use)."""
        return self.st != NULL

    def with_events(self, tuple events):
        """This state alone (see copy), its events `events`: a game's start when unpickled."""
        cdef Core other = self.copy()
        other._events = Events.of(events)
        return other

    def copy(self):
        """This state alone: no parent, no move, no events."""
        cdef Core other = Core.__new__(Core)
        memcpy(other.st, core_state(self), sizeof(sg_state))
        return other

    def legal_codes(self):
        """Legal move codes in the core's canonical order."""
        cdef sg_move moves[SG_MAX_MOVES]
        cdef int n = sg_legal_moves(core_state(self), moves)
        return [moves[i] for i in range(n)]

    def legal_move_objects(self):
        """The legal moves as the typed layer's shared Move objects (see share_moves)."""
        cdef sg_move moves[SG_MAX_MOVES]
        cdef int n = sg_legal_moves(core_state(self), moves)
        cdef int i
        cdef tuple out = PyTuple_New(n)
        for i in range(n):
            move = move_object(moves[i])
            Py_INCREF(move)
            PyTuple_SET_ITEM(out, i, move)
        return out

    def play(self, uint64_t code):
        """The position after the move with core code `code`, linked back to this one.

        The new Core records this Core as its parent, the move, and the move's
        events (an Events sequence); this Core is unchanged.  Raises CoreError
        when the move is not legal.  A slough being chosen (pending) is dropped.
        """
        cdef sg_event buf[SG_MAX_EVENTS]
        cdef sg_events ev
        cdef Core child = Core.__new__(Core)
        memcpy(child.st, core_state(self), sizeof(sg_state))
        ev.buf = buf
        ev.cap = SG_MAX_EVENTS
        ev.len = 0
        result = sg_apply(child.st, code, &ev)
        if result != SG_ERROR_NONE:
            raise CoreError(result, "illegal move" if result == SG_ERROR_ILLEGAL else "game over")
        return core_attach(core_settled(self), child, code, buf, ev.len)

    def state_tensor(self, tuple recent, float[::1] out):
        """Writes the whole state's tensor (STATE_TENSOR_SIZE floats) into `out`."""
        cdef sg_public_move moves[SG_TENSOR_RECENT]
        cdef int n = fill_recent(moves, recent)
        if out.shape[0] != STATE_TENSOR_SIZE:
            raise CoreError(SG_ERROR_POSITION, f"a state tensor has {STATE_TENSOR_SIZE} floats")
        sg_state_tensor(core_state(self), moves, n, &out[0])

    def legal_actions(self):
        """(the legal integer actions ascending, their mask as bytes), given the
        slough being chosen."""
        return legal_actions_of(core_state(self), self.pending)

    def __reduce__(self):
        return (from_snapshot, (self.snapshot(),))

    def apply(self, uint64_t move):
        """Plays `move` and returns its events; raises CoreError, unchanged, if illegal."""
        cdef sg_event buf[SG_MAX_EVENTS]
        cdef sg_events ev
        ev.buf = buf
        ev.cap = SG_MAX_EVENTS
        ev.len = 0
        code = sg_apply(core_state(self), move, &ev)
        if code != SG_ERROR_NONE:
            raise CoreError(code, "illegal move" if code == SG_ERROR_ILLEGAL else "game over")
        if ev.len > ev.cap:
            raise CoreError(0, "event buffer overflow")  # a core bug; caught by tests
        return events_list(buf, ev.len)

    def observe(self, int seat):
        """What `seat` may see (sg_observe), as a dict keyed by the names of the C
        struct sg_observation's fields, arrays cut to their length; plus
        "legal_moves", the seat's legal moves as shared Move objects when it is
        to move (else an empty tuple)."""
        cdef sg_observation o
        cdef int n, i
        if not 0 <= seat < core_state(self).rules.players:
            raise CoreError(SG_ERROR_SEAT, "seat out of range")
        sg_observe(core_state(self), <uint8_t>seat, &o)
        n = o.players
        return {
            "seat": o.seat,
            "players": n,
            "phase": o.phase,
            "to_move": o.to_move,
            "dealer": o.dealer,
            "trump": o.trump,
            "hand": o.hand,
            "collection": o.collection,
            "table_cards": tuple([o.table_cards[i] for i in range(o.n_table_plays)]),
            "table_seat": tuple([o.table_seat[i] for i in range(o.n_table_plays)]),
            "hand_sizes": tuple([o.hand_sizes[i] for i in range(n)]),
            "collection_sizes": tuple([o.collection_sizes[i] for i in range(n)]),
            "stock_size": o.stock_size,
            "out_of_play": o.out_of_play,
            "hidden_holder": o.hidden_holder,
            "known": tuple([o.known[i] for i in range(n)]),
            "unknown": o.unknown,
            "unknown_slots": tuple([o.unknown_slots[i] for i in range(n)]),
            "stock_slots": o.stock_slots,
            "hidden_slots": o.hidden_slots,
            "finished": tuple([o.finished[i] for i in range(o.n_finished)]),
            "moves_played": o.moves_played,
            "upcard": o.upcard,
            "slough_winner": o.slough_winner,
            "legal_moves": self.legal_move_objects() if o.to_move == seat else (),
        }

    def result(self):
        """How the game ended (sg_game_result) as a dict keyed by the names of the
        C struct sg_result's fields, or None while it goes on."""
        cdef sg_result r
        cdef int i
        if sg_game_result(core_state(self), &r) != SG_ERROR_NONE:
            return None
        return {
            "loser": r.loser,
            "finish_order": tuple([r.finish_order[i] for i in range(r.n_finish)]),
            "truncated": bool(r.truncated),
            "moves": r.moves,
        }

    def why_illegal(self, uint64_t move):
        """(reason, detail) for `move` (sg_why_illegal): the reason's name
        ("none" when the move is legal) and its detail mask or number."""
        cdef uint64_t detail = 0
        reason = sg_why_illegal(core_state(self), move, &detail)
        return sg_illegal_name(reason).decode(), detail

    def view(self, int seat):
        """What `seat` knows, as the raw bytes of a view state (see sg_view)."""
        cdef sg_state view
        if not 0 <= seat < core_state(self).rules.players:
            raise CoreError(SG_ERROR_SEAT, "seat out of range")
        sg_view(core_state(self), <uint8_t>seat, &view)
        return (<char *>&view)[:sizeof(sg_state)]

    def table_plays(self):
        """The plays on the table, bottom first, as (seat, card mask)."""
        cdef int i
        cdef list plays = []
        cdef uint64_t mask = 0
        for i in range(core_state(self).table_len):
            if i and core_state(self).table_play[i] != core_state(self).table_play[i - 1]:
                plays.append((core_state(self).table_seat[i - 1], mask))
                mask = 0
            mask |= (<uint64_t>1) << core_state(self).table[i]
        if core_state(self).table_len:
            plays.append((core_state(self).table_seat[core_state(self).table_len - 1], mask))
        return plays

    def table(self):
        """Table cards bottom first as (card, seat, play number)."""
        cdef int i
        return [(core_state(self).table[i], core_state(self).table_seat[i], core_state(self).table_play[i])
                for i in range(core_state(self).table_len)]

    def stock(self):
        """Remaining stock card indices, top first."""
        return bytes(core_state(self).stock[core_state(self).stock_top:core_state(self).stock_len])

    def snapshot(self):
        """The raw state as bytes (for equality checks in tests)."""
        return (<char *>core_state(self))[:sizeof(sg_state)]

    def __eq__(self, other):
        if not isinstance(other, Core):
            return NotImplemented
        return memcmp(core_state(self), core_state(<Core>other), sizeof(sg_state)) == 0

    def __hash__(self):
        return hash(self.snapshot())

    @property
    def players(self):
        return core_state(self).rules.players

    @property
    def rules(self):
        """The core's numbers of this game's rules, in the table's order."""
        return rules_values(&core_state(self).rules)

    @property
    def phase(self):
        return core_state(self).phase

    @property
    def to_move(self):
        return core_state(self).to_move

    @property
    def dealer(self):
        return core_state(self).dealer

    @property
    def leader(self):
        return core_state(self).leader

    @property
    def follower(self):
        return core_state(self).follower

    @property
    def trump(self):
        return core_state(self).trump

    @property
    def trump_public(self):
        return bool(core_state(self).trump_public)

    @property
    def upcard(self):
        return core_state(self).upcard

    @property
    def slough_winner(self):
        return core_state(self).winner if core_state(self).window else SG_NO_SEAT

    @property
    def hidden_card(self):
        return core_state(self).hidden_card

    @property
    def hidden_holder(self):
        return core_state(self).hidden_holder

    @property
    def last_drawer(self):
        return core_state(self).last_drawer

    @property
    def trick_target(self):
        return core_state(self).trick_target

    @property
    def moves(self):
        return core_state(self).moves

    @property
    def loser(self):
        return core_state(self).loser

    @property
    def truncated(self):
        return bool(core_state(self).truncated)

    @property
    def finished(self):
        return tuple(core_state(self).finished[i] for i in range(core_state(self).n_finished))

    @property
    def stock_count(self):
        return core_state(self).stock_len - core_state(self).stock_top

    @property
    def out(self):
        return core_state(self).out

    @property
    def hands(self):
        n = core_state(self).rules.players
        return tuple(core_state(self).hand[i] for i in range(n))

    @property
    def collections(self):
        n = core_state(self).rules.players
        return tuple(core_state(self).coll[i] for i in range(n))

    @property
    def known(self):
        n = core_state(self).rules.players
        return tuple(core_state(self).known[i] for i in range(n))



# The history's helpers (functions, not methods: a Core has no method table to carry).

cdef sg_state *core_state(Core self) except NULL:
    """This position's state, played again (and kept) if it was dropped.

    The steps between the nearest older state and this one are kept too, so
    that undoing move after move replays each step once.
    """
    cdef Core node = self
    cdef Core step
    cdef sg_state *st
    cdef list path
    if self.st != NULL:
        return self.st
    path = []
    while node.st == NULL:
        path.append(node)
        node = node.parent  # the start always keeps its state
    for step in reversed(path):
        st = <sg_state *>PyMem_Malloc(sizeof(sg_state))
        if st == NULL:
            raise MemoryError()
        memcpy(st, node.st, sizeof(sg_state))
        if sg_apply(st, step.code, NULL) != SG_ERROR_NONE:
            PyMem_Free(st)
            raise CoreError(0, "a history step does not replay")  # a core bug
        step.st = st
        node = step
    return self.st


cdef int core_state_into(Core self, sg_state *out) except -1:
    """Writes this position's state to `out` without keeping what is played again."""
    cdef Core node = self
    cdef list codes = []
    while node.st == NULL:
        codes.append(node.code)
        node = node.parent
    memcpy(out, node.st, sizeof(sg_state))
    for code in reversed(codes):
        if sg_apply(out, code, NULL) != SG_ERROR_NONE:
            raise CoreError(0, "a history step does not replay")  # a core bug
    return 0


cdef Core core_settled(Core self):
    """This position without a slough being chosen (self when there is none)."""
    cdef Core other
    if self.pending == 0:
        return self
    other = Core.__new__(Core)
    memcpy(other.st, core_state(self), sizeof(sg_state))
    other.parent = self.parent
    other.code = self.code
    other._events = self._events
    other.views = self.views
    return other


cdef Core core_attach(Core self, Core child, sg_move code, const sg_event *buf, int n):
    """Links `child`, the position after move `code` with events buf[:n], to this one."""
    cdef Core older = self.parent
    cdef Events events
    if n > SG_MAX_EVENTS:
        raise CoreError(0, "event buffer overflow")  # a core bug; caught by tests
    child.parent = self
    child.code = code
    child._events = packed_events(buf, n)
    # Drop the state of the step before this one when nothing but this one
    # refers to it (two references: self.parent and `older`); a game, a
    # copy or a reader holding it keeps it whole.  Its events go too unless
    # someone holds them (two references: older._events and `events`).
    if (older is not None and older.parent is not None and older.st != NULL
            and older.st.moves % CHECKPOINT != 0 and Py_REFCNT(older) == 2):
        PyMem_Free(older.st)
        older.st = NULL
        events = older._events
        if Py_REFCNT(events) == 2:
            older._events = None
    return child


cdef Core core_play_action(Core self, object action):
    """The position after integer action `action` (see skitgubbe.h).

    A slough step gives this position again with the card added to the
    slough being chosen (`pending`); the last step and every other action
    give the position after the move, as Core.play() does.  Raises CoreError
    when the action is not legal; `self` is unchanged.
    """
    cdef sg_event buf[SG_MAX_EVENTS]
    cdef sg_events ev
    cdef Core child
    cdef uint64_t pending = self.pending
    cdef sg_move code = SG_NO_MOVE
    cdef long id
    cdef int result
    if type(action) is not int:  # a bool, a float, numpy's ints: the caller says why
        raise TypeError("an action id is an int")
    id = action  # OverflowError past a C long
    if not 0 <= id < SG_NUM_ACTIONS:
        raise CoreError(SG_ERROR_ILLEGAL, "no such action")
    child = Core.__new__(Core)
    memcpy(child.st, core_state(self), sizeof(sg_state))
    if id == SG_ACTION_SLOUGH_DONE:
        code = ((<uint64_t>SG_MOVE_KIND_SLOUGH) << 61) | pending
    elif id < SG_ACTION_SLOUGH_CARD:
        code = sg_action_move(<int>id)
    ev.buf = buf
    ev.cap = SG_MAX_EVENTS
    ev.len = 0
    result = sg_apply_action(child.st, &pending, <int>id, &ev)
    if result != SG_ERROR_NONE:
        raise CoreError(result, "illegal action" if result == SG_ERROR_ILLEGAL else "game over")
    if pending:  # a slough step: the same position, one more card chosen
        child.parent = self.parent
        child.code = self.code
        child._events = self._events
        child.views = self.views
        child.pending = pending
        return child
    return core_attach(core_settled(self), child, code, buf, ev.len)


import collections.abc
collections.abc.Sequence.register(Events)



cdef class GameCore:
    """The base of skitgubbe.Game: its position, and the members a learner's
    loop calls once a decision (to_move, legal_actions, play_action), here so
    that a decision makes no Python call but the one the user makes.

    Game adds everything else and the error path (_illegal_action).
    """

    # The current position; through its parents, the whole history.  None
    # only in an object not made by Game's constructors: see game_core.
    cdef public Core _core

    def __init__(self, *args, **kwargs):
        raise TypeError("make a Game with Game.new, Game.from_shedding or Game.from_record")

    @property
    def to_move(self):
        """The seat to move; ``None`` when the game is over.

        >>> import skitgubbe as sg
        >>> game = sg.Game.new(seed=2)
        >>> game.to_move
        0
        """
        cdef const sg_state *st = core_state(game_core(self))
        return None if st.to_move == SG_NO_SEAT else st.to_move

    @property
    def legal_actions(self):
        """The legal integer actions of the player to move, ascending (see
        :mod:`skitgubbe.actions`); empty when the game is over.

        While a slough is being chosen (:attr:`slough_chosen`), only its steps.

        >>> import skitgubbe as sg
        >>> sg.Game.new(seed=2).legal_actions
        (28, 30, 35, 507)
        """
        cdef Core core = game_core(self)
        return action_ids(core_state(core), core.pending)

    def play_action(self, action):
        """Take integer action ``action`` for the player to move (see :mod:`skitgubbe.actions`).

        Returns the events of the move it completes; adding a card to a slough
        being chosen completes none (empty :class:`Events`). An illegal action
        raises :class:`~skitgubbe.IllegalActionError` naming the reason and the
        legal actions, and changes nothing.

        >>> import skitgubbe as sg
        >>> game = sg.Game.new(seed=2)
        >>> [str(e) for e in game.play_action(30)]
        ['seat 0 plays 6♥', 'seat 0 draws 5♠']
        >>> game.play_action(508)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
            ...
        skitgubbe.errors.IllegalActionError: illegal action 508 (pick up): nobody picks up ...
        """
        cdef Core after
        try:
            after = core_play_action(game_core(self), action)  # refuses all but an int (not a bool)
        except (CoreError, OverflowError, TypeError):
            raise self._illegal_action(action) from None
        self._core = after
        # A position play made has its events (core_attach): no need for Core.events.
        return EMPTY_EVENTS if after.pending else after._events


cdef inline Core game_core(GameCore game):
    """The position of `game`; TypeError for an object Game's constructors did not make."""
    if game._core is None:
        raise TypeError("this Game holds no game: make one with Game.new, Game.from_shedding "
                        "or Game.from_record")
    return game._core


# -- card texts of the engine protocol (skitgubbe.protocol): "2C" ... "10D" ... "AS" ------

cdef const char *PROTOCOL_RANKS = b"23456789TJQKA"
cdef const char *PROTOCOL_SUITS = b"CDHS"


cdef inline int protocol_card_code(str text):
    """The card code of one card's protocol text, or -1 for any other text."""
    cdef Py_ssize_t n = len(text)
    cdef Py_UCS4 r, s
    cdef int rank
    if n == 2:
        r = text[0]
        s = text[1]
        if u'2' <= r <= u'9':
            rank = <int>r - <int>u'0'
        elif r == u'J':
            rank = 11
        elif r == u'Q':
            rank = 12
        elif r == u'K':
            rank = 13
        elif r == u'A':
            rank = 14
        else:
            return -1
    elif n == 3:
        if text[0] != u'1' or text[1] != u'0':
            return -1
        rank = 10
        s = text[2]
    else:
        return -1
    if s == u'C':
        return rank - 2
    if s == u'D':
        return 16 + rank - 2
    if s == u'H':
        return 32 + rank - 2
    if s == u'S':
        return 48 + rank - 2
    return -1


def protocol_card_mask(texts):
    """The mask of a list of card texts exactly as the engine protocol writes them
    ("10D", "QS"); None for anything else (not a list, not str, another spelling)."""
    cdef uint64_t mask = 0
    cdef int code
    if type(texts) is not list:
        return None
    for text in <list>texts:
        if type(text) is not str:
            return None
        code = protocol_card_code(<str>text)
        if code < 0:
            return None
        mask |= (<uint64_t>1) << code
    return mask


# -- the referee's lines of the engine protocol, written in C (skitgubbe.protocol's
# encode_go and encode_events, byte for byte what json writes of the messages) ----------

cdef const char *BASE64 = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
cdef tuple PROTOCOL_PHASES = (b"collecting", b"shedding", b"over")


cdef struct Text:
    char *data
    Py_ssize_t n
    Py_ssize_t cap


cdef int text_reserve(Text *t, Py_ssize_t more) except -1:
    cdef Py_ssize_t cap
    cdef char *grown
    if t.n + more <= t.cap:
        return 0
    cap = max(2 * t.cap, t.n + more, 4096)
    grown = <char *>realloc(t.data, cap)
    if grown == NULL:
        raise MemoryError()
    t.data = grown
    t.cap = cap
    return 0


cdef inline int text_add(Text *t, const char *s, Py_ssize_t k) except -1:
    text_reserve(t, k)
    memcpy(t.data + t.n, s, k)
    t.n += k
    return 0


cdef inline int text_ascii(Text *t, str s) except -1:
    cdef Py_ssize_t k
    cdef const char *utf8 = PyUnicode_AsUTF8AndSize(s, &k)
    return text_add(t, utf8, k)


cdef int text_int(Text *t, object value) except -1:
    """An int as json writes it (a bool or any other value is refused)."""
    cdef char digits[24]
    cdef int k = 24
    cdef long long x
    cdef unsigned long long u
    if type(value) is not int:
        raise TypeError(f"an int, not {type(value).__name__}")
    try:
        x = value
    except OverflowError:
        return text_ascii(t, str(value))
    u = (<unsigned long long>0 - <unsigned long long>x) if x < 0 else <unsigned long long>x
    while True:
        k -= 1
        digits[k] = <char>(48 + u % 10)
        u //= 10
        if u == 0:
            break
    if x < 0:
        k -= 1
        digits[k] = b'-'
    return text_add(t, digits + k, 24 - k)


cdef inline int text_seat(Text *t, object value) except -1:
    if value is None:
        return text_add(t, b"null", 4)
    return text_int(t, value)


cdef int text_ints(Text *t, object values) except -1:
    cdef bint first = True
    text_add(t, b"[", 1)
    for value in values:
        if not first:
            text_add(t, b",", 1)
        first = False
        text_int(t, value)
    return text_add(t, b"]", 1)


cdef int text_cards(Text *t, object cards) except -1:
    """The JSON list of the protocol texts of a CardSet's (or Card's) cards, ascending
    by code: '["2C","10D","AS"]'."""
    cdef uint64_t mask = cards.mask
    cdef uint64_t bits
    cdef int suit, rank
    cdef bint first = True
    if mask & ~SG_ALL_CARDS:
        raise ValueError(f"not a card mask: {mask:#x}")
    text_reserve(t, 2 + 6 * 52)
    t.data[t.n] = b'['
    t.n += 1
    for suit in range(4):
        bits = (mask >> (16 * suit)) & 0x1FFF
        rank = 0
        while bits:
            if bits & 1:
                if not first:
                    t.data[t.n] = b','
                    t.n += 1
                first = False
                t.data[t.n] = b'"'
                if rank == 8:
                    t.data[t.n + 1] = b'1'
                    t.data[t.n + 2] = b'0'
                    t.n += 3
                else:
                    t.data[t.n + 1] = PROTOCOL_RANKS[rank]
                    t.n += 2
                t.data[t.n] = PROTOCOL_SUITS[suit]
                t.data[t.n + 1] = b'"'
                t.n += 2
            bits >>= 1
            rank += 1
    t.data[t.n] = b']'
    t.n += 1
    return 0


cdef int text_suit(Text *t, object suit) except -1:
    cdef int s
    if suit is None:
        return text_add(t, b"null", 4)
    s = suit
    if not 0 <= s < 4:
        raise ValueError(f"not a suit: {s}")
    text_add(t, b'"', 1)
    text_add(t, PROTOCOL_SUITS + s, 1)
    return text_add(t, b'"', 1)


cdef int text_base64(Text *t, bytes raw) except -1:
    cdef const unsigned char *p = <const unsigned char *>raw
    cdef Py_ssize_t k = len(raw)
    cdef Py_ssize_t i = 0
    cdef uint32_t v
    cdef char *out
    text_reserve(t, 4 * ((k + 2) // 3))
    out = t.data + t.n
    while i + 2 < k:
        v = (<uint32_t>p[i] << 16) | (<uint32_t>p[i + 1] << 8) | p[i + 2]
        out[0] = BASE64[v >> 18]
        out[1] = BASE64[(v >> 12) & 63]
        out[2] = BASE64[(v >> 6) & 63]
        out[3] = BASE64[v & 63]
        out += 4
        i += 3
    if i < k:
        v = <uint32_t>p[i] << 16
        if i + 1 < k:
            v |= <uint32_t>p[i + 1] << 8
        out[0] = BASE64[v >> 18]
        out[1] = BASE64[(v >> 12) & 63]
        out[2] = BASE64[(v >> 6) & 63] if i + 1 < k else b'='
        out[3] = b'='
        out += 4
    t.n = out - t.data
    return 0


cdef inline int text_key(Text *t, const char *key) except -1:
    """A constant piece of JSON, NUL-terminated."""
    return text_add(t, key, strlen(key))


def protocol_go_line(seq, view, str legal, str clock):
    """The go line of skitgubbe.protocol.encode_go: `view` an Observation, `legal` its
    legal moves' JSON strings joined by commas, `clock` the clock's JSON object."""
    cdef Text t
    cdef bint first
    cdef Py_ssize_t start
    t.data = NULL
    t.n = 0
    t.cap = 0
    try:
        text_key(&t, b'{"type":"go","seq":')
        text_int(&t, seq)
        text_key(&t, b',"observation":{"seat":')
        text_int(&t, view.seat)
        text_key(&t, b',"phase":"')
        phase = <bytes>PROTOCOL_PHASES[view.phase]
        text_add(&t, phase, len(phase))
        text_key(&t, b'","to_move":')
        text_seat(&t, view.to_move)
        text_key(&t, b',"dealer":')
        text_int(&t, view.dealer)
        text_key(&t, b',"trump":')
        text_suit(&t, view.trump)
        text_key(&t, b',"hand":')
        text_cards(&t, view.hand)
        text_key(&t, b',"collection":')
        text_cards(&t, view.collection)
        text_key(&t, b',"table":[')
        first = True
        for play in view.table:
            text_key(&t, b'{"seat":' if first else b',{"seat":')
            first = False
            text_int(&t, play.seat)
            text_key(&t, b',"cards":')
            text_cards(&t, play.cards)
            text_add(&t, b"}", 1)
        text_key(&t, b'],"hand_sizes":')
        text_ints(&t, view.hand_sizes)
        text_key(&t, b',"collection_sizes":')
        text_ints(&t, view.collection_sizes)
        text_key(&t, b',"stock_size":')
        text_int(&t, view.stock_size)
        text_key(&t, b',"out_of_play":')
        text_cards(&t, view.out_of_play)
        text_key(&t, b',"hidden_holder":')
        text_seat(&t, view.hidden_holder)
        text_key(&t, b',"known":[')
        first = True
        for held in view.known:
            if not first:
                text_add(&t, b",", 1)
            first = False
            text_cards(&t, held)
        text_key(&t, b'],"unknown":')
        text_cards(&t, view.unknown)
        text_key(&t, b',"unknown_slots":')
        text_ints(&t, view.unknown_slots)
        text_key(&t, b',"stock_slots":')
        text_int(&t, view.stock_slots)
        text_key(&t, b',"hidden_slots":')
        text_int(&t, view.hidden_slots)
        text_key(&t, b',"finished":')
        text_ints(&t, view.finished)
        text_key(&t, b',"moves_played":')
        text_int(&t, view.moves_played)
        text_key(&t, b',"upcard":')
        upcard = view.upcard
        if upcard is None:
            text_add(&t, b"null", 4)
        else:
            start = t.n
            text_cards(&t, upcard)  # a Card's one-card mask: '["7H"]', less its brackets
            memmove(t.data + start, t.data + start + 1, t.n - start - 2)
            t.n -= 2
        text_key(&t, b',"slough_winner":')
        text_seat(&t, view.slough_winner)
        text_key(&t, b',"slough_chosen":')
        text_cards(&t, view.slough_chosen)
        text_key(&t, b',"core_view":"')
        text_base64(&t, view.core_view)
        text_key(&t, b'"},"legal_moves":[')
        text_ascii(&t, legal)
        text_key(&t, b'],"clock":')
        text_ascii(&t, clock)
        text_key(&t, b'}\n')
        return PyBytes_FromStringAndSize(t.data, t.n)
    finally:
        free(t.data)


def protocol_events_line(events, tuple kinds):
    """The events line of skitgubbe.protocol.encode_events: `events` Event objects,
    `kinds` each event kind's JSON string (bytes) by its number."""
    cdef Text t
    cdef bint first = True
    t.data = NULL
    t.n = 0
    t.cap = 0
    try:
        text_key(&t, b'{"type":"events","events":[')
        for event in events:
            kind = <bytes>kinds[event.kind]
            text_key(&t, b'{"kind":' if first else b',{"kind":')
            first = False
            text_add(&t, kind, len(kind))
            text_key(&t, b',"seat":')
            text_seat(&t, event.seat)
            text_key(&t, b',"cards":')
            text_cards(&t, event.cards)
            text_key(&t, b',"count":')
            text_int(&t, event.count)
            text_key(&t, b',"other":')
            text_seat(&t, event.other)
            text_key(&t, b',"seats":')
            text_ints(&t, event.seats)
            text_key(&t, b',"suit":')
            text_suit(&t, event.suit)
            text_add(&t, b"}", 1)
        text_key(&t, b']}\n')
        return PyBytes_FromStringAndSize(t.data, t.n)
    finally:
        free(t.data)
