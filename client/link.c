/*
 * link.c — a WebSocket client connection on a caller-owned libuv loop
 * (libwebsockets 4.1 with LWS_SERVER_OPTION_LIBUV and foreign_loops).
 *
 * One lws context per link, created once and kept across reconnects; one
 * connection (wsi) at a time. The link's state machine makes every connect
 * end in exactly one `closed` event, whatever mix of CONNECTION_ERROR and
 * CLIENT_CLOSED callbacks lws delivers, and defers that event to a libuv
 * timer so the owner may reconnect or shut down from a clean stack.
 *
 * lws rules we live by (docs/ARCHITECTURE.md, "Dependencies"): <uv.h>
 * before <libwebsockets.h>; the protocol list ends with a zeroed entry (4.1
 * has no LWS_PROTOCOL_LIST_TERM);
 * we write only from the WRITEABLE callback, one message per callback, with
 * LWS_PRE headroom; with a foreign loop the context is destroyed once from a
 * loop callback and once more after uv_run has returned.
 */
#include "link.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uv.h>
/* uv.h first: lws's libuv glue needs its types */
#include <libwebsockets.h>

typedef enum { LINK_IDLE, LINK_CONNECTING, LINK_OPEN, LINK_SHUT } link_state;

typedef struct cl_out {
    struct cl_out *next;
    size_t len;
    unsigned char buf[]; /* LWS_PRE bytes of headroom, then the text */
} cl_out;

struct cl_link {
    uv_loop_t *loop;
    struct lws_context *ctx;
    struct lws *wsi; /* the current connection, once known */
    link_state state;
    cl_link_events ev;
    void *ud;

    char host[256]; /* parsed from the URL */
    char path[1024];
    int port;

    cl_out *head, *tail; /* outgoing queue */
    char *rx;            /* incoming message being assembled */
    size_t rx_len, rx_cap;
    bool rx_skip; /* drop the rest of an oversized/binary message */

    uv_timer_t notify; /* delivers `closed`, and runs the deferred shutdown */
    bool notify_pending;
    char why[160];       /* reason of the pending `closed` */
    bool destroyed_once; /* the first lws_context_destroy ran */
};

/* ---- URL -------------------------------------------------------------------------- */

static int parse_url(cl_link *l, const char *url, char *err, size_t errcap)
{
    if (strncmp(url, "ws://", 5) != 0) {
        snprintf(err, errcap, "the URL must start with ws:// (got '%.60s')", url);
        return -1;
    }
    const char *p = url + 5, *h0, *h1;
    if (*p == '[') { /* IPv6 literal */
        h0 = p + 1;
        h1 = strchr(h0, ']');
        if (!h1) {
            snprintf(err, errcap, "unterminated [address] in '%.60s'", url);
            return -1;
        }
        p = h1 + 1;
    } else {
        h0 = p;
        while (*p && *p != ':' && *p != '/')
            p++;
        h1 = p;
    }
    size_t hl = (size_t)(h1 - h0);
    if (hl == 0 || hl >= sizeof l->host) {
        snprintf(err, errcap, "no host in '%.60s'", url);
        return -1;
    }
    memcpy(l->host, h0, hl);
    l->host[hl] = 0;
    l->port = 80;
    if (*p == ':') {
        char *end;
        long v = strtol(p + 1, &end, 10);
        if (end == p + 1 || v < 1 || v > 65535 || (*end && *end != '/')) {
            snprintf(err, errcap, "bad port in '%.60s'", url);
            return -1;
        }
        l->port = (int)v;
        p = end;
    }
    if (*p && *p != '/') {
        snprintf(err, errcap, "bad URL '%.60s'", url);
        return -1;
    }
    if (strlen(*p ? p : "/") >= sizeof l->path) {
        snprintf(err, errcap, "the URL path is too long");
        return -1;
    }
    snprintf(l->path, sizeof l->path, "%s", *p ? p : "/");
    return 0;
}

/* ---- events ----------------------------------------------------------------------- */

static void free_queue(cl_link *l)
{
    cl_out *o = l->head;
    while (o) {
        cl_out *n = o->next;
        free(o);
        o = n;
    }
    l->head = l->tail = NULL;
    l->rx_len = 0;
    l->rx_skip = false;
}

static void on_notify(uv_timer_t *t)
{
    cl_link *l = t->data;
    if (l->state == LINK_SHUT) {
        if (!l->destroyed_once) {
            l->destroyed_once = true;
            lws_context_destroy(l->ctx); /* first half: lws lets go of the loop */
        }
        uv_close((uv_handle_t *)&l->notify, NULL);
        return;
    }
    if (l->notify_pending) {
        l->notify_pending = false;
        if (l->ev.closed)
            l->ev.closed(l->ud, l->why);
    }
}

/* The current connection ended (or never came up): back to idle, and tell
 * the owner once, later. */
