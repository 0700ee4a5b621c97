/*
 * lowbot: a small rule-based skitgubbe engine in C99, written from
 * docs/protocol.md alone (protocol version 1: JSON lines on stdin/stdout).
 *
 * Build:  cc -std=c99 -O2 -Wall -Wextra -o lowbot lowbot.c
 * Run:    ./lowbot            (the referee starts it; see ../README.md)
 *
 * Strategy (pick one of the legal move texts the referee lists):
 *   1. a "slough ..." move if one is offered, the one with the most cards
 *      (it gets rid of cards; ties: the lowest cards);
 *   2. else a card play: the lowest rank ("style" option "high": the
 *      highest), non-trump before trump once the trump suit is public,
 *      and among equal ranks the move with more cards (sheds faster);
 *   3. else "pass" (the slough window), then "flip", then "pick";
 *   4. else the first legal move.
 *
 * The JSON reader below is a small hand-written one that reads what the bot
 * needs (type, seq, legal_moves, set_option's name/value, the observation's
 * trump) and skips everything else, nested or not.  Anything that
 * is not a JSON object with a string "type" is ignored, as are unknown types
 * and keys.  Only protocol lines go to stdout; diagnostics go to stderr.
 */

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Growable byte strings                                                     */

typedef struct {
    char *data;  /* NUL-terminated */
    size_t len;
    size_t cap;
} Str;

static void die_oom(void) {
    fputs("lowbot: out of memory\n", stderr);
    exit(1);
}

static void str_push(Str *s, char c) {
    if (s->len + 1 >= s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 64;
        char *p = realloc(s->data, cap);
        if (!p) die_oom();
        s->data = p;
        s->cap = cap;
    }
    s->data[s->len++] = c;
    s->data[s->len] = '\0';
}

/* Empty s; afterwards s->data is never NULL. */
static void str_clear(Str *s) {
    if (!s->data) {
        str_push(s, '\0');
    }
    s->len = 0;
    s->data[0] = '\0';
}

static void str_free(Str *s) {
    free(s->data);
    s->data = NULL;
    s->len = s->cap = 0;
}

/* 1 if s holds exactly the text word (a decoded string may hold NUL bytes). */
static int str_is(const Str *s, const char *word) {
    return s->len == strlen(word) && memcmp(s->data, word, s->len) == 0;
}

/* Read one line of any length (without its '\n') into *line.
 * Returns 0 at end of input with nothing read, 1 otherwise. */
static int read_line(Str *line) {
    int c;
    int any = 0;
    str_clear(line);
    while ((c = getchar()) != EOF) {
        any = 1;
        if (c == '\n') return 1;
        str_push(line, (char)c);
    }
    return any;
}

/* ------------------------------------------------------------------------ */
/* A minimal JSON reader over one line                                       */

typedef struct {
    const char *p;   /* current position */
    const char *end; /* one past the last byte */
    int ok;          /* 0 once a syntax error was seen */
} Json;

static void ws(Json *j) {
    while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
        j->p++;
}

static int peek(Json *j) {
    ws(j);
    return j->p < j->end ? (unsigned char)*j->p : -1;
}

static int expect(Json *j, char c) {
    if (peek(j) == (unsigned char)c) {
        j->p++;
        return 1;
    }
    j->ok = 0;
    return 0;
}

static int hex4(Json *j, uint32_t *out) {
    uint32_t v = 0;
    int i;
    if (j->end - j->p < 4) return 0;
    for (i = 0; i < 4; i++) {
        char c = j->p[i];
        v <<= 4;
        if (c >= '0' && c <= '9') v |= (uint32_t)(c - '0');
        else if (c >= 'a' && c <= 'f') v |= (uint32_t)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') v |= (uint32_t)(c - 'A' + 10);
        else return 0;
    }
    j->p += 4;
    *out = v;
    return 1;
}

