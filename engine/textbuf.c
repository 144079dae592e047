/*
 * textbuf.c — the growing text of textbuf.h.
 */
#include "engine/textbuf.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void tb_free(textbuf *b)
{
    free(b->p);
    *b = (textbuf)TEXTBUF_INIT;
}

int tb_grow(textbuf *b, size_t n)
{
    if (b->failed)
        return -1;
    if (b->cap - b->len > n)
        return 0;
    if (n > SIZE_MAX / 4 - b->len) {
        b->failed = true;
        return -1;
    }
    size_t cap = b->cap ? b->cap : 1024;
    while (cap - b->len <= n)
        cap *= 2;
    char *p = realloc(b->p, cap);
    if (!p) {
        b->failed = true;
        return -1;
    }
    b->p = p;
    b->cap = cap;
    p[b->len] = 0; /* a first allocation holds no text yet */
    return 0;
}

int tb_put(textbuf *b, const char *s, size_t n)
{
    if (tb_reserve(b, n))
        return -1;
    if (n)
        memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = 0;
    return 0;
}

int tb_puts(textbuf *b, const char *s)
{
    return tb_put(b, s, strlen(s));
}

int tb_printf(textbuf *b, const char *fmt, ...)
{
    if (tb_reserve(b, 0))
        return -1;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
        va_end(ap);
        if (n < 0) {
            b->failed = true;
            return -1;
        }
        if ((size_t)n < b->cap - b->len) {
            b->len += (size_t)n;
            return 0;
        }
        b->p[b->len] = 0; /* vsnprintf wrote a cut piece: not part of the text */
        if (tb_reserve(b, (size_t)n))
            return -1;
    }
}

char *tb_take(textbuf *b)
{
    if (b->failed || tb_reserve(b, 0)) {
        tb_free(b);
        return NULL;
    }
    char *p = b->p;
    *b = (textbuf)TEXTBUF_INIT;
    return p;
}
