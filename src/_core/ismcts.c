/* Single-observer information-set Monte Carlo tree search (Cowling, Powley and
 * Whitehouse, 2012) with per-player rewards: every iteration samples a world
 * consistent with the observer's view, walks the one shared tree choosing
 * among the children whose moves are legal in that world (UCB1 over the number
 * of times each child was available), adds one node, plays a rollout and
 * credits every node with the reward of the player who moved into it. */
#if !defined(_WIN32) && !defined(__APPLE__) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 199309L /* clock_gettime and CLOCK_MONOTONIC under -std=c99 */
#endif

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <time.h>

#include "internal.h"

#if defined(_WIN32) /* after the core's headers, which its macros cannot reach */
#define WIN32_LEAN_AND_MEAN
#define NOMINMAX
#include <windows.h>
#endif

#define NO_NODE UINT32_MAX

/* Seconds from an arbitrary origin on a monotonic wall clock.  The time
 * budget is the time a caller waits for an answer (what a per-move time limit
 * or a user counts), whatever else the process or the machine does: clock()
 * counts every thread's processor time, so concurrent searches shared one
 * budget and each stopped early, and a per-thread processor clock would let a
 * search on a loaded machine run past its budget in real time.  Under load a
 * timed search does fewer iterations; `iterations` is the reproducible budget. */
static double now_seconds(void)
{
#if defined(_WIN32)
    LARGE_INTEGER count, frequency;
    QueryPerformanceCounter(&count);
    QueryPerformanceFrequency(&frequency);
    return (double)count.QuadPart / (double)frequency.QuadPart;
#elif defined(CLOCK_MONOTONIC)
    struct timespec ts;
    if (clock_gettime(CLOCK_MONOTONIC, &ts) == 0)
        return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
    return (double)clock() / CLOCKS_PER_SEC;
#else
    return (double)clock() / CLOCKS_PER_SEC; /* no monotonic clock: processor time */
#endif
}

typedef struct node {
    sg_move move;        /* the move that leads here */
    uint32_t parent;
    uint32_t first_child;
    uint32_t next_sibling;
    uint32_t visits;
    uint32_t avail;      /* iterations in which this move was legal at its parent */
    uint8_t player;      /* who made `move` */
    double reward;       /* total reward of `player` through this node */
} node;

typedef struct tree {
    node *nodes;
    uint32_t len;
    uint32_t cap;
} tree;

static uint32_t add_node(tree *t, uint32_t parent, sg_move move, uint8_t player)
{
    if (t->len == t->cap) {
        /* Ids stay below NO_NODE and the byte count within size_t. */
        if (t->cap > (NO_NODE - 1) / 2 || (size_t)t->cap * 2 > SIZE_MAX / sizeof(node))
            return NO_NODE;
        const uint32_t cap = t->cap ? t->cap * 2 : 1024;
        node *grown = realloc(t->nodes, (size_t)cap * sizeof(node));
        if (!grown)
            return NO_NODE;
        t->nodes = grown;
        t->cap = cap;
    }
    const uint32_t id = t->len++;
    node *nd = &t->nodes[id];
    nd->move = move;
    nd->parent = parent;
    nd->first_child = NO_NODE;
    nd->next_sibling = NO_NODE;
    nd->visits = 0;
    nd->avail = 0;
    nd->player = player;
    nd->reward = 0.0;
    if (parent != NO_NODE) {
        nd->next_sibling = t->nodes[parent].first_child;
        t->nodes[parent].first_child = id;
    }
    return id;
}

static int index_of(const sg_move *moves, int n, sg_move move)
{
    for (int i = 0; i < n; i++)
        if (moves[i] == move)
            return i;
    return -1;
}

/* One iteration: select and expand in `world`, roll out, back up.
 * `exploration` is finite or +infinity and never negative (see sg_ismcts). */
