/*
 * net.c — libwebsockets on the server's libuv loop: the WebSocket endpoint,
 * static HTTP for web/, and everything about a connection that is not the
 * protocol itself — assembling messages, refusing oversized and binary ones,
 * the per-connection rate limit, bounded output queues, closing.
 *
 * lws rules we live by (docs/ARCHITECTURE.md, "Dependencies"): our protocol
 * is the first in the list, so WebSocket clients that name no subprotocol
 * land on it, and every HTTP event is passed on to lws_callback_http_dummy
 * so the web/ mount and 404s keep working; a connection is freed only in its
 * CLOSED callback, never from inside our own handlers.
 *
 * Output: a connection's queued messages (WebSocket frames already, conn.c)
 * are written at the end of each loop round — from a prepare and a check
 * handle, outside lws' callbacks — all of them in one write, given to lws
 * raw (it keeps and finishes a partial write itself, asking for POLLOUT);
 * the WRITEABLE callback is only for what does not fit in one write, the
 * rest after lws' partial write, and the close frame. On lws' libuv loop
 * every POLLOUT request costs two epoll_ctl calls, so a turn written this
 * way costs one send(2) per connection and no epoll_ctl.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include "access.h"
#include "cluster.h"
#include "conn.h"
#include "handlers.h"
#include "http_policy.h"
#include "internal.h"
#include "net.h"
#include "registry.h"
#include "table.h"
#include "journal/journal.h"
#include "match.h"

/* A WebSocket connection's own (conn_link): the socket, the message being
 * assembled, the write and close state, keep-alive, the rate limit. */
typedef struct ws {
    struct lws *wsi;             /* NULL once lws closed it */
    bool hello_seen;             /* its hello timeout was lifted */
    bool close_sent;             /* our close frame is out; awaiting the peer's */
    bool write_asked;            /* lws was asked for a WRITEABLE callback, not yet had */
    bool kill;                   /* drop it at its next WRITEABLE callback (no close frame) */
    char *rx;                    /* message being assembled */
    size_t rx_len, rx_cap;
    bool rx_skip;                /* discarding the rest of an oversized/binary message */
    uint64_t heard_ms;           /* loop ms when a frame (any: a message, a pong) last came */
    uint64_t pinged_ms;          /* loop ms of our last ping (0: none since then) */
    double tokens;               /* the rate limit's bucket ... */
    uint64_t tokens_at_ms;       /* ... as of then */
    int floods;
} ws;

extern const conn_ops ws_ops;

static ws *ws_of(conn *c)
{
    return conn_link(c);
}

/* Token bucket: false when the message must be refused. A registered bot
 * plays up to `capacity` games at once: its rate and burst scale with it. */
static bool rate_ok(conn *c)
{
    ws *w = ws_of(c);
    uint64_t now = srv_now(c->srv);
    const srv_config *cfg = &c->srv->cfg;
    double scale = c->reg ? c->reg->capacity : 1;
    double add = (double)(now - w->tokens_at_ms) * cfg->rate_per_sec * scale / 1000.0;
    w->tokens_at_ms = now;
    w->tokens += add;
    if (w->tokens > cfg->rate_burst * scale)
        w->tokens = cfg->rate_burst * scale;
    if (w->tokens < 1.0)
        return false;
    w->tokens -= 1.0;
    return true;
}

static void on_message(conn *c)
{
    ws *w = ws_of(c);
    if (!rate_ok(c)) {
        if (++w->floods > SRV_MAX_FLOODS) {
            conn_error(c, WIRE_ERATE, "too many messages; closing", NULL);
            conn_close_after(c, LWS_CLOSE_STATUS_POLICY_VIOLATION, "rate limit");
        } else {
            /* a refused request with an id gets its reply, as every request
             * does (a client waiting for it is not left hanging); one without
             * is told at the first refusal and every 50th. Bounded: past
             * SRV_MAX_FLOODS refusals the connection is closed. */
            json_t *id = proto_peek_id(w->rx, w->rx_len);
            if (id || w->floods == 1 || w->floods % 50 == 0) {
                char msg[96];
                snprintf(msg, sizeof msg, "more than %d messages per second; message dropped",
                         c->srv->cfg.rate_per_sec);
                conn_error(c, WIRE_ERATE, msg, id);
            }
            json_decref(id);
        }
        return;
    }
    /* a move the server asked for and played costs no rate token: a bot
     * answering at once against instant opponents (or in many games at
     * once) is paced by the server, not flooding it */
    if (handle_message(c, w->rx, w->rx_len))
        w->tokens += 1.0;
    if (c->hello && !w->hello_seen) { /* hello came: no more waiting for it */
        w->hello_seen = true;
        lws_set_timeout(w->wsi, NO_PENDING_TIMEOUT, 0);
    }
}

