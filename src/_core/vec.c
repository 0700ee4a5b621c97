/* A vector environment: many games stepped by one call, for learners (see
 * "vector environment" in skitgubbe.h). */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

typedef struct sg_vec_game {
    sg_state st;
    uint64_t pending;                      /* the learner's slough being chosen */
    uint64_t seed;                         /* this game's seed */
    uint64_t episode;                      /* games dealt in this slot so far */
    uint64_t number;                       /* this game's number: seed = sg_game_seed(env seed, number) */
    sg_rng rng;                            /* the built-in players' choices */
    sg_rng sampler;                        /* sg_vec_sample's choices in this slot */
    sg_public_move recent[SG_TENSOR_RECENT]; /* newest first */
    int32_t n_recent;
    uint32_t reserved;
} sg_vec_game;

struct sg_vec {
    sg_rules rules;
    int32_t n_games;
    int32_t policies[SG_MAX_PLAYERS];
    uint64_t seed;
    sg_vec_game *games;
    sg_vec_game *backup;                    /* a step's games before it, with custom policies */
    sg_search_policy *custom[SG_MAX_PLAYERS]; /* the caller's policies, or NULL */
    int32_t n_rule_floats;
    int32_t tensor_size;
    int32_t dealt;                          /* every game dealt by a reset that went through */
    int32_t reserved;
    float rule_floats[SG_TENSOR_MAX_RULE_FLOATS];
};

sg_vec *sg_vec_new(const sg_rules *rules, int32_t n_games, uint64_t seed,
                   const int32_t policies[SG_MAX_PLAYERS])
{
    if (sg_rules_check(rules, NULL) != SG_RULES_ERROR_NONE || n_games < 1)
        return NULL;
    int learners = 0;
    for (int p = 0; p < rules->players; p++) {
        if (policies[p] == SG_VEC_LEARNER)
            learners++;
        else if (policies[p] != SG_POLICY_RANDOM && policies[p] != SG_POLICY_GREEDY)
            return NULL;
    }
    if (learners == 0)
        return NULL;
    sg_vec *env = calloc(1, sizeof *env);
    if (!env)
        return NULL;
    env->games = calloc((size_t)n_games, sizeof *env->games);
    if (!env->games) {
        free(env);
        return NULL;
    }
    env->rules = *rules;
    env->n_games = n_games;
    env->n_rule_floats = sg_tensor_rules(rules, env->rule_floats);
    env->tensor_size = sg_tensor_size();
    env->seed = seed;
    for (int p = 0; p < SG_MAX_PLAYERS; p++)
        env->policies[p] = p < rules->players ? policies[p] : SG_VEC_LEARNER;
    return env;
}

void sg_vec_free(sg_vec *env)
{
    if (env) {
        free(env->games);
        free(env->backup);
        free(env);
    }
}

int32_t sg_vec_games(const sg_vec *env)
{
    return env->n_games;
}

static void remember(sg_vec_game *g, sg_public_move m)
{
    memmove(&g->recent[1], &g->recent[0], (SG_TENSOR_RECENT - 1) * sizeof g->recent[0]);
    g->recent[0] = m;
    if (g->n_recent < SG_TENSOR_RECENT)
        g->n_recent++;
}

/* Remembers the move whose events are ev (its first event, as the tensors
 * built from a history see it). */
static void remember_events(sg_vec_game *g, const sg_events *ev)
{
    sg_public_move m;
    if (sg_public_move_of(ev->buf, ev->len < ev->cap ? ev->len : ev->cap, &m))
        remember(g, m);
}

static void play(sg_vec_game *g, sg_move move)
{
    sg_event buf[SG_MAX_EVENTS];
    sg_events ev = {buf, SG_MAX_EVENTS, 0};
    sg_apply_unchecked(&g->st, move, &ev);
    remember_events(g, &ev);
}

static void deal(const sg_vec *env, sg_vec_game *g, int32_t slot)
{
    uint8_t deck[SG_NCARDS];
    g->number = g->episode * (uint64_t)env->n_games + (uint64_t)slot;
    g->seed = sg_game_seed(env->seed, g->number);
    g->episode++;
    sg_deck_from_seed(g->seed, deck);
    sg_new(&g->st, &env->rules, deck, (uint8_t)(env->rules.players - 1), NULL);
    sg_rng_seed(&g->rng, g->seed ^ UINT64_C(0x5eed5eed5eed5eed));
    g->pending = 0;
    g->n_recent = 0;
    memset(g->recent, 0, sizeof g->recent);
}

