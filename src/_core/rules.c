/* Rules: the field descriptors, get/set by index, the presets and validation
 * (docs/rules.md §9), all generated from SG_RULE_FIELDS in skitgubbe.h. */
#include <string.h>

#include "skitgubbe.h"

/* One field index per table line: FIELD_players, FIELD_hand_size, ... */
#define INDEX(name, storage, kind, lo, hi, step, classic, values, doc) FIELD_##name,
enum field_index { SG_RULE_FIELDS(INDEX) FIELD_COUNT };
SG_STATIC_ASSERT(FIELD_COUNT == SG_RULE_COUNT, one_index_per_field);

/* The value names of each field: values_of_trick_mode = {"duel", "all", NULL}. */
#define VALUE_NAME(constant, number, text) [constant] = text,
#define VALUE_NAMES(name, storage, kind, lo, hi, step, classic, values, doc)                       \
    static const char *const values_of_##name[] = {values(VALUE_NAME) NULL};
SG_RULE_FIELDS(VALUE_NAMES)

#define N_VALUES(name) (sizeof values_of_##name / sizeof values_of_##name[0] - 1)
#define PLUS_ONE(constant, number, text) +1

/* An enum names every value 0..max (as many names as values: no gap), and
 * only enums name values. */
#define VALUES_MATCH(name, storage, kind, lo, hi, step, classic, values, doc)                      \
    SG_STATIC_ASSERT(SG_RULE_KIND_##kind == SG_RULE_KIND_ENUM                                      \
                         ? (lo) == 0 && N_VALUES(name) == (size_t)(hi) + 1 &&                      \
                               N_VALUES(name) == (0 values(PLUS_ONE))                              \
                         : N_VALUES(name) == 0,                                                    \
                     values_of_##name##_match_its_range);
SG_RULE_FIELDS(VALUES_MATCH)

#define DESCRIBE(name, storage, kind, lo, hi, step, classic, values, doc)                          \
    {(lo), (hi), (step), (classic), SG_RULE_KIND_##kind, (uint32_t)N_VALUES(name),                 \
     #name, doc, values_of_##name},
static const sg_rule_field fields[] = {SG_RULE_FIELDS(DESCRIBE)};

const sg_rule_field *sg_rule_fields(int *count)
{
    if (count)
        *count = SG_RULE_COUNT;
    return fields;
}

int sg_rule_index(const char *name)
{
    for (int i = 0; name && i < SG_RULE_COUNT; i++)
        if (strcmp(fields[i].name, name) == 0)
            return i;
    return -1;
}

/* Whether a field of this kind and range allows `value`.  Called with
 * constants from the table, it compiles down to the comparisons it needs. */
static inline int allowed(uint32_t kind, uint32_t lo, uint32_t hi, uint32_t step,
                          uint32_t value)
{
    if (kind == SG_RULE_KIND_OPTIONAL_INT && value == 0)
        return 1;
    return value >= lo && value <= hi && (value - lo) % step == 0;
}

uint32_t sg_rules_get(const sg_rules *r, int index)
{
    switch (index) {
#define GET(name, storage, kind, lo, hi, step, classic, values, doc)                               \
    case FIELD_##name:                                                                             \
        return r->name;
        SG_RULE_FIELDS(GET)
    default:
        return 0;
    }
}

int sg_rules_set(sg_rules *r, int index, uint32_t value)
{
    if (index < 0 || index >= SG_RULE_COUNT)
        return SG_RULES_ERROR_NO_FIELD;
    const sg_rule_field *f = &fields[index];
    if (!allowed(f->kind, f->min, f->max, f->step, value))
        return SG_RULES_ERROR_BAD_VALUE;
    switch (index) {
#define SET(name, storage, kind, lo, hi, step, classic, values, doc)                               \
    case FIELD_##name:                                                                             \
        r->name = (SG_RULE_TYPE_##storage)value;                                                   \
        break;
        SG_RULE_FIELDS(SET)
    default:
        break;
    }
    return SG_RULES_ERROR_NONE;
}

void sg_rules_classic(sg_rules *r, uint8_t players)
{
    memset(r, 0, sizeof *r);
#define CLASSIC(name, storage, kind, lo, hi, step, classic, values, doc)                           \
    r->name = (SG_RULE_TYPE_##storage)(classic);
    SG_RULE_FIELDS(CLASSIC)
    r->players = players;
}

void sg_rules_modern(sg_rules *r, uint8_t players)
{
    sg_rules_classic(r, players);
    r->trick_mode = players == 2 ? SG_TRICK_MODE_DUEL : SG_TRICK_MODE_ALL;
    if (players == 2)
        r->duel_tie = SG_DUEL_TIE_BOUNCE;
    r->all_tie = SG_ALL_TIE_LOWER_OUT;
    r->slough = 1;
    r->try_your_luck = 0;
    r->draw = SG_DRAW_AFTER_TRICK;
    r->last_card = SG_LAST_CARD_REVEAL;
    r->runs = 1;
    r->pickup = SG_PICKUP_TOP_RUN;
    r->trick_end = SG_TRICK_END_ROTATION;
}

int sg_rules_check(const sg_rules *r, const char **field)
{
#define CHECK(name, storage, kind, lo, hi, step, classic, values, doc)                             \
    if (!allowed(SG_RULE_KIND_##kind, (lo), (hi), (step), r->name)) {                              \
        if (field)                                                                                 \
            *field = #name;                                                                        \
        return SG_RULES_ERROR_BAD_VALUE;                                                           \
    }
    SG_RULE_FIELDS(CHECK)
    if (r->trump == SG_TRUMP_RULE_UPCARD && r->multi_card_plays) {
        if (field)
            *field = "trump";
        return SG_RULES_ERROR_CONFLICT;
    }
    return SG_RULES_ERROR_NONE;
}
