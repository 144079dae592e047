/*
 * serve.c — the tournament service (contract in service.h; its parts in
 * svc.h).
 *
 * A tournament of one of the formats of tour.h (round-robin, gauntlet,
 * Swiss, knockout) is a `tour` attached to the server's database
 * (tour_store_attach: SQLite or PostgreSQL): the driver (driver.h, as under
 * `tessera tournament`) asks it for the next game whose participants are
 * free and starts it through the host — an ordinary server match with the
 * tournament's time control and policies, the group's chance seed and the
 * bots' seeds — marking it started, with the match's id as its ref, in the
 * same transaction as the match. When the match ends the host reports its
 * result (scores, ranking, how it ended, who was at fault, time used) and
 * the tournament schedules what that unlocks; the driver then starts more
 * games, up to the tournament's concurrency. The ladder is svc_ladder.c's.
 *
 * Resume. Everything is in the database before anyone hears of it. At
 * start-up, after the matches are restored, each tournament not over is
 * loaded (TOUR_RESUME_KEEP): a game marked running whose match is live
 * again simply continues (the match reports its end as usual); one whose
 * match finished meanwhile (a kill between the match's end and the
 * tournament's record of it) gets that result from the journal; one whose
 * match is not there is played again. So no game is lost and none is
 * counted twice.
 *
 * Standings are computed on the host's pool (svc_standings.c); while that
 * job reads the tournament the loop does not touch it — results that
 * arrive meanwhile wait in a queue (in memory, and in the journal), no game
 * starts, a start/pause/cancel waits — and the job is rerun at most every
 * max(TOUR_SVC_STANDINGS_MIN_MS, its cost times TOUR_SVC_STANDINGS_COST_FACTOR),
 * on the host's one timer. Watchers get a tournament_update as each game
 * starts and ends, and another with the standings once computed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bots/bot.h"
#include "engine/errors.h"
#include "players/player.h"
#include "protocol/codec.h"
#include "protocol/wire.h"
#include "tournament/svc.h"

static void pump(tsvc_tour *st);
static void schedule_standings(tsvc_tour *st);
static void steer_now(tsvc_tour *st, int type, uint64_t caller, const json_t *id);

/* ---- life of a tournament ---------------------------------------------------------------- */

static tsvc_tour *tour_new(tour_service *svc)
{
    tsvc_tour *st = calloc(1, sizeof *st);
    if (!st)
        return NULL;
    st->svc = svc;
    st->want = -1;
    return st;
}

static void tour_free(tsvc_tour *st)
{
    if (st->t)
        tour_store_detach(st->t);
    tour_destroy(st->t);
    free(st->parts);
    free(st->games);
    json_decref(st->standings);
    for (int i = 0; i < 3; i++)
        free(st->svg[i]);
    free(st->summary_written);
    while (st->dhead) {
        deferred *d = st->dhead;
        st->dhead = d->next;
        free(d);
    }
    json_decref(st->want_id);
    free(st);
}

/* Closed: nothing of it runs any more; freed once its standings job is
 * back. Its matches, still running, report to no one. */
static void tour_close(tsvc_tour *st)
{
    if (st->closing)
        return;
    st->closing = true;
    st->due = 0;
    if (!st->job)
        tour_free(st);
}

static tsvc_tour *find_tour(tour_service *svc, int64_t id)
{
    for (tsvc_tour *st = svc->list; st; st = st->next)
        if (st->id == id && !st->closing)
            return st;
    return NULL;
}

/* ---- standings: when they are computed ------------------------------------------------------ */

static uint64_t clock_now(tour_service *svc)
{
    return svc->host.clock_ms(svc->host.user);
}

/* The host's timer set for the earliest due job, if any. */
static void rearm(tour_service *svc)
{
    uint64_t first = 0;
    for (tsvc_tour *st = svc->list; st; st = st->next)
        if (st->due && (!first || st->due < first))
            first = st->due;
    if (!first || first == svc->armed || !svc->host.arm)
        return;
    uint64_t now = clock_now(svc);
    svc->armed = first;
    svc->host.arm(svc->host.user, first > now ? first - now : 0);
}

static void standings_done(tsvc_tour *st);

