/*
 * tournaments.c — the tournament messages on the server (docs/protocol.md,
 * "Tournaments"): the host of the tournament service (tournament/service.h),
 * which owns the tournaments, the ladder, their tables, standings and
 * resume. What stays here is what only the server has: a match for each
 * game — "start a match with these seats, tell me when it ends" — the
 * seats' availability (programs, registered bots), the thread pool and a
 * timer on the loop, the admin token, and the watchers of each tournament
 * (connections) with their limits.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster.h"
#include "conn.h"
#include "internal.h"
#include "match.h"
#include "programs.h"
#include "registry.h"
#include "journal/journal.h"
#include "table.h"
#include "tournament/service.h"
#include "tournaments.h"

/* The watchers of one tournament. */
typedef struct watchers {
    int64_t tour;
    conn **c;
    int n, cap;
} watchers;

struct tours {
    srv *s;
    tour_service *svc;
    uv_timer_t timer; /* the service's one timer (standings throttle), made at its
                         first use: a start that fails runs no loop to close it */
    bool timer_open, timer_closed;
    watchers *w; /* by tournament */
    int nw, capw;
};

static tour_service *svc_of(const srv *s)
{
    return s->tours ? s->tours->svc : NULL;
}

/* ---- watchers -----------------------------------------------------------------------------------
 */

static watchers *watchers_of(struct tours *ts, int64_t tid)
{
    for (int i = 0; i < ts->nw; i++)
        if (ts->w[i].tour == tid)
            return &ts->w[i];
    return NULL;
}

static void unwatch_one(struct tours *ts, conn *c, int64_t tid)
{
    watchers *w = watchers_of(ts, tid);
    for (int i = 0; w && i < w->n; i++)
        if (w->c[i] == c) {
            w->c[i] = w->c[--w->n];
            break;
        }
    if (w && w->n == 0) {
        free(w->c);
        *w = ts->w[--ts->nw];
    }
    for (int i = 0; i < c->nwatching; i++)
        if (c->watching[i] == tid) {
            c->watching[i] = c->watching[--c->nwatching];
            break;
        }
}

/* watch_tournament: the view, then its updates. */
static void watch(conn *c, const proto_msg *m)
{
    struct tours *ts = c->srv->tours;
    json_t *view = tsvc_view(ts->svc, m->tournament, m->id);
    if (!view) {
        conn_error(c, WIRE_EUNKNOWN_TOURNAMENT, "no tournament with that id", m->id);
        return;
    }
    bool already = false;
    for (int i = 0; i < c->nwatching; i++)
        already = already || c->watching[i] == m->tournament;
    watchers *w = watchers_of(ts, m->tournament);
    const char *refused = NULL;
    if (!already && c->nwatching >= SRV_MAX_WATCHING)
        refused = "this connection watches too many tournaments";
    else if (!already && w && w->n >= SRV_MAX_TOUR_WATCHERS)
        refused = "this tournament has its maximum of watchers";
    if (refused) {
        json_decref(view);
        conn_error(c, ENG_ETOO_MANY, refused, m->id);
        return;
    }
    if (!already) {
        if (!w && ts->nw == ts->capw) {
            int cap = ts->capw ? ts->capw * 2 : 4;
            watchers *nw = realloc(ts->w, (size_t)cap * sizeof *nw);
            if (!nw)
                goto oom;
            ts->w = nw;
            ts->capw = cap;
        }
        if (!w) {
            w = &ts->w[ts->nw++];
            memset(w, 0, sizeof *w);
            w->tour = m->tournament;
        }
        if (w->n == w->cap) {
            int cap = w->cap ? w->cap * 2 : 4;
            conn **nc = realloc(w->c, (size_t)cap * sizeof *nc);
            if (!nc)
                goto oom;
            w->c = nc;
            w->cap = cap;
        }
        w->c[w->n++] = c;
        c->watching[c->nwatching++] = m->tournament;
    }
    conn_send(c, view);
    return;
oom:
    json_decref(view);
    conn_error(c, ENG_ENOMEM, "out of memory", m->id);
}

void tours_conn_closed(conn *c)
{
    if (!c->srv->tours)
        return;
    while (c->nwatching > 0)
        unwatch_one(c->srv->tours, c, c->watching[c->nwatching - 1]);
}

/* ---- the service's host
 * -------------------------------------------------------------------------- */

static void host_log(void *user, int level, const char *event, json_t *fields)
{
    (void)user;
    srv_log_json(level, event, fields);
}

static uint64_t host_now(void *user)
{
    struct tours *ts = user;
    return srv_now(ts->s);
}

