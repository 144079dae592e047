/*
 * jsontext.c — compact JSON text of jansson values into a growing buffer
 * (jsontext.h): the same bytes as json_dumps(v, JSON_COMPACT), written
 * without a per-integer snprintf and without a fresh buffer per message.
 */
#include "protocol/jsontext.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One character, the NUL left to jt_dump's end (tb_reserve keeps room). */
static inline int put(textbuf *b, char c)
{
    if (tb_reserve(b, 1))
        return -1;
    b->p[b->len++] = c;
    return 0;
}

int jt_int(textbuf *b, long long v)
{
    char tmp[24];
    int i = (int)sizeof tmp;
    unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
    do {
        tmp[--i] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        tmp[--i] = '-';
    return tb_put(b, tmp + i, sizeof tmp - (size_t)i);
}

int jt_str(textbuf *b, const char *s, size_t n)
{
    /* worst case: every byte as \u00XX, plus the quotes */
    if (tb_reserve(b, 6 * n + 2))
        return -1;
    static const char hex[] = "0123456789ABCDEF"; /* as jansson writes them */
    char *o = b->p + b->len;
    *o++ = '"';
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c != '"' && c != '\\') {
            *o++ = (char)c;
            continue;
        }
        *o++ = '\\';
        switch (c) {
        case '"': *o++ = '"'; break;
        case '\\': *o++ = '\\'; break;
        case '\b': *o++ = 'b'; break;
        case '\f': *o++ = 'f'; break;
        case '\n': *o++ = 'n'; break;
        case '\r': *o++ = 'r'; break;
        case '\t': *o++ = 't'; break;
        default:
            *o++ = 'u';
            *o++ = '0';
            *o++ = '0';
            *o++ = hex[c >> 4];
            *o++ = hex[c & 15];
        }
    }
    *o++ = '"';
    *o = 0;
    b->len = (size_t)(o - b->p);
    return 0;
}

/* printf's "%.17g" of d into tmp (NUL-terminated), computed exactly in
 * integers for the reals a thinking line carries (1e-6 <= |d| < 2^52: a
 * win probability, a score) at a tenth of snprintf's cost; -1 for the rest,
 * which snprintf writes. |d| = m * 2^e with e < 0, so the 17 digits are
 * m * 10^k / 2^-e rounded to nearest, ties to even, as glibc rounds (m <
 * 2^53 and 10^k <= 10^22 < 2^74: the product fits 128 bits).
 * tests/protocol/test_jsontext.c holds it to snprintf on a million reals. */
static int g17(double d, char *tmp)
{
    static const uint64_t p10[] = {1ull,
                                   10ull,
                                   100ull,
                                   1000ull,
                                   10000ull,
                                   100000ull,
                                   1000000ull,
                                   10000000ull,
                                   100000000ull,
                                   1000000000ull,
                                   10000000000ull,
                                   100000000000ull,
                                   1000000000000ull,
                                   10000000000000ull,
                                   100000000000000ull,
                                   1000000000000000ull,
                                   10000000000000000ull,
                                   100000000000000000ull,
                                   1000000000000000000ull,
                                   10000000000000000000ull};
    uint64_t bits;
    memcpy(&bits, &d, sizeof bits);
    int bexp = (int)(bits >> 52 & 0x7ff);
    if (bexp == 0 || bexp == 0x7ff)
        return -1; /* zero, subnormal, infinite, NaN */
    bool neg = bits >> 63;
    uint64_t m = (bits & ((1ull << 52) - 1)) | 1ull << 52;
    int e = bexp - 1075; /* |d| = m * 2^e */
    if (e >= 0 || e < -120)
        return -1;
    double a = neg ? -d : d;
    if (a < 1e-6)
        return -1;
    /* E: the decimal exponent, so that 10^16 <= |d| * 10^(16 - E) < 10^17 */
    int E = 0;
    for (double t = a; t >= 10.0; t /= 10.0)
        E++;
    for (double t = a; t < 1.0; t *= 10.0)
        E--;
    unsigned __int128 q, r, N;
    int s = -e;
    for (int tries = 0;; tries++) {
        int k = 16 - E;
        if (k < 0 || k > 22 || tries > 3)
            return -1;
        unsigned __int128 pk = k <= 19 ? (unsigned __int128)p10[k]
                                       : (unsigned __int128)p10[19] * p10[k - 19];
        N = (unsigned __int128)m * pk;
        q = N >> s;
        r = N & (((unsigned __int128)1 << s) - 1);
        if (q >= p10[17])
            E++;
        else if (q < p10[16])
            E--;
        else
            break;
    }
    unsigned __int128 half = (unsigned __int128)1 << (s - 1);
    if (r > half || (r == half && (q & 1)))
        q++;
    if (q == p10[17]) {
        q = p10[16];
        E++;
    }
    char dig[17];
    uint64_t v = (uint64_t)q;
    for (int i = 16; i >= 0; i--) {
        dig[i] = (char)('0' + v % 10);
        v /= 10;
    }
    int nd = 17; /* significant digits, trailing zeros dropped (%g) */
    while (nd > 1 && dig[nd - 1] == '0')
        nd--;
    char *o = tmp;
    if (neg)
        *o++ = '-';
    if (E < -4) { /* d.ddde-0X */
        *o++ = dig[0];
        if (nd > 1) {
            *o++ = '.';
            memcpy(o, dig + 1, (size_t)nd - 1);
            o += nd - 1;
        }
        *o++ = 'e';
        *o++ = '-';
        *o++ = (char)('0' + (-E) / 10);
        *o++ = (char)('0' + (-E) % 10);
    } else if (E >= 0) { /* E < 16 here: fixed, the point after digit E */
        memcpy(o, dig, (size_t)E + 1);
        o += E + 1;
        if (nd > E + 1) {
            *o++ = '.';
            memcpy(o, dig + E + 1, (size_t)(nd - E - 1));
            o += nd - E - 1;
        }
    } else { /* 0.000ddd */
        *o++ = '0';
        *o++ = '.';
        for (int i = 0; i < -E - 1; i++)
            *o++ = '0';
        memcpy(o, dig, (size_t)nd);
        o += nd;
    }
    *o = 0;
    return (int)(o - tmp);
}

