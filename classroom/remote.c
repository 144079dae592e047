/*
 * remote.c — remote bots (kind "remote"; internal.h): the student runs
 * the bot, registered on the host under a name the service gave out. Its
 * gates are not the workers' jobs: each is a tournament of server matches
 * the host plays (host.start_tour) — the registered bot against the gate's
 * opponent — started once the bot is connected, its games handed back by
 * the hooks as they end (record, times) and its standings when it is over.
 * A final with a remote bot in it is one such tournament of every
 * finalist. A bot not connected is waited for (state "waiting") up to the
 * course's remote_wait_ms from the submission, and never past the deadline.
 *
 * Everything here runs on the loop. The hooks only note what came (a game,
 * the end); the end is stored at the next poll, not inside the host's call.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "classroom/internal.h"
#include "engine/errors.h"
#include "tournament/tour.h"

/* A remote submission's ladder, or a final with remote bots in it, one
 * host tournament after the other. */
typedef struct rjob {
    struct rjob *next;
    bool final;
    int64_t course, submission;    /* submission: 0 for a final */
    int64_t run;                   /* the submission's run (sub_t) */
    char name[PROTO_NAME_MAX + 1]; /* the registered bot (a ladder) */
    int gate, passed;              /* the gate being played (or next); gates passed */
    int broken;                    /* the gate found broken (its opponent faulted), or -1 */
    char last[CLASS_VERDICT_MAX];  /* the last gate's verdict */
    char shown[CLASS_VERDICT_MAX]; /* the verdict last written while waiting */
    int64_t created_ms;            /* the submission's time: the wait counts from it */
    int64_t tour;                  /* the host's tournament playing, or 0 */
    bool over;                     /* that tournament is over: stored at the next poll */
    done *d;                       /* its games, and its standings once over */
    /* a final */
    int n;
    int64_t *students, *subs;
} rjob;

static void rjob_free(rjob *r)
{
    if (r->d)
        class__done_free(r->d);
    free(r->students);
    free(r->subs);
    free(r);
}

static void rjob_unlink(class_service *svc, rjob *r)
{
    for (rjob **pp = &svc->rjobs; *pp; pp = &(*pp)->next)
        if (*pp == r) {
            *pp = r->next;
            break;
        }
    rjob_free(r);
}

void class__remote_free_all(class_service *svc)
{
    while (svc->rjobs) {
        rjob *r = svc->rjobs;
        svc->rjobs = r->next;
        rjob_free(r);
    }
}

void class__remote_forget(class_service *svc, int64_t course, int64_t sub)
{
    rjob **pp = &svc->rjobs;
    while (*pp) {
        rjob *r = *pp;
        if (r->course == course && (sub == 0 || (!r->final && r->submission == sub))) {
            if (r->tour && svc->host.cancel_tour)
                svc->host.cancel_tour(svc->host.user, r->tour);
            *pp = r->next;
            rjob_free(r);
        } else {
            pp = &r->next;
        }
    }
}

/* hooks' user: a submission's id, or minus the course's id for a final */
static rjob *rjob_of(class_service *svc, int64_t user)
{
    for (rjob *r = svc->rjobs; r; r = r->next)
        if ((user > 0 && !r->final && r->submission == user) ||
            (user < 0 && r->final && r->course == -user))
            return r;
    return NULL;
}

/* ---- the host's hooks ----------------------------------------------------------------------- */

static void on_tour_game(void *ctx, int64_t user, int64_t tid, int64_t game, int seats,
                         const int *table, const tour_result *x, const char *record)
{
    rjob *r = rjob_of(ctx, user);
    if (!r || r->tour != tid || !r->d)
        return;
    class_game g;
    memset(&g, 0, sizeof g);
    g.index = game;
    g.seats = seats < ENG_MAX_PLAYERS ? seats : ENG_MAX_PLAYERS;
    for (int s = 0; s < g.seats; s++) {
        g.who[s] = table[s];
        g.score[s] = x->score[s];
        g.rank[s] = x->rank[s];
        g.think_ms[s] = x->time_ms[s];
        g.moves[s] = x->moves[s];
        g.stderr_text[s] = "";
        g.startup_ms[s] = -1; /* started on its author's machine */
    }
    g.end = tour_end_name(x->end);
    g.culprit = x->culprit;
    char verdict[CLASS_VERDICT_MAX];
    verdict[0] = 0;
    if (x->culprit >= 0)
        snprintf(verdict, sizeof verdict, "P%d (seat %d): %s: %.300s", x->culprit + 1, x->culprit,
                 tour_end_name(x->end), x->verdict ? x->verdict : "");
    g.verdict = verdict;
    g.record = record ? record : "";
    int before = r->d->ngames;
    class__keep_game(&g, r->d);
    if (r->d->ngames > before)
        r->d->games[before].no_stderr = true;
}