static int receive(conn *c, struct lws *wsi, const char *in, size_t len)
{
    ws *w = ws_of(c);
    w->heard_ms = srv_now(c->srv);
    w->pinged_ms = 0;
    if (c->closing)
        return 0;
    bool first = lws_is_first_fragment(wsi), final = lws_is_final_fragment(wsi) &&
                                                   lws_remaining_packet_payload(wsi) == 0;
    if (first)
        w->rx_skip = false;
    if (w->rx_skip) {
        if (final)
            w->rx_skip = false;
        return 0;
    }
    if (lws_frame_is_binary(wsi)) {
        w->rx_len = 0;
        conn_error(c, WIRE_EBINARY, "binary frames are not accepted; send JSON text", NULL);
        conn_close_after(c, LWS_CLOSE_STATUS_UNACCEPTABLE_OPCODE, "binary frame");
        w->rx_skip = !final;
        return 0;
    }
    if (w->rx_len + len > SRV_MAX_MESSAGE) {
        char msg[96];
        snprintf(msg, sizeof msg, "a message may hold at most %d bytes", SRV_MAX_MESSAGE);
        w->rx_len = 0;
        conn_error(c, ENG_ETOO_LARGE, msg, NULL);
        conn_close_after(c, LWS_CLOSE_STATUS_MESSAGE_TOO_LARGE, "message too large");
        w->rx_skip = !final;
        return 0;
    }
    if (w->rx_len + len + 1 > w->rx_cap) {
        size_t cap = w->rx_cap ? w->rx_cap : 1024;
        while (cap < w->rx_len + len + 1)
            cap *= 2;
        char *p = realloc(w->rx, cap);
        if (!p)
            return -1;
        w->rx = p;
        w->rx_cap = cap;
    }
    memcpy(w->rx + w->rx_len, in, len);
    w->rx_len += len;
    w->rx[w->rx_len] = 0;
    if (final) {
        c->rx_ns = uv_hrtime();
        on_message(c);
        w->rx_len = 0;
        /* do not keep a large buffer for an idle connection */
        if (w->rx_cap > 16384) {
            free(w->rx);
            w->rx = NULL;
            w->rx_cap = 0;
        }
    }
    return 0;
}

/* ---- output ----------------------------------------------------------------------- */

/* At most this many bytes go to lws in one write: one send(2) (the
 * protocol's tx_packet_size); a connection with more waits for WRITEABLE. */
#define WRITE_CHUNK 65536

static void ask_writable(conn *c)
{
    ws *w = ws_of(c);
    if (w->write_asked || !w->wsi)
        return;
    w->write_asked = true;
    lws_callback_on_writable(w->wsi);
}

/* Close the connection at once, without a close frame, dropping what is
 * queued (a peer that does not read, or went silent). */
static void drop(conn *c)
{
    ws *w = ws_of(c);
    if (!w->wsi || w->kill)
        return;
    c->closing = true;
    w->kill = true;
    conn_queue_free(c);
    /* its WRITEABLE callback returns -1: lws closes it at once (a timeout
     * set from outside lws' own callbacks may wait for its next service) */
    w->write_asked = true;
    lws_callback_on_writable(w->wsi);
}

/* A peer that lets its queue grow without reading is cut off at once: we
 * cannot even send it a close frame. */
static void ws_kill(conn *c, const char *why)
{
    ws *w = ws_of(c);
    if (!w->wsi || c->closing)
        return;
    srv_log(LOG_WARN, "conn_killed", "{s:I, s:s, s:s}", "conn", (json_int_t)c->id, "peer", c->peer,
            "reason", why);
    drop(c);
}

/* Write the front of c's queue that may leave now (not held for the
 * journal), up to WRITE_CHUNK bytes, in one write. The messages are
 * WebSocket frames already (conn.c), so lws is given them as they are
 * (LWS_WRITE_RAW): one send(2) for a turn's update and your_turn, and no
 * WRITEABLE callback (two epoll_ctl calls each on lws' libuv loop) unless
 * the socket does not take it all, when lws keeps the rest and asks for one
 * itself. Returns how many bytes were written, or -1 when the write failed. */
