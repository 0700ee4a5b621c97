/* Hidden information for search: views, sampled worlds, the greedy policy,
 * rollouts and perfect-information Monte Carlo. */
#include <string.h>

#include "internal.h"

void sg_view(const sg_state *st, uint8_t seat, sg_state *view)
{
    *view = *st;
    for (int p = 0; p < SG_MAX_PLAYERS; p++) {
        view->unseen[p] = 0;
        if (p == seat || p >= st->rules.players)
            continue;
        view->hand[p] = st->hand[p] & st->known[p];
        view->unseen[p] = (uint8_t)(sg_popcount(st->hand[p]) - sg_popcount(view->hand[p]));
    }
    for (int i = st->stock_top; i < st->stock_len; i++)
        if (st->stock[i] != st->upcard)
            view->stock[i] = SG_UNKNOWN_CARD;
    /* Cards no longer in the stock carry no information either. */
    for (int i = 0; i < st->stock_top; i++)
        view->stock[i] = SG_UNKNOWN_CARD;
    if (st->hidden_card != SG_NO_CARD)
        view->hidden_card = SG_UNKNOWN_CARD;
    if (!st->trump_public)
        view->trump = SG_NO_SUIT;
}

uint64_t sg_unplaced(const sg_state *view)
{
    uint64_t placed = view->out | sg_table_mask(view);
    for (int p = 0; p < SG_MAX_PLAYERS; p++)
        placed |= view->hand[p] | view->coll[p];
    for (int i = view->stock_top; i < view->stock_len; i++)
        if (view->stock[i] != SG_UNKNOWN_CARD)
            placed |= SG_CARD_BIT(view->stock[i]);
    if (view->hidden_card != SG_NO_CARD && view->hidden_card != SG_UNKNOWN_CARD)
        placed |= SG_CARD_BIT(view->hidden_card);
    return SG_ALL_CARDS & ~placed;
}

int sg_shuffled_cards(uint64_t cards, sg_rng *rng, uint8_t pool[SG_NCARDS])
{
    int n = 0;
    for (uint64_t rest = cards; rest; rest &= rest - 1)
        pool[n++] = (uint8_t)sg_lowest(rest);
    for (int i = n - 1; i > 0; i--) {
        const uint32_t j = sg_rng_below_inline(rng, (uint32_t)i + 1);
        const uint8_t tmp = pool[i];
        pool[i] = pool[j];
        pool[j] = tmp;
    }
    return n;
}

void sg_sample_world(const sg_state *view, sg_rng *rng, sg_state *world)
{
    *world = *view;
    const uint64_t unplaced = sg_unplaced(view);

    uint8_t pool[SG_NCARDS];
    sg_shuffled_cards(unplaced, rng, pool);

    int next = 0;
    for (int p = 0; p < SG_MAX_PLAYERS; p++) {
        for (int k = 0; k < view->unseen[p]; k++)
            world->hand[p] |= SG_CARD_BIT(pool[next++]);
        world->unseen[p] = 0;
    }
    for (int i = view->stock_top; i < view->stock_len; i++)
        if (view->stock[i] == SG_UNKNOWN_CARD)
            world->stock[i] = pool[next++];
    if (view->hidden_card == SG_UNKNOWN_CARD) {
        world->hidden_card = pool[next++];
        if (world->rules.trump == SG_TRUMP_RULE_LAST_CARD)
            world->trump = (uint8_t)SG_SUIT_OF(world->hidden_card);
    }
}

/* ---- the greedy policy ---------------------------------------------------- */

static int lowest_rank_card(uint64_t cards)
{
    /* The card of lowest rank (then lowest suit) in a non-empty set. */
    int best = -1;
    for (uint64_t c = cards; c; c &= c - 1) {
        const int card = sg_lowest(c);
        if (best < 0 || SG_RANK_OF(card) < SG_RANK_OF(best))
            best = card;
    }
    return best;
}

static int max_rank(uint64_t cards)
{
    int best = -1;
    for (uint64_t c = cards; c; c &= c - 1)
        if ((int)SG_RANK_OF(sg_lowest(c)) > best)
            best = SG_RANK_OF(sg_lowest(c));
    return best;
}