static void on_tour_done(void *ctx, int64_t user, int64_t tid, const tour *t)
{
    class_service *svc = ctx;
    rjob *r = rjob_of(svc, user);
    if (!r || r->tour != tid || !r->d)
        return;
    class_standing *out = r->final ? r->d->fst : r->d->st;
    if (class_standings_fill(t, out) != 0) {
        r->d->kind = DONE_FAILED;
        snprintf(r->d->verdict, sizeof r->d->verdict, "out of memory");
    }
    r->over = true;
    svc->host.wake(svc->host.user); /* stored at the poll, not inside the host's own call */
}

/* ---- a ladder ------------------------------------------------------------------------------- */

/* Write a remote submission's state and verdict (while it waits or plays). */
static void rjob_show(class_service *svc, rjob *r, const char *state, const char *verdict)
{
    if (strcmp(r->shown, verdict) == 0)
        return;
    snprintf(r->shown, sizeof r->shown, "%s", verdict);
    class__sub_show(svc, r->submission, state, verdict, r->tour);
}

/* The ladder of r is over: its verdict, stored as a worker's would be. */
static void rjob_finish(class_service *svc, rjob *r, int ngates, int qualify, const char *why)
{
    done *d = calloc(1, sizeof *d);
    if (d) {
        d->kind = DONE_SUB;
        d->course = r->course;
        d->submission = r->submission;
        d->run = r->run;
        d->gates_passed = r->passed;
        d->qualified = r->passed >= qualify;
        if (r->broken >= 0)
            class__not_judged(d, r->broken, r->last);
        else
            snprintf(d->verdict, sizeof d->verdict, "%s %d of %d gates; %.360s",
                     d->qualified ? "qualified:" : "not qualified:", r->passed, ngates,
                     why ? why : r->last);
        class__apply(svc, d);
        class__done_free(d);
    }
    class__sub_tour(svc, r->submission, 0);
    rjob_unlink(svc, r);
}

/* The ladder of r ends with why (a gate that could not be played or
 * scored, a bot that never came). */
static void rjob_fail(class_service *svc, rjob *r, const char *why)
{
    course_t c;
    if (!class__course_load(svc, r->course, &c)) {
        rjob_unlink(svc, r);
        return;
    }
    rjob_finish(svc, r, c.ngates, c.qualify, why);
    class__course_release(&c);
}

/* Start the host's tournament of the participants (specs, names) for r with
 * the course's game, rules and time; 0 or a negative code with err. */
