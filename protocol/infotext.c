/*
 * infotext.c — the info message read from its text and written back in its
 * canonical form, without a JSON tree (contract and reasons in infotext.h).
 * A recursive descent over the one shape, bounded: the message at most
 * INFO_MAX_BYTES, nesting at most INFO_TEXT_DEPTH, every field once.
 * Anything it does not take plainly it declines (1), never judges: the
 * general way (jansson, info_read) gives the verdict then.
 */
#define _GNU_SOURCE /* memmem */
#include "infotext.h"

#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define DECLINE 1

typedef struct rd {
    const char *p, *end, *base;
} rd;

static inline void ws(rd *r)
{
    while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r'))
        r->p++;
}

static inline bool eat(rd *r, char ch)
{
    ws(r);
    if (r->p < r->end && *r->p == ch) {
        r->p++;
        return true;
    }
    return false;
}

/* The bytes a plain string holds: printable ASCII but '"' and '\\' (the
 * rest, 0x80 and up, 0). */
static const bool plain[256] = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0,
};

/* A string of printable ASCII without escapes; *s its characters. */
static bool str(rd *r, info_span *s)
{
    ws(r);
    if (r->p >= r->end || *r->p != '"')
        return false;
    const char *q = ++r->p;
    while (q < r->end && plain[(unsigned char)*q])
        q++;
    if (q >= r->end || *q != '"')
        return false;
    s->at = (uint32_t)(r->p - r->base);
    s->len = (uint32_t)(q - r->p);
    r->p = q + 1;
    return true;
}

/* A number as JSON writes one; *is_int when it has no fraction or exponent.
 * Integers of more than 18 digits are declined (jansson refuses what does
 * not fit 64 bits: the general way says so). */
static bool num(rd *r, const char **s, size_t *n, bool *is_int)
{
    ws(r);
    const char *q = r->p, *start = q;
    if (q < r->end && *q == '-')
        q++;
    if (q >= r->end || *q < '0' || *q > '9')
        return false;
    const char *digits = q;
    if (*q == '0')
        q++;
    else
        while (q < r->end && *q >= '0' && *q <= '9')
            q++;
    size_t ndig = (size_t)(q - digits);
    *is_int = true;
    if (q < r->end && *q == '.') {
        *is_int = false;
        q++;
        const char *f = q;
        while (q < r->end && *q >= '0' && *q <= '9')
            q++;
        if (q == f)
            return false;
    }
    if (q < r->end && (*q == 'e' || *q == 'E')) {
        *is_int = false;
        q++;
        if (q < r->end && (*q == '+' || *q == '-'))
            q++;
        const char *f = q;
        while (q < r->end && *q >= '0' && *q <= '9')
            q++;
        if (q == f)
            return false;
    }
    if (*is_int && ndig > 18)
        return false;
    if (q - start > 40)
        return false;
    *s = start;
    *n = (size_t)(q - start);
    r->p = q;
    return true;
}

