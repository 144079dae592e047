/*
 * delta.h — the state change of protocol 2 (docs/protocol.md, "Protocol 2"):
 * a compact JSON value that turns one public state into the next, so that
 * an `update` carries what changed instead of the whole state (for 2-player
 * Carcassonne about 0.2 KB instead of 2.4 KB a turn).
 *
 * A change D applied to a value A gives B:
 *   - D not an object: B is D (a number, string, boolean, null or array);
 *   - D = {"$set": V} (its only member): B is V (how an object is replaced);
 *   - otherwise D is a patch and A must be an object or an array:
 *     - A an object: each member k of D (but "$del") sets B[k] to the change
 *       D[k] applied to A[k] (null when A has no k); "$del": [names] removes
 *       members; members D does not name are kept as they are;
 *     - A an array: "$len": N (optional) makes B N long (cut, or filled with
 *       null), then each member "i" (a decimal index below that length)
 *       sets B[i] to D["i"] applied to A[i].
 * No change at all is the empty patch {}, whatever A is. Object members whose names start
 * with '$' are never patched member by member: such an object is replaced.
 *
 * delta_diff() is what the server sends; delta_apply() is the reference
 * reader (a client's, the tests' and the fuzz target's), which never trusts
 * its input: depth, lengths and every member are checked.
 */
#ifndef TESSERA_PROTOCOL_DELTA_H
#define TESSERA_PROTOCOL_DELTA_H

#include <jansson.h>
#include <stddef.h>

#define DELTA_MAX_DEPTH 64    /* nesting of a change: states are a few levels deep */
#define DELTA_MAX_LEN 100000  /* "$len": bounds what a hostile change can allocate */

/* The change that turns `from` into `to` (both borrowed). Returns a new
 * reference ({} when they are equal), or NULL when memory runs out. */
json_t *delta_diff(const json_t *from, const json_t *to);

/* `change` (borrowed) applied to `from` (borrowed; not modified). Returns a
 * new reference, or NULL with a reason in err (ENG_EBAD_MESSAGE semantics:
 * the change is malformed, or does not fit `from`; or out of memory). */
json_t *delta_apply(const json_t *from, const json_t *change, char *err, size_t errcap);

#endif