static int rjob_start_tour(class_service *svc, rjob *r, const course_t *c, const char *const *specs,
                           const char *const *names, int n, int format, int64_t gpp, uint64_t seed,
                           const char *label, char *err, size_t errcap)
{
    if (!svc->host.start_tour) {
        snprintf(err, errcap, "this server plays no remote bots");
        return ENG_EINTERNAL;
    }
    json_t *parts = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(parts, json_pack("{s:s, s:s}", "name", names[i], "spec", specs[i]));
    proto_msg m;
    memset(&m, 0, sizeof m);
    m.type = PROTO_CREATE_TOURNAMENT;
    m.game = c->g->name;
    m.rules = c->rules_json;
    m.tc.move_ms = c->move_ms;
    m.tc.first_move_ms = 3 * c->move_ms;
    m.pol.timeout = PROTO_TIMEOUT_FORFEIT;
    m.pol.illegal = PROTO_ILLEGAL_FORFEIT;
    m.pol.max_illegal = 0;
    m.pol.disconnect = PROTO_DISCONNECT_FORFEIT;
    m.pol.reconnect_grace_ms =
        3 * c->move_ms > CLASS_REMOTE_GRACE_MS ? 3 * c->move_ms : CLASS_REMOTE_GRACE_MS;
    m.pol.grace_ms = 0;
    m.tour.format = format;
    m.tour.participants = parts;
    m.tour.nparticipants = n;
    m.tour.games_per_pair = gpp;
    m.tour.cycles = 1;
    m.tour.concurrency = r->final ? svc->final_threads : CLASS_GATE_THREADS;
    m.tour.has_seed = true;
    m.tour.seed = seed & INT64_MAX;
    m.tour.label = label;
    class_tour_hooks h = {.game = on_tour_game,
                          .done = on_tour_done,
                          .ctx = svc,
                          .user = r->final ? -r->course : r->submission};
    done *d = calloc(1, sizeof *d);
    if (d && r->final) {
        d->format = format;
        d->fst = calloc((size_t)n, sizeof *d->fst);
        if (!d->fst) {
            free(d);
            d = NULL;
        }
    }
    if (!d) {
        json_decref(parts);
        snprintf(err, errcap, "out of memory");
        return ENG_ENOMEM;
    }
    if (r->d)
        class__done_free(r->d);
    r->d = d;
    int64_t id = 0;
    int rc = svc->host.start_tour(svc->host.user, &m, &h, &id, err, errcap);
    json_decref(parts);
    if (rc == 0)
        r->tour = id;
    return rc;
}

/* A remote ladder between its gates: start the next one when the bot is
 * connected; else wait, until the course's remote_wait_ms after the
 * submission or the deadline, whichever comes first; then it fails. */
static void rjob_step(class_service *svc, rjob *r)
{
    if (r->tour || r->final)
        return;
    course_t c;
    if (!class__course_load(svc, r->course, &c)) {
        rjob_unlink(svc, r);
        return;
    }
    if (r->gate >= c.ngates) {
        rjob_finish(svc, r, c.ngates, c.qualify, NULL);
        class__course_release(&c);
        return;
    }
    char why[CLASS_VERDICT_MAX];
    if (svc->host.bot_connected && svc->host.bot_connected(svc->host.user, r->name)) {
        const class_gate *gt = &c.gates[r->gate];
        /* the opponent's seat shows its spec (an instructor's program: not its path) */
        bool program = strncmp(gt->opponent, "cmd:", 4) == 0 ||
                       strncmp(gt->opponent, "cmd-stateless:", 14) == 0;
        char oname[PROTO_NAME_MAX + 1];
        snprintf(oname, sizeof oname, "%.64s", program ? "reference program" : gt->opponent);
        char spec[PROTO_SPEC_MAX + 1], label[96], err[400];
        snprintf(spec, sizeof spec, "remote:%s", r->name);
        const char *specs[2] = {spec, gt->opponent}, *names[2] = {r->name, oname};
        snprintf(label, sizeof label, "course %lld: submission %lld, gate %d", (long long)r->course,
                 (long long)r->submission, r->gate + 1);
        int rc = rjob_start_tour(svc, r, &c, specs, names, 2, TOUR_ROUND_ROBIN, gt->games,
                                 c.seed ^ (0x9e3779b97f4a7c15ULL * (uint64_t)(r->gate + 1)), label,
                                 err, sizeof err);
        if (rc == 0) {
            snprintf(why, sizeof why, "gate %d: playing against %.300s", r->gate + 1, gt->opponent);
            rjob_show(svc, r, "running", why);
            class__log(svc, CLASS_LOG_INFO, "course_remote_gate", "{s:I, s:I, s:i, s:I}", "course",
                       (json_int_t)r->course, "submission", (json_int_t)r->submission, "gate",
                       r->gate + 1, "tournament", (json_int_t)r->tour);
        } else if (rc == ENG_ETOO_MANY) {
            snprintf(why, sizeof why, "gate %d: waiting for room on the server: %.300s",
                     r->gate + 1, err);
            rjob_show(svc, r, "waiting", why);
        } else {
            snprintf(why, sizeof why, "gate %d could not be played: %.300s", r->gate + 1, err);
            rjob_finish(svc, r, c.ngates, c.qualify, why);
        }
        class__course_release(&c);
        return;
    }
    int64_t limit = r->created_ms + c.remote_wait_ms;
    bool by_deadline = c.deadline_ms && c.deadline_ms < limit;
    if (by_deadline)
        limit = c.deadline_ms;
    char when[40];
    class__utc(limit, when, sizeof when);
    if (class__now_ms() >= limit) {
        snprintf(why, sizeof why, "gate %d not played: your bot (%s) was not connected by %s (%s)",
                 r->gate + 1, r->name, when,
                 by_deadline ? "the deadline" : "the course's wait for a remote bot");
        rjob_finish(svc, r, c.ngates, c.qualify, why);
    } else {
        snprintf(why, sizeof why,
                 "gate %d: waiting for your bot: %s is not connected; it fails if it has not "
                 "connected by %s",
                 r->gate + 1, r->name, when);
        rjob_show(svc, r, "waiting", why);
    }
    class__course_release(&c);
}