static void start_job(tsvc_tour *st)
{
    if (st->job || st->closing)
        return;
    st->due = 0;
    if (!ts__standings_start(st, standings_done))
        return;
    st->dirty = false;
    st->job_started = clock_now(st->svc);
}

static void schedule_standings(tsvc_tour *st)
{
    st->dirty = true;
    if (st->job || st->closing)
        return;
    double gap = st->job_ms * TOUR_SVC_STANDINGS_COST_FACTOR;
    if (gap < TOUR_SVC_STANDINGS_MIN_MS)
        gap = TOUR_SVC_STANDINGS_MIN_MS;
    uint64_t now = clock_now(st->svc);
    uint64_t due = st->job_started + (uint64_t)gap;
    if (st->job_started == 0 || now >= due) {
        start_job(st);
    } else if (!st->due) {
        st->due = due;
        rearm(st->svc);
    }
}

void tsvc_timer(tour_service *svc)
{
    svc->armed = 0;
    uint64_t now = clock_now(svc);
    for (tsvc_tour *st = svc->list; st; st = st->next)
        if (st->due && now >= st->due) {
            st->due = 0;
            if (st->dirty)
                start_job(st);
        }
    rearm(svc);
}

/* The job is back: the standings to the watchers, then what waited for it. */
static void standings_done(tsvc_tour *st)
{
    if (st->closing) {
        tour_free(st);
        return;
    }
    ts__push_update(st, NULL, true);
    if (st->want >= 0) { /* a change that waited for the job */
        int type = st->want;
        json_t *id = st->want_id;
        uint64_t caller = st->want_caller;
        st->want = -1;
        st->want_id = NULL;
        steer_now(st, type, caller, id);
        json_decref(id);
    }
    pump(st); /* what waited for the job */
    if (st->dirty)
        schedule_standings(st);
}

/* ---- the driver's host: a server match per game -------------------------------------------- */

static void table_of(const tsvc_tour *st, const tour_game *g, const char **specs,
                     const char **names)
{
    const tour_spec *spec = tour_get_spec(st->t);
    for (int s = 0; s < st->k; s++) {
        specs[s] = spec->participants[g->table[s]].spec;
        names[s] = spec->participants[g->table[s]].name;
    }
}

static bool th_room(void *user, const tour_game *g)
{
    tsvc_tour *st = user;
    const tsvc_host *h = &st->svc->host;
    const char *specs[ENG_MAX_PLAYERS], *names[ENG_MAX_PLAYERS];
    table_of(st, g, specs, names);
    return !h->room || h->room(h->user, specs, st->k);
}

static bool th_begin(void *user)
{
    tsvc_tour *st = user;
    if (ts__tx(st->svc, "BEGIN IMMEDIATE"))
        return true;
    ts__log(st->svc, TSVC_LOG_ERROR, "storage_error", "{s:s, s:s}", "what", "tournament_game",
            "sqlite", db_errmsg(st->svc->db));
    return false;
}

static bool th_end(void *user, bool ok)
{
    tsvc_tour *st = user;
    if (ok && ts__tx(st->svc, "COMMIT"))
        return true;
    ts__tx(st->svc, "ROLLBACK");
    return false;
}

static int th_start(void *user, const tour_game *g, char *ref, size_t refcap, char *err,
                    size_t errcap)
{
    tsvc_tour *st = user;
    const char *specs[ENG_MAX_PLAYERS], *names[ENG_MAX_PLAYERS];
    table_of(st, g, specs, names);
    int rc = ts__match_create(st, specs, names, g->chance_seed, g->seat_seed, g->id, ref, refcap,
                              err, errcap);
    if (rc < 0)
        ts__log(st->svc, TSVC_LOG_ERROR, "tournament_game_failed", "{s:I, s:s}", "tournament",
                (json_int_t)st->id, "reason", err);
    return rc;
}

static void th_discard(void *user, const tour_game *g, const char *ref)
{
    (void)g;
    tsvc_tour *st = user;
    ts__log(st->svc, TSVC_LOG_ERROR, "storage_error", "{s:s, s:I}", "what", "tournament_game",
            "tournament", (json_int_t)st->id);
    st->svc->host.drop_match(st->svc->host.user, ref);
}

