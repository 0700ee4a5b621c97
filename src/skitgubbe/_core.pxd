# Declarations of the C core's public header (src/_core/skitgubbe.h).
from libc.stdint cimport int8_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t


cdef extern from "skitgubbe.h" nogil:
    enum:
        SG_MOVE_KIND_PLAY
        SG_MOVE_KIND_FLIP
        SG_MOVE_KIND_PICK_UP
        SG_MOVE_KIND_SLOUGH
        SG_MOVE_KIND_PASS
        SG_MAX_PLAYERS
        SG_NCARDS
        SG_NO_SEAT
        SG_NO_CARD
        SG_NO_SUIT
        SG_MAX_MOVES
        SG_MAX_EVENTS
        SG_RNG_VERSION
        SG_API_VERSION
        SG_ERROR_NONE
        SG_ERROR_RULES
        SG_ERROR_DECK
        SG_ERROR_SEAT
        SG_ERROR_ILLEGAL
        SG_ERROR_OVER
        SG_ERROR_POSITION
        SG_ERROR_NOT_OVER
        SG_ERROR_POLICY
        SG_RULES_ERROR_NONE
        SG_RULES_ERROR_BAD_VALUE
        SG_RULES_ERROR_CONFLICT
        SG_RULES_ERROR_NO_FIELD
        SG_RULE_COUNT
        SG_RULE_KIND_INT
        SG_RULE_KIND_BOOL
        SG_RULE_KIND_ENUM
        SG_RULE_KIND_OPTIONAL_INT

    # Macros: every card bit, and the bit of card index c.
    const uint64_t SG_ALL_CARDS
    uint64_t SG_CARD_BIT(int c)

    ctypedef struct sg_rules:
        # The binding reads and writes the rule fields by the table
        # (sg_rule_fields, sg_rules_get, sg_rules_set), never by member: a new
        # field needs no line here.  players is read directly for seat checks.
        uint8_t players

    # The table of rule fields (SG_RULE_FIELDS in skitgubbe.h), as data.
    ctypedef struct sg_rule_field:
        uint32_t min
        uint32_t max
        uint32_t step
        uint32_t classic
        uint32_t kind
        uint32_t n_values
        const char *name
        const char *doc
        const char *const *values

    const sg_rule_field *sg_rule_fields(int *count)
    int sg_rule_index(const char *name)
    uint32_t sg_rules_get(const sg_rules *r, int index)
    int sg_rules_set(sg_rules *r, int index, uint32_t value)
    void sg_rules_classic(sg_rules *r, uint8_t players)
    void sg_rules_modern(sg_rules *r, uint8_t players)

    ctypedef struct sg_rng:
        uint64_t s[4]

    ctypedef uint64_t sg_move

    ctypedef struct sg_state:
        sg_rules rules
        uint64_t hand[4]
        uint64_t coll[4]
        uint64_t known[4]
        uint64_t out
        uint8_t stock[52]
        uint8_t table[52]
        uint8_t table_seat[52]
        uint8_t table_play[52]
        uint8_t stock_top
        uint8_t stock_len
        uint8_t table_len
        uint8_t phase
        uint8_t dealer
        uint8_t to_move
        uint8_t leader
        uint8_t follower
        uint8_t trump
        uint8_t trump_public
        uint8_t upcard
        uint8_t hidden_card
        uint8_t hidden_holder
        uint8_t last_drawer
        uint8_t end_pending
        uint8_t round_first
        uint8_t round_start
        uint8_t round_pending
        uint8_t winner
        uint8_t window
        uint8_t trick_target
        uint8_t trick_turns
        uint8_t n_finished
        uint8_t finished[4]
        uint8_t loser
        uint8_t truncated
        uint8_t unseen[4]
        uint8_t reserved[3]
        uint32_t moves

    ctypedef struct sg_event:
        uint8_t kind
        uint8_t seat
        uint8_t arg
        uint64_t cards

    ctypedef struct sg_events:
        sg_event *buf
        int32_t cap
        int32_t len

    ctypedef struct sg_sim_result:
        uint64_t games
        uint64_t moves
        uint64_t losses[4]
        uint64_t no_loser
        uint64_t truncated

    int sg_rules_check(const sg_rules *r, const char **field)
    void sg_rng_seed(sg_rng *rng, uint64_t seed)
    uint64_t sg_rng_next(sg_rng *rng)
    uint32_t sg_rng_below(sg_rng *rng, uint32_t bound)
    void sg_deck_from_seed(uint64_t seed, uint8_t *deck)
    uint64_t sg_game_seed(uint64_t seed, uint64_t index)
    int sg_new(sg_state *st, const sg_rules *rules, const uint8_t *deck, uint8_t dealer,
               sg_events *ev)
    int sg_new_shedding(sg_state *st, const sg_rules *rules, const uint64_t *hands,
                        uint8_t trump, uint8_t leader, sg_events *ev)
    int sg_legal_moves(const sg_state *st, sg_move *moves)
    int sg_apply(sg_state *st, sg_move move, sg_events *ev)

    # Integer actions (see skitgubbe.h for the table).
    enum:
        SG_NUM_ACTIONS
        SG_ACTION_SLOUGH_CARD
        SG_ACTION_SLOUGH_DONE
        SG_MAX_ACTION_PATH
    sg_move SG_NO_MOVE
    sg_move sg_action_move(int action)
    int sg_move_actions(sg_move move, uint16_t *actions)
    int sg_legal_actions(const sg_state *st, uint64_t pending, uint16_t *actions)
    int sg_apply_action(sg_state *st, uint64_t *pending, int action, sg_events *ev)

    # Tensors (see skitgubbe.h for the layout).
    ctypedef struct sg_public_move:
        uint64_t cards
        uint8_t kind
        uint8_t seat
    enum:
        SG_TENSOR_PLANES
        SG_TENSOR_RECENT
        SG_TENSOR_RECENT_FLOATS
        SG_STATE_TENSOR_PLANES
    int sg_tensor_size()
    int sg_state_tensor_size()
    int sg_observation_tensor(const sg_state *st, uint8_t seat, uint64_t pending,
                              const sg_public_move *recent, int n_recent, float *out)
    int sg_state_tensor(const sg_state *st, const sg_public_move *recent, int n_recent,
                        float *out)

    # The vector environment.
    enum:
        SG_VEC_LEARNER
    ctypedef struct sg_vec:
        pass
    ctypedef struct sg_vec_out:
        float *obs
        uint8_t *masks
        float *rewards
        uint8_t *terminated
        uint8_t *truncated
        int32_t *seat
        uint64_t *seeds
        uint64_t *games
    sg_vec *sg_vec_new(const sg_rules *rules, int32_t n_games, uint64_t seed,
                       const int32_t *policies)
    void sg_vec_free(sg_vec *env)
    int sg_vec_reset(sg_vec *env, const sg_vec_out *out)
    int sg_vec_step(sg_vec *env, const int32_t *actions, const sg_vec_out *out, int32_t *bad)
    int sg_vec_sample(sg_vec *env, int32_t *actions, int32_t *bad)
    const sg_state *sg_vec_state(const sg_vec *env, int32_t i, uint64_t *pending)

    # Why a move is illegal (enum sg_illegal; see skitgubbe.h for each reason's detail).
    enum:
        SG_ILLEGAL_NONE
        SG_ILLEGAL_GAME_OVER
        SG_ILLEGAL_MALFORMED
        SG_ILLEGAL_WINDOW_OPEN
        SG_ILLEGAL_NO_WINDOW
        SG_ILLEGAL_FLIP_PHASE
        SG_ILLEGAL_FLIP_RULES
        SG_ILLEGAL_FLIP_STOCK
        SG_ILLEGAL_PICK_UP_PHASE
        SG_ILLEGAL_PICK_UP_EMPTY
        SG_ILLEGAL_NOT_HELD
        SG_ILLEGAL_SLOUGH_RANK
        SG_ILLEGAL_ONE_CARD_COLLECTING
        SG_ILLEGAL_ONE_CARD_SHEDDING
        SG_ILLEGAL_MIXED_RANKS
        SG_ILLEGAL_NOT_A_RUN
        SG_ILLEGAL_DOES_NOT_BEAT

    int sg_why_illegal(const sg_state *st, sg_move move, uint64_t *detail)
    const char *sg_illegal_name(int reason)
    uint64_t sg_unknown(const sg_state *st, uint8_t seat, uint8_t *slots)

    # What one seat sees (docs/rules.md §8), by name; arrays indexed by seat are 0 beyond players.
    ctypedef struct sg_observation:
        uint64_t hand
        uint64_t collection
        uint64_t out_of_play
        uint64_t unknown
        uint64_t known[4]
        uint64_t table_cards[52]
        uint32_t moves_played
        uint8_t seat
        uint8_t players
        uint8_t phase
        uint8_t to_move
        uint8_t dealer
        uint8_t trump
        uint8_t upcard
        uint8_t slough_winner
        uint8_t hidden_holder
        uint8_t stock_size
        uint8_t stock_slots
        uint8_t hidden_slots
        uint8_t n_table_plays
        uint8_t n_finished
        uint8_t hand_sizes[4]
        uint8_t collection_sizes[4]
        uint8_t unknown_slots[4]
        uint8_t finished[4]
        uint8_t table_seat[52]

    ctypedef struct sg_result:
        uint32_t moves
        uint8_t loser
        uint8_t truncated
        uint8_t n_finish
        uint8_t finish_order[4]

    int sg_observe(const sg_state *st, uint8_t seat, sg_observation *obs)
    int sg_game_result(const sg_state *st, sg_result *result)
    void sg_simulate(const sg_rules *rules, uint64_t seed, uint64_t first, uint64_t count,
                     sg_sim_result *out)

    ctypedef struct sg_ismcts_params:
        double seconds
        double exploration
        uint64_t seed
        uint32_t iterations
        uint32_t rollout_cap
        int32_t policy
        uint32_t solver
        uint32_t flags
        uint32_t reserved

    enum:
        SG_ISMCTS_MERGE
        SG_BELIEF_SLOTS
        SG_BELIEF_NEEDS
        SG_BELIEF_CASES
        SG_SAMPLE_TRIES
        SG_SAMPLE_EXACT
        SG_SAMPLE_FALLBACK
        SG_SAMPLE_UNIFORM

    ctypedef struct sg_belief_case:
        double weight
        uint16_t forbid[5]
        uint16_t need_ranks[8]
        uint8_t need_slots[8]
        uint8_t n_slots
        uint8_t n_needs
        uint8_t reserved[4]

    ctypedef struct sg_belief:
        uint16_t n_cases[4]
        uint8_t reserved[8]
        sg_belief_case cases[4][128]

    int sg_belief_check(const sg_state *view, const sg_belief *belief)
    int sg_sample_belief(const sg_state *view, const sg_belief *belief, sg_rng *rng,
                         sg_state *world)
    int sg_merge_moves(const sg_state *st, sg_move *moves, int n)

    ctypedef struct sg_ismcts_stats:
        uint32_t iterations
        uint32_t nodes
        double seconds

    void sg_view(const sg_state *st, uint8_t seat, sg_state *view)
    int sg_view_check(const sg_state *view)
    int sg_state_check(const sg_state *st, const char **field)
    void sg_sample_world(const sg_state *view, sg_rng *rng, sg_state *world)
    sg_move sg_greedy_move(const sg_state *st)
    int sg_pimc(const sg_state *view, int worlds, int rollouts, int policy, uint32_t cap,
                uint64_t seed, sg_move *moves, double *scores)
    sg_move sg_ismcts(const sg_state *view, const sg_ismcts_params *params,
                      sg_ismcts_stats *stats, sg_move *moves, uint32_t *visits, int *n_moves)

    # The accessors take the position as const void * here (Cython's forward
    # references); the C compiler sees skitgubbe_policy.h's own prototypes.
    ctypedef struct sg_policy_api:
        uint32_t abi
        uint32_t size
        int32_t (*players)(const void *pos) noexcept nogil
        int32_t (*to_move)(const void *pos) noexcept nogil
        int32_t (*phase)(const void *pos) noexcept nogil
        int32_t (*trump)(const void *pos) noexcept nogil
        uint64_t (*hand)(const void *pos, int32_t seat) noexcept nogil
        uint64_t (*collection)(const void *pos, int32_t seat) noexcept nogil
        int32_t (*stock_size)(const void *pos) noexcept nogil
        uint64_t (*table)(const void *pos) noexcept nogil
        uint64_t (*top_play)(const void *pos) noexcept nogil
        int32_t (*top_seat)(const void *pos) noexcept nogil
        uint64_t (*out_of_play)(const void *pos) noexcept nogil
        int32_t (*out)(const void *pos, int32_t seat) noexcept nogil
        int32_t (*n_moves)(const void *pos) noexcept nogil
        int32_t (*move_kind)(const void *pos, int32_t i) noexcept nogil
        uint64_t (*move_cards)(const void *pos, int32_t i) noexcept nogil
        int32_t (*greedy)(const void *pos) noexcept nogil

    ctypedef struct sg_position:
        const sg_policy_api *api
        const void *impl

    enum:
        SG_POLICY_ABI

    ctypedef int32_t (*sg_policy_fn)(const sg_position *pos, void *ctx) noexcept nogil
    ctypedef int32_t (*sg_evaluate_fn)(const sg_position *pos, void *ctx,
                                       double *value) noexcept nogil

    ctypedef struct sg_net:
        pass

    ctypedef struct sg_search_policy:
        int32_t builtin
        int32_t error
        sg_policy_fn choose
        void *choose_ctx
        sg_evaluate_fn evaluate
        void *evaluate_ctx
        int64_t detail
        const sg_net *net
        int32_t net_leaf
        int32_t reserved

    int SG_NET_FORMAT
    int SG_NET_WORLD_PLANES
    int sg_net_world_value(const sg_net *net, const sg_state *st, double *value)
    int SG_NET_ERROR_NONE
    int sg_net_load(const uint8_t *bytes, size_t size, sg_net **net)
    uint64_t sg_net_max_size()
    void sg_net_free(sg_net *net)
    void sg_net_shape(const sg_net *net, uint32_t *shape)
    uint32_t sg_net_checksum(const uint8_t *bytes, size_t size)
    int sg_net_run(const sg_net *net, const sg_state *st, const sg_move *moves, int n,
                   float *logits, double *value) nogil
    int sg_net_best(const float *logits, int n)
    void sg_net_softmax(float *logits, int n, double temperature)
    int32_t sg_net_choose(const sg_position *pos, void *net)
    int32_t sg_net_evaluate(const sg_position *pos, void *net, double *value)
    int32_t sg_outcome_samples(const sg_rules *rules, uint64_t seed, uint64_t first,
                               int32_t games, int32_t per_game, int32_t policy, int32_t rollouts,
                               float *features, float *values, float *masks) nogil

    int sg_pimc_with(const sg_state *view, int worlds, int rollouts, sg_search_policy *policy,
                     uint32_t cap, uint64_t seed, sg_move *moves, double *scores) nogil
    sg_move sg_ismcts_with(const sg_state *view, const sg_ismcts_params *params,
                           sg_search_policy *policy, sg_ismcts_stats *stats, sg_move *moves,
                           uint32_t *visits, int *n_moves) nogil
    sg_move sg_ismcts_rewards(const sg_state *view, const sg_ismcts_params *params,
                              sg_search_policy *policy, sg_ismcts_stats *stats, sg_move *moves,
                              uint32_t *visits, double *rewards, int *n_moves) nogil
    ctypedef struct sg_playout:
        double random_fraction
        double temperature
        double blend
        int32_t kind
        uint32_t reserved

    enum:
        SG_PLAYOUT_KIND_PLAIN
        SG_PLAYOUT_KIND_MAST
        SG_PLAYOUT_KIND_NAST
        SG_NAST_MIN_VISITS
    const double SG_PLAYOUT_TEMPERATURE

    void sg_playout_defaults(sg_playout *playout)
    sg_move sg_ismcts_search(const sg_state *view, const sg_belief *belief,
                             const sg_ismcts_params *params, sg_search_policy *policy,
                             const sg_playout *playout, sg_ismcts_stats *stats, sg_move *moves,
                             uint32_t *visits, double *rewards, int *n_moves) nogil
    int sg_pimc_search(const sg_state *view, const sg_belief *belief, int worlds, int rollouts,
                       sg_search_policy *policy, uint32_t cap, uint64_t seed, sg_move *moves,
                       double *scores) nogil
    int sg_vec_set_policy(sg_vec *env, int32_t seat, sg_search_policy *policy)

    # The endgame solver (solve.c).
    enum:
        SG_SOLVE_MAX_DEPTH
        SG_SOLVE_VALUE_LOSS
        SG_SOLVE_VALUE_DRAW
        SG_SOLVE_VALUE_WIN
        SG_SOLVE_VALUE_UNKNOWN
        SG_SOLVE_STOP_NONE
        SG_SOLVE_STOP_BUDGET
        SG_SOLVE_STOP_DEPTH
        SG_SOLVE_STOP_MEMORY

    ctypedef struct sg_solve_result:
        uint64_t nodes
        sg_move best
        uint32_t length
        int8_t value
        uint8_t to_move
        uint8_t loser
        uint8_t stop

    ctypedef struct sg_solver:
        pass

    size_t sg_solver_size(uint32_t entries)
    sg_solver *sg_solver_init(void *buffer, size_t bytes)
    uint32_t sg_solver_entries(const sg_solver *solver)
    void sg_solver_clear(sg_solver *solver)
    int sg_solvable(const sg_state *st)
    int sg_solve(sg_solver *solver, const sg_state *st, uint64_t budget,
                 sg_solve_result *result) nogil
    int sg_solve_moves(sg_solver *solver, const sg_state *st, uint64_t budget,
                       sg_solve_result *result, sg_move *moves, int8_t *values,
                       uint32_t *lengths, int *n_moves) nogil


cdef enum:
    EVENTS_INLINE = 4  # a move's events up to this many are kept in the Events object

cdef class Events:
    cdef sg_event inline[EVENTS_INLINE]  # the packed events when n_inline > 0
    cdef uint8_t n_inline
    cdef bytes raw                       # the packed events when more
    cdef tuple items                     # decoded, once read
    cdef tuple all(self)


cdef class Core:
    # The state, or NULL for a step of a history whose state is dropped (see
    # Core.play): state() plays it again from the nearest older state kept.
    cdef sg_state *st
    cdef readonly Core parent
    cdef sg_move code          # the move that led here (when there is a parent)
    cdef Events _events        # None when dropped: made again from the parent
    cdef readonly uint64_t pending  # the slough cards chosen so far (integer actions)
    cdef public object views

