/*
 * control.c — one-shot conversations with a server: botclient_exchange for
 * scripts and tests (tests/cli/wsctl.c): hello, a few messages, print what
 * comes back, stop at a chosen message type or a timeout; and
 * botclient_request for the CLI (`tessera create`, `matches`, `export`):
 * hello, one request, its reply; botclient_converse for a command that
 * follows something (`tessera tournament --url`): messages handed to the
 * caller as they come, the caller sending more.
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

/* ---- one request, one reply ------------------------------------------------------ */

typedef struct request {
    uv_loop_t loop;
    cl_link *link;
    uv_timer_t timer;
    char *text;    /* the request, serialised with its id */
    json_t *id;    /* the id it carries */
    json_t *reply; /* what came back */
    json_t *seen;  /* watching: the match's messages after the reply (NULL: no watching) */
    bool welcomed, done;
    int status;
    char why[256];
} request;

static void req_stop(request *r, int status, const char *why)
{
    if (r->done)
        return;
    r->done = true;
    r->status = status;
    if (why)
        snprintf(r->why, sizeof r->why, "%s", why);
    uv_timer_stop(&r->timer);
    uv_close((uv_handle_t *)&r->timer, NULL);
    cl_link_shutdown(r->link);
}

static void req_opened(void *ud)
{
    request *r = ud;
    static const char hello[] = "{\"type\":\"hello\",\"protocol\":1,\"client\":\"tessera-cli\"}";
    cl_link_send(r->link, hello, sizeof hello - 1);
}

static void req_text(void *ud, const char *text, size_t len)
{
    request *r = ud;
    if (r->done)
        return;
    json_t *msg = json_loadb(text, len, 0, NULL);
    const char *type = json_string_value(json_object_get(msg, "type"));
    if (!r->welcomed && type && strcmp(type, "welcome") == 0) {
        r->welcomed = true;
        cl_link_send(r->link, r->text, strlen(r->text));
    } else if (type && ((!r->welcomed && strcmp(type, "error") == 0) ||
                        (r->welcomed && json_equal(json_object_get(msg, "id"), r->id)))) {
        r->reply = json_incref(msg);
        const char *match = json_string_value(json_object_get(msg, "match"));
        if (!r->seen || strcmp(type, "match_created") != 0 || !match) {
            req_stop(r, 0, NULL);
        } else {
            /* watch it: spectate on the same connection, so nothing is missed */
            json_t *sp = json_pack("{s:s, s:s}", "type", "spectate", "match", match);
            char *t = sp ? json_dumps(sp, JSON_COMPACT) : NULL;
            if (t)
                cl_link_send(r->link, t, strlen(t));
            free(t);
            json_decref(sp);
        }
    } else if (r->seen && r->reply && type) {
        json_array_append(r->seen, msg);
        bool over =
            strcmp(type, "game_over") == 0 ||
            (strcmp(type, "spectating") == 0 && json_is_object(json_object_get(msg, "result"))) ||
            (strcmp(type, "error") == 0 && !json_object_get(msg, "id"));
        if (over)
            req_stop(r, 0, NULL);
    }
    json_decref(msg);
}

static void req_closed(void *ud, const char *why)
{
    req_stop(ud, 1, why);
}

static void req_timeout(uv_timer_t *t)
{
    request *r = t->data;
    req_stop(r, 1,
             r->welcomed ? "the server did not answer in time"
                         : "the server did not say welcome in time");
}

static int request_run(const char *url, const json_t *msg, int64_t timeout_ms, json_t **reply,
                       json_t **seen, char *err, size_t errcap)
{
    *reply = NULL;
    if (seen)
        *seen = NULL;
    if (cl_url_check(url, err, errcap))
        return 2;
    request r;
    memset(&r, 0, sizeof r);
    if (seen && !(r.seen = json_array())) {
        snprintf(err, errcap, "out of memory");
        return 1;
    }
    json_t *copy = json_deep_copy(msg);
    r.id = json_string("tessera-cli-1");
    if (!copy || !r.id || json_object_set(copy, "id", r.id) ||
        !(r.text = json_dumps(copy, JSON_COMPACT))) {
        json_decref(copy);
        json_decref(r.id);
        json_decref(r.seen);
        snprintf(err, errcap, "out of memory");
        return 1;
    }
    json_decref(copy);
    if (uv_loop_init(&r.loop) != 0) {
        snprintf(err, errcap, "cannot start an event loop");
        free(r.text);
        json_decref(r.id);
        json_decref(r.seen);
        return 1;
    }
    static const cl_link_events ev = {req_opened, req_text, req_closed};
    r.link = cl_link_create(&r.loop, url, &ev, &r, err, errcap);
    if (!r.link) {
        uv_loop_close(&r.loop);
        free(r.text);
        json_decref(r.id);
        json_decref(r.seen);
        return 1;
    }
    uv_timer_init(&r.loop, &r.timer);
    r.timer.data = &r;
    uv_timer_start(&r.timer, req_timeout, (uint64_t)(timeout_ms > 0 ? timeout_ms : 1), 0);
    cl_link_connect(r.link);
    uv_run(&r.loop, UV_RUN_DEFAULT);
    cl_link_free(r.link);
    uv_loop_close(&r.loop);
    free(r.text);
    json_decref(r.id);
    if (r.status == 0) {
        *reply = r.reply;
        if (seen)
            *seen = r.seen;
        else
            json_decref(r.seen);
    } else {
        json_decref(r.reply);
        json_decref(r.seen);
        snprintf(err, errcap, "%s", r.why[0] ? r.why : "the connection failed");
    }
    return r.status;
}