static void put_utf8(Str *s, uint32_t cp) {
    if (cp < 0x80) {
        str_push(s, (char)cp);
    } else if (cp < 0x800) {
        str_push(s, (char)(0xC0 | (cp >> 6)));
        str_push(s, (char)(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
        str_push(s, (char)(0xE0 | (cp >> 12)));
        str_push(s, (char)(0x80 | ((cp >> 6) & 0x3F)));
        str_push(s, (char)(0x80 | (cp & 0x3F)));
    } else {
        str_push(s, (char)(0xF0 | (cp >> 18)));
        str_push(s, (char)(0x80 | ((cp >> 12) & 0x3F)));
        str_push(s, (char)(0x80 | ((cp >> 6) & 0x3F)));
        str_push(s, (char)(0x80 | (cp & 0x3F)));
    }
}

/* Read a JSON string, decoding its escapes into UTF-8 (out may be NULL to
 * skip it).  A lone surrogate escape becomes U+FFFD. */
static int read_string(Json *j, Str *out) {
    if (out) str_clear(out);
    if (!expect(j, '"')) return 0;
    while (j->p < j->end) {
        unsigned char c = (unsigned char)*j->p++;
        if (c == '"') return 1;
        if (c < 0x20) break; /* raw control characters are not allowed */
        if (c != '\\') {
            if (out) str_push(out, (char)c);
            continue;
        }
        if (j->p >= j->end) break;
        c = (unsigned char)*j->p++;
        switch (c) {
        case '"': case '\\': case '/':
            if (out) str_push(out, (char)c);
            break;
        case 'b': if (out) str_push(out, '\b'); break;
        case 'f': if (out) str_push(out, '\f'); break;
        case 'n': if (out) str_push(out, '\n'); break;
        case 'r': if (out) str_push(out, '\r'); break;
        case 't': if (out) str_push(out, '\t'); break;
        case 'u': {
            uint32_t cp, low;
            if (!hex4(j, &cp)) goto bad;
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                /* a high surrogate: a low one should follow */
                if (j->end - j->p >= 6 && j->p[0] == '\\' && j->p[1] == 'u') {
                    const char *save = j->p;
                    j->p += 2;
                    if (hex4(j, &low) && low >= 0xDC00 && low <= 0xDFFF)
                        cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
                    else {
                        j->p = save;
                        cp = 0xFFFD;
                    }
                } else {
                    cp = 0xFFFD;
                }
            } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
                cp = 0xFFFD;
            }
            if (out) put_utf8(out, cp);
            break;
        }
        default:
            goto bad;
        }
    }
bad:
    j->ok = 0;
    return 0;
}

/* Read a JSON number token; its text (as written) goes to out if not NULL. */
static int read_number(Json *j, Str *out) {
    const char *start;
    ws(j);
    start = j->p;
    if (j->p < j->end && *j->p == '-') j->p++;
    if (j->p >= j->end || *j->p < '0' || *j->p > '9') goto bad;
    if (*j->p == '0') j->p++;
    else while (j->p < j->end && *j->p >= '0' && *j->p <= '9') j->p++;
    if (j->p < j->end && *j->p == '.') {
        j->p++;
        if (j->p >= j->end || *j->p < '0' || *j->p > '9') goto bad;
        while (j->p < j->end && *j->p >= '0' && *j->p <= '9') j->p++;
    }
    if (j->p < j->end && (*j->p == 'e' || *j->p == 'E')) {
        j->p++;
        if (j->p < j->end && (*j->p == '+' || *j->p == '-')) j->p++;
        if (j->p >= j->end || *j->p < '0' || *j->p > '9') goto bad;
        while (j->p < j->end && *j->p >= '0' && *j->p <= '9') j->p++;
    }
    if (out) {
        const char *q;
        str_clear(out);
        for (q = start; q < j->p; q++) str_push(out, *q);
    }
    return 1;
bad:
    j->ok = 0;
    return 0;
}

static int read_word(Json *j, const char *word) {
    size_t n = strlen(word);
    ws(j);
    if ((size_t)(j->end - j->p) >= n && memcmp(j->p, word, n) == 0) {
        j->p += n;
        return 1;
    }
    j->ok = 0;
    return 0;
}

/* Skip any JSON value.  Iterative (a stack of open brackets), so deep
 * nesting cannot overflow the C stack; it checks the syntax as it goes. */
