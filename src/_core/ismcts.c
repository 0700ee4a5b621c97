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
    /* PUCT (a network): the network's probability of `move` at the parent, its
     * value here for the player to move, and where the probabilities of the
     * moves legal here (in the world that first reached it) start in
     * tree.priors (NO_NODE: none). */
    float prior;
    float value;
    uint32_t priors;
    uint32_t n_priors;
} node;

typedef struct prior_entry {
    sg_move move;
    float p;
} prior_entry;

typedef struct tree {
    node *nodes;
    uint32_t len;
    uint32_t cap;
    prior_entry *priors;
    uint32_t n_priors;
    uint32_t cap_priors;
    /* log(n) for n below n_logs, filled as UCB1 asks (0: not yet, or n = 1), or NULL:
     * the same values as log() gives, without a call for every child at every step. */
    double *logs;
    uint32_t n_logs;
} tree;

/* The most logarithms a search keeps (512 KiB). */
#define MAX_LOGS (UINT32_C(1) << 16)

/* log(n), n >= 1, from the search's table when it holds n (the value log() returned). */
static double log_of(tree *t, uint32_t n)
{
    if (n >= t->n_logs)
        return log((double)n);
    if (t->logs[n] == 0.0)
        t->logs[n] = log((double)n);
    return t->logs[n];
}

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
    nd->prior = 0.0f;
    nd->value = 0.0f;
    nd->priors = NO_NODE;
    nd->n_priors = 0;
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

/* ---- exact leaves ----------------------------------------------------------------- */

/* The solver of a search's leaves (params->solver > 0), its buffer the search's
 * own, made when the first leaf to solve comes (a search that never reaches an
 * endgame pays nothing). */
typedef struct leaf_solver {
    sg_solver *solver;
    void *buffer;
    uint32_t cards;    /* the most cards in hands a leaf may hold to be solved; 0: none.
                          A leaf the budget does not solve lowers it below its own count. */
} leaf_solver;

#define LEAF_TABLE_ENTRIES (1u << 14)

static void leaf_solver_open(leaf_solver *ls, uint32_t cards)
{
    ls->solver = NULL;
    ls->buffer = NULL;
    ls->cards = cards;
}

static void leaf_solver_close(leaf_solver *ls)
{
    free(ls->buffer);
    ls->buffer = NULL;
    ls->solver = NULL;
}

/* The exact rewards of `world` when it is a leaf the solver takes and solves
 * within its budget (1), else 0 and nothing written. */
static int solved_leaf(leaf_solver *ls, const sg_state *world, double reward[SG_MAX_PLAYERS])
{
    if (ls->cards == 0 || world->phase != SG_PHASE_SHEDDING)
        return 0;
    int holding = 0;
    uint32_t cards = 0;
    for (int p = 0; p < world->rules.players; p++) {
        holding += world->hand[p] != 0;
        cards += (uint32_t)sg_popcount(world->hand[p]);
    }
    if (holding != 2 || cards > ls->cards)
        return 0;
    if (ls->solver == NULL) {
        const size_t size = sg_solver_size(LEAF_TABLE_ENTRIES);
        ls->buffer = malloc(size);
        ls->solver = ls->buffer ? sg_solver_init(ls->buffer, size) : NULL;
        if (ls->solver == NULL) {
            ls->cards = 0; /* no memory: roll out */
            return 0;
        }
    }
    sg_solve_result res;
    if (sg_solve(ls->solver, world, SG_ISMCTS_SOLVE_BUDGET, &res) != SG_ERROR_NONE)
        return 0;
    if (res.value == SG_SOLVE_VALUE_UNKNOWN) {
        ls->cards = cards - 1; /* too big for the budget: solve only smaller leaves from now */
        return 0;
    }
    for (int p = 0; p < SG_MAX_PLAYERS; p++)
        reward[p] = 1.0;
    if (res.loser != SG_NO_SEAT)
        reward[res.loser] = 0.0;
    return 1;
}

/* Credits every node from `id` up to the root with a visit and the reward of
 * the player who moved into it. */
static void backup(tree *t, uint32_t id, const double reward[SG_MAX_PLAYERS])
{
    for (; id != NO_NODE; id = t->nodes[id].parent) {
        node *nd = &t->nodes[id];
        nd->visits++;
        if (id != 0)
            nd->reward += reward[nd->player];
    }
}

/* A rollout with the caller's policy, or the built-in one as `run` plays it
 * (equivalent random moves merged when run->merge says so). */
static int roll_out(sg_state *world, const sg_ismcts_params *p, sg_search_policy *policy,
                    sg_playout_run *run, sg_rng *rng, double reward[SG_MAX_PLAYERS])
{
    if (policy->choose != NULL || policy->evaluate != NULL)
        return sg_rollout_merged(world, policy, p->rollout_cap, rng, reward, run->merge) ==
               SG_POLICY_ERROR_NONE;
    sg_playout_rollout(run, world, p->rollout_cap, rng, reward);
    return 1;
}

