/*
 * access.h — who may create what, the per-address quota, the expiry of
 * waiting matches (access.c).
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
#endif
