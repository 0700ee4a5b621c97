/* Exact worlds: sampling the unknown cards under what a seat's history proves
 * (docs/rules.md §8; the belief is described in skitgubbe.h).
 *
 * The target: every deal of the unknown cards into the unknown slots that
 * respects the chosen cases' slots and needs is equally likely, each case
 * weighted by its weight.  The sampler is a rejection sampler.  The seats with
 * cases are dealt first, the tightest seat first, each from its case's slots,
 * tightest first: slot t of the case draws uniformly among the k_t cards it may
 * hold that are left.  Every k_t is at most a bound b_t that depends on the case
 * alone (the slot's allowed cards, less those that earlier slots of the case
 * allowed a subset of must have taken, less those that the earlier seats must
 * have taken in whichever of their cases, and never more than the cards not yet
 * dealt: see plan_seat), so drawing each
 * seat's case in proportion to weight * prod(b_t) and keeping the proposal
 * with probability prod(k_t / b_t) (and only if its needs hold) gives each
 * deal its exact probability; the rest of the cards then go uniformly to the
 * other slots. */
#include <float.h>

#include "internal.h"

#define RANK_BITS 0x1FFFu

typedef sg_world_seat seat_plan;

/* The cards of slot `j` of case `c` that may lie in it. */
static uint64_t allowed(uint64_t pool, const sg_belief_case *c, int j)
{
    return pool & ~SG_RANK_CARDS(c->forbid[j] & RANK_BITS);
}

/* The fewest slots of seat plan `sp` (over its cases that can be drawn) whose
 * allowed cards lie within `set`: cards of `set` that seat must take. */
static int must_take(const sg_world_plan *plan, const seat_plan *sp, uint64_t set)
{
    const sg_belief_case *cases = plan->belief->cases[sp->seat];
    int fewest = SG_BELIEF_SLOTS;
    for (int c = 0; c < sp->n_cases; c++) {
        if (!(sp->mass[c] > 0.0))
            continue;
        int inside = 0;
        for (int j = 0; j < sp->slots; j++)
            inside += (allowed(plan->pool, &cases[c], j) & ~set) == 0;
        if (inside < fewest)
            fewest = inside;
    }
    return fewest;
}

/* Orders each case's slots, bounds them and weighs the case (see the top). */
static void plan_seat(sg_world_plan *plan, seat_plan *sp)
{
    const sg_belief_case *cases = plan->belief->cases[sp->seat];
    int left = sg_popcount(plan->pool); /* the cards not dealt before this seat */
    for (const seat_plan *q = plan->seats; q < sp; q++)
        left -= q->slots;
    sp->total = 0.0;
    for (int c = 0; c < sp->n_cases; c++) {
        uint64_t set[SG_BELIEF_SLOTS];
        uint8_t *order = sp->order[c];
        for (int j = 0; j < sp->slots; j++) {
            set[j] = allowed(plan->pool, &cases[c], j);
            /* Insertion by the number of allowed cards, ties by slot. */
            int t = j;
            for (; t > 0 && sg_popcount(set[order[t - 1]]) > sg_popcount(set[j]); t--)
                order[t] = order[t - 1];
            order[t] = (uint8_t)j;
        }
        double mass = cases[c].weight;
        for (int t = 0; t < sp->slots; t++) {
            const uint64_t a = set[order[t]];
            int bound = sg_popcount(a);
            for (int u = 0; u < t; u++)
                bound -= (set[order[u]] & ~a) == 0;
            for (const seat_plan *q = plan->seats; q < sp; q++)
                bound -= must_take(plan, q, a);
            /* Nor more than the cards left at all. */
            if (bound > left - t)
                bound = left - t;
            sp->bound[c][t] = (uint8_t)(bound > 0 ? bound : 0);
            mass *= bound > 0 ? (double)bound : 0.0;
        }
        sp->mass[c] = mass;
        sp->total += mass;
    }
}