/* An integer field within [lo, hi]. */
static bool int_in(rd *r, long long lo, long long hi, long long *out)
{
    const char *s;
    size_t n;
    bool is_int;
    if (!num(r, &s, &n, &is_int) || !is_int)
        return false;
    bool neg = *s == '-';
    long long v = 0;
    for (size_t i = neg; i < n; i++)
        v = v * 10 + (s[i] - '0');
    v = neg ? -v : v;
    if (v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

/* A decimal of at most 15 significant digits and a power of ten within
 * 10^±22 (0.62, 3.5, 1e-3: what bots print) read without strtod: the
 * digits and the power are exact doubles, so one division or product is
 * the correctly rounded value, strtod's (W. D. Clinger's fast path). false
 * for the rest. */
static bool exact_decimal(const char *s, size_t n, double *out)
{
    static const double p10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                 1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    const char *end = s + n;
    bool neg = *s == '-';
    s += neg;
    uint64_t mant = 0;
    int digits = 0, scale = 0;
    for (; s < end && *s >= '0' && *s <= '9'; s++)
        if (digits || *s != '0') {
            mant = mant * 10 + (uint64_t)(*s - '0');
            digits++;
        }
    if (s < end && *s == '.')
        for (s++; s < end && *s >= '0' && *s <= '9'; s++) {
            if (digits || *s != '0') {
                mant = mant * 10 + (uint64_t)(*s - '0');
                digits++;
            }
            scale--;
            if (digits > 15)
                return false;
        }
    if (digits > 15)
        return false;
    if (s < end && (*s == 'e' || *s == 'E')) {
        s++;
        bool eneg = s < end && *s == '-';
        s += s < end && (*s == '-' || *s == '+');
        int ex = 0;
        for (; s < end && *s >= '0' && *s <= '9'; s++) {
            ex = ex * 10 + (*s - '0');
            if (ex > 400)
                return false;
        }
        scale += eneg ? -ex : ex;
    }
    if (s != end || scale < -22 || scale > 22)
        return false;
    double x = (double)mant;
    x = scale < 0 ? x / p10[-scale] : x * p10[scale];
    *out = neg ? -x : x;
    return true;
}

/* A number field within [lo, hi] (integers count), finite. */
static bool real_in(rd *r, double lo, double hi, double *out)
{
    const char *s;
    size_t n;
    bool is_int;
    if (!num(r, &s, &n, &is_int))
        return false;
    double x;
    if (is_int) {
        bool neg = *s == '-';
        long long v = 0;
        for (size_t i = neg; i < n; i++)
            v = v * 10 + (s[i] - '0');
        x = (double)(neg ? -v : v);
    } else if (!exact_decimal(s, n, &x)) {
        char tmp[48];
        memcpy(tmp, s, n);
        tmp[n] = 0;
        errno = 0;
        x = strtod(tmp, NULL);
        if (!isfinite(x))
            return false; /* jansson refuses an overflow */
    }
    if (!isfinite(x) || x < lo || x > hi)
        return false;
    *out = x;
    return true;
}

static bool lit(rd *r, const char *w, size_t n)
{
    if ((size_t)(r->end - r->p) < n || memcmp(r->p, w, n) != 0)
        return false;
    r->p += n;
    return true;
}

/* Any value, checked as JSON (within this reader's plain subset): objects
 * without a repeated key (jansson is asked to refuse them), integers of at
 * most 18 digits, no reals (a move has none). */
static bool value(rd *r, int depth)
{
    if (depth > INFO_TEXT_DEPTH)
        return false;
    ws(r);
    if (r->p >= r->end)
        return false;
    info_span s;
    switch (*r->p) {
    case '{': {
        r->p++;
        if (eat(r, '}'))
            return true;
        info_span keys[16];
        int nk = 0;
        do {
            if (nk == 16 || !str(r, &keys[nk]))
                return false;
            for (int i = 0; i < nk; i++)
                if (keys[i].len == keys[nk].len &&
                    memcmp(r->base + keys[i].at, r->base + keys[nk].at, keys[nk].len) == 0)
                    return false;
            nk++;
            if (!eat(r, ':') || !value(r, depth + 1))
                return false;
        } while (eat(r, ','));
        return eat(r, '}');
    }
    case '[':
        r->p++;
        if (eat(r, ']'))
            return true;
        do {
            if (!value(r, depth + 1))
                return false;
        } while (eat(r, ','));
        return eat(r, ']');
    case '"': return str(r, &s);
    case 't': return lit(r, "true", 4);
    case 'f': return lit(r, "false", 5);
    case 'n': return lit(r, "null", 4);
    default: {
        const char *t;
        size_t n;
        bool is_int;
        return num(r, &t, &n, &is_int) && is_int;
    }
    }
}

/* An object value; *s its text. */
static bool object(rd *r, info_span *s, int depth)
{
    ws(r);
    if (r->p >= r->end || *r->p != '{')
        return false;
    const char *from = r->p;
    if (!value(r, depth))
        return false;
    s->at = (uint32_t)(from - r->base);
    s->len = (uint32_t)(r->p - from);
    return true;
}

static bool key_is(const rd *r, info_span k, const char *name)
{
    size_t n = strlen(name);
    return k.len == n && memcmp(r->base + k.at, name, n) == 0;
}

static bool candidate(rd *r, info_cand *c)
{
    memset(c, 0, sizeof *c);
    if (!eat(r, '{'))
        return false;
    if (eat(r, '}'))
        return false; /* no move: the general way says so */
    do {
        info_span k;
        if (!str(r, &k) || !eat(r, ':'))
            return false;
        unsigned bit;
        bool ok;
        if (key_is(r, k, "move")) {
            bit = INFO_HAS_MOVE;
            ok = object(r, &c->move, 3);
        } else if (key_is(r, k, "visits")) {
            bit = INFO_HAS_VISITS;
            ok = int_in(r, 0, 1000000000000000LL, &c->visits);
        } else if (key_is(r, k, "weight")) {
            bit = INFO_HAS_WEIGHT;
            ok = real_in(r, 0, 1e15, &c->weight);
        } else if (key_is(r, k, "score")) {
            bit = INFO_HAS_SCORE;
            ok = real_in(r, -INFO_MAX_SCORE, INFO_MAX_SCORE, &c->score);
        } else if (key_is(r, k, "winprob")) {
            bit = INFO_HAS_WINPROB;
            ok = real_in(r, 0, 1, &c->winprob);
        } else {
            return false;
        }
        if (!ok || (c->has & bit))
            return false;
        c->has |= bit;
    } while (eat(r, ','));
    return eat(r, '}') && (c->has & INFO_HAS_MOVE);
}

static bool candidates(rd *r, info_parsed *p)
{
    if (!eat(r, '['))
        return false;
    if (eat(r, ']'))
        return true;
    do {
        if (p->ncand == INFO_MAX_CANDIDATES || !candidate(r, &p->cand[p->ncand]))
            return false;
        p->ncand++;
    } while (eat(r, ','));
    return eat(r, ']');
}

/* The pv: its first INFO_MAX_PV moves kept (objects), the rest only read. */
static bool pv(rd *r, info_parsed *p)
{
    if (!eat(r, '['))
        return false;
    if (eat(r, ']'))
        return true;
    int i = 0;
    do {
        if (i < INFO_MAX_PV) {
            if (!object(r, &p->pv[i], 2))
                return false;
            p->npv = i + 1;
        } else if (!value(r, 2)) {
            return false;
        }
        i++;
    } while (eat(r, ','));
    return eat(r, ']');
}

static bool ident(const rd *r, info_span s, char *out, size_t cap)
{
    if (s.len == 0 || s.len >= cap)
        return false;
    const char *t = r->base + s.at;
    for (size_t i = 0; i < s.len; i++) {
        unsigned char ch = (unsigned char)t[i];
        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
              ch == '_' || ch == '-'))
            return false;
    }
    memcpy(out, t, s.len);
    out[s.len] = 0;
    return true;
}

