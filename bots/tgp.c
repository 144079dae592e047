/*
 * tgp.c — strongly typed GP expressions for EvoMCTS (see tgp.h): the
 * terminal set of a game, evaluation, random trees, mutation, one- and
 * two-way crossover, printing and parsing. Nothing here allocates; every
 * buffer is a fixed array sized by TGP_MAX_NODES.
 *
 * Why not bots/gp.c: that engine evolves UCT selection formulae — one
 * type, a fixed set of four terminals over (Q, N, Nj), binary and unary
 * operators only, no per-node parameters — and sizes its arrays for a full
 * binary tree of height 10. EvoMCTS needs two types, a ternary IfTrue,
 * terminals with parameters (squares, constants), per-game feature sets,
 * per-node factors and depth 15; generalising gp.c for that would have
 * changed the EA bots' hot path and their tests, so the two share the ideas
 * (prefix order in one fixed array, shortest round-trip numbers) and not
 * the code.
 */
#include "tgp.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SAT 1e150 /* every F value is clamped to +-SAT: no inf, so no NaN */

typedef struct op_info {
    const char *name; /* NULL for FEATURE (named by the set) */
    uint8_t type;     /* return type */
    uint8_t arity;
    uint8_t arg[3]; /* operand types */
    uint8_t params; /* bracketed parameters: squares 2 (x, y), MultERC 1 */
} op_info;

static const op_info ops[TGP_NOPS] = {
    [TGP_ERC] = {"ERC", TGP_F, 0, {0}, 0},
    [TGP_ZERO] = {"Zero", TGP_F, 0, {0}, 0},
    [TGP_ONE] = {"One", TGP_F, 0, {0}, 0},
    [TGP_FEATURE] = {NULL, TGP_F, 0, {0}, 0},
    [TGP_TRUE] = {"True", TGP_B, 0, {0}, 0},
    [TGP_FALSE] = {"False", TGP_B, 0, {0}, 0},
    [TGP_EMPTY_SQ] = {"IsEmptySquare", TGP_B, 0, {0}, 2},
    [TGP_FRIENDLY_SQ] = {"IsFriendlyPiece", TGP_B, 0, {0}, 2},
    [TGP_MAN_SQ] = {"IsManPiece", TGP_B, 0, {0}, 2},
    [TGP_AND] = {"AND", TGP_B, 2, {TGP_B, TGP_B}, 0},
    [TGP_LE] = {"LowerEqual", TGP_B, 2, {TGP_F, TGP_F}, 0},
    [TGP_NAND] = {"NAND", TGP_B, 2, {TGP_B, TGP_B}, 0},
    [TGP_NOR] = {"NOR", TGP_B, 2, {TGP_B, TGP_B}, 0},
    [TGP_NOTG] = {"NOTG", TGP_B, 2, {TGP_B, TGP_B}, 0},
    [TGP_OR] = {"OR", TGP_B, 2, {TGP_B, TGP_B}, 0},
    [TGP_IF] = {"IfTrue", TGP_F, 3, {TGP_B, TGP_F, TGP_F}, 0},
    [TGP_MINUS] = {"Minus", TGP_F, 2, {TGP_F, TGP_F}, 0},
    [TGP_MULTERC] = {"MultERC", TGP_F, 1, {TGP_F}, 1},
    [TGP_NULLJ] = {"NullJ", TGP_F, 2, {TGP_F, TGP_F}, 0},
    [TGP_PLUS] = {"Plus", TGP_F, 2, {TGP_F, TGP_F}, 0},
};

static const uint8_t funcs_f[] = {TGP_IF, TGP_MINUS, TGP_MULTERC, TGP_NULLJ, TGP_PLUS};
static const uint8_t funcs_b[] = {TGP_AND, TGP_LE, TGP_NAND, TGP_NOR, TGP_NOTG, TGP_OR};

/* ---- the terminal set -------------------------------------------------------- */

