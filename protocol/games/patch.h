/*
 * patch.h — private to protocol/games/: protocol 2's change (protocol/delta.h)
 * written as text straight from engine states, byte for byte what jt_dump
 * writes of delta_diff's value, for the codecs' `change` (codec.h). The
 * server sends a change with every update; writing it this way builds no
 * JSON state and no diff tree (bench/README.md).
 *
 * A patch object is written member by member: "{" before the first, ","
 * before the others, "{}" when it has none (delta_diff's "no change").
 * Members are written in the order delta.c's diff_object meets them: the
 * order of the later state's members.
 */
#ifndef TESSERA_PROTOCOL_GAMES_PATCH_H
#define TESSERA_PROTOCOL_GAMES_PATCH_H

#include "engine/textbuf.h"

typedef struct patch {
    textbuf *b; /* where it is written (borrowed) */
    int n;      /* members written so far */
} patch;

/* The next member's key and ':'; its value is written next, by the caller. */
void patch_member(patch *p, const char *key);
/* The same for an array patch's index i ("0", "1", ...). */
void patch_index(patch *p, int i);
/* Close the patch: "}" (or "{}" when no member was written). */
void patch_end(patch *p);

/* A member `key` for an array of na -> nb integers (or, when names is set,
 * the strings names(value)), as diff_array writes it: nothing when equal,
 * the whole array when more than half of it changed, else "$len" (when
 * the length changed) and the changed indices. */
void patch_ints(patch *p, const char *key, const int *a, int na, const int *b, int nb,
                const char *(*names)(int));

/* A member `key` for an array of n strings of the same length w (rows of a
 * board, row i at a + i*w, not NUL-terminated) -> b's: nothing when equal,
 * the whole array when more than half of the rows changed, else the
 * changed rows by index. */
void patch_rows(patch *p, const char *key, const char *a, const char *b, int n, int w);

#endif