static int iterate(tree *t, sg_state *world, double exploration, const sg_ismcts_params *p,
                   sg_search_policy *policy, sg_rng *rng)
{
    sg_move moves[SG_MAX_MOVES];
    uint8_t tried[SG_MAX_MOVES];
    uint32_t current = 0;
    while (world->phase != SG_PHASE_OVER) {
        const int n = sg_legal_moves(world, moves);
        for (int i = 0; i < n; i++)
            tried[i] = 0;
        uint32_t best = NO_NODE;
        double best_score = 0.0;
        for (uint32_t c = t->nodes[current].first_child; c != NO_NODE; c = t->nodes[c].next_sibling) {
            node *child = &t->nodes[c];
            const int i = index_of(moves, n, child->move);
            if (i < 0)
                continue;
            tried[i] = 1;
            child->avail++;
            const double score = child->reward / child->visits +
                                 exploration * sqrt(log((double)child->avail) / child->visits);
            /* The first available child unless a later one scores higher: a
             * NaN score (an infinite constant times a zero log) never wins
             * nor leaves the walk without a child. */
            if (best == NO_NODE || score > best_score) {
                best_score = score;
                best = c;
            }
        }
        int untried = 0;
        for (int i = 0; i < n; i++)
            untried += !tried[i];
        if (untried) {
            int pick = (int)sg_rng_below(rng, (uint32_t)untried);
            int i = 0;
            for (;; i++)
                if (!tried[i] && pick-- == 0)
                    break;
            const uint32_t id = add_node(t, current, moves[i], world->to_move);
            if (id == NO_NODE)
                break; /* out of memory: roll out from here */
            t->nodes[id].avail = 1;
            sg_apply_unchecked(world, moves[i], NULL);
            current = id;
            break;
        }
        if (best == NO_NODE)
            break; /* no legal move in a game not over (a malformed view): roll out from here */
        sg_apply_unchecked(world, t->nodes[best].move, NULL);
        current = best;
    }
    double reward[SG_MAX_PLAYERS];
    if (sg_rollout_with(world, policy, p->rollout_cap, rng, reward) != SG_POLICY_ERROR_NONE)
        return 0;
    for (uint32_t id = current; id != NO_NODE; id = t->nodes[id].parent) {
        node *nd = &t->nodes[id];
        nd->visits++;
        if (id != 0)
            nd->reward += reward[nd->player];
    }
    return 1;
}

sg_move sg_ismcts(const sg_state *view, const sg_ismcts_params *params, sg_ismcts_stats *stats,
                  sg_move moves[SG_MAX_MOVES], uint32_t visits[SG_MAX_MOVES], int *n_moves)
{
    return sg_ismcts_with(view, params, NULL, stats, moves, visits, n_moves);
}

sg_move sg_ismcts_with(const sg_state *view, const sg_ismcts_params *params,
                       sg_search_policy *policy, sg_ismcts_stats *stats,
                       sg_move moves[SG_MAX_MOVES], uint32_t visits[SG_MAX_MOVES], int *n_moves)
{
    sg_search_policy builtin = {params->policy, SG_POLICY_ERROR_NONE, NULL, NULL, NULL, NULL, 0};
    if (policy == NULL)
        policy = &builtin;
    sg_move legal[SG_MAX_MOVES];
    const int n = sg_legal_moves(view, legal);
    if (n_moves)
        *n_moves = 0;
    if (stats) {
        stats->iterations = 0;
        stats->nodes = 0;
        stats->seconds = 0.0;
    }
    if (n == 0)
        return 0;

    tree t = {NULL, 0, 0};
    if (add_node(&t, NO_NODE, 0, view->to_move) == NO_NODE)
        return legal[0];
    sg_rng rng;
    sg_rng_seed(&rng, params->seed);
    /* Parameters outside their domain are made safe, as the header says. */
    const double exploration = params->exploration >= 0.0 ? params->exploration : 0.0; /* NaN too */
    const int timed = params->seconds > 0.0 && params->seconds <= DBL_MAX; /* finite, positive */
    const double start = now_seconds();
    uint32_t done = 0;
    double seconds = 0.0;
    if (n > 1 && (timed || params->iterations)) {
        for (;;) {
            if (params->iterations && done >= params->iterations)
                break;
            if (timed && now_seconds() - start >= params->seconds)
                break;
            sg_state world;
            sg_sample_world(view, &rng, &world);
            if (!iterate(&t, &world, exploration, params, policy, &rng)) {
                free(t.nodes);
                return 0; /* the policy failed: policy->error says how */
            }
            done++;
        }
        seconds = now_seconds() - start;
    }

    /* The most visited root child; moves never expanded count as no visits. */
    sg_move best = legal[0];
    uint32_t best_visits = 0;
    for (int i = 0; i < n; i++) {
        uint32_t v = 0;
        for (uint32_t c = t.nodes[0].first_child; c != NO_NODE; c = t.nodes[c].next_sibling)
            if (t.nodes[c].move == legal[i])
                v = t.nodes[c].visits;
        if (moves)
            moves[i] = legal[i];
        if (visits)
            visits[i] = v;
        if (v > best_visits) {
            best_visits = v;
            best = legal[i];
        }
    }
    if (n_moves)
        *n_moves = n;
    if (stats) {
        stats->iterations = done;
        stats->nodes = t.len;
        stats->seconds = seconds;
    }
    free(t.nodes);
    return best;
}
