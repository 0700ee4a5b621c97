/* The learned policy and value: a small multilayer perceptron over one seat's
 * observation tensor, evaluated in plain C (see "the network" in skitgubbe.h
 * for the weight file's layout and docs/strength.md for how it is trained).
 *
 *   x  = sg_observation_tensor(st, seat, 0, no recent moves)   (inputs)
 *   h1 = relu(x W1 + b1)                                       (hidden1)
 *   h2 = relu(h1 W2 + b2)                                      (hidden2)
 *   value[r] = sigmoid(h2 Wv + bv)[r]: the chance that the seat r places to
 *              the left of the mover is not the skitgubbe       (4)
 *   for each legal move m, with cards c and kind k:
 *     a(m) = relu(h2 Wp + bp + sum_c Wc[c] + Wk[k] + Wn |c| / 13)   (action)
 *     logit(m) = vp . a(m)
 *
 * A second, smaller perceptron scores the worlds a search samples:
 *
 *   y  = x, then the cards the mover cannot see as they lie in this world:
 *        the hand of each seat r = 1..3 places to his left, the stock, the
 *        face-down last card                                   (world inputs)
 *   world[r] = sigmoid(relu(relu(y U1 + c1) U2 + c2) Uv + cv)[r]
 *
 * It sees the hidden cards of the world it is given, as a rollout does: the
 * search uses it only on sampled worlds (never the real one), and its values
 * are averaged over them.
 *
 * Every matrix is stored a row per input, and a layer adds the rows of its
 * non-zero inputs (most of x, and the half of each hidden layer that relu
 * zeroes, are zeros): loops without reductions, which compilers vectorise.
 * A move costs `action` additions per card. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct sg_net {
    uint32_t inputs, hidden1, hidden2, action;
    const float *w1; /* inputs rows of hidden1 */
    const float *b1;
    const float *w2; /* hidden1 rows of hidden2 */
    const float *b2;
    const float *wv; /* hidden2 rows of 4 */
    const float *bv;
    const float *wp; /* hidden2 rows of action */
    const float *bp;
    const float *wc; /* 52 rows of action, by card index (suit * 13 + rank index) */
    const float *wk; /* 5 rows of action, by move kind */
    const float *wn; /* action */
    const float *vp; /* action */
    uint32_t world1, world2; /* the world perceptron's hidden sizes */
    const float *u1; /* world inputs rows of world1 */
    const float *c1;
    const float *u2; /* world1 rows of world2 */
    const float *c2;
    const float *uv; /* world2 rows of 4 */
    const float *cv;
    float *data;     /* every weight, in this order */
};

#define HEADER_BYTES 48
static const char MAGIC[8] = {'S', 'G', 'N', 'E', 'T', '\0', '\0', '\1'};

static uint32_t read_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

uint32_t sg_net_checksum(const uint8_t *bytes, size_t size)
{
    uint32_t hash = 2166136261u; /* FNV-1a */
    for (size_t i = 0; i < size; i++) {
        hash ^= bytes[i];
        hash *= 16777619u;
    }
    return hash;
}

/* How many floats a network of these sizes has. */
static uint64_t float_count(uint64_t in, uint64_t h1, uint64_t h2, uint64_t a, uint64_t w1,
                            uint64_t w2)
{
    const uint64_t world_in = in + SG_NET_WORLD_PLANES * SG_NCARDS;
    return in * h1 + h1 + h2 * h1 + h2 + 4 * h2 + 4 + a * h2 + a + SG_NCARDS * a +
           (SG_MOVE_KIND_PASS + 1) * a + a + a + world_in * w1 + w1 + w1 * w2 + w2 + w2 * 4 + 4;
}

uint64_t sg_net_max_size(void)
{
    const uint64_t w = SG_NET_MAX_WIDTH;
    return HEADER_BYTES + 4 * float_count((uint64_t)sg_tensor_size(), w, w, w, w, w);
}