static void th_play(void *user, const tour_game *g, const char *ref)
{
    tsvc_tour *st = user;
    ts__log(st->svc, TSVC_LOG_INFO, "tournament_game_started", "{s:I, s:I, s:s}", "tournament",
            (json_int_t)st->id, "game", (json_int_t)g->id, "match", ref);
    st->svc->host.play_match(st->svc->host.user, ref);
    ts__push_update(st, ts__game_json(st, g->id), false);
}

/* A registered bot at its capacity takes no more games now. */
static bool th_busy(void *user, int i)
{
    tsvc_tour *st = user;
    const tsvc_host *h = &st->svc->host;
    const char *spec = tour_get_spec(st->t)->participants[i].spec;
    return ts__is_remote(spec) && h->busy && h->busy(h->user, spec);
}

/* ---- the pump ------------------------------------------------------------------------------- */

static void check_done(tsvc_tour *st)
{
    if (!ts__is_ladder(st) && tour_is_done(st->t) && st->state != TS_DONE &&
        st->state != TS_CANCELLED) {
        ts__set_state(st, TS_DONE, NULL);
        ts__push_update(st, NULL, false);
        if (st->hooks.done)
            st->hooks.done(st->hooks.ctx, st->hooks.user, st->id, st->t);
    }
}

static void pump_one(tsvc_tour *st)
{
    if (st->closing || st->job || st->svc->stopping)
        return;
    /* results that waited for the standings job */
    bool any = st->dhead != NULL;
    while (st->dhead) {
        deferred *d = st->dhead;
        st->dhead = d->next;
        if (!st->dhead)
            st->dtail = NULL;
        d->r.verdict = d->verdict[0] ? d->verdict : NULL;
        ts__apply_result(st, d->game, &d->r);
        free(d);
    }
    if (any)
        schedule_standings(st);
    if (st->state == TS_RUNNING) {
        if (ts__is_ladder(st)) {
            ts__lad_pump(st);
        } else {
            tour_host h = {.room = th_room,
                           .start = th_start,
                           .discard = th_discard,
                           .play = th_play,
                           .busy = th_busy,
                           .begin = th_begin,
                           .end = th_end,
                           .user = st};
            char why[TOUR_DRIVE_WHY_MAX];
            if (tour_drive(st->t, &h, st->concurrency, why, sizeof why) < 0) {
                tour_set_paused(st->t, true);
                ts__set_state(st, TS_PAUSED, why);
            }
        }
    }
    check_done(st);
}

/* Pumps never nest: one asked for while another runs (a match that ended
 * as it was created, a program that could not start) runs after it. */
static void pump(tsvc_tour *st)
{
    tour_service *svc = st->svc;
    if (svc->pumping) {
        svc->again = true;
        return;
    }
    svc->pumping = true;
    pump_one(st);
    for (int rounds = 0; svc->again && rounds < 100; rounds++) {
        svc->again = false;
        for (tsvc_tour *x = svc->list; x; x = x->next)
            if (!x->closing && (x->state == TS_RUNNING || x->dhead))
                pump_one(x);
    }
    svc->again = false;
    svc->pumping = false;
}

void tsvc_poke(tour_service *svc)
{
    if (svc->pumping) {
        svc->again = true;
        return;
    }
    for (tsvc_tour *st = svc->list; st; st = st->next)
        if (!st->closing && (st->state == TS_RUNNING || st->dhead))
            pump(st);
}

void tsvc_game_over(tour_service *svc, int64_t tour_id, int64_t game, const tsvc_outcome *o)
{
    tsvc_tour *st = find_tour(svc, tour_id);
    if (st) {
        tour_result r;
        char verdict[TOUR_VERDICT_MAX + 1];
        ts__result_of(st->k, o, &r, verdict, sizeof verdict);
        tour_game tg;
        if (st->hooks.game && !ts__is_ladder(st) && tour_get_game(st->t, game, &tg) == 0) {
            char *record = o->record ? o->record(o->ctx) : NULL;
            st->hooks.game(st->hooks.ctx, st->hooks.user, st->id, game, o->seats, tg.table, &r,
                           record ? record : "");
            free(record);
        }
        if (st->job) {
            /* the standings job reads the tournament: the result waits */
            deferred *d = calloc(1, sizeof *d);
            if (d) {
                d->game = game;
                d->r = r;
                snprintf(d->verdict, sizeof d->verdict, "%s", verdict);
                d->r.verdict = NULL;
                if (st->dtail)
                    st->dtail->next = d;
                else
                    st->dhead = d;
                st->dtail = d;
            } else {
                ts__log(svc, TSVC_LOG_ERROR, "tournament_result_lost", "{s:I, s:I}", "tournament",
                        (json_int_t)st->id, "game", (json_int_t)game);
            }
        } else {
            ts__apply_result(st, game, &r);
            check_done(st); /* before the standings job that may start now */
            schedule_standings(st);
        }
    }
    tsvc_poke(svc); /* seats that were busy in this match may be free now */
}