void tgp_set_init(tgp_set *s, const eng_game *g)
{
    memset(s, 0, sizeof *s);
    s->g = g;
    if (g->eval_names && g->evaluate_named) {
        for (int i = 0; g->eval_names[i] && i < 32; i++) {
            const char *nm = g->eval_names[i];
            size_t len = strlen(nm);
            if (len + 9 > sizeof s->term[0].name)
                continue;
            if (strcmp(nm, "Mobility") == 0 && s->nterm < TGP_MAX_TERMS) {
                tgp_term *t = &s->term[s->nterm++];
                snprintf(t->name, sizeof t->name, "Mobility");
                t->eval = i;
                t->who = 0;
            } else if (len > 5 && strcmp(nm + len - 5, "Count") == 0 &&
                       s->nterm + 3 <= TGP_MAX_TERMS) {
                static const char *const prefix[3] = {"Friendly", "Enemy", ""};
                for (int w = 0; w < 3; w++) {
                    tgp_term *t = &s->term[s->nterm++];
                    snprintf(t->name, sizeof t->name, "%s%s", prefix[w], nm);
                    t->eval = i;
                    t->who = w;
                }
            }
        }
    }
    if (g->grid_cell && g->grid_w > 0 && g->grid_h > 0 && g->grid_w <= 255 && g->grid_h <= 255) {
        s->grid_w = g->grid_w;
        s->grid_h = g->grid_h;
    }
}

/* ---- evaluation ---------------------------------------------------------------- */

typedef struct ectx {
    const tgp_expr *e;
    const tgp_set *s;
    const void *st;
    int me;
    uint32_t have;     /* eval indices already computed */
    double val[32][2]; /* [eval][friendly, enemy] */
} ectx;

static double feature(ectx *c, int t)
{
    const tgp_term *tm = &c->s->term[t];
    int ev = tm->eval;
    if (!(c->have & (1u << ev))) {
        const eng_game *g = c->s->g;
        int np = eng_num_players(c->st);
        c->val[ev][0] = g->evaluate_named(c->st, c->me, ev);
        double best = -INFINITY;
        for (int p = 0; p < np; p++)
            if (p != c->me) {
                double v = g->evaluate_named(c->st, p, ev);
                if (v > best)
                    best = v;
            }
        c->val[ev][1] = np > 1 ? best : 0.0;
        c->have |= 1u << ev;
    }
    double f = c->val[ev][0], x = c->val[ev][1];
    return tm->who == 0 ? f : tm->who == 1 ? x : f - x;
}

static bool evb(ectx *c, int i);

static double evf(ectx *c, int i)
{
    const tgp_node *nd = &c->e->node[i];
    double v;
    int c1 = i + 1, c2 = c->e->node[c1 < c->e->n ? c1 : i].end;
    switch (nd->op) {
    case TGP_ERC: v = nd->k; break;
    case TGP_ZERO: v = 0; break;
    case TGP_ONE: v = 1; break;
    case TGP_FEATURE: v = feature(c, nd->a); break;
    case TGP_IF: v = evb(c, c1) ? evf(c, c2) : evf(c, c->e->node[c2].end); break;
    case TGP_MINUS: v = evf(c, c1) - evf(c, c2); break;
    case TGP_PLUS: v = evf(c, c1) + evf(c, c2); break;
    case TGP_MULTERC: v = nd->k * evf(c, c1); break;
    case TGP_NULLJ: v = evf(c, c1); break; /* the second operand is an intron */
    default: v = 0; break;                 /* not an F node: cannot happen when checked */
    }
    v *= nd->factor;
    return v > SAT ? SAT : v < -SAT ? -SAT : v == v ? v : 0.0;
}

static bool evb(ectx *c, int i)
{
    const tgp_node *nd = &c->e->node[i];
    int c1 = i + 1, c2 = c->e->node[c1 < c->e->n ? c1 : i].end;
    switch (nd->op) {
    case TGP_TRUE: return true;
    case TGP_FALSE: return false;
    case TGP_EMPTY_SQ: return c->s->g->grid_cell(c->st, nd->a, nd->b) == ENG_GRID_EMPTY;
    case TGP_FRIENDLY_SQ: return c->s->g->grid_cell(c->st, nd->a, nd->b) == c->me;
    case TGP_MAN_SQ: return c->s->g->grid_cell(c->st, nd->a, nd->b) >= 0;
    case TGP_AND: return evb(c, c1) && evb(c, c2);
    case TGP_NAND: return !(evb(c, c1) && evb(c, c2));
    case TGP_NOR: return !(evb(c, c1) || evb(c, c2));
    case TGP_OR: return evb(c, c1) || evb(c, c2);
    case TGP_NOTG: return !evb(c, c1); /* the second operand is an intron */
    case TGP_LE: return evf(c, c1) <= evf(c, c2);
    default: return false;
    }
}

