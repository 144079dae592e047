/*
 * gp.c — GP expressions for the evolved selection formulae (see gp.h):
 * the interpreter, the UCT seed, subtree mutation, infix printing and
 * parsing. Nothing here allocates; every buffer is a fixed array sized by
 * GP_MAX_NODES.
 */
#include "gp.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const gp_names[GP_NOPS] = {"Q", "N", "Nj", "K",   "+",
                                              "-", "*", "/",  "log", "sqrt"};

int gp_arity(int op)
{
    if (op >= GP_ADD && op <= GP_DIV)
        return 2;
    if (op == GP_LOG || op == GP_SQRT)
        return 1;
    return 0;
}

/* ---- evaluation ------------------------------------------------------------- */

double gp_pdiv(double a, double b)
{
    return fabs(b) < GP_PROTECT ? 1.0 : a / b;
}

double gp_plog(double x)
{
    double m = fabs(x);
    return log(m < GP_PROTECT ? GP_PROTECT : m);
}

double gp_psqrt(double x)
{
    return sqrt(fabs(x));
}

/* Clamp into [-GP_BIG, GP_BIG]; a NaN input (never produced by the
 * operators on clamped operands) becomes 0. */
static inline double sat(double v)
{
    if (v > GP_BIG)
        return GP_BIG;
    if (v < -GP_BIG)
        return -GP_BIG;
    return v == v ? v : 0.0;
}

double gp_eval(const gp_expr *e, double q, double n, double nj)
{
    /* Prefix order read backwards is postfix with the operands swapped:
     * at an operator, the stack top is its left operand. A stack entry is
     * a completed subtree, so the stack never holds more than the leaves. */
    double st[GP_MAX_NODES / 2 + 2];
    int sp = 0;
    q = sat(q);
    n = sat(n);
    nj = sat(nj);
    for (int i = (int)e->n - 1; i >= 0; i--) {
        double v, a, b;
        switch (e->op[i]) {
        case GP_Q: v = q; break;
        case GP_N: v = n; break;
        case GP_NJ: v = nj; break;
        case GP_K: v = e->k[i]; break;
        case GP_ADD:
            a = st[--sp];
            b = st[--sp];
            v = a + b;
            break;
        case GP_SUB:
            a = st[--sp];
            b = st[--sp];
            v = a - b;
            break;
        case GP_MUL:
            a = st[--sp];
            b = st[--sp];
            v = a * b;
            break;
        case GP_DIV:
            a = st[--sp];
            b = st[--sp];
            v = gp_pdiv(a, b);
            break;
        case GP_LOG: v = gp_plog(st[--sp]); break;
        case GP_SQRT: v = gp_psqrt(st[--sp]); break;
        default: v = 0.0; break; /* cannot happen in a checked tree */
        }
        st[sp++] = sat(v);
    }
    return sp == 1 ? st[0] : 0.0;
}

double gp_score(void *ud, double q, double n, double nj)
{
    return gp_eval((const gp_expr *)ud, q, n, nj);
}

/* ---- building ------------------------------------------------------------------ */

static void put(gp_expr *e, int op, double k)
{
    e->op[e->n] = (uint8_t)op;
    e->k[e->n] = op == GP_K ? k : 0.0;
    e->n++;
}

void gp_seed_uct(gp_expr *e, double k)
{
    /* Q + ((2 * K) * sqrt((2 * log(N)) / Nj)), in prefix order */
    e->n = 0;
    put(e, GP_ADD, 0);
    put(e, GP_Q, 0);
    put(e, GP_MUL, 0);
    put(e, GP_MUL, 0);
    put(e, GP_K, 2.0);
    put(e, GP_K, k);
    put(e, GP_SQRT, 0);
    put(e, GP_DIV, 0);
    put(e, GP_MUL, 0);
    put(e, GP_K, 2.0);
    put(e, GP_LOG, 0);
    put(e, GP_N, 0);
    put(e, GP_NJ, 0);
}

void gp_copy(gp_expr *dst, const gp_expr *src)
{
    dst->n = src->n;
    memcpy(dst->op, src->op, src->n * sizeof src->op[0]);
    memcpy(dst->k, src->k, src->n * sizeof src->k[0]);
}

/* Depth of every node into depth[] (may be NULL); returns the height, or -1
 * when the nodes do not form exactly one tree. The stack holds the open
 * ancestors of the next node with their number of operands still to come. */
static int layout(const gp_expr *e, uint8_t *depth)
{
    uint8_t rem[GP_MAX_NODES];
    int sp = 0, height = 0;
    if (e->n < 1 || e->n > GP_MAX_NODES)
        return -1;
    for (int i = 0; i < e->n; i++) {
        if (i > 0 && sp == 0)
            return -1; /* nodes after a complete tree */
        if (e->op[i] >= GP_NOPS)
            return -1;
        if (depth)
            depth[i] = (uint8_t)(sp > 255 ? 255 : sp);
        if (sp > height)
            height = sp;
        if (sp > 0)
            rem[sp - 1]--;
        int a = gp_arity(e->op[i]);
        if (a > 0) {
            rem[sp++] = (uint8_t)a;
        } else {
            while (sp > 0 && rem[sp - 1] == 0)
                sp--;
        }
    }
    return sp == 0 ? height : -1;
}