/* ---- create -------------------------------------------------------------------------------- */

/* One participant's spec against the game: an in-process bot, a program,
 * or a registered bot. */
static int check_participant(tour_service *svc, const eng_game *g, const char *spec, char *err,
                             size_t errcap)
{
    if (ts__is_program(spec)) {
        player_config pc;
        player_config_default(&pc);
        player *pl = player_create(spec, g, &pc, err, errcap);
        if (!pl)
            return ENG_EBAD_BOT_SPEC;
        player_destroy(pl);
        return 0;
    }
    if (ts__is_remote(spec)) {
        if (!svc->host.check_remote) {
            snprintf(err, errcap, "this server seats no registered bots");
            return ENG_EUNKNOWN_BOT;
        }
        return svc->host.check_remote(svc->host.user, g, spec + 7, err, errcap);
    }
    int rc = bot_check_spec(spec, g, err, errcap);
    return rc || svc->bot_threads <= 0 ? rc : bot_check_threads(spec, svc->bot_threads, err, errcap);
}

/* A ladder's participants and row, stored in one transaction. */
static int create_ladder(tsvc_tour *st, const proto_tournament *pt, tour_participant *parts, int n,
                         char *err, size_t errcap)
{
    if (st->k < 2) {
        snprintf(err, errcap, "a ladder needs tables of 2 to 5 seats");
        return ENG_EBAD_PLAYERS;
    }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < i; j++)
            if (strcmp(parts[i].name, parts[j].name) == 0) {
                snprintf(err, errcap, "two participants are named '%s'", parts[i].name);
                return ENG_EINVAL;
            }
    tour_service *svc = st->svc;
    int rc = ts__tx(svc, "BEGIN IMMEDIATE") ? ts__insert_row(st, "ladder", &st->id) : ENG_ESTORAGE;
    for (int i = 0; i < n && rc == 0; i++) {
        json_t *p = json_array_get(pt->participants, (size_t)i);
        json_t *ref = json_object_get(p, "reference");
        bool reference = ref ? json_is_true(ref) : !ts__is_remote(parts[i].spec);
        rc = ts__lad_add_part(st, parts[i].name, parts[i].spec, reference, true);
    }
    if (rc || !ts__tx(svc, "COMMIT")) {
        ts__tx(svc, "ROLLBACK");
        snprintf(err, errcap, "the tournament could not be stored");
        return ENG_ESTORAGE;
    }
    return 0;
}

/* A tour of tour.h, its row and its store's, in one transaction. */
static int create_tour(tsvc_tour *st, const proto_tournament *pt, tour_participant *parts, int n,
                       char *err, size_t errcap)
{
    tour_service *svc = st->svc;
    char e2[400];
    tour_spec spec;
    tour_spec_init(&spec);
    spec.format = (tour_format)pt->format;
    spec.game = st->g;
    spec.rules = st->rules;
    spec.participants = parts;
    spec.nparticipants = n;
    spec.cycles = pt->cycles;
    spec.rounds = pt->rounds;
    spec.best_of = pt->best_of;
    spec.games_per_pair = pt->games_per_pair;
    spec.seed = pt->has_seed ? pt->seed : ts__fresh_seed(svc);
    spec.anchor = pt->anchor;
    spec.label = pt->label;
    if (pt->has_sprt) {
        spec.sprt.enabled = true;
        spec.sprt.elo0 = pt->elo0;
        spec.sprt.elo1 = pt->elo1;
        spec.sprt.alpha = pt->alpha;
        spec.sprt.beta = pt->beta;
        tour_sprt_model_parse(pt->sprt_model, &spec.sprt.model);
    }
    int rc = tour_create(&spec, &st->t, e2, sizeof e2);
    if (rc) {
        snprintf(err, errcap, "create_tournament: %s", e2);
        return rc;
    }
    tour_set_paused(st->t, true); /* until start_tournament */
    rc = ts__tx(svc, "BEGIN IMMEDIATE") ? 0 : ENG_ESTORAGE;
    if (rc == 0)
        rc = tour_store_create(svc->store, st->t, &st->tour_id, e2, sizeof e2);
    if (rc == 0)
        rc = ts__insert_row(st, "tour", &st->id);
    if (rc || !ts__tx(svc, "COMMIT")) {
        ts__tx(svc, "ROLLBACK");
        snprintf(err, errcap, "the tournament could not be stored");
        return ENG_ESTORAGE;
    }
    return 0;
}