static int host_queue_work(void *user, void (*work)(void *), void (*done)(void *, int), void *arg)
{
    struct tours *ts = user;
    return srv_queue_work(ts->s->loop, work, done, arg, NULL);
}

static void on_timer(uv_timer_t *t)
{
    struct tours *ts = t->data;
    tsvc_timer(ts->svc);
}

static void host_arm(void *user, uint64_t delay_ms)
{
    struct tours *ts = user;
    if (ts->timer_closed)
        return;
    if (!ts->timer_open) {
        uv_timer_init(ts->s->loop, &ts->timer);
        ts->timer.data = ts;
        ts->timer_open = true;
    }
    uv_timer_start(&ts->timer, on_timer, delay_ms, 0);
}

static void host_reply(void *user, uint64_t caller, json_t *msg)
{
    struct tours *ts = user;
    /* who asked may be a client of another server (cluster.c) */
    conn *c = conn_find(ts->s, caller);
    if (c)
        conn_send(c, msg);
    else
        json_decref(msg);
}

static void host_fail(void *user, uint64_t caller, int code, const char *message, const json_t *id)
{
    struct tours *ts = user;
    conn *c = conn_find(ts->s, caller);
    if (c)
        conn_error(c, code, message, id);
}

static bool host_watched(void *user, int64_t tid)
{
    struct tours *ts = user;
    watchers *w = watchers_of(ts, tid);
    return w && w->n > 0;
}

static void host_update(void *user, int64_t tid, json_t *msg)
{
    struct tours *ts = user;
    watchers *w = watchers_of(ts, tid);
    char *text = json_dumps(msg, JSON_COMPACT);
    json_decref(msg);
    if (!text)
        return;
    size_t len = strlen(text);
    for (int i = 0; w && i < w->n; i++)
        conn_send_text(w->c[i], text, len);
    free(text);
}

static int host_match_create(void *user, const tsvc_match *g, char *ref, size_t refcap, char *err,
                             size_t errcap)
{
    struct tours *ts = user;
    proto_msg msg;
    memset(&msg, 0, sizeof msg);
    msg.type = PROTO_CREATE_MATCH;
    msg.game = g->game->name;
    json_t *rules = wire_rules_json(g->game, g->rules);
    msg.rules = rules;
    msg.nseats = g->seats;
    for (int s = 0; s < g->seats; s++) {
        snprintf(msg.seats[s].bot, sizeof msg.seats[s].bot, "%s", g->specs[s]);
        snprintf(msg.seats[s].name, sizeof msg.seats[s].name, "%s", g->names[s]);
    }
    msg.tc = *g->tc;
    msg.pol = *g->pol;
    match_opts opts = {.admin = true, .has_seed = true, .seed = g->chance_seed};
    if (g->seat_seeds) {
        opts.has_seat_seeds = true;
        memcpy(opts.seat_seed, g->seat_seeds, sizeof(uint64_t) * (size_t)g->seats);
    }
    int code = 0;
    match *m = match_create_ex(ts->s, &msg, &opts, &code, err, errcap);
    json_decref(rules);
    if (!m)
        return code == ENG_ETOO_MANY || code == ENG_ESHUTTING_DOWN ? TOUR_HOST_WAIT : code;
    m->tour_id = g->tour_id; /* its end is told to the service */
    m->tour_game = g->game_id;
    m->tour_waits = true;
    snprintf(ref, refcap, "%s", m->id);
    return 0;
}

static void host_match_discard(void *user, const char *ref)
{
    struct tours *ts = user;
    match *m = match_find(ts->s, ref);
    if (m)
        match_close(m);
}

static void host_match_play(void *user, const char *ref)
{
    struct tours *ts = user;
    match *m = match_find(ts->s, ref);
    if (!m)
        return;
    table_attach_remote(m);
    match_advance(m);
}

static void seat_figures(const match *m, tsvc_outcome *o)
{
    o->seats = m->nseats;
    o->have_times = true;
    for (int i = 0; i < m->nseats && i < ENG_MAX_PLAYERS; i++) {
        o->used_ms[i] = (double)m->seats[i].used_ms;
        o->moves[i] = m->seats[i].moves;
    }
}