/* One iteration: select and expand in `world`, roll out, back up.
 * `exploration` is finite or +infinity and never negative (see sg_ismcts). */
static int iterate(tree *t, sg_state *world, double exploration, const sg_ismcts_params *p,
                   sg_search_policy *policy, sg_playout_run *run, sg_rng *rng, leaf_solver *ls)
{
    const int merge = (p->flags & SG_ISMCTS_MERGE) != 0;
    sg_move moves[SG_MAX_MOVES];
    uint8_t tried[SG_MAX_MOVES];
    uint32_t current = 0;
    while (world->phase != SG_PHASE_OVER) {
        int n = sg_legal_moves(world, moves);
        if (merge)
            n = sg_merge_moves(world, moves, n);
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
                                 exploration * sqrt(log_of(t, child->avail) / child->visits);
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
            int pick = (int)sg_rng_below_inline(rng, (uint32_t)untried);
            int i = 0;
            for (;; i++)
                if (!tried[i] && pick-- == 0)
                    break;
            const uint32_t id = add_node(t, current, moves[i], world->to_move);
            if (id == NO_NODE)
                break; /* out of memory: roll out from here */
            t->nodes[id].avail = 1;
            sg_playout_note(run, world, moves[i]);
            sg_apply_unchecked(world, moves[i], NULL);
            current = id;
            break;
        }
        if (best == NO_NODE)
            break; /* no legal move in a game not over (a malformed view): roll out from here */
        sg_playout_note(run, world, t->nodes[best].move);
        sg_apply_unchecked(world, t->nodes[best].move, NULL);
        current = best;
    }
    double reward[SG_MAX_PLAYERS];
    if (!solved_leaf(ls, world, reward) && !roll_out(world, p, policy, run, rng, reward))
        return 0;
    backup(t, current, reward);
    sg_playout_learn(run, reward);
    return 1;
}

/* ---- PUCT with a network ----------------------------------------------------- */

/* The unvisited moves' first value is the node's own value less this. */
#define FIRST_PLAY_REDUCTION 0.1

/* Evaluates node `id` in `world` (the position it stands for) with the
 * network: keeps its move probabilities and its value for the player to move,
 * and writes every seat's value (the world value but at the root).  0 when
 * memory or the network failed. */
static int evaluate_node(tree *t, uint32_t id, const sg_state *world, const sg_net *net,
                         double value[SG_MAX_PLAYERS])
{
    sg_move moves[SG_MAX_MOVES];
    float logits[SG_MAX_MOVES];
    const int n = sg_legal_moves(world, moves);
    /* The root is the view itself (its hidden cards unknown): the mover's own value
     * there; every other node stands in a sampled world: its world value. */
    if (sg_net_run(net, world, moves, n, logits, id == 0 ? value : NULL) != SG_ERROR_NONE)
        return 0;
    if (id != 0 && sg_net_world_value(net, world, value) != SG_ERROR_NONE)
        return 0;
    sg_net_softmax(logits, n, 1.0);
    if (t->n_priors + (uint32_t)n > t->cap_priors) {
        if (t->cap_priors > (NO_NODE - SG_MAX_MOVES) / 2)
            return 0;
        uint32_t cap = t->cap_priors ? t->cap_priors * 2 : 4096;
        while (cap < t->n_priors + (uint32_t)n)
            cap *= 2;
        prior_entry *grown = realloc(t->priors, (size_t)cap * sizeof *grown);
        if (!grown)
            return 0;
        t->priors = grown;
        t->cap_priors = cap;
    }
    node *nd = &t->nodes[id];
    nd->priors = t->n_priors;
    nd->n_priors = (uint32_t)n;
    for (int i = 0; i < n; i++) {
        t->priors[t->n_priors + (uint32_t)i].move = moves[i];
        t->priors[t->n_priors + (uint32_t)i].p = logits[i];
    }
    t->n_priors += (uint32_t)n;
    nd->value = (float)value[world->to_move];
    return 1;
}

/* The probability node `id` gave `move` (uniform over `n` moves when it has none). */
static float prior_of(const tree *t, uint32_t id, sg_move move, int n)
{
    const node *nd = &t->nodes[id];
    if (nd->priors != NO_NODE)
        for (uint32_t i = 0; i < nd->n_priors; i++)
            if (t->priors[nd->priors + i].move == move)
                return t->priors[nd->priors + i].p;
    return 1.0f / (float)n;
}

/* The leaf's rewards: the network's values (already in `reward`), a rollout's,
 * or the two blended as run->blend says. */
