/*
 * tokidx.h — the resume-token index: a seat found by its resume token
 * (tokidx.c). It knows a match only as a pointer and its seats' tokens.
 */
#ifndef TESSERA_SERVER_TOKIDX_H
#define TESSERA_SERVER_TOKIDX_H

#include "internal.h"

/* Make the (empty) index, s->tokidx: 0 or ENG_ENOMEM. tokidx_free frees it
 * and every entry (nothing without one). */
int tokidx_init(srv *s);
void tokidx_free(srv *s);
/* Index a token (a seat's token was made or restored), find one, forget
 * every token of a match being freed. */
int tokidx_add(srv *s, const char *token, match *m, int seat);
match *tokidx_find(srv *s, const char *token, int *seat);
void tokidx_remove_match(srv *s, const match *m);
/* Forget one token's entry (a seat's resume token replaced by a new one). */
void tokidx_remove(srv *s, const char *token);
/* Tokens are kept as hashes (SRV_TOKEN_HASH_LEN hex characters of
 * SHA-256): out receives token's. The index holds hashes. */
void access_token_hash(const char *token, char out[SRV_TOKEN_HASH_LEN + 1]);
/* Does token (as the peer sent it, may be NULL) hash to `hash`? Compared
 * in constant time. */
bool access_token_ok(const char *token, const char *hash);
/* A token restored from a journal written before tokens were hashed (its
 * text, SRV_TOKEN_LEN characters) is replaced by its hash; true if so. */
bool access_token_upgrade(char field[SRV_TOKEN_HASH_LEN + 1]);
/* Resume tokens in the index (/metrics: per-match memory that must not pile up). */
size_t tokidx_count(const srv *s);

#endif