/* Phase 1: does `card` beat `best` (the strongest card so far, `led` the suit led)? */
static int p1_beats(const sg_state *st, int card, int best)
{
    if (st->rules.trump == SG_TRUMP_RULE_UPCARD) {
        if (SG_SUIT_OF(card) == SG_SUIT_OF(best))
            return SG_RANK_OF(card) > SG_RANK_OF(best);
        return SG_SUIT_OF(card) == st->trump;
    }
    return SG_RANK_OF(card) > SG_RANK_OF(best);
}

static int has_move(const sg_move *moves, int n, sg_move move)
{
    for (int i = 0; i < n; i++)
        if (moves[i] == move)
            return 1;
    return 0;
}

static sg_move greedy_collecting(const sg_state *st, const sg_move *moves, int n)
{
    const uint8_t seat = st->to_move;
    const uint64_t hand = st->hand[seat];
    const sg_move flip = SG_MAKE_MOVE(SG_MOVE_KIND_FLIP, 0);
    if (st->window) {
        /* Dump low cards of the trick's ranks on someone else's trick. */
        uint32_t ranks = 0;
        for (int i = 0; i < st->table_len; i++)
            ranks |= 1u << SG_RANK_OF(st->table[i]);
        const uint64_t low = hand & SG_RANK_CARDS(ranks) & SG_RANK_CARDS(0xFFu); /* two .. nine */
        if (seat != st->winner && low && has_move(moves, n, SG_MAKE_MOVE(SG_MOVE_KIND_SLOUGH, low)))
            return SG_MAKE_MOVE(SG_MOVE_KIND_SLOUGH, low);
        return SG_MAKE_MOVE(SG_MOVE_KIND_PASS, 0);
    }
    const int weak = max_rank(hand) < 6; /* nothing above an eight */
    /* The strongest card of this round so far, if any. */
    int best = -1;
    const int start = st->rules.trick_mode == SG_TRICK_MODE_ALL ? st->round_start
                                                    : st->table_len - st->table_len % 2;
    for (int i = start; i < st->table_len; i++)
        if (best < 0 || p1_beats(st, st->table[i], best))
            best = st->table[i];
    if (best < 0) {
        if (weak && has_move(moves, n, flip))
            return flip;
        return SG_MAKE_MOVE(SG_MOVE_KIND_PLAY, SG_CARD_BIT(lowest_rank_card(hand)));
    }
    /* Win cheaply: the lowest card that beats the best so far, if it is worth it. */
    int cheapest = -1;
    for (uint64_t c = hand; c; c &= c - 1) {
        const int card = sg_lowest(c);
        if (p1_beats(st, card, best) && (cheapest < 0 || SG_RANK_OF(card) < SG_RANK_OF(cheapest)))
            cheapest = card;
    }
    int table_top = 0;
    for (int i = 0; i < st->table_len; i++)
        if ((int)SG_RANK_OF(st->table[i]) > table_top)
            table_top = SG_RANK_OF(st->table[i]);
    if (cheapest >= 0 && (SG_RANK_OF(cheapest) <= 10 || table_top >= 9))
        return SG_MAKE_MOVE(SG_MOVE_KIND_PLAY, SG_CARD_BIT(cheapest));
    if (weak && has_move(moves, n, flip))
        return flip;
    return SG_MAKE_MOVE(SG_MOVE_KIND_PLAY, SG_CARD_BIT(lowest_rank_card(hand)));
}

/* Phase 2: what a play costs to give away (high cards and trumps are dear). */
static int play_cost(const sg_state *st, uint64_t cards)
{
    int dearest = 0;
    int count = 0; /* counted here: sg_popcount is a library call on a baseline x86-64 */
    for (uint64_t c = cards; c; c &= c - 1) {
        const int card = sg_lowest(c);
        const int value = (int)SG_RANK_OF(card) + (SG_SUIT_OF(card) == st->trump ? 16 : 0);
        if (value > dearest)
            dearest = value;
        count++;
    }
    return dearest * 8 - count; /* the same top card: shed more cards */
}