/* The bound of each output of a layer, bound[j] = |bias[j]| + sum_i in[i] |w[i][j]|
 * (w: n_in rows of n_out), for inputs in [0, in[i]] (or [0, in_max] when `in` is
 * NULL); 0 when every bound is at most SG_NET_MAX_BOUND, else -1.  Sums in double:
 * n_in * SG_NET_MAX_BOUND * FLT_MAX is far below DBL_MAX. */
static int layer_bound(double *bound, const double *in, double in_max, uint32_t n_in,
                       const float *w, const float *bias, uint32_t n_out)
{
    for (uint32_t j = 0; j < n_out; j++)
        bound[j] = fabs((double)bias[j]);
    for (uint32_t i = 0; i < n_in; i++) {
        const double x = in ? in[i] : in_max;
        const float *row = w + (size_t)i * n_out;
        for (uint32_t j = 0; j < n_out; j++)
            bound[j] += x * fabs((double)row[j]);
    }
    for (uint32_t j = 0; j < n_out; j++)
        if (!(bound[j] <= SG_NET_MAX_BOUND))
            return -1;
    return 0;
}

/* Whether every float the network computes, for any input in [0, SG_NET_INPUT_MAX],
 * stays within SG_NET_MAX_BOUND: each layer's outputs bounded from its inputs'
 * (relu keeps an output in [0, its bound]), a move's action units from the
 * policy's base, the largest kind row, the card count and every card row, and its
 * logit from those.  Float rounding adds at most a factor (1 + 2^-24)^k over k
 * sums (k < 8,000 here, so under 1.001), which the half of FLT_MAX left covers. */
static int bounded(const sg_net *net)
{
    double h1[SG_NET_MAX_WIDTH], h2[SG_NET_MAX_WIDTH], base[SG_NET_MAX_WIDTH], z[4];
    const uint32_t a = net->action;
    if (layer_bound(h1, NULL, SG_NET_INPUT_MAX, net->inputs, net->w1, net->b1, net->hidden1) ||
        layer_bound(h2, h1, 0.0, net->hidden1, net->w2, net->b2, net->hidden2) ||
        layer_bound(z, h2, 0.0, net->hidden2, net->wv, net->bv, 4) ||
        layer_bound(base, h2, 0.0, net->hidden2, net->wp, net->bp, a))
        return 0;
    double logit = 0.0;
    for (uint32_t j = 0; j < a; j++) {
        double kind = 0.0, cards = 0.0;
        for (unsigned k = 0; k <= SG_MOVE_KIND_PASS; k++)
            kind = fmax(kind, fabs((double)net->wk[(size_t)k * a + j]));
        for (unsigned c = 0; c < SG_NCARDS; c++)
            cards += fabs((double)net->wc[(size_t)c * a + j]);
        const double unit = base[j] + kind + (double)SG_NCARDS / 13.0 * fabs((double)net->wn[j]) +
                            cards;
        if (!(unit <= SG_NET_MAX_BOUND))
            return 0;
        logit += fabs((double)net->vp[j]) * unit;
    }
    if (!(logit <= SG_NET_MAX_BOUND))
        return 0;
    const uint32_t world_in = net->inputs + SG_NET_WORLD_PLANES * SG_NCARDS;
    return !layer_bound(h1, NULL, SG_NET_INPUT_MAX, world_in, net->u1, net->c1, net->world1) &&
           !layer_bound(h2, h1, 0.0, net->world1, net->u2, net->c2, net->world2) &&
           !layer_bound(z, h2, 0.0, net->world2, net->uv, net->cv, 4);
}