/* The fields of an info object from r (at its '{'), into *p; body: the
 * body a move carries (no "type", "match" nor "seat": the move's). Leaves r
 * after the object; true when read plainly. */
static bool fields(rd *r, info_parsed *p, bool body)
{
    const char *buf = r->base;
    if (!eat(r, '{'))
        return false;
    if (body && eat(r, '}'))
        return true; /* an empty body: a line that says nothing, but a line */
    do {
        info_span k;
        if (!str(r, &k) || !eat(r, ':'))
            return false;
        unsigned bit;
        bool ok;
        long long v = 0;
        if (key_is(r, k, "type") && !body) {
            info_span t;
            bit = INFO_HAS_TYPE;
            ok = str(r, &t) && t.len == 4 && memcmp(buf + t.at, "info", 4) == 0;
        } else if (key_is(r, k, "match") && !body) {
            info_span t;
            bit = INFO_HAS_MATCH;
            ok = str(r, &t) && ident(r, t, p->match, sizeof p->match);
        } else if (key_is(r, k, "seat") && !body) {
            bit = INFO_HAS_SEAT;
            ok = int_in(r, 0, ENG_MAX_PLAYERS - 1, &v);
            p->seat = (int)v;
        } else if (key_is(r, k, "turn")) {
            bit = INFO_HAS_TURN;
            ok = int_in(r, 1, 999999999999999999LL, &p->turn);
        } else if (key_is(r, k, "score")) {
            bit = INFO_HAS_SCORE;
            ok = real_in(r, -INFO_MAX_SCORE, INFO_MAX_SCORE, &p->score);
        } else if (key_is(r, k, "winprob")) {
            bit = INFO_HAS_WINPROB;
            ok = real_in(r, 0, 1, &p->winprob);
        } else if (key_is(r, k, "candidates")) {
            bit = INFO_HAS_CANDIDATES;
            ok = !(p->has & bit) && candidates(r, p);
        } else if (key_is(r, k, "pv")) {
            bit = INFO_HAS_PV;
            ok = !(p->has & bit) && pv(r, p);
        } else if (key_is(r, k, "iterations")) {
            bit = INFO_HAS_ITERATIONS;
            ok = int_in(r, 0, 1000000000000000LL, &p->iterations);
        } else if (key_is(r, k, "nodes")) {
            bit = INFO_HAS_NODES;
            ok = int_in(r, 0, 1000000000000000LL, &p->nodes);
        } else if (key_is(r, k, "depth")) {
            bit = INFO_HAS_DEPTH;
            ok = int_in(r, 0, 100000, &p->depth);
        } else if (key_is(r, k, "elapsed_ms")) {
            bit = INFO_HAS_ELAPSED;
            ok = int_in(r, 0, 86400000, &p->elapsed_ms);
        } else if (key_is(r, k, "text")) {
            bit = INFO_HAS_TEXT;
            ok = str(r, &p->text);
        } else {
            return false; /* id, or a name the general way tells about */
        }
        if (!ok || (p->has & bit))
            return false;
        p->has |= bit;
    } while (eat(r, ','));
    return eat(r, '}');
}