static int leaf_rewards(sg_state *world, const sg_ismcts_params *p, sg_search_policy *policy,
                        sg_playout_run *run, sg_rng *rng, double reward[SG_MAX_PLAYERS])
{
    if (policy->net_leaf && policy->choose == NULL && policy->evaluate == NULL) {
        if (run->blend >= 1.0)
            return 1;
        double value[SG_MAX_PLAYERS];
        for (int s = 0; s < SG_MAX_PLAYERS; s++)
            value[s] = reward[s];
        sg_playout_rollout(run, world, p->rollout_cap, rng, reward);
        for (int s = 0; s < SG_MAX_PLAYERS; s++)
            reward[s] = run->blend * value[s] + (1.0 - run->blend) * reward[s];
        return 1;
    }
    return roll_out(world, p, policy, run, rng, reward);
}

/* One PUCT iteration: at each node the move of highest
 *   Q + exploration * P * sqrt(avail) / (1 + visits)
 * among those legal in `world` (Q the mover's mean reward, or for a move not
 * tried yet the node's value less FIRST_PLAY_REDUCTION, with `avail` the
 * node's visits); a move not tried yet is added, the network evaluates the
 * new node, and its values (or a rollout's rewards) are backed up.
 * Returns 0 when the policy, the network or memory failed. */
static int iterate_puct(tree *t, sg_state *world, double exploration, const sg_ismcts_params *p,
                        sg_search_policy *policy, sg_playout_run *run, sg_rng *rng, leaf_solver *ls)
{
    sg_move moves[SG_MAX_MOVES];
    uint32_t child_of[SG_MAX_MOVES];
    double reward[SG_MAX_PLAYERS];
    uint32_t current = 0;
    int leaf = 0;
    const int merge = (p->flags & SG_ISMCTS_MERGE) != 0;
    while (world->phase != SG_PHASE_OVER) {
        int n = sg_legal_moves(world, moves);
        if (merge)
            n = sg_merge_moves(world, moves, n);
        if (n == 0)
            break;
        for (int i = 0; i < n; i++)
            child_of[i] = NO_NODE;
        for (uint32_t c = t->nodes[current].first_child; c != NO_NODE; c = t->nodes[c].next_sibling) {
            const int i = index_of(moves, n, t->nodes[c].move);
            if (i >= 0) {
                child_of[i] = c;
                t->nodes[c].avail++;
            }
        }
        const node *here = &t->nodes[current];
        const double first = here->value - FIRST_PLAY_REDUCTION;
        const double root_visits = sqrt((double)(here->visits ? here->visits : 1));
        int best = 0;
        double best_score = -DBL_MAX;
        for (int i = 0; i < n; i++) {
            double score;
            if (child_of[i] != NO_NODE) {
                const node *child = &t->nodes[child_of[i]];
                const double q = child->visits ? child->reward / child->visits : first;
                score = q + exploration * child->prior * sqrt((double)child->avail) /
                                (1.0 + child->visits);
            } else {
                score = first + exploration * prior_of(t, current, moves[i], n) * root_visits;
            }
            if (score > best_score) { /* a NaN never wins; the first move stands */
                best_score = score;
                best = i;
            }
        }
        sg_playout_note(run, world, moves[best]);
        if (child_of[best] != NO_NODE) {
            sg_apply_unchecked(world, moves[best], NULL);
            current = child_of[best];
            continue;
        }
        const float prior = prior_of(t, current, moves[best], n);
        const uint32_t id = add_node(t, current, moves[best], world->to_move);
        if (id == NO_NODE)
            return 0;
        t->nodes[id].avail = 1;
        t->nodes[id].prior = prior;
        sg_apply_unchecked(world, moves[best], NULL);
        current = id;
        leaf = 1;
        break;
    }
    if (world->phase == SG_PHASE_OVER) {
        sg_rollout_rewards(world, reward);
    } else if (leaf) {
        if (!evaluate_node(t, current, world, policy->net, reward))
            return 0;
        if (!solved_leaf(ls, world, reward) && !leaf_rewards(world, p, policy, run, rng, reward))
            return 0;
    } else if (solved_leaf(ls, world, reward)) {
        /* a leaf the tree could not grow past (memory), solved */
    } else {
        if (!roll_out(world, p, policy, run, rng, reward))
            return 0;
    }
    backup(t, current, reward);
    sg_playout_learn(run, reward);
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
    return sg_ismcts_rewards(view, params, policy, stats, moves, visits, NULL, n_moves);
}

