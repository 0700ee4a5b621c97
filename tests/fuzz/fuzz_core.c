/* libFuzzer harness over the core's C API (tests/fuzz/README.md).
 *
 * The first byte chooses what the rest of the input is:
 *   even  a game built through the public entry points: rules from the rule
 *         field table, a deal (sg_new from a seeded deck, or sg_new_shedding
 *         with hands from the input), then moves chosen by the input (an
 *         index into sg_legal_moves, or a raw move code that sg_apply must
 *         refuse with the state unchanged unless it is legal); every view of
 *         every seat must pass sg_view_check at every step;
 *   odd   a view from outside: the next sizeof(sg_state) bytes (zero-padded)
 *         are an sg_state; when it passes sg_view_check and a seat is to move,
 *         worlds are sampled from it (each must pass the check too, and stay
 *         valid while played on), and the greedy policy, PIMC and ISMCTS
 *         search it with small budgets.  Bytes after the state seed the search.
 * A failed assertion aborts.  Work per input is bounded (a few hundred moves). */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skitgubbe.h"

/* Says which assertion failed (the compiler merges bare traps, so a stack
 * trace alone cannot), then aborts. */
static void check_failed(int line, const char *what)
{
    fprintf(stderr, "fuzz_core.c:%d: assertion failed: %s\n", line, what);
    abort();
}

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond))                                                                               \
            check_failed(__LINE__, #cond);                                                            \
    } while (0)

/* Moves played per game input, and per sampled world. */
#define GAME_MOVES 400
#define WORLD_MOVES 150
/* The largest check number sg_view_check returns, and sg_state_check. */
#define MAX_CHECK 20
#define MAX_STATE_CHECK 26

typedef struct reader {
    const uint8_t *data;
    size_t size;
    size_t pos;
} reader;

static uint8_t next_byte(reader *r)
{
    return r->pos < r->size ? r->data[r->pos++] : 0;
}

static uint64_t next_u64(reader *r)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = (v << 8) | next_byte(r);
    return v;
}

static int has_move(const sg_move *moves, int n, sg_move move)
{
    for (int i = 0; i < n; i++)
        if (moves[i] == move)
            return 1;
    return 0;
}

static void check_events(const sg_events *ev)
{
    CHECK(ev->len >= 0 && ev->len <= ev->cap);
    for (int i = 0; i < ev->len; i++) {
        const sg_event *e = &ev->buf[i];
        CHECK(e->kind <= SG_EVENT_KIND_TAKE_UPCARD);
        CHECK((e->cards & ~SG_ALL_CARDS) == 0);
        for (int k = 0; k < 5; k++)
            CHECK(e->reserved[k] == 0);
    }
}

/* What holds for any state of a game (or a world sampled from a view). */
static void check_state(const sg_state *st)
{
    CHECK(sg_view_check(st) == 0);
    const int players = st->rules.players;
    for (uint8_t seat = 0; seat < players; seat++) {
        sg_state view, world, again;
        sg_view(st, seat, &view);
        CHECK(sg_view_check(&view) == 0);
        /* A world sampled from the view is one the seat cannot tell apart. */
        sg_rng rng;
        sg_rng_seed(&rng, st->moves);
        sg_sample_world(&view, &rng, &world);
        sg_view(&world, seat, &again);
        CHECK(memcmp(&view, &again, sizeof view) == 0);
        sg_observation obs;
        CHECK(sg_observe(st, seat, &obs) == SG_ERROR_NONE);
        CHECK(obs.n_table_plays <= SG_NCARDS && obs.n_finished <= players);
    }
    sg_observation obs;
    CHECK(sg_observe(st, (uint8_t)players, &obs) == SG_ERROR_SEAT);
    sg_result result;
    if (st->phase == SG_PHASE_OVER) {
        CHECK(sg_game_result(st, &result) == SG_ERROR_NONE);
        CHECK(result.n_finish <= players);
    } else {
        CHECK(sg_game_result(st, &result) == SG_ERROR_NOT_OVER);
    }
}