static long push_out(conn *c)
{
    srv *s = c->srv;
    struct lws *wsi = ws_of(c)->wsi;
    if (!wsi || ws_of(c)->close_sent || !c->head)
        return 0;
    if (lws_partial_buffered(wsi)) {
        ask_writable(c); /* lws writes its rest first, then calls back */
        return 0;
    }
    uint64_t synced = journal_synced(s->db);
    size_t total = 0;
    int n = 0;
    outmsg *o = c->head;
    while (o && !(o->hold && o->hold > synced) && (n == 0 || total + o->len <= WRITE_CHUNK)) {
        total += o->len;
        n++;
        o = o->next;
    }
    if (n > 0) {
        unsigned char *b = c->head->buf;
        if (n > 1) { /* gathered into one buffer, with lws' headroom */
            if (s->wbuf_cap < LWS_PRE + total) {
                unsigned char *p = realloc(s->wbuf, LWS_PRE + total);
                if (!p)
                    return -1;
                s->wbuf = p;
                s->wbuf_cap = LWS_PRE + total;
            }
            b = s->wbuf;
            size_t at = LWS_PRE;
            for (outmsg *q = c->head; q != o; q = q->next) {
                memcpy(b + at, q->buf + LWS_PRE, q->len);
                at += q->len;
            }
        }
        if (lws_write(wsi, b + LWS_PRE, total, LWS_WRITE_RAW) < (int)total)
            return -1;
        s->writes++;
        while (c->head != o)
            conn_pop(c);
    }
    if (c->head) {
        if (c->head->hold && c->head->hold > synced)
            conn_hold(c); /* conn_release_held comes back to it */
        else
            ask_writable(c); /* more than one chunk */
    }
    return (long)total;
}

/* The end of a loop round (and a release by the journal): write the
 * waiting output; a connection that is closing and has sent everything
 * gets its WRITEABLE callback for the close frame. */
static void ws_flush(conn *c)
{
    if (push_out(c) < 0) {
        drop(c); /* outside lws' callbacks: lws closes it, its CLOSED follows */
        return;
    }
    if (c->closing && !c->head && !ws_of(c)->close_sent)
        ask_writable(c);
}

const conn_ops ws_ops = {"websocket", conn_flush_later, ws_flush, ws_kill};

/* ---- keep-alive ---------------------------------------------------------------------- */

/* A connection that sent nothing (no message, no pong) for a while is
 * pinged; one silent for the idle timeout is dropped (a half-open TCP
 * connection, a client that stopped reading). Any frame received counts:
 * a client that plays needs no pings. One timer walks the connections a few
 * times per ping interval. */
static uint64_t ping_after_ms(const srv *s)
{
    return s->idle_timeout_s == SRV_HANGUP_IDLE_S ? SRV_PING_IDLE_S * 1000u
                                                  : (uint64_t)s->idle_timeout_s * 1000u / 3;
}

/* A ping ahead of the queue: a control frame may go between messages, and
 * it must not wait behind messages held for the journal. It carries a byte:
 * lws 4.1 tells us of a pong only when it has a payload. */
static void send_ping(conn *c)
{
    outmsg *o = malloc(sizeof *o + LWS_PRE + 3);
    if (!o)
        return;
    o->hold = 0;
    o->len = 3;
    o->buf[LWS_PRE] = 0x89; /* FIN, ping */
    o->buf[LWS_PRE + 1] = 1;
    o->buf[LWS_PRE + 2] = 't';
    o->next = c->head;
    c->head = o;
    if (!c->tail)
        c->tail = o;
    c->queued += o->len;
    conn_flush_later(c);
}

static void keep_sweep(uv_timer_t *t)
{
    srv *s = t->data;
    uint64_t now = srv_now(s), ping = ping_after_ms(s), hangup = (uint64_t)s->idle_timeout_s * 1000;
    for (conn *c = s->conns; c; c = c->next) {
        if (c->ops != &ws_ops) /* another server's client: that server keeps it */
            continue;
        ws *w = ws_of(c);
        if (!w->wsi || w->kill)
            continue;
        uint64_t quiet = now - w->heard_ms;
        if (quiet >= hangup) {
            /* not while the peer's frames wait unread in the socket: a busy
             * or starved server is late, the peer is not silent */
            int unread = 0;
            if (ioctl(lws_get_socket_fd(w->wsi), FIONREAD, &unread) == 0 && unread > 0)
                continue;
            srv_log(LOG_INFO, "conn_idle", "{s:I, s:s, s:I}", "conn", (json_int_t)c->id, "peer",
                    c->peer, "quiet_ms", (json_int_t)quiet);
            drop(c);
        } else if (!c->closing && quiet >= ping && (!w->pinged_ms || now - w->pinged_ms >= ping)) {
            /* (a closing one gets no ping: its close waits for the queue, which a
             * peer that stopped reading never drains — the hang-up above ends it) */
            w->pinged_ms = now;
            send_ping(c);
        }
    }
    conn_flush_all(s);
}