/* Create the tournament of message m (checked by the protocol's decoder);
 * linked, in state created. Returns it, or NULL with code and err. */
static tsvc_tour *create_core(tour_service *svc, const proto_msg *m, int *code, char *errout,
                              size_t errcap)
{
    const proto_tournament *pt = &m->tour;
    char err[512], e2[400];
    int live = 0;
    for (tsvc_tour *x = svc->list; x; x = x->next)
        live += !x->closing && x->state != TS_DONE && x->state != TS_CANCELLED;
    if (live >= TOUR_SVC_MAX_TOURNAMENTS) {
        snprintf(errout, errcap, "the server holds its maximum of %d tournaments not over",
                 TOUR_SVC_MAX_TOURNAMENTS);
        *code = ENG_ETOO_MANY;
        return NULL;
    }
    const eng_game *g = eng_find_game(m->game);
    if (!g || !codec_find(g->name)) {
        snprintf(errout, errcap, "create_tournament: no game named '%.40s' (see list_games)",
                 m->game);
        *code = ENG_EUNKNOWN_GAME;
        return NULL;
    }
    tsvc_tour *st = tour_new(svc);
    if (!st) {
        snprintf(errout, errcap, "out of memory");
        *code = ENG_ENOMEM;
        return NULL;
    }
    st->format = pt->format;
    st->g = g;
    st->tc = m->tc;
    st->pol = m->pol;
    st->concurrency = pt->concurrency;
    st->placement = pt->placement_games;
    st->registered = pt->registered;
    st->state = TS_CREATED;
    st->created_ms = ts__epoch_ms();
    snprintf(st->label, sizeof st->label, "%s", pt->label ? pt->label : "");
    json_t *jp = m->rules ? json_object_get(m->rules, "players") : NULL;
    /* the seats per table are the rules' players (the game checks them) */
    int players =
        json_is_integer(jp) && json_integer_value(jp) >= -1000 && json_integer_value(jp) <= 1000
            ? (int)json_integer_value(jp)
            : 2;
    int rc = wire_rules_parse(g, m->rules, players, &st->rules, e2, sizeof e2);
    if (rc) {
        snprintf(err, sizeof err, "create_tournament: %s", e2);
        goto fail;
    }
    st->k = st->rules.players;
    int n = pt->nparticipants;
    tour_participant *parts = calloc((size_t)n + 1, sizeof *parts);
    if (!parts) {
        rc = ENG_ENOMEM;
        snprintf(err, sizeof err, "out of memory");
        goto fail;
    }
    for (int i = 0; i < n && rc == 0; i++) {
        json_t *p = json_array_get(pt->participants, (size_t)i);
        parts[i].name = json_string_value(json_object_get(p, "name"));
        parts[i].spec = json_string_value(json_object_get(p, "spec"));
        rc = check_participant(svc, g, parts[i].spec, e2, sizeof e2);
        if (rc)
            snprintf(err, sizeof err, "participants[%d] (%s): %s", i, parts[i].name, e2);
    }
    if (rc == 0)
        rc = st->format == PROTO_TOUR_LADDER ? create_ladder(st, pt, parts, n, err, sizeof err)
                                             : create_tour(st, pt, parts, n, err, sizeof err);
    free(parts);
    if (rc)
        goto fail;
    st->next = svc->list; /* newest first */
    svc->list = st;
    ts__log(svc, TSVC_LOG_INFO, "tournament_created", "{s:I, s:s, s:s, s:i}", "tournament",
            (json_int_t)st->id, "format", proto_tour_format_name(st->format), "game", g->name,
            "participants", n);
    schedule_standings(st);
    return st;
fail:
    snprintf(errout, errcap, "%s", err);
    *code = rc;
    tour_free(st); /* never linked */
    return NULL;
}