/* A move the input names outright: must be refused, state untouched, unless
 * it is one of the legal moves. */
static void try_raw_move(sg_state *st, sg_move raw, const sg_move *moves, int n, sg_events *ev)
{
    const int legal = has_move(moves, n, raw);
    uint64_t detail = 0;
    const int why = sg_why_illegal(st, raw, &detail);
    CHECK((why == SG_ILLEGAL_NONE) == legal);
    CHECK(sg_illegal_name(why) != NULL);
    if (legal)
        return;
    sg_state before = *st;
    CHECK(sg_apply(st, raw, ev) == SG_ERROR_ILLEGAL);
    CHECK(memcmp(&before, st, sizeof before) == 0);
}

static void play_game(reader *r)
{
    sg_rules rules;
    const uint8_t how = next_byte(r);
    uint8_t players = (uint8_t)(2 + how % 3);
    if (how & 4)
        sg_rules_modern(&rules, players);
    else
        sg_rules_classic(&rules, players);
    int count = 0;
    const sg_rule_field *fields = sg_rule_fields(&count);
    CHECK(count == SG_RULE_COUNT);
    const int edits = next_byte(r) % 8;
    for (int i = 0; i < edits; i++) {
        const int index = next_byte(r) % (count + 1);
        uint32_t value = next_byte(r);
        if (index < count && fields[index].max > 255)
            value = value * 8 + 1; /* max_moves: small caps end games early */
        const sg_rules saved = rules;
        const int err = sg_rules_set(&rules, index, value);
        if (err != SG_RULES_ERROR_NONE) {
            CHECK(memcmp(&saved, &rules, sizeof rules) == 0);
            CHECK(index == count ? err == SG_RULES_ERROR_NO_FIELD
                                 : err == SG_RULES_ERROR_BAD_VALUE);
        } else {
            CHECK(sg_rules_get(&rules, index) == value);
        }
    }
    players = rules.players; /* an edit may have changed it */
    sg_state st;
    sg_event buf[SG_MAX_EVENTS];
    sg_events ev = {buf, SG_MAX_EVENTS, 0};
    if (sg_rules_check(&rules, NULL) != SG_RULES_ERROR_NONE) {
        uint8_t deck[SG_NCARDS];
        sg_deck_from_seed(1, deck);
        CHECK(sg_new(&st, &rules, deck, 0, &ev) == SG_ERROR_RULES);
        return;
    }
    const uint8_t deal = next_byte(r);
    if (deal & 1) {
        /* A phase-2 position: each card to a seat or out of play. */
        uint64_t hands[SG_MAX_PLAYERS] = {0, 0, 0, 0};
        for (int c = 0; c < SG_NCARDS; c++) {
            const int owner = next_byte(r) % (players + 1);
            if (owner < players)
                hands[owner] |= SG_CARD_BIT(SG_CARD(c / 13, c % 13));
        }
        const uint8_t trump = next_byte(r) % 5;
        const uint8_t leader = next_byte(r) % 5;
        const int err = sg_new_shedding(&st, &rules, hands, trump, leader, &ev);
        if (leader >= players) {
            CHECK(err == SG_ERROR_SEAT);
            return;
        }
        CHECK(err == SG_ERROR_NONE);
    } else {
        uint8_t deck[SG_NCARDS];
        sg_deck_from_seed(next_u64(r), deck);
        const uint8_t dealer = next_byte(r) % 5;
        if (deal & 2) {
            uint8_t bad[SG_NCARDS];
            memcpy(bad, deck, sizeof bad);
            bad[deal % SG_NCARDS] = bad[(deal / 4) % SG_NCARDS] == bad[deal % SG_NCARDS]
                                        ? 0xFF
                                        : bad[(deal / 4) % SG_NCARDS];
            CHECK(sg_new(&st, &rules, bad, 0, NULL) == SG_ERROR_DECK);
        }
        const int err = sg_new(&st, &rules, deck, dealer, &ev);
        if (dealer >= players) {
            CHECK(err == SG_ERROR_SEAT);
            return;
        }
        CHECK(err == SG_ERROR_NONE);
    }
    check_events(&ev);
    check_state(&st);
    CHECK(sg_state_check(&st, NULL) == 0); /* a game's states are whole */

    sg_move moves[SG_MAX_MOVES];
    for (int step = 0; step < GAME_MOVES && st.phase != SG_PHASE_OVER; step++) {
        const int n = sg_legal_moves(&st, moves);
        CHECK(n >= 1 && n <= SG_MAX_MOVES);
        CHECK(st.to_move < players);
        const uint8_t choice = next_byte(r);
        ev.len = 0;
        if (choice == 0xFF) {
            try_raw_move(&st, next_u64(r), moves, n, &ev);
            continue;
        }
        if (choice == 0xFE) {
            /* The greedy move from what the player to move knows is legal. */
            sg_state view;
            sg_view(&st, st.to_move, &view);
            CHECK(has_move(moves, n, sg_greedy_move(&view)));
            continue;
        }
        const sg_move move = moves[choice % n];
        CHECK(sg_why_illegal(&st, move, NULL) == SG_ILLEGAL_NONE);
        CHECK(sg_apply(&st, move, &ev) == SG_ERROR_NONE);
        check_events(&ev);
        check_state(&st);
        CHECK(sg_state_check(&st, NULL) == 0); /* a game's states are whole */
    }
    if (st.phase == SG_PHASE_OVER) {
        CHECK(sg_legal_moves(&st, moves) == 0);
        CHECK(sg_apply(&st, SG_MAKE_MOVE(SG_MOVE_KIND_PASS, 0), NULL) == SG_ERROR_OVER);
    }
}