static void start(info_parsed *p, const char *buf, size_t len)
{
    p->buf = buf;
    p->len = len;
    p->has = 0;
    p->ncand = p->npv = 0;
}

/* A whole line (an info message: its type required) or a move's body
 * (no envelope): the text alone, read to its end. */
static int parse_text(const char *buf, size_t len, info_parsed *p, bool body)
{
    assert(p);
    if (!buf || len == 0 || len > INFO_MAX_BYTES)
        return DECLINE;
    rd r = {buf, buf + len, buf};
    start(p, buf, len);
    if (!fields(&r, p, body))
        return DECLINE;
    ws(&r);
    return r.p == r.end && (body || (p->has & INFO_HAS_TYPE)) ? 0 : DECLINE;
}

int info_parse(const char *buf, size_t len, info_parsed *p)
{
    return parse_text(buf, len, p, false);
}

int info_parse_body(const char *buf, size_t len, info_parsed *p)
{
    return parse_text(buf, len, p, true);
}

int info_move_split(const char *buf, size_t len, char *rest, size_t restcap, size_t *restlen,
                    info_parsed *p)
{
    assert(p && rest && restlen);
    if (!buf || len < 2 || len > PROTO_MAX_MESSAGE || !memmem(buf, len, "\"info\"", 6))
        return DECLINE; /* most moves carry none: not read twice */
    rd r = {buf, buf + len, buf};
    /* the bytes [cut, cut_end) go: the comma before the member and the
     * member, or (the first member) the member and the comma after it */
    const char *prev_end = NULL, *cut = NULL, *cut_end = NULL;
    bool is_move = false, cut_to_next = false;
    if (!eat(&r, '{'))
        return DECLINE;
    do {
        ws(&r);
        const char *key_at = r.p;
        if (cut_to_next) {
            cut_end = key_at;
            cut_to_next = false;
        }
        info_span k;
        if (!str(&r, &k) || !eat(&r, ':'))
            return DECLINE;
        if (key_is(&r, k, "info")) {
            if (cut)
                return DECLINE; /* twice: the general way refuses it */
            ws(&r);
            rd sub = {r.p, r.end, r.p};
            start(p, r.p, 0);
            if (!fields(&sub, p, true) || sub.p - r.p > INFO_MAX_BYTES)
                return DECLINE;
            p->len = (size_t)(sub.p - r.p);
            r.p = sub.p;
            if (prev_end) {
                cut = prev_end;
                cut_end = r.p;
            } else {
                cut = key_at;
                cut_to_next = true;
            }
        } else if (key_is(&r, k, "type")) {
            info_span t;
            if (!str(&r, &t) || t.len != 4 || memcmp(buf + t.at, "move", 4) != 0)
                return DECLINE;
            is_move = true;
        } else if (!value(&r, 1)) {
            return DECLINE;
        }
        prev_end = r.p;
    } while (eat(&r, ','));
    if (!eat(&r, '}'))
        return DECLINE;
    ws(&r);
    if (r.p != r.end || !is_move || !cut || cut_to_next)
        return DECLINE;
    size_t a = (size_t)(cut - buf), b = (size_t)(cut_end - buf);
    if (len - (b - a) > restcap)
        return DECLINE;
    memcpy(rest, buf, a);
    memcpy(rest + a, buf + b, len - b);
    *restlen = len - (b - a);
    return 0;
}