double tgp_eval(const tgp_expr *e, const tgp_set *s, const void *st, int me)
{
    ectx c = {.e = e, .s = s, .st = st, .me = me};
    return evf(&c, 0);
}

/* ---- structure ------------------------------------------------------------------ */

/* Fix `end` from node i (of type want, at depth d); returns one past the
 * subtree, or -1. *maxd tracks the deepest node. Depth is bounded by the
 * node count, so the recursion is too. */
static int fix_from(tgp_expr *e, int i, int want, int d, int *maxd)
{
    if (i >= e->n || e->node[i].op >= TGP_NOPS)
        return -1;
    const op_info *o = &ops[e->node[i].op];
    if (o->type != want)
        return -1;
    if (d > *maxd)
        *maxd = d;
    int j = i + 1;
    for (int a = 0; a < o->arity; a++) {
        j = fix_from(e, j, o->arg[a], d + 1, maxd);
        if (j < 0)
            return -1;
    }
    e->node[i].end = (uint16_t)j;
    return j;
}

int tgp_fix(tgp_expr *e)
{
    int maxd = 0;
    if (e->n < 1 || e->n > TGP_MAX_NODES)
        return -1;
    int end = fix_from(e, 0, TGP_F, 0, &maxd);
    return end == e->n ? maxd : -1;
}

int tgp_depth(const tgp_expr *e)
{
    tgp_expr tmp;
    tmp.n = e->n;
    memcpy(tmp.node, e->node, (size_t)e->n * sizeof e->node[0]);
    return tgp_fix(&tmp);
}

bool tgp_check(const tgp_expr *e, const tgp_set *s, int max_depth)
{
    int d = tgp_depth(e);
    if (d < 0 || d > max_depth)
        return false;
    for (int i = 0; i < e->n; i++) {
        const tgp_node *nd = &e->node[i];
        if (!isfinite(nd->k) || !isfinite(nd->factor))
            return false;
        if (nd->op == TGP_FEATURE && nd->a >= s->nterm)
            return false;
        if (ops[nd->op].params == 2 && (nd->a >= s->grid_w || nd->b >= s->grid_h))
            return false;
    }
    return true;
}

/* Depth, height and type of every node. */
static void layout(const tgp_expr *e, uint8_t *depth, uint8_t *height)
{
    /* heights bottom-up: prefix order read backwards sees children first */
    for (int i = e->n - 1; i >= 0; i--) {
        int h = 0;
        for (int j = i + 1; j < e->node[i].end; j = e->node[j].end)
            if (height[j] + 1 > h)
                h = height[j] + 1;
        height[i] = (uint8_t)h;
    }
    depth[0] = 0;
    for (int i = 0; i < e->n; i++)
        for (int j = i + 1; j < e->node[i].end; j = e->node[j].end)
            depth[j] = (uint8_t)(depth[i] + 1);
}

/* Replace the subtree at `at` by sub[0..subn); false when it would not fit. */
static bool replace(tgp_expr *e, int at, const tgp_node *sub, int subn)
{
    int end = e->node[at].end, n = e->n - (end - at) + subn;
    if (n > TGP_MAX_NODES)
        return false;
    memmove(&e->node[at + subn], &e->node[end], (size_t)(e->n - end) * sizeof e->node[0]);
    memcpy(&e->node[at], sub, (size_t)subn * sizeof sub[0]);
    e->n = (uint16_t)n;
    tgp_fix(e);
    return true;
}

/* ---- random trees ----------------------------------------------------------------- */

typedef struct builder {
    tgp_node node[2048];
    int n;
    bool overflow;
} builder;

static double uniform(eng_rng *rng, double lo, double hi)
{
    return lo + (hi - lo) * eng_rng_double(rng);
}