/* What a learner's adapter hands the core from outside: any slough being
 * chosen, any action, any recent moves, on a checked view.  Tensors stay in
 * [0, 1]; actions are refused or taken, never read out of bounds. */
static void learner_inputs(const sg_state *view, reader *r)
{
    static float tensor[4096];
    sg_public_move recent[SG_TENSOR_RECENT];
    const int size = sg_tensor_size();
    CHECK(size <= (int)(sizeof tensor / sizeof tensor[0]));
    const uint64_t pending = next_u64(r);
    for (int i = 0; i < SG_TENSOR_RECENT; i++) {
        recent[i].cards = next_u64(r);
        recent[i].kind = next_byte(r);
        recent[i].seat = next_byte(r);
    }
    const int n_recent = next_byte(r) % (SG_TENSOR_RECENT + 2);
    for (uint8_t seat = 0; seat < view->rules.players; seat++) {
        CHECK(sg_observation_tensor(view, seat, pending, recent,
                                    n_recent > SG_TENSOR_RECENT ? SG_TENSOR_RECENT : n_recent,
                                    tensor) == SG_ERROR_NONE);
        for (int i = 0; i < size; i++)
            CHECK(tensor[i] >= 0.0f && tensor[i] <= 1.0f);
    }
    uint16_t actions[SG_NUM_ACTIONS];
    uint8_t mask[SG_NUM_ACTIONS];
    const uint64_t chosen = next_byte(r) % 2 ? pending : 0;
    const int k = sg_legal_actions(view, chosen, actions);
    sg_action_mask(view, chosen, mask);
    int ones = 0;
    for (int a = 0; a < SG_NUM_ACTIONS; a++)
        ones += mask[a];
    CHECK(k >= 0 && k <= SG_NUM_ACTIONS && ones == k);
    for (int i = 0; i < k; i++)
        CHECK(mask[actions[i]] == 1 && (i == 0 || actions[i] > actions[i - 1]));
    /* Actions are taken in games, never in views: in a world of this view. */
    sg_rng rng;
    sg_rng_seed(&rng, pending);
    sg_state world, step;
    sg_sample_world(view, &rng, &world);
    step = world;
    uint64_t p = chosen;
    const int action = (int)(next_u64(r) % (SG_NUM_ACTIONS + 8)) - 4;
    const int result = sg_apply_action(&step, &p, action, NULL);
    CHECK(result == SG_ERROR_NONE || result == SG_ERROR_ILLEGAL || result == SG_ERROR_OVER);
    if (result != SG_ERROR_NONE) {
        CHECK(memcmp(&step, &world, sizeof step) == 0 && p == chosen);
    } else {
        CHECK(action >= 0 && action < SG_NUM_ACTIONS && mask[action] == 1);
        CHECK(sg_view_check(&step) == 0);
    }
}