static int host_match_find(void *user, const char *ref, int64_t tid, int64_t game, bool waits,
                           tsvc_outcome *out)
{
    struct tours *ts = user;
    match *m = match_find(ts->s, ref);
    if (!waits) { /* a game done: its match, if still held, keeps its tag */
        if (m) {
            m->tour_id = tid;
            m->tour_game = game;
        }
        return TSVC_MATCH_GONE;
    }
    if (m && m->status != MATCH_FINISHED) {
        m->tour_id = tid;
        m->tour_game = game;
        m->tour_waits = true;
        return TSVC_MATCH_LIVE;
    }
    if (m && m->result) {
        out->result = json_incref(m->result);
        seat_figures(m, out);
        return TSVC_MATCH_DONE;
    }
    int status = -1;
    json_t *res = NULL;
    if (journal_match_result(ts->s->db, ref, &status, &res) == 0 && status == MATCH_FINISHED && res) {
        out->result = res;
        return TSVC_MATCH_DONE;
    }
    json_decref(res);
    return TSVC_MATCH_GONE;
}

/* The table's programs would exceed SRV_MAX_PROGRAMS, or a registered bot
 * is at its capacity: the game waits. */
static bool host_room(void *user, const char *const *specs, int k)
{
    struct tours *ts = user;
    int programs = 0;
    for (int i = 0; i < k; i++) {
        int kind = match_spec_kind(specs[i]);
        if (kind == SEAT_PROGRAM)
            programs++;
        else if (kind == SEAT_REMOTE) {
            regbot *r = registry_find(ts->s, specs[i] + 7);
            if (registry_load(ts->s, specs[i] + 7) >= (r ? r->capacity : 1))
                return false;
        }
    }
    return progs_running(ts->s) + programs <= SRV_MAX_PROGRAMS;
}

static bool host_busy(void *user, const char *spec)
{
    struct tours *ts = user;
    regbot *r = registry_find(ts->s, spec + 7);
    return registry_load(ts->s, spec + 7) >= (r ? r->capacity : 1);
}

static bool host_present(void *user, const char *spec)
{
    struct tours *ts = user;
    regbot *r = registry_find(ts->s, spec + 7);
    return r && r->conn;
}

static int host_check_remote(void *user, const eng_game *g, const char *name, char *err,
                             size_t errcap)
{
    struct tours *ts = user;
    if (!registry_known(ts->s, name)) {
        snprintf(err, errcap, "no bot is registered as '%.64s' (it must register first)", name);
        return ENG_EUNKNOWN_BOT;
    }
    regbot *r = registry_find(ts->s, name);
    bool plays = !r || r->ngames == 0;
    for (int i = 0; r && i < r->ngames; i++)
        plays = plays || strcmp(r->games[i], g->name) == 0;
    if (!plays) {
        snprintf(err, errcap, "'%.64s' registered for other games than %s", name, g->name);
        return ENG_EBAD_BOT_SPEC;
    }
    return 0;
}

static void host_enrol(void *user, const eng_game *g, void (*each)(void *ctx, const char *name),
                       void *ctx)
{
    struct tours *ts = user;
    for (regbot *r = ts->s->regbots; r; r = r->next) {
        if (!r->conn)
            continue;
        bool plays = r->ngames == 0;
        for (int i = 0; i < r->ngames; i++)
            plays = plays || strcmp(r->games[i], g->name) == 0;
        if (plays)
            each(ctx, r->name);
    }
}

static bool tour_held(srv *s, const char *id)
{
    return tsvc_holds(svc_of(s), strtoll(id, NULL, 10));
}

static void host_others(void *user, db_stmt *q, json_t *out)
{
    struct tours *ts = user;
    cluster_append_summaries(ts->s, q, tour_held, out);
}

/* ---- entry points
 * --------------------------------------------------------------------------------- */

int tours_init(srv *s, char *err, size_t errcap)
{
    struct tours *ts = calloc(1, sizeof *ts);
    if (!ts) {
        snprintf(err, errcap, "out of memory");
        return ENG_ENOMEM;
    }
    ts->s = s;
    tsvc_host h = {.user = ts,
                   .log = host_log,
                   .clock_ms = host_now,
                   .queue_work = host_queue_work,
                   .arm = host_arm,
                   .reply = host_reply,
                   .fail = host_fail,
                   .watched = host_watched,
                   .update = host_update,
                   .new_match = host_match_create,
                   .drop_match = host_match_discard,
                   .play_match = host_match_play,
                   .find_match = host_match_find,
                   .room = host_room,
                   .busy = host_busy,
                   .present = host_present,
                   .check_remote = host_check_remote,
                   .enrol = host_enrol,
                   .others = host_others};
    tsvc_config cfg = {.db = journal_db(s->db),
                       .shared = journal_shared(s->db),
                       .instance = s->instance,
                       .bot_threads = s->cfg.bot_threads,
                       .standings_delay_ms = s->test.standings_delay_ms};
    int rc = tsvc_start(&cfg, &h, &ts->svc, err, errcap);
    if (rc) {
        free(ts);
        return rc;
    }
    s->tours = ts;
    return 0;
}