static int skip_value(Json *j) {
    Str stack = {NULL, 0, 0}; /* '[' or '{' per open level */
    int need_value = 1;       /* 1: a value comes next */
    for (;;) {
        int c;
        if (need_value) {
            c = peek(j);
            if (c == '{' || c == '[') {
                char close = c == '{' ? '}' : ']';
                j->p++;
                if (peek(j) == (unsigned char)close) { /* {} or [] */
                    j->p++;
                } else {
                    str_push(&stack, (char)c);
                    if (c == '{' && (!read_string(j, NULL) || !expect(j, ':'))) break;
                    continue; /* the first member's value */
                }
            } else if (c == '"') {
                if (!read_string(j, NULL)) break;
            } else if (c == 't') {
                if (!read_word(j, "true")) break;
            } else if (c == 'f') {
                if (!read_word(j, "false")) break;
            } else if (c == 'n') {
                if (!read_word(j, "null")) break;
            } else if (!read_number(j, NULL)) {
                break;
            }
            need_value = 0;
        }
        /* after a value: the end of the whole value, the next element, or a close */
        if (stack.len == 0) {
            str_free(&stack);
            return 1;
        }
        c = peek(j);
        if (c == ',') {
            j->p++;
            if (stack.data[stack.len - 1] == '{' && (!read_string(j, NULL) || !expect(j, ':')))
                break;
            need_value = 1;
        } else if (c == (stack.data[stack.len - 1] == '{' ? '}' : ']')) {
            j->p++;
            stack.data[--stack.len] = '\0';
        } else {
            break;
        }
    }
    str_free(&stack);
    j->ok = 0;
    return 0;
}

/* Iterate an object: call begin once, then next_key until it returns 0.
 * Each key must be followed by reading or skipping its value. */
static int object_begin(Json *j) { return expect(j, '{'); }

static int object_next_key(Json *j, Str *key, int *first) {
    int c = peek(j);
    if (c == '}') {
        j->p++;
        return 0;
    }
    if (!*first && !expect(j, ',')) return 0;
    *first = 0;
    if (!read_string(j, key) || !expect(j, ':')) return 0;
    return 1;
}

/* ------------------------------------------------------------------------ */
/* The messages                                                              */

#define MAX_MOVES 4096 /* far more than any position has */

typedef struct {
    Str type, seq, name, value, trump;
    int has_seq, value_is_string;
    Str moves[MAX_MOVES];
    size_t n_moves;
} Message;

static void message_reset(Message *m) {
    str_clear(&m->type);
    str_clear(&m->seq);
    str_clear(&m->name);
    str_clear(&m->value);
    str_clear(&m->trump);
    m->has_seq = m->value_is_string = 0;
    m->n_moves = 0;
}

/* A string value into out, or anything else skipped (out cleared). */
static int string_or_skip(Json *j, Str *out, int *is_string) {
    if (peek(j) == '"') {
        if (is_string) *is_string = 1;
        return read_string(j, out);
    }
    str_clear(out);
    return skip_value(j);
}

static int read_observation(Json *j, Message *m, Str *key) {
    int first = 1;
    if (peek(j) != '{') return skip_value(j); /* not an object: ignore it */
    if (!object_begin(j)) return 0;
    while (object_next_key(j, key, &first)) {
        if (str_is(key, "trump")) string_or_skip(j, &m->trump, NULL);
        else skip_value(j);
        if (!j->ok) return 0;
    }
    return j->ok;
}

static int read_moves(Json *j, Message *m) {
    int first = 1;
    m->n_moves = 0;
    if (peek(j) != '[') return skip_value(j);
    j->p++;
    for (;;) {
        if (peek(j) == ']') {
            j->p++;
            return 1;
        }
        if (!first && !expect(j, ',')) return 0;
        first = 0;
        if (peek(j) == '"' && m->n_moves < MAX_MOVES) {
            if (!read_string(j, &m->moves[m->n_moves])) return 0;
            m->n_moves++;
        } else if (!skip_value(j)) {
            return 0;
        }
    }
}