/* A gate's tournament is over: store the gate, then go on or finish. */
static void rjob_gate_over(class_service *svc, rjob *r, done *d)
{
    course_t c;
    if (!class__course_load(svc, r->course, &c)) {
        class__done_free(d);
        rjob_unlink(svc, r);
        return;
    }
    d->course = r->course;
    d->submission = r->submission;
    d->run = r->run;
    if (d->kind == DONE_FAILED) {
        char why[CLASS_VERDICT_MAX];
        snprintf(why, sizeof why, "gate %d could not be scored: %.300s", r->gate + 1, d->verdict);
        class__done_free(d);
        rjob_finish(svc, r, c.ngates, c.qualify, why);
        class__course_release(&c);
        return;
    }
    d->kind = DONE_GATE;
    d->gate = r->gate;
    d->gatedef = c.gates[r->gate];
    class__gate_verdict(d, &c.gates[r->gate]);
    bool passed = d->passed;
    if (d->broken)
        r->broken = r->gate;
    snprintf(r->last, sizeof r->last, "gate %d %.380s", r->gate + 1, d->verdict);
    class__apply(svc, d);
    class__done_free(d);
    r->shown[0] = 0;
    r->gate++;
    if (passed)
        r->passed++;
    if (!passed || r->gate >= c.ngates)
        rjob_finish(svc, r, c.ngates, c.qualify, NULL);
    else
        rjob_step(svc, r);
    class__course_release(&c);
}

/* ---- a final ------------------------------------------------------------------------------- */

/* The final of r ends: its standings stored (d a DONE_FINAL), or its
 * failure (why), and the course no longer names the host's tournament. */
static void rjob_final_end(class_service *svc, rjob *r, done *d, const char *why)
{
    if (d) {
        class__apply(svc, d);
        class__done_free(d);
    } else {
        class__final_failed(svc, r->course, why);
    }
    class__final_tour(svc, r->course, 0);
    rjob_unlink(svc, r);
}

/* A final's tournament is over: its standings, by finalist. */
static void rjob_final_over(class_service *svc, rjob *r, done *d)
{
    d->course = r->course;
    if (d->kind != DONE_FAILED) {
        d->kind = DONE_FINAL;
        d->n = r->n;
        d->students = malloc((size_t)r->n * sizeof *d->students);
        d->subs = malloc((size_t)r->n * sizeof *d->subs);
        if (d->students && d->subs) {
            memcpy(d->students, r->students, (size_t)r->n * sizeof *d->students);
            memcpy(d->subs, r->subs, (size_t)r->n * sizeof *d->subs);
        } else {
            d->kind = DONE_FAILED;
            snprintf(d->verdict, sizeof d->verdict, "out of memory");
        }
    }
    rjob_final_end(svc, r, d, NULL);
}

/* ---- the jobs on the loop -------------------------------------------------------------------- */

