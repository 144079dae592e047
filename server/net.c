/*
 * net.c — libwebsockets on the server's libuv loop: the WebSocket endpoint,
 * static HTTP for web/, and everything about a connection that is not the
 * protocol itself — assembling messages, refusing oversized and binary ones,
 * the per-connection rate limit, bounded output queues, closing.
 *
 * lws rules we live by (docs/ARCHITECTURE.md, "Dependencies"): our protocol
 * is the first in the list, so WebSocket clients that name no subprotocol
 * land on it, and every HTTP event is passed on to lws_callback_http_dummy
 * so the web/ mount and 404s keep working; we write only from the WRITEABLE
 * callback, one message per callback, with LWS_PRE headroom; a connection is
 * freed only in its CLOSED callback, never from inside our own handlers.
 */
#include <errno.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "internal.h"

static void conn_free_queue(conn *c)
{
    outmsg *o = c->head;
    while (o) {
        outmsg *n = o->next;
        free(o);
        o = n;
    }
    c->head = c->tail = NULL;
    c->queued = 0;
}

/* A peer that lets its queue grow without reading is cut off at once: we
 * cannot even send it a close frame. */
static void conn_kill(conn *c, const char *why)
{
    if (!c->wsi || c->closing)
        return;
    srv_log(LOG_WARN, "conn_killed", "{s:I, s:s, s:s}", "conn", (json_int_t)c->id, "peer", c->peer,
            "reason", why);
    c->closing = true;
    conn_free_queue(c);
    lws_set_timeout(c->wsi, PENDING_TIMEOUT_CLOSE_SEND, LWS_TO_KILL_ASYNC);
}

void conn_send_text(conn *c, const char *text, size_t len)
{
    if (!c->wsi || c->closing)
        return;
    if (c->queued + len > SRV_MAX_QUEUED_BYTES) {
        conn_kill(c, "output queue full: the client does not read");
        return;
    }
    outmsg *o = malloc(sizeof *o + LWS_PRE + len);
    if (!o) {
        conn_kill(c, "out of memory");
        return;
    }
    o->next = NULL;
    o->len = len;
    memcpy(o->buf + LWS_PRE, text, len);
    if (c->tail)
        c->tail->next = o;
    else
        c->head = o;
    c->tail = o;
    c->queued += len;
    lws_callback_on_writable(c->wsi);
}

void conn_send(conn *c, json_t *msg)
{
    if (!msg)
        return;
    if (c && c->wsi && !c->closing) {
        /* written into the server's reusable buffer, then copied to the queue */
        jt_buf *b = &c->srv->send_txt;
        jt_reset(b);
        if (jt_dump(b, msg) == 0)
            conn_send_text(c, b->p, b->len);
    }
    json_decref(msg);
}

void conn_error(conn *c, int code, const char *message, const json_t *id)
{
    conn_send(c, proto_error(code, message, id));
}

void conn_close_after(conn *c, int status, const char *reason)
{
    if (!c->wsi || c->closing)
        return;
    c->closing = true;
    c->close_status = status;
    snprintf(c->close_reason, sizeof c->close_reason, "%s", reason);
    lws_callback_on_writable(c->wsi);
}

bool conn_sub_add(conn *c, match *m, int seat)
{
    for (int i = 0; i < c->nsubs; i++)
        if (c->subs[i].m == m && c->subs[i].seat == seat)
            return true;
    if (c->nsubs == (int)(sizeof c->subs / sizeof c->subs[0]))
        return false;
    c->subs[c->nsubs++] = (conn_sub){m, seat, -1};
    return true;
}

void conn_sub_remove(conn *c, match *m, int seat)
{
    for (int i = 0; i < c->nsubs; i++)
        if (c->subs[i].m == m && c->subs[i].seat == seat) {
            c->subs[i] = c->subs[--c->nsubs];
            return;
        }
}

/* Token bucket: false when the message must be refused. A registered bot
 * plays up to `capacity` games at once: its rate and burst scale with it. */
static bool rate_ok(conn *c)
{
    uint64_t now = srv_now(c->srv);
    double scale = c->reg ? c->reg->capacity : 1;
    double add = (double)(now - c->tokens_at_ms) * SRV_RATE_PER_SEC * scale / 1000.0;
    c->tokens_at_ms = now;
    c->tokens += add;
    if (c->tokens > SRV_RATE_BURST * scale)
        c->tokens = SRV_RATE_BURST * scale;
    if (c->tokens < 1.0)
        return false;
    c->tokens -= 1.0;
    return true;
}