void info_envelope(const info_parsed *p, proto_msg *m)
{
    memset(m, 0, sizeof *m);
    m->type = PROTO_INFO;
    m->bytes = p->len;
    m->match = p->has & INFO_HAS_MATCH ? p->match : NULL;
    m->has_seat = p->has & INFO_HAS_SEAT;
    m->seat = p->seat;
    m->has_turn = p->has & INFO_HAS_TURN;
    m->turn = p->turn;
}

/* ---- the moves ----------------------------------------------------------------------- */

void info_moves_at(info_moves *mc, uint64_t key)
{
    assert(key != 0);
    if (mc->key != key) {
        mc->key = key;
        mc->n = 0;
        mc->nlegal = -1;
        tb_reset(&mc->text);
    }
}

void info_moves_free(info_moves *mc)
{
    tb_free(&mc->text);
    free(mc->legal);
    memset(mc, 0, sizeof *mc);
}

/* mc ready to keep n legal entries' spans at the position key, or NULL
 * when it keeps them already or cannot (out of memory). */
static info_moves *legal_room(info_moves *mc, uint64_t key, size_t n)
{
    if (!mc)
        return NULL;
    info_moves_at(mc, key);
    if (mc->nlegal >= 0)
        return NULL; /* this position's are kept already */
    if ((size_t)mc->legal_cap < n) {
        void *p = realloc(mc->legal, n * sizeof *mc->legal);
        if (!p)
            return NULL;
        mc->legal = p;
        mc->legal_cap = (int)n;
    }
    return mc;
}

/* Keep the n entries' texts the spans (offsets from start) name in out. */
static void legal_keep(info_moves *mc, const textbuf *out, size_t start, size_t n)
{
    size_t at = mc->text.len;
    if (out->len - start < UINT32_MAX / 2 && tb_put(&mc->text, out->p + start, out->len - start) == 0) {
        for (size_t i = 0; i < n; i++)
            mc->legal[i][0] += (uint32_t)at;
        mc->nlegal = (int)n;
    }
}

int info_legal_dump(textbuf *out, const json_t *legal, info_moves *mc, uint64_t key)
{
    assert(out && json_is_array(legal));
    size_t n = json_array_size(legal);
    mc = legal_room(mc, key, n);
    size_t start = out->len;
    tb_put(out, "[", 1);
    for (size_t i = 0; i < n; i++) {
        if (i)
            tb_put(out, ",", 1);
        size_t from = out->len;
        if (jt_dump(out, json_array_get(legal, i)))
            return -1;
        if (mc) {
            mc->legal[i][0] = (uint32_t)(from - start);
            mc->legal[i][1] = (uint32_t)(out->len - from);
        }
    }
    if (tb_put(out, "]", 1))
        return -1;
    if (mc) /* the entries' texts, where the spans say */
        legal_keep(mc, out, start, n);
    return 0;
}

int info_legal_write(textbuf *out, const game_codec *c, const void *st, int max, info_moves *mc,
                     uint64_t key)
{
    assert(out && c && c->legal_text && max > 0);
    mc = legal_room(mc, key, (size_t)max);
    size_t start = out->len;
    int n = c->legal_text(st, out, mc ? mc->legal : NULL, mc ? mc->legal_cap : 0);
    if (n < 0 || out->failed)
        return -1;
    assert(!mc || n <= mc->legal_cap);
    if (mc)
        legal_keep(mc, out, start, (size_t)n);
    return 0;
}

/* Is src[0..n) written as one of the legal moves kept? */
static bool is_legal_text(const info_moves *mc, const char *src, uint32_t n)
{
    const char *base = mc->text.p;
    for (int i = 0; i < mc->nlegal; i++)
        if (mc->legal[i][1] == n && memcmp(base + mc->legal[i][0], src, n) == 0)
            return true;
    return false;
}