void tours_resume(srv *s)
{
    if (s->tours)
        tsvc_resume(s->tours->svc);
}

void tours_shutdown(srv *s)
{
    struct tours *ts = s->tours;
    if (!ts)
        return;
    tsvc_stop(ts->svc);
    for (conn *c = s->conns; c; c = c->next)
        c->nwatching = 0;
    for (int i = 0; i < ts->nw; i++)
        free(ts->w[i].c);
    ts->nw = 0;
    ts->timer_closed = true;
    if (ts->timer_open) {
        ts->timer_open = false;
        uv_timer_stop(&ts->timer);
        uv_close((uv_handle_t *)&ts->timer, NULL);
    }
}

void tours_free(srv *s)
{
    struct tours *ts = s->tours;
    if (!ts)
        return;
    tsvc_free(ts->svc);
    free(ts->w);
    free(ts);
    s->tours = NULL;
}

void handle_tournament(conn *c, const proto_msg *m)
{
    srv *s = c->srv;
    if (!s->tours) {
        conn_error(c, ENG_EINTERNAL, "tournaments are not available on this server", m->id);
        return;
    }
    bool admin = m->type == PROTO_CREATE_TOURNAMENT || m->type == PROTO_START_TOURNAMENT ||
                 m->type == PROTO_PAUSE_TOURNAMENT || m->type == PROTO_CANCEL_TOURNAMENT;
    if (admin && !admin_check(c, m))
        return;
    if (m->type == PROTO_WATCH_TOURNAMENT) {
        watch(c, m);
        return;
    }
    if (m->type == PROTO_UNWATCH_TOURNAMENT) {
        if (!tsvc_holds(s->tours->svc, m->tournament)) {
            conn_error(c, WIRE_EUNKNOWN_TOURNAMENT, "no tournament with that id", m->id);
            return;
        }
        unwatch_one(s->tours, c, m->tournament);
        json_t *r = proto_reply("unwatched", m->id);
        json_object_set_new(r, "tournament", json_integer(m->tournament));
        conn_send(c, r);
        return;
    }
    tsvc_request(s->tours->svc, m, c->id);
}

/* A match finished: if it is a tournament's game, its end to the service;
 * seats that were busy in it may be free now either way. */
static char *record_text(void *ctx)
{
    char err[200];
    json_t *rec = match_record_json(ctx, err, sizeof err);
    char *text = rec ? json_dumps(rec, JSON_COMPACT) : NULL;
    json_decref(rec);
    return text;
}

void tours_match_finished(srv *s, match *m)
{
    tour_service *svc = svc_of(s);
    if (!svc)
        return;
    if (!m->tour_waits) {
        tsvc_poke(svc);
        return;
    }
    m->tour_waits = false;
    tsvc_outcome o = {.result = m->result, .record = record_text, .ctx = m};
    seat_figures(m, &o);
    tsvc_game_over(svc, m->tour_id, m->tour_game, &o);
}

void tours_poke(srv *s)
{
    if (s->tours)
        tsvc_poke(s->tours->svc);
}

int tours_by_state(const srv *s, const char **names, int *counts, int cap)
{
    return tsvc_by_state(svc_of(s), names, counts, cap);
}

int tours_create_started(srv *s, const proto_msg *m, const tsvc_hooks *h, int64_t *id, char *err,
                         size_t errcap)
{
    if (!s->tours) {
        snprintf(err, errcap, "tournaments are not available on this server");
        return ENG_EINTERNAL;
    }
    return tsvc_create_started(s->tours->svc, m, h, id, err, errcap);
}

void tours_cancel_id(srv *s, int64_t id)
{
    if (s->tours)
        tsvc_cancel(s->tours->svc, id);
}

const char *tours_state_of(srv *s, int64_t id, const char **note)
{
    return s->tours ? tsvc_state(s->tours->svc, id, note) : NULL;
}

/* ---- several servers (cluster.h's hooks, set by server.c) -------------------------------------
 */

int tours_owner(srv *s, int64_t id, char *name, size_t cap)
{
    return s->tours ? tsvc_owner(s->tours->svc, id, name, cap) : 0;
}

int tours_claim(srv *s, const char *dead)
{
    return s->tours ? tsvc_claim(s->tours->svc, dead) : 0;
}

void tours_take_over(srv *s)
{
    if (s->tours)
        tsvc_take_over(s->tours->svc);
}

void tours_write_summaries(srv *s)
{
    if (s->tours)
        tsvc_write_summaries(s->tours->svc);
}
