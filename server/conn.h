/*
 * conn.h — talking to one client connection: queue a message, reply with
 * an error, close after the queue drains (conn.c). The connection itself
 * (struct conn, internal.h) is made and freed by net.c.
 */
#ifndef TESSERA_SERVER_CONN_H
#define TESSERA_SERVER_CONN_H

#include "internal.h"

/* Queue a JSON message (steals the reference; NULL is ignored). */
void conn_send(conn *c, json_t *msg);
/* Queue an already serialised message (copied). */
void conn_send_text(conn *c, const char *text, size_t len);
/* Queue text another server's match sent to c (cluster.c): already held
 * there until stored, it goes at once. */
void conn_relay_text(conn *c, const char *text, size_t len);
/* c has output to write: a socket's goes at the end of the loop round
 * (net.c); a remote connection's is published to its server (cluster.c). */
void conn_wake(conn *c);
/* The message text of a queued frame (after its WebSocket header). */
const char *conn_msg_text(const outmsg *o, size_t *len);
/* The connection with this id (one of ours, or one standing for another
 * server's client), or NULL when it is gone. */
conn *conn_find(srv *s, uint64_t id);
/* Queue an error reply (docs/protocol.md, "Errors"), counted by its code;
 * id (may be NULL) is echoed. */
void conn_error(conn *c, int code, const char *message, const json_t *id);
/* Send what is queued, then close with this status and reason. */
void conn_close_after(conn *c, int status, const char *reason);
/* c's output waits for the journal (srv->held; net.c's net_release_held
 * lets it go). conn_unhold: no longer, nor any output to write (the
 * connection is freed). */
void conn_hold(conn *c);
void conn_unhold(conn *c);
/* c has output to write (or a close to send) at the end of this loop round
 * (srv->flush; net.c writes it). */
void conn_flush_later(conn *c);
/* Close the connection at once, without a close frame, dropping what is
 * queued (a peer that does not read, or went silent). */
void conn_drop(conn *c);
/* Drop what is queued (the connection is closing or closed). */
void conn_queue_free(conn *c);
#endif