int botclient_request(const char *url, const json_t *msg, int64_t timeout_ms, json_t **reply,
                      char *err, size_t errcap)
{
    return request_run(url, msg, timeout_ms, reply, NULL, err, errcap);
}

int botclient_watch(const char *url, const json_t *create, int64_t timeout_ms, json_t **reply,
                    json_t **seen, char *err, size_t errcap)
{
    return request_run(url, create, timeout_ms, reply, seen, err, errcap);
}

/* ---- a conversation ---------------------------------------------------------------- */

#define CONV_WELCOME_MS 15000 /* from connecting to welcome, at most */

struct botclient_conv {
    uv_loop_t loop;
    cl_link *link;
    uv_timer_t timer; /* the welcome's deadline, then tick_ms without a message */
    int64_t tick_ms;
    const json_t *first;
    botclient_conv_fn fn;
    void *user;
    bool welcomed, done;
    int status;
    char why[256];
};

static void conv_stop(botclient_conv *cv, int status, const char *why)
{
    if (cv->done)
        return;
    cv->done = true;
    cv->status = status;
    if (why)
        snprintf(cv->why, sizeof cv->why, "%s", why);
    uv_timer_stop(&cv->timer);
    uv_close((uv_handle_t *)&cv->timer, NULL);
    cl_link_shutdown(cv->link);
}

int botclient_conv_send(botclient_conv *cv, const json_t *msg)
{
    char *t = json_dumps(msg, JSON_COMPACT);
    if (!t)
        return -1;
    cl_link_send(cv->link, t, strlen(t));
    free(t);
    return 0;
}

static void conv_tick(uv_timer_t *t)
{
    botclient_conv *cv = t->data;
    if (!cv->welcomed) {
        conv_stop(cv, -1, "the server did not say welcome in time");
        return;
    }
    int rc = cv->fn(cv, NULL, cv->user);
    if (rc > 0)
        conv_stop(cv, rc - 1, NULL);
    else
        uv_timer_start(&cv->timer, conv_tick, (uint64_t)cv->tick_ms, 0);
}

static void conv_opened(void *ud)
{
    botclient_conv *cv = ud;
    static const char hello[] = "{\"type\":\"hello\",\"protocol\":1,\"client\":\"tessera-cli\"}";
    cl_link_send(cv->link, hello, sizeof hello - 1);
}

static void conv_text(void *ud, const char *text, size_t len)
{
    botclient_conv *cv = ud;
    if (cv->done)
        return;
    if (cv->tick_ms > 0)
        uv_timer_start(&cv->timer, conv_tick, (uint64_t)cv->tick_ms, 0);
    else
        uv_timer_stop(&cv->timer); /* the welcome's deadline is past */
    json_t *msg = json_loadb(text, len, 0, NULL);
    const char *type = json_string_value(json_object_get(msg, "type"));
    if (!cv->welcomed && type && strcmp(type, "welcome") == 0) {
        cv->welcomed = true;
        if (cv->first && botclient_conv_send(cv, cv->first))
            conv_stop(cv, -1, "out of memory");
    } else if (msg) {
        int rc = cv->fn(cv, msg, cv->user);
        if (rc > 0)
            conv_stop(cv, rc - 1, NULL);
    }
    json_decref(msg);
}

static void conv_closed(void *ud, const char *why)
{
    conv_stop(ud, -1, why);
}

int botclient_converse(const char *url, const json_t *first, botclient_conv_fn fn, void *user,
                       int64_t tick_ms, char *err, size_t errcap)
{
    if (cl_url_check(url, err, errcap))
        return -2;
    botclient_conv *cv = calloc(1, sizeof *cv);
    if (!cv || uv_loop_init(&cv->loop) != 0) {
        free(cv);
        snprintf(err, errcap, "cannot start an event loop");
        return -1;
    }
    cv->first = first;
    cv->fn = fn;
    cv->user = user;
    cv->tick_ms = tick_ms;
    static const cl_link_events ev = {conv_opened, conv_text, conv_closed};
    cv->link = cl_link_create(&cv->loop, url, &ev, cv, err, errcap);
    if (!cv->link) {
        uv_loop_close(&cv->loop);
        free(cv);
        return -1;
    }
    uv_timer_init(&cv->loop, &cv->timer);
    cv->timer.data = cv;
    uv_timer_start(&cv->timer, conv_tick, CONV_WELCOME_MS, 0); /* welcome must come soon */
    cl_link_connect(cv->link);
    uv_run(&cv->loop, UV_RUN_DEFAULT);
    cl_link_free(cv->link);
    uv_loop_close(&cv->loop);
    int status = cv->status;
    if (status < 0)
        snprintf(err, errcap, "%s", cv->why[0] ? cv->why : "the connection failed");
    free(cv);
    return status;
}