static void on_message(conn *c)
{
    if (!rate_ok(c)) {
        if (++c->floods > SRV_MAX_FLOODS) {
            conn_error(c, ENG_ERATE, "too many messages; closing", NULL);
            conn_close_after(c, LWS_CLOSE_STATUS_POLICY_VIOLATION, "rate limit");
        } else if (c->floods == 1 || c->floods % 50 == 0) {
            char msg[96];
            snprintf(msg, sizeof msg, "more than %d messages per second; message dropped",
                     SRV_RATE_PER_SEC);
            conn_error(c, ENG_ERATE, msg, NULL);
        }
        return;
    }
    handle_message(c, c->rx, c->rx_len);
}

static int receive(conn *c, struct lws *wsi, const char *in, size_t len)
{
    if (c->closing)
        return 0;
    bool first = lws_is_first_fragment(wsi), final = lws_is_final_fragment(wsi) &&
                                                   lws_remaining_packet_payload(wsi) == 0;
    if (first)
        c->rx_skip = false;
    if (c->rx_skip) {
        if (final)
            c->rx_skip = false;
        return 0;
    }
    if (lws_frame_is_binary(wsi)) {
        c->rx_len = 0;
        conn_error(c, ENG_EBINARY, "binary frames are not accepted; send JSON text", NULL);
        conn_close_after(c, LWS_CLOSE_STATUS_UNACCEPTABLE_OPCODE, "binary frame");
        c->rx_skip = !final;
        return 0;
    }
    if (c->rx_len + len > SRV_MAX_MESSAGE) {
        char msg[96];
        snprintf(msg, sizeof msg, "a message may hold at most %d bytes", SRV_MAX_MESSAGE);
        c->rx_len = 0;
        conn_error(c, ENG_ETOO_LARGE, msg, NULL);
        conn_close_after(c, LWS_CLOSE_STATUS_MESSAGE_TOO_LARGE, "message too large");
        c->rx_skip = !final;
        return 0;
    }
    if (c->rx_len + len + 1 > c->rx_cap) {
        size_t cap = c->rx_cap ? c->rx_cap : 1024;
        while (cap < c->rx_len + len + 1)
            cap *= 2;
        char *p = realloc(c->rx, cap);
        if (!p)
            return -1;
        c->rx = p;
        c->rx_cap = cap;
    }
    memcpy(c->rx + c->rx_len, in, len);
    c->rx_len += len;
    c->rx[c->rx_len] = 0;
    if (final) {
        c->rx_ns = uv_hrtime();
        on_message(c);
        c->rx_len = 0;
        /* do not keep a large buffer for an idle connection */
        if (c->rx_cap > 16384) {
            free(c->rx);
            c->rx = NULL;
            c->rx_cap = 0;
        }
    }
    return 0;
}

/* Messages written per WRITEABLE callback at most: one turn typically
 * queues two (update, then your_turn) for the seat to move; writing them in
 * one callback spares the second a whole loop round. */
#define WRITES_PER_CALLBACK 8

static int writeable(conn *c, struct lws *wsi)
{
    bool wrote = false;
    for (int k = 0; c->head && k < WRITES_PER_CALLBACK; k++) {
        /* after the first write, only while the socket takes more at once */
        if (k > 0 && lws_send_pipe_choked(wsi))
            break;
        outmsg *o = c->head;
        int n = lws_write(wsi, o->buf + LWS_PRE, o->len, LWS_WRITE_TEXT);
        if (n < (int)o->len)
            return -1;
        c->head = o->next;
        if (!c->head)
            c->tail = NULL;
        c->queued -= o->len;
        free(o);
        wrote = true;
    }
    if (c->head) {
        lws_callback_on_writable(wsi);
        return 0;
    }
    if (c->closing && wrote) {
        /* the close frame goes in a callback of its own, after the last
         * message has fully left: the client reads every reply first */
        lws_callback_on_writable(wsi);
        return 0;
    }
    if (c->closing && !c->close_sent) {
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
        c->close_sent = true;
        lws_set_timeout(wsi, PENDING_TIMEOUT_CLOSE_ACK, 3);
        if (lws_write(wsi, frame + LWS_PRE, 2 + n, (enum lws_write_protocol)4) < (int)(2 + n))
            return -1;
        return 0;
    }
    return 0;
}

