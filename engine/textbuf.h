/*
 * textbuf.h — a growing text: the one string builder of tessera.
 *
 * The JSON the server writes per move (protocol/jsontext.h), the SQL of a
 * PostgreSQL batch and its dialect translation (server/store_pg.c,
 * storage/db.c), the metrics page (server/metrics.c) and the reports of
 * tournaments and experiments are all built in one. It doubles as it fills,
 * keeps its memory across tb_reset (a turn's messages cost no allocation
 * once it has grown), and keeps the text NUL-terminated. When memory runs
 * out it stops: `failed` is set, every later append does nothing, and the
 * caller checks once at the end rather than after each piece.
 */
#ifndef TESSERA_ENGINE_TEXTBUF_H
#define TESSERA_ENGINE_TEXTBUF_H

#include <stdbool.h>
#include <stddef.h>

typedef struct textbuf {
    char *p;     /* the text, NUL-terminated; owned; NULL until the first growth */
    size_t len;  /* bytes written, the NUL not counted */
    size_t cap;  /* bytes allocated */
    bool failed; /* an allocation failed: the text is incomplete */
} textbuf;

#define TEXTBUF_INIT {NULL, 0, 0, false}

/* Forget the text and the failure, keep the memory. */
static inline void tb_reset(textbuf *b)
{
    b->len = 0;
    b->failed = false;
    if (b->p)
        b->p[0] = 0;
}

/* Back to the first len bytes (len <= b->len): what was written after a
 * mark is taken back. */
static inline void tb_cut(textbuf *b, size_t len)
{
    if (b->p && len <= b->len) {
        b->len = len;
        b->p[len] = 0;
    }
}

/* Free the memory; *b is TEXTBUF_INIT again. */
void tb_free(textbuf *b);

/* Grow to room for n more bytes and the NUL (tb_reserve's slow path). */
int tb_grow(textbuf *b, size_t n);

/* Room for n more bytes and the NUL. Returns 0, or -1 when memory ran out
 * (or the buffer had failed already). Inline: the JSON writer asks per
 * character. */
static inline int tb_reserve(textbuf *b, size_t n)
{
    if (b->cap - b->len > n && !b->failed)
        return 0;
    return tb_grow(b, n);
}

/* Append n bytes as they are. Returns 0 or -1. */
int tb_put(textbuf *b, const char *s, size_t n);

/* Append a NUL-terminated string. Returns 0 or -1. */
int tb_puts(textbuf *b, const char *s);

/* Append formatted text, of any length. Returns 0 or -1. */
int tb_printf(textbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The text, handed over to the caller (free() it), and *b is TEXTBUF_INIT
 * again; NULL when the buffer failed. An empty text is "", not NULL. */
char *tb_take(textbuf *b);

#endif
