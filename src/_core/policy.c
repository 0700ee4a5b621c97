/* The position a policy of the caller's own reads (skitgubbe_policy.h): a
 * state and its legal moves behind a table of accessor functions, and the
 * rollout that calls such a policy and evaluation. */
#include <math.h>

#include <string.h>

#include "internal.h"

typedef struct position_impl {
    const sg_state *st;
    int n;
    sg_move moves[SG_MAX_MOVES];
} position_impl;

static const position_impl *impl_of(const sg_position *pos)
{
    return (const position_impl *)pos->impl;
}

static const sg_state *state_of(const sg_position *pos) { return impl_of(pos)->st; }

static int seat_ok(const sg_position *pos, int32_t seat)
{
    return seat >= 0 && seat < state_of(pos)->rules.players;
}

static int32_t api_players(const sg_position *pos) { return state_of(pos)->rules.players; }

static int32_t api_to_move(const sg_position *pos)
{
    const uint8_t seat = state_of(pos)->to_move;
    return seat == SG_NO_SEAT ? -1 : seat;
}

static int32_t api_phase(const sg_position *pos) { return state_of(pos)->phase; }

static int32_t api_trump(const sg_position *pos)
{
    const sg_state *st = state_of(pos);
    return st->trump_public && st->trump < 4 ? st->trump : -1;
}

static uint64_t api_hand(const sg_position *pos, int32_t seat)
{
    return seat_ok(pos, seat) ? state_of(pos)->hand[seat] : 0;
}

static uint64_t api_collection(const sg_position *pos, int32_t seat)
{
    return seat_ok(pos, seat) ? state_of(pos)->coll[seat] : 0;
}

static int32_t api_stock_size(const sg_position *pos)
{
    const sg_state *st = state_of(pos);
    return st->stock_len - st->stock_top;
}

static uint64_t api_table(const sg_position *pos)
{
    const sg_state *st = state_of(pos);
    uint64_t cards = 0;
    for (int i = 0; i < st->table_len; i++)
        cards |= (uint64_t)1 << st->table[i];
    return cards;
}

static uint64_t api_top_play(const sg_position *pos)
{
    const sg_state *st = state_of(pos);
    uint64_t cards = 0;
    if (st->table_len == 0)
        return 0;
    const uint8_t last = st->table_play[st->table_len - 1];
    for (int i = st->table_len - 1; i >= 0 && st->table_play[i] == last; i--)
        cards |= (uint64_t)1 << st->table[i];
    return cards;
}

static int32_t api_top_seat(const sg_position *pos)
{
    const sg_state *st = state_of(pos);
    return st->table_len ? st->table_seat[st->table_len - 1] : -1;
}

static uint64_t api_out_of_play(const sg_position *pos) { return state_of(pos)->out; }

static int32_t api_out(const sg_position *pos, int32_t seat)
{
    const sg_state *st = state_of(pos);
    for (int i = 0; i < st->n_finished; i++)
        if (st->finished[i] == seat)
            return 1;
    return 0;
}

static int32_t api_n_moves(const sg_position *pos) { return impl_of(pos)->n; }

static int32_t api_move_kind(const sg_position *pos, int32_t i)
{
    const position_impl *p = impl_of(pos);
    return i >= 0 && i < p->n ? (int32_t)SG_MOVE_KIND_OF(p->moves[i]) : -1;
}

static uint64_t api_move_cards(const sg_position *pos, int32_t i)
{
    const position_impl *p = impl_of(pos);
    return i >= 0 && i < p->n ? SG_MOVE_CARDS(p->moves[i]) : 0;
}

static int32_t api_greedy(const sg_position *pos)
{
    const position_impl *p = impl_of(pos);
    const sg_move move = sg_greedy_move(p->st);
    for (int i = 0; i < p->n; i++)
        if (p->moves[i] == move)
            return i;
    return 0;
}

static const sg_policy_api API = {
    SG_POLICY_ABI,     sizeof(sg_policy_api), api_players,   api_to_move, api_phase,
    api_trump,         api_hand,              api_collection, api_stock_size,
    api_table,         api_top_play,          api_top_seat,  api_out_of_play,
    api_out,           api_n_moves,           api_move_kind, api_move_cards,
    api_greedy,
};

const sg_policy_api *sg_policy_api_table(void) { return &API; }

