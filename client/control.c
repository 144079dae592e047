/*
 * control.c — botclient_exchange: a one-shot conversation with a server
 * for scripts and tests (tests/cli/wsctl.c): hello, a few messages, print
 * what comes back, stop at a chosen message type or a timeout.
 *
 * It shares the WebSocket layer (link.c) with the bot client and has no
 * game logic: it prints the server's messages exactly as they arrived.
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <uv.h>

#include "botclient.h"
#include "link.h"

typedef struct exchange {
    uv_loop_t loop;
    cl_link *link;
    uv_timer_t timer;        /* the overall timeout */
    const char *const *msgs; /* sent after welcome */
    int n;
    const char *until; /* stop at this type (NULL: after n messages) */
    FILE *out;
    int received; /* messages after welcome */
    bool welcomed, done;
    int status;
} exchange;

static void stop(exchange *x, int status)
{
    if (x->done)
        return;
    x->done = true;
    x->status = status;
    uv_timer_stop(&x->timer);
    uv_close((uv_handle_t *)&x->timer, NULL);
    cl_link_shutdown(x->link);
}

static void on_opened(void *ud)
{
    exchange *x = ud;
    static const char hello[] = "{\"type\":\"hello\",\"protocol\":1,\"client\":\"tessera-wsctl\"}";
    cl_link_send(x->link, hello, sizeof hello - 1);
}

static void on_text(void *ud, const char *text, size_t len)
{
    exchange *x = ud;
    if (x->done)
        return;
    json_t *msg = json_loadb(text, len, 0, NULL);
    const char *type = json_string_value(json_object_get(msg, "type"));
    if (!x->welcomed && type && strcmp(type, "welcome") == 0) {
        x->welcomed = true;
        for (int i = 0; i < x->n; i++)
            cl_link_send(x->link, x->msgs[i], strlen(x->msgs[i]));
        json_decref(msg);
        if (x->n == 0 && !x->until)
            stop(x, 0);
        return;
    }
    fprintf(x->out, "%.*s\n", (int)len, text);
    fflush(x->out);
    x->received++;
    if (x->until ? (type && strcmp(type, x->until) == 0) : x->received >= x->n)
        stop(x, 0);
    json_decref(msg);
}

static void on_closed(void *ud, const char *why)
{
    exchange *x = ud;
    fprintf(stderr, "wsctl: %s\n", why);
    stop(x, 1);
}

static void on_timeout(uv_timer_t *t)
{
    exchange *x = t->data;
    fprintf(stderr, "wsctl: timed out\n");
    stop(x, 1);
}

int botclient_exchange(const char *url, const char *const *msgs, int n, const char *until,
                       int64_t timeout_ms, FILE *out)
{
    char err[256];
    if (cl_url_check(url, err, sizeof err)) {
        fprintf(stderr, "wsctl: %s\n", err);
        return 2;
    }
    exchange x;
    memset(&x, 0, sizeof x);
    x.msgs = msgs;
    x.n = n;
    x.until = until;
    x.out = out ? out : stdout;
    if (uv_loop_init(&x.loop) != 0)
        return 1;
    static const cl_link_events ev = {on_opened, on_text, on_closed};
    x.link = cl_link_create(&x.loop, url, &ev, &x, err, sizeof err);
    if (!x.link) {
        fprintf(stderr, "wsctl: %s\n", err);
        uv_loop_close(&x.loop);
        return 1;
    }
    uv_timer_init(&x.loop, &x.timer);
    x.timer.data = &x;
    uv_timer_start(&x.timer, on_timeout, (uint64_t)(timeout_ms > 0 ? timeout_ms : 1), 0);
    cl_link_connect(x.link);
    uv_run(&x.loop, UV_RUN_DEFAULT);
    cl_link_free(x.link);
    uv_loop_close(&x.loop);
    return x.status;
}