int sg_net_load(const uint8_t *bytes, size_t size, sg_net **out)
{
    *out = NULL;
    if (size < HEADER_BYTES)
        return SG_NET_ERROR_SIZE;
    if (memcmp(bytes, MAGIC, 7) != 0)
        return SG_NET_ERROR_MAGIC;
    if ((uint8_t)bytes[7] != SG_NET_FORMAT)
        return SG_NET_ERROR_FORMAT;
    for (size_t i = 40; i < HEADER_BYTES; i++)
        if (bytes[i] != 0)
            return SG_NET_ERROR_RESERVED;
    const uint32_t in = read_u32(bytes + 8), h1 = read_u32(bytes + 12);
    const uint32_t h2 = read_u32(bytes + 16), a = read_u32(bytes + 20);
    const uint32_t n_floats = read_u32(bytes + 24), checksum = read_u32(bytes + 28);
    const uint32_t w1 = read_u32(bytes + 32), w2 = read_u32(bytes + 36);
    if (in != (uint32_t)sg_tensor_size() || in > SG_NET_MAX_INPUTS)
        return SG_NET_ERROR_INPUTS;
    if (h1 == 0 || h1 > SG_NET_MAX_WIDTH || h2 == 0 || h2 > SG_NET_MAX_WIDTH || a == 0 ||
        a > SG_NET_MAX_WIDTH || w1 == 0 || w1 > SG_NET_MAX_WIDTH || w2 == 0 ||
        w2 > SG_NET_MAX_WIDTH || float_count(in, h1, h2, a, w1, w2) != n_floats)
        return SG_NET_ERROR_SHAPE;
    if ((size - HEADER_BYTES) / 4 != n_floats || (size - HEADER_BYTES) % 4 != 0)
        return SG_NET_ERROR_SIZE;
    if (sg_net_checksum(bytes + HEADER_BYTES, size - HEADER_BYTES) != checksum)
        return SG_NET_ERROR_CHECKSUM;
    sg_net *net = malloc(sizeof *net);
    float *data = malloc((size_t)n_floats * sizeof(float));
    if (!net || !data) {
        free(net);
        free(data);
        return SG_NET_ERROR_MEMORY;
    }
    for (uint32_t i = 0; i < n_floats; i++) {
        const uint32_t word = read_u32(bytes + HEADER_BYTES + 4 * (size_t)i);
        float value;
        memcpy(&value, &word, sizeof value); /* IEEE 754 single, stored little-endian */
        if (!isfinite(value)) {
            free(net);
            free(data);
            return SG_NET_ERROR_VALUE;
        }
        data[i] = value;
    }
    net->inputs = in;
    net->hidden1 = h1;
    net->hidden2 = h2;
    net->action = a;
    net->data = data;
    const float *p = data;
    net->w1 = p, p += (size_t)in * h1;
    net->b1 = p, p += h1;
    net->w2 = p, p += (size_t)h2 * h1;
    net->b2 = p, p += h2;
    net->wv = p, p += 4 * (size_t)h2;
    net->bv = p, p += 4;
    net->wp = p, p += (size_t)a * h2;
    net->bp = p, p += a;
    net->wc = p, p += (size_t)SG_NCARDS * a;
    net->wk = p, p += (size_t)(SG_MOVE_KIND_PASS + 1) * a;
    net->wn = p, p += a;
    net->vp = p, p += a;
    net->world1 = w1;
    net->world2 = w2;
    net->u1 = p, p += (size_t)(in + SG_NET_WORLD_PLANES * SG_NCARDS) * w1;
    net->c1 = p, p += w1;
    net->u2 = p, p += (size_t)w1 * w2;
    net->c2 = p, p += w2;
    net->uv = p, p += (size_t)w2 * 4;
    net->cv = p;
    if (!bounded(net)) {
        sg_net_free(net);
        return SG_NET_ERROR_RANGE;
    }
    *out = net;
    return SG_NET_ERROR_NONE;
}

void sg_net_free(sg_net *net)
{
    if (net) {
        free(net->data);
        free(net);
    }
}