static void put_terminal(builder *b, const tgp_set *s, eng_rng *rng, int type)
{
    tgp_node nd = {.factor = 1.0};
    if (type == TGP_F) {
        int k = (int)eng_rng_below(rng, 3u + (uint32_t)s->nterm);
        if (k == 0) {
            nd.op = TGP_ERC;
            nd.k = uniform(rng, -TGP_ERC_RANGE, TGP_ERC_RANGE);
        } else if (k <= 2) {
            nd.op = k == 1 ? TGP_ZERO : TGP_ONE;
        } else {
            nd.op = TGP_FEATURE;
            nd.a = (uint8_t)(k - 3);
        }
    } else {
        int k = (int)eng_rng_below(rng, 2u + (s->grid_w ? 3u : 0u));
        if (k < 2) {
            nd.op = k == 0 ? TGP_TRUE : TGP_FALSE;
        } else {
            nd.op = (uint8_t)(TGP_EMPTY_SQ + (k - 2));
            nd.a = (uint8_t)eng_rng_below(rng, (uint32_t)s->grid_w);
            nd.b = (uint8_t)eng_rng_below(rng, (uint32_t)s->grid_h);
        }
    }
    if (b->n >= (int)(sizeof b->node / sizeof b->node[0])) {
        b->overflow = true;
        return;
    }
    b->node[b->n++] = nd;
}

static void build(builder *b, const tgp_set *s, eng_rng *rng, int type, int depth, bool full)
{
    int nt = type == TGP_F ? 3 + s->nterm : 2 + (s->grid_w ? 3 : 0);
    int nf = type == TGP_F ? (int)sizeof funcs_f : (int)sizeof funcs_b;
    bool func = depth > 0 && (full || (int)eng_rng_below(rng, (uint32_t)(nt + nf)) >= nt);
    if (!func || b->overflow) {
        put_terminal(b, s, rng, type);
        return;
    }
    int op = type == TGP_F ? funcs_f[eng_rng_below(rng, (uint32_t)nf)]
                           : funcs_b[eng_rng_below(rng, (uint32_t)nf)];
    if (b->n >= (int)(sizeof b->node / sizeof b->node[0])) {
        b->overflow = true;
        return;
    }
    tgp_node nd = {.op = (uint8_t)op, .factor = 1.0};
    if (op == TGP_MULTERC)
        nd.k = uniform(rng, -TGP_ERC_RANGE, TGP_ERC_RANGE);
    b->node[b->n++] = nd;
    for (int a = 0; a < ops[op].arity; a++)
        build(b, s, rng, ops[op].arg[a], depth - 1, full);
}

/* A random tree of `type` into b that fits `room` nodes (shallower retries). */
static void build_fit(builder *b, const tgp_set *s, eng_rng *rng, int type, int depth, bool full,
                      int room)
{
    for (;; depth--) {
        b->n = 0;
        b->overflow = false;
        build(b, s, rng, type, depth < 0 ? 0 : depth, full);
        if (!b->overflow && b->n <= room)
            return;
    }
}

void tgp_random(tgp_expr *e, const tgp_set *s, eng_rng *rng, int depth, bool full)
{
    static _Thread_local builder b;
    build_fit(&b, s, rng, TGP_F, depth, full, TGP_MAX_NODES);
    e->n = (uint16_t)b.n;
    memcpy(e->node, b.node, (size_t)b.n * sizeof b.node[0]);
    tgp_fix(e);
}

void tgp_zero(tgp_expr *e)
{
    memset(&e->node[0], 0, sizeof e->node[0]);
    e->n = 1;
    e->node[0].op = TGP_ZERO;
    e->node[0].factor = 1.0;
    e->node[0].end = 1;
}

/* ---- genetic operators ---------------------------------------------------------------- */