int tsvc_create_started(tour_service *svc, const proto_msg *m, const tsvc_hooks *h, int64_t *id,
                        char *err, size_t errcap)
{
    int rc = 0;
    tsvc_tour *st = create_core(svc, m, &rc, err, errcap);
    if (!st)
        return rc;
    st->hooks = *h;
    *id = st->id;
    if (st->job && st->want < 0) {
        st->want = PROTO_START_TOURNAMENT; /* after the standings job, as steer() does */
        st->want_caller = 0;
    } else {
        steer_now(st, PROTO_START_TOURNAMENT, 0, NULL);
    }
    return 0;
}

const char *tsvc_state(tour_service *svc, int64_t id, const char **note)
{
    tsvc_tour *st = find_tour(svc, id);
    if (!st)
        return NULL;
    if (note)
        *note = st->note;
    return ts__state_names[st->state];
}

void tsvc_cancel(tour_service *svc, int64_t id)
{
    tsvc_tour *st = find_tour(svc, id);
    if (!st)
        return;
    memset(&st->hooks, 0, sizeof st->hooks);
    if (st->state == TS_DONE || st->state == TS_CANCELLED)
        return;
    if (st->job) {
        st->want = PROTO_CANCEL_TOURNAMENT;
        st->want_caller = 0;
        json_decref(st->want_id);
        st->want_id = NULL;
    } else {
        steer_now(st, PROTO_CANCEL_TOURNAMENT, 0, NULL);
    }
}

/* ---- the messages ---------------------------------------------------------------------------- */

static void reply(tour_service *svc, uint64_t caller, json_t *msg)
{
    if (caller)
        svc->host.reply(svc->host.user, caller, msg);
    else
        json_decref(msg);
}

static void fail(tour_service *svc, uint64_t caller, int code, const char *message,
                 const json_t *id)
{
    if (caller)
        svc->host.fail(svc->host.user, caller, code, message, id);
}

/* Apply a start/pause/cancel (type) and reply to caller (0: no one). */
static void steer_now(tsvc_tour *st, int type, uint64_t caller, const json_t *id)
{
    tour_service *svc = st->svc;
    if (st->state == TS_DONE || st->state == TS_CANCELLED) {
        fail(svc, caller, ENG_EINVAL, "the tournament is over", id);
        return;
    }
    switch (type) {
    case PROTO_START_TOURNAMENT:
        if (st->t)
            tour_set_paused(st->t, false);
        ts__set_state(st, TS_RUNNING, NULL);
        break;
    case PROTO_PAUSE_TOURNAMENT:
        if (st->t)
            tour_set_paused(st->t, true);
        ts__set_state(st, TS_PAUSED, NULL);
        break;
    default: /* cancel: pending games void; running ones finish and count */
        if (st->t)
            tour_cancel(st->t);
        ts__set_state(st, TS_CANCELLED, NULL);
        break;
    }
    if (caller) {
        json_t *r = proto_reply("tournament_state", id);
        json_object_set_new(r, "tournament", json_integer(st->id));
        json_object_set_new(r, "state", json_string(ts__state_names[st->state]));
        json_object_set_new(r, "counts", ts__counts_json(st));
        reply(svc, caller, r);
    }
    ts__push_update(st, NULL, false);
    pump(st);
}

static void steer(tsvc_tour *st, const proto_msg *m, uint64_t caller)
{
    if (!st->job) {
        steer_now(st, m->type, caller, m->id);
        return;
    }
    /* the standings job reads the tournament: the change waits for it (ms) */
    if (st->want >= 0) {
        fail(st->svc, caller, ENG_ETOO_MANY,
             "another change of this tournament is waiting; try again", m->id);
        return;
    }
    st->want = m->type;
    st->want_caller = caller;
    st->want_id = m->id ? json_deep_copy(m->id) : NULL;
}