static void release_held(void *s)
{
    /* the your_turns let go first start their seats' clocks and join the
     * queues released next, so a turn's update and your_turn leave in one write */
    match_clocks_released(s);
    conn_release_held(s);
}

static void on_out_prep(uv_prepare_t *h)
{
    conn_flush_all(h->data);
}

static void on_out_check(uv_check_t *h)
{
    conn_flush_all(h->data);
}

/* The WRITEABLE callback: lws has written the rest of an earlier write, or
 * the queue is longer than one write, or the close frame is due. */
static int writeable(conn *c, struct lws *wsi)
{
    ws *w = ws_of(c);
    /* a close sent, a drop asked for: both only once the connection closes */
    SRV_ASSERT((!w->close_sent && !w->kill) || c->closing);
    w->write_asked = false;
    if (w->kill)
        return -1; /* drop */
    long wrote = push_out(c);
    if (wrote < 0)
        return -1;
    if (c->head || !c->closing || w->close_sent)
        return 0;
    if (wrote > 0 || lws_partial_buffered(wsi)) {
        /* the close frame goes in a callback of its own, after the last
         * message has fully left: the client reads every reply first */
        ask_writable(c);
        return 0;
    }
    /* lws 4.1 kills the socket without a close frame when a callback
     * returns -1, so clients saw 1006 and could lose the last replies.
     * We send the close frame ourselves (opcode 8; lws' internal
     * LWS_WRITE_CLOSE is 4) and let the client answer it: lws then ends
     * the connection cleanly. A client that never answers is dropped by
     * the timeout. */
    unsigned char frame[LWS_PRE + 2 + sizeof c->close_reason];
    size_t n = strlen(c->close_reason);
    frame[LWS_PRE] = (unsigned char)(c->close_status >> 8);
    frame[LWS_PRE + 1] = (unsigned char)(c->close_status & 0xff);
    memcpy(frame + LWS_PRE + 2, c->close_reason, n);
    w->close_sent = true;
    lws_set_timeout(wsi, PENDING_TIMEOUT_CLOSE_ACK, 3);
    if (lws_write(wsi, frame + LWS_PRE, 2 + n, (enum lws_write_protocol)4) < (int)(2 + n))
        return -1;
    return 0;
}

static int callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                    size_t len)
{
    conn **pc = user;
    struct lws_context *ctx = lws_get_context(wsi);
    srv *s = lws_context_user(ctx);
    switch (reason) {
    case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION: {
        /* a browser page of another site: refused before the upgrade */
        char why[160];
        if (http_origin_ok(s, wsi, why, sizeof why))
            return 0;
        s->cnt.conns_refused++;
        srv_log(LOG_INFO, "origin_refused", "{s:s}", "why", why);
        lws_return_http_status(wsi, HTTP_STATUS_FORBIDDEN, "this page's origin may not connect");
        return 1;
    }
    case LWS_CALLBACK_ESTABLISHED: {
        char msg[160];
        conn *c = conn_create(s, &ws_ops, sizeof(ws));
        if (!c)
            return -1;
        *pc = c;
        ws *w = ws_of(c);
        w->wsi = wsi;
        w->tokens = s->cfg.rate_burst;
        w->tokens_at_ms = srv_now(s);
        w->heard_ms = srv_now(s);
        access_conn_address(c, wsi);
        s->nconns++;
        srv_log(LOG_DEBUG, "conn_open", "{s:I, s:s}", "conn", (json_int_t)c->id, "peer", c->peer);
        if (s->stopping) {
            s->cnt.conns_refused++;
            conn_error(c, ENG_ESHUTTING_DOWN, "the server is shutting down", NULL);
            conn_close_after(c, LWS_CLOSE_STATUS_GOINGAWAY, "shutting down");
        } else if (s->nconns > s->cfg.max_conns) {
            s->cnt.conns_refused++;
            snprintf(msg, sizeof msg, "the server holds its maximum of %d connections",
                     s->cfg.max_conns);
            conn_error(c, ENG_ETOO_MANY, msg, NULL);
            conn_close_after(c, 1013 /* try again later */, "too many connections");
        } else if (!access_conn_allowed(c, msg, sizeof msg)) {
            s->cnt.conns_refused++; /* [quota] connections_per_address */
            conn_error(c, ENG_ETOO_MANY, msg, NULL);
            conn_close_after(c, 1013 /* try again later */, "too many connections from your address");
        } else {
            s->cnt.conns_accepted++;
            lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, SRV_HELLO_TIMEOUT_S);
        }
        return 0;
    }
    case LWS_CALLBACK_RECEIVE:
        if (!*pc)
            return -1;
        return receive(*pc, wsi, in, len);
    case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
        /* lws does not know of the close frame writeable() sent, and takes
         * the client's answer to it for a close of its own, which it would
         * echo: a second close frame (RFC 6455 5.5.1 allows one; browsers
         * log "Close received after close"). Nonzero: lws closes without. */
        if (*pc && ws_of(*pc)->close_sent)
            return -1;
        return 0;
    case LWS_CALLBACK_RECEIVE_PONG:
        if (*pc) {
            ws_of(*pc)->heard_ms = srv_now(s);
            ws_of(*pc)->pinged_ms = 0;
        }
        return 0;
    case LWS_CALLBACK_SERVER_WRITEABLE:
        if (!*pc)
            return -1;
        return writeable(*pc, wsi);
    case LWS_CALLBACK_CLOSED: {
        conn *c = *pc;
        if (!c)
            return 0;
        srv_log(LOG_DEBUG, "conn_closed", "{s:I}", "conn", (json_int_t)c->id);
        c->closing = true; /* nothing more is queued to it */
        handle_conn_closed(c);
        s->nconns--;
        free(ws_of(c)->rx);
        conn_destroy(c); /* off the held and flush lists, its queue freed */
        *pc = NULL;
        return 0;
    }
    default:
        break;
    }
    return lws_callback_http_dummy(wsi, reason, user, in, len);
}

