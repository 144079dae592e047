/*
 * conn.h — talking to one client connection (conn.c): queue a message, reply
 * with an error, close after the queue drains; and the transports a
 * connection runs on (conn_ops), each its own implementation: a WebSocket
 * (net.c) and another server's client whose messages come and go over
 * Redis (cluster.c). Above this header nothing knows which a connection is.
 */
#ifndef TESSERA_SERVER_CONN_H
#define TESSERA_SERVER_CONN_H

#include "internal.h"

/* A transport: what only it knows how to do. */
typedef struct conn_ops {
    const char *name; /* for logs */
    /* Output was queued, or a close is due: have it written when it may go
     * (a WebSocket: at the end of the loop round; a forwarded client: now). */
    void (*wake)(conn *c);
    /* Write what may go now (the end of the loop round, or the journal
     * released it), and the close once the queue is out. */
    void (*flush)(conn *c);
    /* The peer does not read: cut it off now, dropping what is queued. */
    void (*kill)(conn *c, const char *why);
} conn_ops;

/* A connection on a transport, with link_size bytes of the transport's own
 * (conn_link), linked into the server's connections. NULL when out of
 * memory. conn_destroy unlinks and frees it (the transport's part too). */
conn *conn_create(srv *s, const conn_ops *ops, size_t link_size);
void *conn_link(conn *c);
void conn_destroy(conn *c);

/* Queue a JSON message (steals the reference; NULL is ignored). */
void conn_send(conn *c, json_t *msg);
/* Queue an already serialised message (copied). */
void conn_send_text(conn *c, const char *text, size_t len);
/* Queue text another server's match sent to c (cluster.c): already held
 * there until stored, it goes at once. */
void conn_relay_text(conn *c, const char *text, size_t len);
/* The connection with this id, or NULL when it is gone. */
conn *conn_find(srv *s, uint64_t id);
/* Queue an error reply (docs/protocol.md, "Errors"), counted by its code;
 * id (may be NULL) is echoed. */
void conn_error(conn *c, int code, const char *message, const json_t *id);
/* Send what is queued, then close with this status and reason. */
void conn_close_after(conn *c, int status, const char *reason);

/* For the transports. */
/* The front message of c's queue if it may leave now (what it tells is
 * stored): its text and length, valid until conn_pop; NULL when the queue
 * is empty or its front waits for the journal (c is held until it may go). */
const char *conn_front(conn *c, size_t *len);
void conn_pop(conn *c);
/* c's output waits for the journal (srv->held); conn_unhold: no longer,
 * nor any output to write (the connection goes). */
void conn_hold(conn *c);
void conn_unhold(conn *c);
/* c has output to write (or a close to send) at the end of this loop round
 * (srv->flush). */
void conn_flush_later(conn *c);
/* The end of a loop round: every connection on srv->flush writes. */
void conn_flush_all(srv *s);
/* The journal stored (--durable: synced) more: held output that may go now
 * is written. */
void conn_release_held(srv *s);
/* Drop what is queued (the connection is closing or closed). */
void conn_queue_free(conn *c);
/* The message text of a queued frame (after its WebSocket header). */
const char *conn_msg_text(const outmsg *o, size_t *len);

#endif
