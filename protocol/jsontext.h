/*
 * jsontext.h — JSON text written fast, for the server's per-move messages.
 *
 * jt_dump() writes a jansson value as compact JSON, byte for byte what
 * json_dumps(v, JSON_COMPACT) writes (members in insertion order, UTF-8 kept
 * as is, only '"', '\\' and control characters escaped, reals as "%.17g"
 * with ".0" when that looks like an integer), but into a caller-owned
 * growing buffer (a textbuf, engine/textbuf.h) and without jansson's per-integer snprintf: profiling the
 * server showed json_dumps at half of the CPU of a move (bench/README.md).
 * A buffer is reused from message to message (tb_reset), so a turn's texts
 * cost no allocation once it has grown; tb_put() splices text already
 * written (the public state, written once per turn) into a message.
 */
#ifndef TESSERA_PROTOCOL_JSONTEXT_H
#define TESSERA_PROTOCOL_JSONTEXT_H

#include <jansson.h>
#include <stdarg.h>

#include "engine/textbuf.h"

/* Append v (borrowed) as compact JSON. Returns 0, or -1 when memory ran out
 * (b->failed is then set and stays set until tb_reset). Nesting deeper than
 * JT_MAX_DEPTH is refused (-1) as json_dumps refuses it. */
#define JT_MAX_DEPTH 2048
int jt_dump(textbuf *b, const json_t *v);

/* Append a string as a JSON string (quoted, escaped). Returns 0 or -1. */
int jt_str(textbuf *b, const char *s, size_t n);

/* Append an integer. Returns 0 or -1. */
int jt_int(textbuf *b, long long v);

/* Append a real as jt_dump writes a json_real ("%.17g", ".0" added to
 * what reads as an integer). Returns 0 or -1. */
int jt_real(textbuf *b, double d);

/* A log line's fields: jansson's pack format fmt over ap as an object (new
 * reference), or an empty object when fmt is NULL or does not pack — what
 * the services hosted by the server (tournament/, classroom/) hand their
 * host's log callback. */
json_t *jt_fields(const char *fmt, va_list ap);

#endif