/* ---- the operator's endpoints: /metrics, /healthz, /readyz -------------------------- */

/* One HTTP request to them: the response's body, written in pieces. */
typedef struct http_sess {
    char *body;
    size_t len, sent;
} http_sess;

/* The response to GET path: status, content type, body (malloc'd). */
static int http_answer(srv *s, struct lws *wsi, const char *path, const char **ctype, char **body,
                       size_t *len)
{
    *ctype = "text/plain; charset=utf-8";
    char text[512];
    int status = HTTP_STATUS_OK;
    if (strcmp(path, "/metrics") == 0) {
        char peer[64];
        srv_cidr a;
        lws_get_peer_simple(wsi, peer, sizeof peer);
        if (!s->cfg.metrics) {
            status = HTTP_STATUS_NOT_FOUND;
            snprintf(text, sizeof text, "metrics are off on this server ([metrics] enabled)\n");
        } else if (s->nmetrics_allow &&
                   !(srv_addr_parse(peer, &a) &&
                     srv_cidr_match(s->metrics_allow, s->nmetrics_allow, &a))) {
            status = HTTP_STATUS_FORBIDDEN;
            snprintf(text, sizeof text, "not allowed from this address ([metrics] allow)\n");
        } else {
            *body = metrics_text(s, len);
            *ctype = "text/plain; version=0.0.4; charset=utf-8";
            if (*body)
                return status;
            status = HTTP_STATUS_INTERNAL_SERVER_ERROR;
            snprintf(text, sizeof text, "out of memory\n");
        }
    } else if (strcmp(path, "/healthz") == 0) {
        /* the loop answers: the process is alive and not stuck */
        snprintf(text, sizeof text, "ok\n");
    } else if (strcmp(path, "/readyz") == 0) {
        const char *why = metrics_not_ready(s);
        if (why) {
            status = HTTP_STATUS_SERVICE_UNAVAILABLE;
            snprintf(text, sizeof text, "not ready: %s\n", why);
        } else {
            snprintf(text, sizeof text, "ready\n");
        }
    } else {
        status = HTTP_STATUS_NOT_FOUND;
        snprintf(text, sizeof text, "not found\n");
    }
    *len = strlen(text);
    *body = strdup(text);
    return *body ? status : HTTP_STATUS_INTERNAL_SERVER_ERROR;
}

