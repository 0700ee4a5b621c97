/* The core's internal interface: what its source files share and the public
 * API (skitgubbe.h) does not offer.  Not installed, not for users of the core;
 * anything here may change without notice. */
#ifndef SKITGUBBE_INTERNAL_H
#define SKITGUBBE_INTERNAL_H

#include "skitgubbe.h"

/* ---- bits ------------------------------------------------------------------- */

#include "bits.h"

/* Every card of the ranks set in the 13-bit `ranks`, in all four suits. */
#define SG_RANK_CARDS(ranks) ((uint64_t)(ranks) * UINT64_C(0x0001000100010001))

/* Cards of the same suit as `card` with a higher rank. */
static inline uint64_t sg_above(uint8_t card)
{
    return SG_SUIT_MASK(SG_SUIT_OF(card)) & ~((SG_CARD_BIT(card) << 1) - 1);
}

/* ---- the generator ------------------------------------------------------------ */

/* The bodies of sg_rng_next and sg_rng_below (rng.c, docs/rules.md §2), inline for
 * the search's hot loops (a rollout draws at every move): the same numbers.  Like
 * rng.c, changing them changes every seeded deck: bump SG_RNG_VERSION if you must. */
static inline uint64_t sg_rng_next_inline(sg_rng *rng)
{
    uint64_t *s = rng->s;
    const uint64_t x = s[1] * 5;
    const uint64_t result = ((x << 7) | (x >> 57)) * 9;
    const uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = (s[3] << 45) | (s[3] >> 19);
    return result;
}

static inline uint32_t sg_rng_below_inline(sg_rng *rng, uint32_t bound)
{
    uint32_t x = (uint32_t)(sg_rng_next_inline(rng) >> 32);
    uint64_t m = (uint64_t)x * bound;
    uint32_t low = (uint32_t)m;
    if (low < bound) {
        /* 2^32 mod bound: the number of low values that would bias the draw. */
        const uint32_t threshold = (uint32_t)(0u - bound) % bound;
        while (low < threshold) {
            x = (uint32_t)(sg_rng_next_inline(rng) >> 32);
            m = (uint64_t)x * bound;
            low = (uint32_t)m;
        }
    }
    return (uint32_t)(m >> 32);
}

/* ---- events ----------------------------------------------------------------- */

/* Records an event when the caller asked for them.  len counts every event,
 * so a caller can tell when its buffer was too small. */
static inline void sg_emit(sg_events *ev, uint8_t kind, uint8_t seat, uint8_t arg,
                           uint64_t cards)
{
    if (!ev)
        return;
    if (ev->buf && ev->len < ev->cap) {
        sg_event *e = &ev->buf[ev->len];
        e->kind = kind;
        e->seat = seat;
        e->arg = arg;
        for (int i = 0; i < 5; i++)
            e->reserved[i] = 0;
        e->cards = cards;
    }
    ev->len++;
}

/* ---- the state -------------------------------------------------------------- */

static inline uint8_t sg_left_of(const sg_state *st, uint8_t seat)
{
    return (uint8_t)((seat + 1) % st->rules.players);
}

/* Table cards as a mask (inline: every trick's end reads it). */
static inline uint64_t sg_table_mask(const sg_state *st)
{
    uint64_t mask = 0;
    for (int i = 0; i < st->table_len; i++)
        mask |= SG_CARD_BIT(st->table[i]);
    return mask;
}

/* Number of seats still holding cards (hand or collection; inline: every lead reads it). */
static inline int sg_holding_count(const sg_state *st)
{
    int count = 0;
    for (int p = 0; p < st->rules.players; p++)
        count += (st->hand[p] | st->coll[p]) != 0;
    return count;
}

/* Phase 1 (collecting.c).  The why_illegal functions of the phases take a
 * well-formed move (kind and cards checked by sg_why_illegal) of the player
 * to move, and must agree with the phase's move generator exactly. */
int sg_collecting_moves(const sg_state *st, sg_move *moves);
int sg_collecting_why_illegal(const sg_state *st, unsigned kind, uint64_t cards,
                              uint64_t *detail);
void sg_collecting_apply(sg_state *st, sg_move move, sg_events *ev);
/* Starts phase 1 after the deal: the dealer's left neighbour leads. */
void sg_collecting_begin(sg_state *st, sg_events *ev);