static uint32_t hash(const char *s, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h;
}

/* The codec's canonical text of the move written src[0..n) at st, appended
 * to out, and the engine moves it stands for. Returns the number of
 * engine moves, or -1 (refused or out of memory). */
static int canonical(const game_codec *c, const void *st, const char *src, size_t n, textbuf *out,
                     eng_move *mv)
{
    json_error_t e;
    json_t *j = json_loadb(src, n, JSON_REJECT_DUPLICATES, &e);
    char why[200];
    int k = json_is_object(j) ? c->parse_move(st, j, mv, why, sizeof why) : -1;
    json_decref(j);
    if (k < 0)
        return -1;
    json_t *canon = c->format_move(st, mv, k);
    int rc = canon ? jt_dump(out, canon) : -1;
    json_decref(canon);
    return rc ? -1 : k;
}

/* The move at span s of p, at st (mc's position when mc), written in its
 * canonical text to out; its engine moves in mv[0..*k) when mv (NULL: not
 * needed). Returns 0 or 1. */
static int move_at(const game_codec *c, const void *st, const info_parsed *p, info_span s,
                   info_moves *mc, textbuf *out, eng_move *mv, int *k)
{
    const char *src = p->buf + s.at;
    if (mc && !mv && is_legal_text(mc, src, s.len))
        return tb_put(out, src, s.len) ? DECLINE : 0; /* a legal entry: canonical as it is */
    eng_move scratch[ENG_MAX_TURN_MOVES];
    if (!mv)
        mv = scratch;
    if (!mc) {
        *k = canonical(c, st, src, s.len, out, mv);
        return *k < 0 ? DECLINE : 0;
    }
    uint32_t h = hash(src, s.len);
    for (int i = 0; i < mc->n; i++) {
        if (mc->e[i].hash != h || mc->e[i].src_len != s.len ||
            memcmp(mc->text.p + mc->e[i].src_at, src, s.len) != 0)
            continue;
        if (mc->e[i].nmv < 0)
            return DECLINE;
        *k = mc->e[i].nmv;
        memcpy(mv, mc->e[i].mv, (size_t)*k * sizeof *mv);
        return tb_put(out, mc->text.p + mc->e[i].at, mc->e[i].len) ? DECLINE : 0;
    }
    size_t from = out->len;
    *k = canonical(c, st, src, s.len, out, mv);
    if (mc->n < INFO_MOVES_KEPT && !mc->text.failed) {
        int i = mc->n;
        size_t src_at = mc->text.len;
        tb_put(&mc->text, src, s.len);
        size_t at = mc->text.len;
        if (*k >= 0)
            tb_put(&mc->text, out->p + from, out->len - from);
        if (!mc->text.failed) {
            mc->e[i].hash = h;
            mc->e[i].src_at = (uint32_t)src_at;
            mc->e[i].src_len = s.len;
            mc->e[i].at = (uint32_t)at;
            mc->e[i].len = *k >= 0 ? (uint32_t)(out->len - from) : 0;
            mc->e[i].nmv = *k;
            if (*k > 0)
                memcpy(mc->e[i].mv, mv, (size_t)*k * sizeof *mv);
            mc->n++;
        }
    }
    return *k < 0 ? DECLINE : 0;
}

/* ---- writing ------------------------------------------------------------------------- */

static void key(textbuf *b, bool *first, const char *k)
{
    if (!*first)
        tb_put(b, ",", 1);
    *first = false;
    tb_put(b, "\"", 1);
    tb_puts(b, k);
    tb_put(b, "\":", 2);
}

static int write_pv(const eng_game *g, const game_codec *c, const void *st, const info_parsed *p,
                    info_moves *mc, textbuf *out)
{
    unsigned char *s = malloc(g->state_size);
    if (!s)
        return DECLINE;
    memcpy(s, st, g->state_size);
    int rc = 0;
    tb_put(out, "[", 1);
    for (int i = 0; i < p->npv; i++) {
        if (g->current_player(s) < 0)
            break; /* chance or the end: the line is cut there, as info_read cuts it */
        if (i)
            tb_put(out, ",", 1);
        eng_move mv[ENG_MAX_TURN_MOVES];
        int k;
        if ((rc = move_at(c, s, p, p->pv[i], i == 0 ? mc : NULL, out, mv, &k)))
            break;
        for (int j = 0; j < k; j++)
            g->apply(s, mv[j]);
    }
    tb_put(out, "]", 1);
    free(s);
    return rc;
}

