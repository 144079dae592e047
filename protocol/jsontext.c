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

void jt_free(jt_buf *b)
{
    free(b->p);
    b->p = NULL;
    b->len = b->cap = 0;
    b->failed = false;
}

/* Room for n more bytes. */
static int grow(jt_buf *b, size_t n)
{
    if (b->failed)
        return -1;
    if (b->cap - b->len >= n)
        return 0;
    size_t cap = b->cap ? b->cap : 1024;
    while (cap - b->len < n) {
        if (cap > SIZE_MAX / 2) {
            b->failed = true;
            return -1;
        }
        cap *= 2;
    }
    char *p = realloc(b->p, cap);
    if (!p) {
        b->failed = true;
        return -1;
    }
    b->p = p;
    b->cap = cap;
    return 0;
}

int jt_raw(jt_buf *b, const char *s, size_t n)
{
    if (grow(b, n))
        return -1;
    if (n)
        memcpy(b->p + b->len, s, n);
    b->len += n;
    return 0;
}

static inline int put(jt_buf *b, char c)
{
    if (b->len == b->cap && grow(b, 1))
        return -1;
    if (b->failed)
        return -1;
    b->p[b->len++] = c;
    return 0;
}

int jt_int(jt_buf *b, long long v)
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
    return jt_raw(b, tmp + i, sizeof tmp - (size_t)i);
}

int jt_str(jt_buf *b, const char *s, size_t n)
{
    /* worst case: every byte as \u00XX, plus the quotes */
    if (grow(b, 6 * n + 2))
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
    b->len = (size_t)(o - b->p);
    return 0;
}

/* As jansson writes a real: "%.17g", and ".0" if that reads as an integer. */
static int real(jt_buf *b, double d)
{
    char tmp[40];
    int n = snprintf(tmp, sizeof tmp, "%.17g", d);
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
    return jt_raw(b, tmp, (size_t)n);
}

static int dump(jt_buf *b, const json_t *v, int depth)
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
    case JSON_REAL: return real(b, json_real_value(v));
    case JSON_TRUE: return jt_raw(b, "true", 4);
    case JSON_FALSE: return jt_raw(b, "false", 5);
    case JSON_NULL: return jt_raw(b, "null", 4);
    }
    return -1;
}

int jt_dump(jt_buf *b, const json_t *v)
{
    if (!v || b->failed)
        return -1;
    size_t at = b->len;
    if (dump(b, v, 0)) {
        b->len = at;
        return -1;
    }
    return 0;
}
