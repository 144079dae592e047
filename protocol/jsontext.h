/*
 * jsontext.h — JSON text written fast, for the server's per-move messages.
 *
 * jt_dump() writes a jansson value as compact JSON, byte for byte what
 * json_dumps(v, JSON_COMPACT) writes (members in insertion order, UTF-8 kept
 * as is, only '"', '\\' and control characters escaped, reals as "%.17g"
 * with ".0" when that looks like an integer), but into a caller-owned
 * growing buffer and without jansson's per-integer snprintf: profiling the
 * server showed json_dumps at half of the CPU of a move (bench/README.md).
 * A buffer is reused from message to message (jt_reset), so a turn's texts
 * cost no allocation once it has grown; jt_raw() splices text already
 * written (the public state, written once per turn) into a message.
 */
#ifndef TESSERA_PROTOCOL_JSONTEXT_H
#define TESSERA_PROTOCOL_JSONTEXT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct jt_buf {
    char *p;     /* the text (not NUL-terminated), owned; NULL until first growth */
    size_t len;  /* bytes written */
    size_t cap;  /* bytes allocated */
    bool failed; /* an allocation failed: the text is incomplete */
} jt_buf;

#define JT_BUF_INIT {NULL, 0, 0, false}

/* Forget the text, keep the memory. */
static inline void jt_reset(jt_buf *b)
{
    b->len = 0;
    b->failed = false;
}

/* Free the memory; *b is JT_BUF_INIT again. */
void jt_free(jt_buf *b);

/* Append v (borrowed) as compact JSON. Returns 0, or -1 when memory ran out
 * (b->failed is then set and stays set until jt_reset). Nesting deeper than
 * JT_MAX_DEPTH is refused (-1) as json_dumps refuses it. */
#define JT_MAX_DEPTH 2048
int jt_dump(jt_buf *b, const json_t *v);

/* Append n bytes of text as they are. Returns 0 or -1 (out of memory). */
int jt_raw(jt_buf *b, const char *s, size_t n);

/* Append a string as a JSON string (quoted, escaped). Returns 0 or -1. */
int jt_str(jt_buf *b, const char *s, size_t n);

/* Append an integer. Returns 0 or -1. */
int jt_int(jt_buf *b, long long v);

#endif