int info_write(const eng_game *g, const game_codec *c, const void *st, const info_parsed *p,
               info_moves *mc, bool with_turn, textbuf *out)
{
    assert(g && c && st && p && out);
    if (g->current_player(st) < 0)
        return DECLINE;
    size_t was = out->len;
    bool first = true;
    int rc = 0;
    tb_put(out, "{", 1);
    if (with_turn && (p->has & INFO_HAS_TURN)) {
        key(out, &first, "turn");
        jt_int(out, p->turn);
    }
    if (p->has & INFO_HAS_SCORE) {
        key(out, &first, "score");
        jt_real(out, p->score);
    }
    if (p->has & INFO_HAS_WINPROB) {
        key(out, &first, "winprob");
        jt_real(out, p->winprob);
    }
    if (p->has & INFO_HAS_CANDIDATES) {
        key(out, &first, "candidates");
        tb_put(out, "[", 1);
        for (int i = 0; i < p->ncand && !rc; i++) {
            const info_cand *cd = &p->cand[i];
            tb_puts(out, i ? ",{\"move\":" : "{\"move\":");
            int k;
            rc = move_at(c, st, p, cd->move, mc, out, NULL, &k);
            if (cd->has & INFO_HAS_VISITS) {
                tb_puts(out, ",\"visits\":");
                jt_int(out, cd->visits);
            }
            if (cd->has & INFO_HAS_WEIGHT) {
                tb_puts(out, ",\"weight\":");
                jt_real(out, cd->weight);
            }
            if (cd->has & INFO_HAS_SCORE) {
                tb_puts(out, ",\"score\":");
                jt_real(out, cd->score);
            }
            if (cd->has & INFO_HAS_WINPROB) {
                tb_puts(out, ",\"winprob\":");
                jt_real(out, cd->winprob);
            }
            tb_put(out, "}", 1);
        }
        tb_put(out, "]", 1);
    }
    if (!rc && (p->has & INFO_HAS_PV)) {
        key(out, &first, "pv");
        rc = write_pv(g, c, st, p, mc, out);
    }
    static const struct {
        unsigned bit;
        const char *name;
        size_t off;
    } ints[] = {{INFO_HAS_ITERATIONS, "iterations", offsetof(info_parsed, iterations)},
                {INFO_HAS_NODES, "nodes", offsetof(info_parsed, nodes)},
                {INFO_HAS_DEPTH, "depth", offsetof(info_parsed, depth)},
                {INFO_HAS_ELAPSED, "elapsed_ms", offsetof(info_parsed, elapsed_ms)}};
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++)
        if (p->has & ints[i].bit) {
            key(out, &first, ints[i].name);
            jt_int(out, *(const long long *)((const char *)p + ints[i].off));
        }
    if (p->has & INFO_HAS_TEXT) {
        key(out, &first, "text");
        /* printable ASCII without escapes (info_parse): what info_read keeps
         * of it is its first INFO_TEXT_MAX bytes, as they are */
        uint32_t n = p->text.len > INFO_TEXT_MAX ? INFO_TEXT_MAX : p->text.len;
        tb_put(out, "\"", 1);
        tb_put(out, p->buf + p->text.at, n);
        tb_put(out, "\"", 1);
    }
    tb_put(out, "}", 1);
    if (rc || out->failed) {
        if (!out->failed)
            tb_cut(out, was);
        return DECLINE;
    }
    return 0;
}

/* ---- the record's line --------------------------------------------------------------- */

/* Past one value of trusted (canonical) text. */
static const char *skip(const char *s, const char *end)
{
    int depth = 0;
    while (s < end) {
        char ch = *s++;
        if (ch == '"') {
            while (s < end && *s != '"')
                s += *s == '\\' ? 2 : 1;
            s++;
        } else if (ch == '{' || ch == '[') {
            depth++;
            continue;
        } else if (ch == '}' || ch == ']') {
            depth--;
        } else if (ch == ',' || ch == ':') {
            continue;
        } else {
            while (s < end && *s != ',' && *s != '}' && *s != ']')
                s++;
        }
        if (depth == 0)
            return s;
    }
    return end;
}