/* Checks 1 and 2 of sg_belief_check. */
int sg_belief_fields(const sg_state *view, const sg_belief *belief)
{
    for (int p = 0; p < SG_MAX_PLAYERS; p++)
        if (belief->n_cases[p] > SG_BELIEF_CASES ||
            (p >= view->rules.players && belief->n_cases[p]))
            return 1;
    for (int p = 0; p < view->rules.players && p < SG_MAX_PLAYERS; p++) {
        for (int c = 0; c < belief->n_cases[p]; c++) {
            const sg_belief_case *k = &belief->cases[p][c];
            if (!k->n_slots || k->n_slots != view->unseen[p] || k->n_slots > SG_BELIEF_SLOTS ||
                k->n_needs > SG_BELIEF_NEEDS || !(k->weight > 0.0 && k->weight <= DBL_MAX))
                return 2;
            for (int j = 0; j < k->n_slots; j++)
                if (k->forbid[j] & ~RANK_BITS)
                    return 2;
            for (int i = 0; i < k->n_needs; i++)
                if ((k->need_ranks[i] & ~RANK_BITS) || (k->need_slots[i] >> k->n_slots))
                    return 2;
        }
    }
    return 0;
}

int sg_belief_check(const sg_state *view, const sg_belief *belief)
{
    sg_world_plan plan;
    const int failed = sg_belief_fields(view, belief);
    if (failed)
        return failed;
    return sg_world_plan_make(view, belief, &plan) ? 0 : 3;
}

/* How tight a seat's cases are: the mean, by weight, of its slots' allowed cards. */
static double looseness(const sg_world_plan *plan, const sg_world_seat *sp)
{
    const sg_belief_case *cases = plan->belief->cases[sp->seat];
    double sum = 0.0, weights = 0.0;
    for (int c = 0; c < sp->n_cases; c++) {
        int allowed_cards = 0;
        for (int j = 0; j < sp->slots; j++)
            allowed_cards += sg_popcount(allowed(plan->pool, &cases[c], j));
        sum += cases[c].weight * allowed_cards;
        weights += cases[c].weight;
    }
    return weights > 0.0 ? sum / weights : 0.0;
}

int sg_world_plan_make(const sg_state *view, const sg_belief *belief, sg_world_plan *plan)
{
    plan->belief = belief;
    plan->pool = sg_unplaced(view);
    plan->n_seats = 0;
    double loose[SG_MAX_PLAYERS];
    for (int p = 0; p < view->rules.players && p < SG_MAX_PLAYERS; p++) {
        if (!belief->n_cases[p])
            continue;
        /* The tightest seats first, where the bounds on later seats can count the
         * cards they must take (must_take). */
        sg_world_seat seat;
        seat.seat = (uint8_t)p;
        seat.slots = view->unseen[p];
        seat.n_cases = belief->n_cases[p];
        const double l = looseness(plan, &seat);
        int at = plan->n_seats++;
        for (; at > 0 && loose[at - 1] > l; at--) {
            loose[at] = loose[at - 1];
            plan->seats[at].seat = plan->seats[at - 1].seat;
            plan->seats[at].slots = plan->seats[at - 1].slots;
            plan->seats[at].n_cases = plan->seats[at - 1].n_cases;
        }
        loose[at] = l;
        plan->seats[at].seat = seat.seat;
        plan->seats[at].slots = seat.slots;
        plan->seats[at].n_cases = seat.n_cases;
    }
    for (int s = 0; s < plan->n_seats; s++) {
        seat_plan *sp = &plan->seats[s];
        plan_seat(plan, sp);
        if (!(sp->total > 0.0 && sp->total <= DBL_MAX))
            return 0;
    }
    return 1;
}

/* A uniform double in [0, 1). */
static double unit(sg_rng *rng)
{
    return (double)(sg_rng_next(rng) >> 11) * (1.0 / 9007199254740992.0);
}

/* The card of rank order `k` (from 0) in `set`. */
static int nth_card(uint64_t set, uint32_t k)
{
    for (; k; k--)
        set &= set - 1;
    return sg_lowest(set);
}

/* A proposal: each planned seat's case and the card of each of its slots. */
typedef struct proposal {
    uint64_t dealt;
    uint16_t chosen[SG_MAX_PLAYERS];
    uint8_t card[SG_MAX_PLAYERS][SG_BELIEF_SLOTS];
} proposal;

/* Draws a proposal; 1 when it respects every slot and need, with *keep the
 * probability of keeping it. */