/* Phase 2 (shedding.c). */
int sg_shedding_moves(const sg_state *st, sg_move *moves);
int sg_shedding_why_illegal(const sg_state *st, unsigned kind, uint64_t cards,
                            uint64_t *detail);
void sg_shedding_apply(sg_state *st, sg_move move, sg_events *ev);
/* Puts out every player without cards (in seat order from `first_out`),
 * applies the low-card rule when `low_cards` is set, and starts phase 2 led
 * by `leader` (or his next player), unless the game is already decided. */
void sg_shedding_start(sg_state *st, uint8_t leader, uint8_t first_out, int low_cards,
                       sg_events *ev);

/* ---- sampled worlds (search.c, worlds.c) ----------------------------------- */

/* The cards a view places nowhere: what its unknown slots hold. */
uint64_t sg_unplaced(const sg_state *view);

/* Writes the cards of `cards` to pool[] in a uniformly random order (Fisher-Yates
 * from the last, drawing with sg_rng_below) and returns how many there are. */
int sg_shuffled_cards(uint64_t cards, sg_rng *rng, uint8_t pool[SG_NCARDS]);

/* One seat's cases, ready to draw from (worlds.c explains the bounds). */
typedef struct sg_world_seat {
    uint8_t seat;
    uint8_t slots;
    uint16_t n_cases;
    double total;                                    /* sum of mass */
    double mass[SG_BELIEF_CASES];                    /* weight * prod(bound) */
    uint8_t order[SG_BELIEF_CASES][SG_BELIEF_SLOTS]; /* the slots, tightest first */
    uint8_t bound[SG_BELIEF_CASES][SG_BELIEF_SLOTS]; /* the bound of order[t] */
} sg_world_seat;

/* A belief made ready for one view: what sg_sample_belief computes once, and
 * a search keeps for all its samples. */
typedef struct sg_world_plan {
    const sg_belief *belief;
    uint64_t pool; /* sg_unplaced(view) */
    int n_seats;
    sg_world_seat seats[SG_MAX_PLAYERS]; /* the seats with cases, the tightest first */
} sg_world_plan;

/* Checks 1 and 2 of sg_belief_check (those about the belief's fields). */
int sg_belief_fields(const sg_state *view, const sg_belief *belief);

/* Plans `belief` (which passes checks 1 and 2 of sg_belief_check) for `view`;
 * 0 when some seat's cases cannot be dealt (check 3). */
int sg_world_plan_make(const sg_state *view, const sg_belief *belief, sg_world_plan *plan);

/* sg_sample_belief with a plan made for `view`. */
int sg_world_plan_sample(const sg_state *view, const sg_world_plan *plan, sg_rng *rng,
                         sg_state *world);

/* ---- tensors ------------------------------------------------------------------ */

/* Room for the floats that encode the rule fields. */
#define SG_TENSOR_MAX_RULE_FLOATS 64

/* Writes the floats that encode `rules` (see sg_observation_tensor); returns
 * how many. */
int sg_tensor_rules(const sg_rules *rules, float *out);

/* sg_observation_tensor with the rule floats already made (sg_tensor_rules). */
int sg_tensor_fill(const sg_state *st, uint8_t seat, uint64_t pending,
                   const sg_public_move *recent, int n_recent, const float *rules, int n_rules,
                   float *out);

/* The greedy policy's move among `moves`, the n legal moves of `st` (0 when
 * n is 0): sg_greedy_move without making the moves again. */
sg_move sg_greedy_choice(const sg_state *st, const sg_move *moves, int n);

/* What the greedy policy thinks a phase-2 play of `cards` costs to give
 * away: high cards and trumps are dear; the same top card, more cards cheaper. */
int sg_play_cost(const sg_state *st, uint64_t cards);

/* A move drawn uniformly among the merged moves of the n > 0 legal moves
 * `moves` of `st` (sg_merge_moves' choice of class members), by rejection: it
 * tests one move a try rather than all n.  `moves` is left as it is, or
 * merged in place (sg_merge_moves) when the draws keep failing. */
sg_move sg_merge_draw(const sg_state *st, sg_move moves[SG_MAX_MOVES], int n, sg_rng *rng);

/* sg_rollout, drawing its random moves among the merged moves (sg_merge_moves)
 * when `merge` is set. */
void sg_rollout_builtin(sg_state *st, int policy, uint32_t cap, sg_rng *rng,
                        double reward[SG_MAX_PLAYERS], int merge);