/* Parse one line; 1 if it is an object with a string "type". */
static int parse_message(const char *text, size_t len, Message *m) {
    Json j;
    Str key = {NULL, 0, 0};
    int first = 1, type_ok = 0;
    j.p = text;
    j.end = text + len;
    j.ok = 1;
    message_reset(m);
    if (!object_begin(&j)) goto done;
    while (object_next_key(&j, &key, &first)) {
        if (str_is(&key, "type")) {
            type_ok = peek(&j) == '"';
            string_or_skip(&j, &m->type, NULL);
        } else if (str_is(&key, "seq")) {
            int c = peek(&j);
            if (c == '-' || (c >= '0' && c <= '9')) {
                m->has_seq = read_number(&j, &m->seq);
            } else {
                m->has_seq = 0;
                skip_value(&j);
            }
        } else if (str_is(&key, "legal_moves")) {
            read_moves(&j, m);
        } else if (str_is(&key, "observation")) {
            read_observation(&j, m, &key);
        } else if (str_is(&key, "name")) {
            string_or_skip(&j, &m->name, NULL);
        } else if (str_is(&key, "value")) {
            m->value_is_string = 0;
            string_or_skip(&j, &m->value, &m->value_is_string);
        } else {
            skip_value(&j);
        }
        if (!j.ok) break;
    }
    if (j.ok && peek(&j) != -1) j.ok = 0; /* nothing may follow the object */
done:
    str_free(&key);
    return j.ok && type_ok;
}

/* ------------------------------------------------------------------------ */
/* Writing                                                                   */

static void write_json_string(const char *s) {
    putchar('"');
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            putchar('\\');
            putchar(c);
        } else if (c < 0x20) {
            printf("\\u%04x", (unsigned)c);
        } else {
            putchar(c);
        }
    }
    putchar('"');
}

static void send_line_end(void) {
    putchar('\n');
    fflush(stdout);
}

static void log_text(const char *prefix, const char *text) {
    Str all = {NULL, 0, 0};
    const char *q;
    for (q = prefix; *q; q++) str_push(&all, *q);
    for (q = text; *q; q++) str_push(&all, *q);
    fputs("{\"type\":\"log\",\"text\":", stdout);
    write_json_string(all.data ? all.data : "");
    fputc('}', stdout);
    send_line_end();
    str_free(&all);
}

/* ------------------------------------------------------------------------ */
/* The strategy                                                              */

enum { STYLE_LOW, STYLE_HIGH };
static int style = STYLE_LOW;

/* A move text, summed up. */
typedef struct {
    int kind;   /* K_CARDS, K_SLOUGH, K_PASS, K_FLIP, K_PICK, K_OTHER */
    int n;      /* cards in it */
    int low;    /* lowest rank, 2..14 (A = 14) */
    int high;   /* highest rank */
    int trumps; /* how many of its cards are trumps */
} Summary;

enum { K_CARDS, K_SLOUGH, K_PASS, K_FLIP, K_PICK, K_OTHER };

/* The rank of a card text such as "10D" or "QS"; 0 if it is not one. */
static int rank_of(const char *card, size_t len, char *suit) {
    if (len < 2) return 0;
    *suit = card[len - 1];
    if (!strchr("CDHS", *suit)) return 0;
    if (len == 3 && card[0] == '1' && card[1] == '0') return 10;
    if (len != 2) return 0;
    if (card[0] >= '2' && card[0] <= '9') return card[0] - '0';
    switch (card[0]) {
    case 'J': return 11;
    case 'Q': return 12;
    case 'K': return 13;
    case 'A': return 14;
    default: return 0;
    }
}

static Summary summarize(const char *text, char trump) {
    Summary s = {K_OTHER, 0, 99, 0, 0};
    const char *p = text;
    if (strcmp(text, "pass") == 0) { s.kind = K_PASS; return s; }
    if (strcmp(text, "flip") == 0) { s.kind = K_FLIP; return s; }
    if (strcmp(text, "pick") == 0) { s.kind = K_PICK; return s; }
    if (strncmp(text, "slough", 6) == 0) {
        s.kind = K_SLOUGH;
        p += 6;
    } else {
        s.kind = K_CARDS;
    }
    /* the cards, space-separated */
    while (*p) {
        size_t len;
        int rank;
        char suit = 0;
        while (*p == ' ') p++;
        if (!*p) break;
        len = strcspn(p, " ");
        rank = rank_of(p, len, &suit);
        if (!rank) { s.kind = K_OTHER; return s; }
        s.n++;
        if (rank < s.low) s.low = rank;
        if (rank > s.high) s.high = rank;
        if (trump && suit == trump) s.trumps++;
        p += len;
    }
    if (s.n == 0) s.kind = K_OTHER;
    return s;
}