static int http_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                         size_t len)
{
    http_sess *h = user;
    srv *s = lws_context_user(lws_get_context(wsi));
    switch (reason) {
    case LWS_CALLBACK_HTTP: {
        char path[128];
        if (lws_hdr_copy(wsi, path, sizeof path, WSI_TOKEN_GET_URI) <= 0) {
            /* not a GET (a POST, a HEAD, ...) */
            lws_return_http_status(wsi, HTTP_STATUS_METHOD_NOT_ALLOWED, NULL);
            return lws_http_transaction_completed(wsi) ? -1 : 0;
        }
        s->cnt.http_requests++;
        const char *ctype;
        free(h->body);
        h->body = NULL;
        int status = http_answer(s, wsi, path, &ctype, &h->body, &h->len);
        h->sent = 0;
        unsigned char hdr[LWS_PRE + 512], *start = hdr + LWS_PRE, *p = start,
                                          *end = hdr + sizeof hdr - 1;
        if (lws_add_http_common_headers(wsi, (unsigned)status, ctype, h->body ? h->len : 0, &p,
                                        end) ||
            lws_add_http_header_by_token(wsi, WSI_TOKEN_HTTP_CACHE_CONTROL,
                                         (const unsigned char *)"no-store", 8, &p, end) ||
            lws_finalize_write_http_header(wsi, start, &p, end))
            return 1;
        lws_callback_on_writable(wsi);
        return 0;
    }
    case LWS_CALLBACK_HTTP_WRITEABLE: {
        if (!h->body)
            return lws_http_transaction_completed(wsi) ? -1 : 0;
        size_t chunk = h->len - h->sent > 16384 ? 16384 : h->len - h->sent;
        unsigned char *b = malloc(LWS_PRE + chunk + 1);
        if (!b)
            return -1;
        memcpy(b + LWS_PRE, h->body + h->sent, chunk);
        bool last = h->sent + chunk == h->len;
        int n = lws_write(wsi, b + LWS_PRE, chunk, last ? LWS_WRITE_HTTP_FINAL : LWS_WRITE_HTTP);
        free(b);
        if (n < (int)chunk)
            return -1;
        h->sent += chunk;
        if (!last) {
            lws_callback_on_writable(wsi);
            return 0;
        }
        free(h->body);
        h->body = NULL;
        return lws_http_transaction_completed(wsi) ? -1 : 0;
    }
    case LWS_CALLBACK_CLOSED_HTTP:
    case LWS_CALLBACK_HTTP_DROP_PROTOCOL:
        if (h) {
            free(h->body);
            h->body = NULL;
        }
        break;
    default: break;
    }
    return lws_callback_http_dummy(wsi, reason, user, in, len);
}

static struct lws_protocols protocols[] = {
    /* first: WebSocket clients naming no subprotocol (browsers, most
     * libraries) and plain HTTP both land here */
    {"tessera", callback, sizeof(conn *), 4096, 0, NULL, WRITE_CHUNK},
    /* the operator's endpoints, reached through their mounts (net_start) */
    {"tessera-http", http_callback, sizeof(http_sess), 0, 0, NULL, 0},
    {NULL, NULL, 0, 0, 0, NULL, 0}, /* lws 4.1: a zeroed entry ends the list */
};

/* ---- TLS ----------------------------------------------------------------------------- */

/* Check the certificate and key before lws sees them: lws 4.1 only logs
 * why a vhost's TLS could not be set up. Returns 0, or -1 with the reason. */
static int tls_check(const srv_config *cfg, char *err, size_t errcap)
{
    if (!cfg->tls_cert && !cfg->tls_key)
        return 0;
    if (!cfg->tls_cert || !cfg->tls_key) {
        snprintf(err, errcap, "TLS needs both tls.cert and tls.key (only %s is set)",
                 cfg->tls_cert ? "tls.cert" : "tls.key");
        return -1;
    }
    FILE *f = fopen(cfg->tls_cert, "r");
    if (!f) {
        snprintf(err, errcap, "tls.cert %s: %s", cfg->tls_cert, strerror(errno));
        return -1;
    }
    X509 *x = PEM_read_X509(f, NULL, NULL, NULL);
    fclose(f);
    if (!x) {
        snprintf(err, errcap, "tls.cert %s: not a PEM certificate", cfg->tls_cert);
        return -1;
    }
    f = fopen(cfg->tls_key, "r");
    if (!f) {
        X509_free(x);
        snprintf(err, errcap, "tls.key %s: %s", cfg->tls_key, strerror(errno));
        return -1;
    }
    EVP_PKEY *k = PEM_read_PrivateKey(f, NULL, NULL, NULL);
    fclose(f);
    int rc = 0;
    if (!k) {
        snprintf(err, errcap, "tls.key %s: not a PEM private key (or one with a passphrase)",
                 cfg->tls_key);
        rc = -1;
    } else if (X509_check_private_key(x, k) != 1) {
        snprintf(err, errcap, "tls.key %s is not the key of the certificate %s", cfg->tls_key,
                 cfg->tls_cert);
        rc = -1;
    }
    ERR_clear_error();
    EVP_PKEY_free(k);
    X509_free(x);
    return rc;
}

static void lws_log_to_ours(int level, const char *line)
{
    size_t n = strlen(line);
    while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
        n--;
    srv_log(level == LLL_ERR ? LOG_ERROR : LOG_WARN, "lws", "{s:s%}", "message", line, n);
}

/* Can we listen on host:port? lws 4.1 does not tell us in a form we can read
 * (a failed vhost is only logged), so bind and listen on a socket of our own
 * first, with SO_REUSEADDR as lws does, and close it. Returns 0 when it
 * works (or host names a network interface, which lws resolves itself), else
 * -1 with the reason in err ("port 8080 is in use ..."). */