bool tgp_mutate(tgp_expr *e, const tgp_set *s, eng_rng *rng, int max_depth, double p_local)
{
    uint8_t depth[TGP_MAX_NODES], height[TGP_MAX_NODES];
    layout(e, depth, height);
    int i = (int)eng_rng_below(rng, e->n);
    int type = ops[e->node[i].op].type;
    if (type == TGP_F && eng_rng_double(rng) < p_local) {
        e->node[i].factor += uniform(rng, -TGP_LOCAL_STEP, TGP_LOCAL_STEP);
        return true;
    }
    int room = max_depth - depth[i];
    if (room > TGP_MUT_DEPTH)
        room = TGP_MUT_DEPTH;
    if (room < 0)
        room = 0;
    static _Thread_local builder b;
    int size = e->node[i].end - i;
    build_fit(&b, s, rng, type, (int)eng_rng_below(rng, (uint32_t)room + 1), false,
              TGP_MAX_NODES - e->n + size);
    replace(e, i, b.node, b.n);
    return false;
}

bool tgp_cross_one_way(const tgp_expr *donor, tgp_expr *recv, eng_rng *rng, int max_depth)
{
    uint8_t dd[TGP_MAX_NODES], dh[TGP_MAX_NODES], rd[TGP_MAX_NODES], rh[TGP_MAX_NODES];
    uint16_t cand[TGP_MAX_NODES];
    layout(donor, dd, dh);
    layout(recv, rd, rh);
    for (int tries = 0; tries < 16; tries++) {
        int i = (int)eng_rng_below(rng, donor->n);
        int type = ops[donor->node[i].op].type, size = donor->node[i].end - i, nc = 0;
        for (int j = 0; j < recv->n; j++)
            if (ops[recv->node[j].op].type == type && rd[j] + dh[i] <= max_depth &&
                recv->n - (recv->node[j].end - j) + size <= TGP_MAX_NODES)
                cand[nc++] = (uint16_t)j;
        if (!nc)
            continue;
        int j = cand[eng_rng_below(rng, (uint32_t)nc)];
        return replace(recv, j, &donor->node[i], size);
    }
    return false;
}

bool tgp_cross_two_way(tgp_expr *a, tgp_expr *b, eng_rng *rng, int max_depth)
{
    uint8_t ad[TGP_MAX_NODES], ah[TGP_MAX_NODES], bd[TGP_MAX_NODES], bh[TGP_MAX_NODES];
    uint16_t cand[TGP_MAX_NODES];
    layout(a, ad, ah);
    layout(b, bd, bh);
    for (int tries = 0; tries < 16; tries++) {
        int i = (int)eng_rng_below(rng, a->n);
        int type = ops[a->node[i].op].type, asz = a->node[i].end - i, nc = 0;
        for (int j = 0; j < b->n; j++) {
            int bsz = b->node[j].end - j;
            if (ops[b->node[j].op].type == type && ad[i] + bh[j] <= max_depth &&
                bd[j] + ah[i] <= max_depth && a->n - asz + bsz <= TGP_MAX_NODES &&
                b->n - bsz + asz <= TGP_MAX_NODES)
                cand[nc++] = (uint16_t)j;
        }
        if (!nc)
            continue;
        int j = cand[eng_rng_below(rng, (uint32_t)nc)];
        static _Thread_local tgp_node tmp[TGP_MAX_NODES];
        int bsz = b->node[j].end - j;
        memcpy(tmp, &a->node[i], (size_t)asz * sizeof tmp[0]);
        replace(a, i, &b->node[j], bsz);
        replace(b, j, tmp, asz);
        return true;
    }
    return false;
}

/* ---- printing ---------------------------------------------------------------------------- */

typedef struct writer {
    char *buf;
    size_t cap, len;
} writer;

static void wr(writer *w, const char *s)
{
    size_t n = strlen(s);
    if (w->len < w->cap) {
        size_t room = w->cap - w->len - 1, k = n < room ? n : room;
        memcpy(w->buf + w->len, s, k);
        w->buf[w->len + k] = 0;
    }
    w->len += n;
}

/* The shortest %g form of v that reads back as v. */
static void fmt_number(double v, char *out, size_t cap)
{
    for (int p = 1; p <= 17; p++) {
        snprintf(out, cap, "%.*g", p, v);
        if (strtod(out, NULL) == v)
            return;
    }
}