/* The cheapest play `best` (0: none) of cost `best_cost`, or a pick-up instead. */
static sg_move greedy_shedding_end(const sg_state *st, sg_move best, int best_cost)
{
    if (!st->table_len)
        return best;
    const sg_move pick = SG_MAKE_MOVE(SG_MOVE_KIND_PICK_UP, 0);
    if (!best)
        return pick;
    /* Keep a high trump rather than spend it on a low card. */
    const int top = st->table[st->table_len - 1];
    if (best_cost >= (16 + 9) * 8 - 4 && SG_RANK_OF(top) <= 5 && SG_SUIT_OF(top) != st->trump)
        return pick;
    return best;
}

static sg_move greedy_shedding(const sg_state *st, const sg_move *moves, int n)
{
    sg_move best = 0;
    int best_cost = 1 << 30;
    for (int i = 0; i < n; i++) {
        if (SG_MOVE_KIND_OF(moves[i]) != SG_MOVE_KIND_PLAY)
            continue;
        const int cost = play_cost(st, SG_MOVE_CARDS(moves[i]));
        if (cost < best_cost) {
            best_cost = cost;
            best = moves[i];
        }
    }
    return greedy_shedding_end(st, best, best_cost);
}

/* greedy_shedding without runs, from the hand's bits instead of the move list:
 * every play is one card, so the cheapest is the non-trump card of lowest rank
 * (the lowest suit of that rank: the first such in move order), else the trump
 * of lowest rank; the same move, found without generating the moves. */
static sg_move greedy_shedding_singles(const sg_state *st)
{
    const uint64_t hand = st->hand[st->to_move];
    const uint64_t trumps = st->trump != SG_NO_SUIT ? SG_SUIT_MASK(st->trump) : 0;
    uint64_t singles = hand; /* the cards it may play, as sg_shedding_moves says */
    if (st->table_len) {
        const uint8_t top = st->table[st->table_len - 1];
        singles = hand & sg_above(top);
        if (SG_SUIT_OF(top) != st->trump)
            singles |= hand & trumps;
    }
    sg_move best = 0;
    int best_cost = 1 << 30;
    const uint64_t plain = singles & ~trumps;
    const uint64_t pool = plain ? plain : singles;
    if (pool) {
        const uint32_t ranks =
            (uint32_t)((pool | pool >> 16 | pool >> 32 | pool >> 48) & UINT64_C(0x1FFF));
        const int card = sg_lowest(pool & SG_RANK_CARDS(ranks & (~ranks + 1)));
        best = SG_MAKE_MOVE(SG_MOVE_KIND_PLAY, SG_CARD_BIT(card));
        best_cost = ((int)SG_RANK_OF(card) + (SG_SUIT_OF(card) == st->trump ? 16 : 0)) * 8 - 1;
    }
    return greedy_shedding_end(st, best, best_cost);
}

sg_move sg_greedy_move(const sg_state *st)
{
    if (st->phase == SG_PHASE_SHEDDING && !st->rules.runs)
        return greedy_shedding_singles(st);
    sg_move moves[SG_MAX_MOVES];
    const int n = sg_legal_moves(st, moves);
    return sg_greedy_choice(st, moves, n);
}

sg_move sg_greedy_choice(const sg_state *st, const sg_move *moves, int n)
{
    if (n == 0)
        return 0;
    const sg_move move = st->phase == SG_PHASE_COLLECTING ? greedy_collecting(st, moves, n)
                                                    : greedy_shedding(st, moves, n);
    return has_move(moves, n, move) ? move : moves[0];
}

int sg_play_cost(const sg_state *st, uint64_t cards)
{
    return play_cost(st, cards);
}

/* ---- rollouts and PIMC ---------------------------------------------------- */

void sg_rollout(sg_state *st, int policy, uint32_t cap, sg_rng *rng,
                double reward[SG_MAX_PLAYERS])
{
    sg_rollout_builtin(st, policy, cap, rng, reward, 0);
}

