/*
 * courses.c — the course_* messages on the server (docs/classroom.md): the
 * host of the classroom's course service (classroom/service.h), which owns
 * the courses, their tables, jobs and threads. What stays here is what only
 * the server has: the loop (an async for the service's workers, a timer for
 * its tick), the connections its replies go to, the admin token, the
 * cluster's role (the course messages are one server's; every server's
 * service plays gates), the registered names of remote bots, and the
 * tournaments of server matches that play them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classroom/service.h"
#include "conn.h"
#include "courses.h"
#include "internal.h"
#include "registry.h"
#include "journal/journal.h"
#include "tournaments.h"

struct courses {
    srv *s;
    class_service *svc;
    uv_async_t async; /* the service's workers finished something */
    uv_timer_t timer; /* its tick */
    int open;         /* handles not closed yet */
    int pending;      /* jobs on the pool not back yet: an upload's check outlives a stop */
};

/* ---- the host's side of the service -------------------------------------------------------- */

static void host_wake(void *user)
{
    struct courses *cs = user;
    uv_async_send(&cs->async);
}

static void host_reply(void *user, uint64_t caller, json_t *msg)
{
    struct courses *cs = user;
    conn *c = conn_find(cs->s, caller);
    if (c)
        conn_send(c, msg);
    else
        json_decref(msg);
}

static void host_log(void *user, int level, const char *event, json_t *fields)
{
    (void)user;
    srv_log_json(level, event, fields);
}

static void release(struct courses *cs);

/* A job on the pool, counted in cs->pending: the service is freed after the
 * last one is back (a stop may come while an upload is checked: its answer
 * still comes, "shutting down"). */
typedef struct pool_call {
    struct courses *cs;
    void (*work)(void *arg);
    void (*done)(void *arg, int status);
    void *arg;
} pool_call;

static void call_work(void *arg)
{
    pool_call *c = arg;
    c->work(c->arg);
}

static void call_done(void *arg, int status)
{
    pool_call *c = arg;
    struct courses *cs = c->cs;
    c->done(c->arg, status);
    free(c);
    release(cs);
}

static int host_queue_work(void *user, void (*work)(void *), void (*done)(void *, int), void *arg)
{
    struct courses *cs = user;
    pool_call *c = malloc(sizeof *c);
    if (!c)
        return -1;
    *c = (pool_call){.cs = cs, .work = work, .done = done, .arg = arg};
    if (srv_queue_work(cs->s->loop, call_work, call_done, c, &cs->pending) != 0) {
        free(c);
        return -1;
    }
    return 0;
}

/* A remote bot's secret as the registry keeps it: a fresh salt, then the
 * PBKDF2 hash (registry.c's, on the pool). */
_Static_assert(REGISTRY_SALT_LEN + REGISTRY_HASH_LEN <= CLASS_CRED_MAX, "a sealed secret fits");

static bool host_seal_secret(void *user, const char *secret, class_cred *out)
{
    (void)user;
    char salt[REGISTRY_SALT_LEN + 1];
    if (srv_random_token(salt, REGISTRY_SALT_LEN) != 0)
        return false;
    memcpy(out->bytes, salt, REGISTRY_SALT_LEN);
    return registry_hash_secret(secret, out->bytes, SRV_PBKDF2_ITERATIONS,
                                out->bytes + REGISTRY_SALT_LEN);
}

static int host_reserve_name(void *user, const char *name, const class_cred *cred)
{
    struct courses *cs = user;
    return registry_reserve(cs->s, name, cred->bytes, cred->bytes + REGISTRY_SALT_LEN,
                            SRV_PBKDF2_ITERATIONS);
}

static bool host_bot_connected(void *user, const char *name)
{
    struct courses *cs = user;
    regbot *rb = registry_find(cs->s, name);
    return rb && rb->conn;
}

static int host_tour_start(void *user, const proto_msg *m, const class_tour_hooks *h, int64_t *id,
                           char *err, size_t errcap)
{
    struct courses *cs = user;
    tsvc_hooks th = {.game = h->game, .done = h->done, .ctx = h->ctx, .user = h->user};
    return tours_create_started(cs->s, m, &th, id, err, errcap);
}

static void host_tour_cancel(void *user, int64_t id)
{
    struct courses *cs = user;
    tours_cancel_id(cs->s, id);
}

static const char *host_tour_state(void *user, int64_t id, const char **note)
{
    struct courses *cs = user;
    return tours_state_of(cs->s, id, note);
}

/* ---- the loop ------------------------------------------------------------------------------ */

static void on_async(uv_async_t *h)
{
    struct courses *cs = h->data;
    class_service_poll(cs->svc);
}

static void on_tick(uv_timer_t *t)
{
    struct courses *cs = t->data;
    class_service_tick(cs->svc);
}

/* The service and its host side go once the handles are closed and the
 * pool has handed back every job. */