int info_compact(const char *canon, size_t len, int cands, int pv, textbuf *out)
{
    assert(canon && len >= 2 && canon[0] == '{');
    const char *s = canon + 1, *end = canon + len - 1;
    bool whole = true, first = true;
    tb_put(out, "{", 1);
    while (s < end) {
        if (*s == ',')
            s++;
        const char *k = s; /* "name":value */
        const char *v = skip(k, end) + 1;
        const char *after = skip(v, end);
        size_t kn = (size_t)(v - 1 - k);
        int keep = -1;
        if ((kn == 6 && !memcmp(k, "\"turn\"", 6)) || (kn == 7 && !memcmp(k, "\"nodes\"", 7)) ||
            (kn == 7 && !memcmp(k, "\"depth\"", 7)) || (kn == 6 && !memcmp(k, "\"text\"", 6))) {
            whole = false;
            s = after;
            continue;
        }
        if (kn == 12 && !memcmp(k, "\"candidates\"", 12))
            keep = cands;
        else if (kn == 4 && !memcmp(k, "\"pv\"", 4))
            keep = pv;
        if (!first)
            tb_put(out, ",", 1);
        first = false;
        if (keep < 0) {
            tb_put(out, k, (size_t)(after - k));
        } else { /* [a,b,...]: the first `keep` */
            const char *e = v + 1;
            int n = 0;
            while (e < after - 1 && n < keep) {
                e = skip(e, after - 1);
                n++;
                if (e < after - 1 && *e == ',' && n < keep)
                    e++;
            }
            if (e < after - 1)
                whole = false;
            tb_put(out, k, (size_t)(e - k));
            tb_put(out, "]", 1);
        }
        s = after;
    }
    tb_put(out, "}", 1);
    return out->failed ? -1 : whole;
}

bool info_parsed_compact(const info_parsed *p, int cands, int pv)
{
    return p->ncand <= cands && p->npv <= pv &&
           !(p->has & (INFO_HAS_TEXT | INFO_HAS_NODES | INFO_HAS_DEPTH));
}

/* ---- the spectators' message and the record's lines ----------------------------------- */

int info_thinking_head(textbuf *b, const char *match, int seat, int turn)
{
    tb_puts(b, "{\"type\":\"thinking\",\"match\":");
    jt_str(b, match, strlen(match));
    tb_puts(b, ",\"seat\":");
    jt_int(b, seat);
    tb_puts(b, ",\"turn\":");
    jt_int(b, turn);
    return tb_puts(b, ",\"info\":");
}

size_t info_turns_begin(info_turns *it)
{
    textbuf *b = &it->text;
    if (b->cap - b->len <= INFO_TURNS_ROOM)
        tb_reserve(b, INFO_TURNS_ROOM + 3 * b->cap); /* a failure: the line's append says */
    return b->len;
}

const char *info_turns_end(info_turns *it, int turn, size_t mark)
{
    assert(turn >= 1 && mark <= it->text.len);
    if (turn > it->n) {
        int cap = turn + 16 > 2 * it->n ? turn + 16 : 2 * it->n;
        uint32_t *p = realloc(it->at, (size_t)cap * sizeof *p);
        if (p) {
            memset(p + it->n, 0, (size_t)(cap - it->n) * sizeof *p);
            it->at = p;
            it->n = cap;
        }
    }
    if (turn > it->n || tb_put(&it->text, "", 1) || mark >= UINT32_MAX) {
        it->text.failed = false; /* what it held before the mark is intact */
        tb_cut(&it->text, mark);
        return NULL;
    }
    it->at[turn - 1] = (uint32_t)mark + 1;
    return it->text.p + mark;
}

const char *info_turns_get(const info_turns *it, int turn)
{
    return turn >= 1 && turn <= it->n && it->at[turn - 1] ? it->text.p + it->at[turn - 1] - 1
                                                          : NULL;
}

void info_turns_free(info_turns *it)
{
    free(it->at);
    tb_free(&it->text);
    memset(it, 0, sizeof *it);
}