void sg_rollout_builtin(sg_state *st, int policy, uint32_t cap, sg_rng *rng,
                        double reward[SG_MAX_PLAYERS], int merge)
{
    sg_move moves[SG_MAX_MOVES];
    for (uint32_t done = 0; st->phase != SG_PHASE_OVER && (!cap || done < cap); done++) {
        sg_move move;
        /* No legal move in a game not over cannot happen in a state that
         * passes sg_view_check; should it, the rollout stops there. */
        if (policy == SG_POLICY_GREEDY ||
            (policy == SG_POLICY_MIXED && sg_rng_below_inline(rng, 4) != 0)) {
            move = sg_greedy_move(st);
            if (!move)
                break;
        } else {
            const int n = sg_legal_moves(st, moves);
            if (n == 0)
                break;
            move = merge ? sg_merge_draw(st, moves, n, rng)
                         : moves[sg_rng_below_inline(rng, (uint32_t)n)];
        }
        sg_apply_unchecked(st, move, NULL);
    }
    sg_rollout_rewards(st, reward);
}

void sg_rollout_rewards(const sg_state *st, double reward[SG_MAX_PLAYERS])
{
    for (int p = 0; p < SG_MAX_PLAYERS; p++)
        reward[p] = 1.0;
    if (st->phase == SG_PHASE_OVER) {
        if (st->loser != SG_NO_SEAT)
            reward[st->loser] = 0.0;
        return;
    }
    int most = 0;
    for (int p = 0; p < st->rules.players; p++)
        if (sg_popcount(st->hand[p] | st->coll[p]) > most)
            most = sg_popcount(st->hand[p] | st->coll[p]);
    for (int p = 0; p < st->rules.players; p++)
        if (sg_popcount(st->hand[p] | st->coll[p]) == most)
            reward[p] = 0.0;
}

int sg_pimc(const sg_state *view, int worlds, int rollouts, int policy, uint32_t cap,
            uint64_t seed, sg_move moves[SG_MAX_MOVES], double scores[SG_MAX_MOVES])
{
    sg_search_policy builtin = {policy, SG_POLICY_ERROR_NONE, NULL, NULL, NULL, NULL, 0, NULL, 0, 0};
    return sg_pimc_with(view, worlds, rollouts, &builtin, cap, seed, moves, scores);
}

int sg_pimc_with(const sg_state *view, int worlds, int rollouts, sg_search_policy *policy,
                 uint32_t cap, uint64_t seed, sg_move moves[SG_MAX_MOVES],
                 double scores[SG_MAX_MOVES])
{
    return sg_pimc_search(view, NULL, worlds, rollouts, policy, cap, seed, moves, scores);
}

int sg_pimc_search(const sg_state *view, const sg_belief *belief, int worlds, int rollouts,
                   sg_search_policy *policy, uint32_t cap, uint64_t seed,
                   sg_move moves[SG_MAX_MOVES], double scores[SG_MAX_MOVES])
{
    const int n = sg_legal_moves(view, moves);
    const uint8_t seat = view->to_move;
    sg_rng rng;
    sg_rng_seed(&rng, seed);
    for (int i = 0; i < n; i++)
        scores[i] = 0.0;
    if (n <= 1 || worlds <= 0 || rollouts <= 0)
        return n;
    sg_world_plan plan;
    const int exact = belief != NULL && sg_belief_fields(view, belief) == 0 &&
                      sg_world_plan_make(view, belief, &plan);
    for (int w = 0; w < worlds; w++) {
        sg_state world;
        if (exact)
            sg_world_plan_sample(view, &plan, &rng, &world);
        else
            sg_sample_world(view, &rng, &world);
        for (int i = 0; i < n; i++) {
            sg_state after = world;
            sg_apply_unchecked(&after, moves[i], NULL);
            for (int r = 0; r < rollouts; r++) {
                sg_state play = after;
                double reward[SG_MAX_PLAYERS];
                if (sg_rollout_with(&play, policy, cap, &rng, reward) != SG_POLICY_ERROR_NONE)
                    return -1;
                scores[i] += reward[seat];
            }
        }
    }
    for (int i = 0; i < n; i++)
        scores[i] /= (double)worlds * rollouts;
    return n;
}