void sg_net_shape(const sg_net *net, uint32_t shape[6])
{
    shape[0] = net->inputs;
    shape[1] = net->hidden1;
    shape[2] = net->hidden2;
    shape[3] = net->action;
    shape[4] = net->world1;
    shape[5] = net->world2;
}

/* out[0 .. n_out) = bias + in W (W: n_in rows of n_out), skipping zero inputs. */
static void layer(float *out, const float *in, uint32_t n_in, const float *w, const float *bias,
                  uint32_t n_out)
{
    memcpy(out, bias, n_out * sizeof(float));
    for (uint32_t i = 0; i < n_in; i++) {
        if (in[i] == 0.0f)
            continue;
        const float x = in[i];
        const float *row = w + (size_t)i * n_out;
        for (uint32_t j = 0; j < n_out; j++)
            out[j] += x * row[j];
    }
}

static void relu(float *v, uint32_t n)
{
    for (uint32_t j = 0; j < n; j++)
        v[j] = v[j] > 0.0f ? v[j] : 0.0f;
}

int sg_net_run(const sg_net *net, const sg_state *st, const sg_move *moves, int n,
               float *logits, double value[SG_MAX_PLAYERS])
{
    const uint8_t seat = st->to_move;
    const int players = st->rules.players;
    if (seat >= players)
        return SG_ERROR_SEAT;
    float x[SG_NET_MAX_INPUTS];
    float h1[SG_NET_MAX_WIDTH], h2[SG_NET_MAX_WIDTH], base[SG_NET_MAX_WIDTH];
    if (sg_observation_tensor(st, seat, 0, NULL, 0, x) != SG_ERROR_NONE)
        return SG_ERROR_SEAT;

    layer(h1, x, net->inputs, net->w1, net->b1, net->hidden1);
    relu(h1, net->hidden1);
    layer(h2, h1, net->hidden1, net->w2, net->b2, net->hidden2);
    relu(h2, net->hidden2);

    if (value) {
        float z[4];
        layer(z, h2, net->hidden2, net->wv, net->bv, 4);
        for (int p = 0; p < SG_MAX_PLAYERS; p++)
            value[p] = 1.0;
        for (int r = 0; r < players; r++)
            value[(seat + r) % players] = 1.0 / (1.0 + exp(-(double)z[r]));
        for (int i = 0; i < st->n_finished; i++) /* a seat that is out is safe */
            if (st->finished[i] < players)
                value[st->finished[i]] = 1.0;
    }

    if (logits && n > 0) {
        const uint32_t a = net->action;
        layer(base, h2, net->hidden2, net->wp, net->bp, a);
        for (int m = 0; m < n; m++) {
            float z[SG_NET_MAX_WIDTH];
            const uint64_t cards = SG_MOVE_CARDS(moves[m]);
            unsigned kind = SG_MOVE_KIND_OF(moves[m]);
            if (kind > SG_MOVE_KIND_PASS)
                kind = SG_MOVE_KIND_PASS;
            const float count = (float)sg_popcount(cards) / 13.0f;
            const float *wk = net->wk + (size_t)kind * a;
            for (uint32_t j = 0; j < a; j++)
                z[j] = base[j] + wk[j] + count * net->wn[j];
            for (uint64_t c = cards; c; c &= c - 1) {
                const float *wc = net->wc + (size_t)sg_card_index(sg_lowest(c)) * a;
                for (uint32_t j = 0; j < a; j++)
                    z[j] += wc[j];
            }
            float logit = 0.0f;
            for (uint32_t j = 0; j < a; j++)
                logit += z[j] > 0.0f ? net->vp[j] * z[j] : 0.0f;
            logits[m] = logit;
        }
    }
    return SG_ERROR_NONE;
}