/* sg_rollout_with, drawing the built-in policy's random moves as
 * sg_rollout_builtin does. */
int sg_rollout_merged(sg_state *st, sg_search_policy *policy, uint32_t cap, sg_rng *rng,
                      double reward[SG_MAX_PLAYERS], int merge);

/* The rewards of a rollout that ended in `st` (as sg_rollout says). */
void sg_rollout_rewards(const sg_state *st, double reward[SG_MAX_PLAYERS]);

/* ---- playouts (playout.c) ----------------------------------------------------- */

/* The MAST keys: phase (2) x kind (6: a play of several cards apart) x the
 * card of highest rank (64 codes, or none). */
#define SG_MAST_KEYS (2u * 6u * 65u)
/* NAST's pairs of keys, hashed into this many entries (a power of two). */
#define SG_NAST_SLOTS (1u << 16)
/* The Gibbs weights are looked up for means rounded to 1 / SG_MAST_BINS. */
#define SG_MAST_BINS 1024u

/* The playouts of one search: its settings made safe, its MAST (and NAST)
 * tables, and the moves of the iteration going on (their keys and movers). */
typedef struct sg_playout_run {
    int32_t kind;        /* enum sg_playout_kind; PLAIN when the tables are missing */
    int32_t builtin;     /* enum sg_policy (another value: random) */
    uint64_t threshold;  /* MIXED: a draw (32 bits) below this is not the greedy move */
    double temperature;  /* > 0, +infinity; 0: the best mean */
    double blend;        /* in [0, 1] */
    double neutral;      /* the mean of a key never seen: 1 - 1 / players */
    double *weight;      /* exp((bin / SG_MAST_BINS - 1) / temperature), bins 0 .. SG_MAST_BINS */
    double *sum;         /* SG_MAST_KEYS, then SG_NAST_SLOTS under NAST */
    uint32_t *count;
    uint32_t *keys;      /* the iteration's moves so far */
    uint8_t *movers;
    uint32_t len;
    uint32_t cap;
    uint32_t last;       /* the key of the iteration's last move (SG_MAST_KEYS: none) */
    int32_t full;        /* the trail could not grow: the rest of the iteration is not kept */
    int32_t merge;       /* random rollout moves drawn among the merged moves (sg_merge_moves) */
} sg_playout_run;

/* Sets up `run` for a search with `policy` (enum sg_policy) in games of
 * `players` players, from `settings` (NULL: sg_playout_defaults). */
void sg_playout_start(sg_playout_run *run, const sg_playout *settings, int32_t policy,
                      int players);
void sg_playout_end(sg_playout_run *run);
/* A new iteration: forgets the moves of the last one. */
void sg_playout_begin(sg_playout_run *run);
/* Keeps `move`, about to be played in `st`, for sg_playout_learn. */
void sg_playout_note(sg_playout_run *run, const sg_state *st, sg_move move);
/* sg_rollout with the run's policy and settings (notes every move). */
void sg_playout_rollout(sg_playout_run *run, sg_state *st, uint32_t cap, sg_rng *rng,
                        double reward[SG_MAX_PLAYERS]);
/* Credits the iteration's moves with their mover's reward. */
void sg_playout_learn(sg_playout_run *run, const double reward[SG_MAX_PLAYERS]);

/* The move `policy->choose` picks in `world`: SG_POLICY_ERROR_NONE and *move,
 * or the error it also writes into `policy` (with no legal move: *move = 0). */
int sg_policy_move(sg_search_policy *policy, const sg_state *world, sg_move *move);

/* The state and legal moves behind a position this core made (the policy
 * API's table), or NULL (and *moves NULL) for any other. */
const sg_state *sg_position_state(const sg_position *pos, const sg_move **moves);

/* A card's index in a tensor's plane of 52 floats: suit * 13 + rank index. */
static inline int sg_card_index(int card) { return SG_SUIT_OF(card) * 13 + SG_RANK_OF(card); }

/* Sets the floats of `cards` in a plane of 52 (tensor.c, net.c). */
static inline void sg_card_plane(float *out, uint64_t cards)
{
    for (uint64_t c = cards & SG_ALL_CARDS; c; c &= c - 1)
        out[sg_card_index(sg_lowest(c))] = 1.0f;
}

#endif /* SKITGUBBE_INTERNAL_H */
