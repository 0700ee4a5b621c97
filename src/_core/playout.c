/* The playouts of one ISMCTS search beyond its policy's plain moves: the
 * mixed policy's share of random moves, the move-average sampling technique
 * (MAST: Finnsson and Bjornsson, 2008) and its n-gram form for pairs of moves
 * (NAST: Powley, Whitehouse and Cowling, 2013).  Every table belongs to one
 * search (sg_playout_run), made and freed by it. */
#include <math.h>
#include <stdlib.h>

#include "internal.h"

void sg_playout_defaults(sg_playout *playout)
{
    playout->random_fraction = 0.25;
    playout->temperature = SG_PLAYOUT_TEMPERATURE;
    playout->blend = 1.0;
    playout->kind = SG_PLAYOUT_KIND_PLAIN;
    playout->reserved = 0;
}

void sg_playout_start(sg_playout_run *run, const sg_playout *settings, int32_t policy,
                      int players)
{
    sg_playout defaults;
    if (settings == NULL) {
        sg_playout_defaults(&defaults);
        settings = &defaults;
    }
    const double fraction = settings->random_fraction;
    if (!(fraction > 0.0)) /* NaN too */
        run->threshold = 0;
    else if (fraction >= 1.0)
        run->threshold = UINT64_C(1) << 32;
    else /* 0.25: 2^30, so that a draw below it is sg_rng_below(rng, 4) == 0 */
        run->threshold = (uint64_t)(fraction * 4294967296.0);
    run->temperature = settings->temperature > 0.0 ? settings->temperature : 0.0;
    const double blend = settings->blend;
    run->blend = blend >= 0.0 ? (blend <= 1.0 ? blend : 1.0) : (blend < 0.0 ? 0.0 : 1.0);
    run->builtin = policy;
    run->neutral = players > 0 ? 1.0 - 1.0 / players : 0.5;
    run->kind = settings->kind == SG_PLAYOUT_KIND_MAST || settings->kind == SG_PLAYOUT_KIND_NAST
                    ? settings->kind
                    : SG_PLAYOUT_KIND_PLAIN;
    run->weight = NULL;
    run->sum = NULL;
    run->count = NULL;
    run->keys = NULL;
    run->movers = NULL;
    run->len = 0;
    run->cap = 0;
    run->last = SG_MAST_KEYS;
    run->full = 0;
    run->merge = 0;
    if (run->kind == SG_PLAYOUT_KIND_PLAIN)
        return;
    const size_t size = SG_MAST_KEYS + (run->kind == SG_PLAYOUT_KIND_NAST ? SG_NAST_SLOTS : 0);
    run->sum = calloc(size, sizeof *run->sum);
    run->count = calloc(size, sizeof *run->count);
    run->weight = malloc((SG_MAST_BINS + 1) * sizeof *run->weight);
    if (run->sum == NULL || run->count == NULL || run->weight == NULL) {
        sg_playout_end(run); /* no memory: plain rollouts */
        run->kind = SG_PLAYOUT_KIND_PLAIN;
        return;
    }
    /* exp() once per bin rather than once per move and draw: a rollout move costs
     * less than a few calls of it.  The exponent is at most 0 (1 for the best mean),
     * so nothing overflows; +infinity gives 1 everywhere (uniform). */
    for (uint32_t b = 0; b <= SG_MAST_BINS; b++)
        run->weight[b] = run->temperature > 0.0
                             ? exp(((double)b / SG_MAST_BINS - 1.0) / run->temperature)
                             : 0.0;
}

void sg_playout_end(sg_playout_run *run)
{
    free(run->weight);
    free(run->sum);
    free(run->count);
    free(run->keys);
    free(run->movers);
    run->weight = NULL;
    run->sum = NULL;
    run->count = NULL;
    run->keys = NULL;
    run->movers = NULL;
    run->len = 0;
    run->cap = 0;
}

void sg_playout_begin(sg_playout_run *run)
{
    run->len = 0;
    run->last = SG_MAST_KEYS;
    run->full = 0;
}

/* A move's key: its phase, its kind (a play of several cards apart) and its
 * card of highest rank (the lowest suit of that rank; none: 0). */
static uint32_t move_key(const sg_state *st, sg_move move)
{
    unsigned kind = SG_MOVE_KIND_OF(move);
    const uint64_t cards = SG_MOVE_CARDS(move);
    if (kind == SG_MOVE_KIND_PLAY && (cards & (cards - 1)))
        kind = 5;
    else if (kind > 4)
        kind = 5; /* not a move the core makes */
    uint32_t top = 0;
    int best = -1;
    for (uint64_t c = cards; c; c &= c - 1) {
        const int card = sg_lowest(c);
        if (best < 0 || SG_RANK_OF(card) > SG_RANK_OF(best))
            best = card;
    }
    if (best >= 0)
        top = (uint32_t)best + 1;
    const uint32_t phase = st->phase == SG_PHASE_COLLECTING ? 0 : 1;
    return (phase * 6u + kind) * 65u + top;
}

/* NAST's slot for the key `key` after the key `last` (SG_MAST_KEYS: none). */
static uint32_t pair_slot(uint32_t last, uint32_t key)
{
    const uint32_t pair = last * (SG_MAST_KEYS + 1u) + key;
    return SG_MAST_KEYS + ((pair * UINT32_C(2654435761)) >> 16);
}