void tsvc_request(tour_service *svc, const proto_msg *m, uint64_t caller)
{
    if (m->type == PROTO_CREATE_TOURNAMENT) {
        char err[512];
        int rc = 0;
        tsvc_tour *st = create_core(svc, m, &rc, err, sizeof err);
        if (!st) {
            fail(svc, caller, rc, err, m->id);
            return;
        }
        json_t *r = proto_reply("tournament_created", m->id);
        json_object_set_new(r, "tournament", json_integer(st->id));
        json_object_set_new(r, "state", json_string(ts__state_names[st->state]));
        reply(svc, caller, r);
        return;
    }
    if (m->type == PROTO_LIST_TOURNAMENTS) {
        json_t *a = json_array();
        for (tsvc_tour *st = svc->list; st; st = st->next)
            if (!st->closing)
                json_array_append_new(a, ts__summary_json(st));
        ts__others(svc, a);
        json_t *r = proto_reply("tournaments", m->id);
        json_object_set_new(r, "tournaments", a);
        reply(svc, caller, r);
        return;
    }
    tsvc_tour *st = find_tour(svc, m->tournament);
    if (!st) {
        fail(svc, caller, WIRE_EUNKNOWN_TOURNAMENT, "no tournament with that id", m->id);
        return;
    }
    if (m->type == PROTO_START_TOURNAMENT || m->type == PROTO_PAUSE_TOURNAMENT ||
        m->type == PROTO_CANCEL_TOURNAMENT) {
        steer(st, m, caller);
        return;
    }
    /* get_tournament_plots */
    json_t *r = proto_reply("tournament_plots", m->id);
    json_object_set_new(r, "tournament", json_integer(st->id));
    static const char *const keys[] = {"ratings", "scores", "crosstable"};
    for (int i = 0; i < 3; i++)
        json_object_set_new(r, keys[i], st->svg[i] ? json_string(st->svg[i]) : json_null());
    reply(svc, caller, r);
}

json_t *tsvc_view(tour_service *svc, int64_t id, const json_t *msg_id)
{
    tsvc_tour *st = find_tour(svc, id);
    return st ? ts__view_json(st, msg_id) : NULL;
}

bool tsvc_holds(tour_service *svc, int64_t id)
{
    return find_tour(svc, id) != NULL;
}

int tsvc_by_state(const tour_service *svc, const char **names, int *counts, int cap)
{
    int n = TS_NSTATES < cap ? TS_NSTATES : cap;
    for (int i = 0; i < n; i++) {
        names[i] = ts__state_names[i];
        counts[i] = 0;
    }
    for (const tsvc_tour *st = svc ? svc->list : NULL; st; st = st->next)
        if (!st->closing && st->state >= 0 && st->state < n)
            counts[st->state]++;
    return n;
}

/* ---- start, resume, stop ----------------------------------------------------------------------
 */

int tsvc_start(const tsvc_config *cfg, const tsvc_host *host, tour_service **out, char *err,
               size_t errcap)
{
    *out = NULL;
    tour_service *svc = calloc(1, sizeof *svc);
    if (!svc) {
        snprintf(err, errcap, "out of memory");
        return ENG_ENOMEM;
    }
    svc->host = *host;
    svc->db = cfg->db;
    svc->shared = cfg->shared;
    snprintf(svc->instance, sizeof svc->instance, "%s", cfg->instance ? cfg->instance : "");
    svc->bot_threads = cfg->bot_threads;
    svc->standings_delay_ms = cfg->standings_delay_ms;
    int rc = ts__tables(svc, err, errcap);
    if (rc == 0)
        rc = tour_store_attach(svc->db, &svc->store, err, errcap);
    if (rc) {
        free(svc);
        return rc;
    }
    *out = svc;
    return 0;
}

/* The tour games of a resumed tournament: a running one's match live again
 * (it continues), finished (its result counts now), or gone (played
 * again); a done one's match, if still held, keeps its tag. */