static int callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                    size_t len)
{
    conn **pc = user;
    struct lws_context *ctx = lws_get_context(wsi);
    srv *s = lws_context_user(ctx);
    switch (reason) {
    case LWS_CALLBACK_ESTABLISHED: {
        conn *c = calloc(1, sizeof *c);
        if (!c)
            return -1;
        *pc = c;
        c->wsi = wsi;
        c->srv = s;
        c->id = ++s->next_conn_id;
        c->tokens = SRV_RATE_BURST;
        c->tokens_at_ms = srv_now(s);
        lws_get_peer_simple(wsi, c->peer, sizeof c->peer);
        c->next = s->conns;
        if (s->conns)
            s->conns->prev = c;
        s->conns = c;
        s->nconns++;
        srv_log(LOG_DEBUG, "conn_open", "{s:I, s:s}", "conn", (json_int_t)c->id, "peer", c->peer);
        if (s->stopping) {
            conn_error(c, ENG_ESHUTTING_DOWN, "the server is shutting down", NULL);
            conn_close_after(c, LWS_CLOSE_STATUS_GOINGAWAY, "shutting down");
        } else if (s->nconns > s->cfg.max_conns) {
            char msg[96];
            snprintf(msg, sizeof msg, "the server holds its maximum of %d connections",
                     s->cfg.max_conns);
            conn_error(c, ENG_ETOO_MANY, msg, NULL);
            conn_close_after(c, 1013 /* try again later */, "too many connections");
        } else {
            lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, SRV_HELLO_TIMEOUT_S);
        }
        return 0;
    }
    case LWS_CALLBACK_RECEIVE:
        if (!*pc)
            return -1;
        return receive(*pc, wsi, in, len);
    case LWS_CALLBACK_SERVER_WRITEABLE:
        if (!*pc)
            return -1;
        return writeable(*pc, wsi);
    case LWS_CALLBACK_CLOSED: {
        conn *c = *pc;
        if (!c)
            return 0;
        srv_log(LOG_DEBUG, "conn_closed", "{s:I}", "conn", (json_int_t)c->id);
        handle_conn_closed(c);
        c->wsi = NULL;
        if (c->prev)
            c->prev->next = c->next;
        else
            s->conns = c->next;
        if (c->next)
            c->next->prev = c->prev;
        s->nconns--;
        conn_free_queue(c);
        free(c->rx);
        free(c);
        *pc = NULL;
        return 0;
    }
    default:
        break;
    }
    return lws_callback_http_dummy(wsi, reason, user, in, len);
}

static struct lws_protocols protocols[] = {
    /* first: WebSocket clients naming no subprotocol (browsers, most
     * libraries) and plain HTTP both land here */
    {"tessera", callback, sizeof(conn *), 4096, 0, NULL, 0},
    {NULL, NULL, 0, 0, 0, NULL, 0}, /* lws 4.1: a zeroed entry ends the list */
};

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

int net_start(srv *s, char *err, size_t errcap)
{
    /* TESSERA_LWS_DEBUG=1 shows libwebsockets' own notices and info (debugging) */
    const char *dbg = getenv("TESSERA_LWS_DEBUG");
    lws_set_log_level(dbg && *dbg == '1' ? LLL_ERR | LLL_WARN | LLL_NOTICE | LLL_INFO
                                         : LLL_ERR | LLL_WARN,
                      lws_log_to_ours);
    struct lws_context_creation_info info;
    memset(&info, 0, sizeof info);
    void *loops[1] = {s->loop};
    info.port = s->cfg.port;
    info.iface = s->cfg.host;
    info.protocols = protocols;
    info.vhost_name = "tessera";
    info.options = LWS_SERVER_OPTION_LIBUV;
    info.foreign_loops = loops;
    info.user = s;
    /* keep-alive: ping after a third of the idle timeout, hang up at it */
    memset(&s->keepalive, 0, sizeof s->keepalive);
    s->keepalive.secs_since_valid_hangup = (uint16_t)s->idle_timeout_s;
    s->keepalive.secs_since_valid_ping =
        (uint16_t)(s->idle_timeout_s == SRV_HANGUP_IDLE_S ? SRV_PING_IDLE_S
                                                          : s->idle_timeout_s / 3);
    info.retry_and_idle_policy = &s->keepalive;
    info.timeout_secs = 10;
    info.server_string = "tessera";
    if (s->cfg.web_root) {
        snprintf(s->web_root, sizeof s->web_root, "%s", s->cfg.web_root);
        memset(&s->mount, 0, sizeof s->mount);
        s->mount.mountpoint = "/";
        s->mount.mountpoint_len = 1;
        s->mount.origin = s->web_root;
        s->mount.def = "index.html";
        s->mount.origin_protocol = LWSMPRO_FILE;
        s->mount.cache_max_age = 0;
        info.mounts = &s->mount;
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
    return 0;
}

void net_stop(srv *s)
{
    if (s->ctx)
        lws_context_destroy(s->ctx);
}