/* The built-in players move until a learner is to move or the game is over;
 * SG_ERROR_POLICY when a policy of the caller's own failed. */
static int others(const sg_vec *env, sg_vec_game *g)
{
    while (g->st.phase != SG_PHASE_OVER && env->policies[g->st.to_move] != SG_VEC_LEARNER) {
        sg_move move;
        sg_search_policy *custom = env->custom[g->st.to_move];
        if (custom != NULL) {
            /* The policy plays from what its seat knows: a world sampled from its view. */
            sg_state view, world;
            sg_view(&g->st, g->st.to_move, &view);
            sg_sample_world(&view, &g->rng, &world);
            if (sg_policy_move(custom, &world, &move) != SG_POLICY_ERROR_NONE)
                return SG_ERROR_POLICY;
            if (move == 0 || sg_why_illegal(&g->st, move, NULL) != SG_ERROR_NONE)
                move = sg_greedy_move(&g->st); /* cannot happen: the mover's moves are known */
        } else if (env->policies[g->st.to_move] == SG_POLICY_GREEDY) {
            move = sg_greedy_move(&g->st);
        } else {
            sg_move moves[SG_MAX_MOVES];
            const int n = sg_legal_moves(&g->st, moves);
            move = moves[sg_rng_below(&g->rng, (uint32_t)n)];
        }
        play(g, move);
    }
    return SG_ERROR_NONE;
}

static void rewards(const sg_state *st, float out[SG_MAX_PLAYERS])
{
    for (int p = 0; p < SG_MAX_PLAYERS; p++)
        out[p] = 0.0f;
    if (st->truncated || st->loser == SG_NO_SEAT)
        return;
    for (int p = 0; p < st->rules.players; p++)
        out[p] = p == st->loser ? (float)(1 - st->rules.players) : 1.0f;
}

/* A new game in `slot` with the built-in players' first moves made; a game
 * over before any learner moves is dealt again. */
static int start(const sg_vec *env, sg_vec_game *g, int32_t slot)
{
    do {
        deal(env, g, slot);
        if (others(env, g) != SG_ERROR_NONE)
            return SG_ERROR_POLICY;
    } while (g->st.phase == SG_PHASE_OVER);
    return SG_ERROR_NONE;
}

static void report(const sg_vec *env, const sg_vec_game *g, int32_t i, const sg_vec_out *out)
{
    const uint8_t seat = g->st.to_move;
    if (out->seat)
        out->seat[i] = seat;
    if (out->seeds)
        out->seeds[i] = g->seed;
    if (out->games)
        out->games[i] = g->number;
    if (out->obs)
        sg_tensor_fill(&g->st, seat, g->pending, g->recent, g->n_recent, env->rule_floats,
                       env->n_rule_floats, out->obs + (size_t)i * (size_t)env->tensor_size);
    if (out->masks)
        sg_action_mask(&g->st, g->pending, out->masks + (size_t)i * SG_NUM_ACTIONS);
}

int sg_vec_set_policy(sg_vec *env, int32_t seat, sg_search_policy *policy)
{
    if (seat < 0 || seat >= env->rules.players || env->policies[seat] == SG_VEC_LEARNER)
        return SG_ERROR_SEAT;
    if (policy != NULL && env->backup == NULL) {
        env->backup = calloc((size_t)env->n_games, sizeof *env->backup);
        if (env->backup == NULL)
            return SG_ERROR_POSITION; /* no memory: nothing changed */
    }
    env->custom[seat] = policy;
    return SG_ERROR_NONE;
}

static int has_custom(const sg_vec *env)
{
    for (int p = 0; p < SG_MAX_PLAYERS; p++)
        if (env->custom[p] != NULL)
            return 1;
    return 0;
}

/* The seed of slot i's sampler: apart from every game's seed (another key). */
#define SAMPLER_KEY UINT64_C(0x9a3f1c7be05d2486)

int sg_vec_reset(sg_vec *env, const sg_vec_out *out)
{
    env->dealt = 0;
    for (int32_t i = 0; i < env->n_games; i++) {
        sg_vec_game *g = &env->games[i];
        g->episode = 0;
        sg_rng_seed(&g->sampler, sg_game_seed(env->seed ^ SAMPLER_KEY, (uint64_t)i));
        if (start(env, g, i) != SG_ERROR_NONE)
            return SG_ERROR_POLICY;
        if (out->rewards)
            memset(out->rewards + (size_t)i * SG_MAX_PLAYERS, 0, SG_MAX_PLAYERS * sizeof(float));
        if (out->terminated)
            out->terminated[i] = 0;
        if (out->truncated)
            out->truncated[i] = 0;
        report(env, g, i, out);
    }
    env->dealt = 1;
    return SG_ERROR_NONE;
}

