/* Positions and how their games ended, for training the network's value: whole
 * games played in C by a built-in policy, a few positions kept from each. */
#include <string.h>

#include "internal.h"

#define MAX_KEPT 64

int32_t sg_outcome_samples(const sg_rules *rules, uint64_t seed, uint64_t first, int32_t games,
                           int32_t per_game, int32_t policy, int32_t rollouts, float *features,
                           float *values, float *masks)
{
    if (per_game < 1 || per_game > MAX_KEPT || games < 0 || rollouts < 0 || rollouts > 1024 ||
        sg_rules_check(rules, NULL) != SG_RULES_ERROR_NONE)
        return -1;
    const int size = sg_tensor_size() + SG_NET_WORLD_PLANES * SG_NCARDS;
    sg_state kept[MAX_KEPT];
    sg_move moves[SG_MAX_MOVES];
    int32_t written = 0;
    for (int32_t g = 0; g < games; g++) {
        const uint64_t game_seed = sg_game_seed(seed, first + (uint64_t)g);
        uint8_t deck[SG_NCARDS];
        sg_state st;
        sg_rng rng;
        sg_deck_from_seed(game_seed, deck);
        sg_rng_seed(&rng, game_seed ^ UINT64_C(0x9E3779B97F4A7C15));
        if (sg_new(&st, rules, deck, (uint8_t)(rules->players - 1), NULL) != SG_ERROR_NONE)
            return -1;
        /* Reservoir sampling over the positions with a choice to make. */
        uint32_t seen = 0;
        int n_kept = 0;
        while (st.phase != SG_PHASE_OVER) {
            const int n = sg_legal_moves(&st, moves);
            if (n == 0)
                break;
            if (n > 1) {
                seen++;
                if (n_kept < per_game) {
                    kept[n_kept++] = st;
                } else {
                    const uint32_t slot = sg_rng_below(&rng, seen);
                    if (slot < (uint32_t)per_game)
                        kept[slot] = st;
                }
            }
            sg_move move;
            if (policy == SG_POLICY_GREEDY ||
                (policy == SG_POLICY_MIXED && sg_rng_below(&rng, 4) != 0))
                move = sg_greedy_move(&st);
            else
                move = moves[sg_rng_below(&rng, (uint32_t)n)];
            sg_apply_unchecked(&st, move, NULL);
        }
        const int players = st.rules.players;
        for (int k = 0; k < n_kept; k++) {
            const sg_state *at = &kept[k];
            const uint8_t seat = at->to_move;
            float *out = features + (size_t)written * (size_t)size;
            if (sg_net_world_features(at, out) != SG_ERROR_NONE)
                return -1;
            if (rollouts > 0) {
                /* The mean reward of `rollouts` rollouts from here (sg_rollout's rewards). */
                double sum[SG_MAX_PLAYERS] = {0.0, 0.0, 0.0, 0.0};
                for (int32_t j = 0; j < rollouts; j++) {
                    sg_state play = *at;
                    double reward[SG_MAX_PLAYERS];
                    sg_rollout(&play, policy, 0, &rng, reward);
                    for (int p = 0; p < SG_MAX_PLAYERS; p++)
                        sum[p] += reward[p];
                }
                for (int r = 0; r < SG_MAX_PLAYERS; r++) {
                    const int s = (seat + r) % players;
                    values[written * SG_MAX_PLAYERS + r] =
                        r < players ? (float)(sum[s] / rollouts) : 0.0f;
                    masks[written * SG_MAX_PLAYERS + r] = r < players ? 1.0f : 0.0f;
                }
                written++;
                continue;
            }
            for (int r = 0; r < SG_MAX_PLAYERS; r++) {
                const int s = (seat + r) % players;
                const int ok = r < players && !st.truncated && st.phase == SG_PHASE_OVER;
                values[written * SG_MAX_PLAYERS + r] = ok && s != st.loser ? 1.0f : 0.0f;
                masks[written * SG_MAX_PLAYERS + r] = ok ? 1.0f : 0.0f;
            }
            written++;
        }
    }
    return written;
}
