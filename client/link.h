/*
 * link.h — private to client/: one WebSocket client connection at a time,
 * run by libwebsockets on a libuv loop the caller owns.
 *
 * The link hides lws from the rest of the client: it parses the URL, opens
 * the connection, assembles incoming text messages, queues outgoing ones
 * (written one per WRITEABLE callback, with LWS_PRE headroom) and reports
 * three events. A link can be connected again after it closed, which is how
 * the bot client reconnects.
 *
 * Threads: every function must be called on the loop thread.
 *
 * Events: `opened` and `message` are called from inside lws callbacks —
 * they may send, drop or shut the link down, never free it. `closed` is
 * always delivered later, from a libuv timer on a clean stack, exactly once
 * per connect that did not end in a shutdown.
 */
#ifndef TESSERA_CLIENT_LINK_H
#define TESSERA_CLIENT_LINK_H

#include <stdbool.h>
#include <stddef.h>

#include <uv.h>

/* Largest message accepted from the server. The biggest legitimate ones (a
 * `joined` with a whole Carcassonne history, a `your_turn` with every legal
 * placement) are some tens of KiB; the bound keeps a broken or hostile peer
 * from making the client buffer without limit. */
#define CL_MAX_MESSAGE (4u << 20)

typedef struct cl_link cl_link;

typedef struct cl_link_events {
    void (*opened)(void *ud);                                /* the WebSocket is up */
    void (*message)(void *ud, const char *text, size_t len); /* one text message (NUL-terminated) */
    void (*closed)(void *ud, const char *why); /* the connection is gone (or never came) */
} cl_link_events;

/* Check a URL the way cl_link_create reads it. Returns 0, or -1 with a
 * reason in err. */
int cl_url_check(const char *url, char *err, size_t errcap);

/* Create a link to `url` (ws://HOST[:PORT][/PATH]) on `loop`. Nothing is
 * connected yet. Returns NULL with a reason in err on a bad URL or when lws
 * cannot start (e.g. its libuv plugin is missing). */
cl_link *cl_link_create(uv_loop_t *loop, const char *url, const cl_link_events *ev, void *ud,
                        char *err, size_t errcap);

/* Connect to `url` from the next cl_link_connect on (the connection open
 * now, if any, is not touched). Returns 0, or -1 with a reason in err on a
 * bad URL (the link keeps the one it had). */
int cl_link_set_url(cl_link *l, const char *url, char *err, size_t errcap);

/* Start connecting; `opened` or `closed` follows. Returns 0, or -1 when the
 * link is not idle (already connecting, open, or shut down). */
int cl_link_connect(cl_link *l);

/* Queue one text message. Returns 0, or -1 when the link is not open (the
 * message is dropped). */
int cl_link_send(cl_link *l, const char *text, size_t len);

/* Is the WebSocket open (handshake done, not closing)? */
bool cl_link_is_open(const cl_link *l);

/* Close the current connection at once (no close frame); `closed` follows. */
void cl_link_drop(cl_link *l);

/* Close everything and stop reporting events. lws lets go of the loop
 * asynchronously: run the loop until it returns, then call cl_link_free. */
void cl_link_shutdown(cl_link *l);

/* Free the link after cl_link_shutdown and uv_run have returned. */
void cl_link_free(cl_link *l);

#endif