static void release(struct courses *cs)
{
    if (cs->open == 0 && cs->pending == 0) {
        class_service_free(cs->svc);
        free(cs);
    }
}

static void on_closed(uv_handle_t *h)
{
    struct courses *cs = h->data;
    cs->open--;
    release(cs);
}

static void close_handles(struct courses *cs)
{
    uv_timer_stop(&cs->timer);
    uv_close((uv_handle_t *)&cs->timer, on_closed);
    uv_close((uv_handle_t *)&cs->async, on_closed);
}

/* ---- entry points -------------------------------------------------------------------------- */

/* An error with a reason, as the classroom's are. */
static void fail(conn *c, int code, const char *reason, const json_t *id, const char *msg)
{
    json_t *e = proto_error(code, msg, id);
    if (e && reason)
        json_object_set_new(e, "reason", json_string(reason));
    conn_send(c, e);
}

void courses_handle(conn *c, const proto_msg *m)
{
    /* on several servers the courses are one's: the others forward their
     * messages there (cluster_route) */
    struct courses *cs = c->srv->courses;
    if (!cs || !cs->svc) {
        fail(c, ENG_EINTERNAL, NULL, m->id, "courses are not available on this server");
        return;
    }
    if (class_request_is_instructor(m)) {
        char msg[160];
        if (!m->admin_token) {
            snprintf(msg, sizeof msg, "%s needs the server's admin token (\"admin_token\")",
                     proto_type_name(m->type));
            fail(c, ENG_EFORBIDDEN, "admin_only", m->id, msg);
            return;
        }
        if (!admin_token_ok(c->srv, m->admin_token)) {
            srv_log(LOG_WARN, "admin_token_refused", "{s:I, s:s, s:s}", "conn", (json_int_t)c->id,
                    "peer", c->peer, "type", proto_type_name(m->type));
            fail(c, ENG_EFORBIDDEN, "admin_only", m->id, "the admin token does not match");
            return;
        }
    }
    class_service_request(cs->svc, m, c->id, c->peer);
}

void courses_conn_closed(conn *c)
{
    struct courses *cs = c->srv->courses;
    if (cs && cs->svc)
        class_service_caller_gone(cs->svc, c->id);
}

bool courses_available(const srv *s)
{
    return s->courses && s->courses->svc;
}

int courses_start(srv *s, bool coordinator, char *err, size_t errcap)
{
    if (s->courses) { /* this server took the coordinator role over */
        if (coordinator)
            class_service_promote(s->courses->svc);
        return 0;
    }
    /* [courses] files, or DB.files beside the SQLite file (on PostgreSQL,
     * where there is no such file: ./tessera-files) */
    const char *dbp = s->cfg.db_path ? s->cfg.db_path : "tessera.db";
    char dir[PATH_MAX];
    if (s->cfg.course_files)
        snprintf(dir, sizeof dir, "%.2000s", s->cfg.course_files);
    else if (journal_shared(s->db))
        snprintf(dir, sizeof dir, "tessera-files");
    else
        snprintf(dir, sizeof dir, "%.2000s.files", dbp);
    struct courses *cs = calloc(1, sizeof *cs);
    if (!cs) {
        snprintf(err, errcap, "out of memory");
        return ENG_ENOMEM;
    }
    cs->s = s;
    uv_async_init(s->loop, &cs->async, on_async);
    uv_timer_init(s->loop, &cs->timer);
    cs->async.data = cs->timer.data = cs;
    cs->open = 2;
    class_host host = {.user = cs,
                       .wake = host_wake,
                       .reply = host_reply,
                       .log = host_log,
                       .queue_work = host_queue_work,
                       .seal_secret = host_seal_secret,
                       .reserve_name = host_reserve_name,
                       .bot_connected = host_bot_connected,
                       .start_tour = host_tour_start,
                       .cancel_tour = host_tour_cancel,
                       .tour_state_of = host_tour_state};
    class_service_config cfg = {.db = journal_db(s->db),
                                .files_dir = dir,
                                .jobs = s->cfg.course_jobs,
                                .build_jobs = s->cfg.course_build_jobs,
                                .max_upload = (int64_t)s->cfg.course_max_upload_mb << 20,
                                .worker_only = !coordinator,
                                .name = s->instance};
    /* the service's start may ask for tournaments already: s->courses first */
    s->courses = cs;
    int rc = class_service_start(&cfg, &host, &cs->svc, err, errcap);
    if (rc) {
        s->courses = NULL;
        close_handles(cs);
        return rc;
    }
    uv_timer_start(&cs->timer, on_tick, CLASS_TICK_MS, CLASS_TICK_MS);
    return 0;
}

void courses_shutdown(srv *s)
{
    struct courses *cs = s->courses;
    if (!cs)
        return;
    s->courses = NULL;
    class_service_stop(cs->svc); /* its workers joined: no wake after this */
    close_handles(cs);           /* the service is freed once they are closed */
}