static int propose(const sg_world_plan *plan, sg_rng *rng, proposal *out, double *keep)
{
    double ratio = 1.0;
    out->dealt = 0;
    for (int s = 0; s < plan->n_seats; s++) {
        const seat_plan *sp = &plan->seats[s];
        double x = unit(rng) * sp->total;
        int c = -1, last = 0;
        for (int i = 0; i < sp->n_cases && c < 0; i++) {
            if (!(sp->mass[i] > 0.0))
                continue;
            last = i;
            if (x < sp->mass[i])
                c = i;
            x -= sp->mass[i];
        }
        if (c < 0)
            c = last; /* rounding ran past the end */
        out->chosen[s] = (uint16_t)c;
        const sg_belief_case *k = &plan->belief->cases[sp->seat][c];
        for (int t = 0; t < sp->slots; t++) {
            const int j = sp->order[c][t];
            const uint64_t a = allowed(plan->pool, k, j) & ~out->dealt;
            const int n = sg_popcount(a);
            if (n == 0 || n > sp->bound[c][t])
                return 0; /* the second cannot happen: the bound holds */
            ratio *= (double)n / (double)sp->bound[c][t];
            const int card = nth_card(a, sg_rng_below(rng, (uint32_t)n));
            out->card[s][j] = (uint8_t)card;
            out->dealt |= SG_CARD_BIT(card);
        }
        for (int i = 0; i < k->n_needs; i++) {
            int met = 0;
            for (int j = 0; j < sp->slots; j++)
                met |= (k->need_slots[i] >> j & 1) &&
                       (k->need_ranks[i] >> SG_RANK_OF(out->card[s][j]) & 1);
            if (!met)
                return 0;
        }
    }
    *keep = ratio;
    return 1;
}

/* The world of an accepted proposal: its cards, and the rest dealt uniformly
 * to the seats without cases, the stock and the hidden card. */
static void deal(const sg_state *view, const sg_world_plan *plan, const proposal *prop,
                 sg_rng *rng, sg_state *world)
{
    *world = *view;
    uint8_t pool[SG_NCARDS];
    const int n = sg_shuffled_cards(plan->pool & ~prop->dealt, rng, pool);
    int next = 0;
    uint64_t planned[SG_MAX_PLAYERS] = {0, 0, 0, 0};
    int has_plan[SG_MAX_PLAYERS] = {0, 0, 0, 0};
    for (int s = 0; s < plan->n_seats; s++) {
        const sg_world_seat *sp = &plan->seats[s];
        has_plan[sp->seat] = 1;
        for (int j = 0; j < sp->slots; j++)
            planned[sp->seat] |= SG_CARD_BIT(prop->card[s][j]);
    }
    for (int p = 0; p < SG_MAX_PLAYERS; p++) {
        if (has_plan[p])
            world->hand[p] |= planned[p];
        else
            for (int k = 0; k < view->unseen[p] && next < n; k++)
                world->hand[p] |= SG_CARD_BIT(pool[next++]);
        world->unseen[p] = 0;
    }
    for (int i = view->stock_top; i < view->stock_len; i++)
        if (view->stock[i] == SG_UNKNOWN_CARD && next < n)
            world->stock[i] = pool[next++];
    if (view->hidden_card == SG_UNKNOWN_CARD && next < n) {
        world->hidden_card = pool[next++];
        if (world->rules.trump == SG_TRUMP_RULE_LAST_CARD)
            world->trump = (uint8_t)SG_SUIT_OF(world->hidden_card);
    }
}

int sg_world_plan_sample(const sg_state *view, const sg_world_plan *plan, sg_rng *rng,
                         sg_state *world)
{
    proposal prop, last;
    int have_last = 0;
    for (int tries = 0; tries < SG_SAMPLE_TRIES; tries++) {
        double keep;
        if (!propose(plan, rng, &prop, &keep))
            continue;
        if (unit(rng) < keep) {
            deal(view, plan, &prop, rng, world);
            return SG_SAMPLE_EXACT;
        }
        last = prop;
        have_last = 1;
    }
    if (have_last) {
        deal(view, plan, &last, rng, world);
        return SG_SAMPLE_FALLBACK;
    }
    sg_sample_world(view, rng, world);
    return SG_SAMPLE_UNIFORM;
}

int sg_sample_belief(const sg_state *view, const sg_belief *belief, sg_rng *rng,
                     sg_state *world)
{
    if (belief == NULL) {
        sg_sample_world(view, rng, world);
        return SG_SAMPLE_EXACT;
    }
    sg_world_plan plan;
    if (sg_belief_fields(view, belief) || !sg_world_plan_make(view, belief, &plan)) {
        sg_sample_world(view, rng, world);
        return SG_SAMPLE_UNIFORM;
    }
    return sg_world_plan_sample(view, &plan, rng, world);
}