int gp_height(const gp_expr *e)
{
    return layout(e, NULL);
}

bool gp_check(const gp_expr *e, int max_depth)
{
    int h = layout(e, NULL);
    if (h < 0 || h > max_depth)
        return false;
    for (int i = 0; i < e->n; i++)
        if (e->op[i] == GP_K && !isfinite(e->k[i]))
            return false;
    return true;
}

/* Index one past the subtree rooted at i (e is well-formed). */
static int subtree_end(const gp_expr *e, int i)
{
    int need = 1;
    while (need > 0)
        need += gp_arity(e->op[i++]) - 1;
    return i;
}

/* ---- mutation --------------------------------------------------------------------- */

/* Append a random full tree of height h to e (the "full" method: operators
 * above depth h, terminals at depth h). */
static void grow_full(gp_expr *e, int h, eng_rng *rng, const double *kset, int nk)
{
    if (h == 0) {
        int t = (int)eng_rng_below(rng, GP_NTERMINALS);
        put(e, t, t == GP_K ? kset[eng_rng_below(rng, (uint32_t)nk)] : 0.0);
        return;
    }
    int f = GP_ADD + (int)eng_rng_below(rng, GP_NFUNCTIONS);
    put(e, f, 0);
    for (int a = gp_arity(f); a > 0; a--)
        grow_full(e, h - 1, rng, kset, nk);
}

gp_mutation gp_mutate(gp_expr *e, eng_rng *rng, const double *kset, int nk, int max_depth,
                      double p_internal)
{
    uint8_t depth[GP_MAX_NODES];
    uint16_t inner[GP_MAX_NODES], leaves[GP_MAX_NODES];
    int ninner = 0, nleaf = 0;
    layout(e, depth);
    for (int i = 0; i < e->n; i++) {
        if (depth[i] > max_depth - 1)
            continue; /* no room below it for a subtree of height >= 1 */
        if (gp_arity(e->op[i]))
            inner[ninner++] = (uint16_t)i;
        else
            leaves[nleaf++] = (uint16_t)i;
    }
    bool want_inner = eng_rng_double(rng) < p_internal;
    if (want_inner && ninner == 0)
        want_inner = false;
    else if (!want_inner && nleaf == 0)
        want_inner = true;
    gp_mutation mu;
    mu.at = want_inner ? inner[eng_rng_below(rng, (uint32_t)ninner)]
                       : leaves[eng_rng_below(rng, (uint32_t)nleaf)];
    mu.depth = depth[mu.at];
    mu.leaf = !want_inner;
    int hmax = max_depth - mu.depth;
    if (hmax > GP_SUB_MAX_HEIGHT)
        hmax = GP_SUB_MAX_HEIGHT;
    mu.height = 1 + (int)eng_rng_below(rng, (uint32_t)hmax);

    gp_expr sub; /* at most 2^(GP_SUB_MAX_HEIGHT+1) - 1 nodes are used */
    sub.n = 0;
    grow_full(&sub, mu.height, rng, kset, nk);

    int end = subtree_end(e, mu.at);
    int tail = e->n - end;
    int at2 = mu.at + sub.n;
    /* The new tree's height is <= max_depth <= GP_MAX_DEPTH, so it fits. */
    memmove(&e->op[at2], &e->op[end], (size_t)tail * sizeof e->op[0]);
    memmove(&e->k[at2], &e->k[end], (size_t)tail * sizeof e->k[0]);
    memcpy(&e->op[mu.at], sub.op, sub.n * sizeof e->op[0]);
    memcpy(&e->k[mu.at], sub.k, sub.n * sizeof e->k[0]);
    e->n = (uint16_t)(at2 + tail);
    return mu;
}

/* ---- infix printing -------------------------------------------------------------- */

typedef struct writer {
    char *buf;
    size_t cap;
    size_t len; /* length needed so far (may exceed cap) */
} writer;

static void wr(writer *w, const char *s)
{
    size_t n = strlen(s);
    if (w->len < w->cap) {
        size_t room = w->cap - w->len - 1;
        size_t k = n < room ? n : room;
        memcpy(w->buf + w->len, s, k);
        w->buf[w->len + k] = 0;
    }
    w->len += n;
}

static int prec(int op)
{
    if (op == GP_ADD || op == GP_SUB)
        return 1;
    if (op == GP_MUL || op == GP_DIV)
        return 2;
    return 3; /* terminals and function calls are atoms */
}

/* The shortest %g form of v that reads back as v (at most 17 digits),
 * never shorter than its integer part (10, not 1e+01). */
static void fmt_number(double v, char *out, size_t cap)
{
    int p = 1;
    if (fabs(v) >= 10)
        p = (int)floor(log10(fabs(v))) + 1;
    if (p > 17)
        p = 17;
    for (; p <= 17; p++) {
        snprintf(out, cap, "%.*g", p, v);
        if (strtod(out, NULL) == v)
            return;
    }
}