static int listen_check(const char *host, int port, char *err, size_t errcap)
{
    const char *where = host ? host : "*";
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE;
    char service[16];
    snprintf(service, sizeof service, "%d", port);
    if (getaddrinfo(host, service, &hints, &res) != 0) {
        if (host && if_nametoindex(host))
            return 0;
        snprintf(err, errcap,
                 "cannot listen on %s:%d: '%s' is neither an address nor a network interface of "
                 "this machine",
                 where, port, where);
        return -1;
    }
    int why = 0;
    for (struct addrinfo *a = res; a && !why; a = a->ai_next) {
        int fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
        if (fd < 0)
            continue; /* e.g. no IPv6 on this machine */
        int one = 1, zero = 0;
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (a->ai_family == AF_INET6) /* lws listens dual-stack */
            setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);
        if (bind(fd, a->ai_addr, a->ai_addrlen) != 0 || listen(fd, 1) != 0)
            why = errno;
        close(fd);
    }
    freeaddrinfo(res);
    switch (why) {
    case 0: return 0;
    case EADDRINUSE:
        snprintf(err, errcap,
                 "port %d is in use (another program listens on it): choose another with --port, "
                 "or --port 0 for any free port",
                 port);
        break;
    case EACCES:
        snprintf(err, errcap,
                 "cannot listen on port %d: permission denied (ports below 1024 need root or "
                 "CAP_NET_BIND_SERVICE)",
                 port);
        break;
    case EADDRNOTAVAIL:
        snprintf(err, errcap, "cannot listen on %s:%d: %s is not an address of this machine", where,
                 port, where);
        break;
    default: snprintf(err, errcap, "cannot listen on %s:%d: %s", where, port, strerror(why));
    }
    return -1;
}

/* What lws is told to bind: lws 4.1 takes an address or an interface name,
 * not a host name, so a name ("localhost") is resolved here to its first
 * address (IPv4 first). NULL: every interface. */
static const char *bind_address(const char *host, char *out, size_t cap)
{
    struct in6_addr a6;
    if (!host || inet_pton(AF_INET, host, &a6) == 1 || inet_pton(AF_INET6, host, &a6) == 1 ||
        if_nametoindex(host))
        return host;
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_socktype = SOCK_STREAM;
    if (getaddrinfo(host, NULL, &hints, &res) != 0 || !res)
        return host; /* listen_check() has said why */
    const struct addrinfo *pick = res;
    for (const struct addrinfo *a = res; a; a = a->ai_next)
        if (a->ai_family == AF_INET) {
            pick = a;
            break;
        }
    if (getnameinfo(pick->ai_addr, pick->ai_addrlen, out, (socklen_t)cap, NULL, 0,
                    NI_NUMERICHOST) != 0)
        snprintf(out, cap, "%s", host);
    freeaddrinfo(res);
    return out;
}