const sg_state *sg_position_state(const sg_position *pos, const sg_move **moves)
{
    *moves = NULL;
    if (pos == NULL || pos->api != &API)
        return NULL;
    *moves = impl_of(pos)->moves;
    return impl_of(pos)->st;
}

static int fail(sg_search_policy *policy, int error, int64_t detail,
                double reward[SG_MAX_PLAYERS])
{
    policy->error = error;
    policy->detail = detail;
    for (int p = 0; p < SG_MAX_PLAYERS; p++)
        reward[p] = 0.0;
    return error;
}

int sg_policy_move(sg_search_policy *policy, const sg_state *world, sg_move *move)
{
    position_impl impl;
    impl.st = world;
    impl.n = sg_legal_moves(world, impl.moves);
    *move = 0;
    if (impl.n == 0)
        return SG_POLICY_ERROR_NONE;
    const sg_position pos = {&API, &impl};
    const int32_t i = policy->choose(&pos, policy->choose_ctx);
    double unused[SG_MAX_PLAYERS];
    if (i < 0)
        return fail(policy, SG_POLICY_ERROR_FAILED, i, unused);
    if (i >= impl.n)
        return fail(policy, SG_POLICY_ERROR_OUT_OF_RANGE, i, unused);
    *move = impl.moves[i];
    return SG_POLICY_ERROR_NONE;
}

int sg_rollout_with(sg_state *st, sg_search_policy *policy, uint32_t cap, sg_rng *rng,
                    double reward[SG_MAX_PLAYERS])
{
    return sg_rollout_merged(st, policy, cap, rng, reward, 0);
}

int sg_rollout_merged(sg_state *st, sg_search_policy *policy, uint32_t cap, sg_rng *rng,
                      double reward[SG_MAX_PLAYERS], int merge)
{
    if (policy->choose == NULL && policy->evaluate == NULL) {
        sg_rollout_builtin(st, policy->builtin, cap, rng, reward, merge);
        return SG_POLICY_ERROR_NONE;
    }
    position_impl impl;
    impl.st = st;
    const sg_position pos = {&API, &impl};
    for (uint32_t done = 0; st->phase != SG_PHASE_OVER && (!cap || done < cap); done++) {
        impl.n = sg_legal_moves(st, impl.moves);
        if (impl.n == 0)
            break; /* a malformed world, as in sg_rollout */
        if (policy->evaluate != NULL) {
            double value[SG_MAX_PLAYERS] = {0.0, 0.0, 0.0, 0.0};
            const int32_t said = policy->evaluate(&pos, policy->evaluate_ctx, value);
            if (said < 0)
                return fail(policy, SG_POLICY_ERROR_EVAL_FAILED, said, reward);
            if (said > 1)
                return fail(policy, SG_POLICY_ERROR_EVAL_RETURN, said, reward);
            if (said == 1) {
                for (int p = 0; p < SG_MAX_PLAYERS; p++) {
                    const double v = p < st->rules.players ? value[p] : 1.0;
                    if (!(v >= 0.0 && v <= 1.0)) /* NaN too */
                        return fail(policy, SG_POLICY_ERROR_EVAL_VALUE, p, reward);
                    reward[p] = v;
                }
                return SG_POLICY_ERROR_NONE;
            }
        }
        sg_move move;
        if (policy->choose != NULL) {
            const int32_t i = policy->choose(&pos, policy->choose_ctx);
            if (i < 0)
                return fail(policy, SG_POLICY_ERROR_FAILED, i, reward);
            if (i >= impl.n)
                return fail(policy, SG_POLICY_ERROR_OUT_OF_RANGE, i, reward);
            move = impl.moves[i];
        } else if (policy->builtin == SG_POLICY_GREEDY ||
                   (policy->builtin == SG_POLICY_MIXED && sg_rng_below(rng, 4) != 0)) {
            move = sg_greedy_move(st);
        } else if (merge) {
            sg_move merged[SG_MAX_MOVES];
            memcpy(merged, impl.moves, (size_t)impl.n * sizeof merged[0]);
            move = sg_merge_draw(st, merged, impl.n, rng);
        } else {
            move = impl.moves[sg_rng_below(rng, (uint32_t)impl.n)];
        }
        sg_apply_unchecked(st, move, NULL);
    }
    sg_rollout_rewards(st, reward);
    return SG_POLICY_ERROR_NONE;
}