int sg_net_world_features(const sg_state *st, float *out)
{
    const uint8_t seat = st->to_move;
    const int players = st->rules.players;
    if (seat >= players)
        return SG_ERROR_SEAT;
    if (sg_observation_tensor(st, seat, 0, NULL, 0, out) != SG_ERROR_NONE)
        return SG_ERROR_SEAT;
    float *hidden = out + sg_tensor_size();
    memset(hidden, 0, SG_NET_WORLD_PLANES * SG_NCARDS * sizeof(float));
    for (int r = 1; r < players; r++) {
        const int other = (seat + r) % players;
        sg_card_plane(hidden + (r - 1) * SG_NCARDS, st->hand[other] & ~st->known[other]);
    }
    for (int i = st->stock_top; i < st->stock_len; i++)
        if (st->stock[i] < 64 && st->stock[i] != st->upcard)
            sg_card_plane(hidden + 3 * SG_NCARDS, SG_CARD_BIT(st->stock[i]));
    if (st->hidden_card < 64)
        sg_card_plane(hidden + 4 * SG_NCARDS, SG_CARD_BIT(st->hidden_card));
    return SG_ERROR_NONE;
}

int sg_net_world_value(const sg_net *net, const sg_state *st, double value[SG_MAX_PLAYERS])
{
    float y[SG_NET_MAX_INPUTS + SG_NET_WORLD_PLANES * SG_NCARDS];
    float g1[SG_NET_MAX_WIDTH], g2[SG_NET_MAX_WIDTH], z[4];
    if (sg_net_world_features(st, y) != SG_ERROR_NONE)
        return SG_ERROR_SEAT;
    const uint8_t seat = st->to_move;
    const int players = st->rules.players;
    layer(g1, y, net->inputs + SG_NET_WORLD_PLANES * SG_NCARDS, net->u1, net->c1, net->world1);
    relu(g1, net->world1);
    layer(g2, g1, net->world1, net->u2, net->c2, net->world2);
    relu(g2, net->world2);
    layer(z, g2, net->world2, net->uv, net->cv, 4);
    for (int p = 0; p < SG_MAX_PLAYERS; p++)
        value[p] = 1.0;
    for (int r = 0; r < players; r++)
        value[(seat + r) % players] = 1.0 / (1.0 + exp(-(double)z[r]));
    for (int i = 0; i < st->n_finished; i++)
        if (st->finished[i] < players)
            value[st->finished[i]] = 1.0;
    return SG_ERROR_NONE;
}

int sg_net_best(const float *logits, int n)
{
    int best = 0;
    for (int i = 1; i < n; i++)
        if (logits[i] > logits[best])
            best = i;
    return best;
}

void sg_net_softmax(float *logits, int n, double temperature)
{
    if (n <= 0)
        return;
    const double t = temperature > 1e-6 ? temperature : 1e-6;
    float top = logits[0];
    for (int i = 1; i < n; i++)
        if (logits[i] > top)
            top = logits[i];
    double sum = 0.0;
    for (int i = 0; i < n; i++) {
        const double e = exp(((double)logits[i] - top) / t);
        logits[i] = (float)e;
        sum += e;
    }
    for (int i = 0; i < n; i++)
        logits[i] = (float)(logits[i] / sum);
}

/* ---- the network as a policy and an evaluation of skitgubbe_policy.h ---- */

int32_t sg_net_choose(const sg_position *pos, void *net)
{
    const sg_move *moves;
    const sg_state *st = sg_position_state(pos, &moves);
    const int n = pos->api->n_moves(pos);
    if (!st || !net)
        return -1;
    float logits[SG_MAX_MOVES];
    if (sg_net_run((const sg_net *)net, st, moves, n, logits, NULL) != SG_ERROR_NONE)
        return -2;
    return sg_net_best(logits, n);
}

int32_t sg_net_evaluate(const sg_position *pos, void *net, double value[4])
{
    const sg_move *moves;
    const sg_state *st = sg_position_state(pos, &moves);
    if (!st || !net)
        return -1;
    if (sg_net_world_value((const sg_net *)net, st, value) != SG_ERROR_NONE)
        return -2;
    return 1;
}