static void resume_tour_games(tsvc_tour *st)
{
    tour_service *svc = st->svc;
    for (int64_t id = 0; id < tour_game_count(st->t); id++) {
        tour_game g;
        if (tour_get_game(st->t, id, &g) != 0)
            continue;
        const char *ref = tour_game_ref(st->t, id);
        if (g.status == TOUR_DONE && ref && ref[0] && svc->host.find_match) {
            tsvc_outcome o;
            memset(&o, 0, sizeof o);
            svc->host.find_match(svc->host.user, ref, st->id, id, false, &o);
            json_decref((json_t *)o.result);
        }
        if (g.status != TOUR_RUNNING)
            continue;
        tour_result r;
        char verdict[TOUR_VERDICT_MAX + 1];
        int again = ts__match_again(st, id, ref, &r, verdict, sizeof verdict);
        if (again == 0) {
            ts__apply_result(st, id, &r);
        } else if (again < 0) {
            ts__log(svc, TSVC_LOG_WARN, "tournament_game_replayed", "{s:I, s:I}", "tournament",
                    (json_int_t)st->id, "game", (json_int_t)id);
            tour_drive_lost(st->t, id);
        }
    }
}

typedef struct resume_ctx {
    bool only_new;
    int n;
} resume_ctx;

static void resume_row(tour_service *svc, const ts_row *row, void *arg)
{
    resume_ctx *rc_ = arg;
    if (rc_->only_new && find_tour(svc, row->id))
        return;
    tsvc_tour *st = tour_new(svc);
    if (!st)
        return;
    char err[256] = "";
    st->id = row->id;
    st->tour_id = row->tour_id;
    st->state = TS_CREATED;
    for (int i = 0; i < TS_NSTATES; i++)
        if (strcmp(row->state, ts__state_names[i]) == 0)
            st->state = i;
    snprintf(st->note, sizeof st->note, "%s", row->note);
    st->created_ms = row->created;
    int rc = ts__settings_parse(st, row->settings, err, sizeof err);
    if (rc == 0 && strcmp(row->kind, "tour") == 0)
        rc = tour_store_load(svc->store, st->tour_id, TOUR_RESUME_KEEP, &st->t, err, sizeof err);
    if (rc != 0) {
        ts__log(svc, TSVC_LOG_ERROR, "tournament_restore_failed", "{s:I, s:s}", "tournament",
                (json_int_t)st->id, "reason", err);
        tour_free(st);
        return;
    }
    st->next = svc->list;
    svc->list = st;
    rc_->n++;
    if (ts__is_ladder(st))
        ts__lad_resume(st);
    else
        resume_tour_games(st);
    schedule_standings(st);
}

/* Every stored tournament (SQLite), or those this server owns (shared);
 * with only_new, those not held yet (taken over). */
static void resume_rows(tour_service *svc, bool only_new)
{
    resume_ctx c = {.only_new = only_new};
    ts__rows(svc, resume_row, &c);
    if (c.n)
        ts__log(svc, TSVC_LOG_INFO, "tournaments_restored", "{s:i, s:b}", "tournaments", c.n,
                "taken_over", only_new);
    tsvc_poke(svc);
}

void tsvc_resume(tour_service *svc)
{
    resume_rows(svc, false);
}

void tsvc_stop(tour_service *svc)
{
    if (!svc)
        return;
    svc->stopping = true;
    while (svc->list) {
        tsvc_tour *st = svc->list;
        svc->list = st->next;
        tour_close(st);
    }
}

void tsvc_free(tour_service *svc)
{
    if (!svc)
        return;
    tsvc_stop(svc);
    tour_store_close(svc->store);
    free(svc);
}

/* ---- several servers ---------------------------------------------------------------------------
 */

void tsvc_take_over(tour_service *svc)
{
    resume_rows(svc, true);
}

int tsvc_claim(tour_service *svc, const char *dead)
{
    return ts__claim(svc, dead);
}

int tsvc_owner(tour_service *svc, int64_t id, char *name, size_t cap)
{
    if (!svc->shared || find_tour(svc, id))
        return 0;
    return ts__owner(svc, id, name, cap);
}

void tsvc_write_summaries(tour_service *svc)
{
    if (!svc->shared)
        return;
    for (tsvc_tour *st = svc->list; st; st = st->next) {
        if (st->closing)
            continue;
        json_t *sum = ts__summary_json(st);
        char *text = sum ? json_dumps(sum, JSON_COMPACT) : NULL;
        json_decref(sum);
        if (text && (!st->summary_written || strcmp(text, st->summary_written) != 0) &&
            ts__write_summary(svc, st->id, text)) {
            free(st->summary_written);
            st->summary_written = text;
            text = NULL;
        }
        free(text);
    }
}