static int emit(writer *w, const gp_expr *e, int i)
{
    int op = e->op[i];
    switch (gp_arity(op)) {
    case 0:
        if (op == GP_K) {
            char num[40];
            fmt_number(e->k[i], num, sizeof num);
            if (e->k[i] < 0) {
                wr(w, "(");
                wr(w, num);
                wr(w, ")");
            } else {
                wr(w, num);
            }
        } else {
            wr(w, gp_names[op]);
        }
        return i + 1;
    case 1: {
        wr(w, gp_names[op]);
        wr(w, "(");
        int j = emit(w, e, i + 1);
        wr(w, ")");
        return j;
    }
    default: {
        bool pl = prec(e->op[i + 1]) < prec(op);
        if (pl)
            wr(w, "(");
        int j = emit(w, e, i + 1);
        if (pl)
            wr(w, ")");
        wr(w, " ");
        wr(w, gp_names[op]);
        wr(w, " ");
        bool pr = prec(e->op[j]) <= prec(op);
        if (pr)
            wr(w, "(");
        j = emit(w, e, j);
        if (pr)
            wr(w, ")");
        return j;
    }
    }
}

int gp_to_infix(const gp_expr *e, char *buf, size_t cap)
{
    writer w = {buf, cap, 0};
    if (cap)
        buf[0] = 0;
    if (gp_height(e) < 0) {
        wr(&w, "(malformed)");
        return (int)w.len;
    }
    emit(&w, e, 0);
    if (w.len >= cap && cap >= 4)
        memcpy(buf + cap - 4, "...", 4);
    return (int)w.len;
}

/* ---- parsing ------------------------------------------------------------------------ */

#define GP_PARSE_NEST 64 /* deepest parenthesis / call nesting accepted */

typedef struct parser {
    const char *s;
    gp_expr *e;
    int nest;
    bool bad;
} parser;

static void skip(parser *p)
{
    while (*p->s == ' ' || *p->s == '\t' || *p->s == '\n')
        p->s++;
}

/* Insert an operator at index `at`, shifting the nodes after it. */
static void insert_op(parser *p, int at, int op)
{
    gp_expr *e = p->e;
    if (e->n >= GP_MAX_NODES) {
        p->bad = true;
        return;
    }
    memmove(&e->op[at + 1], &e->op[at], (size_t)(e->n - at) * sizeof e->op[0]);
    memmove(&e->k[at + 1], &e->k[at], (size_t)(e->n - at) * sizeof e->k[0]);
    e->op[at] = (uint8_t)op;
    e->k[at] = 0.0;
    e->n++;
}

static void append(parser *p, int op, double k)
{
    if (p->e->n >= GP_MAX_NODES) {
        p->bad = true;
        return;
    }
    put(p->e, op, k);
}

static void parse_expr(parser *p);

static void parse_factor(parser *p)
{
    skip(p);
    if (p->bad)
        return;
    const char *s = p->s;
    if (*s == '(') {
        if (++p->nest > GP_PARSE_NEST) {
            p->bad = true;
            return;
        }
        p->s++;
        parse_expr(p);
        skip(p);
        if (*p->s != ')') {
            p->bad = true;
            return;
        }
        p->s++;
        p->nest--;
        return;
    }
    if ((*s >= '0' && *s <= '9') || *s == '.' || *s == '-') {
        char *end;
        double v = strtod(s, &end);
        if (end == s || !isfinite(v)) {
            p->bad = true;
            return;
        }
        p->s = end;
        append(p, GP_K, v);
        return;
    }
    size_t n = 0;
    while ((s[n] >= 'a' && s[n] <= 'z') || (s[n] >= 'A' && s[n] <= 'Z'))
        n++;
    for (int op = GP_Q; op < GP_NOPS; op++) {
        if (op == GP_K || gp_arity(op) == 2 || strlen(gp_names[op]) != n ||
            strncmp(s, gp_names[op], n) != 0)
            continue;
        p->s += n;
        append(p, op, 0);
        if (gp_arity(op) == 1) {
            skip(p);
            if (*p->s != '(') {
                p->bad = true;
                return;
            }
            parse_factor(p); /* the parenthesised argument */
        }
        return;
    }
    p->bad = true;
}

static void parse_term(parser *p)
{
    int start = p->e->n;
    parse_factor(p);
    for (;;) {
        skip(p);
        if (p->bad || (*p->s != '*' && *p->s != '/'))
            return;
        int op = *p->s == '*' ? GP_MUL : GP_DIV;
        p->s++;
        insert_op(p, start, op);
        parse_factor(p);
    }
}

static void parse_expr(parser *p)
{
    int start = p->e->n;
    parse_term(p);
    for (;;) {
        skip(p);
        if (p->bad || (*p->s != '+' && *p->s != '-'))
            return;
        int op = *p->s == '+' ? GP_ADD : GP_SUB;
        p->s++;
        insert_op(p, start, op);
        parse_term(p);
    }
}

int gp_parse(gp_expr *e, const char *s)
{
    parser p = {s, e, 0, false};
    e->n = 0;
    parse_expr(&p);
    skip(&p);
    if (p.bad || *p.s || !gp_check(e, GP_MAX_DEPTH))
        return -1;
    return 0;
}