static int emit(writer *w, const tgp_expr *e, const tgp_set *s, int i)
{
    const tgp_node *nd = &e->node[i];
    const op_info *o = &ops[nd->op];
    char num[64];
    if (nd->op == TGP_ERC) {
        fmt_number(nd->k, num, sizeof num);
        wr(w, num);
    } else {
        wr(w, nd->op == TGP_FEATURE ? s->term[nd->a].name : o->name);
        if (o->params == 2) {
            snprintf(num, sizeof num, "[%d,%d]", nd->a, nd->b);
            wr(w, num);
        } else if (o->params == 1) {
            wr(w, "[");
            fmt_number(nd->k, num, sizeof num);
            wr(w, num);
            wr(w, "]");
        }
        wr(w, "(");
        int j = i + 1;
        for (int a = 0; a < o->arity; a++) {
            if (a)
                wr(w, ", ");
            j = emit(w, e, s, j);
        }
        wr(w, ")");
    }
    if (o->type == TGP_F && nd->factor != 1.0) {
        fmt_number(nd->factor, num, sizeof num);
        wr(w, "*");
        wr(w, num);
    }
    return nd->end;
}

int tgp_print(const tgp_expr *e, const tgp_set *s, char *buf, size_t cap)
{
    writer w = {buf, cap, 0};
    if (cap)
        buf[0] = 0;
    tgp_expr tmp;
    tmp.n = e->n;
    memcpy(tmp.node, e->node, (size_t)e->n * sizeof e->node[0]);
    if (tgp_fix(&tmp) < 0) {
        wr(&w, "(malformed)");
        return (int)w.len;
    }
    emit(&w, &tmp, s, 0);
    return (int)w.len;
}

/* ---- parsing ------------------------------------------------------------------------------ */

typedef struct parser {
    const char *text, *p;
    const tgp_set *s;
    tgp_expr *e;
    char *err;
    size_t errcap;
    int rc;
} parser;

static void perr(parser *ps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void perr(parser *ps, const char *fmt, ...)
{
    if (ps->rc)
        return;
    ps->rc = ENG_EINVAL;
    int line = 1, col = 1;
    for (const char *q = ps->text; q < ps->p; q++) {
        if (*q == '\n') {
            line++;
            col = 1;
        } else {
            col++;
        }
    }
    if (!ps->err || !ps->errcap)
        return;
    int k = snprintf(ps->err, ps->errcap, "line %d, column %d: ", line, col);
    if (k < 0 || (size_t)k >= ps->errcap)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ps->err + k, ps->errcap - (size_t)k, fmt, ap);
    va_end(ap);
}

static void skip_ws(parser *ps)
{
    while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r')
        ps->p++;
}

static bool number(parser *ps, double *v)
{
    skip_ws(ps);
    const char *q = ps->p;
    if (!((*q >= '0' && *q <= '9') || *q == '-' || *q == '+' || *q == '.')) {
        perr(ps, "a number is expected");
        return false;
    }
    char *end;
    *v = strtod(q, &end);
    if (end == q || !isfinite(*v)) {
        perr(ps, "a finite number is expected");
        return false;
    }
    ps->p = end;
    return true;
}

static bool expect(parser *ps, char c)
{
    skip_ws(ps);
    if (*ps->p != c) {
        perr(ps, "'%c' is expected", c);
        return false;
    }
    ps->p++;
    return true;
}

static const char *const type_name[2] = {"a number", "a boolean"};