static void search_view(reader *r)
{
    sg_state view;
    memset(&view, 0, sizeof view);
    const size_t left = r->size - r->pos;
    memcpy(&view, r->data + r->pos, left < sizeof view ? left : sizeof view);
    r->pos += left < sizeof view ? left : sizeof view;
    const int failed = sg_view_check(&view);
    CHECK(failed >= 0 && failed <= MAX_CHECK);
    /* A whole state that passes sg_state_check passes sg_view_check (it
     * runs the same checks and more), and a refused one names a field. */
    const char *field = NULL;
    const int whole = sg_state_check(&view, &field);
    CHECK(whole >= 0 && whole <= MAX_STATE_CHECK && (whole == 0) == (field == NULL));
    CHECK(whole != 0 || failed == 0);
    if (failed)
        return;
    const int players = view.rules.players;
    for (uint8_t seat = 0; seat < players; seat++) {
        sg_observation obs;
        CHECK(sg_observe(&view, seat, &obs) == SG_ERROR_NONE);
    }
    learner_inputs(&view, r);
    sg_result result;
    sg_move moves[SG_MAX_MOVES];
    const int n = sg_legal_moves(&view, moves);
    CHECK(n >= 0 && n <= SG_MAX_MOVES);
    if (view.phase == SG_PHASE_OVER) {
        CHECK(sg_game_result(&view, &result) == SG_ERROR_NONE);
        CHECK(result.n_finish <= players);
        CHECK(n == 0);
        return;
    }
    CHECK(view.to_move < players);
    const uint64_t seed = next_u64(r);
    const uint8_t knobs = next_byte(r);
    sg_rng rng;
    sg_rng_seed(&rng, seed);

    const sg_move greedy = sg_greedy_move(&view);
    CHECK(n == 0 ? greedy == 0 : has_move(moves, n, greedy));
    for (int w = 0; w < 3; w++) {
        sg_state world;
        sg_sample_world(&view, &rng, &world);
        check_state(&world);
        for (int p = 0; p < SG_MAX_PLAYERS; p++)
            CHECK(world.unseen[p] == 0);
        sg_move wmoves[SG_MAX_MOVES];
        const int wn = sg_legal_moves(&world, wmoves);
        CHECK(wn >= 1);
        /* What is legal in the view (the greedy move too) is legal in the world. */
        for (int i = 0; i < n; i++)
            CHECK(sg_why_illegal(&world, moves[i], NULL) == SG_ILLEGAL_NONE);
        CHECK(n == 0 || sg_why_illegal(&world, greedy, NULL) == SG_ILLEGAL_NONE);
        for (int step = 0; step < WORLD_MOVES && world.phase != SG_PHASE_OVER; step++) {
            const int k = sg_legal_moves(&world, wmoves);
            CHECK(k >= 1 && k <= SG_MAX_MOVES);
            const sg_move move = (w == 0) ? sg_greedy_move(&world)
                                          : wmoves[sg_rng_below(&rng, (uint32_t)k)];
            CHECK(has_move(wmoves, k, move));
            sg_apply_unchecked(&world, move, NULL);
            CHECK(sg_view_check(&world) == 0);
        }
    }
    double scores[SG_MAX_MOVES];
    sg_move pmoves[SG_MAX_MOVES];
    const int pn = sg_pimc(&view, 1 + knobs % 2, 1, knobs / 2 % 3, 30, seed, pmoves, scores);
    CHECK(pn == n);
    for (int i = 0; i < pn; i++)
        CHECK(pmoves[i] == moves[i] && scores[i] >= 0.0 && scores[i] <= 1.0);

    sg_ismcts_params params;
    memset(&params, 0, sizeof params);
    params.exploration = 0.7;
    params.seed = seed;
    params.iterations = 4 + knobs / 8 % 8;
    params.rollout_cap = 30;
    params.policy = knobs / 64 % 3;
    sg_ismcts_stats stats;
    sg_move root[SG_MAX_MOVES];
    uint32_t visits[SG_MAX_MOVES];
    int n_root = -1;
    const sg_move best = sg_ismcts(&view, &params, &stats, root, visits, &n_root);
    CHECK(n_root == n);
    CHECK(n == 0 ? best == 0 : has_move(moves, n, best));

    /* The merged moves are some of the legal moves, in order. */
    sg_move merged[SG_MAX_MOVES];
    memcpy(merged, moves, (size_t)n * sizeof moves[0]);
    const int m = sg_merge_moves(&view, merged, n);
    CHECK(m <= n && (n == 0 || m >= 1));
    for (int i = 0, j = 0; i < m; i++, j++) {
        while (j < n && moves[j] != merged[i])
            j++;
        CHECK(j < n);
    }
    /* A belief from the input: refused by number or sampled, in bounds whatever it
     * says, and searched with (the merged moves too). */
    sg_belief *belief = calloc(1, sizeof *belief);
    if (belief == NULL)
        return;
    for (int p = 0; p < players; p++) {
        if (!view.unseen[p] || next_byte(r) % 2)
            continue;
        belief->n_cases[p] = (uint16_t)(1 + next_byte(r) % 3);
        for (int c = 0; c < belief->n_cases[p]; c++) {
            sg_belief_case *k = &belief->cases[p][c];
            k->weight = 1.0 + next_byte(r);
            k->n_slots = view.unseen[p];
            for (int j = 0; j < SG_BELIEF_SLOTS; j++)
                k->forbid[j] = (uint16_t)(next_u64(r) & next_u64(r) & 0x1FFF);
            k->n_needs = (uint8_t)(next_byte(r) % 2);
            k->need_ranks[0] = (uint16_t)(next_u64(r) & 0x1FFF);
            k->need_slots[0] = (uint8_t)(next_byte(r) & ((1u << (k->n_slots % 6)) - 1));
        }
    }
    const int bad = sg_belief_check(&view, belief);
    CHECK(bad >= 0 && bad <= 3);
    sg_state world;
    const int outcome = sg_sample_belief(&view, belief, &rng, &world);
    CHECK(outcome >= SG_SAMPLE_EXACT && outcome <= SG_SAMPLE_UNIFORM);
    CHECK(bad == 0 || outcome == SG_SAMPLE_UNIFORM);
    check_state(&world);
    params.flags = knobs % 2 ? SG_ISMCTS_MERGE : 0;
    double rewards[SG_MAX_MOVES];
    const sg_move searched = sg_ismcts_search(&view, belief, &params, NULL, NULL, &stats, root, visits,
                                              rewards, &n_root);
    CHECK(n_root == n);
    CHECK(n == 0 ? searched == 0 : has_move(moves, n, searched));
    free(belief);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    reader r = {data, size, 0};
    if (next_byte(&r) % 2 == 0)
        play_game(&r);
    else
        search_view(&r);
    return 0;
}