static void lost(cl_link *l, const char *why)
{
    if (l->state != LINK_CONNECTING && l->state != LINK_OPEN)
        return;
    l->state = LINK_IDLE;
    l->wsi = NULL;
    free_queue(l);
    snprintf(l->why, sizeof l->why, "%s", why && *why ? why : "connection closed");
    l->notify_pending = true;
    uv_timer_start(&l->notify, on_notify, 0, 0);
}

static int receive(cl_link *l, struct lws *wsi, const char *in, size_t len)
{
    bool first = lws_is_first_fragment(wsi);
    bool final = lws_is_final_fragment(wsi) && lws_remaining_packet_payload(wsi) == 0;
    if (first && l->rx_len == 0)
        l->rx_skip = false;
    if (l->rx_skip || lws_frame_is_binary(wsi)) {
        l->rx_skip = !final;
        l->rx_len = 0;
        return 0; /* the protocol is text only: ignore binary frames */
    }
    if (l->rx_len + len > CL_MAX_MESSAGE) {
        snprintf(l->why, sizeof l->why, "a message from the server exceeds %u bytes",
                 CL_MAX_MESSAGE);
        return -1; /* close the connection */
    }
    if (l->rx_len + len + 1 > l->rx_cap) {
        size_t cap = l->rx_cap ? l->rx_cap : 4096;
        while (cap < l->rx_len + len + 1)
            cap *= 2;
        char *p = realloc(l->rx, cap);
        if (!p)
            return -1;
        l->rx = p;
        l->rx_cap = cap;
    }
    memcpy(l->rx + l->rx_len, in, len);
    l->rx_len += len;
    l->rx[l->rx_len] = 0;
    if (final) {
        size_t n = l->rx_len;
        l->rx_len = 0;
        if (l->ev.message)
            l->ev.message(l->ud, l->rx, n);
    }
    return 0;
}

static int writeable(cl_link *l, struct lws *wsi)
{
    cl_out *o = l->head;
    if (!o)
        return 0;
    int n = lws_write(wsi, o->buf + LWS_PRE, o->len, LWS_WRITE_TEXT);
    if (n < (int)o->len)
        return -1;
    l->head = o->next;
    if (!l->head)
        l->tail = NULL;
    free(o);
    if (l->head)
        lws_callback_on_writable(wsi);
    return 0;
}

static int callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                    size_t len)
{
    struct lws_context *ctx = lws_get_context(wsi);
    cl_link *l = ctx ? lws_context_user(ctx) : NULL;
    if (!l)
        return lws_callback_http_dummy(wsi, reason, user, in, len);
    switch (reason) {
    case LWS_CALLBACK_CLIENT_CONNECTION_ERROR: {
        char why[sizeof l->why];
        snprintf(why, sizeof why, "cannot connect to %.64s:%d: %.64s", l->host, l->port,
                 in ? (const char *)in : "error");
        if (l->wsi == NULL || l->wsi == wsi)
            lost(l, why);
        return 0;
    }
    case LWS_CALLBACK_CLIENT_ESTABLISHED:
        if (l->state != LINK_CONNECTING)
            return -1; /* a connection we no longer want */
        l->wsi = wsi;
        l->state = LINK_OPEN;
        l->why[0] = 0;
        if (l->ev.opened)
            l->ev.opened(l->ud);
        return 0;
    case LWS_CALLBACK_CLIENT_RECEIVE:
        if (l->state != LINK_OPEN || wsi != l->wsi)
            return 0;
        return receive(l, wsi, in, len);
    case LWS_CALLBACK_CLIENT_WRITEABLE:
        if (l->state != LINK_OPEN || wsi != l->wsi)
            return 0;
        return writeable(l, wsi);
    case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
        if (wsi == l->wsi && len >= 2) {
            const unsigned char *p = in;
            snprintf(l->why, sizeof l->why, "the server closed the connection (%d %.*s)",
                     (p[0] << 8) | p[1], (int)(len - 2 > 100 ? 100 : len - 2),
                     (const char *)in + 2);
        }
        return 0;
    case LWS_CALLBACK_CLIENT_CLOSED:
        if (wsi == l->wsi) {
            char why[sizeof l->why];
            snprintf(why, sizeof why, "%s", l->why[0] ? l->why : "the connection closed");
            lost(l, why);
        }
        return 0;
    default: break;
    }
    return lws_callback_http_dummy(wsi, reason, user, in, len);
}

static struct lws_protocols protocols[] = {
    {"tessera", callback, 0, 65536, 0, NULL, 0},
    {NULL, NULL, 0, 0, 0, NULL, 0}, /* lws 4.1: a zeroed entry ends the list */
};

/* Client keep-alive: ping an idle connection and give up on one that stays
 * silent (a server that vanished without closing its socket). */
static const lws_retry_bo_t retry_policy = {
    .secs_since_valid_ping = 20,
    .secs_since_valid_hangup = 45,
};

