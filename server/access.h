/*
 * access.h — who may create what, the per-address quota, the expiry of
 * waiting matches, and the resume-token index (access.c).
 */
#ifndef TESSERA_SERVER_ACCESS_H
#define TESSERA_SERVER_ACCESS_H

#include "internal.h"

int access_init(srv *s, char *err, size_t errcap);
/* Start / stop the sweep that expires waiting matches. */
void access_start(srv *s);
void access_stop(srv *s);
void access_free(srv *s);
/* The connection's client address (c->peer, c->addr), at its start. */
void access_conn_address(conn *c, struct lws *wsi);
/* May c, just connected, stay? false when its address already holds its
 * share of connections ([quota] connections_per_address), with the reason
 * in msg; addresses of [quota] exempt are not counted. */
bool access_conn_allowed(const conn *c, char *msg, size_t cap);
/* May c create match m (admin: it gave the right admin token)? 0, with the
 * quota key of its address in key ("" when not counted); else -1 after
 * replying forbidden or too_many. */
int access_create_check(conn *c, const proto_msg *m, bool admin, char *key, size_t keycap);
/* Count a created match against key (may be ""). */
void access_created(srv *s, match *x, const char *key);
/* Tokens are kept as hashes (SRV_TOKEN_HASH_LEN hex characters of
 * SHA-256): out receives token's. */
void access_token_hash(const char *token, char out[SRV_TOKEN_HASH_LEN + 1]);
/* Does token (as the peer sent it, may be NULL) hash to `hash`? Compared
 * in constant time. */
bool access_token_ok(const char *token, const char *hash);
/* A token restored from a journal written before tokens were hashed (its
 * text, SRV_TOKEN_LEN characters) is replaced by its hash; true if so. */
bool access_token_upgrade(char field[SRV_TOKEN_HASH_LEN + 1]);
/* Resume tokens (their hashes): index one (a seat's token was made or restored), find
 * one, forget every token of a match being freed. */
int tokidx_add(srv *s, const char *token, match *m, int seat);
match *tokidx_find(srv *s, const char *token, int *seat);
void tokidx_remove_match(srv *s, const match *m);
/* Forget one token's entry (a seat's resume token replaced by a new one). */
void tokidx_remove(srv *s, const char *token);
/* Resume tokens in the index (/metrics: per-match memory that must not pile up). */
size_t tokidx_count(const srv *s);

#endif