static void parse_node(parser *ps, int want, int depth)
{
    if (ps->rc)
        return;
    if (depth > TGP_DEPTH_LIMIT) {
        perr(ps, "nested deeper than %d", TGP_DEPTH_LIMIT);
        return;
    }
    tgp_expr *e = ps->e;
    if (e->n >= TGP_MAX_NODES) {
        perr(ps, "more than %d nodes", TGP_MAX_NODES);
        return;
    }
    skip_ws(ps);
    int at = e->n;
    tgp_node *nd = &e->node[at];
    memset(nd, 0, sizeof *nd);
    nd->factor = 1.0;
    const char *q = ps->p;
    if (!*q) {
        perr(ps, "an expression is expected where the text ends");
        return;
    }
    if ((*q >= '0' && *q <= '9') || *q == '-' || *q == '+' || *q == '.') {
        if (want != TGP_F) {
            perr(ps, "a number where a boolean is expected");
            return;
        }
        nd->op = TGP_ERC;
        if (!number(ps, &nd->k))
            return;
        e->n++;
    } else {
        size_t len = 0;
        while ((q[len] >= 'A' && q[len] <= 'Z') || (q[len] >= 'a' && q[len] <= 'z') ||
               (q[len] >= '0' && q[len] <= '9' && len > 0) || q[len] == '_')
            len++;
        int op = -1, term = -1;
        for (int k = 0; k < TGP_NOPS && op < 0; k++)
            if (ops[k].name && k != TGP_ERC && strlen(ops[k].name) == len &&
                strncmp(ops[k].name, q, len) == 0)
                op = k;
        for (int t = 0; t < ps->s->nterm && op < 0; t++)
            if (strlen(ps->s->term[t].name) == len && strncmp(ps->s->term[t].name, q, len) == 0) {
                op = TGP_FEATURE;
                term = t;
            }
        if (op < 0 || len == 0) {
            /* the name is not echoed: the text may be any file */
            perr(ps, "not a name of this game's terminal and function set");
            return;
        }
        if ((op == TGP_EMPTY_SQ || op == TGP_FRIENDLY_SQ || op == TGP_MAN_SQ) && !ps->s->grid_w) {
            perr(ps, "%s needs a board grid, which this game does not have", ops[op].name);
            return;
        }
        const char *shown = op == TGP_FEATURE ? ps->s->term[term].name : ops[op].name;
        if (ops[op].type != want) {
            perr(ps, "%s gives %s where %s is expected", shown, type_name[ops[op].type],
                 type_name[want]);
            return;
        }
        ps->p += len;
        nd->op = (uint8_t)op;
        if (term >= 0)
            nd->a = (uint8_t)term;
        if (ops[op].params) {
            if (!expect(ps, '['))
                return;
            if (ops[op].params == 1) {
                if (!number(ps, &nd->k))
                    return;
            } else {
                double x, y;
                if (!number(ps, &x) || !expect(ps, ',') || !number(ps, &y))
                    return;
                if (x != floor(x) || y != floor(y) || x < 0 || y < 0 || x >= ps->s->grid_w ||
                    y >= ps->s->grid_h) {
                    perr(ps, "%s's square must be integers x in 0..%d, y in 0..%d", shown,
                         ps->s->grid_w - 1, ps->s->grid_h - 1);
                    return;
                }
                nd->a = (uint8_t)x;
                nd->b = (uint8_t)y;
            }
            if (!expect(ps, ']'))
                return;
        }
        e->n++;
        skip_ws(ps);
        if (ops[op].arity == 0) {
            if (*ps->p == '(') { /* "()" after a terminal is optional */
                ps->p++;
                if (!expect(ps, ')'))
                    return;
            }
        } else {
            if (!expect(ps, '('))
                return;
            for (int a = 0; a < ops[op].arity; a++) {
                if (a && !expect(ps, ','))
                    return;
                parse_node(ps, ops[op].arg[a], depth + 1);
                if (ps->rc)
                    return;
            }
            if (!expect(ps, ')'))
                return;
        }
    }
    skip_ws(ps);
    if (*ps->p == '*') {
        if (want != TGP_F) {
            perr(ps, "a factor '*' on a boolean");
            return;
        }
        ps->p++;
        if (!number(ps, &e->node[at].factor))
            return;
    }
    e->node[at].end = e->n;
}

int tgp_parse(tgp_expr *e, const tgp_set *s, const char *text, char *err, size_t errcap)
{
    parser ps = {.text = text, .p = text, .s = s, .e = e, .err = err, .errcap = errcap};
    e->n = 0;
    if (strlen(text) > TGP_TEXT_MAX) {
        perr(&ps, "longer than %d characters", TGP_TEXT_MAX);
        return ps.rc;
    }
    parse_node(&ps, TGP_F, 0);
    skip_ws(&ps);
    if (!ps.rc && *ps.p)
        perr(&ps, "text after the end of the expression");
    if (!ps.rc && tgp_fix(e) < 0)
        perr(&ps, "not one expression");
    if (ps.rc)
        tgp_zero(e);
    return ps.rc;
}