static void lws_log_line(int level, const char *line)
{
    (void)level;
    size_t n = strlen(line);
    while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
        n--;
    fprintf(stderr, "tessera client: lws: %.*s\n", (int)n, line);
}

/* ---- public ----------------------------------------------------------------------- */

int cl_url_check(const char *url, char *err, size_t errcap)
{
    cl_link *l = calloc(1, sizeof *l);
    if (!l) {
        snprintf(err, errcap, "out of memory");
        return -1;
    }
    int rc = parse_url(l, url, err, errcap);
    free(l);
    return rc;
}

cl_link *cl_link_create(uv_loop_t *loop, const char *url, const cl_link_events *ev, void *ud,
                        char *err, size_t errcap)
{
    cl_link *l = calloc(1, sizeof *l);
    if (!l) {
        snprintf(err, errcap, "out of memory");
        return NULL;
    }
    if (parse_url(l, url, err, errcap)) {
        free(l);
        return NULL;
    }
    l->loop = loop;
    l->ev = *ev;
    l->ud = ud;
    lws_set_log_level(LLL_ERR, lws_log_line);

    struct lws_context_creation_info info;
    memset(&info, 0, sizeof info);
    void *loops[1] = {loop};
    info.port = CONTEXT_PORT_NO_LISTEN;
    info.protocols = protocols;
    info.options = LWS_SERVER_OPTION_LIBUV;
    info.foreign_loops = loops;
    info.user = l;
    info.timeout_secs = 5; /* connect and handshake */
    l->ctx = lws_create_context(&info);
    if (!l->ctx) {
        snprintf(err, errcap,
                 "cannot start libwebsockets on libuv (is libwebsockets-evlib-uv "
                 "installed?)");
        free(l);
        return NULL;
    }
    uv_timer_init(loop, &l->notify);
    l->notify.data = l;
    l->state = LINK_IDLE;
    return l;
}

int cl_link_set_url(cl_link *l, const char *url, char *err, size_t errcap)
{
    cl_link tmp; /* parsed aside: a bad URL leaves the link's own as it was */
    if (parse_url(&tmp, url, err, errcap))
        return -1;
    memcpy(l->host, tmp.host, sizeof l->host);
    memcpy(l->path, tmp.path, sizeof l->path);
    l->port = tmp.port;
    return 0;
}

int cl_link_connect(cl_link *l)
{
    if (l->state != LINK_IDLE)
        return -1;
    struct lws_client_connect_info cc;
    memset(&cc, 0, sizeof cc);
    cc.context = l->ctx;
    cc.address = l->host;
    cc.port = l->port;
    cc.path = l->path;
    cc.host = l->host;
    cc.origin = l->host;
    cc.protocol = "tessera";
    cc.retry_and_idle_policy = &retry_policy;
    l->wsi = NULL;
    l->why[0] = 0;
    l->state = LINK_CONNECTING;
    struct lws *w = lws_client_connect_via_info(&cc);
    if (l->state != LINK_CONNECTING)
        return 0; /* it failed at once; `closed` is on its way */
    if (!w) {
        char why[sizeof l->why];
        snprintf(why, sizeof why, "cannot connect to %.64s:%d", l->host, l->port);
        lost(l, why);
        return 0;
    }
    l->wsi = w;
    return 0;
}

int cl_link_send(cl_link *l, const char *text, size_t len)
{
    if (l->state != LINK_OPEN || !l->wsi)
        return -1;
    cl_out *o = malloc(sizeof *o + LWS_PRE + len);
    if (!o)
        return -1;
    o->next = NULL;
    o->len = len;
    memcpy(o->buf + LWS_PRE, text, len);
    if (l->tail)
        l->tail->next = o;
    else
        l->head = o;
    l->tail = o;
    lws_callback_on_writable(l->wsi);
    return 0;
}

bool cl_link_is_open(const cl_link *l)
{
    return l && l->state == LINK_OPEN;
}

void cl_link_drop(cl_link *l)
{
    if (l->state != LINK_OPEN && l->state != LINK_CONNECTING)
        return;
    if (l->wsi)
        lws_set_timeout(l->wsi, PENDING_TIMEOUT_CLOSE_SEND, LWS_TO_KILL_ASYNC);
    /* the CLOSED/CONNECTION_ERROR callback reports it; if lws has no wsi
     * for us yet, report it ourselves */
    if (!l->wsi)
        lost(l, "connection dropped");
}

void cl_link_shutdown(cl_link *l)
{
    if (l->state == LINK_SHUT)
        return;
    l->state = LINK_SHUT;
    l->wsi = NULL;
    free_queue(l);
    l->notify_pending = false;
    /* never destroy the context from inside one of its own callbacks */
    uv_timer_start(&l->notify, on_notify, 0, 0);
}

void cl_link_free(cl_link *l)
{
    if (!l)
        return;
    if (l->ctx)
        lws_context_destroy(l->ctx); /* second half, after the loop drained */
    free_queue(l);
    free(l->rx);
    free(l);
}
