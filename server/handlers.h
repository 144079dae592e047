/*
 * handlers.h — one function per client message (handlers.c), called by
 * net.c for each complete message and each closed connection.
 */
#ifndef TESSERA_SERVER_HANDLERS_H
#define TESSERA_SERVER_HANDLERS_H

#include "internal.h"

/* A complete text message of c (len bytes at buf): decoded, checked, and
 * answered; a protocol violation closes c after the reply. Returns whether
 * it was a move the server had asked for and played (it costs no rate
 * token: a bot answering at once is paced by the server, not flooding it),
 * or an info (thinking lines have a bucket of their own: limits.h). */
bool handle_message(conn *c, const char *buf, size_t len);
/* c closed: its registration, watched tournaments, seats and spectating
 * are let go. */
void handle_conn_closed(conn *c);

#endif