/* As jansson writes a real: "%.17g", and ".0" if that reads as an integer. */
int jt_real(textbuf *b, double d)
{
    char tmp[40];
    int n = g17(d, tmp);
    if (n < 0)
        n = snprintf(tmp, sizeof tmp, "%.17g", d);
    if (n < 0 || (size_t)n >= sizeof tmp - 2)
        return -1;
    if (!strpbrk(tmp, ".eE")) {
        tmp[n++] = '.';
        tmp[n++] = '0';
        tmp[n] = 0;
    }
    /* the exponent without '+' and leading zeros: 1e+020 is written 1e20 */
    char *e = strchr(tmp, 'e');
    if (e) {
        char *to = e + 1, *from = to;
        if (*from == '-')
            *to++ = *from++;
        else if (*from == '+')
            from++;
        while (*from == '0' && from[1])
            from++;
        memmove(to, from, strlen(from) + 1);
        n = (int)strlen(tmp);
    }
    return tb_put(b, tmp, (size_t)n);
}

static int dump(textbuf *b, const json_t *v, int depth)
{
    if (depth > JT_MAX_DEPTH)
        return -1;
    switch (json_typeof(v)) {
    case JSON_OBJECT: {
        if (put(b, '{'))
            return -1;
        const char *key;
        size_t klen;
        json_t *val;
        bool first = true;
        void *it = json_object_iter((json_t *)v);
        while (it) {
            key = json_object_iter_key(it);
            klen = json_object_iter_key_len(it);
            val = json_object_iter_value(it);
            if ((!first && put(b, ',')) || jt_str(b, key, klen) || put(b, ':') ||
                dump(b, val, depth + 1))
                return -1;
            first = false;
            it = json_object_iter_next((json_t *)v, it);
        }
        return put(b, '}');
    }
    case JSON_ARRAY: {
        if (put(b, '['))
            return -1;
        size_t n = json_array_size(v);
        for (size_t i = 0; i < n; i++)
            if ((i && put(b, ',')) || dump(b, json_array_get(v, i), depth + 1))
                return -1;
        return put(b, ']');
    }
    case JSON_STRING: return jt_str(b, json_string_value(v), json_string_length(v));
    case JSON_INTEGER: return jt_int(b, (long long)json_integer_value(v));
    case JSON_REAL: return jt_real(b, json_real_value(v));
    case JSON_TRUE: return tb_put(b, "true", 4);
    case JSON_FALSE: return tb_put(b, "false", 5);
    case JSON_NULL: return tb_put(b, "null", 4);
    }
    return -1;
}

int jt_dump(textbuf *b, const json_t *v)
{
    if (!v || b->failed)
        return -1;
    size_t at = b->len;
    if (dump(b, v, 0)) {
        tb_cut(b, at);
        return -1;
    }
    b->p[b->len] = 0;
    return 0;
}

json_t *jt_fields(const char *fmt, va_list ap)
{
    json_t *o = NULL;
    if (fmt) {
        json_error_t e;
        o = json_vpack_ex(&e, 0, fmt, ap);
    }
    return o ? o : json_object();
}