sg_move sg_ismcts_rewards(const sg_state *view, const sg_ismcts_params *params,
                          sg_search_policy *policy, sg_ismcts_stats *stats,
                          sg_move moves[SG_MAX_MOVES], uint32_t visits[SG_MAX_MOVES],
                          double rewards[SG_MAX_MOVES], int *n_moves)
{
    return sg_ismcts_search(view, NULL, params, policy, NULL, stats, moves, visits, rewards,
                            n_moves);
}

sg_move sg_ismcts_search(const sg_state *view, const sg_belief *belief,
                         const sg_ismcts_params *params, sg_search_policy *policy,
                         const sg_playout *playout, sg_ismcts_stats *stats,
                         sg_move moves[SG_MAX_MOVES], uint32_t visits[SG_MAX_MOVES],
                         double rewards[SG_MAX_MOVES], int *n_moves)
{
    sg_search_policy builtin = {params->policy, SG_POLICY_ERROR_NONE, NULL, NULL, NULL, NULL, 0,
                                NULL, 0, 0};
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

    tree t = {NULL, 0, 0, NULL, 0, 0, NULL, 0};
    if (add_node(&t, NO_NODE, 0, view->to_move) == NO_NODE)
        return legal[0];
    const sg_net *net = policy->net;
    if (net != NULL && n > 1) {
        /* The root's probabilities from the view itself: the network reads only
         * what the player to move knows, the same in every world. */
        double value[SG_MAX_PLAYERS];
        if (!evaluate_node(&t, 0, view, net, value)) {
            free(t.nodes);
            free(t.priors);
            return legal[0];
        }
    }
    sg_rng rng;
    sg_rng_seed(&rng, params->seed);
    /* A belief that does not fit the view is ignored (uniform worlds). */
    sg_world_plan *plan = NULL;
    if (belief != NULL && sg_belief_fields(view, belief) == 0) {
        plan = malloc(sizeof *plan);
        if (plan != NULL && !sg_world_plan_make(view, belief, plan)) {
            free(plan);
            plan = NULL;
        }
    }
    /* Parameters outside their domain are made safe, as the header says. */
    const double exploration = params->exploration >= 0.0 ? params->exploration : 0.0; /* NaN too */
    const int timed = params->seconds > 0.0 && params->seconds <= DBL_MAX; /* finite, positive */
    const double start = now_seconds();
    leaf_solver ls;
    leaf_solver_open(&ls, params->solver);
    uint32_t done = 0;
    double seconds = 0.0;
    if (n > 1 && (timed || params->iterations)) {
        if (net == NULL) {
            /* avail never exceeds the iterations: a table for them all (or MAX_LOGS);
             * without the memory, UCB1 calls log() itself. */
            const uint32_t want = params->iterations && params->iterations < MAX_LOGS - 1
                                      ? params->iterations + 1
                                      : MAX_LOGS;
            t.logs = calloc(want, sizeof *t.logs);
            t.n_logs = t.logs ? want : 0;
        }
        sg_playout_run run;
        sg_playout_start(&run, playout, policy->builtin, view->rules.players);
        run.merge = (params->flags & SG_ISMCTS_MERGE) != 0;
        for (;;) {
            if (params->iterations && done >= params->iterations)
                break;
            if (timed && now_seconds() - start >= params->seconds)
                break;
            sg_state world;
            if (plan != NULL)
                sg_world_plan_sample(view, plan, &rng, &world);
            else
                sg_sample_world(view, &rng, &world);
            sg_playout_begin(&run);
            const int went =
                net != NULL ? iterate_puct(&t, &world, exploration, params, policy, &run, &rng, &ls)
                            : iterate(&t, &world, exploration, params, policy, &run, &rng, &ls);
            if (!went) {
                if (policy->error == SG_POLICY_ERROR_NONE)
                    break; /* memory or the network ran out: the tree so far decides */
                sg_playout_end(&run);
                free(t.nodes);
                free(t.priors);
                free(t.logs);
                leaf_solver_close(&ls);
                free(plan);
                return 0; /* the policy failed: policy->error says how */
            }
            done++;
        }
        sg_playout_end(&run);
        seconds = now_seconds() - start;
    }
    free(plan);

    /* The most visited root child; moves never expanded count as no visits. */
    sg_move best = legal[0];
    uint32_t best_visits = 0;
    for (int i = 0; i < n; i++) {
        uint32_t v = 0;
        double r = 0.0;
        for (uint32_t c = t.nodes[0].first_child; c != NO_NODE; c = t.nodes[c].next_sibling)
            if (t.nodes[c].move == legal[i]) {
                v = t.nodes[c].visits;
                r = t.nodes[c].reward;
            }
        if (moves)
            moves[i] = legal[i];
        if (visits)
            visits[i] = v;
        if (rewards)
            rewards[i] = r;
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
    free(t.priors);
    free(t.logs);
    leaf_solver_close(&ls);
    return best;
}