/* 1 if card play a is better than card play b. */
static int better_play(const Summary *a, const Summary *b) {
    /* spend trumps last */
    if ((a->trumps > 0) != (b->trumps > 0)) return a->trumps == 0;
    if (style == STYLE_LOW) {
        if (a->low != b->low) return a->low < b->low;
    } else {
        if (a->high != b->high) return a->high > b->high;
    }
    return a->n > b->n; /* more cards at once: shed faster */
}

/* 1 if slough a is better than slough b: more cards, then lower ones. */
static int better_slough(const Summary *a, const Summary *b) {
    if (a->n != b->n) return a->n > b->n;
    return a->low < b->low;
}

/* The index of the chosen move among m->moves (m->n_moves > 0). */
static size_t choose(const Message *m) {
    char trump = m->trump.len == 1 ? m->trump.data[0] : 0;
    long best_play = -1, best_slough = -1, pass = -1, flip = -1, pick = -1;
    Summary bp = {0, 0, 0, 0, 0}, bs = {0, 0, 0, 0, 0};
    size_t i;
    for (i = 0; i < m->n_moves; i++) {
        Summary s = summarize(m->moves[i].data, trump);
        switch (s.kind) {
        case K_CARDS:
            if (best_play < 0 || better_play(&s, &bp)) { best_play = (long)i; bp = s; }
            break;
        case K_SLOUGH:
            if (best_slough < 0 || better_slough(&s, &bs)) { best_slough = (long)i; bs = s; }
            break;
        case K_PASS: if (pass < 0) pass = (long)i; break;
        case K_FLIP: if (flip < 0) flip = (long)i; break;
        case K_PICK: if (pick < 0) pick = (long)i; break;
        default: break;
        }
    }
    if (best_slough >= 0) return (size_t)best_slough;
    if (best_play >= 0) return (size_t)best_play;
    if (pass >= 0) return (size_t)pass;
    if (flip >= 0) return (size_t)flip; /* try our luck only with no card to play */
    if (pick >= 0) return (size_t)pick; /* pick up only when nothing else is legal */
    return 0;
}

/* ------------------------------------------------------------------------ */
/* The main loop                                                             */

static Message msg; /* static: its move array is large */

int main(void) {
    Str line = {NULL, 0, 0};
    size_t i;
    while (read_line(&line)) {
        if (!parse_message(line.data, line.len, &msg)) continue; /* not a message */
        if (str_is(&msg.type, "hello")) {
            fputs("{\"type\":\"id\",\"protocol\":1,\"name\":\"lowbot-c\","
                  "\"author\":\"skitgubbe examples\",\"version\":\"1.0\","
                  "\"options\":[{\"name\":\"style\",\"type\":\"choice\","
                  "\"default\":\"low\",\"choices\":[\"low\",\"high\"]}]}",
                  stdout);
            send_line_end();
        } else if (str_is(&msg.type, "isready")) {
            if (!msg.has_seq) continue;
            printf("{\"type\":\"readyok\",\"seq\":%s}", msg.seq.data);
            send_line_end();
        } else if (str_is(&msg.type, "set_option")) {
            if (!str_is(&msg.name, "style")) {
                log_text("unknown option ignored: ", msg.name.data);
            } else if (msg.value_is_string && str_is(&msg.value, "low")) {
                style = STYLE_LOW;
            } else if (msg.value_is_string && str_is(&msg.value, "high")) {
                style = STYLE_HIGH;
            } else {
                log_text("style must be low or high; kept ",
                         style == STYLE_LOW ? "low" : "high");
            }
        } else if (str_is(&msg.type, "go")) {
            if (!msg.has_seq || msg.n_moves == 0) {
                fputs("lowbot: a go without seq or legal moves\n", stderr);
                continue;
            }
            i = choose(&msg);
            printf("{\"type\":\"move\",\"seq\":%s,\"move\":", msg.seq.data);
            write_json_string(msg.moves[i].data);
            putchar('}');
            send_line_end();
        } else if (str_is(&msg.type, "quit")) {
            break;
        }
        /* new_game, events, game_over and unknown types need nothing here */
    }
    str_free(&line);
    message_reset(&msg);
    str_free(&msg.type);
    str_free(&msg.seq);
    str_free(&msg.name);
    str_free(&msg.value);
    str_free(&msg.trump);
    for (i = 0; i < MAX_MOVES; i++) str_free(&msg.moves[i]);
    return 0;
}