/* A tournament of r is over: store the gate (then go on) or the final. */
static void rjob_over(class_service *svc, rjob *r)
{
    done *d = r->d;
    r->d = NULL;
    r->over = false;
    r->tour = 0;
    if (r->final)
        rjob_final_over(svc, r, d);
    else
        rjob_gate_over(svc, r, d);
}

/* A tournament of r that stopped short: cancelled or paused by the admin,
 * paused by itself (a game could not start), or gone. The gate (or the
 * final) fails with the reason rather than waiting for ever. */
static void rjob_check(class_service *svc, rjob *r)
{
    const char *note = "";
    const char *state =
        svc->host.tour_state_of ? svc->host.tour_state_of(svc->host.user, r->tour, &note) : NULL;
    if (state && (strcmp(state, "running") == 0 || strcmp(state, "created") == 0 ||
                  strcmp(state, "done") == 0))
        return;
    char why[CLASS_VERDICT_MAX];
    snprintf(why, sizeof why, "its server tournament %lld %s%s%.200s", (long long)r->tour,
             state ? (strcmp(state, "paused") == 0 ? "was paused" : "was cancelled") : "was lost",
             note && note[0] ? ": " : "", note ? note : "");
    class__log(svc, CLASS_LOG_WARN, "course_tournament_stopped", "{s:I, s:I, s:I, s:s}", "course",
               (json_int_t)r->course, "submission", (json_int_t)r->submission, "tournament",
               (json_int_t)r->tour, "state", state ? state : "gone");
    if (svc->host.cancel_tour)
        svc->host.cancel_tour(svc->host.user, r->tour);
    if (r->final) {
        rjob_final_end(svc, r, NULL, why);
        return;
    }
    char v[CLASS_VERDICT_MAX];
    snprintf(v, sizeof v, "gate %d could not be played: %.300s", r->gate + 1, why);
    rjob_fail(svc, r, v);
}

void class__remote_pump(class_service *svc)
{
    if (svc->stopping)
        return;
    rjob *r = svc->rjobs;
    while (r) {
        rjob *next = r->next;
        if (r->over)
            rjob_over(svc, r);
        else if (!r->tour)
            rjob_step(svc, r);
        else
            rjob_check(svc, r);
        r = next;
    }
}

void class__remote_queue(class_service *svc, const sub_t *s)
{
    /* a host tournament a previous run left: its games start again */
    if (s->tour && svc->host.cancel_tour)
        svc->host.cancel_tour(svc->host.user, s->tour);
    rjob *r = calloc(1, sizeof *r);
    if (!r)
        return;
    r->course = s->course;
    r->submission = s->id;
    r->run = s->run;
    r->created_ms = s->created_ms;
    r->broken = -1;
    snprintf(r->name, sizeof r->name, "%.64s", s->main);
    r->next = svc->rjobs;
    svc->rjobs = r;
    rjob_step(svc, r);
}

/* Programs are seated by the host, in its sandbox; each remote bot on its
 * registered connection, and one that is not connected loses each of its
 * games once the reconnect grace is over. */
bool class__remote_final(const req *rq, const course_t *c, job *j, int format, int64_t gpp)
{
    class_service *svc = rq->svc;
    rjob *r = calloc(1, sizeof *r);
    if (!r) {
        class__fail(rq, ENG_ENOMEM, NULL, "out of memory");
        return false;
    }
    r->final = true;
    r->course = c->id;
    r->n = j->n;
    r->students = j->students;
    r->subs = j->subs;
    j->students = NULL;
    j->subs = NULL;
    char label[64], err[400];
    snprintf(label, sizeof label, "course %lld: the final", (long long)c->id);
    r->next = svc->rjobs;
    svc->rjobs = r;
    int rc =
        rjob_start_tour(svc, r, c, (const char *const *)j->specs, (const char *const *)j->names,
                        j->n, format, gpp, c->seed ^ 0xf1a1ULL, label, err, sizeof err);
    if (rc) {
        rjob_unlink(svc, r);
        class__final_state(svc, c->id, "none", "");
        class__fail(rq, rc, NULL, "the final could not start: %s", err);
        return false;
    }
    class__final_tour(svc, c->id, r->tour);
    return true;
}