void sg_playout_note(sg_playout_run *run, const sg_state *st, sg_move move)
{
    if (run->kind == SG_PLAYOUT_KIND_PLAIN || run->full)
        return;
    if (run->len == run->cap) {
        if (run->cap > UINT32_MAX / 2) {
            run->full = 1;
            return;
        }
        const uint32_t cap = run->cap ? run->cap * 2 : 256;
        uint32_t *keys = realloc(run->keys, (size_t)cap * sizeof *keys);
        if (keys != NULL)
            run->keys = keys;
        uint8_t *movers = realloc(run->movers, (size_t)cap * sizeof *movers);
        if (movers != NULL)
            run->movers = movers;
        if (keys == NULL || movers == NULL) {
            run->full = 1; /* no memory: learn from the moves kept so far */
            return;
        }
        run->cap = cap;
    }
    const uint32_t key = move_key(st, move);
    run->keys[run->len] = key;
    run->movers[run->len] = (uint8_t)(st->to_move < SG_MAX_PLAYERS ? st->to_move : 0);
    run->len++;
    run->last = key;
}

void sg_playout_learn(sg_playout_run *run, const double reward[SG_MAX_PLAYERS])
{
    if (run->kind == SG_PLAYOUT_KIND_PLAIN)
        return;
    uint32_t last = SG_MAST_KEYS;
    for (uint32_t i = 0; i < run->len; i++) {
        const uint32_t key = run->keys[i];
        const double r = reward[run->movers[i]];
        run->sum[key] += r;
        run->count[key]++;
        if (run->kind == SG_PLAYOUT_KIND_NAST) {
            const uint32_t slot = pair_slot(last, key);
            run->sum[slot] += r;
            run->count[slot]++;
        }
        last = key;
    }
}

/* The mean reward the run has for `move` in `st` (after its last move). */
static double mean_of(const sg_playout_run *run, const sg_state *st, sg_move move)
{
    const uint32_t key = move_key(st, move);
    if (run->kind == SG_PLAYOUT_KIND_NAST) {
        const uint32_t slot = pair_slot(run->last, key);
        if (run->count[slot] >= SG_NAST_MIN_VISITS)
            return run->sum[slot] / run->count[slot];
    }
    return run->count[key] ? run->sum[key] / run->count[key] : run->neutral;
}

/* A uniform double in [0, 1). */
static double uniform(sg_rng *rng)
{
    return (double)(sg_rng_next(rng) >> 11) * (1.0 / 9007199254740992.0);
}

/* One of the `n` moves (n >= 1), with probability proportional to
 * exp(mean / temperature) (the mean rounded to 1 / SG_MAST_BINS); the first
 * best mean when the temperature is 0, or when every weight underflows to 0. */
static sg_move gibbs(const sg_playout_run *run, const sg_state *st, const sg_move *moves, int n,
                     sg_rng *rng)
{
    double weight[SG_MAX_MOVES];
    double best = -1.0;
    int first = 0;
    for (int i = 0; i < n; i++) {
        const double mean = mean_of(run, st, moves[i]);
        if (mean > best) {
            best = mean;
            first = i;
        }
        /* Rewards, and so means, lie in [0, 1]; anything else is clamped (NaN: 0). */
        const uint32_t bin = mean > 0.0 ? (mean < 1.0 ? (uint32_t)(mean * SG_MAST_BINS + 0.5)
                                                      : SG_MAST_BINS)
                                        : 0;
        weight[i] = run->weight[bin];
    }
    if (n == 1 || run->temperature == 0.0)
        return moves[first];
    double total = 0.0;
    for (int i = 0; i < n; i++)
        total += weight[i];
    double u = uniform(rng) * total;
    for (int i = 0; i < n; i++) {
        u -= weight[i];
        if (u < 0.0)
            return moves[i];
    }
    return moves[first]; /* every weight 0, or rounding left u at 0 or above */
}

void sg_playout_rollout(sg_playout_run *run, sg_state *st, uint32_t cap, sg_rng *rng,
                        double reward[SG_MAX_PLAYERS])
{
    sg_move moves[SG_MAX_MOVES];
    for (uint32_t done = 0; st->phase != SG_PHASE_OVER && (!cap || done < cap); done++) {
        int greedy;
        if (run->builtin == SG_POLICY_GREEDY)
            greedy = 1;
        else if (run->builtin == SG_POLICY_MIXED) /* the draw of sg_rng_below(rng, 4) */
            greedy = (sg_rng_next(rng) >> 32) >= run->threshold;
        else
            greedy = 0;
        sg_move move;
        /* No legal move in a game not over cannot happen in a state that
         * passes sg_view_check; should it, the rollout stops there. */
        if (greedy) {
            move = sg_greedy_move(st);
            if (!move)
                break;
        } else {
            const int n = sg_legal_moves(st, moves);
            if (n == 0)
                break;
            if (run->kind == SG_PLAYOUT_KIND_PLAIN)
                move = run->merge ? sg_merge_draw(st, moves, n, rng)
                                  : moves[sg_rng_below(rng, (uint32_t)n)];
            else
                move = gibbs(run, st, moves, run->merge ? sg_merge_moves(st, moves, n) : n, rng);
        }
        sg_playout_note(run, st, move);
        sg_apply_unchecked(st, move, NULL);
    }
    sg_rollout_rewards(st, reward);
}