int net_start(srv *s, char *err, size_t errcap)
{
    s->sink = &table_sink; /* the tables hear their matches' events from now on */
    if (s->db) /* held output goes once the journal has stored (--durable: synced) it */
        journal_on_synced(s->db, release_held, s);
    /* TESSERA_LWS_DEBUG=1 shows libwebsockets' own notices and info (debugging) */
    const char *dbg = getenv("TESSERA_LWS_DEBUG");
    lws_set_log_level(dbg && *dbg == '1' ? LLL_ERR | LLL_WARN | LLL_NOTICE | LLL_INFO
                                         : LLL_ERR | LLL_WARN,
                      lws_log_to_ours);
    struct lws_context_creation_info info;
    memset(&info, 0, sizeof info);
    void *loops[1] = {s->loop};
    info.port = s->cfg.port;
    info.iface = bind_address(s->cfg.host, s->bind_host, sizeof s->bind_host);
    info.protocols = protocols;
    info.vhost_name = "tessera";
    info.options = LWS_SERVER_OPTION_LIBUV;
    /* lws 4.1 with IPv6 enabled reads an IPv4 address in `iface` as no
     * interface at all and listens on every address: an IPv4 address gets an
     * IPv4-only vhost, which binds to it */
    struct in_addr v4;
    if (info.iface && inet_pton(AF_INET, info.iface, &v4) == 1)
        info.options |= LWS_SERVER_OPTION_DISABLE_IPV6;
    if (tls_check(&s->cfg, err, errcap))
        return ENG_EIO;
    if (s->cfg.tls_cert) {
        info.options |= LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT;
        info.ssl_cert_filepath = s->cfg.tls_cert;
        info.ssl_private_key_filepath = s->cfg.tls_key;
        /* HTTP/1.1 only: browsers would otherwise speak HTTP/2, over which
         * lws 4.1 carries WebSocket only in a mode we do not use */
        info.alpn = "http/1.1";
        s->tls = true;
    }
    info.foreign_loops = loops;
    info.user = s;
    /* keep-alive is ours (keep_sweep): lws' own (a hang-up of 0 turns it
     * off) keeps a timer per connection in one sorted list, re-inserted at
     * each ping and pong — at 10,000 connections two thirds of the
     * server's CPU went into walking that list */
    memset(&s->keepalive, 0, sizeof s->keepalive);
    info.retry_and_idle_policy = &s->keepalive;
    info.timeout_secs = 10;
    info.server_string = "tessera";
    info.headers = http_security_headers(); /* on every HTTP response */
    /* the operator's endpoints: callback mounts ahead of the web UI's files */
    static const char *const endpoints[] = {"/metrics", "/healthz", "/readyz"};
    memset(s->endpoints, 0, sizeof s->endpoints);
    for (int i = 0; i < 3; i++) {
        struct lws_http_mount *mt = &s->endpoints[i];
        mt->mountpoint = endpoints[i];
        mt->mountpoint_len = (unsigned char)strlen(endpoints[i]);
        mt->origin = "tessera-http";
        mt->origin_protocol = LWSMPRO_CALLBACK;
        mt->mount_next = i < 2 ? &s->endpoints[i + 1] : NULL;
    }
    info.mounts = s->endpoints;
    if (s->cfg.web_root) {
        snprintf(s->web_root, sizeof s->web_root, "%s", s->cfg.web_root);
        memset(&s->mount, 0, sizeof s->mount);
        s->mount.mountpoint = "/";
        s->mount.mountpoint_len = 1;
        s->mount.origin = s->web_root;
        s->mount.def = "index.html";
        s->mount.origin_protocol = LWSMPRO_FILE;
        s->mount.cache_max_age = 0;
        s->endpoints[2].mount_next = &s->mount;
    }
    if (listen_check(s->cfg.host, s->cfg.port, err, errcap))
        return ENG_EIO;
    s->ctx = lws_create_context(&info);
    if (!s->ctx) {
        snprintf(err, errcap,
                 "cannot start libwebsockets on %s:%d (is libwebsockets-evlib-uv installed? "
                 "lws loads its libuv support from it)",
                 s->cfg.host ? s->cfg.host : "*", s->cfg.port);
        return ENG_EIO;
    }
    /* lws 4.1 on a foreign loop: a vhost that cannot listen (port taken, no
     * such address) is only logged ("Failed to create default vhost") and
     * the context is returned all the same, serving nothing */
    struct lws_vhost *vh = lws_get_vhost_by_name(s->ctx, "tessera");
    int port = vh ? lws_get_vhost_listen_port(vh) : 0;
    if (port <= 0) { /* between our check and lws' bind: another program was faster */
        snprintf(err, errcap,
                 "cannot listen on %s:%d: libwebsockets could not create its listening socket "
                 "(its log lines above say why)",
                 s->cfg.host ? s->cfg.host : "*", s->cfg.port);
        return ENG_EIO; /* the caller destroys the context */
    }
    s->cfg.port = port;
    s->listening = true;
    uv_timer_init(s->loop, &s->keep_timer);
    s->keep_timer.data = s;
    uint64_t tick = (uint64_t)ping_after_ms(s) / 3;
    uv_timer_start(&s->keep_timer, keep_sweep, tick, tick);
    uv_unref((uv_handle_t *)&s->keep_timer);
    s->keep_timer_on = true;
    uv_prepare_init(s->loop, &s->out_prep);
    uv_check_init(s->loop, &s->out_check);
    s->out_prep.data = s->out_check.data = s;
    uv_prepare_start(&s->out_prep, on_out_prep);
    uv_check_start(&s->out_check, on_out_check);
    uv_unref((uv_handle_t *)&s->out_prep);
    uv_unref((uv_handle_t *)&s->out_check);
    s->out_handles = true;
    return 0;
}

void net_stop(srv *s)
{
    if (s->keep_timer_on) {
        uv_close((uv_handle_t *)&s->keep_timer, NULL);
        s->keep_timer_on = false;
    }
    if (s->out_handles) {
        conn_flush_all(s); /* the goodbyes */
        uv_close((uv_handle_t *)&s->out_prep, NULL);
        uv_close((uv_handle_t *)&s->out_check, NULL);
        s->out_handles = false;
    }
    if (s->ctx)
        lws_context_destroy(s->ctx);
}