int sg_vec_sample(sg_vec *env, int32_t *actions, int32_t *bad)
{
    if (!env->dealt) {
        if (bad)
            *bad = 0;
        return SG_ERROR_POSITION;
    }
    for (int32_t i = 0; i < env->n_games; i++) {
        sg_vec_game *g = &env->games[i];
        uint16_t legal[SG_NUM_ACTIONS];
        const int n = sg_legal_actions(&g->st, g->pending, legal);
        if (n < 1) { /* cannot happen: a dealt game has a learner to move */
            if (bad)
                *bad = i;
            return SG_ERROR_POSITION;
        }
        actions[i] = legal[sg_rng_below(&g->sampler, (uint32_t)n)];
    }
    return SG_ERROR_NONE;
}

static int finish(const sg_vec *env, sg_vec_game *g, int32_t i, const sg_vec_out *out);

int sg_vec_step(sg_vec *env, const int32_t *actions, const sg_vec_out *out, int32_t *bad)
{
    /* Every action is checked before any is taken: a refused batch changes nothing. */
    for (int32_t i = 0; i < env->n_games; i++) {
        sg_state probe = env->games[i].st;
        uint64_t pending = env->games[i].pending;
        if (sg_apply_action(&probe, &pending, actions[i], NULL) != SG_ERROR_NONE) {
            if (bad)
                *bad = i;
            return SG_ERROR_ILLEGAL;
        }
    }
    /* A policy of the caller's own may fail in any game: the games are kept until the
     * step has gone through, and put back if it does not (the outputs are written
     * only after every game has stepped, for the same reason). */
    const int custom = has_custom(env);
    if (custom)
        memcpy(env->backup, env->games, (size_t)env->n_games * sizeof *env->games);
    for (int32_t i = 0; i < env->n_games; i++) {
        sg_vec_game *g = &env->games[i];
        const uint32_t moves = g->st.moves;
        sg_event buf[SG_MAX_EVENTS];
        sg_events ev = {buf, SG_MAX_EVENTS, 0};
        sg_apply_action(&g->st, &g->pending, actions[i], &ev);
        if (g->st.moves != moves) {
            remember_events(g, &ev);
            if (others(env, g) != SG_ERROR_NONE) {
                memcpy(env->games, env->backup, (size_t)env->n_games * sizeof *env->games);
                if (bad)
                    *bad = i;
                return SG_ERROR_POLICY;
            }
        }
        if (!custom)
            finish(env, g, i, out);
    }
    if (custom) {
        for (int32_t i = 0; i < env->n_games; i++) {
            if (finish(env, &env->games[i], i, out) != SG_ERROR_NONE) {
                memcpy(env->games, env->backup, (size_t)env->n_games * sizeof *env->games);
                if (bad)
                    *bad = i;
                return SG_ERROR_POLICY;
            }
        }
    }
    return SG_ERROR_NONE;
}

/* A stepped game's outputs; a finished game is dealt again (its policies may fail). */
static int finish(const sg_vec *env, sg_vec_game *g, int32_t i, const sg_vec_out *out)
{
    float *reward = out->rewards ? out->rewards + (size_t)i * SG_MAX_PLAYERS : NULL;
    const int over = g->st.phase == SG_PHASE_OVER;
    if (reward) {
        if (over)
            rewards(&g->st, reward);
        else
            memset(reward, 0, SG_MAX_PLAYERS * sizeof *reward);
    }
    if (out->terminated)
        out->terminated[i] = (uint8_t)(over && !g->st.truncated);
    if (out->truncated)
        out->truncated[i] = (uint8_t)(over && g->st.truncated);
    if (over && start(env, g, i) != SG_ERROR_NONE)
        return SG_ERROR_POLICY;
    report(env, g, i, out);
    return SG_ERROR_NONE;
}

const sg_state *sg_vec_state(const sg_vec *env, int32_t i, uint64_t *pending)
{
    if (i < 0 || i >= env->n_games)
        return NULL;
    if (pending)
        *pending = env->games[i].pending;
    return &env->games[i].st;
}
