/* Writes the seed corpus of fuzz_core.c into the directory given (see
 * tests/fuzz/README.md): views that sg_view makes at several points of games
 * under several rules (inputs of the view kind), and short games driven
 * through the entry points (inputs of the game kind).  Deterministic. */
#include <stdio.h>
#include <string.h>

#include "skitgubbe.h"

static int write_file(const char *dir, const char *name, const uint8_t *data, size_t size)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size) {
        fprintf(stderr, "make_corpus: cannot write %s\n", path);
        return 1;
    }
    return fclose(f) != 0;
}

/* Rules of corpus game g: classic or modern for 2..4 players, with a few
 * fields changed from the table. */
static void rules_of(int g, sg_rules *r)
{
    const uint8_t players = (uint8_t)(2 + g % 3);
    if (g / 3 % 2)
        sg_rules_modern(r, players);
    else
        sg_rules_classic(r, players);
    int count = 0;
    const sg_rule_field *fields = sg_rule_fields(&count);
    for (int i = 0; i < count; i++) {
        if ((g * 7 + i * 3) % 5 || fields[i].max > 255 || i == sg_rule_index("players"))
            continue;
        const sg_rules saved = *r;
        sg_rules_set(r, i, fields[i].kind == SG_RULE_KIND_BOOL ? !sg_rules_get(r, i)
                                                                : (uint32_t)g % (fields[i].max + 1));
        if (sg_rules_check(r, NULL) != SG_RULES_ERROR_NONE)
            *r = saved;
    }
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: make_corpus DIR\n");
        return 2;
    }
    const char *dir = argv[1];
    uint8_t input[1 + sizeof(sg_state) + 9];
    char name[64];
    for (int g = 0; g < 24; g++) {
        sg_rules rules;
        rules_of(g, &rules);
        uint8_t deck[SG_NCARDS];
        sg_deck_from_seed((uint64_t)g, deck);
        sg_state st;
        if (sg_new(&st, &rules, deck, (uint8_t)(g % rules.players), NULL) != SG_ERROR_NONE)
            return 1;
        sg_rng rng;
        sg_rng_seed(&rng, (uint64_t)g + 1000);
        /* Views at a few moves of each game, by the player to move and another seat. */
        int taken = 0;
        for (int move = 0; st.phase != SG_PHASE_OVER && move < 300; move++) {
            if (taken < 4 && move % (19 + g % 13) == 3 + g % 5) {
                taken++;
                for (int k = 0; k < 2; k++) {
                    const uint8_t seat = (uint8_t)((st.to_move + k) % rules.players);
                    sg_state view;
                    sg_view(&st, seat, &view);
                    input[0] = 1;
                    memcpy(input + 1, &view, sizeof view);
                    for (int i = 0; i < 9; i++)
                        input[1 + sizeof view + (size_t)i] = (uint8_t)(g * 31 + move + i);
                    snprintf(name, sizeof name, "view-g%02d-m%03d-s%d", g, move, seat);
                    if (write_file(dir, name, input, sizeof input))
                        return 1;
                }
            }
            sg_move moves[SG_MAX_MOVES];
            const int n = sg_legal_moves(&st, moves);
            sg_apply_unchecked(&st, moves[sg_rng_below(&rng, (uint32_t)n)], NULL);
        }
    }
    /* Games through the entry points: a rule edit or two, then the moves. */
    for (int g = 0; g < 16; g++) {
        uint8_t game[256];
        size_t len = 0;
        game[len++] = 0;
        game[len++] = (uint8_t)(g % 3 + (g & 4));   /* players, classic or modern */
        game[len++] = (uint8_t)(g % 3);              /* rule edits */
        for (int i = 0; i < g % 3; i++) {
            game[len++] = (uint8_t)(g * 5 + i * 7);  /* field */
            game[len++] = (uint8_t)(g + i);          /* value */
        }
        if (g % 4 == 3) {
            game[len++] = 1;                         /* sg_new_shedding */
            for (int c = 0; c < SG_NCARDS; c++)
                game[len++] = (uint8_t)((c * 7 + g) % 5);
            game[len++] = (uint8_t)(g % 5);          /* trump */
            game[len++] = 0;                         /* leader */
        } else {
            game[len++] = 0;                         /* sg_new */
            for (int i = 0; i < 8; i++)
                game[len++] = (uint8_t)(g * 13 + i); /* seed */
            game[len++] = 0;                         /* dealer */
        }
        for (; len < sizeof game; len++)
            game[len] = (uint8_t)(len * 37 + (size_t)g);
        game[100] = 0xFF; /* a raw move code */
        game[150] = 0xFE; /* a greedy move */
        snprintf(name, sizeof name, "game-%02d", g);
        if (write_file(dir, name, game, sizeof game))
            return 1;
    }
    return 0;
}
